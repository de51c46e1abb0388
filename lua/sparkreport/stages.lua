-- sparkreport.stages: the stages a results document carries beside its experiments, each in its
-- one home (the projection's records in the model experiment it projects, team_decision, ceilings),
-- and the team decision run again on a file written before its records were what the pages draw
-- (results schema version below M.decision_version): the stage (src/decide, through bench.decide)
-- over the file's own projection and team, with this sparkreport's cost and offer files where the
-- file carries none. The figures are the stage's; nothing here computes one.
local bench = require "bench"
local catalog = require "sparkreport.catalog"

local M = {}

M.decision_version = 4     -- the first results schema whose team_decision holds every record the pages draw

-- The team decision over a results document (or a copy of its inputs): { results, info } | { error }
-- | nil when the document has neither a team nor a decide list, or no team and no model experiment
-- (a run that measures only: nothing was projected to decide on).
function M.decide(doc)
  local models = {}
  for _, e in ipairs(doc.experiments or {}) do if e.name == "model" then models[#models + 1] = e end end
  if #models == 0 and not (doc.scenario or {}).team then return nil end
  local out = bench.decide({ scenario = doc.scenario, catalog = doc.catalog, experiments = models })
  if out and out.error then out = { error = out.error } end
  return out
end

-- A shallow copy of t with the fields of `over` set.
local function with(t, over)
  local out = {}
  for k, v in pairs(t or {}) do out[k] = v end
  for k, v in pairs(over) do out[k] = v end
  return out
end

-- The inputs of an older file, as the stage reads them: its scenario's decide list, life, use and
-- electricity price where it predates them (this sparkreport's defaults), and its catalog block's
-- cost and offer rows where it has none (this sparkreport's files, and their source says so).
local function inputs(results)
  local scn, cat = results.scenario or {}, results.catalog or {}
  local d = assert(bench.check("scenario", {}))
  local fill = {}
  for _, k in ipairs { "decide", "life_years", "utilisation", "kwh_usd" } do
    if scn[k] == nil then fill[k] = d[k] end
  end
  local over = {}
  if not (cat.costs and cat.costs.rows) then
    over.costs = { source = catalog.costs_source .. " of this sparkreport (the results file predates it)",
                   rows = catalog.costs().rows }
  end
  if not (cat.offers and cat.offers.rows) then
    over.offers = { source = catalog.offers_source .. " of this sparkreport (the results file predates it)",
                    rows = catalog.offers().rows }
  end
  -- the subject's row is the one whose roles say so (src/decide/read.c): rows of a file written before
  -- the catalog had roles take this sparkreport's
  local known, rows = catalog.load().by_id, {}
  for i, r in ipairs(type(cat.rows) == "table" and cat.rows or {}) do
    rows[i] = (type(r) == "table" and r.roles == nil and known[r.id]) and with(r, { roles = known[r.id].roles }) or r
  end
  if #rows == 0 then
    for _, r in ipairs(catalog.load().rows) do rows[#rows + 1] = { id = r.id, name = r.name, roles = r.roles } end
  end
  over.rows = rows
  return { scenario = with(scn, fill), catalog = with(cat, over), experiments = results.experiments }
end

-- Before drawing: a file whose schema version predates the decision's records gets them from the
-- stage run now on its own inputs (info.derived_at_render says so, and by which sparkreport); a
-- current file's are drawn as they are. Returns results, changed in place.
function M.prepare(results)
  if type(results) ~= "table" or results.schema ~= bench.schema then return results end
  if (results.schema_version or 1) >= M.decision_version then return results end
  local td = M.decide(inputs(results))
  if td and td.info then td.info.derived_at_render = bench.version end
  results.team_decision = td
  return results
end

return M
