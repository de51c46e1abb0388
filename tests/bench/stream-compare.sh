#!/bin/sh
# stream-compare.sh: sparkreport's CPU kernels against McCalpin's STREAM on this machine, with
# STREAM's array size and thread count, run back to back in alternating rounds; prints the
# median of each side's best rates and their ratio. A benchmark, not a test: run it on a
# quiet machine.
#   STREAM=/path/to/stream [ROUNDS=5] make bench
# STREAM is McCalpin's stream.c built by you with the compiler flags of this build, e.g.
#   gcc -O2 -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE=268435456 stream.c -o stream
# (each array should be at least 4x all caches: `sparkreport info` prints their total).
set -eu
: "${SR_BIN:=src/sparkreport}"
: "${ROUNDS:=5}"
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${STREAM:-}" ] || [ ! -x "$STREAM" ]; then
    echo "stream-compare: set STREAM to a McCalpin STREAM binary (see the head of $0)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$STREAM" > "$tmp/probe.txt"
n=$(sed -n 's/^Array size = \([0-9]*\).*/\1/p' "$tmp/probe.txt")
threads=$(sed -n 's/^Number of Threads counted = \([0-9]*\).*/\1/p' "$tmp/probe.txt")
[ -n "$n" ] && [ -n "$threads" ] || { echo "stream-compare: cannot read STREAM's output" >&2; exit 1; }
bytes=$((3 * n * 8))
echo "STREAM array size $n elements ($((n * 8)) bytes per array), $threads threads, $ROUNDS rounds"

for r in $(seq "$ROUNDS"); do
    OMP_NUM_THREADS=$threads "$STREAM" | awk -v r="$r" '
        /^(Copy|Scale|Add|Triad):/ { k = tolower(substr($1, 1, length($1) - 1)); print "stream", k, r, $2 / 1000 }' >> "$tmp/rates"
    OMP_NUM_THREADS=$threads "$SR_BIN" run "$here/stream.lua" -q -o "$tmp/reports" \
        --set bandwidth.sizes="$bytes" > /dev/null
    awk -F, -v r="$r" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["series"] == "size" { print "sparkreport", $col["kernel"], r, $col["gbps_best"] }' \
        "$tmp/reports/latest/results.csv" >> "$tmp/rates"
    rm -rf "$tmp/reports"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-8s %14s %14s %8s %8s\n' kernel "STREAM GB/s" "sparkreport" ratio target
status=0
for k in copy scale add triad; do
    s=$(awk -v k="$k" '$1 == "stream" && $2 == k { print $4 }' "$tmp/rates" | median)
    o=$(awk -v k="$k" '$1 == "sparkreport" && $2 == k { print $4 }' "$tmp/rates" | median)
    target=0.95
    [ "$k" = triad ] && target=1.00
    verdict=$(awk -v s="$s" -v o="$o" -v t="$target" 'BEGIN { r = o / s; printf "%.3f %s", r, (r >= t ? "ok" : "BELOW") }')
    printf '%-8s %14.1f %14.1f %8s >= %s\n' "$k" "$s" "$o" "$verdict" "$target"
    case $verdict in *BELOW) status=1 ;; esac
done
echo "per-round best rates (GB/s):"
sort -k2,2 -k1,1 -k3n "$tmp/rates" | awk '{ printf "  %-11s %-6s round %s %8.1f\n", $1, $2, $3, $4 }'
exit $status
