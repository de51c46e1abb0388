-- tests/lua/compare.lua: the comparison of two results documents (sparkreport.compare) on small
-- documents made here: the key, the direction of each unit, the verdict thresholds, parameters
-- that may and may not differ, what is not comparable and why, geometric means, the sentence,
-- and the environment diff. Exact p-values of the U test are test_mwu.c's.
local compare = require "sparkreport.compare"

local function check(cond, fmt, ...) if not cond then error(fmt:format(...), 2) end end
local function eq(got, want, what) check(got == want, "%s: got %s, expected %s", what, tostring(got), tostring(want)) end
local function near(got, want, what) check(math.abs(got - want) <= 1e-12 * math.abs(want), "%s: got %.17g, expected %.17g", what, got, want) end

local SPREAD = { -0.012, -0.008, -0.005, -0.002, 0.0, 0.001, 0.003, 0.006, 0.009, 0.014 }
local function samples(center, n)
  local out = {}
  for i = 1, n or #SPREAD do out[i] = center * (1 + SPREAD[i]) end
  return out
end

local function rec(kernel, center, extra)
  local r = { kernel = kernel, precision = "fp64", series = "size", threads = 4, n = 1024, array_bytes = 8192,
              working_set_bytes = 24576, valid = true, samples_s = samples(center), gbps_best = 1.5,
              gbps_median = 1.4, time_s = { median = center }, iters_per_sample = 7, stop = "cv" }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end

-- A results document with one experiment (bandwidth unless named: records of an experiment this
-- sparkreport does not know are not checked against a record shape, and all its parameters count).
local function doc(results, over, name)
  local d = { schema = "sparkreport/results", schema_version = 1, status = "complete",
              context = { host = "h", cuda = { driver_version = 13000 }, memory = { total_bytes = 8, available_bytes = 1 },
                          tool = { version = "0.1.0", git = "abc" } },
              scenario = { title = "T", path = "s.lua", sha256 = "00" }, catalog = { rows = {} },
              experiments = { { name = name or "bandwidth", device = "cpu", status = "complete",
                                params = { first_touch = true, min_reps = 5, warmup = 1 }, results = results } } }
  for k, v in pairs(over or {}) do d[k] = v end
  return d
end

-- the key: identifying fields only, sorted; measurements (samples, statistics, rates, seconds,
-- validation, repetition details) never enter it
eq(compare.key(rec("triad", 1)),
   "array_bytes=8192, kernel=triad, n=1024, precision=fp64, series=size, threads=4, working_set_bytes=24576", "key")
eq(compare.key(rec("triad", 1, { iters_per_sample = 9, gbps_median = 3, max_rel_error = 0 })),
   compare.key(rec("triad", 2)), "measurements outside the key")
-- a bandwidth record from before store kinds were recorded pairs with today's cached-store one
eq(compare.key(rec("triad", 1, { alloc = "host" })), compare.key(rec("triad", 1, { alloc = "host", stores = "cached" })),
   "missing stores = cached")
eq(compare.key(rec("read", 1, { alloc = "host" })), compare.key(rec("read", 1, { alloc = "host", stores = "none" })),
   "missing stores = none for read")
check(compare.key(rec("triad", 1, { alloc = "host" })) ~= compare.key(rec("triad", 1, { alloc = "host", stores = "non-temporal" })),
      "non-temporal stores are another measurement")
eq(compare.key { shape = "tiny", steps = 40, steps_done = 37, loss_final = 2, loss_first = 5.5, lr = 3e-4,
                 algo = "heuristic 0", within_bound = true, seed = 7 },
   "seed=7, shape=tiny, steps=40", "numbers that are not whole and named outcomes outside the key")
-- a held-out loss on the run's trained model: the model identifies it; how many batches the time
-- allowed does not
eq(compare.key { series = "model_loss", scheme = "int8", shape = "small", params = 940800, eval_batches = 16,
                 eval_tokens = 16384, loss_heldout = 1.9, loss_change_se = 1e-4, model_source = "the training experiment of this run" },
   "model_source=the training experiment of this run, params=940800, scheme=int8, series=model_loss, shape=small",
   "held-out data outside the key")
eq(compare.label { algo = "cblas_dgemm", precision = "fp64", series = "gemm", shape = "square", m = 64, n = 64, k = 32,
                   bytes = 98304 }, "fp64 gemm square, 64x64x32, 96 KiB", "label of a GEMM")
