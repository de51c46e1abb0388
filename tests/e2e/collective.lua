-- tests/e2e/collective.lua: the collective experiment across two ranks on this machine (mpirun
-- -np 2: shared memory and TCP over loopback): every record checked and its rates following
-- nccl-tests' formulas from its samples, the job in the context, only rank 0 writing (one run
-- folder, nothing in the ranks' working folder, one line on stdout, nothing on stderr), and the
-- PDF showing the measured curves' numbers. Device buffers (NCCL): measured with the NCCL version as
-- transport where the build has NCCL and the ranks GPUs, else "not measured" with the CUDA driver's
-- words (or why the build has no CUDA or NCCL). Skips without MPI in the build or mpirun.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local config = read(env.builddir .. "/config.h")
local launch, why = env.mpi(2)
if not launch then return "skip", why end

local cwd, reports = env.out .. "/cwd", env.out .. "/reports"
sh("mkdir -p " .. q(cwd))
local out, code = sh(("cd %s && %s %s run %s -o %s -q 2>%s"):format(q(cwd), launch, q(env.bin),
  q(env.srcdir .. "/tests/scenarios/collective.lua"), q(reports), q(env.out .. "/stderr")))
if code ~= 0 then fail("mpirun exited %d: %s %s", code, out, read(env.out .. "/stderr")) end
local dir = out:match("^(.-)/report%.pdf\n$")
if not dir then fail("stdout is not one report path (rank 1 printed?): %q", out) end
if read(env.out .. "/stderr") ~= "" then fail("stderr not empty: %s", read(env.out .. "/stderr")) end
if sh("ls -A " .. q(cwd)) ~= "" then fail("a rank wrote into its working folder: %s", sh("ls -A " .. q(cwd))) end
local entries = sh("ls -A " .. q(reports))
if select(2, entries:gsub("\n", "")) ~= 2 or not entries:find("latest", 1, true) then fail("reports/ holds: %s", entries) end

local r = json.decode(read(dir .. "/results.json"))
local mpi = r.context.mpi
if not mpi or mpi.ranks ~= 2 or #mpi.hosts ~= 2 or mpi.hosts_count ~= 1 or not mpi.launcher:find("Open MPI", 1, true)
   or not mpi.transport:find("shared memory", 1, true) then
  fail("context.mpi: %s", json.encode(mpi or {}))
end
local e = r.experiments[1]
if e.name ~= "collective" or e.status ~= "complete" then fail("collective: %s %s", e.status, tostring(e.error)) end
-- the device buffers: records through NCCL, or one skip saying why not (the driver's own words)
local ndevice, device_skip = 0, nil
for _, s in ipairs(e.skipped) do if s.item == "device buffers (NCCL)" then device_skip = s.reason end end
local cuda = r.context.cuda or {}
local want_skip = cuda.status ~= "device" and ("not measured: " .. tostring(cuda.reason):gsub("^not measured: ", ""))
  or not config:find("#define HAVE_NCCL 1", 1, true) and "not measured: this build has no NCCL (" or nil
if want_skip and (not device_skip or device_skip:sub(1, #want_skip) ~= want_skip) then
  fail("device buffers: skip reason %q, want %q", tostring(device_skip), want_skip)
end
if not want_skip and device_skip then fail("device buffers not measured with a device and NCCL: %s", device_skip) end
local FACTOR = { ["ping-pong"] = 1, ["all-reduce"] = 1, ["all-gather"] = 0.5, ["reduce-scatter"] = 0.5 }  -- n = 2
local seen = {}
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.abs(b) end
for _, rec in ipairs(e.results) do
  if rec.valid ~= true then fail("%s %d B failed its check: %s", rec.op, rec.bytes, tostring(rec.error)) end
  local host = rec.transport == "MPI" and rec.buffers == "host"
  local device = rec.buffers == "device" and tostring(rec.transport):find("^NCCL %d+%.%d+%.%d+$")
  if rec.ranks ~= 2 or not (host or device) then fail("%s: ranks/transport/buffers", rec.op) end
  if device then ndevice = ndevice + 1 end
  local med = rec.time_s.median / (rec.op == "ping-pong" and 2 or 1)
  if not near(rec.gbps_alg, rec.bytes / med / 1e9) then fail("%s %d B: algbw is not bytes / time", rec.op, rec.bytes) end
  if not near(rec.gbps_bus, rec.gbps_alg * FACTOR[rec.op]) then fail("%s %d B: busbw factor", rec.op, rec.bytes) end
  if rec.op == "ping-pong" and not near(rec.latency_s, med) then fail("ping-pong latency is not half the round trip") end
  if #rec.samples_s < 2 then fail("%s %d B: %d samples", rec.op, rec.bytes, #rec.samples_s) end
  seen[rec.op] = true
end
for op in pairs(FACTOR) do if not seen[op] then fail("no %s record was measured", op) end end
if want_skip and ndevice > 0 then fail("%d device records beside the skip %q", ndevice, device_skip) end
if not want_skip and (ndevice == 0 or not tostring(mpi.transport_device):find("^NCCL ")) then
  fail("device buffers: %d records, context transport_device %s", ndevice, tostring(mpi.transport_device))
end
if not e.info.formulas["all-reduce"].busbw:find("2(n-1)/n", 1, true) then fail("the all-reduce formula is not stated") end

if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s -layout %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf")))   -- the technical annex
for _, want in ipairs { "Beyond one box: collectives and scale-out", "2 ranks on 1 host, started by Open MPI",
                        "Bus bandwidth against buffer size", "busbw = algbw x 2(n-1)/n" } do
  if not text:find(want, 1, true) then fail("PDF lacks %q", want) end
end
local rec = e.results[#e.results]
local function lit(s) return (s:gsub("%p", "%%%0")) end
local function gbps(x) return x < 0.01 and ("%.2g"):format(x) or env.rate(x) end   -- the section's rule
local row = ("%s%s%%s+[%%d.]+ ?[KMG]?i?B%%s+[%%d.]+ %%S+%%s+%s%%s+%s\n"):format(lit(rec.op), rec.buffers == "device" and " %(device%)" or "",
  lit(gbps(rec.gbps_alg)), lit(gbps(rec.gbps_bus)))
if not text:find(row) then fail("PDF lacks the row of %s with %s / %s GB/s", rec.op, gbps(rec.gbps_alg), gbps(rec.gbps_bus)) end
return "pass"
