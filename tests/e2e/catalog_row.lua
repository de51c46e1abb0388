-- tests/e2e/catalog_row.lua: adding a catalog system is rows in data/ only (lua/sparkreport/catalog.lua,
-- bench.resource's SPARKREPORT_CATALOG_DIR in src/lua/lbench.c, src/predict/project.c and stack.c,
-- lua/sparkreport/sections/model.lua). Copies of data/ with a real system appended (the H100 NVL, with
-- its sources, in the comparison set), then a small model run on them: the scenario's own code recognises
-- the new GPU's name through the catalog, the default systems (the subject and the compared set) take it
-- in, the projection projects it on its generation's profile and SM count, the report compares it, and a
-- render of the results without the copies draws the same report (the roles travel in results.json). A
-- copy with a bad cell is refused naming the file, line and value before anything is measured.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local ROW = 'h100-nvl,NVIDIA H100 NVL,HBM3,94,3900,30,60,417.5,835.5,835.5,1670.5,,400,,,,128,high,'
  .. '"Dense figures: the datasheet\'s sparse TF32, BF16, FP16 and FP8 halved. A PCIe card; NVLink bridges pairs '
  .. '(600 GB/s).",NVIDIA H100 Tensor Core GPU datasheet (H100 NVL column),GiB,hopper,132,,'
  .. '"GH100 with the SXM5\'s 132 SMs (TechPowerUp GPU database: 16,896 CUDA cores)",compared,H100 NVL,,,\n'

local FABRIC = 'h100-nvl,2,"NVLink bridge of the pair, 300 GB/s each way",300,,,low,"Cards bridged in pairs; '
  .. 'beyond the pair the host\'s PCIe, not modelled.",NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: NVLink 600 GB/s)\n'

local data = env.out .. "/data"
local _, code = sh(("mkdir -p %s && cp %s/data/*.csv %s/"):format(q(data), q(env.srcdir), q(data)))
if code ~= 0 then fail("could not copy data/") end
local function append(file, line)
  local f = assert(io.open(data .. "/" .. file, "ab"))
  f:write(line)
  f:close()
end
append("systems.csv", ROW)
append("fabric.csv", FABRIC)

local scenario = env.out .. "/nvl.lua"
local f = assert(io.open(scenario, "w"))
f:write([[
local sr = require "sparkreport"
local row, why = require("sparkreport.catalog").match { cuda = { devices = { { name = "NVIDIA H100 NVL" } } } }
return sr.scenario { title = "Recognised: " .. (row and row.id or "none") .. " by " .. why, budget_s = 15,
  sr.model { configs = 1, extra_configs = 0, steps = 2, base_hidden = 32, base_seq = 16, workloads = { "gpt2-124m" } } }
]])
f:close()

local function run(dir, tail)
  return sh(("cd %s && SPARKREPORT_CATALOG_DIR=%s %s run %s -o %s -q %s"):format(q(env.out), q(dir), q(env.bin),
            q(scenario), q(env.out .. "/reports"), tail or ""))
end
local out, rc = run(data)
if rc ~= 0 then fail("run with SPARKREPORT_CATALOG_DIR exited %d: %s", rc, out) end
local dir = out:match("^(.-)/report%.pdf\n$") or fail("no report path in %q", out)
local r = json.decode(read(dir .. "/results.json"))

-- recognised, taken in by the default systems, and recorded as the copy's catalog
if r.scenario.title ~= "Recognised: h100-nvl by GPU name 'NVIDIA H100 NVL'" then fail("title %q", r.scenario.title) end
if table.concat(r.scenario.systems, ",") ~= "dgx-spark,h100-sxm,h200-sxm,b200,h100-nvl" then
  fail("default systems %s", table.concat(r.scenario.systems, ","))
end
local sum = sh("sha256sum " .. q(data .. "/systems.csv")):match("^(%x+)")
if r.catalog.sha256 ~= sum then fail("catalog.sha256 %s, the copy's is %s", tostring(r.catalog.sha256), sum) end

-- projected on the Hopper profile with its own peak and its pair (data/fabric.csv): gpt2-124m is mostly
-- matmuls, so a GPU makes fewer tokens/s than an H100 SXM5's (989 against 835.5 TFLOP/s), by less than
-- the peaks' ratio (3.9 against 3.35 TB/s)
local model
for _, e in ipairs(r.experiments) do if e.name == "model" then model = e end end
local sys, rec = {}, {}
for _, s in ipairs(model.info.systems) do sys[s.id] = s end
for _, x in ipairs(model.results) do
  if x.series == "projection" and x.workload == "gpt2-124m" then rec[x.system] = x end
end
local nvl, sxm = rec["h100-nvl"], rec["h100-sxm"]
if not (sys["h100-nvl"] and sys["h100-nvl"].roles and sys["h100-nvl"].roles[1] == "compared") then
  fail("info.systems lacks h100-nvl with its role")
end
if not (nvl and nvl.hours and sxm and sxm.hours) then fail("gpt2-124m not projected on h100-nvl and h100-sxm") end
if nvl.extrapolated ~= false or nvl.stack ~= sxm.stack then fail("h100-nvl: stack %s, extrapolated %s", nvl.stack, tostring(nvl.extrapolated)) end
local ratio = sxm.tokens_per_s_per_gpu / nvl.tokens_per_s_per_gpu
if not (ratio > 1.01 and ratio < 989 / 835.5) or nvl.gpus ~= 2 then
  fail("h100-sxm / h100-nvl tokens/s per GPU %.4f, expected in (1.01, %.4f); %s GPUs", ratio, 989 / 835.5, tostring(nvl.gpus))
end

-- compared in the report, and drawn the same from results.json alone
if not (env.pdftotext and env.pdftotext ~= "") then return "pass" end
local text = env.plain(dir .. "/report.pdf")
local _, n = text:gsub("NVIDIA H100 NVL", "")
if n < 2 then fail("the report names the H100 NVL %d times", n) end
out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(dir .. "/results.json"), q(env.out .. "/again.pdf")))
if rc ~= 0 then fail("render without SPARKREPORT_CATALOG_DIR exited %d: %s", rc, out) end
if env.plain(env.out .. "/again.pdf") ~= text then fail("render without the copies draws another report") end

-- a bad cell in the copy: refused by file, line and value, nothing measured or written
append("systems.csv", (ROW:gsub("^h100%-nvl", "h100-nvl-2"):gsub(",hopper,132,", ",volta,132,")))
out, rc = run(data, "2>&1")
local want = data .. "/systems.csv:20: generation 'volta' is not a GPU generation the stack profiles know"
if rc == 0 or not out:find(want, 1, true) then fail("a bad generation: exit %d, %q", rc, out) end
local runs = sh("ls " .. q(env.out .. "/reports"))
local _, folders = runs:gsub("%d%d%d%d%d%d%d%dT", "")
if folders ~= 1 then fail("a refused run left a folder: %s", runs) end
return "pass"
