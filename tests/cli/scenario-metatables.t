# Issue 38, round 4, class 8: tables with metatables that raise or loop. A finalizer that reads a
# table whose __index raises, in a loop that catches the error, runs when the scenario's state
# closes, where no hook reaches: the processor-time watchdog ends it (0.5 s + 2 s of grace here),
# not the wall-clock deadline 17.5 s later. What the scenario returns is read raw: an __index chain
# that loops is not followed, and the error names the scenario's file. Exit 3, nothing written.

$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/index-raises.lua -o $OUT/reports
tests/scenarios/index-raises.lua: the scenario ran for more than 2.5 s of processor time inside one library call or a __gc finalizer, which no hook reaches (a string pattern that backtracks without end, a finalizer that never returns?); stopped
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/index-loop.lua -o $OUT/reports
tests/scenarios/index-loop.lua:6: the scenario must end with `return sr.scenario { ... }` (it returned another table)
[3]
$ ls -A $OUT
