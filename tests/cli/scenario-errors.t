# Every mistake in a scenario is one line FILE:LINE: message, exit 3, and nothing written:
# not even the reports folder exists afterwards.

$ sparkreport run tests/scenarios/syntax.lua -o $OUT/reports
tests/scenarios/syntax.lua:5: '}' expected (to close '{' at line 3) near 'sr'
[3]
$ sparkreport run tests/scenarios/runtime.lua -o $OUT/reports
tests/scenarios/runtime.lua:4: attempt to index a nil value (local 'sizes')
[3]
$ sparkreport run tests/scenarios/unknown-experiment.lua -o $OUT/reports
tests/scenarios/unknown-experiment.lua:4: sparkreport has no experiment or function 'bandwith' (experiments: bandwidth, {*}; functions: is_experiment, job, measured, scenario, system, team)
[3]
$ sparkreport run tests/scenarios/unknown-parameter.lua -o $OUT/reports
tests/scenarios/unknown-parameter.lua:4: bandwidth: unknown parameter 'kernel' (valid: alloc, budget_s, clusters, contention, contention_s, cv, device, first_touch, kernels, max_reps, max_size, min_reps, min_size, points_per_octave, precisions, sample_s, sizes, threads, transfer_size, transfers, warmup)
[3]
$ sparkreport run tests/scenarios/negative-size.lua -o $OUT/reports
tests/scenarios/negative-size.lua:4: bandwidth: parameter 'max_size' must be a size such as 64KiB or 1GiB, got -1
[3]
$ sparkreport run tests/scenarios/absurd-size.lua -o $OUT/reports
tests/scenarios/absurd-size.lua:4: bandwidth: parameter 'max_size' = 5TiB is out of range (3 KiB .. 1 TiB)
[3]
# a size given as a number keeps its unit however large (issue 28: it was cut off)
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set bandwidth.sizes=1.5e300
--set bandwidth.sizes=1.5e300: bandwidth: parameter 'sizes' = 1.33e+285 PiB is out of range (3 KiB .. 1 TiB)
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set bandwidth.sizes=4000000000000
--set bandwidth.sizes=4000000000000: bandwidth: parameter 'sizes' = 3.6 TiB is out of range (3 KiB .. 1 TiB)
[3]
$ sparkreport run tests/scenarios/too-big.lua -o $OUT/reports
tests/scenarios/too-big.lua:4: bandwidth: a working set of 900 GiB does not fit in memory: {*} available (MemAvailable), of which the arrays may use 60 %
[3]
$ sparkreport run tests/scenarios/forbidden-execute.lua -o $OUT/reports
tests/scenarios/forbidden-execute.lua:3: os.execute is not available in a scenario: scenarios cannot run programs, read the environment or change files
[3]
$ sparkreport run tests/scenarios/forbidden-popen.lua -o $OUT/reports
tests/scenarios/forbidden-popen.lua:3: io.popen is not available in a scenario: scenarios cannot read or write files
[3]
$ sparkreport run tests/scenarios/forbidden-write.lua -o $OUT/reports
tests/scenarios/forbidden-write.lua:3: io.open is not available in a scenario: scenarios cannot read or write files
[3]
$ sparkreport run tests/scenarios/no-return.lua -o $OUT/reports
tests/scenarios/no-return.lua:3: the scenario must end with `return sr.scenario { ... }` (it returned nil)
[3]
$ sparkreport run tests/scenarios/missing.lua -o $OUT/reports
sparkreport: tests/scenarios/missing.lua: cannot open: No such file or directory
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set bandwidth.min_reps=1
--set bandwidth.min_reps=1: bandwidth: parameter 'min_reps' = 1 is out of range (2 .. 1000)
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set budget=3
--set budget=3: scenario: unknown parameter 'budget' (valid: baseline, budget_s, decide, kwh_usd, life_years, systems, team_name, template, title, utilisation)
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set train.steps=3
--set train.steps=3: the scenario has no 'train' experiment (it has: bandwidth)
[3]
$ ls -A $OUT
$ test -e /tmp/sparkreport-pwned
[1]
# the team a decision is made for: every field checked where it enters, named with its value
$ sparkreport run tests/scenarios/team-people.lua -o $OUT/reports
tests/scenarios/team-people.lua:4: team: parameter 'people' = 0 is out of range (1 .. 100000)
[3]
$ sparkreport run tests/scenarios/team-workload.lua -o $OUT/reports
tests/scenarios/team-workload.lua:3: team.jobs[1]: parameter 'workload' has unknown value 'llama-9b' (valid: gpt2-124m, {*})
[3]
$ sparkreport run tests/scenarios/team-twice.lua -o $OUT/reports
tests/scenarios/team-twice.lua:3: team.jobs[2]: workload 'gpt2-124m' is listed twice (team.jobs[1] and [2]); give it once with its jobs per month added up
[3]
$ sparkreport run tests/scenarios/team-tiny.lua -o $OUT/reports
tests/scenarios/team-tiny.lua:3: team.jobs[1].per_month = 9.9999999999999694e-311 is too small to be a real figure (a subnormal number)
[3]
$ sparkreport run tests/scenarios/team-unprojected.lua -o $OUT/reports
tests/scenarios/team-unprojected.lua:2: scenario: team.jobs[1]: workload 'llama-3.1-8b-lora' is not among sr.model's workloads (gpt2-124m): add it there
[3]
$ sparkreport run tests/scenarios/team-offer.lua -o $OUT/reports
tests/scenarios/team-offer.lua:3: team.offers[1].system 'h900' is not a catalog system (valid: dgx-spark, {*})
[3]
$ sparkreport run tests/scenarios/team.lua -o $OUT/reports --set team.deadline_h=0
--set team.deadline_h=0: team: parameter 'deadline_h' = 0 is out of range (0.1 .. 8766)
[3]
$ sparkreport run tests/scenarios/team.lua -o $OUT/reports --set team.jobs=3
--set team.jobs=3: team.jobs is a list; change it in the scenario
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set team.people=3
--set team.people=3: the scenario has no team (add sr.team { ... })
[3]
