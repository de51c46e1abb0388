-- sparkreport.cost: what one job costs a buyer, on one basis: a whole system's price per device
-- (host included, the cost file's), the power of the whole system per device, cloud rental per
-- GPU-hour, and the scenario's life, utilisation and electricity price; the break-even points
-- where buying and renting cost the same. Arithmetic only: which rows to show and how is the
-- decision section's.
local bench = require "bench"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"

local M = {}

M.HOURS_PER_YEAR = 8766          -- 365.25 days

-- The scenario's cost fields and their defaults, from the one scenario parameter table (C).
local FIELDS = { "life_years", "utilisation", "kwh_usd" }
M.defaults = {}
do
  local d = assert(bench.check("scenario", {}))
  for _, k in ipairs(FIELDS) do M.defaults[k] = d[k] end
end

-- The scenario's cost parameters, with the defaults of a results file that predates them.
function M.params(scn)
  scn = scn or {}
  local out = {}
  for k, v in pairs(M.defaults) do out[k] = type(scn[k]) == "number" and scn[k] or v end
  return out
end

-- The cost rows a results file carries (catalog.costs), by catalog id, and their source; a file
-- that predates them gets this sparkreport's cost file, and the source says so.
function M.rows(results)
  local cat = results.catalog or {}
  if cat.costs and type(cat.costs.rows) == "table" then
    local by = {}
    for _, r in ipairs(cat.costs.rows) do by[r.id] = r end
    return by, cat.costs.source or catalog.costs_source
  end
  return catalog.costs().by_id, catalog.costs_source .. " of this sparkreport (the results file predates it)"
end

-- The power one device of a system draws as a buyer pays for it: the cost file's whole-system
-- share. Returns watts, what it covers; without one, the catalog's chip figure and a covers text
-- that says so (the job's kWh is then on another boundary, and the table marks it).
function M.power(row, costs)
  if costs and costs.system_power_w then return costs.system_power_w, costs.system_power_covers or "the system" end
  if row and row.power_w then return row.power_w, "the GPU or SoC alone (catalog); host not included", true end
end

-- The purchase price per device on the one basis: the cost file's whole-system share (host
-- included). The catalog's price_usd is not used: for HBM parts it is the GPU board alone.
-- Returns usd, source, covers (or nil).
function M.price(row, costs)
  if costs and costs.purchase_usd then return costs.purchase_usd, costs.purchase_source, costs.purchase_covers end
end

-- M.job(hours, gpus, row, costs, p) -> {
--   energy_kwh,   -- hours x gpus x whole-system power per device / 1000 (nil without a power figure)
--   energy_usd,   -- energy_kwh x p.kwh_usd
--   capital_usd,  -- price x gpus x hours / (life_years x 8766 x utilisation)
--   buy_usd,      -- capital_usd + energy_usd
--   rent_usd,     -- hours x gpus x rental per GPU-hour (the provider's price includes its power)
--   capital_full_usd, -- capital_usd at 100 % utilisation (what break-even divides)
-- } for one job of `hours` on `gpus` devices of catalog `row` (nil fields: no figure to compute from).
function M.job(hours, gpus, row, costs, p)
  local out = {}
  if not hours then return out end
  gpus = gpus or 1
  local w = M.power(row, costs)
  if w then
    out.energy_kwh = hours * gpus * w / 1000
    out.energy_usd = out.energy_kwh * p.kwh_usd
  end
  local price = M.price(row, costs)
  if price then
    out.capital_full_usd = price * gpus * hours / (p.life_years * M.HOURS_PER_YEAR)
    out.capital_usd = out.capital_full_usd / p.utilisation
    out.buy_usd = out.capital_usd + (out.energy_usd or 0)
  end
  local rate = costs and costs.rent_usd_per_gpu_hour
  if rate then out.rent_usd = hours * gpus * rate end
  return out
end

-- The utilisation above which buying (job a) costs less per job than paying `other_usd` for it:
-- capital_full / (other - energy). nil when no utilisation does (energy alone costs more), or
-- without the figures.
function M.break_even_utilisation(a, other_usd)
  if not (a.capital_full_usd and other_usd) then return nil end
  local margin = other_usd - (a.energy_usd or 0)
  if margin <= 0 then return nil end
  return a.capital_full_usd / margin
end

-- The electricity price (USD/kWh) at which job a bought costs `other_usd`: nil when none >= 0 does.
function M.break_even_kwh_usd(a, other_usd)
  if not (a.capital_usd and a.energy_kwh and a.energy_kwh > 0 and other_usd) then return nil end
  local e = (other_usd - a.capital_usd) / a.energy_kwh
  return e >= 0 and e or nil
end

-- The whole-system price per device at which job a bought costs `other_usd` (its other terms as
-- they are): nil when none >= 0 does.
function M.break_even_price(a, price, other_usd)
  if not (a.capital_usd and a.capital_usd > 0 and other_usd) then return nil end
  local x = (other_usd - (a.energy_usd or 0)) / a.capital_usd * price
  return x >= 0 and x or nil
end

-- "$1,234", "$12.3", "$0.42": sparkreport.format's money.
M.usd = require("sparkreport.format").usd

return M
