# Numbers that would overflow in compare (issue 28, class 8): medians more than 1e300 apart are
# "out of range", not compared; the summary, the verdict lines and the JSON stay finite (no inf,
# no null geomean), and the exit code is 0: nothing was found slower.
$ sparkreport compare tests/fixtures/compare/extreme-small.json tests/fixtures/compare/extreme-large.json -o $OUT/x.pdf
No result could be compared with the baseline: 3 results are not comparable.
incomparable bandwidth cpu: copy fp64 size, 32 KiB, 20 threads: out of range: the medians (1e-300 and 1e+300) are more than 1e300 times apart
incomparable bandwidth cpu: triad fp64 size, 1024 MiB, 20 threads: out of range: the medians (1e-300 and 1e+300) are more than 1e300 times apart
incomparable bandwidth cpu: read fp64 size, 341 MiB, 20 threads: out of range: the medians (1e-300 and 1e+300) are more than 1e300 times apart
{*}/x.pdf
$ sparkreport compare tests/fixtures/compare/extreme-large.json tests/fixtures/compare/extreme-small.json --json | grep -ciE ':[[:space:]]*(null|-?inf|nan)|infx|inf %'
0
[1]
$ sparkreport compare tests/fixtures/compare/extreme-large.json tests/fixtures/compare/extreme-large.json --json | grep -E '"geomean"' | tr -d '\t' | sort -u
"geomean":1,
