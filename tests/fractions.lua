-- tests/fractions.lua: every efficiency or fraction of a measured ceiling in a results document,
-- and those above a limit (1.05: a ceiling is the most this run measured, so nothing may exceed it
-- beyond noise). Used by tests/e2e/fractions.lua and by `make bench` (tests/bench/kernels.sh):
--   lua5.4 tests/fractions.lua RESULTS.json [LIMIT]   prints each one above LIMIT; exit 1 when any is.
-- Which numbers: fields named *efficiency* or *fraction*, and mfu, anywhere (ceilings, compression,
-- the projections' scaling); the model calibration's efficiency points (eta) of the compute classes,
-- and of the memory classes at or beyond the DRAM-sized working set (below it an op may run from the
-- caches, and the report shows its rate as a multiple of the DRAM ceiling, never as an efficiency).
-- Not: a vendor claim's share of a peak (the claim's, not this run's) or the stack profiles' fitted
-- efficiencies of published runs.
local M = {}

local function named(key)
  return type(key) == "string" and (key:find("efficiency", 1, true) or key:find("fraction", 1, true) or key == "mfu")
end

-- The DRAM-sized working set of the document's CPU figure (bytes), or nil.
local function dram_bytes(doc)
  for _, e in ipairs(doc.experiments or {}) do
    local d = e.info and e.info.dram
    if d and d.working_set_bytes and e.device ~= "gpu" then return d.working_set_bytes end
  end
end

-- {path, value} of every efficiency or fraction, in document order.
function M.all(doc)
  local out = {}
  local function walk(v, path, skip)
    if type(v) ~= "table" or skip then return end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      if type(a) == type(b) then return a < b end
      return type(a) == "number"
    end)
    for _, k in ipairs(keys) do
      local x, p = v[k], type(k) == "number" and ("%s[%d]"):format(path, k - 1) or (path == "" and k or path .. "." .. k)
      if type(x) == "number" and named(k) then out[#out + 1] = { path = p, value = x }
      else walk(x, p, type(x) == "table" and (x.series == "vendor_claim" or k == "stack_profiles")) end
    end
  end
  walk(doc, "")
  local ws = dram_bytes(doc)
  for i, e in ipairs(doc.experiments or {}) do
    local cal = e.info and e.info.calibration
    for _, list in ipairs { "classes", "kinds" } do
      for j, c in ipairs(cal and cal[list] or {}) do
        for k, pt in ipairs(c.points or {}) do
          if c.basis == "flops" or (ws and pt.x >= ws) then
            out[#out + 1] = { path = ("experiments[%d].info.calibration.%s[%d].points[%d].eta"):format(i - 1, list, j - 1, k - 1),
                              value = pt.eta }
          end
        end
      end
    end
  end
  return out
end

-- Those above limit (default 1.05).
function M.above(doc, limit)
  local out = {}
  for _, f in ipairs(M.all(doc)) do
    if f.value > (limit or 1.05) then out[#out + 1] = f end
  end
  return out
end

if arg and arg[0] and arg[0]:find("fractions%.lua$") and arg[1] then
  package.path = arg[0]:gsub("fractions%.lua$", "?.lua") .. ";" .. package.path
  local json = require "json"
  local f = assert(io.open(arg[1], "rb"))
  local doc = json.decode(f:read("a"))
  f:close()
  local limit = tonumber(arg[2] or "1.05")
  local all, bad = M.all(doc), M.above(doc, limit)
  for _, b in ipairs(bad) do print(("%s = %.3f, above %.2f"):format(b.path, b.value, limit)) end
  print(("%d efficiencies and fractions, %d above %.2f"):format(#all, #bad, limit))
  os.exit(#bad == 0 and 0 or 1)
end

return M
