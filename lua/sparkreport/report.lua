-- sparkreport.report: renders a results document into its pdf documents by the scenario's
-- template. Templates (templates/*.lua) choose and order sections, and say which document each goes
-- in: `sections` the decision report (report.pdf), `annex` the technical annex (annex.pdf), when the
-- template has one. Sections (sparkreport.sections.*) draw from the results alone. Nothing here
-- measures or reads files.
local annex = require "sparkreport.annex"
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
-- damaged file is refused with the path of the bad value instead of failing half-way. A file that
-- predates the team decision's records gets them first (sparkreport.stages.prepare), and they are
-- checked like a run's.
function M.check(results)
  require("sparkreport.stages").prepare(results)
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

local function template(results)
  -- a results document names its template in its scenario; a comparison names its own
  local name = results.template or results.scenario and results.scenario.template or "procurement"
  local ok, tpl = pcall(require, "templates." .. name)
  if not ok then error(("results name the template '%s', which this sparkreport does not have"):format(name), 0) end
  return tpl, name
end

-- M.documents(results) -> { "annex", "report" } or { "report" }: the documents the results'
-- template draws, in the order they are drawn: the annex first, so that the decision report can
-- cite its pages (sparkreport.annex).
function M.documents(results)
  local tpl = template(results)
  return tpl.annex and { "annex", "report" } or { "report" }
end

-- Draws document `which` ("report", the default, or "annex") of the results into doc.
function M.render(doc, results, which)
  local tpl, name = template(results)
  local list = which == "annex" and tpl.annex or tpl.sections
  if which == "annex" then doc = annex.recording(doc) end
  for _, s in ipairs(list) do
    local fn = sections[s]
    if not fn then error(("template %s: unknown section '%s' (sections: %s)")
                         :format(name, s, table.concat(M.sections(), ", ")), 0) end
    fn(doc, results)
  end
  if which == "annex" then annex.drawn(doc) end
end

return M
