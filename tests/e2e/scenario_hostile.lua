-- tests/e2e/scenario_hostile.lua: a scenario cannot outlast a stop request or overrule the
-- command line (issue 18, classes 1 and 3). A finalizer that loops as the scenario's state
-- closes: SIGTERM ends it with exit 143 within seconds, nothing written (without a signal, the
-- wall-clock deadline ends it: tests/cli/scenario-hostile.t). --set given for fields the scenario
-- also sets, by a scenario that replaces ipairs and bench.parse in its own state: results.json
-- has the --set values.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local root = env.out .. "/reports"

local script = ([[
cd %s || exit 99
SPARKREPORT_SCENARIO_TIME_S=20 %s run tests/scenarios/gc-at-close.lua -o %s 2> %s/stderr &
pid=$!
sleep 1
kill -TERM $pid
t0=$(date +%%s)
wait $pid
echo "exit $? after $(( $(date +%%s) - t0 )) s"
]]):format(q(env.srcdir), q(env.bin), q(root), q(env.out))
local out = sh(script)
local code, took = out:match("exit (%d+) after (%d+) s")
local err = read(env.out .. "/stderr")
if tonumber(code) ~= 143 then fail("SIGTERM in a finalizer: %s\nstderr: %s", out, err) end
if tonumber(took) > 5 then fail("SIGTERM in a finalizer: the run ended %s s after the signal", took) end
if not err:find("sparkreport: SIGTERM came while Lua code could not be interrupted (a __gc finalizer or one long "
                .. "library call); stopped, nothing was written", 1, true) then
  fail("SIGTERM in a finalizer: stderr %s", err)
end
if sh("ls -A " .. q(env.out) .. " | grep -v stderr || true") ~= "" then fail("SIGTERM in a finalizer: something was written") end


out = sh(("cd %s && %s run tests/scenarios/set-wins.lua -o %s -q --set budget_s=6 --set title=theirs "
          .. "--set bandwidth.max_reps=4 2>&1; echo \"exit $?\""):format(q(env.srcdir), q(env.bin), q(root)))
if not out:find("exit 0", 1, true) then fail("--set wins: %s", out) end
local r = json.decode(read(out:match("([^\n]+)/report%.pdf") .. "/results.json"))
local s, p = r.scenario, r.experiments[1].params
if s.budget_s ~= 6 or s.title ~= "theirs" or p.max_reps ~= 4 then
  fail("--set wins: budget_s %s, title %s, max_reps %s; expected 6, theirs, 4", s.budget_s, s.title, p.max_reps)
end
return "pass"
