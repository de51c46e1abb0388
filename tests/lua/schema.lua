-- tests/lua/schema.lua: report.check refuses results whose values the sections cannot draw,
-- naming the path of the first bad value, and passes a well-formed document.
local report = require "sparkreport.report"

local function doc()
  return {
    schema = "sparkreport/results", schema_version = 1, status = "complete",
    context = { host = "h", cpu = { model = "CPU", logical_cpus = 2 }, memory = { total_bytes = 8e9 },
                cuda = { reason = "no CUDA device" }, tool = { version = "0.1.0", git = "abc" } },
    scenario = { title = "T", template = "procurement", name = "t", path = "t.lua", sha256 = "00", source = "" },
    catalog = { source = "data/systems.csv", sha256 = "00", match_reason = "no match",
                rows = { { id = "dgx-spark", name = "NVIDIA DGX Spark (GB10)", mem_bw_gbs = 273 } } },
    experiments = { {
      name = "bandwidth", device = "cpu", status = "complete",
      params = { cv = 0.025, min_reps = 5, warmup = 1, first_touch = true },
      info = { threads_max = 2, cache_levels_bytes = { 32768, 1048576 } },
      skipped = { { item = "per-cluster thread scaling", reason = "no clusters" } },
      results = {
        { series = "size", kernel = "triad", precision = "fp64", valid = true, threads = 2,
          working_set_bytes = 49152, array_bytes = 16384, gbps_best = 12.5, gbps_median = 12, gbps_best_wa = 16,
          time_s = { cv = 0.01, ci95_lo = 1e-6, ci95_hi = 2e-6 }, samples_s = { 1e-6, 2e-6 } },
        { series = "size", kernel = "copy", precision = "fp64", valid = false, threads = 2,
          working_set_bytes = 49152, array_bytes = 16384, error = "validation failed" },
      },
    } },
  }
end

local function refused(mutate, want)
  local d = doc()
  mutate(d)
  local ok, err = report.check(d)
  assert(ok == false, "expected a refusal: " .. want)
  assert(err == want, ("\n got: %s\nwant: %s"):format(err, want))
end

assert(report.check(doc()) == true)

refused(function(d) d.experiments[1].results[1].gbps_best = "fast" end,
  'experiments[1].results[1].gbps_best must be a number, got a string ("fast")')
refused(function(d) d.experiments[1].results[1].gbps_best = nil end,
  "experiments[1].results[1].gbps_best is missing")
refused(function(d) d.experiments[1].results[2].kernel = nil end,
  "experiments[1].results[2].kernel is missing")
refused(function(d) d.experiments[1].results[1].samples_s[2] = true end,
  "experiments[1].results[1].samples_s[2] must be a number, got true")
refused(function(d) d.experiments[1].results[1].time_s = 3 end,
  "experiments[1].results[1].time_s must be an object, got the number 3")
refused(function(d) d.experiments[1].results[1].valid = "yes" end,
  'experiments[1].results[1].valid must be true or false, got a string ("yes")')
refused(function(d) d.experiments[1].skipped = { "x" } end,
  'experiments[1].skipped[1] must be an object, got a string ("x")')
refused(function(d) d.experiments[1].info = nil end, "experiments[1].info is missing")
refused(function(d) d.experiments[1].params.cv = "2.5 %" end,
  'experiments[1].params.cv must be a number, got a string ("2.5 %")')
refused(function(d) d.context.cpu = "fast" end, 'context.cpu must be an object, got a string ("fast")')
refused(function(d) d.context.memory.total_bytes = nil end, "context.memory.total_bytes is missing")
refused(function(d) d.context.cuda.devices = { { name = "GPU" } } end,
  "context.cuda.devices[1].compute_capability is missing")
refused(function(d) d.catalog.rows[1].mem_bw_gbs = "273 GB/s" end,
  'catalog.rows[1].mem_bw_gbs must be a number, got a string ("273 GB/s")')
refused(function(d) d.catalog.match = "h100-sxm" end, "catalog.match names 'h100-sxm', which is not among catalog.rows")
refused(function(d) d.status = 1 end, "status must be a string, got the number 1")
refused(function(d) d.scenario.template = "nonesuch" end,
  "the results name the template 'nonesuch', which this sparkreport does not have")
refused(function(d) d.experiments[1].results = { 1, 2 } end,
  "experiments[1].results[1] must be an object, got the number 1")

-- a failed experiment is not drawn: no info or params needed; an unknown experiment's records
-- are its sections' business
assert(report.check((function() local d = doc(); local e = d.experiments[1]
  e.status, e.error, e.info, e.params, e.results = "failed", "no memory", nil, nil, {}; return d end)()))
assert(report.check((function() local d = doc()
  d.experiments[2] = { name = "future", results = { { anything = true } } }; return d end)()))
-- another document kind (a comparison) passes to its own sections
assert(report.check({ schema = "sparkreport/comparison", template = "regression" }))
-- comparing two runs reads their records only: info and params may be absent
assert(report.check((function() local d = doc(); d.experiments[1].info = nil; return d end)()) == false)
assert(require("sparkreport.schema").check((function() local d = doc(); d.experiments[1].info = nil
  return d end)(), "records") == true)
