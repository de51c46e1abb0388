-- tests/e2e/signals_outside.lua: signals and limits that come from outside (issue 28, class 6),
-- each with its defined outcome, and no temporary left:
--   SIGTERM after the measurements, while the run compares with a large baseline: stops within a
--     second or two, exit 143, and stderr says what results.json says: complete, no comparison;
--   SIGPROF sent again and again (a profiler) while the scenario loads and measures: ignored, not
--     taken for the scenario watchdog: the run ends normally;
--   SIGUSR1: stops at once, naming it, exit 138, the unfinished run removed;
--   a soft processor-time limit (ulimit -St): SIGXCPU says so, exit 152, the unfinished run removed.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local function tmp_left(root)
  local left = sh(("cd %s 2>/dev/null && find . -name '.tmp-*'"):format(q(root))):gsub("%s+$", "")
  if left ~= "" then fail("left behind in %s: %s", root, left) end
end

-- a run in the background; once `ready` (a shell test) holds, `act` runs with $pid; then its exit
local function background(args, ready, act, pre)
  local script = ([[
cd %s || exit 99
%s
%s run %s > %s/stdout 2> %s/stderr &
pid=$!
i=0
while ! %s; do i=$((i + 1)); [ $i -gt 600 ] && { kill -KILL $pid; echo "never ready"; exit 98; }; sleep 0.05; done
t0=$(date +%%s%%N)
%s
wait $pid
echo "exit $? after $(( ($(date +%%s%%N) - t0) / 1000000 )) ms"
]]):format(q(env.srcdir), pre or "", q(env.bin), args, q(env.out), q(env.out), ready, act)
  local out = sh(script)
  local code, ms = out:match("exit (%d+) after (%d+) ms")
  if not code then fail("the run in the background: %s\n%s", out, read(env.out .. "/stderr")) end
  return tonumber(code), tonumber(ms), read(env.out .. "/stderr")
end

-- (1) SIGTERM during the comparison with a large baseline: a baseline of 20000 records
local root = env.out .. "/r1"
local out, code = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root)))
if code ~= 0 then fail("tiny run: %s", out) end
local base = json.decode(read(root .. "/latest/results.json"))
local recs, e = {}, base.experiments[1]
for i = 1, 20000 do
  local r = {}
  for k, v in pairs(e.results[(i - 1) % #e.results + 1]) do r[k] = v end
  r.working_set_bytes = r.working_set_bytes + i
  recs[i] = r
end
e.results = recs
local big = env.out .. "/big.json"
local f = assert(io.open(big, "w")); f:write(json.encode(base)); f:close()
sh("rm -rf " .. q(root))
local ms, err
code, ms, err = background(("tests/scenarios/tiny.lua -o %s --set baseline=%s"):format(q(root), q(big)),
  ("ls %s/.tmp-*/results.json >/dev/null 2>&1"):format(q(root)), "sleep 0.3; kill -TERM $pid")
if code ~= 143 then fail("SIGTERM during the comparison: exit %d: %s", code, err) end
if ms > 3300 then fail("SIGTERM during the comparison: it took %d ms to stop", ms) end
local want = "sparkreport: SIGTERM came after the measurements: kept " .. root .. "/"
local cut = " (results.json and the PDFs complete); cut: the comparison with the baseline (not made)"
if not err:find(want, 1, true) or not err:find(cut, 1, true) or err:find("partial", 1, true) then
  fail("SIGTERM during the comparison said: %s", err)
end
local r = json.decode(read(root .. "/latest/results.json"))
if r.status ~= "complete" then fail("results.json says %s", tostring(r.status)) end
if sh("ls " .. q(root .. "/latest/")):find("comparison", 1, true) then fail("a comparison was written") end
tmp_left(root)

-- (2) SIGPROF, again and again, from the start: ignored
root = env.out .. "/r2"
-- from when the process ignores it (its SigIgn mask has bit 27, 0x4000000): before that the loader runs
code, ms, err = background(("tests/scenarios/slow.lua -q -o %s"):format(q(root)),
  "[ $(( 0x$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$pid/status) & 0x4000000 )) -ne 0 ]",
  "while kill -PROF $pid 2>/dev/null; do sleep 0.01; done")
if code ~= 0 then fail("SIGPROF: exit %d: %s", code, err) end
if err ~= "" then fail("SIGPROF: stderr: %s", err) end
tmp_left(root)

-- (3) SIGUSR1 while measuring: at once, named, nothing left
root = env.out .. "/r3"
code, ms, err = background(("tests/scenarios/slow.lua -q -o %s"):format(q(root)),
  ("ls %s/.tmp-*/run.log >/dev/null 2>&1"):format(q(root)), "sleep 0.3; kill -USR1 $pid")
if code ~= 138 then fail("SIGUSR1: exit %d: %s", code, err) end
if err ~= "sparkreport: SIGUSR1: stopped at once; the unfinished run was removed\n" then fail("SIGUSR1: %q", err) end
tmp_left(root)

-- (4) a soft processor-time limit of 1 s (the hard one higher): SIGXCPU, said, nothing left
root = env.out .. "/r4"
code, ms, err = background(("tests/scenarios/slow.lua -q -o %s"):format(q(root)), "true", "", "ulimit -St 1")
if code ~= 152 then fail("ulimit -St 1: exit %d: %s", code, err) end
want = "sparkreport: SIGXCPU: the processor-time limit (ulimit -t) is spent: stopped at once; the unfinished run was removed\n"
if err ~= want then fail("ulimit -St 1: %q", err) end
tmp_left(root)
return "pass"
