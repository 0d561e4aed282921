#!/bin/sh
# A `cnxsim serve` for a test run: start it on a free port, hand its URL to the
# tests, stop it. For ctest fixtures (FIXTURES_SETUP / FIXTURES_CLEANUP) and CI
# scripts; README "Point your tests at cnxsim" shows both.
#
#   serve_fixture.sh start DIR [cnxsim serve options...]   prints the pulsar:// URL
#   serve_fixture.sh url DIR                                prints it again
#   serve_fixture.sh files DIR                              prints the folder of its files
#   serve_fixture.sh stop DIR                               SIGTERM, waits, exit 0 once it exited
#
# The server's files are in a private folder DIR/serve.XXXXXX made by
# `mktemp -d` (mode 0700, a fresh name each start): serve.out (the ready line,
# then --trace - if asked), serve.err and serve.pid (its process id, start
# time and executable). Nothing is written at a fixed name, so a symbolic link
# planted in DIR is never followed; DIR must be a folder of this user that
# others cannot write. `stop` signals only the process it started: the pid's
# start time and executable must be those recorded at start, else it refuses
# (a pid reused by another process, or a planted pid file, is left alone).
# CNXSIM names the binary (default: cnxsim on PATH). Every wait is bounded
# (10 s), so a server that does not start or stop fails, never hangs.
set -u
usage() { echo "usage: $0 start DIR [serve options...] | url DIR | files DIR | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
cnxsim=${CNXSIM:-cnxsim}

fail() { echo "$0: $*" >&2; exit 2; }

# DIR must be a real folder of this user that no other user may write into:
# whoever can rename entries in DIR could swap the private folder for a link.
check_dir() {
    [ -L "$dir" ] && fail "$dir is a symbolic link; give a folder"
    [ -d "$dir" ] || fail "$dir is not a folder"
    [ -O "$dir" ] || fail "$dir belongs to another user; give a folder of your own"
    [ -z "$(find "$dir" -maxdepth 0 -perm -0002 2>/dev/null)" ] || fail "$dir is writable by every user; give a private folder"
}

# The private folders of earlier starts in DIR: real folders of this user only.
runs() {
    for d in "$dir"/serve.??????; do
        [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ] && echo "$d"
    done
}

# The one private folder of the server started in DIR (fails when there is none).
run_dir() {
    r=$(runs | tail -n 1)
    [ -n "$r" ] || { echo "$0: no server started in $dir" >&2; exit 1; }
    echo "$r"
}

# A process's start time (clock ticks since boot: field 22 of /proc/PID/stat,
# counted after the command name, which may hold spaces), or ps's where there is no /proc.
start_time() {
    if [ -r "/proc/$1/stat" ]; then
        sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
    else
        ps -o lstart= -p "$1" 2>/dev/null
    fi
}

# The executable a process runs (empty where /proc does not say); a binary
# rebuilt since it started is still the one it runs.
exe_of() { readlink "/proc/$1/exe" 2>/dev/null | sed 's/ (deleted)$//'; }

# Whether serve.pid in folder $1 names a live process that is the cnxsim it recorded.
is_ours() {
    [ -f "$1/serve.pid" ] && [ ! -L "$1/serve.pid" ] || return 1
    pid=$(sed -n 1p "$1/serve.pid") started=$(sed -n 2p "$1/serve.pid") exe=$(sed -n 3p "$1/serve.pid")
    case $pid in '' | *[!0-9]*) return 1 ;; esac
    kill -0 "$pid" 2>/dev/null || return 1
    [ -n "$started" ] && [ "$(start_time "$pid")" = "$started" ] || return 1
    [ -z "$exe" ] || [ "$(exe_of "$pid")" = "$exe" ]
}

url_of() { sed -n 's/^ready: \(pulsar:\/\/[^ ]*\) .*/\1/p' "$1/serve.out" 2>/dev/null | head -n 1; }

case $cmd in
start)
    [ -e "$dir" ] || [ -L "$dir" ] || mkdir -p "$dir" || exit 2
    check_dir
    runs | while IFS= read -r r; do
        if is_ours "$r"; then
            echo "$0: a server started in $dir is still running (pid $(sed -n 1p "$r/serve.pid"))" >&2
            exit 1
        fi
        rm -rf "$r"
    done || exit 1
    run=$(mktemp -d "$dir/serve.XXXXXX") || fail "cannot make a private folder in $dir"
    "$cnxsim" serve --port 0 "$@" > "$run/serve.out" 2> "$run/serve.err" &
    pid=$!
    # The start time now (it is the fork's: the same after exec); the executable
    # once the ready line shows that cnxsim runs.
    echo "$pid" > "$run/serve.pid"
    echo "$(start_time "$pid")" >> "$run/serve.pid"
    i=0
    while [ $i -lt 200 ]; do
        url=$(url_of "$run")
        if [ -n "$url" ]; then
            echo "$(exe_of "$pid")" >> "$run/serve.pid"
            echo "$url"
            exit 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "$0: cnxsim serve exited before it was ready:" >&2
            cat "$run/serve.err" >&2
            exit 1
        fi
        sleep 0.05
        i=$((i + 1))
    done
    echo "$0: cnxsim serve printed no ready line within 10 s" >&2
    kill -9 "$pid" 2>/dev/null
    exit 1
    ;;
url)
    check_dir
    run=$(run_dir) || exit 1
    url=$(url_of "$run")
    [ -n "$url" ] || { echo "$0: no server ready in $dir" >&2; exit 1; }
    echo "$url"
    ;;
files)
    check_dir
    run_dir
    ;;
stop)
    check_dir
    run=$(run_dir) || exit 1
    pid=$(sed -n 1p "$run/serve.pid" 2>/dev/null)
    if ! is_ours "$run"; then
        echo "$0: $run/serve.pid names no running cnxsim this script started (pid '$pid'); nothing signalled" >&2
        exit 1
    fi
    kill -TERM "$pid" 2>/dev/null || { echo "$0: the server (pid $pid) was not running" >&2; exit 1; }
    i=0
    while [ $i -lt 200 ]; do
        kill -0 "$pid" 2>/dev/null || { rm -f "$run/serve.pid"; exit 0; }
        sleep 0.05
        i=$((i + 1))
    done
    echo "$0: the server (pid $pid) did not stop within 10 s; killed" >&2
    kill -9 "$pid" 2>/dev/null
    rm -f "$run/serve.pid"
    exit 1
    ;;
*) usage ;;
esac
