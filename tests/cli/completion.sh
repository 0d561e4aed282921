#!/usr/bin/env bash
# cli.completion_bash: sources `cnxsim completion bash` and completes a few
# prefixes the way bash does (COMP_WORDS / COMP_CWORD, then the function).
# usage: completion.sh CNXSIM
set -u
source <("$1" completion bash) || { echo "the script does not source"; exit 1; }
complete -p cnxsim | grep -q -- '-F _cnxsim' || { echo "no 'complete -F _cnxsim cnxsim'"; exit 1; }
status=0
expect() {  # expect WANTED WORD...: completing the last WORD offers WANTED
  local wanted=$1; shift
  COMP_WORDS=(cnxsim "$@"); COMP_CWORD=$#; COMPREPLY=()
  _cnxsim
  if [[ " ${COMPREPLY[*]} " != *" $wanted "* ]]; then
    echo "completing '$*' offers '${COMPREPLY[*]}', not '$wanted'"; status=1
  fi
}
expect run ru
expect explain expl
expect --schedule run --sch
expect random run --schedule ra
expect interleavings run --shard-by inter
expect --step explain --st
expect --gaps profiles --ga
expect --help lint --he
expect bash completion ba
# compat, serve and record come from the same option table.
expect --keepalive-seconds serve --keep
expect --max-queued-bytes serve --max
expect --admin-upstream record --admin-up
expect --output record --out
expect --existing compat --exi
expect FULL_TRANSITIVE compat --strategy FULL_T
expect 1.11.4 compat --avro 1.11.
# Only what the prefix matches.
COMP_WORDS=(cnxsim run --sch); COMP_CWORD=2; COMPREPLY=(); _cnxsim
[[ ${#COMPREPLY[@]} -eq 1 ]] || { echo "'run --sch' offers '${COMPREPLY[*]}'"; status=1; }
# A path option completes files.
dir=$(mktemp -d); touch "$dir/out.xml"
expect "$dir/out.xml" run --junit "$dir/ou"
rm -rf "$dir"
[[ $status -eq 0 ]] && echo "completion OK"
exit $status
