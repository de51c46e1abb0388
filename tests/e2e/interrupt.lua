-- tests/e2e/interrupt.lua: a run stopped by a signal. SIGINT during a measurement: exit 130,
-- results.json marked partial with the reason, the experiments after it "not run", a PDF whose
-- title page says so, the run published, no temporary left. SIGTERM: the same with 143. A
-- second signal: exit at once, no run folder, the earlier runs untouched. A run killed outright
-- (SIGKILL) leaves its temporary folder, which a later run removes once it is stale.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q
local fail = env.fail
local read = env.read
local root = env.out .. "/reports"

-- Starts the slow scenario in the background, waits until it measures (its log exists, then
-- a little more), sends the signals, and returns the exit code, stdout and stderr. After each
-- signal it waits until the handler has said it took it (a second signal sent a fixed time
-- later could find the run already finished, or be merged with the first if the process had
-- not run in between).
local function interrupted(signals)
  local script = ([[
cd %s || exit 99
%s run tests/scenarios/slow.lua -o %s > %s/stdout 2> %s/stderr &
pid=$!
i=0
while ! ls %s/.tmp-*/run.log > /dev/null 2>&1; do
  i=$((i + 1)); [ $i -gt 300 ] && { kill -KILL $pid; exit 98; }; sleep 0.05
done
sleep 0.5
for s in %s; do
  kill -$s $pid
  i=0
  while kill -0 $pid 2> /dev/null && ! grep -q 'SIG[A-Z]*: stop' %s/stderr && [ $i -lt 5000 ]; do
    i=$((i + 1)); sleep 0.001
  done
done
wait $pid
echo "exit $?"
]]):format(q(env.srcdir), q(env.bin), q(root), q(env.out), q(env.out), q(root), signals, q(env.out))
  local out = sh(script)
  local code = tonumber(out:match("exit (%d+)"))
  if not code then fail("could not run the scenario in the background: %s", out) end
  return code, read(env.out .. "/stdout"), read(env.out .. "/stderr")
end

local function leftovers()
  return (sh("cd " .. q(root) .. " && find . -name '*.tmp*' -o -name '.tmp-*'"):gsub("%s+$", ""))
end

-- SIGINT: partial results, a PDF that says so, exit 130
local code, out, err = interrupted("INT")
if code ~= 130 then fail("SIGINT: exit %d, expected 130\nstderr: %s", code, err) end
if not err:find("sparkreport: SIGINT: stopping after the current measurement; the report will say the run is partial "
                .. "(a second signal stops at once)", 1, true) then fail("SIGINT: stderr %s", err) end
if not err:find("sparkreport: the run was interrupted by SIGINT; results.json and the PDFs say it is partial", 1, true) then
  fail("SIGINT: stderr %s", err)
end
local dir = out:match("^(.-)/report%.pdf\n$")
if not dir then fail("SIGINT: stdout %q, expected the report's path", out) end
local r = json.decode(read(dir .. "/results.json"))
if r.status ~= "partial" then fail("status %s, expected partial", tostring(r.status)) end
local want = "interrupted by SIGINT during experiment 1 of 2 (bandwidth), which kept the measurements it had "
             .. "finished; the experiment after it did not run"
if r.status_reason ~= want then fail("status_reason %q", tostring(r.status_reason)) end
local e1, e2 = r.experiments[1], r.experiments[2]
if e1.status ~= "partial" or #e1.results == 0 then fail("experiment 1: %s with %d results", e1.status, #e1.results) end
if e2.status ~= "not run" or e2.error ~= "the run was interrupted by SIGINT before this experiment started" then
  fail("experiment 2: %s, %s", e2.status, tostring(e2.error))
end
if leftovers() ~= "" then fail("temporaries left: %s", leftovers()) end
if env.pdftotext and env.pdftotext ~= "" then
  local text = sh(("%s -l 1 %s -"):format(q(env.pdftotext), q(dir .. "/report.pdf"))):gsub("%s+", " ")
  if not text:find("PARTIAL RUN: " .. want .. ". Figures cover only what was measured before it stopped.", 1, true) then
    fail("the title page lacks the partial-run notice:\n%s", text)
  end
end
local before = sh("cd " .. q(dir) .. " && sha256sum *")

-- SIGTERM: the same, exit 143
code, out, err = interrupted("TERM")
if code ~= 143 then fail("SIGTERM: exit %d, expected 143\nstderr: %s", code, err) end
local dir2 = out:match("^(.-)/report%.pdf\n$")
local r2 = dir2 and json.decode(read(dir2 .. "/results.json"))
if not r2 or r2.status ~= "partial" or not r2.status_reason:find("^stopped by SIGTERM during experiment 1 of 2") then
  fail("SIGTERM: %s", r2 and r2.status_reason or out)
end

-- a second signal: out at once, nothing of this run left, earlier runs untouched
code, out, err = interrupted("INT INT")
if code ~= 130 then fail("second SIGINT: exit %d, expected 130\nstderr: %s", code, err) end
if out ~= "" then fail("second SIGINT: stdout %q", out) end
if not err:find("sparkreport: SIGINT: stopped at once; the unfinished run was removed", 1, true) then
  fail("second SIGINT: stderr %s", err)
end
local listing = sh("ls -A " .. q(root)):gsub("%s+$", "")
local expect = table.concat({ dir:match("[^/]+$"), dir2:match("[^/]+$"), "latest" }, "\n")
if listing ~= expect then fail("after a second signal the reports folder holds:\n%s\nexpected:\n%s", listing, expect) end
if sh("cd " .. q(dir) .. " && sha256sum *") ~= before then fail("the interrupted run changed an earlier one") end

-- SIGKILL leaves the temporary folder; a later run removes it once stale (FS_STALE_S = 60 s)
code = interrupted("KILL")
if code ~= 137 then fail("SIGKILL: exit %d", code) end
local stale = sh("cd " .. q(root) .. " && ls -d .tmp-*"):gsub("%s+$", "")
if not stale:match("^%.tmp%-%w+$") then fail("SIGKILL left %q, expected one .tmp- folder", stale) end
local msg = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root)))
if msg:find("removed", 1, true) or select(2, sh("test -d " .. q(root .. "/" .. stale))) ~= 0 then
  fail("a temporary folder younger than a minute was removed: %s", msg)
end
sh("touch -d '2 minutes ago' " .. q(root .. "/" .. stale))
msg = sh(("cd %s && %s run tests/scenarios/tiny.lua -o %s"):format(q(env.srcdir), q(env.bin), q(root)))
if not msg:find(("sparkreport: removed %s/%s, the unfinished run folder of a sparkreport that is gone"):format(root, stale), 1, true) then
  fail("stale folder: %s", msg)
end
if leftovers() ~= "" then fail("temporaries left: %s", leftovers()) end
return "pass"
