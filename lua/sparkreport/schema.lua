-- sparkreport.schema: the shape of a results document as the report sections read it, checked
-- before any section draws, so that a hand-edited or damaged results.json is refused with the
-- path of the first bad value ("experiments[1].results[3].gbps_best must be a number, got a
-- string") instead of failing inside a template. A section that starts reading a field declares
-- it here; an experiment declares its records under M.records[NAME] and its info under
-- M.info[NAME]. Fields the sections read with a fallback (`x or "?"`) are optional.
local bench = require "bench"
local M = { records = {}, info = {} }

-- What each version of the results document added (the writer's version is src/util/schema.h's,
-- bench.schema_version). compare reads every version up to the current one: a field added since
-- is reported as not in the older run, never an error. repeated_before(experiment, record) names
-- the records that versions before this one wrote more than once without a field that tells them
-- apart: in an older document they are not compared; in a current one a repeat is refused.
M.versions = {
  { version = 1, added = "the first published schema" },
  { version = 2, added = "model calibration records name the configuration that timed them (config); a run "
                         .. "compared with a baseline records it (baseline: path, sha256, verdicts, projections)",
    repeated_before = function(e, r) return e.name == "model" and r.series == "calibration" end },
  { version = 3, added = "projection records name the software-stack profile they were timed with (stack_name, "
                         .. "stack_runs, stack_era, extrapolated with its spread), mark a marginal fit and what it "
                         .. "becomes if it does not fit (if_not_fit), carry tensor parallelism (tp, tp_comm_s) and the "
                         .. "energy's basis (energy_basis: the whole system's power per device); scale-out records "
                         .. "of a configuration the projection already timed say so (from); "
                         .. "info.dram counts bytes known to move and holds the read, write and mix ceilings with the "
                         .. "write-allocate evidence; the model's calibration takes the run's GEMM rate (peak_gemm, "
                         .. "remeasured) and each memory-bound op's mix ceiling (bandwidth_mix, calibration records' "
                         .. "bytes_read); compression's FP32 products their bound (bound_gflops), its read series whether it is a ceiling (not_a_ceiling); drifting validation "
                         .. "rounds (drift) and a held-out configuration's reference (the ops its prediction "
                         .. "rests on timed again beside its steps: reference); MFU and attention FLOPs count the causal half; context.build.isa; "
                         .. "the tenants experiment (shared use of this machine: series stream and train, each "
                         .. "tenant's time, slowdown and share; info.totals per count) and the model's tenants records "
                         .. "(N people sharing one DGX Spark, projected: fit, step time and hours per tenant; "
                         .. "info.tenants_basis); "
                         .. "the team decision: scenario.team (people, jobs a month, deadline, terms of owning and "
                         .. "renting, offers), catalog.offers (rental offers with their billing), catalog.costs' "
                         .. "server_gpus and launch price, and team_decision (records offer_job, option, option_job, "
                         .. "tying_rent, flip, people_per_spark; info answer, terms, method), or its error; "
                         .. "the scenario names the team the decision is for (scenario.team_name, the decision "
                         .. "report's title); a workload says what its tokens are (tokens_basis: published, "
                         .. "assumed, scenario); a vendor claim names the precision its arithmetic runs in "
                         .. "(compute_precision), whose peak it is set against" },
  { version = 4, added = "the decision stage owns every cost the decision pages print: team_decision's records "
                         .. "job_row (every job on every compared system, bought at the team's use and rented on its "
                         .. "own configuration's cheapest offer, with its fit and both sides' stacks), verdict (per "
                         .. "workload: the Spark against the cheapest HBM way, break-evens and ties), binding (what "
                         .. "decides the answer and the answer without it), spark_count, next_step; a flip names the "
                         .. "option found there (to_count, to_usd_per_year, the answer's cost there) and job sizes "
                         .. "flip (tokens, tokens_all); an option lists each cost term (idle power of owned machines "
                         .. "included) and its unit price; info.jobs (each team job's tokens: tokens, samples x "
                         .. "tokens_per_sample or epochs x dataset_tokens in scenario.team.jobs), info.prices, "
                         .. "info.scope, info.cost_terms; without a team, the decide list's rows and verdicts at "
                         .. "the scenario's use; catalog.costs' idle power; one price per system (the cost file's: "
                         .. "catalog.rows no longer carry price_usd, projection records carry the cost file's). "
                         .. "An older file's team decision is derived again when it is drawn; a stage whose records the reader "
                         .. "would refuse has them left out, its error in their place (stage_faults)" },
}

-- Size limits of a results file's sections (README, "Limits"): beyond them a file is refused
-- before drawing, with the path and the limit, rather than failing inside a section.
M.limits = {
  experiments = 100,        -- as many as one run holds (sparkreport.runner.max_experiments)
  list = 100000,            -- entries of any other list: results, samples, skipped, ...
  catalog_rows = 256,       -- catalog.rows (data/systems.csv has a few dozen)
}

local function opt(spec) return { optional = true, spec = spec } end
local function list(spec, max) return { list = spec, max = max } end
local function object(fields) return { fields = fields } end
M.opt, M.list, M.object = opt, list, object

-- A number (or "integer") within what a run writes: above lo (at lo too unless `open`) and at most
-- hi. A value outside is refused with its place as a JSON pointer (RFC 6901): a hand-edited or
-- foreign file never reaches a section with a negative price, a GPU count of 2.5 or 1e300 hours.
local function range(spec, lo, hi, open) return { range = true, spec = spec, lo = lo, hi = hi, open = open } end
M.range = range
M.limits.hours = 1e25          -- beyond what any run projects (tokens at most 1e15, a system at least 0.01 TFLOPS)
M.limits.usd = 1e12            -- a price or a rent of one system or GPU-hour
M.limits.count = 16777216      -- GPUs of one job: 4096 per node x 4096 nodes
local positive, share = range("number", 0, math.huge, true), range("number", 0, 1)
local nonneg = range("number", 0, math.huge)
M.positive, M.share, M.nonneg = positive, share, nonneg
-- A catalog figure: at least what a machine one trains on has, at most what the scenario's own
-- system may claim (src/predict/project.c's system_floors, src/exp/model/model.c's system_* limits).
local gbs, gb, tflops = range("number", 1, 1e6), range("number", 1, 1e6), range("number", 0.01, 1e6)
local watts, usd = range("number", 1, 1e6), range("number", 1, M.limits.usd)

-- "experiments[2].results[3].hours" -> "/experiments/1/results/2/hours"
function M.pointer(path)
  local out = {}
  for key, index in path:gmatch("([^.%[]*)([%[%d%]]*)") do
    if key ~= "" then out[#out + 1] = "/" .. key:gsub("~", "~0"):gsub("/", "~1") end
    for i in index:gmatch("%[(%d+)%]") do out[#out + 1] = "/" .. (tonumber(i) - 1) end
  end
  return table.concat(out)
end

local function describe(v)
  local t = type(v)
  if t == "string" then
    return ("a string (%q)"):format(#v > 40 and (v:sub(1, 40) .. "...") or v)
  elseif t == "number" then return ("the number %s"):format(tostring(v))
  elseif t == "boolean" then return tostring(v)
  elseif t == "table" then return next(v) == nil and "an empty list or object"
                            or (#v > 0 and "a list" or "an object") end
  return "a " .. t
end

local function num_text(x)
  if math.type(x) == "integer" or (x == math.floor(x) and math.abs(x) < 1e15) then return ("%d"):format(x) end
  return ("%.15g"):format(x)
end

-- A range spec in words: "a whole number from 1 to 64", "above 0 to 1000000000000".
local function range_words(spec)
  local lo = spec.open and ("above %s"):format(num_text(spec.lo)) or ("from %s"):format(num_text(spec.lo))
  local hi = spec.hi < math.huge and (" to %s"):format(num_text(spec.hi)) or ""
  return ("%s%s%s"):format(spec.spec == "integer" and "a whole number " or "", lo, hi)
end

-- A value of a range spec that is not one: its place as a JSON pointer, what a run writes there.
local function out_of_range(path, v, spec)
  local got = type(v) == "number" and num_text(v) or describe(v)
  error({ schema = ("%s = %s is outside what a run writes (%s)"):format(M.pointer(path), got, range_words(spec)) }, 0)
end

local function fits_range(v, spec)
  return type(v) == "number" and not ((spec.spec == "integer" and math.type(v) ~= "integer") or v ~= v
         or v < spec.lo or (spec.open and v == spec.lo) or v > spec.hi)
end

local WHAT = { string = "a string", number = "a number", integer = "a whole number", boolean = "true or false",
               list = "a list", object = "an object" }

local function bad(path, want, v)
  error({ schema = ("%s must be %s, got %s"):format(path, WHAT[want] or want, describe(v)) }, 0)
end

local function is_list(v)
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  return n == #v
end

local check

local function check_fields(v, fields, path)
  for key, spec in pairs(fields) do
    check(v[key], spec, path == "" and key or (path .. "." .. key))
  end
end

-- Raises { schema = "PATH must be ..." } at the first value that does not fit spec.
function check(v, spec, path)
  if type(spec) == "table" and spec.optional then
    if v == nil then return end
    return check(v, spec.spec, path)
  end
  if v == nil then error({ schema = path .. " is missing" }, 0) end
  if spec == "any" then return end
  if type(spec) == "table" and spec.range then
    if type(v) ~= "number" then bad(path, spec.spec, v) end     -- not a number at all: the type's message
    if not fits_range(v, spec) then out_of_range(path, v, spec) end
    return
  end
  if spec == "text" then                        -- a string the report draws: every character drawable
    if type(v) ~= "string" then bad(path, "string", v) end
    local why = bench.text_problem(v)
    if why then error({ schema = ("%s: %s"):format(path, why) }, 0) end
    return
  end
  if spec == "integer" then                     -- what a section prints with %d
    if math.type(v) ~= "integer" then bad(path, spec, v) end
    return
  end
  if type(spec) == "string" then
    if type(v) ~= spec then bad(path, spec, v) end
    return
  end
  if type(v) ~= "table" then bad(path, spec.list and "list" or "object", v) end
  if spec.list then
    if not is_list(v) then bad(path, "list", v) end
    local max = spec.max or M.limits.list
    if #v > max then error({ schema = ("%s has %d entries; at most %d are read"):format(path, #v, max) }, 0) end
    for i, x in ipairs(v) do check(x, spec.list, ("%s[%d]"):format(path, i)) end
  elseif spec.fields then
    if #v > 0 then bad(path, "object", v) end
    check_fields(v, spec.fields, path)
  end
end

-- A rental offer as the team decision reads it (src/decide/team.c), in the catalog block or the team.
M.offer = object { id = "string", system = "string", provider = "text", usd_per_gpu_hour = "number",
                   instance_gpus = list "number", billing_step_s = "number", source = "text", date = "text",
                   product = opt "text", notes = opt "text" }

-- What every section of every template may rely on. The loader (C) has already checked that
-- context and scenario are objects and experiments a list of objects with a name and results.
M.document = object {
  status = opt "string", status_reason = opt "string", stage_faults = opt(list "string"),
  started_utc = opt "string", finished_utc = opt "string", elapsed_s = opt "number",
  context = object {
    host = opt "string",
    cpu = opt(object { model = opt "string", logical_cpus = opt "integer" }),
    memory = object { total_bytes = range("number", 0, 1e18, true) },
    cuda = opt(object { reason = opt "string",
                        devices = opt(list(object { name = "string", compute_capability = "string" })) }),
    tool = opt(object { version = opt "string", git = opt "string" }),
    build = opt(object { openmp_env = opt(object {}) }),          -- the appendix's rerun command
  },
  scenario = object {
    title = opt "text", team_name = opt "text", template = opt "string", name = opt "string", path = opt "string",
    sha256 = opt "string", command = opt "string", source = opt "string", cwd = opt "string",
    decide = opt(list "string"), systems = opt(list "string"), compare = opt(list "string"), life_years = opt "number",
    utilisation = opt "number", kwh_usd = opt "number", run_folder = opt "string",
    team = opt(object { people = "number", deadline_h = "number", life_years = "number", kwh_usd = "number",
                        jobs = list(object { workload = "string", per_month = "number" }, 64),
                        offers = opt(list(M.offer, 64)) }),
  },
  -- the run this one was compared with (results/comparison.c): what the decision page's sentence reads
  baseline = opt(object {
    path = "string", sha256 = opt "string", summary = "string", finished_utc = opt "string",
    slower = opt "integer", compared = opt "integer",
    projections = opt(object { compared = "integer", rows = list "string", moved = list(object {
      workload = "string", system = "string", hours_baseline = opt "number", hours_current = opt "number",
      change = opt "number", fits_baseline = opt "boolean", fits_current = opt "boolean", why = "string" }) }),
  }),
  catalog = object {
    source = opt "string", sha256 = opt "string", match = opt "string", match_reason = opt "string",
    rows = opt(list(object {
      id = "string", name = "text", mem_bw_gbs = opt(gbs), memory_gb = opt(gb),
      memory = opt "text", sources = opt "text", confidence = opt "text", notes = opt "text",
      host_bw_gbs = opt(gbs), price_usd = opt(usd), power_w = opt(watts),
      bf16_tflops = opt(tflops), fp32_tflops = opt(tflops), tf32_tflops = opt(tflops), fp16_tflops = opt(tflops),
      fp8_tflops = opt(tflops), fp4_tflops = opt(tflops), fp64_tflops = opt(tflops),
      host_memory_gb = opt(gb), cpu_gpu_link_gbs = opt(gbs),
    }, M.limits.catalog_rows)),
    costs = opt(object { source = opt "string", rows = opt(list(object {
      id = "string", purchase_usd = opt(usd), rent_usd_per_gpu_hour = opt(range("number", 0, M.limits.usd, true)),
      system_power_w = opt(watts),
      server_gpus = opt(range("integer", 1, M.limits.count)), launch_usd = opt(usd), purchase_date = opt "text",
      launch_date = opt "text", purchase_source = opt "text", rent_source = opt "text", rent_date = opt "text",
      system_power_source = opt "text", launch_source = opt "text", purchase_covers = opt "text",
      system_power_covers = opt "text", idle_power_w = opt(watts), idle_power_source = opt "text",
    }, M.limits.catalog_rows)) }),
    offers = opt(object { source = opt "string", rows = opt(list(M.offer, M.limits.catalog_rows)) }),
  },
  -- the machine's measured ceilings (sparkreport.ceilings, a stage over the experiments): what a run writes
  ceilings = opt(object {
    version = opt "integer", kind = opt "string", note = opt "string",
    dram = opt(list(object { device = "string", gbps = positive, read_gbps = opt(positive), write_gbps = opt(positive),
                             mix_gbps = opt(positive), kernel = opt "string", precision = opt "string" })),
    peaks = opt(list(object { device = "string", precision = "string", gflops = opt(positive), gflops_best = opt(positive) })),
    gemm = opt(list(object { device = "string", precision = "string", gflops = opt(positive), efficiency = opt(nonneg) })),
    gemm_rates = opt(list(object { device = "string", precision = "string", gflops = positive })),
    bandwidth_ladder = opt(list(object { device = "string", gbps_best = opt(positive), gbps_median = opt(positive) })),
    knees = opt(list(object { device = "string", precision = "string", knee_flops_per_byte = opt(positive) })),
    not_measured = opt(list(object { item = "string", reason = "string" })),
  }),
  team_decision = opt(object { error = opt "string", results = opt(list(object { series = "string" })),
                               info = opt(object {
                                 answer = opt(object { option = "string", alternative = opt "string",
                                                       meets_deadline = "boolean" }),
                                 terms = opt(list(object { field = "string", value = "number", source = "string" })),
                                 cost_terms = opt(list(object { field = "string", words = "string" })),
                                 method = opt "string", basis = opt "string", utilisation = opt(share),
                                 derived_at_render = opt "string", jobs_per_month = opt(nonneg),
                                 team = opt(object { people = "number", deadline_h = "number" }),
                                 jobs = opt(list(object { workload = "string", name = "string", team = "boolean",
                                                          per_month = opt(nonneg), tokens = opt(positive),
                                                          tokens_basis = "string", size = opt "string" }, 128)),
                                 prices = opt(list(object { system = "string", purchase_usd = opt(usd),
                                                            server_usd = opt(range("number", 1, M.limits.usd * 64)),
                                                            server_gpus = opt(range("number", 1, 64)),
                                                            idle_power_w = opt(watts), system_power_w = opt(watts),
                                                            purchase_date = opt "string" }, 64)),
                                 offers = opt(list(M.offer, M.limits.catalog_rows)),
                                 scope = opt(object { costed = "string",
                                                      excluded = list(object { what = "string", why = "string" }, 16) }),
                                 simulation = opt(object { months = "number" }) }) }),
}

-- One experiment entry; its results are checked against M.records[name] when there is one.
M.experiment = object {
  name = "string", device = opt "string", status = opt "string", error = opt "string", reason = opt "string",
  note = opt "string", results = list(object {}),
  skipped = opt(list(object { item = "string", reason = "string" })),
  params = opt(object {}), info = opt(object {}),
}

-- The one DRAM figure an experiment used (sparkreport.ceilings.dram), and the words of
-- statistics that did not settle (sparkreport.marks): optional, older files lack them.
local dram = opt(object { gbps = "number", kernel = opt "string", precision = opt "string", stores = opt "string",
                          working_set_bytes = opt "number", threads = opt "number", source = opt "string",
                          rule = opt "string", read_gbps = opt "number", write_gbps = opt "number",
                          mix_gbps = opt "number", read_raised = opt "string",
                          ceilings = opt(list(object { mix = "string", read_share = "number", gbps = "number",
                                                       kernel = opt "string", precision = opt "string",
                                                       stores = opt "string" })),
                          write_allocate = opt(object { shown = opt "boolean", counted = opt "string",
                                                        evidence = opt "string", counters = opt "string" }) })
local settle = { settled = opt "boolean", cv_target = opt "number", stop = opt "string", stores = opt "string" }

local stats = object { cv = opt "number", ci95_lo = opt "number", ci95_hi = opt "number",
                       min = opt "number", median = opt "number" }

-- A bandwidth record: what sections/bandwidth.lua, bandwidth_gpu.lua and the summary read. A
-- record that failed validation has no timing (valid = false, error says why).
M.records.bandwidth = object {
  series = "string", valid = "boolean", error = opt "string",
  kernel = opt "string", precision = opt "string", working_set_bytes = opt "number",
  array_bytes = opt "number", threads = opt "number", cpus = opt "string",
  gbps_best = opt "number", gbps_median = opt "number", gbps_best_wa = opt "number",
  time_s = opt(stats), samples_s = opt(list "number"),
}

local SWEEPS = { size = true, threads = true, cluster = true }

-- What the sweep series need beyond the record's shape: rule(record, experiment, need), where
-- need(field, spec) checks one more field.
M.rules = {}
function M.rules.bandwidth(r, e, need)
  if not SWEEPS[r.series] then return end       -- other series (GPU transfers, ...): their sections
  for _, f in ipairs { "kernel", "precision" } do need(f, "string") end
  for _, f in ipairs { "working_set_bytes", "array_bytes" } do need(f, "number") end
  if e.device ~= "gpu" then need("threads", "integer") end
  if r.series == "cluster" then need("cpus", "string") end
  if r.valid then                               -- a validated record was timed
    need("gbps_best", "number"); need("gbps_median", "number")
    need("time_s", stats); need("samples_s", list "number")
  end
end

M.info.bandwidth = object {
  dram = dram,
  kernels = opt(list(object { name = "string", formula = "string" })), byte_convention = opt "string",
  caches_source = opt "string", caches_total_bytes = opt "number", largest_bytes = opt "number",
  dram_threshold_bytes = opt "number", threads_max = opt "integer", timer_tick_s = opt "number",
  cache_levels_bytes = opt(list "number"), gpu_name = opt "string", l2_bytes = opt "number",
}
M.params = {
  bandwidth = object { cv = opt "number", min_reps = opt "integer", warmup = opt "integer",
                       first_touch = opt "boolean" },
}

-- What a drawn experiment needs beyond those shapes: rule(experiment, need).
M.experiment_rules = {}
function M.experiment_rules.bandwidth(e, need)
  if e.device ~= "gpu" then need("params.min_reps", "integer"); need("params.warmup", "integer") end
end

-- A precision record (sections/precision.lua, ceilings.lua): series peak, gemm, sweep, knee,
-- numerics or overhead. A record that failed validation has no timing (valid = false).
M.records.precision = object {
  series = "string", device = "string", precision = opt "string", valid = opt "boolean",
  threads = opt "number", isa = opt "string", shape = opt "string", method = opt "string", what = opt "string",
  m = opt "number", n = opt "number", k = opt "number", emulated = opt "boolean", within_bound = opt "boolean",
  gflops_best = opt "number", gflops_median = opt "number", flops_per_byte = opt "number", max_rel_error = opt "number",
  rel_error_fro = opt "number", rel_error_max = opt "number", error_bound = opt "number",
  ceiling_gbps = opt "number", ceiling_gflops = opt "number", knee_flops_per_byte = opt "number",
  knee_is_lower_bound = opt "boolean", seconds_median = opt "number", time_s = opt(stats), samples_s = opt(list "number"),
}
local PREC_NEEDS = {
  gemm = { m = "number", n = "number", k = "number", shape = "string" }, peak = { threads = "number" },
  sweep = { method = "string" }, knee = { method = "string", ceiling_gbps = "number", ceiling_gflops = "number",
  knee_flops_per_byte = "number" }, numerics = { m = "number", n = "number", k = "number", rel_error_fro = "number",
  rel_error_max = "number", error_bound = "number", within_bound = "boolean" },
  overhead = { what = "string", seconds_median = "number", time_s = stats },
}
function M.rules.precision(r, _, need)
  for f, spec in pairs(PREC_NEEDS[r.series] or {}) do need(f, spec) end
  if r.series ~= "overhead" then need("precision", "string") end
  if r.series == "peak" or r.series == "gemm" or r.series == "sweep" then
    need("valid", "boolean")
    if r.valid then
      need("gflops_best", "number"); need("gflops_median", "number")
      need("time_s", stats); need("samples_s", list "number")
      if r.series ~= "peak" then need("flops_per_byte", "number") end
    end
  end
end
M.info.precision = object {
  dram = dram,
  cpu = opt(object { threads = opt "number", kernels = opt(list(object { precision = "string", isa = "string",
                                                                       chains = "number", vector_bytes = "number" })) }),
  flop_convention = opt "string", byte_convention = opt "string", model = opt "string",
  tokens = opt "number", hidden = opt "number", vocab = opt "number",
}
M.params.precision = object { cv = opt "number" }

-- A compress record (sections/compress.lua): series gemv or read (timed products), layer_error
-- or model_loss. A product that failed validation has no timing (valid = false).
M.records.compress = object {
  series = "string", scheme = "string", valid = opt "boolean", error = opt "string", batch = opt "number",
  isa = opt "string", rows = opt "number", cols = opt "number", bits_per_weight = opt "number", bytes = opt "number",
  time_s = opt(stats), samples_s = opt(list "number"), gbps_median = opt "number", gbps_best = opt "number",
  speedup_vs_fp32 = opt "number", speedup_vs_bf16 = opt "number", read_fraction_median = opt "number",
  read_fraction_best = opt "number", ideal_speedup_vs_fp32 = opt "number", rel_error = opt "number",
  error_bound = opt "number", within_bound = opt "boolean", weight_rel_error = opt "number",
  loss_heldout = opt "number", loss_change = opt "number", shape = opt "string", steps = opt "number",
  steps_done = opt "number", loss_train_final = opt "number", loss_entropy_bound = opt "number",
  eval_tokens = opt "number", speedup_of_ideal = opt "number", bound = opt "string", gweights_per_s = opt "number",
  dram_over_cache = opt "number", cache = opt(object { rows = "number", gweights_per_s = opt "number" }),
  model_source = opt "string", params = opt "number", layers = opt "number", hidden = opt "number", seq = opt "number",
  vocab = opt "number", model_precision = opt "string", loss_unquantized = opt "number", loss_over_bound = opt "number",
  loss_change_se = opt "number", eval_batches = opt "number",
}
local COMPRESS_NEEDS = {
  gemv = { batch = "number", valid = "boolean", bits_per_weight = "number", bytes = "number", rows = "number",
           cols = "number" },
  read = { valid = "boolean", bytes = "number" },
  layer_error = { rel_error = "number", error_bound = "number", within_bound = "boolean", weight_rel_error = "number",
                  bits_per_weight = "number" },
  model_loss = { loss_heldout = "number", loss_change = "number", shape = "string", steps = "number",
                 steps_done = "number", loss_train_final = "number", loss_entropy_bound = "number",
                 eval_tokens = "number", bits_per_weight = "number" },
}
function M.rules.compress(r, _, need)
  for f, spec in pairs(COMPRESS_NEEDS[r.series] or {}) do need(f, spec) end
  if (r.series == "gemv" or r.series == "read") and r.valid and r.time_s then
    need("time_s", stats); need("samples_s", list "number")
    need("gbps_median", "number"); need("gbps_best", "number")
  end
end
M.info.compress = object {
  dram = dram,
  rows = opt "number", cols = opt "number", fp32_bytes = opt "number", caches_total_bytes = opt "number",
  caches_what = opt "string", byte_convention = opt "string", read_convention = opt "string",
  dram_sized_bytes = opt(nonneg), fraction_rule = opt "string",
  rounding = opt "string", weights = opt "string", threads = opt "number",
  schemes = opt(list(object { scheme = "string", bits_per_weight = "number" })),
}
M.params.compress = object { min_reps = opt "integer" }

-- A model record (sections/model.lua, the summary): series calibration (an op timed on its own),
-- validation (a training configuration predicted, then measured) or projection (a workload on a
-- system; no hours when it does not fit).
M.records.model = object {
  series = "string", class = opt "string", kind = opt "string", dtype = opt "string", median_s = opt "number",
  eta = opt "number", valid = opt "boolean", samples_s = opt(list "number"),
  config = opt "string", layers = opt "integer", hidden = opt "integer", heads = opt "integer", seq = opt "integer",
  batch = opt "integer", accum = opt "integer", checkpoint = opt "boolean", precision = opt "string",
  predicted_s = opt "number", measured_s = opt "number", error = opt "number",
  regime = opt "string", footprint_bytes = opt "number", held_out = opt "boolean", excluded = opt "string",
  rerun = opt "string", rounds_dropped = opt "integer", disturbed_above_s = opt "number",
  reference = opt(object { ops = range("integer", 1, 1e6), rounds = range("integer", 1, 1e6), then_s = positive,
                           now_s = positive, ratio = positive, covers = opt(nonneg), judged = opt "boolean" }),
  workload = opt "string", system = opt "string", system_kind = opt "string", fits = opt "boolean", fit = opt "string",
  hours = opt(range("number", 0, M.limits.hours, true)), hours_low = opt(range("number", 0, M.limits.hours, true)),
  hours_high = opt(range("number", 0, M.limits.hours, true)), memory_bound_share = opt(share),
  by_class = opt(list(object { class = "string", share = share, bound = "string" })),
  energy_kwh = opt(nonneg), price_usd = opt(range("number", 0, M.limits.usd)),
  gpus = opt(range("integer", 1, M.limits.count)), zero = opt(range("integer", 0, 3)),
  mfu = opt(nonneg), traffic_bytes_per_micro = opt(nonneg), traffic_bytes_per_step = opt(nonneg),
  comm_s = opt(nonneg), share_of_peak = opt(nonneg), peak_flops = opt(positive),
  step_s = opt(positive), steps = opt(nonneg), tokens_per_s = opt(positive), tokens_per_s_per_gpu = opt(positive),
  projected_tokens_per_s = opt(positive), projected_tokens_per_s_low = opt(positive),
  projected_tokens_per_s_high = opt(positive),
  stack = opt "string", stack_name = opt "string", stack_fitted_on = opt "string", stack_era = opt "string",
  stack_runs = opt "number", extrapolated = opt "boolean", extrapolation = opt "string",
  extrapolation_spread = opt "number", marginal = opt "boolean", tp = opt "number", tp_comm_s = opt "number",
  energy_basis = opt "string",
  if_not_fit = opt(object { fits = "boolean", fit = "string", hours = opt "number" }),
}
local MODEL_NEEDS = {
  validation = { config = "string", layers = "integer", hidden = "integer", heads = "integer", seq = "integer",
                 batch = "integer", accum = "integer", checkpoint = "boolean", precision = "string",
                 predicted_s = "number", measured_s = "number", error = "number" },
  projection = { workload = "string", system = "string", system_kind = "string", fits = "boolean", fit = "string" },
  -- the smallest of 2, 4, 8 devices that holds a job one device cannot (predict/project.c)
  projection_devices = { workload = "string", system = "string", system_kind = "string", fits = "boolean",
                         fit = "string", devices = "integer" },
  vendor_claim = { system = "string", claimed_tokens_per_s = "number", flops_per_token = "number",
                   needed_flops = "number", source = "string" },
}
function M.rules.model(r, _, need)
  for f, spec in pairs(MODEL_NEEDS[r.series] or {}) do need(f, spec) end
  if (r.series == "projection" or r.series == "projection_devices") and r.hours then
    need("hours_low", "number"); need("hours_high", "number")
  end
end
M.info.model = object {
  dram = dram,
  calibration = opt(object {
    device = "string", threads = "integer", peak_flops = object {}, bandwidth_Bps = "number", vector_flops = "number",
    bandwidth_mix = opt(list(object { read_share = "number", Bps = "number", kernel = opt "string" })),
    peak_gemm = opt(object { gflops = "number", m = "number", n = "number", k = "number", routine = opt "string",
                             family = opt "string" }),
    remeasured = opt(object { dtype = "string", before_flops = "number", op_flops = "number", again_flops = opt "number",
                              op = opt "string", config = opt "string", m = "number", n = "number", k = "number" }),
    op_overhead_s = "number", ops_measured = "integer", spread = "number",
    combine = object { rule = "string", q = opt "number", mean_abs_error = "number", points = "integer" },
    classes = list(object { class = "string", dtype = "string", basis = "string",
                            points = list(object { x = "number", eta = "number" }) }),
    kinds = opt(list(object { class = "string", kind = "string", dtype = "string", dtype_out = "string", basis = "string",
                              points = list(object { x = "number", eta = "number" }) })),
    curve_rule = opt "string",
  }),
  caches_total_bytes = opt "number", op_state_rule = opt "string",
  validation = opt(object { n = range("integer", 0, math.huge), mean_abs_error = range("number", 0, 1e6),
                            max_abs_error = range("number", 0, 1e6), bias = range("number", -1e6, 1e6),
                            spread = range("number", 0, 1e6), kendall_tau = opt "number", excluded = opt "integer",
                            groups = opt(object {}),
                            calculon = opt(object { mean = "number", max = "number" }) }),
  workloads = opt(list(object { id = "string", name = "text", kind = "string", params = positive,
                                tokens = positive, seq = range("integer", 1, math.huge),
                                global_batch = range("integer", 1, math.huge), precision = "string", note = opt "string",
                                source = opt "string", gpus = opt(range("integer", 1, M.limits.count)),
                                how = opt "string" })),
  systems = opt(list(object { id = "string", name = "text", kind = "string", roles = opt(list "string") })),
}
function M.experiment_rules.model(e, need)       -- peak_flops: { dtype = FLOP/s, ... }
  local cal = type(e.info) == "table" and type(e.info.calibration) == "table" and e.info.calibration
  if not cal or type(cal.peak_flops) ~= "table" then return end
  for k in pairs(cal.peak_flops) do need("info.calibration.peak_flops." .. tostring(k), "number") end
end

-- The team decision's records (src/decide: decide.c, rows.c, flips.c) as sections/team.lua and
-- decision.lua draw them, with the ranges a run writes: money, hours and counts the pages print are
-- refused outside them, with their place. Fields a section reads with a fallback are optional.
local money = range("number", 0, M.limits.usd * 1e3)         -- a year of a fleet, or one job
local hrs, cnt = range("number", 0, M.limits.hours), range("number", 0, M.limits.count)
local rate = range("number", 0, M.limits.usd, true)         -- USD per GPU-hour or per hour
local ohrs, omoney, ocnt, orate, onn = opt(hrs), opt(money), opt(cnt), opt(rate), opt(nonneg)
local stack = { stack = opt "string", stack_name = opt "string", stack_era = opt "string", stack_fitted_on = opt "string",
                base_stack = opt "string", base_stack_name = opt "string", base_stack_era = opt "string",
                base_stack_fitted_on = opt "string" }
local function with(fields, more)
  local out = {}
  for k, v in pairs(fields) do out[k] = v end
  for k, v in pairs(more or {}) do out[k] = v end
  return object(out)
end
M.team_records = {
  option = object { option = "string", kind = "string", count = cnt, units = ocnt, outlay_usd = money,
                    usd_per_year = money, usd_per_job = money, utilisation = nonneg, keeps_up = "boolean",
                    meets_deadline = "boolean", answer = "boolean", jobs_per_year = nonneg, unit_price_usd = omoney,
                    capital_usd_per_year = omoney, energy_usd_per_year = omoney, idle_usd_per_year = omoney,
                    facility_usd_per_year = omoney, support_usd_per_year = omoney, rent_usd_per_year = omoney,
                    busy_hour_usd = omoney, server_gpus = ocnt, system = opt "string",
                    result_p50_h = ohrs, result_p95_h = ohrs, jobs_simulated = ocnt },
  option_job = object { option = "string", workload = "string", on = "string", units = cnt, run_h = ohrs,
                        run_fast_h = ohrs, marginal = opt "boolean", usd = omoney, result_h = ohrs, gpus = ocnt,
                        instance_gpus = ocnt, provider = opt "string", system = opt "string", result_p95_h = ohrs },
  offer_job = object { workload = "string", offer = "string", system = "string", provider = "string", gpus = cnt,
                       instance_gpus = cnt, usd = money, result_h = hrs, meets_deadline = "boolean", run_h = ohrs,
                       billed_h = ohrs },
  tying_rent = object { system = "string", utilisation = share, usd_per_gpu_hour = rate, base_usd_per_gpu_hour = rate,
                        offer = opt "string", provider = opt "string" },
  flip = object { what = "string", direction = "string", found = "boolean", to = opt "string", factor = opt(positive),
                  value = onn, base = onn, to_count = ocnt, to_usd_per_year = omoney, answer_usd_per_year_at = omoney,
                  usd_per_gpu_hour = orate, base_usd_per_gpu_hour = orate, workload = opt "string", system = opt "string",
                  jobs_at_flip = opt(list(object { workload = "string", tokens = positive }, 64)),
                  answer_there = opt "string",
                  jobs = opt(list(object { workload = "string", stack_name = opt "string",
                                           compiled_stack_name = opt "string", spark_h = ohrs,
                                           spark_compiled_h = ohrs, speed_of_compiled = opt(positive) }, 64)) },
  people_per_spark = object { workload = "string", projected = "boolean", people = ocnt, result_p95_h = ohrs,
                              hours_alone = ohrs, reason = opt "string" },
  spark_count = object { count = cnt, rule = "string", deadline_h = hrs, result_p95_h = ohrs, fewer_count = ocnt,
                         more_count = ocnt,
                         fewer_result_p95_h = ohrs, more_result_p95_h = ohrs, fewest_keeping_up = ocnt,
                         longest_workload = opt "string", longest_run_h = ohrs, longest_units = ocnt, gain_limit = share },
  binding = object { constraint = "string", answer_usd_per_year = money, deadline_h = hrs, without = opt "string",
                     without_count = ocnt, without_usd_per_year = omoney, without_result_p95_h = ohrs,
                     workload = opt "string", units = ocnt, job_run_h = ohrs, job_run_low_h = ohrs,
                     job_run_high_h = ohrs, job_result_p95_h = ohrs, margin_h = opt "number", needs_bytes = onn,
                     usable_bytes = opt "number", margin_usd_per_year = opt "number" },
  next_step = object { system = "string", offer = "string", provider = "string", gpus = cnt, usd_per_hour = rate,
                       date = "string" },
  job_row = with(stack, { workload = "string", system = "string", role = "string", gpus = cnt, fits = "boolean",
                          fit = opt "string", marginal = opt "boolean", if_not_fit = opt "string",
                          if_not_fit_hours = ohrs, zero = opt(range("number", 0, 3)), tokens = opt(positive),
                          hours = ohrs, hours_low = ohrs, hours_high = ohrs, kwh = onn, buy_usd = omoney,
                          buy_utilisation = onn, rent_usd = omoney, rent_offer = opt "string",
                          rent_provider = opt "string", rent_instance_gpus = ocnt, faster_per_job = opt(positive),
                          faster_per_device = opt(positive), spark_base = opt "boolean", extrapolated = opt "boolean",
                          extrapolation_spread = opt(positive), stack_runs = onn, memory_bound_share = opt(share),
                          calibrated = opt(object { on = "string", here = "boolean", ratio = positive,
                                                    measured_tokens_per_s = positive, spread = positive,
                                                    source = "string" }) }),
  verdict = object { workload = "string", kind = "string", spark_gpus = ocnt, spark_hours = ohrs, spark_usd = omoney,
                     spark_usd_low = omoney, spark_usd_high = omoney, utilisation = onn, alt_system = opt "string",
                     alt_gpus = ocnt, alt_hours = ohrs, alt_how = opt "string", alt_usd = omoney,
                     break_even_utilisation = onn, kwh_usd_tie = onn, spark_price_tie = omoney,
                     rent_usd_per_gpu_hour_tie = orate, memory_bound_share = opt(share), hbm_bandwidth_ratio = onn,
                     hbm_bf16_ratio = onn, shrink_with_bandwidth = onn, bf16_tie_factor = onn, bf16_tie_tflops = onn },
}
-- What a record says only in some states: an option that keeps up has the percentiles of the jobs its
-- simulation counted (a team whose jobs are rare may have none counted in the months simulated,
-- jobs_simulated 0, and then has none); a rented
-- job its bill; a flip found names its option; a row that runs has its hours and band.
local function team_rule(r, need)
  if r.series == "option" and r.keeps_up == true and r.jobs_simulated ~= 0 then need("result_p50_h", hrs); need("result_p95_h", hrs) end
  if r.series == "option_job" and r.on == "rented" then
    for _, f in ipairs { "usd", "result_h", "gpus", "instance_gpus" } do need(f, "number") end
    for _, f in ipairs { "provider", "system" } do need(f, "string") end
  end
  if r.series == "flip" and r.found == true then
    need("to", "string")
    if r.what ~= "spark_speed" and r.what ~= "compiled_stack" then need("factor", "number") end
  end
  if r.series == "people_per_spark" and r.projected == true then need("people", "number") end
  if r.series == "job_row" and r.fits == true then
    for _, f in ipairs { "hours", "hours_low", "hours_high" } do need(f, hrs) end
  end
end

local function check_team_decision(td, path)
  for j, r in ipairs(td.results or {}) do
    local rpath = ("%s.results[%d]"):format(path, j)
    if M.team_records[r.series] then check(r, M.team_records[r.series], rpath) end
    team_rule(r, function(f, spec) check(r[f], spec, rpath .. "." .. f) end)
  end
end

local function check_team(results)
  if results.team_decision then
    for _, r in ipairs(type(results.team_decision.results) == "table" and results.team_decision.results or {}) do
      if type(r) == "table" and r.series == "option" and not (type(results.scenario) == "table" and results.scenario.team) then
        error({ schema = "team_decision has options but scenario.team (the team they answer for) is missing" }, 0)
      end
    end
    check_team_decision(results.team_decision, "team_decision")
  end
end

local DRAWN = { complete = true, partial = true }   -- statuses whose records the sections draw

local function check_experiment(e, path, records_only)
  check(e, M.experiment, path)
  local name, drawn = e.name, DRAWN[e.status] and not records_only
  if M.info[name] then check(e.info, drawn and M.info[name] or opt(M.info[name]), path .. ".info") end
  if M.params[name] then check(e.params, drawn and M.params[name] or opt(M.params[name]), path .. ".params") end
  local erule = M.experiment_rules[name]
  if drawn and erule then
    erule(e, function(f, spec)
      local v = e
      for k in f:gmatch("[^.]+") do v = type(v) == "table" and v[k] or nil end
      check(v, spec, path .. "." .. f)
    end)
  end
  local rec, rule = M.records[name], M.rules[name]
  if not rec then return end
  for j, r in ipairs(e.results) do
    local rpath = ("%s.results[%d]"):format(path, j)
    check(r, rec, rpath)
    if rule then rule(r, e, function(f, spec) check(r[f], spec, rpath .. "." .. f) end) end
  end
end

local function check_catalog(cat)
  if not cat.match then return end
  if not cat.match_reason then error({ schema = "catalog.match_reason is missing (catalog.match is set)" }, 0) end
  for _, r in ipairs(cat.rows or {}) do if r.id == cat.match then return end end
  error({ schema = ("catalog.match names '%s', which is not among catalog.rows"):format(cat.match) }, 0)
end

-- The scenario's fields that come from the run's own parameters (the scenario's table in
-- src/exp/experiment.c), checked against that table again: the same ranges, lists without an item
-- twice, workloads by id. A field a file predates is absent and passes.
local RUN_FIELDS = { "life_years", "utilisation", "kwh_usd", "decide", "systems", "compare", "budget_s" }
local function check_scenario(scn)
  for _, k in ipairs(RUN_FIELDS) do
    if scn[k] ~= nil then
      local ok, err = bench.check("scenario", { [k == "compare" and "systems" or k] = scn[k] })
      if not ok then
        error({ schema = ("%s: %s (a run refuses it)"):format(M.pointer("scenario." .. k),
                                                              (tostring(err):gsub("^scenario: ", ""))) }, 0)
      end
    end
  end
end

-- M.check(results[, "records"]) -> true | false, "PATH must be ...". With "records", what
-- only drawing needs (an experiment's info and params blocks) may be absent: enough to
-- compare two runs. Documents of other schemas (a comparison) are their own sections'
-- business and pass.
function M.check(results, what)
  if type(results) ~= "table" then return false, "the document must be an object" end
  if results.schema ~= bench.schema then return true end
  local ok, err = pcall(function()
    check(results, M.document, "")
    if #results.experiments > M.limits.experiments then
      error({ schema = ("experiments has %d entries; at most %d are read"):format(#results.experiments,
                                                                                   M.limits.experiments) }, 0)
    end
    check_catalog(results.catalog)
    check_scenario(results.scenario)
    check_team(results)
    for i, e in ipairs(results.experiments) do
      check_experiment(e, ("experiments[%d]"):format(i), what == "records")
    end
  end)
  if ok then return true end
  if type(err) == "table" and err.schema then return false, err.schema end
  error(err, 0)
end

-- A number of a data file's cell (sparkreport.catalog.check_data) against the range the reader applies
-- where results.json carries it: nil when it fits (or the spec has no range), else the words after the
-- cell's value ("is outside what the report reads (from 1 to 1000000000000)").
function M.range_problem(v, spec)
  spec = type(spec) == "table" and spec.optional and spec.spec or spec
  if type(spec) ~= "table" or not spec.range or fits_range(v, spec) then return nil end
  return ("is outside what the report reads (%s)"):format(range_words(spec))
end

-- What one stage wrote, checked as M.check checks it in the whole document: the team decision
-- (`part` "team_decision": doc.team_decision against doc.scenario.team) or an experiment with the
-- projection's records in it (`part` i: doc.experiments[i]). true, or false and "PATH ...". The
-- runner keeps a stage's output only when the reader would accept it (sparkreport.runner).
function M.check_stage(doc, part)
  local ok, err = pcall(function()
    if part == "team_decision" then
      check(doc.team_decision, M.document.fields.team_decision, "team_decision")
      return check_team(doc)
    end
    check_experiment(doc.experiments[part], ("experiments[%d]"):format(part))
  end)
  if ok then return true end
  if type(err) == "table" and err.schema then return false, err.schema end
  error(err, 0)
end

for _, name in ipairs { "bandwidth", "precision", "compress" } do
  for k, v in pairs(settle) do M.records[name].fields[k] = v end
end
M.records.compress.fields.read_fraction_dram = opt "number"
M.records.compress.fields.read_fraction_adjacent = opt(nonneg)
M.records.compress.fields.fraction_if_serial = opt(share)
M.records.compress.fields.read_adjacent = opt(object { pairs = range("integer", 1, 1e6), gbps_median = positive,
                                                       product_over_read = positive, not_a_ceiling = opt "string" })
M.records.compress.fields.not_a_ceiling = opt "string"   -- the read series, when a product beat it twice

-- A collective record (sections/collective.lua): series p2p (ping-pong) or collective; a record
-- that failed its check has no timing (valid = false, error says why).
M.records.collective = object {
  series = "string", op = "string", valid = "boolean", bytes = "number", error = opt "string",
  peer = opt "integer", ranks = opt "integer", buffers = opt "string", transport = opt "string",
  latency_s = opt "number", gbps_alg = opt "number", gbps_bus = opt "number", gbps_bus_best = opt "number",
  time_s = opt(stats), samples_s = opt(list "number"),
}
function M.rules.collective(r, _, need)
  if r.valid and r.time_s then need("gbps_alg", "number"); need("gbps_bus", "number") end
  if r.series == "p2p" and r.valid and r.time_s then need("latency_s", "number") end
end
M.info.collective = object {
  ranks = opt "integer", convention = opt "string",
  formulas = opt(object {}),
  job = opt(object { ranks = "integer", hosts_count = "integer", launcher = opt "string", transport = opt "string",
                     hosts = opt(list(object { rank = "integer", host = "string", interfaces = "string" })) }),
}
for k, v in pairs(settle) do M.records.collective.fields[k] = v end

-- The scale-out projection's records in the model experiment (series scaleout, predict/scale.c).
for k, v in pairs { devices = opt(range("integer", 1, M.limits.count)), link_source = opt "string",
                    step_s = opt(positive), tokens_per_s = opt(positive), tokens_per_s_low = opt(positive),
                    tokens_per_s_high = opt(positive), scaling_efficiency = opt(nonneg),
                    scaling_efficiency_low = opt(nonneg), scaling_efficiency_high = opt(nonneg),
                    sharding = opt "string", link_Bps = opt(nonneg), link_sources = opt "string" } do
  M.records.model.fields[k] = v
end
local model_rule = M.rules.model
function M.rules.model(r, e, need)
  model_rule(r, e, need)
  if r.series ~= "scaleout" then return end
  for _, f in ipairs { "workload", "system", "link_source" } do need(f, "string") end
  need("devices", "integer")
  for _, f in ipairs { "tokens_per_s", "tokens_per_s_low", "tokens_per_s_high", "scaling_efficiency",
                       "scaling_efficiency_low", "scaling_efficiency_high", "hours" } do need(f, "number") end
end
M.info.model.fields.scaleout_rules = opt(object {})
M.info.model.fields.scaleout_not_projected = opt(list(object { system = "string", reason = "string" }))

-- N people sharing one DGX Spark, projected (series tenants, predict/tenants.c): the team stage and
-- sections/tenants.lua read them. hours, step_s and slowdown only when the tenant's job fits and was timed.
for k, v in pairs { tenants = opt "integer", device_bytes = opt "number", usable_bytes = opt "number",
                    slowdown = opt "number" } do
  M.records.model.fields[k] = v
end
local scale_rule = M.rules.model
function M.rules.model(r, e, need)
  scale_rule(r, e, need)
  if r.series ~= "tenants" then return end
  for _, f in ipairs { "workload", "system" } do need(f, "string") end
  need("tenants", "integer"); need("fits", "boolean")
  need("device_bytes", "number"); need("usable_bytes", "number")
  if r.hours then
    for _, f in ipairs { "step_s", "hours_low", "hours_high", "slowdown" } do need(f, "number") end
  end
end
M.info.model.fields.tenants_basis = opt "string"

-- A tenants record (sections/tenants.lua): series stream or train, one tenant of a round of `tenants`
-- at once; a record that failed (set-up, validation, its process) has valid = false and its error.
M.records.tenants = object {
  series = "string", device = "string", tenants = "integer", tenant = "integer", valid = "boolean",
  error = opt "string", threads = opt "integer", kernel = opt "string", precision = opt "string",
  shape = opt "string", working_set_bytes = opt "number", gbps_median = opt "number", gbps_best = opt "number",
  time_s = opt(stats), samples_s = opt(list "number"), slowdown = opt "number", share = opt "number",
  cores = opt "number", tokens_per_s = opt "number", max_rel_error = opt "number", tolerance = opt "number",
  rerun = opt "string",         -- the round measured again: a tenant started after another had finished
}
for k, v in pairs(settle) do M.records.tenants.fields[k] = v end
function M.rules.tenants(r, _, need)
  if r.valid and r.time_s then
    need("time_s", stats); need("samples_s", list "number")
    if r.series == "stream" then need("gbps_median", "number") end
  end
end
M.info.tenants = object {
  device = opt "string", cpus = opt "integer", threads_max = opt "integer", threads_rule = opt "string",
  caches_total_bytes = opt "number", working_set_bytes = opt "number", size_rule = opt "string", dram = dram,
  first_touch_gbps = opt "number", isolation = opt "string", jobs = opt "string", derived = opt "string",
  totals = opt(list(object { series = "string", device = "string", tenants = "integer", timed = "integer",
                             share_sum = "number", slowdown_mean = "number", slowdown_max = "number",
                             gbps_sum = opt "number", cores_sum = opt "number" })),
  rounds = opt(list(object { series = "string", tenants = "integer", load_avg = opt "number",
                             elapsed_s = "number" })),
}

return M
