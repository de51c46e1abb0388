-- sparkreport: the scenario API. `sr.scenario { ... }` and one constructor per experiment
-- (`sr.bandwidth { ... }`), each checked against the experiment's C parameter table as it
-- is called, so a mistake is reported at the scenario's own line. Running the experiments
-- is sparkreport.runner's job; drawing the report is sparkreport.report's.
local bench = require "bench"

local sr = { version = "0.1.0" }

local Experiment = {}       -- metatable marking the values experiment constructors return
Experiment.__index = Experiment

local experiments = {}      -- name -> C description (help, params)
for _, e in ipairs(bench.experiments()) do experiments[e.name] = e end

local function names(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return table.concat(out, ", ")
end

-- Experiment constructors: sr.bandwidth { kernels = "all", ... }
for name in pairs(experiments) do
  sr[name] = function(given)
    if type(given) ~= "table" then
      error(("sr.%s expects a table of parameters, got %s"):format(name, type(given)), 2)
    end
    local params, err = require("sparkreport.catalog").check_params(name, given)
    if not params then error(err, 2) end
    return setmetatable({ experiment = name, params = params }, Experiment)
  end
end

function sr.is_experiment(v) return getmetatable(v) == Experiment end

-- sr.team { people = 6, jobs = { { "llama-3.1-8b-lora", per_month = 40 }, ... }, deadline_h = 24, ... }:
-- the team the decision is made for, checked in C where it enters (src/decide/team.c: every field,
-- its limits, duplicates) and here against the catalog (an offer's system). A job may name its
-- workload first in its table or as workload = ID.
local Team = {}
Team.__index = Team
local Job = {}              -- sr.job's values (below): { job = the plain job }
Job.__index = Job
local Measured = {}         -- sr.measured's: { raw = its fields }
Measured.__index = Measured
local System = {}           -- sr.system's: { row = the plain catalog row }
System.__index = System

local function team_raw(given, level)
  if type(given) ~= "table" then
    error(("sr.team expects a table (people = N, jobs = { ... }, deadline_h = H), got %s"):format(type(given)), level)
  end
  local t, own = {}, {}
  for k, v in pairs(given) do t[k] = v end
  if type(given.jobs) == "table" then
    local jobs = {}
    for k, j in pairs(given.jobs) do
      if type(j) == "table" and j[1] ~= nil then
        if j.workload ~= nil or j[2] ~= nil then
          error(("team.jobs[%s]: name one workload, first in the table or as workload = ID, and the rest by name "
                 .. "(per_month = N)"):format(tostring(k)), level)
        end
        local first = j[1]
        if getmetatable(first) == Job then      -- an sr.job itself: the team's job is it, by its name
          own[#own + 1] = first.job
          first = first.job.name
        end
        local c = { workload = first }
        for f, v in pairs(j) do if f ~= 1 then c[f] = v end end
        jobs[k] = c
      else jobs[k] = j end
    end
    t.jobs = jobs
  end
  return t, own
end

local function team_check(raw, level, jobs)
  local norm, err = bench.team(raw, jobs or {})
  if not norm then error(err, level) end
  local catalog = require "sparkreport.catalog"
  for i, o in ipairs(norm.offers or {}) do
    if not catalog.find(o.system) then
      error(("team.offers[%d].system '%s' is not a catalog system (valid: %s)")
            :format(i, tostring(o.system):sub(1, 60), table.concat(catalog.ids(), ", ")), level)
    end
  end
  return norm
end

function sr.team(given)
  local raw, own = team_raw(given, 3)
  return setmetatable({ raw = raw, jobs = own, team = team_check(raw, 3, own) }, Team)
end

-- sr.job { name = "our 8B LoRA", config = "data/models/llama-3.1-8b.json", lora_rank = 16, ... }: a training job
-- as people describe it, checked and parsed in C where it enters (src/predict/jobspec.c: every field, the
-- config.json's shape with the fields beside it overriding it); the plain copy it returns is what the
-- projection and the team's jobs take. A config.json is one shipped with sparkreport (data/models/) or a
-- file, relative to the folder sparkreport runs in.
function sr.job(given)
  if type(given) ~= "table" then
    error(("sr.job expects a table (name = ..., config = ... or the shape's fields, ...), got %s"):format(type(given)), 2)
  end
  local job, err = bench.job(given)
  if not job then error(err, 2) end
  return setmetatable({ job = job }, Job)
end

-- sr.measured { job = "our 8B LoRA", system = ID, tokens_per_s = 405, source = "our run of ..." }: a
-- rate the team measured itself (or trainer_state = "...json", or log = "train.log"), checked against its job
-- in sr.scenario (src/predict/measured.c); it calibrates that job's rows.
function sr.measured(given)
  if type(given) ~= "table" then
    error(("sr.measured expects a table (job = ..., system = ..., tokens_per_s = ..., source = ...), got %s")
          :format(type(given)), 2)
  end
  local raw = {}
  for k, v in pairs(given) do raw[k] = v end
  return setmetatable({ raw = raw }, Measured)
end

-- sr.system { id = "our-box", name = "Our 4-GPU box (per GPU)", memory_gb = 96, mem_bw_gbs = 1792,
-- bf16_tflops = 504, sms = 188, generation = "blackwell", ... }: a system of the team's own, one GPU's
-- figures with systems.csv's columns (data/README.md), checked where it enters (catalog.own_system) and
-- projected beside the scenario's systems as a catalog row is; sr.measured may name it.
function sr.system(given)
  if type(given) ~= "table" then
    error(("sr.system expects a table (id = ..., name = ..., memory_gb = ..., mem_bw_gbs = ..., ...), got %s")
          :format(type(given)), 2)
  end
  local ok, row = pcall(require("sparkreport.catalog").own_system, given)
  if not ok then error(row, 2) end
  return setmetatable({ row = row }, System)
end

-- The scenario's jobs and rates as plain data, each rate checked against its job (its shape, for a
-- trainer_state's total_flos); jobs named once.
local function scenario_jobs(jobs, rates, level, own)
  local own_ids = {}
  for _, r in ipairs(own or {}) do own_ids[r.id] = true end
  local by = {}
  for _, j in ipairs(jobs) do
    if by[j.name] then error(("scenario: two jobs are named '%s' (sr.job names a job once)"):format(j.name), level) end
    by[j.name] = j
  end
  local plain = {}
  for i, m in ipairs(rates) do
    local raw = getmetatable(m) == Measured and m.raw or m
    local job = by[raw.job]
    if not job then
      error(("scenario: sr.measured %d names job '%s', which no sr.job of the scenario is"):format(i, tostring(raw.job)),
            level)
    end
    local catalog = require "sparkreport.catalog"
    if not (catalog.find(raw.system) or own_ids[raw.system]) then
      local valid = catalog.ids()
      for _, r in ipairs(own or {}) do valid[#valid + 1] = r.id end
      error(("scenario: sr.measured %d: system '%s' is neither a catalog system nor an sr.system of the scenario "
             .. "(valid: %s)"):format(i, tostring(raw.system), table.concat(valid, ", ")), level)
    end
    local rate, err = bench.rate(raw, job)
    if not rate then error("scenario: " .. err, level) end
    plain[#plain + 1] = rate
  end
  return plain
end


-- The scenario's team against its experiments: the model must project every job's workload. Its
-- life and electricity price are the scenario's unless the team gives its own.
local function scenario_team(value, fields, list, level, jobs)
  local inner = level > 0 and level + 1 or 0       -- 0: no position (the runner's --set and prepare)
  local raw = getmetatable(value) == Team and value.raw or team_raw(value, inner)
  local plain = {}
  for k, v in pairs(raw) do plain[k] = v end
  for _, k in ipairs { "life_years", "kwh_usd" } do
    if plain[k] == nil and fields[k] ~= nil then plain[k] = fields[k] end
  end
  local team = team_check(plain, inner, jobs)
  local named = {}
  for _, j in ipairs(jobs or {}) do named[j.name] = true end
  local model
  for _, e in ipairs(list) do if e.experiment == "model" then model = model or e end end
  if not model then error("scenario: the team's jobs are projected by the model: add sr.model { } to the scenario", level) end
  local wl = model.params.workloads
  local reference = false
  for _, j in ipairs(team.jobs) do reference = reference or not named[j.workload] end
  if wl == "none" and reference then
    error("scenario: the team has jobs but sr.model projects no workloads (workloads = \"none\")", level)
  end
  if type(wl) == "table" then
    local has = {}
    for _, id in ipairs(wl) do has[id] = true end
    for i, j in ipairs(team.jobs) do
      if not (has[j.workload] or has.all or named[j.workload]) then
        error(("scenario: team.jobs[%d]: workload '%s' is not among sr.model's workloads (%s): add it there")
              :format(i, j.workload, table.concat(wl, ", ")), level)
      end
    end
  end
  return team
end
-- What sr.team returned, as given (its jobs in their long form): the table a scenario's team is
-- read from; nil for anything else.
local function team_given(v) return getmetatable(v) == Team and rawget(v, "raw") or nil end
-- the runner checks a prepared scenario's team and jobs with scenario_team and scenario_jobs, and reads a
-- late sr.team { } with team_given
sr.internal = { scenario_team = scenario_team, scenario_jobs = scenario_jobs, team_given = team_given }

-- sr.scenario { title = ..., budget_s = ..., sr.bandwidth { ... }, ... }
function sr.scenario(given)
  if type(given) ~= "table" then
    error("sr.scenario expects a table, got " .. type(given), 2)
  end
  local fields, list, n, jobs, rates, own = {}, {}, 0, {}, {}, {}
  for k, v in pairs(given) do
    if math.type(k) == "integer" then n = n + 1 else fields[k] = v end
  end
  if n ~= #given then error("scenario: the list of experiments has holes", 2) end
  for i = 1, #given do
    if getmetatable(given[i]) == Team then     -- sr.team { } among the experiments: the scenario's team
      if fields.team ~= nil then error("scenario: one team per scenario (sr.team { } is given twice)", 2) end
      fields.team = given[i]
    elseif getmetatable(given[i]) == Job then
      jobs[#jobs + 1] = given[i].job
    elseif getmetatable(given[i]) == Measured then
      rates[#rates + 1] = given[i]
    elseif getmetatable(given[i]) == System then
      for _, r in ipairs(own) do
        if r.id == given[i].row.id then error(("scenario: two sr.system are named '%s'"):format(r.id), 2) end
      end
      own[#own + 1] = given[i].row
    elseif not sr.is_experiment(given[i]) then
      error(("scenario: entry %d is not an experiment (write sr.<experiment> { ... }; experiments: %s)")
            :format(i, names(experiments)), 2)
    else
      list[#list + 1] = given[i]
    end
  end
  if fields.compare ~= nil then              -- the field's old name
    if fields.systems ~= nil then error("scenario: systems and compare are one field (compare is its old name): give systems only", 2) end
    fields.systems, fields.compare = fields.compare, nil
  end
  local team = fields.team
  fields.team = nil
  if getmetatable(team) == Team then            -- the team's own sr.jobs are the scenario's too
    for _, j in ipairs(team.jobs) do jobs[#jobs + 1] = j end
  end
  local params, err = bench.check("scenario", fields)
  if not params then error(err, 2) end
  local catalog = require "sparkreport.catalog"
  local ok, cerr = catalog.check_ids(params.systems)
  if not ok then error("scenario: " .. cerr, 2) end
  if #list == 0 then error("scenario: no experiments (add e.g. sr.bandwidth { })", 2) end
  local has_model = false
  for _, e in ipairs(list) do has_model = has_model or e.experiment == "model" end
  if #jobs > 0 and not has_model then
    error(("scenario: sr.job '%s' is projected by the model: add sr.model { } to the scenario"):format(jobs[1].name), 2)
  end
  if #own > 0 and not has_model then
    error(("scenario: sr.system '%s' is projected by the model: add sr.model { } to the scenario"):format(own[1].id), 2)
  end
  local unique = {}
  for _, j in ipairs(jobs) do
    local same = unique[j.name]
    if same and same ~= j then error(("scenario: two jobs are named '%s' (sr.job names a job once)"):format(j.name), 2) end
    unique[j.name] = j
  end
  local kept, seen = {}, {}
  for _, j in ipairs(jobs) do if not seen[j] then kept[#kept + 1] = j; seen[j] = true end end
  return { scenario = true, params = params, experiments = list, jobs = kept, own_systems = own,
           measured = scenario_jobs(kept, rates, 2, own),
           team = team ~= nil and scenario_team(team, fields, list, 3, kept) or nil }
end

-- Unknown names are errors that list what exists.
setmetatable(sr, { __index = function(_, key)
  local fns = {}
  for k, v in pairs(sr) do if type(v) == "function" and not experiments[k] then fns[#fns + 1] = k end end
  table.sort(fns)
  error(("sparkreport has no experiment or function '%s' (experiments: %s; functions: %s)")
        :format(tostring(key), names(experiments), table.concat(fns, ", ")), 2)
end })

return sr
