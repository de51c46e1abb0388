-- sparkreport.cost: what one job costs a buyer, from a projection's hours, the catalog's price
-- and the cost file's rental, power and its coverage, and the scenario's life, utilisation and
-- electricity price. Arithmetic only: which rows to show and how is the decision section's.
local bench = require "bench"
local M = {}

M.HOURS_PER_YEAR = 8766          -- 365.25 days
-- the scenario table's defaults (src/exp/experiment.c), never retyped here
local scenario = assert(bench.check("scenario", {}))
M.defaults = { life_years = scenario.life_years, utilisation = scenario.utilisation, kwh_usd = scenario.kwh_usd }

-- The scenario's cost parameters, with the defaults of a results file that predates them.
function M.params(scn)
  scn = scn or {}
  local out = {}
  for k, v in pairs(M.defaults) do out[k] = type(scn[k]) == "number" and scn[k] or v end
  return out
end

-- The power one GPU of a system draws as a buyer pays for it: the cost file's whole-system share
-- when there is one, else the catalog's board figure. Returns watts, what it covers (or nil).
function M.power(row, costs)
  if costs and costs.system_power_w then return costs.system_power_w, costs.system_power_covers or "the system" end
  if row and row.power_w then return row.power_w, "the GPU or SoC alone (catalog); host not included" end
end

-- The purchase price per GPU: the catalog's, else the cost file's. Returns usd, source (or nil).
function M.price(row, costs)
  if row and row.price_usd then return row.price_usd, "the catalog's (its row's sources)" end
  if costs and costs.purchase_usd then return costs.purchase_usd, costs.purchase_source end
end

-- M.job(hours, gpus, row, costs, p) -> {
--   energy_kwh,  -- hours x gpus x power / 1000 (nil without a power figure)
--   energy_usd,  -- energy_kwh x p.kwh_usd
--   buy_usd,     -- price x gpus x hours / (life_years x 8766 x utilisation) + energy_usd
--   rent_usd,    -- hours x gpus x rental per GPU-hour (the provider's price includes its power)
--   break_even,  -- jobs after which buying costs less than renting: price x gpus / (rent - energy)
-- } for one job of `hours` on `gpus` GPUs of catalog `row` (nil fields: no figure to compute from).
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
    out.capital_usd = price * gpus * hours / (p.life_years * M.HOURS_PER_YEAR * p.utilisation)
    out.buy_usd = out.capital_usd + (out.energy_usd or 0)
  end
  local rate = costs and costs.rent_usd_per_gpu_hour
  if rate then out.rent_usd = hours * gpus * rate end
  if price and out.rent_usd then
    local saved = out.rent_usd - (out.energy_usd or 0)
    out.break_even = saved > 0 and math.ceil(price * gpus / saved) or nil
  end
  return out
end

-- "$1,234", "$12.3", "$0.42": dollars at a precision a buyer reads.
function M.usd(x)
  if x == nil or x ~= x then return "n/a" end
  if x >= 1000 then
    local s = ("%.0f"):format(x):reverse():gsub("(%d%d%d)", "%1,"):reverse()
    return "$" .. s:gsub("^,", "")
  end
  if x >= 100 then return ("$%.0f"):format(x) end
  if x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end

return M
