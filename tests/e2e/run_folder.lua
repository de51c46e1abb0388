-- tests/e2e/run_folder.lua: the run folder a report names is the folder it is in. A run chooses its
-- folder's name before it writes (the appendix prints "--set baseline=<folder>"); when another run
-- took that name meanwhile (here: every name of the next minute made beforehand), the run takes the
-- next free one and results.json and the annex (its rerun command) name that one.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local reports = env.out .. "/reports"
local host = sh("hostname"):gsub("%s+$", ""):gsub("[^%w%-_%.]", "_")
local now = os.time()
for i = 0, 60 do
  sh("mkdir -p " .. q(("%s/%s-%s-tiny"):format(reports, os.date("!%Y%m%dT%H%M%SZ", now + i), host)))
end
local out, code = sh(("cd %s && %s run tests/scenarios/tiny.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(reports)))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local folder = out:match("([^\n]*)/report%.pdf\n") or fail("no report printed: %s", out)
local name = folder:match("([^/]+)$")
if not name:find("%-2$") then fail("the run took %s, not a suffixed name", name) end
local r = json.decode(read(folder .. "/results.json"))
if r.scenario.run_folder ~= name then fail("results.json names %s; the run is in %s", tostring(r.scenario.run_folder), name) end
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = env.plain(folder .. "/annex.pdf"):gsub("%s", "")
if not text:find("--setbaseline=" .. name, 1, true) then fail("annex.pdf does not name %s in its rerun command", name) end
return "pass"
