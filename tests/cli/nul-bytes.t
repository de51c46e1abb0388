# Issue 38, round 4, class 3: a NUL byte never cuts a string short. A NUL inside a title, the
# scenario's own workload or system name, or a key is refused like the other control characters,
# naming the field, at the scenario's line; a NUL byte in the scenario file itself (Lua would read
# only up to it), a \u0000 escape in a results file (cJSON would keep the string up to it) and a
# NUL in a --set value (tests/lua/scenario.lua: bench.parse; a command line cannot carry one) the
# same. Nothing is measured or written.

$ sparkreport run tests/scenarios/nul-title.lua -o $OUT/reports
tests/scenarios/nul-title.lua:3: scenario.title: byte 8 is a NUL (\0), which would cut the text there; remove it
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.model { workload_name = "mine\\0theirs" } }\n' > $OUT/w.lua && sparkreport run $OUT/w.lua -o $OUT/reports
{*}/w.lua:2: model.workload_name: byte 5 is a NUL (\0), which would cut the text there; remove it
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.model { system_name = "\\0x" } }\n' > $OUT/s.lua && sparkreport run $OUT/s.lua -o $OUT/reports
{*}/s.lua:2: model.system_name: byte 1 is a NUL (\0), which would cut the text there; remove it
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5, sr.model { ["workload_name\\0x"] = "mine" } }\n' > $OUT/k.lua && sparkreport run $OUT/k.lua -o $OUT/reports
{*}/k.lua:2: model: the key 'workload_name...': byte 14 is a NUL (\0), which would cut the key there
[3]
# a NUL byte in the file itself: the rest of the file would be dropped without a word
$ printf 'local sr = require "sparkreport"\n-- a comment\000return nil\nreturn sr.scenario { budget_s = 5, sr.bandwidth { kernels = "triad" } }\n' > $OUT/lit.lua && sparkreport run $OUT/lit.lua -o $OUT/reports
{*}/lit.lua:2: a NUL byte (byte 46); a scenario is UTF-8 text, and it would end there
[3]
# a results file whose title holds \u0000: render and compare refuse it (exit 4), nothing drawn
$ sed 's/"title": "[^"]*"/"title": "visible\\u0000hidden"/' tests/fixtures/results/tiny.json > $OUT/nul.json && sparkreport render $OUT/nul.json -o $OUT/nul.pdf
sparkreport: {*}/nul.json:{num}: a string holds \u0000 (a NUL), which would cut it there (byte {num})
[4]
$ sparkreport compare tests/fixtures/results/tiny.json $OUT/nul.json -o $OUT/nul-c.pdf
sparkreport: {*}/nul.json:{num}: a string holds \u0000 (a NUL), which would cut it there (byte {num})
[4]
$ ls -A $OUT | grep -c -e reports -e pdf
0
[1]
