-- sparkreport.compare: compares two results documents, a baseline and a current run, record by
-- record: which records are the same measurement (the comparison key), whether each changed
-- (change of the median and a two-sided Mann-Whitney U test on the raw samples), geometric
-- means, and what changed in the environment. Reading files, printing and drawing are the C
-- program's and the regression template's; the U test itself is C's (bench.mann_whitney).
local bench = require "bench"
local schema = require "sparkreport.schema"

local M = {
  schema = "sparkreport/comparison", schema_version = 2,   -- 2: derived, projections, fields_added
  alpha = 0.01,        -- a change is significant when the two-sided U test gives p below this
  min_change = 0.05,   -- ... and the median moved by at least this fraction
  min_samples = 2,     -- raw samples needed on each side to compare at all
}

-- Fields of a result record that hold what a run measured; they never enter the key. Every
-- other field says what was measured (kernel, precision, threads, sizes, shapes, ...) and is
-- part of the key. Always measurements: tables (raw samples, statistics such as time_s, loss
-- curves) and numbers that are not whole (what identifies a record is counted: sizes, threads,
-- shapes). Whole numbers, strings and booleans are measurements when their name says so:
M.measured = {
  "^samples",             -- raw samples: samples_s
  "gbps",                 -- rates: gbps_best, gbps_median, cpu_alone_gbps
  "flops$",               -- achieved_flops, gflops (flops_per_pass is a count and identifies)
  "_s$",                  -- seconds and rates per second: first_pass_s, tokens_per_s
  "^valid$", "error", "^tolerance$", "bound",        -- validation and its outcome
  "^stop$", "^iters_per_sample$", "_done$",         -- how the repetitions or steps went
  "^settled$", "^cv_target$",                       -- whether they settled (src/measure)
  "^loss", "^algo$",      -- training outcomes; the algorithm a library chose at run time
  "^eval_",               -- how much held-out data a loss averaged (the time left decides)
}

-- Records of these series are identified by the fields named (what was projected, onto what); every
-- other field is what the model derived for them (hours, fit, micro-batch, ...), compared as a value.
M.identity = {
  projection = { "series", "workload", "system" },
  scaleout = { "series", "workload", "system", "devices", "sharding" },
  tenants = { "series", "workload", "system", "tenants" },
}

-- What the raw samples are, by the end of the field's name: the unit and which way is better.
-- The rule belongs to the field, never to an experiment.
M.units = {
  { pattern = "_per_s$", unit = "per s", better = "higher" },
  { pattern = "_s$", unit = "s", better = "lower" },
  { pattern = "gbps$", unit = "GB/s", better = "higher" },
  { pattern = "tflops$", unit = "TFLOP/s", better = "higher" },
  { pattern = "gflops$", unit = "GFLOP/s", better = "higher" },
}

-- Environment items shown in the diff whether or not they changed (changed ones first, then in
-- this order); those marked `always` also when neither run recorded them, since "not recorded"
-- is news there. Any other context field appears only when it differs. Volatile fields are
-- never compared.
M.environment_items = {
  { "CUDA driver", "cuda.driver_version", always = true }, { "CUDA runtime", "cuda.runtime_version", always = true },
  { "GPU", "cuda.devices.1.name" }, { "GPU clock (kHz)", "cuda.devices.1.clock_khz" },
  { "GPU memory clock (kHz)", "cuda.devices.1.mem_clock_khz" },
  { "Kernel", "os.kernel", always = true }, { "Kernel build", "os.kernel_build" },
  { "Firmware", "os.board.firmware", always = true }, { "OS", "os.name" },
  { "Compiler", "build.compiler", always = true }, { "Compiler flags", "build.cflags", always = true },
  { "sparkreport", "tool.version", always = true }, { "Git revision", "tool.git", always = true },
  { "BLAS", "build.blas.config" }, { "BLAS threading", "build.blas.threading" },
  { "OpenMP", "build.openmp_version" }, { "OpenMP threads", "build.openmp_max_threads" },
  { "OpenMP environment", "build.openmp_env.OMP_NUM_THREADS" },
  { "CPU governor", "cpu.governor", always = true }, { "CPU max clock (MHz)", "cpu.max_mhz" },
  { "Host", "host" }, { "CPU", "cpu.model" }, { "Memory (bytes)", "memory.total_bytes" },
  { "Scenario", "scenario.path" }, { "Scenario sha256", "scenario.sha256" },
}
M.volatile = { "^memory%.available_bytes$", "^cuda%.devices%.%d+%.mem_free_bytes$" }

