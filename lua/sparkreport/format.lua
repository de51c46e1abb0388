-- sparkreport.format: how numbers are written in the report, in one place, so a figure in a
-- table, a sentence and a test reads the same everywhere: one format per kind. Whole parts of
-- 1,000 and more carry thousands separators; money is "$1,234"; hours "7,065 h", with days or
-- years beside them where they help; factors "126x", "1.10x"; counts of tokens and parameters
-- "9.89 B". Units are the caller's to add (but "$" and "x", which belong to the kind).
local bench = require "bench"

local M = {}

-- GB/s and other rates: three significant figures, never fewer than one decimal below 100;
-- thousands separated ("3,350").
function M.rate(x)
  if x == nil or x ~= x then return "n/a" end
  if x >= 1000 then return M.thousands(x) end
  if x >= 100 then return ("%.0f"):format(x) end
  if x >= 10 then return ("%.1f"):format(x) end
  return ("%.2f"):format(x)
end

function M.pct(x)
  if x == nil or x ~= x then return "n/a" end
  return ("%.1f %%"):format(100 * x)
end

-- A coefficient of variation; above 100 % the spread is larger than the figure: not settled.
function M.cv(x)
  if x == nil or x ~= x then return "n/a" end
  if x > 1 then return "unsettled (CV over 100 %)" end
  return ("%.1f %%"):format(100 * x)
end

function M.seconds(x)
  if x == nil or x ~= x then return "n/a" end
  if x < 1e-6 then return ("%.0f ns"):format(x * 1e9) end
  if x < 1e-3 then return ("%.1f µs"):format(x * 1e6) end
  if x < 1 then return ("%.2f ms"):format(x * 1e3) end
  return ("%.2f s"):format(x)
end

M.bytes = bench.format_bytes
M.duration = bench.format_duration

function M.int(x) return ("%d"):format(math.floor(x + 0.5)) end

-- 1234567 -> "1,234,567": a whole number with thousands separators.
function M.thousands(x)
  local s = M.int(x):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (s:gsub("^,", ""):gsub("^%-,", "-"))
end

-- A rate that may run to millions: "9,823,137" (M.rate, kept for its callers).
function M.big(x)
  return M.rate(x)
end

-- A whole count as it is written in a table: "33,289", "512".
function M.whole(x)
  if x == nil or x ~= x then return "n/a" end
  return M.thousands(x)
end

-- Dollars at a precision a buyer reads: "$1,234", "$12.3", "$0.42"; never "USD".
function M.usd(x)
  if x == nil or x ~= x then return "n/a" end
  if x >= 1000 then return "$" .. M.thousands(x) end
  if x >= 100 then return ("$%.0f"):format(x) end
  if x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end

-- How many times one figure is another: "126x", "29.0x", "1.10x" (a speed-up, a ratio of specs,
-- a change of time).
function M.factor(x)
  if x == nil or x ~= x then return "n/a" end
  return M.rate(x) .. "x"
end

-- Days and years, for hours that run long: "12.2 days", "1.40 years".
function M.days(h) return ("%s days"):format(M.rate(h / 24)) end
function M.years(h) return ("%s years"):format(M.rate(h / 8766)) end

-- Hours as a buyer reads them: "0.63 h", "46.9 h", "1,234 h", "12,345 h (1.41 years)", "> 100
-- years"; `unit` replaces " h" ("" inside a band whose unit is said beside it: no years then).
function M.hours(h, unit)
  unit = unit or " h"
  if h == nil or h ~= h then return "n/a" end
  local years = h / 8766
  if years > 100 and unit ~= "" then return "> 100 years" end
  local t = M.rate(h) .. unit
  if years >= 1 and unit ~= "" then t = ("%s (%s)"):format(t, M.years(h)) end
  return t
end

-- 1.24e8 -> "124 M", 9.89e9 -> "9.89 B": counts of parameters and tokens.
function M.count(x)
  if x == nil or x ~= x then return "n/a" end
  for _, u in ipairs { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" } } do
    if x >= u[1] then return M.rate(x / u[1]) .. " " .. u[2] end
  end
  return M.int(x)
end

return M
