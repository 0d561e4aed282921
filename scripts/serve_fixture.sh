#!/bin/sh
# A `cnxsim serve` for a test run: start it on a free port, hand its URL to the
# tests, stop it. For ctest fixtures (FIXTURES_SETUP / FIXTURES_CLEANUP) and CI
# scripts; README "Point your tests at cnxsim" shows both.
#
#   serve_fixture.sh start DIR [cnxsim serve options...]   prints the pulsar:// URL
#   serve_fixture.sh url DIR                                prints it again
#   serve_fixture.sh stop DIR                               SIGTERM, waits, exit 0 if it exited 0
#
# DIR holds serve.out (the ready line, then --trace - if asked), serve.err and
# serve.pid. CNXSIM names the binary (default: cnxsim on PATH). Every wait is
# bounded (10 s), so a server that does not start or stop fails, never hangs.
set -u
usage() { echo "usage: $0 start DIR [serve options...] | url DIR | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
cnxsim=${CNXSIM:-cnxsim}

url_of() { sed -n 's/^ready: \(pulsar:\/\/[^ ]*\) .*/\1/p' "$dir/serve.out" 2>/dev/null | head -n 1; }

case $cmd in
start)
    mkdir -p "$dir" || exit 2
    if [ -f "$dir/serve.pid" ] && kill -0 "$(cat "$dir/serve.pid")" 2>/dev/null; then
        echo "$0: a server started in $dir is still running (pid $(cat "$dir/serve.pid"))" >&2
        exit 1
    fi
    : > "$dir/serve.out"
    "$cnxsim" serve --port 0 "$@" > "$dir/serve.out" 2> "$dir/serve.err" &
    echo $! > "$dir/serve.pid"
    i=0
    while [ $i -lt 200 ]; do
        url=$(url_of)
        if [ -n "$url" ]; then echo "$url"; exit 0; fi
        if ! kill -0 "$(cat "$dir/serve.pid")" 2>/dev/null; then
            echo "$0: cnxsim serve exited before it was ready:" >&2
            cat "$dir/serve.err" >&2
            exit 1
        fi
        sleep 0.05
        i=$((i + 1))
    done
    echo "$0: cnxsim serve printed no ready line within 10 s" >&2
    kill -9 "$(cat "$dir/serve.pid")" 2>/dev/null
    exit 1
    ;;
url)
    url=$(url_of)
    [ -n "$url" ] || { echo "$0: no server ready in $dir" >&2; exit 1; }
    echo "$url"
    ;;
stop)
    [ -f "$dir/serve.pid" ] || { echo "$0: no server started in $dir" >&2; exit 1; }
    pid=$(cat "$dir/serve.pid")
    rm -f "$dir/serve.pid"
    kill -TERM "$pid" 2>/dev/null || { echo "$0: the server (pid $pid) was not running" >&2; exit 1; }
    i=0
    while [ $i -lt 200 ]; do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; exit 0; }
        sleep 0.05
        i=$((i + 1))
    done
    echo "$0: the server (pid $pid) did not stop within 10 s; killed" >&2
    kill -9 "$pid" 2>/dev/null
    exit 1
    ;;
*) usage ;;
esac
