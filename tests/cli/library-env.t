# Variables that reach the OpenMP and BLAS libraries are checked before anything runs (issue 28,
# class 7): a value the libraries would crash on (65536 threads) or fail with inside a
# measurement (a 100 GiB stack per thread), or one they would ignore with a warning, is refused
# with exit 2, naming the variable; nothing is written.
$ export OMP_NUM_THREADS=65536; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: OMP_NUM_THREADS=65536: the OpenMP and BLAS libraries read it; it must be a whole number of threads from 1 to 4096, or a comma list of them (unset it, or set it within that)
[2]
$ export OMP_NUM_THREADS=4,65536; sparkreport info
sparkreport: OMP_NUM_THREADS=4,65536: the OpenMP and BLAS libraries read it; it must be a whole number of threads from 1 to 4096, or a comma list of them (unset it, or set it within that)
[2]
$ export OMP_STACKSIZE=100G; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: OMP_STACKSIZE=100G: the OpenMP and BLAS libraries read it; it must be a size per thread such as 512K, 8M or 1G, at most 1G (unset it, or set it within that)
[2]
$ export OPENBLAS_NUM_THREADS=100000; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: OPENBLAS_NUM_THREADS=100000: the OpenMP and BLAS libraries read it; it must be a whole number of threads from 1 to 4096 (unset it, or set it within that)
[2]
$ export GOTO_NUM_THREADS=-1; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: GOTO_NUM_THREADS=-1: the OpenMP and BLAS libraries read it; it must be a whole number of threads from 1 to 4096 (unset it, or set it within that)
[2]
$ export OMP_THREAD_LIMIT=0; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r 2>&1 | grep sparkreport
sparkreport: OMP_THREAD_LIMIT=0: the OpenMP and BLAS libraries read it; it must be a whole number from 1 (unset it, or set it within that)
$ ls -A $OUT
# within the limits: the run goes on
$ export OMP_NUM_THREADS=2,1 OMP_STACKSIZE=16M; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
{*}/report.pdf
