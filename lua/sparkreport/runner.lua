-- sparkreport.runner: loads a scenario, checks it again with the --set overrides applied last,
-- runs its experiments within the time budget, and assembles the results document (schema, context, scenario, catalog, ceilings,
-- experiments). Measuring is the C experiments'; writing files and rendering are the C
-- program's, which calls load() and execute() here.
local bench = require "bench"
local sr = require "sparkreport"
local catalog = require "sparkreport.catalog"
local schema = require "sparkreport.schema"

local M = { schema = bench.schema, schema_version = bench.schema_version }   -- src/util/schema.h

local REPORT_RESERVE = 0.05     -- of the budget kept for writing and rendering
M.max_experiments = 100

local function last_line(source)
  local n = 1
  for _ in source:gmatch("\n") do n = n + 1 end
  return source:sub(-1) == "\n" and n - 1 or n
end

-- --set key=value: "budget_s=60" sets a scenario field, "bandwidth.min_reps=3" a parameter
-- of every bandwidth experiment. Values are parsed and checked like scenario fields; an
-- experiment's parameters are checked together once every --set is applied (touched[e] lists the
-- sets that changed experiment e), since some go together (a name and the fields it turns on).
local function apply_set(scn, set, touched)
  local key, text = set:match("^([^=]+)=(.*)$")
  if not key then error(("--set %s: expected key=value"):format(set), 0) end
  local exp, pname = key:match("^([%w_]+)%.([%w_]+)$")
  if key == "compare" then key = "systems" end    -- the field's old name
  if exp == "team" then                           -- team.deadline_h=48: a field of the scenario's team
    if not scn.team then error(("--set %s: the scenario has no team (add sr.team { ... })"):format(set), 0) end
    if pname == "jobs" or pname == "offers" then
      error(("--set %s: team.%s is a list; change it in the scenario"):format(set, pname), 0)
    end
    local t = {}
    for k, v in pairs(scn.team) do t[k] = v end
    t[pname] = tonumber(text) or text
    local ok, team = pcall(sr.internal.scenario_team, t, scn.params, scn.experiments, 0, scn.jobs)
    if not ok then error(("--set %s: %s"):format(set, team), 0) end
    scn.team = team
    return
  end
  if not exp then
    local v, err = bench.parse("scenario", key, text)
    if v == nil then error(("--set %s: %s"):format(set, err), 0) end
    scn.params[key] = v
    scn.params.systems = catalog.systems(scn.params.systems)
    local ok, cerr = catalog.check_ids(scn.params.systems)
    if not ok then error(("--set %s: %s"):format(set, cerr), 0) end
    return
  end
  local hit, have = false, {}
  for _, e in ipairs(scn.experiments) do
    have[#have + 1] = e.experiment
    if e.experiment == exp then
      local v, err = bench.parse(exp, pname, text)
      if v == nil then error(("--set %s: %s"):format(set, err), 0) end
      e.params[pname], hit = v, true
      touched[e] = touched[e] or {}
      table.insert(touched[e], set)
    end
  end
  if not hit then
    error(("--set %s: the scenario has no '%s' experiment (it has: %s)")
          :format(set, exp, table.concat(have, ", ")), 0)
  end
end

-- Put before the scenario's first line (the line numbers stay): a block with a to-be-closed
-- variable makes no tail calls, so `return sr.scenario { ... }` keeps the scenario's frame on
-- the stack and an error in its fields is reported at the scenario's line, not at ours.
local NO_TAIL_CALL = "local _ <close> = nil; "

-- Runs the scenario's source; returns the checked scenario. Errors carry FILE:LINE. The
-- command line's --set values are not applied here, where the scenario's code could still
-- change them (or the functions applying them): M.prepare applies them, last.
function M.load(source, chunkname)
  local chunk, err = load(NO_TAIL_CALL .. source, "@" .. chunkname, "t")
  if not chunk then error(err, 0) end
  local scn = chunk()
  -- raw: a metatable of the scenario's (an __index that raises or loops) runs none of its code here
  if type(scn) ~= "table" or not rawget(scn, "scenario") then
    error(("%s:%d: the scenario must end with `return sr.scenario { ... }` (it returned %s)")
          :format(chunkname, last_line(source), type(scn) == "table" and "another table" or tostring(scn)), 0)
  end
  -- the entries as plain data, read raw: the constructors' own marks (sr.is_experiment, sr.team's) are
  -- dropped here; any other table with a metatable is refused by the copy into C, which reads every
  -- table once, raw
  local exps = rawget(scn, "experiments")
  if getmetatable(scn) == nil and type(exps) == "table" and getmetatable(exps) == nil then
    local plain = {}
    for i, e in next, exps do
      plain[i] = type(e) == "table" and sr.is_experiment(e)
                 and { experiment = rawget(e, "experiment"), params = rawget(e, "params") } or e
    end
    local team = rawget(scn, "team")          -- sr.team { } set after sr.scenario: what it was given
    scn = { scenario = true, params = rawget(scn, "params"), experiments = plain, jobs = rawget(scn, "jobs"),
            measured = rawget(scn, "measured"), own_systems = rawget(scn, "own_systems"), team = sr.internal.team_given(team) or team }
  end
  return scn
