-- sparkreport.runner: loads a scenario (with --set overrides), runs its experiments within
-- the time budget, and assembles the results document (schema, context, scenario, catalog,
-- experiments). Measuring is the C experiments'; writing files and rendering are the C
-- program's, which calls load() and execute() here.
local bench = require "bench"
local sr = require "sparkreport"
local catalog = require "sparkreport.catalog"

local M = { schema = "sparkreport/results", schema_version = 1 }

local REPORT_RESERVE = 0.05     -- of the budget kept for writing and rendering

local function last_line(source)
  local n = 1
  for _ in source:gmatch("\n") do n = n + 1 end
  return source:sub(-1) == "\n" and n - 1 or n
end

-- --set key=value: "budget_s=60" sets a scenario field, "bandwidth.min_reps=3" a parameter
-- of every bandwidth experiment. Values are parsed and checked like scenario fields.
local function apply_set(scn, set)
  local key, text = set:match("^([^=]+)=(.*)$")
  if not key then error(("--set %s: expected key=value"):format(set), 0) end
  local exp, pname = key:match("^([%w_]+)%.([%w_]+)$")
  if not exp then
    local v, err = bench.parse("scenario", key, text)
    if v == nil then error(("--set %s: %s"):format(set, err), 0) end
    scn.params[key] = v
    local ok, cerr = catalog.check_ids(scn.params.compare)
    if not ok then error(("--set %s: %s"):format(set, cerr), 0) end
    return
  end
  local hit, have = false, {}
  for _, e in ipairs(scn.experiments) do
    have[#have + 1] = e.experiment
    if e.experiment == exp then
      local v, err = bench.parse(exp, pname, text)
      if v == nil then error(("--set %s: %s"):format(set, err), 0) end
      e.params[pname] = v
      local params, cerr = bench.check(exp, e.params)
      if not params then error(("--set %s: %s"):format(set, cerr), 0) end
      e.params, hit = params, true
    end
  end
  if not hit then
    error(("--set %s: the scenario has no '%s' experiment (it has: %s)")
          :format(set, exp, table.concat(have, ", ")), 0)
  end
end

-- Runs the scenario's source; returns the checked scenario. Errors carry FILE:LINE.
function M.load(source, chunkname, sets)
  local chunk, err = load(source, "@" .. chunkname, "t")
  if not chunk then error(err, 0) end
  local scn = chunk()
  if type(scn) ~= "table" or not scn.scenario then
    error(("%s:%d: the scenario must end with `return sr.scenario { ... }` (it returned %s)")
          :format(chunkname, last_line(source), type(scn) == "table" and "another table" or tostring(scn)), 0)
  end
  for _, s in ipairs(sets or {}) do apply_set(scn, s) end
  return scn
end

local function utc(t) return os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(t)) end

local function catalog_block(ctx, compare)
  local cat = catalog.load()
  local row, reason = catalog.match(ctx)
  local rows, seen = {}, {}
  local function use(id)
    if id and not seen[id] then seen[id] = true; rows[#rows + 1] = catalog.find(id) end
  end
  use(row and row.id)
  for _, id in ipairs(compare) do use(id) end
  return { source = catalog.source, sha256 = cat.sha256, match = row and row.id,
           match_reason = reason, compare = compare, rows = rows }
end

local function run_one(e, budget)
  local t0 = bench.now()
  local out, err = bench.run(e.experiment, e.params, budget)
  local rec = { name = e.experiment, device = e.params.device, params = e.params,
                budget_s = budget, elapsed_s = bench.now() - t0 }
  if not out then
    rec.status, rec.error, rec.results, rec.skipped = "failed", err, {}, {}
  else
    rec.status, rec.results, rec.skipped, rec.info = "complete", out.results, out.skipped, out.info
  end
  return rec
end

-- Runs every experiment; meta = { path=, source=, command= } from the C program.
function M.execute(scn, ctx, meta)
  local started, t0 = bench.wall(), bench.now()
  local p = scn.params
  local budget = p.budget_s * (1 - REPORT_RESERVE)
  local weights = 0
  for _, e in ipairs(scn.experiments) do weights = weights + M.weight(e.experiment) end
  local doc = {
    schema = M.schema, schema_version = M.schema_version, status = "complete",
    started_utc = utc(started), started_epoch = math.floor(started),
    context = ctx,
    scenario = { path = meta.path, name = meta.name, sha256 = bench.sha256(meta.source),
                 source = meta.source, command = meta.command, title = p.title,
                 template = p.template, budget_s = p.budget_s, compare = p.compare },
    catalog = catalog_block(ctx, p.compare),
    experiments = {},
  }
  for _, e in ipairs(scn.experiments) do
    local w = M.weight(e.experiment)
    local left = budget - (bench.now() - t0)
    local share = math.max(left * w / weights, 1.0)
    weights = weights - w
    doc.experiments[#doc.experiments + 1] = run_one(e, share)
  end
  local finished = bench.wall()
  doc.finished_utc, doc.finished_epoch = utc(finished), math.floor(finished)
  doc.elapsed_s = bench.now() - t0
  return doc
end

function M.weight(name)
  for _, e in ipairs(bench.experiments()) do
    if e.name == name then return e.weight end
  end
  return 1
end

return M
