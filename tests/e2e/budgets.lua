-- tests/e2e/budgets.lua: budgets and signals inside one long kernel (class 5 of issue 18). A
-- GEMM far beyond a 2 s budget is sized from a small probe and skipped with its estimate: the
-- run ends well inside 15 s (generous for a loaded 2-core machine). SIGTERM during a long GEMM
-- (CBLAS in column panels, progress_cut between them) ends the run within a few seconds: exit
-- 143, the GEMM skipped as stopped, the report written, no temporary folder left.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local root = env.out .. "/reports"

local function now() return tonumber((sh("date +%s.%N"))) end

-- budget: skipped before it starts
local t0 = now()
local out, code = sh(("cd %s && %s run tests/scenarios/gemm-too-big.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root)))
local took = now() - t0
if code ~= 0 then fail("too-big GEMM: exit %d:\n%s", code, out) end
if took >= 15 then fail("a 2 s budget with a 16384^3 GEMM took %.1f s", took) end
local r = json.decode(read(root .. "/latest/results.json"))
local skipped = r.experiments[1].skipped
local reason
for _, s in ipairs(skipped) do
  if s.item == "CPU GEMM fp64 square 16384x16384x16384" then reason = s.reason end
end
if not reason or not reason:find("^would take about [%d.]+ s at the rate measured so far; [%d.]+ s of its time share was left$") then
  fail("the GEMM is not skipped with its estimate: %s", json.encode(skipped))
end
if #r.experiments[1].results ~= 0 then fail("the too-big GEMM was measured") end

-- SIGTERM during the long GEMM
local script = ([[
cd %s || exit 99
%s run tests/scenarios/gemm-long.lua -o %s > %s/stdout 2> %s/stderr &
pid=$!
i=0
while ! grep -q 'cpu gemm' %s/stderr; do
  i=$((i + 1)); [ $i -gt 600 ] && { kill -KILL $pid; exit 98; }; sleep 0.05
done
sleep 2
t0=$(date +%%s.%%N)
kill -TERM $pid
wait $pid
rc=$?
echo "exit $rc after $(awk -v a="$t0" -v b="$(date +%%s.%%N)" 'BEGIN { print b - a }')"
]]):format(q(env.srcdir), q(env.bin), q(root), q(env.out), q(env.out), q(env.out))
out = sh(script)
local rc, after = out:match("exit (%d+) after ([%d.]+)")
if not rc then fail("could not run the long GEMM in the background: %s", out) end
local err = read(env.out .. "/stderr")
if tonumber(rc) ~= 143 then fail("SIGTERM during the GEMM: exit %s, expected 143\n%s", rc, err) end
if tonumber(after) > 10 then fail("SIGTERM during the GEMM took %s s to end the run", after) end
local dir = read(env.out .. "/stdout"):match("^(.-)/report%.pdf\n$")
if not dir then fail("no report after SIGTERM: %s", err) end
r = json.decode(read(dir .. "/results.json"))
if r.status ~= "partial" then fail("status %s", tostring(r.status)) end
local stopped = false
for _, s in ipairs(r.experiments[1].skipped) do
  stopped = stopped or (s.item:find("GEMM fp64", 1, true) and s.reason:find("the run was asked to stop", 1, true))
end
if not stopped then fail("the GEMM is not skipped as stopped: %s", json.encode(r.experiments[1].skipped)) end
local left = sh("cd " .. q(root) .. " && find . -name '.tmp-*'"):gsub("%s+$", "")
if left ~= "" then fail("temporaries left: %s", left) end
return "pass"
