-- tests/e2e/collective_one.lua: the collective experiment run as one process (no mpirun): the run
-- succeeds, every operation says "not measured: one rank" and why, the context has no job, and
-- the PDF says so. The device buffers (NCCL) say "not measured" with the CUDA driver's words, or
-- why the build has no CUDA or NCCL.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local out, code = sh(("cd %s && %s run tests/scenarios/collective.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(env.out)))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
local r = json.decode(read(dir .. "/results.json"))
local e = r.experiments[1]
-- every item skipped: the experiment is "skipped" with their reason
if e.status ~= "skipped" or #e.results ~= 0 or type(e.reason) ~= "string" then
  fail("one rank: status %s (%s), %d results", e.status, tostring(e.reason), #e.results)
end
if r.context.mpi ~= nil then fail("one rank: context.mpi is set") end
local ops = {}
for _, s in ipairs(e.skipped) do
  if s.reason:find("^not measured: one rank: ") then ops[s.item] = true end
end
for _, op in ipairs { "ping-pong", "all-reduce", "all-gather", "reduce-scatter" } do
  if not ops[op] then fail("%s is not 'not measured: one rank'", op) end
end
local config = read(env.builddir .. "/config.h")
local cuda, device_skip = r.context.cuda or {}, nil
for _, s in ipairs(e.skipped) do if s.item == "device buffers (NCCL)" then device_skip = s.reason end end
local want = cuda.status ~= "device" and ("not measured: " .. tostring(cuda.reason):gsub("^not measured: ", ""))
  or not config:find("#define HAVE_NCCL 1", 1, true) and "not measured: this build has no NCCL (" or nil
if want and (not device_skip or device_skip:sub(1, #want) ~= want) then
  fail("device buffers: skip reason %q, want %q", tostring(device_skip), want)
end
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf"))):gsub("%s+", " ")   -- the technical annex
if not text:find("ping-pong, all-reduce, all-gather, reduce-scatter", 1, true) or not text:find("not measured: one rank", 1, true) then
  fail("PDF does not say the collectives were not measured with one rank")
end
return "pass"
