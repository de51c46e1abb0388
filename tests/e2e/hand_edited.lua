-- tests/e2e/hand_edited.lua: render and compare read a results file as a stranger's (issue 38,
-- class 4). The recorded default run, each time with one value a run never writes (a utilisation
-- or life of 0, negative prices, rents and energy, GPU counts that are not whole or below one, a
-- ZeRO stage of 1.5, hours of zero, below zero or 1e300, a share above one, compression's fraction
-- of its interleaved read below zero, its pairs not whole, a held-out configuration's reference
-- with a ratio below zero or no ops, a projected system's roles that are not a list, a decide list with
-- an item twice or an id this version does not know), is refused with exit 4, the file and the place as a JSON pointer,
-- before anything is drawn; the file as recorded renders. The formatter's own
-- guards are tests/lua/format.lua's.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local bin = q(env.bin)

local default = env.out .. "/default.json"
sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(default)))
local text = read(default)

-- the model experiment and its first projection record with hours, as indexes (JSON pointers
-- count from 0, Lua from 1)
local doc = json.decode(text)
local mi, ri
for i, e in ipairs(doc.experiments) do if e.name == "model" then mi = i end end
for j, r in ipairs(doc.experiments[mi].results) do
  if r.series == "projection" and r.hours then ri = j; break end
end
if not (mi and ri) then fail("the recorded run has no projection record with hours") end
local rec = ("/experiments/%d/results/%d/"):format(mi - 1, ri - 1)
-- the compression experiment's dense FP32 product at its second batch (its interleaved read)
local ci, fi
for i, e in ipairs(doc.experiments) do if e.name == "compress" and e.info and e.info.device == "cpu" then ci = i end end
for j, r in ipairs(doc.experiments[ci].results) do
  if r.series == "gemv" and r.scheme == "fp32" and r.batch > 1 then fi = j; break end
end
if not (ci and fi) then fail("the recorded run has no dense FP32 product past batch 1") end
local frec = ("/experiments/%d/results/%d/"):format(ci - 1, fi - 1)

