# Hostile scenarios, round 2 (issue 18, classes 1 and 2). A finalizer that never returns (Lua
# runs finalizers without hooks, also when the scenario's state closes) meets the processor-time
# watchdog, which watches until that state is closed (issue 38, class 8: here 0.5 s + 2 s); the
# wall-clock deadline (3 times the limit and 15 s, then 1 s of grace) is what is left for code that
# waits without using the processor. What the scenario returns is copied into C up to its memory ceiling (128
# MiB), counted as copied: a table referenced 2000 times is copied 2000 times; a table inside
# itself is an error. Every error shape names the scenario's file and line: a bad field of
# sr.scenario called as a tail call, error(nil), error({}), an error object whose __tostring
# raises, error(msg, 0), a C stack overflow in a gsub callback.

$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/gc-at-close.lua -o $OUT/reports
tests/scenarios/gc-at-close.lua: the scenario ran for more than 2.5 s of processor time inside one library call or a __gc finalizer, which no hook reaches (a string pattern that backtracks without end, a finalizer that never returns?); stopped
[3]
$ export SPARKREPORT_SCENARIO_TIME_S=0.5; sparkreport run tests/scenarios/gc-in-collect.lua -o $OUT/reports
tests/scenarios/gc-in-collect.lua: the scenario {*}; stopped
[3]
$ sparkreport run tests/scenarios/shared-table.lua -o $OUT/reports
tests/scenarios/shared-table.lua: the value it returned cannot be used: scenario: more than 128 MiB once copied out of Lua, the most a copy may hold (a table referenced from several places is copied once for each)
[3]
$ sparkreport run tests/scenarios/cycle.lua -o $OUT/reports
tests/scenarios/cycle.lua: the value it returned cannot be used: scenario.params.title[1]: a table that contains itself cannot be stored as data
[3]
$ sparkreport run tests/scenarios/bad-field-tail.lua -o $OUT/reports
tests/scenarios/bad-field-tail.lua:3: scenario: parameter 'budget_s' must be a number, got "soon"
[3]
$ sparkreport run tests/scenarios/error-nil.lua -o $OUT/reports
tests/scenarios/error-nil.lua:3: error object is a nil value
[3]
$ sparkreport run tests/scenarios/error-table.lua -o $OUT/reports
tests/scenarios/error-table.lua:3: error object is a table value
[3]
$ sparkreport run tests/scenarios/error-tostring.lua -o $OUT/reports
tests/scenarios/error-tostring.lua:3: error object is a table value
[3]
$ sparkreport run tests/scenarios/error-level0.lua -o $OUT/reports
tests/scenarios/error-level0.lua:3: the answer is not 42
[3]
$ sparkreport run tests/scenarios/c-stack.lua -o $OUT/reports
tests/scenarios/c-stack.lua:3: C stack overflow
[3]
$ ls -A $OUT
