-- sparkreport.format: how numbers are written in the report, in one place, so a figure in a
-- table, a sentence and a test reads the same everywhere. Units are the caller's to add.
local bench = require "bench"

local M = {}

-- GB/s and other rates: three significant figures, never fewer than one decimal below 100.
function M.rate(x)
  if x == nil or x ~= x then return "n/a" end
  if x >= 100 then return ("%.0f"):format(x) end
  if x >= 10 then return ("%.1f"):format(x) end
  return ("%.2f"):format(x)
end

function M.pct(x)
  if x == nil or x ~= x then return "n/a" end
  return ("%.1f %%"):format(100 * x)
end

function M.cv(x)
  if x == nil or x ~= x then return "n/a" end
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

-- 1.24e8 -> "124 M", 9.89e9 -> "9.89 B": counts of parameters and tokens.
function M.count(x)
  for _, u in ipairs { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" } } do
    if x >= u[1] then return M.rate(x / u[1]) .. " " .. u[2] end
  end
  return M.int(x)
end

return M
