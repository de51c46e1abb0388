-- tests/e2e/precision.lua: a short precision run end to end: its records follow from their
-- samples, results.ceilings carries the machine's measured ceilings, GPU items say why they
-- were not measured, and the PDF's compute section shows the numbers of results.json.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q

local fail = env.fail
local read = env.read
local rate = env.rate
local function pat(s) return (s:gsub("[%.%-%+%(%)]", "%%%0")) end

local out, code = sh(("cd %s && %s run tests/scenarios/precision.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(env.out)))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
local r = json.decode(read(dir .. "/results.json"))
local p = r.experiments[2]
if p.name ~= "precision" or p.status ~= "complete" then fail("precision experiment: %s", p.status) end

local by = {}
for _, rec in ipairs(p.results) do
  by[rec.series] = (by[rec.series] or 0) + 1
  if rec.valid == false then fail("%s %s %s failed validation", rec.series, rec.device, rec.precision) end
  if rec.samples_s and rec.flops then
    local lo = math.huge
    for _, s in ipairs(rec.samples_s) do lo = math.min(lo, s) end
    local want = rec.flops / lo / 1e9
    if math.abs(rec.gflops_best - want) > 1e-9 * want then fail("gflops_best %g, samples give %g", rec.gflops_best, want) end
  end
end
for _, s in ipairs { "overhead", "peak", "gemm", "sweep", "knee", "numerics" } do
  if not by[s] then fail("no %s record", s) end
end

-- the calibration record
local c = r.ceilings
if not c or c.version ~= 1 then fail("results.ceilings missing") end
local peaks = {}
for _, pk in ipairs(c.peaks) do peaks[pk.device .. "/" .. pk.precision] = pk end
if not peaks["cpu/fp64"] or not peaks["cpu/fp32"] then fail("calibration lacks the CPU peaks") end
if #c.gemm < 4 or not c.gemm[1].efficiency then fail("calibration lacks the GEMM surface") end
if #c.bandwidth_ladder < 2 or not c.dram[1] then fail("calibration lacks the bandwidth ladder") end
if not (c.overheads.omp_parallel_region_s > 0) then fail("calibration lacks the OpenMP region cost") end
local info = json.decode(sh(q(env.bin) .. " info --json"))
local nodev = not (info.cuda and info.cuda.devices and #info.cuda.devices > 0)
if nodev and not c.overheads.kernel_launch_not_measured then fail("calibration does not say why the launch cost is missing") end

if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s -layout %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf")))   -- the technical annex
-- the section with the appendices its detail moved to
local section = text:match("Compute per precision(.*)$")
if not section then fail("PDF lacks the section 'Compute per precision'") end
for _, t in ipairs { "Sustained compute", "Roofline, CPU", "GEMM throughput against size, CPU", "Roofline knees",
                     "Numerical error per precision", "Check, FP64: FMA peak" } do
  if not section:find(t, 1, true) then fail("the section lacks %q", t) end
end
for _, rec in ipairs(p.results) do
  local row
  if rec.series == "peak" then
    row = ("CPU%%s+%s%%s+FMA chains, %d threads?%%s+%s%%s+%s"):format(rec.precision, rec.threads,
          pat(rate(rec.gflops_median)), pat(rate(rec.gflops_best)))
  elseif rec.series == "gemm" then
    row = ("%s%%s+%s%%s+%dx%dx%d%%s+%s%%s+%s"):format(rec.precision, rec.shape, rec.m, rec.n, rec.k,
          pat(rate(rec.gflops_median)), pat(rate(rec.gflops_best)))
  elseif rec.series == "knee" then
    row = ("%s%%s+%s%%s+%s%%s+%s%%s+%s%s"):format(rec.precision, pat(rec.method), pat(rate(rec.ceiling_gbps)),
          pat(rate(rec.ceiling_gflops)), rec.knee_is_lower_bound and ">= " or "", pat(rate(rec.knee_flops_per_byte)))
  elseif rec.series == "numerics" then
    row = ("%s%%s+%s.-%s%%s+%s"):format(rec.precision, rec.emulated and "emulated" or pat(rec.method .. ": "),
          pat(("%.2e"):format(rec.rel_error_fro)), pat(("%.2e"):format(rec.rel_error_max)))
  end
  if row and not section:find(row) then fail("the section lacks the %s row of %s (%s)", rec.series, rec.precision, row) end
end
if nodev then
  local reason = info.cuda.reason:gsub("^not measured: ", "")
  local first = pat(reason:match("^%S+"))                -- a wrapped cell keeps its first word
  -- or, too long for its column, the reason is a footnote under the table, its number in the cell
  local mark = section:match("GPU%s+all%s+not measured … %[(%d+)%]")
  if not section:find("GPU%s+all%s+not measured: " .. first) and
     not (mark and section:gsub("%s+", " "):find(("[%s] not measured: %s"):format(mark, reason), 1, true)) then
    fail("no GPU 'not measured' row with %q", reason)
  end
end
return "pass"
