-- tests/e2e/signal_after.lua: SIGTERM after the last measurement (issue 38, class 8). The run is
-- frozen (SIGSTOP) as soon as its progress says the last experiment is done, sent SIGTERM, and let go:
-- wherever it was then (the projection, writing the files, publishing the folder), it exits 143
-- and stderr says what was kept (the run folder, complete) and what was cut (nothing: the
-- scenario has no baseline), never that the run is partial; results.json says complete; no
-- temporary is left. The handler's words at each stage are tests/unit/test_signals.c's.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local root = env.out .. "/reports"

local out = sh(([[
cd %s || exit 99
%s run tests/scenarios/tiny.lua -o %s > %s/stdout 2> %s/stderr &
pid=$!
i=0
until grep -qs "done in" %s/stderr; do
  i=$((i + 1)); [ $i -gt 200000 ] && { kill -KILL $pid; echo "never done"; exit 98; }
  kill -0 $pid 2>/dev/null || break
done
kill -STOP $pid; kill -TERM $pid; kill -CONT $pid
wait $pid
echo "exit $?"
]]):format(q(env.srcdir), q(env.bin), q(root), q(env.out), q(env.out), q(env.out)))
local code = tonumber(out:match("exit (%d+)"))
local err = read(env.out .. "/stderr")
if code ~= 143 then fail("SIGTERM after the measurements: %s\n%s", out, err) end
if err:find("partial", 1, true) then fail("SIGTERM after the measurements said partial:\n%s", err) end
local kept = err:match("came after the measurements: kept ([^\n]-) %(results.json and the PDFs complete%); nothing was cut\n")
  or err:match("SIGTERM: the run had finished: kept ([^\n]-) %(its files complete%); nothing was cut\n")
if not kept or kept:sub(1, #root + 1) ~= root .. "/" then fail("stderr does not say what was kept and cut:\n%s", err) end
local r = json.decode(read(kept .. "/results.json"))
if r.status ~= "complete" then fail("results.json says %s", tostring(r.status)) end
local left = sh(("cd %s && find . -name '.tmp-*'"):format(q(root))):gsub("%s+$", "")
if left ~= "" then fail("left behind: %s", left) end
return "pass"
