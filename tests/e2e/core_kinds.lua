-- tests/e2e/core_kinds.lua: on a CPU with two kinds of core (GB10: Cortex-X925 and Cortex-A725),
-- the thread-scaling chart names each kind's series by its cores (issue 26), from the context's
-- core_kinds, which this test writes into a tiny run's results (this machine has one kind).
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local out, code = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(env.out .. "/r")))
if code ~= 0 then fail("run: %s", out) end
local r = json.decode(read(env.out .. "/r/latest/results.json"))
r.context.cpu.core_kinds = { { name = "Cortex-X925", cpus = "0-4,10-14", capacity = 1024 },
                             { name = "Cortex-A725", cpus = "5-9,15-19", capacity = 681 } }
local bw
for _, e in ipairs(r.experiments) do if e.name == "bandwidth" then bw = e end end
if not bw then fail("the tiny run has no bandwidth experiment") end
local top
for _, x in ipairs(bw.results) do if x.kernel == "triad" and (not top or x.array_bytes > top.array_bytes) then top = x end end
for _, cpus in ipairs { false, "0-4,10-14", "5-9,15-19" } do
  for _, t in ipairs { 1, 2 } do
    local c = {}
    for k, v in pairs(top) do c[k] = v end
    c.series, c.cpus, c.threads = cpus and "cluster" or "threads", cpus or nil, t
    table.insert(bw.results, c)
  end
end
local path = env.out .. "/kinds.json"
local f = assert(io.open(path, "w")); f:write(json.encode(r)); f:close()
local msg, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(env.out .. "/kinds.pdf")))
if rc ~= 0 then fail("render: %s", msg) end
local text = sh(("%s %s -"):format(q(env.pdftotext), q(env.out .. "/kinds-annex.pdf"))):gsub("%s+", " ")   -- the annex
for _, want in ipairs { "Cortex-X925 cores (CPUs 0-4,10-14)", "Cortex-A725 cores (CPUs 5-9,15-19)" } do
  if not text:find(want, 1, true) then fail("the thread-scaling chart lacks %q", want) end
end
return "pass"
