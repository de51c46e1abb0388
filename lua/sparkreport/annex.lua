-- sparkreport.annex: what the decision report cites of the technical annex. One render draws the
-- annex first (sparkreport.report.documents): the headings it drew and their pages are kept here,
-- and the decision report's sections cite them by title ("the technical annex, page 12"). Without
-- an annex drawn before (a report drawn alone), a citation names the annex without a page.
local M = {}

local pages, order = {}, {}   -- heading title -> page in the annex drawn last in this state; titles in order

M.file = "annex.pdf"

-- A view of doc that notes the title of every heading drawn through it (its pages are asked for
-- when the annex is complete, M.drawn). Starts a new annex: earlier citations are forgotten.
function M.recording(doc)
  pages, order = {}, {}
  local titles = {}
  local view = setmetatable({}, { __index = function(_, k)
    if k == "section" then
      return function(_, title, level)
        titles[#titles + 1] = title
        return doc:section(title, level)
      end
    end
    if k == "annex_titles" then return titles end
    if k == "annex_doc" then return doc end
    local f = doc[k]
    if type(f) == "function" then return function(_, ...) return f(doc, ...) end end
    return f
  end })
  return view
end

-- The annex is drawn: every noted heading's page (a heading still waiting for content has none).
function M.drawn(view)
  local doc = view.annex_doc
  for _, t in ipairs(view.annex_titles) do
    if pages[t] == nil then
      pages[t] = doc:page_of(t)
      if pages[t] then order[#order + 1] = t end
    end
  end
end

-- The heading of the annex whose title is `title`, or ends with ": " .. title (an appendix part,
-- "Appendix F: Published GPU training runs ..."): its full title and page, or nil.
local function find(title)
  if pages[title] then return title, pages[title] end
  local suffix = ": " .. title
  for _, t in ipairs(order) do
    if t:sub(-#suffix) == suffix then return t, pages[t] end
  end
end

-- "the technical annex (annex.pdf), page 12, Validation on this machine": where the decision
-- report's reader finds `title` (a heading of the annex, or an appendix part's title); `plain`
-- leaves out the file's name (pages 1-3 name no file).
function M.cite(title, plain)
  local full, page = find(title)
  local annex = plain and "the technical annex" or ("the technical annex (%s)"):format(M.file)
  if page then return ("%s, page %d, %s"):format(annex, page, full) end
  return ("%s, %s"):format(annex, full or title)
end

return M
