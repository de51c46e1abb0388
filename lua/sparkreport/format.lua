-- sparkreport.format: how numbers are written in the report, in one place, so a figure in a
-- table, a sentence and a test reads the same everywhere: one format per kind. Whole parts of
-- 1,000 and more carry thousands separators; money is "$1,234"; hours "7,065 h", with days or
-- years beside them where they help; factors "126x", "1.10x"; counts of tokens and parameters
-- "9.89 B". Units are the caller's to add (but "$" and "x", which belong to the kind).
local bench = require "bench"

local M = {}

-- The guard at every entry point: a value that is not a figure (nil, NaN, infinity; a negative
-- cost, time or count where `unsigned`) prints "n/a", never "inf", "nan" or "-3999"; results
-- files are checked against the ranges a run writes before drawing (sparkreport.schema), so this
-- is the last line, for a value derived from them. M.FIGURE_MAX and beyond print in exponent form
-- with three significant digits: never more than 15 digits.
M.FIGURE_MAX = 1e15
local function not_a_figure(x, unsigned)
  if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge or (unsigned and x < 0) then return "n/a" end
end
local function huge(x, fmt) if math.abs(x) >= M.FIGURE_MAX then return (fmt or "%.3g"):format(x) end end
M.not_a_figure, M.huge = not_a_figure, huge

-- GB/s and other rates: three significant figures, never fewer than one decimal below 100;
-- thousands separated ("3,350").
function M.rate(x)
  local bad = not_a_figure(x) or huge(x)
  if bad then return bad end
  if x >= 1000 then return M.thousands(x) end
  if x >= 100 then return ("%.0f"):format(x) end
  if x >= 10 then return ("%.1f"):format(x) end
  return ("%.2f"):format(x)
end

function M.pct(x)
  local bad = not_a_figure(x) or huge(100 * x, "%.3g %%")
  if bad then return bad end
  return ("%.1f %%"):format(100 * x)
end

-- A coefficient of variation; above 100 % the spread is larger than the figure: not settled.
function M.cv(x)
  local bad = not_a_figure(x, true)
  if bad then return bad end
  if x > 1 then return "unsettled (CV over 100 %)" end
  return ("%.1f %%"):format(100 * x)
end

function M.seconds(x)          -- signed: a confidence interval's lower end may be below zero
  local bad = not_a_figure(x) or huge(x, "%.3g s")
  if bad then return bad end
  if x < 1e-6 then return ("%.0f ns"):format(x * 1e9) end
  if x < 1e-3 then return ("%.1f µs"):format(x * 1e6) end
  if x < 1 then return ("%.2f ms"):format(x * 1e3) end
  return ("%.2f s"):format(x)
end

function M.bytes(x) return not_a_figure(x, true) or bench.format_bytes(x) end
function M.duration(x) return not_a_figure(x, true) or bench.format_duration(x) end

function M.int(x)
  local bad = not_a_figure(x) or huge(x)
  if bad then return bad end
  return ("%d"):format(math.floor(x + 0.5))
end

-- 1234567 -> "1,234,567": a whole number with thousands separators.
function M.thousands(x)
  local s = M.int(x)
  if not s:find("^%-?%d+$") then return s end       -- n/a, or beyond M.FIGURE_MAX
  s = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (s:gsub("^,", ""):gsub("^%-,", "-"))
end

-- A rate that may run to millions: "9,823,137" (M.rate, kept for its callers).
function M.big(x)
  return M.rate(x)
end

-- A whole count as it is written in a table: "33,289", "512".
function M.whole(x)
  local bad = not_a_figure(x)
  if bad then return bad end
  return M.thousands(x)
end

-- How many times one figure is another: "126x", "29.0x", "1.10x" (a speed-up, a ratio of specs,
-- a change of time).
function M.factor(x)
  local bad = not_a_figure(x, true)
  if bad then return bad end
  return M.rate(x) .. "x"
end

-- Days and years, for hours that run long: "12.2 days", "1.40 years".
function M.days(h) return ("%s days"):format(M.rate(h / 24)) end
function M.years(h) return ("%s years"):format(M.rate(h / 8766)) end

-- Hours as a buyer reads them: "0.63 h", "46.9 h", "1,234 h", "12,345 h (1.41 years)", "> 100
-- years"; `unit` replaces " h" ("" inside a band whose unit is said beside it: no years then).
function M.hours(h, unit)
  unit = unit or " h"
  local bad = not_a_figure(h, true)
  if bad then return bad end
  local years = h / 8766
  if years > 100 and unit ~= "" then return "> 100 years" end
  local t = M.rate(h) .. unit
  if years >= 1 and unit ~= "" then t = ("%s (%s)"):format(t, M.years(h)) end
  return t
end

-- Dollars at a precision a buyer reads: "$1,234", "$12.3", "$0.42"; never "USD".
function M.usd(x)
  local bad = not_a_figure(x, true) or huge(x, "$%.3g")       -- never "$inf", "$-3999.00"
  if bad then return bad end
  if x >= 1000 then return "$" .. M.thousands(x) end
  if x >= 100 then return ("$%.0f"):format(x) end
  if x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end

-- Hours, and days beside them from two days up: "41.9 h", "508 h (21.2 days)".
function M.hours_days(h)
  local bad = not_a_figure(h, true)
  if bad then return bad end
  local t = M.hours(h)
  if h >= 48 and h / 8766 < 1 then t = ("%s (%s)"):format(t, M.days(h)) end
  return t
end

-- 1.24e8 -> "124 M", 9.89e9 -> "9.89 B": counts of parameters and tokens.
function M.count(x)
  local bad = not_a_figure(x, true)
  if bad then return bad end
  for _, u in ipairs { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" } } do
    if x >= u[1] then return M.rate(x / u[1]) .. " " .. u[2] end
  end
  return M.int(x)
end

return M
