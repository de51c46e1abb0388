-- sparkreport.report: renders a results document into a pdf document by the scenario's
-- template. Templates (templates/*.lua) choose and order sections; sections
-- (sparkreport.sections.*) draw from the results alone. Nothing here measures or reads files.
local M = {}

local sections = {}
for _, mod in ipairs { "sparkreport.sections.common", "sparkreport.sections.bandwidth" } do
  for name, fn in pairs(require(mod)) do sections[name] = fn end
end

function M.sections()
  local out = {}
  for k in pairs(sections) do out[#out + 1] = k end
  table.sort(out)
  return out
end

function M.render(doc, results)
  local name = results.scenario and results.scenario.template or "procurement"
  local ok, tpl = pcall(require, "templates." .. name)
  if not ok then error(("results name the template '%s', which this sparkreport does not have"):format(name), 0) end
  for _, s in ipairs(tpl.sections) do
    local fn = sections[s]
    if not fn then error(("template %s: unknown section '%s' (sections: %s)")
                         :format(name, s, table.concat(M.sections(), ", ")), 0) end
    fn(doc, results)
  end
end

return M
