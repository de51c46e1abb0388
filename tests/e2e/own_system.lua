-- tests/e2e/own_system.lua: a system of the team's own (sr.system, lua/sparkreport/catalog.lua's
-- own_system) is a catalog row given in the scenario: projected as the catalog's rows are (the same
-- figures as the catalog's H100 SXM5, under an id of its own, give the same hours and memory for a job on
-- one GPU), marked as the scenario's in results.json, and a rate the team measured on it (sr.measured)
-- moves its row to that rate (within 1 %) and the other systems' by the model's ratio to it.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

-- The scenario: the catalog's H100 SXM5 row copied field by field (the catalog's own columns: ranges,
-- fabric, roles and recognition are the catalog's), a small job on one GPU, and optionally a rate.
local function scenario(path, rate)
  local f = assert(io.open(path, "w"))
  f:write(([[
local sr = require "sparkreport"
local h, mine = require("sparkreport.catalog").find("h100-sxm"), { id = "our-h100", name = "Our H100 (as the catalog's)" }
for k, v in pairs(h) do
  if not (k == "id" or k == "name" or k == "roles" or k:find("^match_") or k:find("^fabric_")
          or k:find("_low$") or k:find("_high$") or k:find("_sustained$")) then mine[k] = v end
end
return sr.scenario { budget_s = 15, systems = { "dgx-spark", "h100-sxm" },
  sr.model { configs = 1, extra_configs = 0, steps = 2, base_hidden = 32, base_seq = 16, workloads = "none" },
  sr.system(mine),
  sr.job { name = "small", config = "data/models/gpt2.json", seq = 1024, batch = 32, tokens = 1e9, gpus = 1 }%s }
]]):format(rate and (",\n  sr.measured { job = 'small', system = 'our-h100', tokens_per_s = %.17g, source = 'a test' }")
             :format(rate) or ""))
  f:close()
end

local function run(name, rate)
  local path = env.out .. "/" .. name .. ".lua"
  scenario(path, rate)
  local out, rc = sh(("cd %s && %s run %s -o %s -q"):format(q(env.srcdir), q(env.bin), q(path), q(env.out .. "/" .. name)))
  if rc ~= 0 then fail("%s: run exited %d: %s", name, rc, out) end
  local dir = out:match("^(.-)/report%.pdf\n$") or fail("%s: no report path in %q", name, out)
  return json.decode(read(dir .. "/results.json"))
end

local function record(r, system)
  for _, e in ipairs(r.experiments) do
    for _, rec in ipairs(e.name == "model" and e.results or {}) do
      if rec.series == "projection" and rec.workload == "small" and rec.system == system then return rec, e end
    end
  end
  fail("no projection of 'small' on %s", system)
end

local r = run("plain")
local mine, e = record(r, "our-h100")
local cat = record(r, "h100-sxm")
if not (mine.fits and cat.fits and mine.gpus == 1 and cat.gpus == 1) then
  fail("fits %s/%s on %s/%s GPUs", tostring(mine.fits), tostring(cat.fits), tostring(mine.gpus), tostring(cat.gpus))
end
if math.abs(mine.hours / cat.hours - 1) > 1e-9 or mine.memory_bytes ~= cat.memory_bytes then
  fail("our-h100 %.9g h and %s bytes; the catalog's H100 %.9g h and %s bytes", mine.hours, tostring(mine.memory_bytes),
       cat.hours, tostring(cat.memory_bytes))
end
local own
for _, s in ipairs(e.info.systems) do if s.id == "our-h100" then own = s end end
if not (own and own.own == true and own.kind == "catalog") then fail("info.systems' our-h100: %s", json.encode(own or {})) end
if not (r.scenario.own_systems and r.scenario.own_systems[1].id == "our-h100") then
  fail("scenario.own_systems: %s", json.encode(r.scenario.own_systems or {}))
end

-- the team measured half the projected rate on its system
local half = mine.tokens_per_s_per_gpu / 2
local c = run("measured", half)
local m2, c2, sp2 = record(c, "our-h100"), record(c, "h100-sxm"), record(c, "dgx-spark")
local sp = record(r, "dgx-spark")
if math.abs(m2.tokens_per_s_per_gpu / half - 1) > 0.01 then
  fail("calibrated our-h100: %.6g tok/s, measured %.6g", m2.tokens_per_s_per_gpu, half)
end
if not (m2.calibrated and m2.calibrated.here == true) then fail("our-h100 not marked calibrated here") end
local want = sp.tokens_per_s_per_gpu / mine.tokens_per_s_per_gpu
if math.abs((sp2.tokens_per_s_per_gpu / m2.tokens_per_s_per_gpu) / want - 1) > 1e-6 then
  fail("the Spark against our-h100: %.6g after, %.6g before", sp2.tokens_per_s_per_gpu / m2.tokens_per_s_per_gpu, want)
end
if math.abs(c2.tokens_per_s_per_gpu / m2.tokens_per_s_per_gpu - 1) > 1e-6 then
  fail("the catalog's H100 %.6g tok/s against the same figures' %.6g", c2.tokens_per_s_per_gpu, m2.tokens_per_s_per_gpu)
end
return "pass"
