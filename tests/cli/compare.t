# compare: two results files or run folders, a verdict line per changed result, the regression
# PDF, exit 6 when something is slower. Fixtures (tests/fixtures/compare, see its README):
# slower.json takes 10 % more time per pass than baseline.json on triad and read, noise.json has
# other noise around the same centre, params.json was measured with first_touch = false.

$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/baseline.json -o $OUT/self.pdf
0 of 3 compared results are slower than the baseline (0 faster, 3 unchanged, 0 inconclusive); the geometric mean of performance is 1.000x the baseline's.
{*}/self.pdf
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/slower.json -o $OUT/slower.pdf
2 of 3 compared results are slower than the baseline (0 faster, 1 unchanged, 0 inconclusive; 1 result is not comparable); the geometric mean of performance is 0.938x the baseline's.
slower       bandwidth cpu: triad fp64 size, 1024 MiB, 20 threads: median +10.1 %, p = 1.1e-05
slower       bandwidth cpu: read fp64 size, 341 MiB, 20 threads: median +10.1 %, p = 1.1e-05
incomparable bandwidth cpu: fill fp64 size, 341 MiB, 20 threads: only in the current run
{*}/slower.pdf
[6]
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/slower.json --threshold 12 -o $OUT/loose.pdf
0 of 3 compared results are slower than the baseline (0 faster, 3 unchanged, 0 inconclusive; 1 result is not comparable); the geometric mean of performance is 0.938x the baseline's.
incomparable bandwidth cpu: fill fp64 size, 341 MiB, 20 threads: only in the current run
{*}/loose.pdf
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/noise.json -o $OUT/noise.pdf
0 of 3 compared results are slower than the baseline (0 faster, 3 unchanged, 0 inconclusive); the geometric mean of performance is 0.999x the baseline's.
{*}/noise.pdf
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/params.json -o $OUT/params.pdf
No result could be compared with the baseline: 3 results are not comparable.
incomparable bandwidth cpu: all results (3): parameters differ: first_touch true -> false
{*}/params.pdf

# --json: the comparison document on stdout, no PDF unless -o asks for one; the same exit code
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/slower.json --json > $OUT/slower.json
[6]
$ tr -d '\t' < $OUT/slower.json | grep -E '^"(schema|slower|p|verdict)":'
"slower":2,
"slower":2,
"p":0.97051245967654631,
"verdict":"unchanged"
"p":1.082508822446903e-05,
"verdict":"slower"
"p":1.082508822446903e-05,
"verdict":"slower"
"schema":"sparkreport/comparison",
"slower":true,

# usage errors (exit 2) and unreadable results (exit 4) write nothing
$ sparkreport compare tests/fixtures/compare/baseline.json
sparkreport: compare needs two results, e.g. sparkreport compare reports/<run> reports/latest (see sparkreport --help)
[2]
$ sparkreport compare a.json b.json c.json
sparkreport: compare takes two results, BASELINE and CURRENT; extra argument 'c.json' (see sparkreport --help)
[2]
$ sparkreport compare a.json b.json --alpha 1.5
sparkreport: --alpha must be a number from 1e-12 to 0.5, got '1.5' (see sparkreport --help)
[2]
$ sparkreport compare a.json b.json --threshold
sparkreport: option '--threshold' needs a value (see sparkreport --help)
[2]
$ sparkreport compare a.json b.json --frob
sparkreport: unknown option '--frob' for compare (see sparkreport --help)
[2]
$ sparkreport compare $OUT tests/fixtures/compare/slower.json -o $OUT/x.pdf
sparkreport: {*}/results.json: cannot open: No such file or directory
[4]
$ sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/README.md -o $OUT/x.pdf
sparkreport: tests/fixtures/compare/README.md:1: invalid JSON near byte 0
[4]
$ ls $OUT
loose.pdf
noise.pdf
params.pdf
self.pdf
slower.json
slower.pdf