end

-- The scenario as data (what M.load returned, passed through JSON by the C program), checked
-- again in the state that runs the experiments: the scenario's own code may have changed its
-- tables after the constructors checked them, and none of that code comes along. Then the
-- command line's --set values (sets, a list of "key=value"), applied last: the command line
-- wins over the scenario, whatever its code did.
function M.prepare(data, chunkname, sets)
  local function bad(fmt, ...) error(chunkname .. ": the scenario it returned " .. fmt:format(...), 0) end
  if type(data) ~= "table" or type(data.params) ~= "table" or type(data.experiments) ~= "table" then
    bad("is not a scenario (write `return sr.scenario { ... }`)")
  end
  local params, err = bench.check("scenario", data.params)
  if not params then bad("has invalid fields: %s", err) end
  params.systems = catalog.systems(params.systems)
  local ok, cerr = catalog.check_ids(params.systems)
  if not ok then bad("has invalid fields: %s", cerr) end
  local exps = {}
  for i, e in ipairs(data.experiments) do
    if type(e) ~= "table" or type(e.experiment) ~= "string" or type(e.params) ~= "table" then
      bad("has an entry %d that is not an experiment", i)
    end
    local okc, p, perr = pcall(catalog.check_params, e.experiment, e.params)
    if not okc then bad("has an entry %d: %s", i, p) end
    if not p then bad("has an entry %d with invalid parameters: %s", i, perr) end
    exps[#exps + 1] = { experiment = e.experiment, params = p }
  end
  if #exps == 0 or #exps ~= #data.experiments then bad("lists no experiments, or has holes in the list") end
  if #exps > M.max_experiments then
    bad("lists %d experiments; at most %d fit in one run (each takes a second at least)", #exps, M.max_experiments)
  end
  local scn = { scenario = true, params = params, experiments = exps, jobs = {}, measured = {}, own_systems = {} }
  for i, j in ipairs(type(data.jobs) == "table" and data.jobs or {}) do    -- each checked again as it enters
    local job, jerr = bench.job(j)
    if not job then bad("has an invalid job %d: %s", i, jerr) end
    scn.jobs[i] = job
  end
  local own = {}
  for i, r in ipairs(type(data.own_systems) == "table" and data.own_systems or {}) do   -- each checked again
    local given = {}
    for k, v in pairs(type(r) == "table" and r or {}) do given[k] = v end
    given.kind = nil
    if given.memory == "unified" then given.memory, given.unified = nil, true end
    local oko, row = pcall(catalog.own_system, given)
    if not oko then bad("has an invalid system %d: %s", i, row) end
    own[i] = row
  end
  scn.own_systems = own
  local okj, rates = pcall(sr.internal.scenario_jobs, scn.jobs, type(data.measured) == "table" and data.measured or {}, 0,
                           own)
  if not okj then bad("has an invalid measured rate: %s", rates) end
  scn.measured = rates
  if data.team ~= nil then
    local okt, team = pcall(sr.internal.scenario_team, data.team, params, exps, 0, scn.jobs)
    if not okt then bad("has an invalid team: %s", team) end
    scn.team = team
  end
  local touched = {}
  for _, s in ipairs(sets or {}) do apply_set(scn, s, touched) end
  for _, e in ipairs(scn.experiments) do
    if touched[e] then
      local params, cerr = catalog.check_params(e.experiment, e.params)
      if not params then error(("--set %s: %s"):format(table.concat(touched[e], " "), cerr), 0) end
      e.params = params
    end
  end
  return scn
end

local function utc(t) return os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(t)) end

-- An experiment the run did not start because it was asked to stop.
local function not_run(e, stopped)
  return { name = e.experiment, device = e.params.device, params = e.params, status = "not run",
           error = ("the run was %s before this experiment started"):format(stopped),
           results = {}, skipped = {} }
end

-- results.status_reason of a stopped run; `during` is the experiment the signal came in.
local function stop_reason(stopped, during, n, name)
  local later = n - during
  local tail = later == 1 and "; the experiment after it did not run"
    or later > 1 and ("; the %d experiments after it did not run"):format(later) or ""
  return ("%s during experiment %d of %d (%s), which kept the measurements it had finished%s")
         :format(stopped, during, n, name, tail)
end

local function catalog_block(ctx, systems)
  local cat = catalog.load()
  local row, reason = catalog.match(ctx)
  local rows, seen = {}, {}
  local function use(id)
    if id and not seen[id] then seen[id] = true; rows[#rows + 1] = catalog.find(id) end
  end
  use(row and row.id)
  for _, id in ipairs(systems) do use(id) end
  local costs, crows = catalog.costs(), {}
  for _, r in ipairs(rows) do crows[#crows + 1] = costs.by_id[r.id] end
  for i, r in ipairs(rows) do     -- one price per system in results.json: the cost file's (catalog.costs)
    local copy = {}
    for k, v in pairs(r) do if k ~= "price_usd" then copy[k] = v end end
    rows[i] = copy
  end
  local offers, orows = catalog.offers(), {}
  for _, o in ipairs(offers.rows) do if seen[o.system] then orows[#orows + 1] = o end end
  return { source = catalog.source, sha256 = cat.sha256, match = row and row.id,
           match_reason = reason, systems = systems, rows = rows,
           costs = { source = catalog.costs_source, sha256 = costs.sha256, rows = crows },
           offers = { source = catalog.offers_source, sha256 = offers.sha256, rows = orows } }
end

local function run_one(e, budget, last)
  local t0 = bench.now()
  local out, err = bench.run(e.experiment, e.params, budget, last)
  local rec = { name = e.experiment, device = e.params.device, params = e.params,
                budget_s = budget, elapsed_s = bench.now() - t0 }
  if not out then
    rec.status, rec.error, rec.results, rec.skipped = "failed", err, {}, {}
  else
    rec.status, rec.results, rec.skipped, rec.info = "complete", out.results, out.skipped, out.info
    -- nothing measured because every item was skipped (a GPU experiment without a device):
    -- "skipped" with the reason, never "complete"
    local why = require("sparkreport.results").skipped_reason(out)
    if why then rec.status, rec.reason = "skipped", why end
  end
  return rec
end


-- A stage wrote what the results reader refuses (a fault of sparkreport's, not of the scenario or the
-- machine): its records are left out with this error in their place, results.stage_faults lists it,
-- and the run keeps its measurements and its report, says so and exits 5 (src/cmd/run.c).
local function stage_fault(doc, stage, err)
  local msg = ("%s wrote a record the results reader refuses (%s), a fault of sparkreport's: its records "
               .. "are left out; the measurements are kept"):format(stage, err)
  doc.stage_faults = doc.stage_faults or {}
  doc.stage_faults[#doc.stage_faults + 1] = msg
  return msg
end

-- A model experiment's GPU that is the report's subject (catalog.subject_gpu) is named in its
-- calibration (catalog_id), so that the projection takes its row as measured here.
local function recognise_gpus(doc)
  for _, e in ipairs(doc.experiments) do
    local cal = e.name == "model" and e.info and e.info.calibration
    if cal and cal.device_name then cal.catalog_id = catalog.subject_gpu(cal.device_name) end
  end
end

-- The projection, a stage over the results after every experiment ran (src/predict/project.h):
-- each model experiment's calibration onto the catalog's systems, the stack profiles fitted on
-- the published runs, the vendor claims beside them, the link the collective measured; what it
-- adds goes into that experiment's results and info.
local function project(doc)
  recognise_gpus(doc)
  local rows = catalog.projection_rows()
  for _, r in ipairs(doc.scenario.own_systems or {}) do rows[#rows + 1] = r end   -- sr.system's, kind "scenario"
  local added = bench.project(doc.experiments, rows, catalog.data("data/gpu-runs.csv"),
                              catalog.data("data/vendor-claims.csv"), doc.scenario.jobs or {}, doc.scenario.measured or {})
  for i, a in pairs(added) do M.keep_projection(doc, i, a) end
end

-- The projection's records and info `a` for experiment i, added as the results reader will accept
-- them; else its error in their place (stage_fault). An experiment the reader refuses without them
-- is its own fault, not the projection's: that is render's to say.
function M.keep_projection(doc, i, a)
  local e = doc.experiments[i]
  if not a.error then
    local trial = {}
    for k, v in pairs(e) do trial[k] = v end
    trial.results, trial.info = table.move(e.results, 1, #e.results, 1, {}), {}
    for _, r in ipairs(a.results) do trial.results[#trial.results + 1] = r end
    for k, v in pairs(e.info or {}) do trial.info[k] = v end
    for k, v in pairs(a.info) do trial.info[k] = v end
    local before = schema.check_stage({ experiments = { e } }, 1)
    local ok, err = schema.check_stage({ experiments = { trial } }, 1)
    if before and not ok then
      a = { error = stage_fault(doc, "the projection", (err:gsub("^experiments%[1%]", ("experiments[%d]"):format(i)))) }
    end
  end
  e.info = e.info or {}
  if a.error then
    e.info.projection_error = a.error
  else
    for _, r in ipairs(a.results) do e.results[#e.results + 1] = r end
    for k, v in pairs(a.info) do e.info[k] = v end
  end
end

-- The team decision, a stage over the results after the projection (src/decide/decide.h): what each
-- way of getting the team's compute costs a year, how long results take, the answer, what decides it
-- and what flips it, and every job on every system on the same terms (without a team, the decide
-- list's jobs at the scenario's use). It reads the scenario, the catalog block and the model
-- experiments' records; a failure is recorded with its reason, never a half answer.
function M.decide(doc)
  local out = require("sparkreport.stages").decide(doc)
  return out ~= nil and M.keep_decision(doc, out) or nil
end

-- The team decision's output as the results reader will accept it; else its error in its place.
function M.keep_decision(doc, out)
  if out and out.error then out = { error = out.error } end
  local ok, err = schema.check_stage({ scenario = doc.scenario, team_decision = out }, "team_decision")
  if not ok then out = { error = stage_fault(doc, "the team decision", err) } end
  return out
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
                 template = p.template, budget_s = p.budget_s, systems = p.systems,
                 baseline = p.baseline, cwd = meta.cwd,
                 decide = p.decide, life_years = p.life_years, utilisation = p.utilisation, kwh_usd = p.kwh_usd,
                 team = scn.team, jobs = scn.jobs, measured = scn.measured,
                 own_systems = scn.own_systems and #scn.own_systems > 0 and scn.own_systems or nil },
    catalog = catalog_block(ctx, p.systems),
    experiments = {},
  }
  doc.scenario.team_name = p.team_name    -- the decision report's title names it
  for i, e in ipairs(scn.experiments) do
    local w = M.weight(e.experiment)
    local left = budget - (bench.now() - t0)
    local share = math.max(left * w / weights, 1.0)
    weights = weights - w
    local _, stopped = bench.stopping()      -- what stopped it, in words (src/util/signals.h)
    if stopped then
      doc.experiments[#doc.experiments + 1] = not_run(e, stopped)
      if doc.status == "complete" then          -- it came between two experiments
        doc.status = "partial"
        doc.status_reason = i == 1 and ("%s before any experiment started"):format(stopped)
          or ("%s after experiment %d of %d; the %d after it did not run")
             :format(stopped, i - 1, #scn.experiments, #scn.experiments - i + 1):gsub("the 1 after", "the one after")
      end
    else
      local rec = run_one(e, share, i == #scn.experiments)
      local ended
      _, stopped, ended = bench.stopping()
      if stopped and not ended then       -- it returned early, with what it had measured (a stop
                                          -- after its measurements ended stops the ones after it)
        if rec.status == "complete" then rec.status = "partial" end
        rec.note = ("%s: the measurements after the one running then were not made"):format(stopped)
        doc.status = "partial"
        doc.status_reason = stop_reason(stopped, i, #scn.experiments, e.experiment)
      end
      doc.experiments[#doc.experiments + 1] = rec
    end
  end
  bench.measured()      -- a signal from now on cuts nothing measured (src/util/signals.h)
  project(doc)
  doc.team_decision = M.decide(doc)
  -- the machine's measured ceilings, from the measurements above (sparkreport.ceilings)
  doc.ceilings = require("sparkreport.ceilings").build(doc)
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
