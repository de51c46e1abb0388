-- sparkreport.marks: what a section must not print as a plain number. A fraction of a measured
-- ceiling above 1 is a defect: it is printed as an error naming both numbers and listed in the
-- section's text. Statistics that stopped on budget or the repetition limit with a CV above their
-- target did not settle: a dagger on the cell, a footnote in the caption, a hollow chart marker.
-- Which figures a section checks, and against which ceiling, is the section's decision.
local fmt = require "sparkreport.format"

local M = {}
M.__index = M

M.DAGGER = "†"
local SLACK = 1e-9                          -- a fraction up to 1 + 1e-9 is rounding, not a defect

-- A collector for one section: M.new(), then mk:fraction(...), mk:settled(...), mk:caption(...),
-- mk:defects(doc).
function M.new() return setmetatable({ errors = {}, unsettled = {}, unsettled_what = {} }, M) end

-- The words of a value above its ceiling: "error: 41.2 GB/s measured above the 35.5 GB/s ceiling".
function M.above(measured, ceiling, unit)
  return ("error: %s %s measured above the %s %s ceiling"):format(fmt.rate(measured), unit, fmt.rate(ceiling), unit)
end

-- Whether measured exceeds ceiling beyond rounding.
function M.exceeds(measured, ceiling)
  return measured ~= nil and ceiling ~= nil and ceiling > 0 and measured / ceiling > 1 + SLACK
end

-- measured / ceiling as a percentage, or the error text (recorded, with `what`, as a defect).
-- `unit` names both numbers' unit; n/a when either is missing.
function M:fraction(measured, ceiling, unit, what)
  if measured == nil or ceiling == nil or measured ~= measured or ceiling ~= ceiling or ceiling <= 0 then return "n/a" end
  if not M.exceeds(measured, ceiling) then return fmt.pct(measured / ceiling) end
  local text = M.above(measured, ceiling, unit)
  local item = (what and (what .. ": ") or "") .. text
  for _, e in ipairs(self.errors) do if e == item then return text end end     -- a table and a sentence
  self.errors[#self.errors + 1] = item
  return text
end

-- A fraction as a table cell: measured when it is one, in the "bad" tone when it is an error.
function M:fraction_cell(measured, ceiling, unit, what)
  local text = self:fraction(measured, ceiling, unit, what)
  if text:find("^error") then return { text = text, tone = "bad" } end
  return { text = text, kind = "measured" }
end

-- Whether a record's statistics did not settle (older files without `settled` never say so).
function M.unsettled(r) return r ~= nil and r.settled == false end

local function stop_words(r)
  if r.stop == "budget" then return "stopped on budget" end
  if r.stop == "max_reps" then return ("stopped at the repetition limit (%d)"):format(#(r.samples_s or {})) end
  return "stopped: " .. tostring(r.stop or "?")
end

-- The footnote of one record: "fill fp64 at 1 GiB: CV 36.0 % above the 2.5 % target, stopped on budget".
function M.unsettled_text(r, what)
  local cv = r.time_s and r.time_s.cv
  return ("%sCV %s above the %s target, %s"):format(what and (what .. ": ") or "", fmt.cv(cv),
    r.cv_target and fmt.cv(r.cv_target) or "stop rule's", stop_words(r))
end

-- A cell's text with the dagger when r did not settle (noted for the next caption).
function M:settled(text, r, what)
  if not M.unsettled(r) then return text end
  self.unsettled[#self.unsettled + 1] = r
  self.unsettled_what[r] = what
  return text .. " " .. M.DAGGER
end

-- A caption with the footnote of the records marked since the last caption: the rule they missed
-- said once per kind of stop, then each record with its CV ("over 100 %": not a figure).
function M:caption(text)
  if #self.unsettled == 0 then return text end
  local groups, order = {}, {}
  for _, r in ipairs(self.unsettled) do
    local key = ("CV above the %s target, %s"):format(r.cv_target and fmt.cv(r.cv_target) or "stop rule's", stop_words(r))
    if not groups[key] then groups[key], order[#order + 1] = {}, key end
    local cv = r.time_s and r.time_s.cv
    local what = self.unsettled_what[r]
    groups[key][#groups[key] + 1] = ("%s(CV %s)"):format(what and (what .. " ") or "",
      cv and cv > 1 and "over 100 %" or fmt.cv(cv))
  end
  local parts = {}
  for _, key in ipairs(order) do parts[#parts + 1] = ("%s: %s"):format(key, table.concat(groups[key], ", ")) end
  local note = ("%s did not settle (%s)."):format(M.DAGGER, table.concat(parts, "; "))
  self.unsettled, self.unsettled_what = {}, {}
  return text and (text .. " " .. note) or note
end

-- 1-based indices of the records that did not settle: a chart series' `hollow` list.
function M.hollow(recs)
  local out = {}
  for i, r in ipairs(recs) do if M.unsettled(r) then out[#out + 1] = i end end
  return out
end

-- The chart caption's word on hollow markers, when any series has one.
function M.hollow_caption(series, text)
  for _, s in ipairs(series) do
    if s.hollow and #s.hollow > 0 then
      return (text and (text .. " ") or "") .. "Hollow markers: statistics that did not settle (CV above the target "
        .. "when the repetitions stopped)."
    end
  end
  return text
end

-- The defects found since the last call, as a paragraph of the section.
function M:defects(doc)
  if #self.errors == 0 then return end
  doc:paragraph(("Inconsistent figures: %d value%s above the measured ceiling %s taken of, which a ceiling cannot be: %s. Either "
    .. "the ceiling or the value is wrong; neither is printed as a percentage."):format(#self.errors,
    #self.errors > 1 and "s" or "", #self.errors > 1 and "they are" or "it is", table.concat(self.errors, "; ")), "note")
  self.errors = {}
end

return M