eq(compare.label(rec("triad", 1, { cpus = "0-3" })), "triad fp64 size, 24 KiB, 4 threads, CPUs 0-3", "label")
eq(compare.unit_of("samples_s").better, "lower", "seconds: lower is better")
eq(compare.unit_of("samples_tokens_per_s").better, "higher", "rates per second: higher is better")
eq(compare.unit_of("samples_gbps").better, "higher", "GB/s: higher is better")
eq(compare.unit_of("samples_tflops").unit, "TFLOP/s", "TFLOP/s")
eq(compare.unit_of("samples_bytes"), nil, "no rule for bytes")

-- a run against itself: every result unchanged, p = 1
local base = doc { rec("copy", 1e-3), rec("triad", 2e-3), rec("read", 1e-3) }
local c = compare.build(base, base, { baseline_path = "a.json", current_path = "a.json" })
eq(c.schema, "sparkreport/comparison", "schema")
eq(c.template, "regression", "template")
eq(c.counts.compared, 3, "compared")
eq(c.counts.unchanged, 3, "unchanged")
eq(c.slower, false, "slower flag")
for _, r in ipairs(c.results) do eq(r.p, 1.0, "p of identical samples"); eq(r.change, 0.0, "change") end
eq(c.summary, "0 of 3 compared results are slower than the baseline (0 faster, 3 unchanged, 0 inconclusive); "
   .. "the geometric mean of performance is 1.000x the baseline's.", "sentence")

-- 10 % more time per pass on two results, 10 % less on one: slower, slower, faster
local cur = doc { rec("copy", 1.1e-3), rec("triad", 2.2e-3), rec("read", 1e-3 / 1.1) }
c = compare.build(base, cur)
eq(c.counts.slower, 2, "slower")
eq(c.counts.faster, 1, "faster")
eq(c.slower, true, "slower flag")
near(c.results[1].change, 0.1, "change of the median")
near(c.results[1].speedup, 1 / 1.1, "performance")
near(c.results[1].p, 2 / 184756, "p of complete separation, 10 a side")
eq(c.results[1].exact, true, "exact below 50 a side")
near(c.counts.geomean, (1 / 1.1) ^ (1 / 3), "geometric mean over (1/1.1, 1/1.1, 1.1)")
eq(c.experiments[1].experiment, "bandwidth cpu", "experiment id")
eq(c.experiments[1].slower, 2, "slower per experiment")

-- direction per field: GB/s samples 10 % lower are slower, 10 % higher are faster
local function gbps(center) return rec("triad", 1, { samples_s = false, samples_gbps = samples(center) }) end
c = compare.build(doc({ gbps(100) }, nil, "probe"), doc({ gbps(90) }, nil, "probe"))
eq(c.results[1].verdict, "slower", "lower GB/s")
eq(c.results[1].unit, "GB/s", "unit")
eq(c.results[1].experiment, "probe cpu", "an experiment this sparkreport does not know")
c = compare.build(doc({ gbps(100) }, nil, "probe"), doc({ gbps(110) }, nil, "probe"))
eq(c.results[1].verdict, "faster", "higher GB/s")

-- a significant change below the threshold stays unchanged; the threshold can be lowered
c = compare.build(doc { rec("triad", 1.00) }, doc { rec("triad", 1.04) })
eq(c.results[1].verdict, "unchanged", "4 % < 5 %")
check(c.results[1].p < 0.01, "4 %% shift is significant: p = %g", c.results[1].p)
c = compare.build(doc { rec("triad", 1.00) }, doc { rec("triad", 1.04) }, { min_change = 0.03 })
eq(c.results[1].verdict, "slower", "4 % >= 3 %")
eq(c.thresholds.min_change, 0.03, "threshold recorded")

-- three samples a side cannot reach p < 0.01: inconclusive, not unchanged, not slower
local function three(center) return rec("triad", 1, { samples_s = samples(center, 3) }) end
c = compare.build(doc { three(1.0) }, doc { three(1.5) })
eq(c.results[1].verdict, "inconclusive", "3 samples a side")
eq(c.results[1].note, "3 and 3 samples cannot reach p < 0.01", "why inconclusive")
eq(c.slower, false, "inconclusive is not slower")

