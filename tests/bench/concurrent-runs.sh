#!/bin/sh
# tests/bench/concurrent-runs.sh: a stress check, not part of `make check`: N runs at once into
# one reports folder, ROUNDS times; every run must exit 0 and every run must have a folder of its
# own (same-second names get a suffix, chosen without replacing anything), with latest a link to
# one of them and no .tmp-* left. Usage (from the source tree):
#   tests/bench/concurrent-runs.sh [BIN] [N=16] [ROUNDS=20] [SCENARIO=tests/scenarios/tiny.lua]
set -u
bin=${1:-../build/r2/src/sparkreport}
n=${2:-16}
rounds=${3:-20}
scenario=${4:-tests/scenarios/tiny.lua}
out=$(mktemp -d "${TMPDIR:-/tmp}/concurrent-runs.XXXXXX")
trap 'rm -rf "$out"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    i=1
    while [ "$i" -le "$n" ]; do
        ( "$bin" run "$scenario" -q -o "$out/reports" >"$out/out.$r.$i" 2>&1; echo $? >"$out/rc.$r.$i" ) &
        i=$((i + 1))
    done
    wait
    r=$((r + 1))
done
failed=$(cat "$out"/rc.* | grep -cv '^0$')
runs=$(ls "$out/reports" | grep -cv '^latest$')
paths=$(cat "$out"/out.* | grep -c 'report.pdf$')
distinct=$(cat "$out"/out.* | grep 'report.pdf$' | sort -u | wc -l)
tmps=$(ls -A "$out/reports" | grep -c '^\.tmp-')
echo "$((n * rounds)) runs ($n at once, $rounds rounds): $failed failed, $runs folders, $distinct distinct of $paths paths, $tmps .tmp-* left"
if [ "$failed" -ne 0 ]; then grep -h -v 'report.pdf$' "$out"/out.* | sort | uniq -c | head; fi
[ "$failed" -eq 0 ] && [ "$runs" -eq $((n * rounds)) ] && [ "$distinct" -eq $((n * rounds)) ] && [ "$tmps" -eq 0 ] \
    && [ -L "$out/reports/latest" ] && [ -d "$out/reports/latest" ]
