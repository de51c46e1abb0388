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

-- sr.scenario { title = ..., budget_s = ..., sr.bandwidth { ... }, ... }
function sr.scenario(given)
  if type(given) ~= "table" then
    error("sr.scenario expects a table, got " .. type(given), 2)
  end
  local fields, list = {}, {}
  for k, v in pairs(given) do
    if math.type(k) == "integer" then list[k] = v else fields[k] = v end
  end
  for i = 1, #given do
    if not sr.is_experiment(given[i]) then
      error(("scenario: entry %d is not an experiment (write sr.<experiment> { ... }; experiments: %s)")
            :format(i, names(experiments)), 2)
    end
  end
  if #list ~= #given then error("scenario: the list of experiments has holes", 2) end
  if fields.compare ~= nil then              -- the field's old name
    if fields.systems ~= nil then error("scenario: systems and compare are one field (compare is its old name): give systems only", 2) end
    fields.systems, fields.compare = fields.compare, nil
  end
  local params, err = bench.check("scenario", fields)
  if not params then error(err, 2) end
  local catalog = require "sparkreport.catalog"
  local ok, cerr = catalog.check_ids(params.systems)
  if not ok then error("scenario: " .. cerr, 2) end
  if #given == 0 then error("scenario: no experiments (add e.g. sr.bandwidth { })", 2) end
  return { scenario = true, params = params, experiments = list }
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
