#!/bin/sh
# stream-compare.sh: sparkreport's CPU kernels against McCalpin's STREAM on this machine, with
# STREAM's array size and thread count, and sparkreport's read against plain-read.c (the
# plainest fast read: each thread sums its own contiguous chunk with eight vector
# accumulators). Rounds alternate which program runs first. For each kernel and side, the best
# rate of each round; printed are the best and the median of those over the rounds, and
# sparkreport/STREAM ratios of both. sparkreport's headline beyond the caches uses
# non-temporal stores; its cached-store twin is printed too (no target: STREAM's copy is
# memcpy, which streams at this size). A benchmark, not a test: run it on a quiet machine.
#   STREAM=/path/to/stream [ROUNDS=5] [CC=cc] make bench
# STREAM is McCalpin's stream.c (not shipped here), built by you, e.g.
#   gcc -O3 -march=native -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE=268435456 stream.c -o stream
# (each array should be at least 4x all caches: `sparkreport info` prints their total).
# plain-read.c is built here with $CC -O3 -march=native -fopenmp.
set -eu
: "${SR_BIN:=src/sparkreport}"
: "${ROUNDS:=5}"
: "${CC:=cc}"
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${STREAM:-}" ] || [ ! -x "$STREAM" ]; then
    echo "stream-compare: set STREAM to a McCalpin STREAM binary (see the head of $0)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $CC -O3 -march=native -fopenmp "$here/plain-read.c" -o "$tmp/plain-read"; then
    echo "stream-compare: cannot build $here/plain-read.c with $CC" >&2
    exit 2
fi

"$STREAM" > "$tmp/probe.txt"
n=$(sed -n 's/^Array size = \([0-9]*\).*/\1/p' "$tmp/probe.txt")
threads=$(sed -n 's/^Number of Threads counted = \([0-9]*\).*/\1/p' "$tmp/probe.txt")
[ -n "$n" ] && [ -n "$threads" ] || { echo "stream-compare: cannot read STREAM's output" >&2; exit 1; }
bytes=$((3 * n * 8))
echo "STREAM array size $n elements ($((n * 8)) bytes per array), $threads threads, $ROUNDS rounds"

# Each line of $tmp/rates: side kernel stores round best_GB/s
run_stream() {
    OMP_NUM_THREADS=$threads "$STREAM" | awk -v r="$1" '
        /^(Copy|Scale|Add|Triad):/ { k = tolower(substr($1, 1, length($1) - 1)); print "stream", k, "-", r, $2 / 1000 }'
}
run_plain() {
    OMP_NUM_THREADS=$threads "$tmp/plain-read" "$n" 9 | awk -v r="$1" '{ print "plain", "read", "-", r, $(NF - 3) }'
}
run_sparkreport() {
    OMP_NUM_THREADS=$threads "$SR_BIN" run "$here/stream.lua" -q -o "$tmp/reports" \
        --set bandwidth.sizes="$bytes" > /dev/null
    awk -F, -v r="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["series"] == "size" || $col["series"] == "stores" {
            print ($col["series"] == "size" ? "sparkreport" : "sr-twin"), $col["kernel"], $col["stores"], r, $col["gbps_best"] }' \
        "$tmp/reports/latest/results.csv"
    rm -rf "$tmp/reports"
}
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then
        run_stream "$r"; run_plain "$r"; run_sparkreport "$r"
    else
        run_sparkreport "$r"; run_plain "$r"; run_stream "$r"
    fi >> "$tmp/rates"
done

# best and median of one side's per-round best rates for a kernel
stats() { awk -v s="$1" -v k="$2" '$1 == s && $2 == k { print $5 }' "$tmp/rates" | sort -g |
          awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan nan"; exit }
                 printf "%s %s\n", v[NR], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
stores_of() { awk -v s="$1" -v k="$2" '$1 == s && $2 == k { print $3; exit }' "$tmp/rates"; }
# prints one table row; returns 1 when a ratio is below the target ("-": no target)
row() {
    set -- "$1" "$2" "$3" $(stats "$4" "$5") $(stats "$6" "$5") "$7"
    awk -v k="$1" -v st="$2" -v ref="$3" -v rb="$4" -v rm="$5" -v ob="$6" -v om="$7" -v t="$8" 'BEGIN {
        qb = ob / rb; qm = om / rm
        v = t == "-" ? "" : ((qb >= t && qm >= t) ? "ok" : "BELOW")
        printf "%-6s %-13s %-11s %8.1f %8.1f %8.1f %8.1f %7.3f %7.3f  %s%s\n", k, st, ref, rb, rm, ob, om, qb, qm,
               t == "-" ? "" : ">= " t " ", v
        exit (v == "BELOW") }'
}
echo "rates in GB/s as STREAM counts bytes; best and median over $ROUNDS rounds of each round's best"
printf '%-6s %-13s %-11s %8s %8s %8s %8s %7s %7s  %s\n' kernel "sr stores" reference "ref best" "ref med" \
    "sr best" "sr med" "best x" "med x" target
status=0
for k in copy scale add triad; do
    row "$k" "$(stores_of sparkreport "$k")" STREAM stream "$k" sparkreport 1.00 || status=1
    if [ -n "$(stores_of sr-twin "$k")" ]; then
        row "$k" "$(stores_of sr-twin "$k")" STREAM stream "$k" sr-twin - || :
    fi
done
row read none plain-read plain read sparkreport 0.95 || status=1
echo "per-round best rates (GB/s):"
sort -k2,2 -k1,1 -k4n "$tmp/rates" | awk '{ printf "  %-11s %-6s %-13s round %s %8.1f\n", $1, $2, $3, $4, $5 }'
exit $status
