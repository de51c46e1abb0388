-- tests/lua/cost.lua: what one job costs a buyer (sparkreport.cost), checked against figures worked
-- out by hand, and the cost file (data/costs.csv): every row a catalog system, every figure with its
-- source and date, bad cells refused naming the file, line and value.
local catalog = require "sparkreport.catalog"
local cost = require "sparkreport.cost"

local function near(a, b, what)
  assert(a and math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)), ("%s: %s, expected %s"):format(what, tostring(a), b))
end

-- 100 h on one GPU of a system priced $30,000 per device, over 3 years at 50 %: 30000 / (3 x 8766 x 0.5) =
-- $2.28154 per hour, $228.154 for the job; energy 100 h x 1275 W = 127.5 kWh, at $0.15 = $19.125; rent 100 h x $2.
local p = { life_years = 3, utilisation = 0.5, kwh_usd = 0.15 }
local row = { id = "x", price_usd = 99999, power_w = 700 }      -- the catalog's board price: never used
local costs = { purchase_usd = 30000, system_power_w = 1275, rent_usd_per_gpu_hour = 2.0 }
local j = cost.job(100, 1, row, costs, p)
near(j.capital_usd, 30000 * 100 / 13149, "capital")
near(j.capital_usd, 228.15423226100844, "capital, by hand")
near(j.capital_full_usd, 228.15423226100844 / 2, "capital at 100 %")
near(j.energy_kwh, 127.5, "energy")
near(j.energy_usd, 19.125, "energy cost")
near(j.buy_usd, 228.15423226100844 + 19.125, "buy")
near(j.rent_usd, 200, "rent")
-- buying ties with paying $150 a job at u = capital at 100 % / (150 - energy) = 114.077 / 130.875
near(cost.break_even_utilisation(j, 150), 114.07711613050422 / 130.875, "break-even utilisation")
assert(cost.break_even_utilisation(j, 19) == nil, "energy alone costs more: no utilisation pays off")
-- the electricity price and the price at which the job bought costs $200
assert(cost.break_even_kwh_usd(j, 200) == nil, "no electricity price makes it cheaper than $200")
near(cost.break_even_kwh_usd(j, 300), (300 - 228.15423226100844) / 127.5, "electricity that ties")
near(cost.break_even_price(j, 30000, 200), (200 - 19.125) / 228.15423226100844 * 30000, "price that ties")

-- two GPUs double every figure; the break-even utilisation against twice the cost stays
local j2 = cost.job(100, 2, row, costs, p)
near(j2.buy_usd, 2 * j.buy_usd, "two GPUs")
near(j2.rent_usd, 400, "two GPUs rented")
near(cost.break_even_utilisation(j2, 300), cost.break_even_utilisation(j, 150), "break-even, two GPUs")

-- one basis: the price is the cost file's whole-system price, never the catalog's board price
assert(cost.price(row, nil) == nil, "the catalog's price_usd is another basis")
assert(select(1, cost.price(row, costs)) == 30000)
-- without the cost file's system power the catalog's chip power counts, and says so
local w, covers, chip = cost.power(row, nil)
assert(w == 700 and covers:find("host not included", 1, true) and chip, covers)
local j3 = cost.job(100, 1, row, nil, p)
near(j3.energy_kwh, 70, "chip energy")
assert(j3.rent_usd == nil and j3.buy_usd == nil, "no rental, no whole-system price: none invented")
assert(next(cost.job(nil, 1, row, costs, p)) == nil, "no hours: no cost")

-- defaults for results files that predate the scenario fields
local d = cost.params({ life_years = 5 })
assert(d.life_years == 5 and d.utilisation == 0.5 and d.kwh_usd == 0.15)
assert(cost.usd(1234.4) == "$1,234" and cost.usd(36.54) == "$36.5" and cost.usd(7.071) == "$7.07", cost.usd(1234.4))
assert(cost.usd(1234567) == "$1,234,567" and cost.usd(123.4) == "$123")

-- the cost file: catalog ids, each rental with a source and a date, each power with what it covers
local file = catalog.costs()
assert(#file.rows >= 4 and #file.sha256 == 64)
for _, r in ipairs(file.rows) do
  assert(catalog.find(r.id), r.id)
  if r.rent_usd_per_gpu_hour then assert(r.rent_source and r.rent_date, r.id .. ": rental without source or date") end
  if r.purchase_usd then
    assert(r.purchase_source and r.purchase_date and r.purchase_covers, r.id .. ": price without source, date or coverage")
    assert(r.purchase_covers:find("whole") or r.purchase_covers:find("host"), r.id .. ": a price not of a whole system")
  end
  if r.system_power_w then assert(r.system_power_covers and r.system_power_source, r.id .. ": power without coverage") end
end
assert(file.by_id["dgx-spark"].rent_usd_per_gpu_hour == nil, "nobody rents a Spark by the hour: left empty")
assert(file.by_id["h100-sxm"].rent_usd_per_gpu_hour == 2.0 and file.by_id["h100-sxm"].rent_date == "2026-04-13")
assert(file.by_id["h100-sxm"].system_power_w == 1275)
assert(file.by_id["dgx-spark"].purchase_usd == 4699 and file.by_id["dgx-spark"].launch_usd == 3999 and file.by_id["h100-sxm"].purchase_usd == 317000 / 8
       and file.by_id["b200"].purchase_usd == 515000 / 8, "whole-system prices per device")
assert(file.by_id["h200-sxm"].purchase_usd == nil, "no whole-system H200 price was found: left empty")

local ok, err = pcall(catalog.parse_costs, "id,rent_usd_per_gpu_hour\nh100-sxm,two\n", "costs.csv")
assert(not ok and err == "costs.csv:2: rent_usd_per_gpu_hour 'two' is not a number of at least 0", err)
ok, err = pcall(catalog.parse_costs, "id,system_power_w\nh100-sxm,700\nh300,1\n", "costs.csv")
assert(not ok and err == "costs.csv:3: 'h300' is not a system of data/systems.csv", err)

-- the rental offers: every row a catalog system, a price, instance sizes as a list, a billing step,
-- a source and a date; a bad cell named with its line
local offers = catalog.offers()
assert(#offers.rows >= 9, "offers of every compared HBM type")
for _, o in ipairs(offers.rows) do
  assert(catalog.find(o.system) and o.usd_per_gpu_hour > 0 and #o.instance_gpus >= 1 and o.billing_step_s >= 1
         and o.source and o.date, o.id .. ": an offer without its terms, source or date")
end
ok, err = pcall(catalog.parse_offers, "id,system,usd_per_gpu_hour,instance_gpus,billing_step_s,min_billed_s\n"
                .. "x,b200,4,one,60,60\n", "offers.csv")
assert(not ok and err == "offers.csv:2: instance_gpus 'one' is not a list of GPU counts like 1|2|4|8", err)
ok, err = pcall(catalog.parse_offers, "id,system,usd_per_gpu_hour,instance_gpus,billing_step_s,min_billed_s\n"
                .. "x,b900,4,8,60,60\n", "offers.csv")
assert(not ok and err == "offers.csv:2: 'b900' is not a system of data/systems.csv", err)
