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
# Issue 50 (round 3's left-over): a valid scenario whose experiment's params were swapped for a table
# whose __index raises. Read raw it was an empty table, an experiment of defaults that measured for
# minutes past the time limit. A scenario's values are plain data, read once, raw, in the scenario's
# own watched state: a table with a metatable anywhere in what it returns (or gives a constructor) is
# refused with its path, at once. Exit 3, nothing written.
$ export SPARKREPORT_SCENARIO_TIME_S=1; sparkreport run tests/scenarios/params-index.lua -o $OUT/reports
tests/scenarios/params-index.lua: the value it returned cannot be used: scenario.experiments[1].params: a table with a metatable is not data (what code reading it would see, through __index or __pairs, is not what it holds); give a plain table
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=1; sparkreport run tests/scenarios/metatable-team.lua -o $OUT/reports
tests/scenarios/metatable-team.lua: the value it returned cannot be used: scenario.team.jobs[1]: a table with a metatable is not data (what code reading it would see, through __index or __pairs, is not what it holds); give a plain table
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=1; sparkreport run tests/scenarios/metatable-given.lua -o $OUT/reports
tests/scenarios/metatable-given.lua:3: bandwidth: a table with a metatable is not data (what code reading it would see, through __index or __pairs, is not what it holds); give a plain table
[3]
# sr.team { } set after sr.scenario: its mark dropped like an experiment's, the team read as it was
# given (here the --set applied to it shows it was read; before, its wrapper was read as the team)
$ sparkreport run tests/scenarios/team-late.lua -o $OUT/reports --set team.deadline_h=0
--set team.deadline_h=0: team: parameter 'deadline_h' = 0 is out of range (0.1 .. 8766)
[3]
$ ls -A $OUT
