-- tests/e2e/long_lists.lua: every length the report's lists allow renders (issue 38, class 2).
-- With each item at most once (tests/cli/lists.t), the scenario's decide list holds at most every
-- reference workload and its systems list every catalog system; the recorded default run (its
-- model projected every workload onto every system) with both at their longest, the catalog
-- block as a run with every system writes it, renders (exit 0), and the decision pages name every
-- workload and every system. The ids are those the program itself lists when one is refused.
local env = ...
local json = require "json"
local sh, q, fail, read, plain = env.sh, env.q, env.fail, env.read, env.plain
local bin = q(env.bin)
local tiny = q(env.srcdir .. "/tests/scenarios/tiny.lua")

local function valid(set)
  local out = sh(("%s run %s -o %s --set %s"):format(bin, tiny, q(env.out .. "/refused"), set))
  local list = out:match("%(valid: ([^)]*)%)")
  if not list then fail("--set %s gave no list of valid ids: %s", set, out) end
  local ids = {}
  for id in list:gmatch("[^, ]+") do ids[#ids + 1] = id end
  return ids
end
local workloads, systems = valid("decide=nonesuch"), valid("systems=nonesuch")
if #workloads < 12 or #systems < 10 then fail("too few ids: %d workloads, %d systems", #workloads, #systems) end

-- the catalog block of a run that lists every system
local root = env.out .. "/reports"
local out, code = sh(("cd %s && %s run %s -q -o %s --set systems=%s"):format(q(env.srcdir), bin, tiny, q(root),
  table.concat(systems, ",")))
if code ~= 0 then fail("a run with every system: %s", out) end
local catalog = json.decode(read(root .. "/latest/results.json")).catalog
if #catalog.rows ~= #systems then fail("the run's catalog has %d rows for %d systems", #catalog.rows, #systems) end

local default = env.out .. "/default.json"
sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(default)))
local doc = json.decode(read(default))
doc.scenario.decide, doc.scenario.systems, doc.catalog = workloads, systems, catalog
local long = env.out .. "/long.json"
local f = assert(io.open(long, "w")); f:write(json.encode(doc)); f:close()
out, code = sh(("%s render %s -o %s"):format(bin, q(long), q(env.out .. "/long.pdf")))
if code ~= 0 then fail("the longest lists do not render (exit %d): %s", code, out) end
local text = plain(env.out .. "/long.pdf"):gsub("%s+", " ")     -- a name may wrap inside its cell
for i = 1, #workloads do
  if not text:find(("(%d) "):format(i), 1, true) then fail("the report does not number workload %d of %d", i, #workloads) end
end
for _, r in ipairs(catalog.rows) do
  local name = r.name:gsub("^NVIDIA ", "")
  if not text:find(name, 1, true) then fail("the report does not name %s (%s)", name, r.id) end
end
return "pass"
