# Issue 38, round 4, class 2: lists that are repeated or misspelt. An item given twice in any list
# parameter (the scenario's decide and systems, the model's workloads and systems, a bandwidth
# sweep's sizes: two answers, or two records of one measurement) is refused naming the item and
# both places; an unknown catalog id in the model's systems (a typo) is refused by name, not
# dropped; from the scenario and from --set alike. Exit 3, nothing measured or written. That
# every length these lists then allow renders: tests/e2e/long_lists.lua.

$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5,\n  decide = { "gpt2-124m", "llama-3.1-8b", "gpt2-124m" }, sr.bandwidth { kernels = "triad" } }\n' > $OUT/decide.lua && sparkreport run $OUT/decide.lua -o $OUT/r
{*}/decide.lua:2: scenario: parameter 'decide' lists "gpt2-124m" twice (entries 1 and 3); give each once
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/r --set systems=h100-sxm,b200,h100-sxm,h100-sxm
--set systems=h100-sxm,b200,h100-sxm,h100-sxm: scenario: parameter 'systems' lists "h100-sxm" twice (entries 1 and 3); give each once
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.workloads=gpt2-124m,gpt2-124m
--set model.workloads=gpt2-124m,gpt2-124m: model: parameter 'workloads' lists "gpt2-124m" twice (entries 1 and 2); give each once
[3]
$ printf 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 5,\n  sr.model { systems = { "h100-sxm", "h200-sx" } } }\n' > $OUT/typo.lua && sparkreport run $OUT/typo.lua -o $OUT/r
{*}/typo.lua:3: model: unknown catalog system 'h200-sx' in 'systems' (valid: dgx-spark, {*})
[3]
$ sparkreport run tests/scenarios/own-model.lua -o $OUT/r --set model.systems=b200,h300
--set model.systems=b200,h300: model: unknown catalog system 'h300' in 'systems' (valid: dgx-spark, {*})
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/r --set bandwidth.sizes=64KiB,65536
--set bandwidth.sizes=64KiB,65536: bandwidth: parameter 'sizes' lists 65536 twice (entries 1 and 2); give each once
[3]
$ ls -A $OUT | grep -c r$
0
[1]
