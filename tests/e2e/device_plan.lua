-- tests/e2e/device_plan.lua: the device check's time plan fits its window (issue 26, item 6).
-- The arithmetic: the budgets add up to at most 500 s (the run ends by 550 s, the device tool's
-- limit is 600 s); PyTorch's anchors run before every other measuring part; each scenario's part
-- outlasts the scenario's own budget_s by at least 10 s (start-up and the PDF); the merge, the
-- render, the summary and the archive have budgets. The behaviour: a plan over the limit is
-- refused; a part that overruns its budget is cut and the next part still runs.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local script = env.srcdir .. "/tests/bench/device-check.sh"

local out, code = sh("sh " .. q(script) .. " --plan")
if code ~= 0 then fail("--plan failed (exit %s):\n%s", tostring(code), out) end
local parts, order, total = {}, {}, nil
for name, budget in out:gmatch("\n?(%S+)%s+(%d+) s\n") do
  parts[name] = tonumber(budget); order[#order + 1] = name
end
total = tonumber(out:match("total (%d+) s"))
if not total then fail("--plan prints no total:\n%s", out) end
local sum = 0
for _, n in ipairs(order) do sum = sum + parts[n] end
if sum ~= total then fail("the plan's total %d is not the sum of its budgets %d", total, sum) end
if total > 500 then fail("the plan needs %d s, over 500", total) end

-- PyTorch first: before any unit test or scenario part.
local pos = {}
for i, n in ipairs(order) do pos[n] = i end
if not pos.torch then fail("no torch part in the plan") end
for i, n in ipairs(order) do
  if (n:find("^test_") or n == "bandwidth" or n == "precision") and i < pos.torch then
    fail("%s runs before PyTorch's anchors", n)
  end
end
for _, n in ipairs { "merge", "render", "summary", "archive" } do
  if not parts[n] then fail("the plan has no budget for %s", n) end
end

-- Each scenario part outlasts its scenario's budget_s.
local text = read(script)
local scenarios = 0
for name, budget, file in text:gmatch("\n(%S+) (%d+) sh \"%$0\" %-%-step scenario (%S+)") do
  local lua = read(env.srcdir .. "/scenarios/" .. file .. ".lua")
  local b = tonumber(lua:match("\n%s*budget_s%s*=%s*(%d+)"))
  if not b then fail("%s.lua has no budget_s", file) end
  if tonumber(budget) < b + 10 then
    fail("part %s has %s s for %s.lua, whose budget_s is %d: less than 10 s for start-up and the PDF",
         name, budget, file, b)
  end
  scenarios = scenarios + 1
end
if scenarios < 5 then fail("found %d scenario parts in the plan, expected 5", scenarios) end

-- Over the limit: refused.
out, code = sh("DC_PLAN='a 400 true\nb 200 true' sh " .. q(script) .. " --plan")
if code == 0 or not out:find("does not fit", 1, true) then fail("a 600 s plan was not refused:\n%s", out) end

-- An overrunning part is cut, not the run; the check then exits 1 (issue 38, class 6). The bundle
-- --check runs from holds its wrapper and program (tests/e2e/device_check.lua: what else).
local dev = env.out .. "/dev"
sh(("mkdir -p %s && printf '#!/bin/sh\\nexec \"$@\"\\n' > %s/run && chmod +x %s/run && : > %s/sparkreport")
   :format(q(dev), q(dev), q(dev), q(dev)))
local t0 = os.time()
out, code = sh(("DC_PLAN='slow 2 sleep 30\nnext 3 echo next ran' OUT=%s sh %s --check %s"):format(
  q(env.out .. "/o"), q(script), q(dev)))
local took = os.time() - t0
if code ~= 1 then fail("--check with a cut part: exit %s, expected 1:\n%s", tostring(code), out) end
local summary = read(env.out .. "/o/summary.txt")
if not summary:find("slow%s+CUT at 2 s") then fail("the slow part was not cut:\n%s", summary) end
if not summary:find("next%s+ok") then fail("the part after the cut one did not run:\n%s", summary) end
if took > 15 then fail("the cut part held the run %d s", took) end
return "pass"
