-- sparkreport.appendix: detail a body section hands on to the appendices. A section calls
-- M.defer(doc, title, draw) where the detail would have gone, and cites the label it gets back
-- ("Appendix B"); the template's last section calls M.draw(doc), which draws every part in the
-- order deferred, each under its lettered heading. What each part holds is its section's business.
local M = {}

local queues = setmetatable({}, { __mode = "k" })     -- doc -> { { label, title, draw }, ... }
local base = setmetatable({}, { __mode = "k" })       -- a demoted view -> its document

-- A view of doc whose headings are all of level 2, for a body section drawn inside an appendix
-- part; what it defers goes to doc's own list.
function M.demoted(doc)
  local view = setmetatable({}, { __index = function(_, k)
    if k == "section" then return function(_, title) return doc:section(title, 2) end end
    local f = doc[k]
    if type(f) == "function" then return function(_, ...) return f(doc, ...) end end
    return f
  end })
  base[view] = doc
  return view
end

local function letter(i)
  local s = ""
  repeat
    i = i - 1
    s = string.char(65 + i % 26) .. s
    i = i // 26
  until i == 0
  return s
end

-- Returns "Appendix X", the label the part will be drawn under.
function M.defer(doc, title, draw)
  doc = base[doc] or doc
  local q = queues[doc] or {}
  queues[doc] = q
  local label = "Appendix " .. letter(#q + 1)
  q[#q + 1] = { label = label, title = title, draw = draw }
  return label
end

-- The parts deferred so far (label and title), for a list of appendices.
function M.parts(doc)
  doc = base[doc] or doc
  local out = {}
  for _, p in ipairs(queues[doc] or {}) do out[#out + 1] = { label = p.label, title = p.title } end
  return out
end

-- Draws every deferred part, those that parts deferred while drawing included, then forgets them;
-- each under a heading of `level` (1: each on a page of its own; 2: one after the other).
function M.draw(doc, level)
  doc = base[doc] or doc
  local q, i = queues[doc] or {}, 1
  while q[i] do
    local p = q[i]
    doc:section(p.label .. ": " .. p.title, level or 1)
    p.draw(doc)
    i = i + 1
  end
  queues[doc] = nil
end

return M