local cases = {
  { function(d) d.scenario.utilisation = 0 end,
    "/scenario/utilisation: parameter 'utilisation' = 0 is out of range (0.01 .. 1) (a run refuses it)" },
  { function(d) d.scenario.life_years = 0 end,
    "/scenario/life_years: parameter 'life_years' = 0 is out of range (0.25 .. 20) (a run refuses it)" },
  { function(d) d.scenario.kwh_usd = -0.15 end,
    "/scenario/kwh_usd: parameter 'kwh_usd' = -0.15 is out of range (0 .. 10) (a run refuses it)" },
  { function(d) d.catalog.costs.rows[1].purchase_usd = -3999 end,
    "/catalog/costs/rows/0/purchase_usd = -3999 is outside what a run writes (from 1 to 1000000000000)" },
  { function(d) d.catalog.costs.rows[2].rent_usd_per_gpu_hour = -2.5 end,
    "/catalog/costs/rows/1/rent_usd_per_gpu_hour = -2.5 is outside what a run writes (above 0 to 1000000000000)" },
  { function(d) d.catalog.rows[1].price_usd = 0 end,
    "/catalog/rows/0/price_usd = 0 is outside what a run writes (from 1 to 1000000000000)" },
  { function(d) d.catalog.rows[1].mem_bw_gbs = 1e-300 end,
    "/catalog/rows/0/mem_bw_gbs = 1e-300 is outside what a run writes (from 1 to 1000000)" },
  { function(d) d.experiments[mi].results[ri].gpus = 2.5 end,
    rec .. "gpus = 2.5 is outside what a run writes (a whole number from 1 to 16777216)" },
  { function(d) d.experiments[mi].results[ri].gpus = -8 end,
    rec .. "gpus = -8 is outside what a run writes (a whole number from 1 to 16777216)" },
  { function(d) d.experiments[mi].results[ri].zero = 1.5 end,
    rec .. "zero = 1.5 is outside what a run writes (a whole number from 0 to 3)" },
  { function(d) d.experiments[mi].results[ri].hours = 0 end,
    rec .. "hours = 0 is outside what a run writes (above 0 to 1e+25)" },
  { function(d) d.experiments[mi].results[ri].hours_low = -5 end,
    rec .. "hours_low = -5 is outside what a run writes (above 0 to 1e+25)" },
  { function(d) d.experiments[mi].results[ri].hours = 1e300 end,
    rec .. "hours = 1e+300 is outside what a run writes (above 0 to 1e+25)" },
  { function(d) d.experiments[mi].results[ri].energy_kwh = -1 end,
    rec .. "energy_kwh = -1 is outside what a run writes (from 0)" },
  { function(d) d.experiments[mi].results[ri].memory_bound_share = 1.5 end,
    rec .. "memory_bound_share = 1.5 is outside what a run writes (from 0 to 1)" },
  { function(d) d.experiments[ci].results[fi].read_fraction_adjacent = -0.5 end,
    frec .. "read_fraction_adjacent = -0.5 is outside what a run writes (from 0)" },
  { function(d) d.experiments[ci].results[fi].read_adjacent = { pairs = 2.5, gbps_median = 50, product_over_read = 0.7 } end,
    frec .. "read_adjacent/pairs = 2.5 is outside what a run writes (a whole number from 1 to 1000000)" },
  { function(d) d.experiments[ci].results[fi].fraction_if_serial = 1.5 end,
    frec .. "fraction_if_serial = 1.5 is outside what a run writes (from 0 to 1)" },
  { function(d) d.experiments[mi].results[ri].reference = { ops = 3, rounds = 5, then_s = 0.01, now_s = 0.011, ratio = -1.1 } end,
    rec .. "reference/ratio = -1.1 is outside what a run writes (above 0)" },
  { function(d) d.experiments[mi].results[ri].reference = { ops = 0, rounds = 5, then_s = 0.01, now_s = 0.011, ratio = 1.1 } end,
    rec .. "reference/ops = 0 is outside what a run writes (a whole number from 1 to 1000000)" },
  { function(d) local l = {}; for i = 1, 70 do l[i] = "gpt2-124m" end; d.scenario.decide = l end,
    "/scenario/decide: parameter 'decide' lists \"gpt2-124m\" twice (entries 1 and 2); give each once (a run refuses it)" },
  { function(d) d.experiments[mi].info.systems[2].roles = "subject" end,
    ("experiments[%d].info.systems[2].roles must be a list, got a string (\"subject\")"):format(mi) },
  { function(d) d.scenario.decide = { "gpt2-124m", "gpt5" } end,
    "/scenario/decide: parameter 'decide' has unknown value 'gpt5' (valid: " },
}
for i, c in ipairs(cases) do
  local d = json.decode(text)
  c[1](d)
  local path = ("%s/case%d.json"):format(env.out, i)
  local f = assert(io.open(path, "w")); f:write(json.encode(d)); f:close()
  local want = ("sparkreport: %s: %s"):format(path, c[2])
  for _, cmd in ipairs { ("%s render %s -o %s"):format(bin, q(path), q(env.out .. "/r.pdf")),
                         ("%s compare %s %s -o %s"):format(bin, q(default), q(path), q(env.out .. "/c.pdf")) } do
    local out, code = sh(cmd)
    if code ~= 4 or not out:find(want, 1, true) then
      fail("case %d: %s\nexit %d (want 4):\n%s\nwant: %s", i, cmd, code, out, want)
    end
  end
  if io.open(env.out .. "/r.pdf") or io.open(env.out .. "/c.pdf") then fail("case %d: a refused file was drawn", i) end
end
local out, code = sh(("%s render %s -o %s"):format(bin, q(default), q(env.out .. "/ok.pdf")))
if code ~= 0 then fail("the recorded run itself does not render: %s", out) end
return "pass"
