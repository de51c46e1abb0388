# Scenario code runs under limits: time (an endless loop, even one that catches the error),
# memory, stack depth, one C call that never returns (the watchdog), no measuring while it
# loads, and its returned tables are checked again. Each ends within seconds with one line
# FILE:LINE: message, exit 3, and nothing written. SPARKREPORT_SCENARIO_TIME_S shortens the
# time limit (default 10 s of processor time) to keep the suite quick.

$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/endless-loop.lua -o $OUT/reports
tests/scenarios/endless-loop.lua:4: the scenario ran for more than 0.5 s of processor time (its limit until it returns the experiments): an endless loop?
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/endless-pcall.lua -o $OUT/reports
tests/scenarios/endless-pcall.lua:{num}: the scenario ran for more than 0.5 s of processor time (its limit until it returns the experiments): an endless loop?
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/backtracking.lua -o $OUT/reports
tests/scenarios/backtracking.lua: the scenario ran for more than 2.5 s of processor time inside one library call (a string pattern that backtracks without end?); stopped
[3]
$ sparkreport run tests/scenarios/memory-hog.lua -o $OUT/reports
tests/scenarios/memory-hog.lua:4: not enough memory: Lua code may hold at most 128 MiB
[3]
$ sparkreport run tests/scenarios/deep-recursion.lua -o $OUT/reports
tests/scenarios/deep-recursion.lua:3: stack overflow
[3]
$ sparkreport run tests/scenarios/measure-in-scenario.lua -o $OUT/reports
tests/scenarios/measure-in-scenario.lua:4: bench.run is not available in a scenario: experiments run after the scenario returns them (write sr.bandwidth { ... })
[3]
# no environment either (issue 28): bench.context, the machine and its OMP_* variables, is the run's
$ sparkreport run tests/scenarios/context-in-scenario.lua -o $OUT/reports
tests/scenarios/context-in-scenario.lua:4: bench.context is not available in a scenario: a scenario sees no environment (results.json records this machine and its OMP_* variables)
[3]
$ sparkreport run tests/scenarios/tampered.lua -o $OUT/reports
tests/scenarios/tampered.lua: the scenario it returned has an entry 1 with invalid parameters: bandwidth: parameter 'min_reps' = 0 is out of range (2 .. 1000)
[3]
$ sparkreport run tests/scenarios/tampered-runner.lua -o $OUT/reports -q
{*}/reports/{*}-tampered-runner/report.pdf
$ grep -c '"fake"' $OUT/reports/latest/results.json
0
[1]
$ rm -r $OUT/reports && ls -A $OUT
$ sparkreport run tests/scenarios/too-many.lua -o $OUT/reports
tests/scenarios/too-many.lua: the scenario it returned lists 101 experiments; at most 100 fit in one run (each takes a second at least)
[3]
# the exit codes of a stopped run are documented
$ sparkreport --help | grep -A2 '^  130, 143'
  130, 143  run stopped by SIGINT (Ctrl-C) or SIGTERM: after the current measurement it
     wrote results.json marked "partial" and a report that says so; a second signal
     stops at once and removes the unfinished run folder
$ ls -A $OUT

# The stack limit is checked like the open-file limit (issue 28): a soft limit below 8 MiB is
# raised toward the hard one, so a scenario's nested calls end in Lua's own "C stack overflow"
# (exit 3), not in SIGSEGV; a hard limit below 2 MiB is refused before anything runs.
$ ulimit -Ss 256; sparkreport run tests/scenarios/c-stack.lua -q -o $OUT
tests/scenarios/c-stack.lua:3: C stack overflow
[3]
$ ulimit -s 256; sparkreport run tests/scenarios/c-stack.lua -q -o $OUT
sparkreport: the stack limit (ulimit -s) is 256 KiB; a run needs at least 2048 KiB; nothing was measured
[1]
$ ls -A $OUT