local function matches_any(name, patterns)
  for _, p in ipairs(patterns) do if name:find(p) then return true end end
  return false
end

local function text(v)
  if v == nil then return "not recorded" end
  if math.type(v) == "integer" then return ("%d"):format(v) end
  if type(v) == "number" then return ("%.17g"):format(v) end
  if type(v) == "table" then
    local parts = {}
    for _, x in ipairs(v) do parts[#parts + 1] = text(x) end
    return table.concat(parts, ",")
  end
  return tostring(v)
end

function M.is_measured(name, value)
  return type(value) == "table" or math.type(value) == "float" or matches_any(name, M.measured)
end

function M.unit_of(field)
  for _, u in ipairs(M.units) do
    if field:find(u.pattern) then return u end
  end
end

-- Whether field k of rec identifies the record (part of its key) rather than holding what was measured.
function M.identifies(rec, k, v)
  local id = M.identity[rec.series]
  if id then
    for _, f in ipairs(id) do if f == k then return true end end
    return false
  end
  return type(k) == "string" and not M.is_measured(k, v)
end

-- The comparison key of a record: its identifying fields, sorted, as "name=value, ..."; fields in
-- the set `drop` are left out (fields only one of two documents of different versions records).
function M.key(rec, drop)
  local parts = {}
  for k, v in pairs(rec) do
    if M.identifies(rec, k, v) and not (drop and drop[k]) then parts[#parts + 1] = k .. "=" .. text(v) end
  end
  -- bandwidth records written before store kinds were recorded used cached stores (read: none)
  if rec.kernel and rec.alloc and rec.stores == nil then
    parts[#parts + 1] = "stores=" .. (rec.kernel == "read" and "none" or "cached")
  end
  table.sort(parts)
  return table.concat(parts, ", ")
end

-- A short name of a record for tables and charts: its words (kernel, precision, series, ...),
-- then its size, thread count and CPUs.
local WORD_ORDER = { "kernel", "precision", "alloc", "direction", "engine", "host_memory", "series" }
function M.label(rec)
  local words, used = {}, { cpus = true }
  for _, k in ipairs(WORD_ORDER) do
    if type(rec[k]) == "string" then words[#words + 1] = rec[k]; used[k] = true end
  end
  local rest = {}
  for k, v in pairs(rec) do
    if type(v) == "string" and not used[k] and not M.is_measured(k, v) then rest[#rest + 1] = k end
  end
  table.sort(rest)
  for _, k in ipairs(rest) do words[#words + 1] = rec[k] end
  local nums = {}
  local m, n, k = rec.m, rec.n, rec.k
  if math.type(m) == "integer" and math.type(n) == "integer" and math.type(k) == "integer" and k > 0 then
    nums[#nums + 1] = ("%dx%dx%d"):format(m, n, k)             -- a GEMM's shape
  end
  local size = rec.working_set_bytes or rec.bytes
  if type(size) == "number" then nums[#nums + 1] = bench.format_bytes(size) end
  if math.type(rec.threads) == "integer" then nums[#nums + 1] = ("%d thread%s"):format(rec.threads, rec.threads == 1 and "" or "s") end
  if rec.cpus then nums[#nums + 1] = "CPUs " .. text(rec.cpus) end
  local s = table.concat(words, " ")
  if #nums > 0 then s = s .. (s ~= "" and ", " or "") .. table.concat(nums, ", ") end
  return s ~= "" and s or M.key(rec)
end

-- Experiments by "name device" (then " #2", ... for repeats), in the document's order.
local function experiments_of(doc)
  local by, order, seen = {}, {}, {}
  for _, e in ipairs(doc.experiments or {}) do
    local id = e.name .. (e.device and (" " .. e.device) or "")
    seen[id] = (seen[id] or 0) + 1
    if seen[id] > 1 then id = id .. " #" .. seen[id] end
    by[id] = e
    order[#order + 1] = id
  end
  return by, order
end

local registry = {}     -- experiment -> parameter name -> its description (not_key, ...)
for _, e in ipairs(bench.experiments()) do
  local t = {}
  for _, p in ipairs(e.params) do t[p.name] = p end
  registry[e.name] = t
end

local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- A parameter one file does not record, because a later version added it, counts there as its
-- default (the run was made as that default describes).
local function or_default(v, spec)
  if v ~= nil or not spec or spec.default == nil or spec.list then return v end
  if spec.type == "integer" or spec.type == "number" then return tonumber(spec.default) end
  if spec.type == "boolean" then return spec.default == "true" end
  return spec.default
end

-- Parameters that shape how each record is measured and differ: { "first_touch true -> false" }.
-- An experiment this sparkreport does not know has every parameter shape its records.
function M.param_differences(name, a, b)
  local specs, names, seen, out = registry[name] or {}, {}, {}, {}
  for _, t in ipairs { a or {}, b or {} } do
    for k in pairs(t) do if not seen[k] then seen[k] = true; names[#names + 1] = k end end
  end
  table.sort(names)
  for _, k in ipairs(names) do
    local spec = specs[k]
    if not (spec and spec.not_key) and not same(or_default((a or {})[k], spec), or_default((b or {})[k], spec)) then
      out[#out + 1] = ("%s %s -> %s"):format(k, text((a or {})[k]), text((b or {})[k]))
    end
  end
  return out
end

local function median(xs)
  local v = {}
  for i, x in ipairs(xs) do v[i] = x end
  table.sort(v)
  local n = #v
  return n % 2 == 1 and v[(n + 1) // 2] or v[n // 2] / 2 + v[n // 2 + 1] / 2   -- halves: no overflow near 1e308
end

-- The largest |log(current / baseline)| of medians compared: a ratio, its inverse and the change
-- then stay finite (e^690.8 = 1e300), and so does the geometric mean.
M.max_log_ratio = math.log(1e300)

local function samples_fields(rec)
  local out = {}
  for k, v in pairs(rec) do
    if type(k) == "string" and k:find("^samples") and type(v) == "table" then out[#out + 1] = k end
  end
  table.sort(out)
  return out
end

local function verdict(r, o)
  if math.abs(r.change) < o.min_change then return "unchanged", "the median moved less than the threshold" end
  if r.p < o.alpha then return r.speedup > 1 and "faster" or "slower" end
  if r.min_p >= o.alpha then
    return "inconclusive", ("%d and %d samples cannot reach p < %g"):format(r.n_baseline, r.n_current, o.alpha)
  end
  return "unchanged", "the change is not significant"
end

-- Compares the samples `field` of two records; returns a result or nil, reason.
local function compare_samples(b, c, field, o)
  local unit = M.unit_of(field)
  if not unit then return nil, ("no rule says whether a higher %s is better"):format(field) end
  local xs, ys = b[field], c[field]
  if type(xs) ~= "table" then return nil, field .. " is missing in the baseline" end
  if type(ys) ~= "table" then return nil, field .. " is missing in the current run" end
  for _, side in ipairs { { "baseline", xs }, { "current run", ys } } do
    for i, x in ipairs(side[2]) do
      if type(x) ~= "number" then return nil, ("%s[%d] in the %s is not a number"):format(field, i, side[1]) end
    end
  end
  if #xs < M.min_samples or #ys < M.min_samples then
    return nil, ("too few samples (%d in the baseline, %d in the current run; at least %d each)")
                :format(#xs, #ys, M.min_samples)
  end
  local t, err = bench.mann_whitney(ys, xs)
  if not t then return nil, err end
  local mb, mc = median(xs), median(ys)
  if not (mb > 0 and mc > 0) then return nil, "a median is zero or negative" end
  -- out of range: a ratio of the medians (or its inverse, or the change) that a double cannot hold
  local ratio = mc / mb
  if not (math.abs(math.log(mb) - math.log(mc)) <= M.max_log_ratio and ratio - 1 < math.huge) then
    return nil, ("out of range: the medians (%.3g and %.3g) are more than 1e300 times apart"):format(mb, mc)
  end
  local r = { field = field, unit = unit.unit, better = unit.better, n_baseline = #xs, n_current = #ys,
              median_baseline = mb, median_current = mc, change = (mc - mb) / mb,
              speedup = unit.better == "lower" and mb / mc or mc / mb,
              u = t.w, p = t.p, exact = t.exact, min_p = t.min_p }
  r.verdict, r.note = verdict(r, o)
  return r
end

local function invalid_side(b, c)
  if b.valid == false then return "failed validation in the baseline" .. (b.error and (": " .. text(b.error)) or "") end
  if c.valid == false then return "failed validation in the current run" .. (c.error and (": " .. text(c.error)) or "") end
end

-- Identifying fields that one side's records of a series carry and the other's never do, when the two
-- documents are of different schema versions: left out of both sides' keys (drop[series][field]) and
-- listed in out.fields_added.
local function version_drop(id, eb, ec, o, out)
  if not o.versions_differ then return nil end
  local function names(exp)
    local t = {}
    for _, rec in ipairs(exp.results or {}) do
      local s = text(rec.series or "")
      t[s] = t[s] or {}
      for k, v in pairs(rec) do if M.identifies(rec, k, v) then t[s][k] = true end end
    end
    return t
  end
  local nb, nc, drop, list = names(eb), names(ec), {}, {}
  for _, side in ipairs { { nc, nb, "not in the baseline" }, { nb, nc, "not in the current run" } } do
    for series, fields in pairs(side[1]) do
      local other = side[2][series]
      for k in pairs(other and fields or {}) do
        if not other[k] then
          drop[series] = drop[series] or {}
          drop[series][k] = true
          list[#list + 1] = { experiment = id, series = series, field = k, side = side[3] }
        end
      end
    end
  end
  table.sort(list, function(a, b) return a.series .. " " .. a.field < b.series .. " " .. b.field end)
  for _, f in ipairs(list) do out.fields_added[#out.fields_added + 1] = f end
  return next(drop) and drop or nil
end

-- Records by key, in order, and how often each key occurs (more than once only where an older
-- version's writer repeated records, schema.versions, or where version_drop took the field that
-- told them apart).
local function index(exp, drop)
  local by, order, count = {}, {}, {}
  for _, rec in ipairs(exp.results or {}) do
    local k = M.key(rec, drop and drop[text(rec.series or "")])
    if by[k] then count[k] = count[k] + 1 else by[k], count[k] = rec, 1; order[#order + 1] = k end
  end
  return by, order, count
end

local function same_value(a, b)
  if type(a) == "number" and type(b) == "number" then
    return a == b or math.abs(a - b) <= 1e-12 * math.max(math.abs(a), math.abs(b))
  end
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same_value(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- The fields holding what was measured or derived that differ between two records without raw
-- samples, sorted.
local function values_differ(b, c)
  local fields, seen = {}, {}
  for _, rec in ipairs { c, b } do
    for k, v in pairs(rec) do
      if not seen[k] and not M.identifies(rec, k, v) then
        seen[k] = true
        if not same_value(b[k], c[k]) then fields[#fields + 1] = k end
      end
    end
  end
  table.sort(fields)
  return fields
end

local function num(x) return type(x) == "number" and x == x and x or nil end

-- A projection record on both sides: its hours and fit; whether it moved is decided once the
-- experiment's measured records are compared (projection_moved).
local function projection_row(id, b, c)
  local hb, hc = num(b.hours), num(c.hours)
  local change = hb and hc and hb > 0 and (hc - hb) / hb or nil
  local out_of_range = change and not (math.abs(change) < math.huge)     -- hours 1e300 apart: no finite ratio
  return { experiment = id, workload = text(c.workload), system = text(c.system), system_kind = c.system_kind,
           hours_baseline = hb, hours_current = hc, change = not out_of_range and change or nil,
           band_baseline = num(b.hours_low) and num(b.hours_high) and { b.hours_low, b.hours_high } or nil,
           band_current = num(c.hours_low) and num(c.hours_high) and { c.hours_low, c.hours_high } or nil,
           out_of_range = out_of_range or nil, fits_baseline = b.fits, fits_current = c.fits }
end

local function fit_words(f) return f == true and "fits" or f == false and "does not fit" or "fit not recorded" end

-- Whether a projected row moved beyond its noise, and why (README, "Reruns"): its fit changed; or
-- its hours moved by at least the threshold and, where the row rests on this run's measurements
-- (this machine, or a GPU calibration), those measurements changed significantly too. A row
-- projected from the catalog alone is deterministic: it has no noise, only the threshold.
local function projection_moved(r, o, measured, significant)
  if r.fits_baseline ~= r.fits_current then
    return ("%s -> %s"):format(fit_words(r.fits_baseline), fit_words(r.fits_current))
  end
  if (r.hours_baseline == nil) ~= (r.hours_current == nil) then
    return r.hours_baseline and "no hours projected in the current run" or "no hours projected in the baseline"
  end
  if r.out_of_range then
    return ("hours %.3g -> %.3g: out of range (no finite change)"):format(r.hours_baseline, r.hours_current)
  end
  if not r.change or math.abs(r.change) < o.min_change then return nil end
  local pct = ("%+.1f %% hours"):format(100 * r.change)
  if measured or r.system_kind == "measured" then
    if not significant then return nil end
    return pct .. "; the measurements it rests on changed (U test)"
  end
  return pct .. "; projected from the catalog and the model, which changed"
end

-- Records of one experiment on both sides: results, derived values, projections and
-- not-comparable rows appended to out.
local function compare_records(id, eb, ec, o, out)
  local drop = version_drop(id, eb, ec, o, out)
  local bb, border, bn = index(eb, drop)
  local cb, corder, cn = index(ec, drop)
  local function missing(rec, key, reason, count)
    out.not_comparable[#out.not_comparable + 1] = { experiment = id, label = M.label(rec), key = key, reason = reason,
                                                    count = count or 1 }
  end
  local first, rows = #out.results + 1, {}
  for _, k in ipairs(corder) do
    local c, b = cb[k], bb[k]
    if not b then
      missing(c, k, "only in the current run", cn[k])
    elseif bn[k] > 1 or cn[k] > 1 then
      -- the older document's writer repeated them (or lacks the field that told them apart)
      local base_side = bn[k] > 1 and cn[k] == 1
      if o.versions_differ and bn[k] > 1 and cn[k] > 1 then base_side = o.versions[1] < o.versions[2] end
      local n = base_side and bn[k] or cn[k]
      missing(c, k, ("recorded %d times in the %s without a field that tells them apart (written by results schema "
                     .. "version %s)"):format(n, base_side and "baseline" or "current run",
                                          text(base_side and o.versions[1] or o.versions[2])), n)
    else
      local bad = invalid_side(b, c)
      local fields = samples_fields(c)
      if bad then missing(c, k, bad)
      elseif #fields == 0 then
        local diff = values_differ(b, c)
        out.derived_count = out.derived_count + 1
        if #diff > 0 then
          out.derived[#out.derived + 1] = { experiment = id, key = k, label = M.label(c), fields = table.concat(diff, ", ") }
        end
        if c.series == "projection" then rows[#rows + 1] = projection_row(id, b, c) end
      end
      for _, f in ipairs(bad and {} or fields) do
        local r, why = compare_samples(b, c, f, o)
        if r then
          r.experiment, r.key, r.label = id, k, M.label(c) .. (#fields > 1 and (" (" .. f .. ")") or "")
          out.results[#out.results + 1] = r
        else
          missing(c, k, why)
        end
      end
    end
  end
  for _, k in ipairs(border) do
    if not cb[k] then missing(bb[k], k, "only in the baseline", bn[k]) end
  end
  local significant = false
  for i = first, #out.results do
    local v = out.results[i].verdict
    if v == "slower" or v == "faster" then significant = true end
  end
  local measured = ((eb.info or {}).calibration or {}).device == "gpu" or ((ec.info or {}).calibration or {}).device == "gpu"
  for _, r in ipairs(rows) do
    r.why = projection_moved(r, o, measured, significant)
    r.moved = r.why ~= nil
    out.projections[#out.projections + 1] = r
  end
end

local function whole_experiment(id, exp, reason, out)
  out.not_comparable[#out.not_comparable + 1] = { experiment = id, label = "all results", reason = reason,
                                                  count = #(exp and exp.results or {}) }
end

local RAN = { complete = true, partial = true }   -- a partial experiment's records are compared

local function compare_experiments(base, cur, o, out)
  local bb, border = experiments_of(base)
  local cb, corder = experiments_of(cur)
  o.versions = { base.schema_version, cur.schema_version }
  o.versions_differ = base.schema_version ~= cur.schema_version
  for _, id in ipairs(corder) do
    local ec, eb = cb[id], bb[id]
    if not eb then
      whole_experiment(id, ec, "only in the current run", out)
    elseif not RAN[eb.status] or not RAN[ec.status] then
      local which = not RAN[eb.status] and (not RAN[ec.status] and "either run" or "the baseline") or "the current run"
      local e = not RAN[eb.status] and eb or ec
      whole_experiment(id, ec, ("did not run in %s: %s"):format(which, text(e.reason or e.error or e.status or "no status")), out)
    else
      local diffs = M.param_differences(ec.name, eb.params, ec.params)
      if #diffs > 0 then
        whole_experiment(id, ec, "parameters differ: " .. table.concat(diffs, "; "), out)
      else
        compare_records(id, eb, ec, o, out)
      end
    end
  end
  for _, id in ipairs(border) do
    if not cb[id] then whole_experiment(id, bb[id], "only in the baseline", out) end
  end
end

local function flatten(prefix, v, out)
  if type(v) ~= "table" then out[prefix] = text(v); return end
  if #v > 0 and type(v[1]) ~= "table" then out[prefix] = text(v); return end
  for k, x in pairs(v) do flatten(prefix == "" and tostring(k) or (prefix .. "." .. tostring(k)), x, out) end
end

local function environment_of(doc)
  local flat = {}
  flatten("", doc.context or {}, flat)
  local s = doc.scenario or {}
  flat["scenario.path"], flat["scenario.sha256"] = s.path and text(s.path), s.sha256 and text(s.sha256)
  for k in pairs(flat) do if matches_any(k, M.volatile) then flat[k] = nil end end
  return flat
end

function M.environment(base, cur)
  local a, b, same, shown = environment_of(base), environment_of(cur), {}, {}
  local changed = {}
  local function row(item, key)
    local r = { item = item, key = key, baseline = a[key] or "not recorded", current = b[key] or "not recorded",
                changed = a[key] ~= b[key] }
    table.insert(r.changed and changed or same, r)
  end
  for _, it in ipairs(M.environment_items) do
    local key = it[2]
    if it.always or a[key] or b[key] then row(it[1], key) end
    shown[key] = true
  end
  local others = {}
  for _, t in ipairs { a, b } do
    for k in pairs(t) do
      if not shown[k] and a[k] ~= b[k] then shown[k] = true; others[#others + 1] = k end
    end
  end
  table.sort(others)
  for _, k in ipairs(others) do row(k, k) end
  for _, r in ipairs(same) do changed[#changed + 1] = r end
  return changed
end

local function geomean(list)
  if #list == 0 then return nil end
  local s = 0
  for _, r in ipairs(list) do s = s + math.log(r.speedup) end
  return math.exp(s / #list)
end

local VERDICTS = { "slower", "faster", "unchanged", "inconclusive" }

local function tally(list)
  local t = { compared = #list, geomean = geomean(list) }
  for _, v in ipairs(VERDICTS) do t[v] = 0 end
  for _, r in ipairs(list) do t[r.verdict] = t[r.verdict] + 1 end
  return t
end

local function summaries(out, order)
  local per, list = {}, {}
  for _, r in ipairs(out.results) do
    per[r.experiment] = per[r.experiment] or {}
    table.insert(per[r.experiment], r)
  end
  for _, id in ipairs(order) do
    if per[id] then
      local t = tally(per[id])
      t.experiment = id
      list[#list + 1] = t
    end
  end
  out.experiments = list
  out.counts = tally(out.results)
  out.counts.not_comparable = 0
  for _, n in ipairs(out.not_comparable) do out.counts.not_comparable = out.counts.not_comparable + n.count end
  out.slower = out.counts.slower > 0
end

local function plural(n, one, many) return ("%d %s"):format(n, n == 1 and one or many) end

function M.sentence(cmp)
  local c = cmp.counts
  local nc = c.not_comparable > 0 and ("; " .. plural(c.not_comparable, "result is", "results are") .. " not comparable") or ""
  if c.compared == 0 then
    return "No result could be compared with the baseline" .. (c.not_comparable > 0
      and (": " .. plural(c.not_comparable, "result is", "results are") .. " not comparable.") or ": neither run has results.")
  end
  return ("%d of %s slower than the baseline (%d faster, %d unchanged, %d inconclusive%s); the geometric mean of "
          .. "performance is %.3fx the baseline's."):format(c.slower, plural(c.compared, "compared result is", "compared results are"),
          c.faster, c.unchanged, c.inconclusive, nc, c.geomean)
end

local function describe(doc, path)
  local s, ctx = doc.scenario or {}, doc.context or {}
  return { path = path, title = s.title, scenario = s.name, scenario_path = s.path, sha256 = s.sha256,
           schema_version = doc.schema_version,
           started_utc = doc.started_utc, finished_utc = doc.finished_utc, status = doc.status,
           host = ctx.host, tool = ctx.tool and (("%s (git %s)"):format(text(ctx.tool.version), text(ctx.tool.git))) }
end

-- nil, or "experiments[E].results[J] repeats experiments[E].results[I] (...)": two records of one
-- experiment with the same key would be compared with whichever came first, so a document that
-- repeats one is refused, never half compared. The repeats an older version's writer made
-- (schema.versions' repeated_before) are let through: compare marks them not comparable.
function M.repeated_record(doc)
  local v = math.type(doc.schema_version) == "integer" and doc.schema_version or bench.schema_version
  local function older_repeat(e, rec)
    for _, ver in ipairs(schema.versions) do
      if ver.version > v and ver.repeated_before and ver.repeated_before(e, rec) then return true end
    end
  end
  for i, e in ipairs(doc.experiments or {}) do
    local seen = {}
    for j, rec in ipairs(type(e.results) == "table" and e.results or {}) do
      local k = M.key(rec)
      if seen[k] and not older_repeat(e, rec) then
        return ("experiments[%d].results[%d] repeats experiments[%d].results[%d] (the same measurement: %s)")
               :format(i, j, i, seen[k], #k > 120 and (k:sub(1, 120) .. "...") or k)
      end
      seen[k] = seen[k] or j
    end
  end
end

-- One sentence on the projected rows: how many moved beyond their noise.
function M.projection_sentence(cmp)
  local n, moved = #cmp.projections, {}
  for _, r in ipairs(cmp.projections) do if r.moved then moved[#moved + 1] = r end end
  if n == 0 then return "No projected row could be compared with the baseline." end
  if #moved == 0 then return ("None of the %s moved beyond its noise."):format(plural(n, "projected row", "projected rows")) end
  return ("%d of %s moved beyond their noise."):format(#moved, plural(n, "projected row", "projected rows"))
end

-- Builds the comparison document. opts: alpha, min_change, baseline_path, current_path.
-- Returns nil, "PATH: what is wrong" when a document lacks the shape reports read.
function M.build(base, cur, opts)
  opts = opts or {}
  for _, side in ipairs { { base, opts.baseline_path or "baseline" }, { cur, opts.current_path or "current run" } } do
    local ok, err = schema.check(side[1], "records")   -- comparing reads records, not info blocks
    if not ok then return nil, ("%s: %s"):format(side[2], err) end
    err = M.repeated_record(side[1])
    if err then return nil, ("%s: %s"):format(side[2], err) end
  end
  local o = { alpha = opts.alpha or M.alpha, min_change = opts.min_change or M.min_change }
  if not (o.alpha > 0 and o.alpha < 1) then error(("alpha must be between 0 and 1, got %s"):format(text(o.alpha)), 2) end
  if not (o.min_change >= 0) then error(("min_change must be 0 or more, got %s"):format(text(o.min_change)), 2) end
  local out = {
    schema = M.schema, schema_version = M.schema_version, template = "regression",
    title = "Regression report: " .. ((cur.scenario or {}).title or "sparkreport"),
    subject = "sparkreport comparison of two runs",
    finished_epoch = cur.finished_epoch,
    baseline = describe(base, opts.baseline_path), current = describe(cur, opts.current_path),
    thresholds = { alpha = o.alpha, min_change = o.min_change, min_samples = M.min_samples,
                   test = "two-sided Mann-Whitney U on the raw samples; exact null distribution below 50 "
                          .. "samples a side without ties, else the normal approximation with tie and "
                          .. "continuity correction (as R's wilcox.test)" },
    environment = M.environment(base, cur),
    results = {}, not_comparable = {}, derived = {}, derived_count = 0, projections = {}, fields_added = {},
  }
  compare_experiments(base, cur, o, out)
  local cb, order = experiments_of(cur)
  local _, border = experiments_of(base)
  for _, id in ipairs(border) do if not cb[id] then order[#order + 1] = id end end
  summaries(out, order)
  out.summary = M.sentence(out)
  out.projection_summary = M.projection_sentence(out)
  return out
end

return M
