-- tests/lua/costs.lua: the cost file (data/costs.csv) and the rental offers (data/offers.csv) the
-- team decision reads: every row a catalog system, every figure with its source and date, what a
-- price and a power cover, the idle power cited where it is given, bad cells refused naming the
-- file, line and value. What a job costs is the decision stage's (src/decide; tests/unit/test_decide.c).
local catalog = require "sparkreport.catalog"

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
  if r.idle_power_w then
    assert(r.idle_power_covers and r.idle_power_source, r.id .. ": idle power without coverage or source")
    assert(r.system_power_w and r.idle_power_w < r.system_power_w, r.id .. ": idle power above the system's maximum")
  end
end
assert(file.by_id["dgx-spark"].idle_power_w == 25 and file.by_id["dgx-spark"].idle_power_source:find("2026-02", 1, true),
       "the Spark's idle power, cited and dated")
assert(file.by_id["h100-sxm"].idle_power_w == nil, "no idle power of an HBM server we can cite: left empty, not guessed")
assert(file.by_id["dgx-spark"].rent_usd_per_gpu_hour == nil, "nobody rents a Spark by the hour: left empty")
assert(file.by_id["h100-sxm"].rent_usd_per_gpu_hour == 2.0 and file.by_id["h100-sxm"].rent_date == "2026-04-13")
assert(file.by_id["h100-sxm"].system_power_w == 1275)
assert(file.by_id["dgx-spark"].purchase_usd == 4699 and file.by_id["dgx-spark"].launch_usd == 3999 and file.by_id["h100-sxm"].purchase_usd == 317000 / 8
       and file.by_id["b200"].purchase_usd == 515000 / 8, "whole-system prices per device")
assert(file.by_id["h200-sxm"].purchase_usd == nil, "no whole-system H200 price was found: left empty")

local ok, err = pcall(catalog.parse_costs, "id,rent_usd_per_gpu_hour\nh100-sxm,two\n", "costs.csv")
assert(not ok and err == "costs.csv:2: rent_usd_per_gpu_hour 'two' is not a number of at least 0", err)
ok, err = pcall(catalog.parse_costs, "id,idle_power_w\ndgx-spark,-3\n", "costs.csv")
assert(not ok and err == "costs.csv:2: idle_power_w '-3' is not a number of at least 0", err)
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
