-- tests/e2e/rerun_exact.lua: the annex's rerun command is the exact command, or says where the
-- exact one is: a command line whose characters the font has is drawn as it is, with no note; one
-- with characters it lacks (Greek, CJK, an arrow: drawn as '?' or a stand-in) is followed by the
-- note that names results.json's scenario.command.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local note = "it is not the exact command. The exact command line is results.json's scenario.command"
local function rendered(command)
  local r = json.decode(read(env.srcdir .. "/tests/fixtures/results/tiny.json"))
  r.scenario.command = command
  local path = env.out .. "/r.json"
  local f = assert(io.open(path, "w")); f:write(json.encode(r)); f:close()
  local out, code = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(env.out .. "/r.pdf")))
  if code ~= 0 then fail("render exited %d: %s", code, out) end
  return (env.plain(env.out .. "/r-annex.pdf"):gsub("%s+", " "))   -- the annex holds the rerun command
end

local text = rendered("sparkreport run 'scénario é.lua' --set budget_s=60")
if text:find(note, 1, true) then fail("a command the font can draw (CP1252: é) has the note") end
if not text:find("sparkreport run 'scénario é.lua' --set budget_s=60", 1, true) then fail("the command is not drawn as it is") end
for _, cmd in ipairs { "sparkreport run 'α/日本.lua'", "sparkreport run x.lua --set 'title=a→b'" } do
  text = rendered(cmd)
  if not text:find(note, 1, true) then fail("the command %q, not drawable exactly, has no note: %s", cmd,
                                             text:match("Rerun with:.-The command") or "no 'Rerun with:'") end
end
return "pass"