-- parameters: one that only selects records may differ, one that shapes them may not
local other = doc { rec("copy", 1e-3), rec("triad", 2e-3), rec("read", 1e-3) }
other.experiments[1].params = { first_touch = true, min_reps = 10, warmup = 1 }
c = compare.build(base, other)
eq(c.counts.compared, 3, "min_reps may differ")
other.experiments[1].params = { first_touch = false, min_reps = 5, warmup = 1 }
c = compare.build(base, other)
eq(c.counts.compared, 0, "first_touch may not differ")
eq(#c.not_comparable, 1, "one row for the experiment")
eq(c.not_comparable[1].reason, "parameters differ: first_touch true -> false", "reason")
eq(c.not_comparable[1].count, 3, "count")
eq(c.counts.not_comparable, 3, "not comparable count")
eq(c.summary, "No result could be compared with the baseline: 3 results are not comparable.", "sentence")

-- schema versions: an older file compares; an identifying field only the newer one records is left
-- out of the matching and listed, never an error
local newer = doc({ rec("triad", 1e-3, { cpus = "0-3" }) }, { schema_version = 2 })
c = compare.build(base, newer)
eq(c.counts.compared, 1, "an older baseline compares")
eq(#c.fields_added, 1, "one field added")
eq(c.fields_added[1].field, "cpus", "the field added")
eq(c.fields_added[1].side, "not in the baseline", "its side")
c = compare.build(newer, base)
eq(c.fields_added[1].side, "not in the current run", "the other way round")
c = compare.build(base, doc({ rec("triad", 1e-3, { cpus = "0-3" }) }))
eq(c.counts.compared, 0, "same version: a field that differs is another measurement")
eq(#c.fields_added, 0, "same version: nothing left out")
-- repeats: what version 1 wrote for the model's calibration (one record per configuration that timed an
-- op, without saying which) is read and not compared; a repeat in a current file is refused
local function cal(config, t) return { series = "calibration", kind = "embed", which = 0, m = 512, n = 128, k = 1,
                                       dtype = "fp32", config = config, samples_s = samples(t), valid = true } end
local function model(recs, v)
  local d = doc(recs, { schema_version = v }, "model")
  d.experiments[1].params = {}
  return d
end
local old = model({ cal(nil, 1e-3), cal(nil, 2e-3), cal(nil, 3e-3) }, 1)
local new = model({ cal("v1", 1e-3), cal("v2", 2e-3), cal("v3", 3e-3) }, 2)
eq(compare.repeated_record(old), nil, "version 1's calibration repeats are read")
check(compare.repeated_record(model({ cal(nil, 1e-3), cal(nil, 2e-3) }, 2)), "a repeat in a version 2 file is refused")
check(compare.repeated_record(doc({ rec("copy", 1), rec("copy", 1) })), "a repeated bandwidth record is refused in version 1 too")
c = compare.build(old, new)
eq(c.counts.compared, 0, "repeated records are not compared")
eq(c.not_comparable[1].count, 3, "all three")
eq(c.not_comparable[1].reason, "recorded 3 times in the baseline without a field that tells them apart (written by "
   .. "results schema version 1)", "why")
eq(c.fields_added[1].field, "config", "config is not in the baseline")
c = compare.build(new, new)
eq(c.counts.unchanged, 3, "version 2: each configuration's record compares")
eq(c.counts.not_comparable, 0, "version 2: nothing left out")

-- one-sided records, failed validation, unknown units
c = compare.build(base, doc { rec("copy", 1e-3), rec("fill", 1e-3),
                              rec("read", 1e-3, { valid = false, error = "relative error 1 exceeds 1e-12" }) })
local why = {}
for _, n in ipairs(c.not_comparable) do why[n.label] = n.reason end
eq(why["fill fp64 size, 24 KiB, 4 threads"], "only in the current run", "only current")
eq(why["triad fp64 size, 24 KiB, 4 threads"], "only in the baseline", "only baseline")
eq(why["read fp64 size, 24 KiB, 4 threads"], "failed validation in the current run: relative error 1 exceeds 1e-12", "invalid")
local function probe(extra) return doc({ rec("copy", 1, extra) }, nil, "probe") end
c = compare.build(probe { samples_s = false, samples_bytes = { 1, 2 } }, probe { samples_s = false, samples_bytes = { 1, 2 } })
eq(c.not_comparable[1].reason, "no rule says whether a higher samples_bytes is better", "unknown unit")
-- records without raw samples (numerical errors, fitted figures) are compared by value
c = compare.build(probe { samples_s = false, rel_error = 0.25 }, probe { samples_s = false, rel_error = 0.25 })
eq(c.derived_count, 1, "compared by value")
eq(#c.derived, 0, "unchanged")
eq(#c.not_comparable, 0, "nothing not comparable")
c = compare.build(probe { samples_s = false, rel_error = 0.25 }, probe { samples_s = false, rel_error = 0.5 })
eq(c.derived[1].fields, "rel_error", "the field that changed")

-- projected rows: identified by workload and system; moved when the fit changed or the hours moved by
-- the threshold, and for a row resting on this run's measurements only when those changed too
local function proj(system, kind, hours, fits, extra)
  local r = { series = "projection", workload = "w", system = system, system_kind = kind, hours = hours,
              hours_low = hours * 0.8, hours_high = hours * 1.2, fits = fits, fit = "fits: " .. hours .. " GB",
              micro_batch = 8, steps = 100 }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end
local function rows(list, t)
  local recs = { cal("v1", t) }
  for _, r in ipairs(list) do recs[#recs + 1] = r end
  return model(recs, 2)
end
local before = rows({ proj("h100-sxm", "catalog", 10.5, true), proj("b200", "catalog", 100.5, true),
                      proj("this", "measured", 1000.5, true), proj("dgx-spark", "catalog", 50.5, true) }, 1e-3)
local function after(t) return rows({ proj("h100-sxm", "catalog", 10.5 * 1.01, true, { micro_batch = 4 }),
                                      proj("b200", "catalog", 100.5 * 1.1, true),
                                      proj("this", "measured", 1000.5 * 1.1, true),
                                      proj("dgx-spark", "catalog", 50.5, false) }, t) end
local function moved(cmp)
  local m = {}
  for _, r in ipairs(cmp.projections) do m[r.system] = r.why or false end
  return m
end
c = compare.build(before, after(1e-3))
eq(#c.projections, 4, "every row matched: outcomes are not in the key")
local m = moved(c)
eq(m["h100-sxm"], false, "+1 %: within the threshold")
eq(m.b200, "+10.0 % hours; projected from the catalog and the model, which changed", "catalog row, +10 %")
eq(m.this, false, "a measured row whose measurements did not change has not moved")
eq(m["dgx-spark"], "fits -> does not fit", "fit changed")
eq(c.projection_summary, "2 of 4 projected rows moved beyond their noise.", "projection sentence")
m = moved(compare.build(before, after(1.2e-3)))
eq(m.this, "+10.0 % hours; the measurements it rests on changed (U test)", "measurements changed: the row moved")
eq(compare.build(before, before).projection_summary, "None of the 4 projected rows moved beyond its noise.", "self")
c = compare.build(probe {}, probe { samples_s = { 1, "2", 3 } })
eq(c.not_comparable[1].reason, "samples_s[2] in the current run is not a number", "a sample that is not a number")

-- a results file without the shape reports read: nil and the path of the first bad value
local broken = doc { rec("copy", 1e-3, { samples_s = { 1, "x" } }) }     -- sparkreport.schema's check
local none, why_not = compare.build(base, broken, { current_path = "b.json" })
eq(none, nil, "refused")
eq(why_not, "b.json: experiments[1].results[1].samples_s[2] must be a number, got a string (\"x\")", "why refused")
local failed = doc {}
failed.experiments[1].status, failed.experiments[1].error = "failed", "no CUDA device"
c = compare.build(base, failed)
eq(c.not_comparable[1].reason, "did not run in the current run: no CUDA device", "failed experiment")
local partial = doc { rec("copy", 1e-3) }
partial.experiments[1].status = "partial"                 -- stopped by a signal: what it has counts
c = compare.build(base, partial)
eq(c.counts.compared, 1, "a partial experiment compares")
eq(c.not_comparable[1].reason, "only in the baseline", "what it did not measure")

-- environment: changed items first, free memory never compared, unrecorded items only when asked
local newer = doc({ rec("copy", 1e-3) }, { context = { host = "h", cuda = { driver_version = 13010 },
  memory = { total_bytes = 8, available_bytes = 2 }, tool = { version = "0.1.0", git = "abc" } } })
local env = compare.environment(base, newer)
eq(env[1].item, "CUDA driver", "changed first")
eq(env[1].baseline .. " -> " .. env[1].current, "13000 -> 13010", "driver change")
eq(env[1].changed, true, "changed")
for _, e in ipairs(env) do
  check(e.key ~= "memory.available_bytes", "free memory compared")
  if e.key == "cuda.runtime_version" then eq(e.current, "not recorded", "unrecorded, always shown") end
  check(e.key ~= "cuda.devices.1.name", "GPU shown though neither run recorded one")
  if e.key ~= "cuda.driver_version" then eq(e.changed, false, e.key) end
end

-- misuse
local ok, err = pcall(compare.build, base, base, { alpha = 2 })
check(not ok and tostring(err):find("alpha must be between 0 and 1, got 2", 1, true), "alpha: %s", tostring(err))

-- a parameter a later version added, which an older file does not record, counts there as its
-- default; at another value it differs (the model's workload_gpus: default 1)
assert(#compare.param_differences("model", { workloads = "all" }, { workloads = "all", workload_gpus = 1 }) == 0)
local d = compare.param_differences("model", { workloads = "all" }, { workloads = "all", workload_gpus = 8 })
assert(#d == 1 and d[1] == "workload_gpus not recorded -> 8", d[1])
assert(#compare.param_differences("model", { workload_packing = true }, {}) == 0)
