# Issue 38, round 4, class 7: our own variables that set a time are read once (util/env.c) and a
# value that is not a number of seconds within the variable's limits is refused before anything
# runs, naming the variable and the value (exit 2, nothing written), never replaced by the
# default in silence: SPARKREPORT_MPI_JOIN_S (1 .. 86400; under mpirun every rank refuses it
# before joining: tests/e2e/collective_serving.lua) and SPARKREPORT_SCENARIO_TIME_S (0.1 .. 3600).
$ export SPARKREPORT_MPI_JOIN_S=garbage; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=garbage: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_MPI_JOIN_S=0; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=0: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_MPI_JOIN_S=-5; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=-5: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_MPI_JOIN_S=1e30; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=1e30: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_MPI_JOIN_S=60s; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=60s: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_MPI_JOIN_S=nan; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_MPI_JOIN_S=nan: must be a number of seconds from 1 to 86400 (unset it, or set it within that)
[2]
$ export SPARKREPORT_SCENARIO_TIME_S=10min; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_SCENARIO_TIME_S=10min: must be a number of seconds from 0.1 to 3600 (unset it, or set it within that)
[2]
$ export SPARKREPORT_SCENARIO_TIME_S=0.01; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
sparkreport: SPARKREPORT_SCENARIO_TIME_S=0.01: must be a number of seconds from 0.1 to 3600 (unset it, or set it within that)
[2]
# within the limits, and empty (unset), they are taken
$ export SPARKREPORT_MPI_JOIN_S=5 SPARKREPORT_SCENARIO_TIME_S=; sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
{*}/report.pdf
$ ls $OUT/r | grep -c -v latest
1
