-- sparkreport.report: renders a results document into a pdf document by the scenario's
-- template. Templates (templates/*.lua) choose and order sections; sections
-- (sparkreport.sections.*) draw from the results alone. Nothing here measures or reads files.
local M = {}

local sections = {}
for _, mod in ipairs { "sparkreport.sections.common", "sparkreport.sections.bandwidth", "sparkreport.sections.precision",
                       "sparkreport.sections.regression", "sparkreport.sections.train",
                       "sparkreport.sections.compress",
                       "sparkreport.sections.model",
                       "sparkreport.sections.decision",
                       "sparkreport.sections.team",
                       "sparkreport.sections.collective",
                       "sparkreport.sections.tenants" } do
  for name, fn in pairs(require(mod)) do sections[name] = fn end
end

function M.sections()
  local out = {}
  for k in pairs(sections) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- M.check(results) -> true | false, "PATH must be ...": whether the sections can draw these
-- results (sparkreport.schema) with a template this sparkreport has; render calls it first, so a
-- damaged file is refused with the path of the bad value instead of failing half-way.
function M.check(results)
  local ok, err = require("sparkreport.schema").check(results)
  if not ok then return false, err end
  local name = results.template or results.scenario and results.scenario.template or "procurement"
  if type(name) ~= "string" or not name:find("^[%w_%-]+$") or not pcall(require, "templates." .. name) then
    return false, ("the results name the template '%s', which this sparkreport does not have")
                  :format(tostring(name):sub(1, 80))
  end
  return M.check_template(name, results.schema)
end

-- M.check_template(name, schema) -> true | false, why: whether template `name` draws documents
-- of `schema` (a template says which in its `schema` field), so that a results file naming a
-- template made for other documents is refused before that template's sections run.
function M.check_template(name, doc_schema)
  local ok, tpl = pcall(require, "templates." .. name)
  if not ok or type(tpl) ~= "table" then
    return false, ("the template '%s' does not exist in this sparkreport"):format(name)
  end
  if tpl.schema and tpl.schema ~= doc_schema then
    return false, ("the results name the template '%s', which draws %s documents, not %s")
                  :format(name, tpl.schema, tostring(doc_schema))
  end
  return true
end

function M.render(doc, results)
  -- a results document names its template in its scenario; a comparison names its own
  local name = results.template or results.scenario and results.scenario.template or "procurement"
  local ok, tpl = pcall(require, "templates." .. name)
  if not ok then error(("results name the template '%s', which this sparkreport does not have"):format(name), 0) end
  -- a machine no buyer can buy (no catalog match): its own sections become one appendix part,
  -- deferred just before the appendix section (after the parts the body deferred)
  local later, away = {}, {}
  if tpl.machine and not (results.catalog and results.catalog.match) then
    for _, s in ipairs(tpl.machine) do away[s] = true end
  end
  for _, s in ipairs(tpl.sections) do
    local fn = sections[s]
    if not fn then error(("template %s: unknown section '%s' (sections: %s)")
                         :format(name, s, table.concat(M.sections(), ", ")), 0) end
    if away[s] then later[#later + 1] = fn
    else
      if s == "appendix" and #later > 0 then M.defer_machine(doc, results, later); later = {} end
      fn(doc, results)
    end
  end
  if #later > 0 then M.defer_machine(doc, results, later) end
end

function M.defer_machine(doc, results, fns)
  local appendix = require "sparkreport.appendix"
  appendix.defer(doc, "The machine that ran this report: what it measured", function(d)
    d:paragraph("This machine is not a system of the catalog: its measurements calibrate and check the model, and "
      .. "no decision figure is one of them. They follow in full.", "small")
    local view = appendix.demoted(d)
    for _, fn in ipairs(fns) do fn(view, results) end
  end)
end

return M
