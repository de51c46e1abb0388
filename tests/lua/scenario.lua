-- tests/lua/scenario.lua: the scenario API: constructors check parameters, unknown names list
-- the valid ones, --set overrides parse and check like scenario fields.
local sr = require "sparkreport"
local runner = require "sparkreport.runner"

local function fails(fn, pattern)
  local ok, err = pcall(fn)
  assert(not ok, "expected an error matching " .. pattern)
  assert(tostring(err):find(pattern, 1, true), ("error %q lacks %q"):format(tostring(err), pattern))
end

local bw = sr.bandwidth { kernels = "triad", max_size = "64MiB" }
assert(sr.is_experiment(bw) and bw.params.kernels[1] == "triad" and bw.params.max_size == 64 * 1024 * 1024)
assert(bw.params.min_reps == 5 and bw.params.threads == "sweep", "defaults filled in")

fails(function() return sr.bandwidth { kernal = "triad" } end,
      "bandwidth: unknown parameter 'kernal' (valid: alloc, budget_s, clusters, contention, contention_s, cv, device, first_touch, kernels, max_reps, max_size, min_reps, min_size, points_per_octave, precisions, sample_s, sizes, threads, transfer_size, transfers, warmup)")
fails(function() return sr.bandwidht {} end, "sparkreport has no experiment or function 'bandwidht' (experiments: bandwidth, ")
fails(function() return sr.bandwidth "all" end, "sr.bandwidth expects a table of parameters, got string")
fails(function() return sr.bandwidth { max_size = "5TiB" } end, "bandwidth: parameter 'max_size' = 5TiB is out of range (3 KiB .. 1 TiB)")
fails(function() return sr.bandwidth { sizes = { "64KiB", "900GiB" } } end, "bandwidth: a working set of 900 GiB does not fit in memory")
fails(function() return sr.scenario { title = "x" } end, "scenario: no experiments (add e.g. sr.bandwidth { })")
fails(function() return sr.scenario { budget = 5, sr.bandwidth {} } end, "scenario: unknown parameter 'budget' (valid: baseline, budget_s, decide, kwh_usd, life_years, systems, team_name, template, title, utilisation)")
-- the decision pages' fields: workloads by id, cost parameters within their limits
local dscn = sr.scenario { sr.bandwidth {} }
assert(dscn.params.decide[1] == "gpt2-124m" and dscn.params.decide[4] == "llama-3.1-8b-adam8" and dscn.params.decide[5] == "llama-3.3-70b-qlora" and #dscn.params.decide == 5)
assert(dscn.params.life_years == 3 and dscn.params.utilisation == 0.5 and dscn.params.kwh_usd == 0.15)
fails(function() return sr.scenario { decide = { "gpt2-124m", "gpt5" }, sr.bandwidth {} } end, "'decide'")
fails(function() return sr.scenario { decide = { "gpt5" }, sr.bandwidth {} } end, "gpt5")
fails(function() return sr.scenario { utilisation = 1.5, sr.bandwidth {} } end, "scenario: parameter 'utilisation' = 1.5 is out of range")
fails(function() return sr.scenario { life_years = 0, sr.bandwidth {} } end, "scenario: parameter 'life_years' = 0 is out of range")
fails(function() return sr.scenario { 42 } end, "scenario: entry 1 is not an experiment")
fails(function() return sr.scenario { systems = { "h300" }, sr.bandwidth {} } end, "scenario: unknown catalog system 'h300'")
-- the field's old name is still read, checked the same way, and never beside the new one
fails(function() return sr.scenario { compare = { "h300" }, sr.bandwidth {} } end, "scenario: unknown catalog system 'h300'")
assert(#sr.scenario { compare = { "b200" }, sr.bandwidth {} }.params.systems == 1)
fails(function() return sr.scenario { compare = { "b200" }, systems = { "b200" }, sr.bandwidth {} } end,
      "scenario: systems and compare are one field (compare is its old name): give systems only")

local src = 'local sr = require "sparkreport"\nreturn sr.scenario { budget_s = 30, sr.bandwidth { kernels = "copy" } }\n'
-- --set values are applied by runner.prepare, last, in a state the scenario's code never ran in
local function load_set(source, sets) return runner.prepare(runner.load(source, "t.lua"), "t.lua", sets) end
local scn = load_set(src, { "budget_s=60", "bandwidth.min_reps=3", "bandwidth.kernels=triad,read" })
assert(scn.params.budget_s == 60 and scn.experiments[1].params.min_reps == 3)
assert(scn.experiments[1].params.kernels[2] == "read")
fails(function() load_set(src, { "bandwidth.min_reps=1" }) end,
      "--set bandwidth.min_reps=1: bandwidth: parameter 'min_reps' = 1 is out of range (2 .. 1000)")
fails(function() load_set(src, { "train.steps=3" }) end,
      "--set train.steps=3: the scenario has no 'train' experiment (it has: bandwidth)")
fails(function() load_set(src, { "budget_s" }) end, "--set budget_s: expected key=value")
fails(function() runner.load("return 1", "t.lua") end,
      "t.lua:1: the scenario must end with `return sr.scenario { ... }` (it returned 1)")
-- a NUL in a --set value is refused like one in a scenario, never cut (issue 38, class 3): the
-- command line cannot carry one, bench.parse can
local bench = require "bench"
local v, perr = bench.parse("scenario", "title", "visible\0hidden")
assert(v == nil and perr == "scenario: parameter 'title': byte 8 is a NUL (\\0), which would cut the text there; remove it",
       tostring(perr))
fails(function() load_set(src, { "title=visible\0hidden" }) end,
      "--set title=visible")
