-- tests/e2e/precision_gpu_render.lua: the GPU half of the compute section, drawn from a results
-- file into which this test writes precision records shaped like a run on an H200 (synthetic
-- values, used only here: this machine may have no GPU, and the drawing code must be exercised
-- all the same). Checks the catalog's dense peaks and fractions, the spec roofline and knee, a
-- format the device refused, and the numerics row of a cuBLASLt GEMM.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q
local fail = env.fail
local read = env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local out, code = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(env.out .. "/r")))
if code ~= 0 then fail("run: %s", out) end
local r = json.decode(read(env.out .. "/r/latest/results.json"))

local function timed(t)
  t.valid, t.samples_s, t.time_s = true, { 0.01, 0.011, 0.012 }, { cv = 0.01, min = 0.01, median = 0.011 }
  return t
end
local recs = {
  timed { series = "gemm", device = "gpu", precision = "bf16", shape = "square", m = 8192, n = 8192, k = 8192,
          gflops_median = 700000, gflops_best = 720000, flops_per_byte = 2730 },
  timed { series = "gemm", device = "gpu", precision = "fp8", shape = "square", m = 8192, n = 8192, k = 8192,
          gflops_median = 1300000, gflops_best = 1350000, flops_per_byte = 4096 },
  timed { series = "sweep", device = "gpu", precision = "fp32", method = "fma-chain", k = 1, flops_per_byte = 0.75,
          gflops_median = 3000, gflops_best = 3100 },
  timed { series = "sweep", device = "gpu", precision = "fp32", method = "fma-chain", k = 1024, flops_per_byte = 512,
          gflops_median = 50000, gflops_best = 51000 },
  timed { series = "sweep", device = "gpu", precision = "bf16", method = "gemm-k", k = 16, flops_per_byte = 15,
          gflops_median = 60000, gflops_best = 62000 },
  { series = "knee", device = "gpu", precision = "bf16", method = "gemm-k", ceiling_gbps = 4133, ceiling_gflops = 62000,
    knee_flops_per_byte = 15 },
  { series = "numerics", device = "gpu", precision = "bf16", method = "cuBLASLt", algo = "cuBLASLt algo 66 tile 20",
    emulated = false, m = 256, n = 256, k = 1024, rel_error_fro = 0.00271, rel_error_max = 0.000612, error_bound = 0.01,
    within_bound = true },
  timed { series = "overhead", device = "gpu", what = "kernel_launch", seconds_median = 2.5e-6 },
}
local reason = "unsupported on this device (NVIDIA H200, sm_90): cuBLASLt answered CUBLAS_STATUS_NOT_SUPPORTED to cublasLtMatmulAlgoGetHeuristic"
table.insert(r.experiments, { name = "precision", device = "all", status = "complete", params = { cv = 0.02 },
  info = { model = "GPT-2 small", tokens = 1024, hidden = 768, vocab = 50257 }, results = recs,
  skipped = { { item = "GPU GEMM nvfp4", reason = reason } } })
table.insert(r.experiments, { name = "bandwidth", device = "gpu", status = "complete", params = { device = "gpu" }, skipped = {},
  info = { gpu_name = "NVIDIA H200", l2_bytes = 50331648, largest_bytes = 2 ^ 30 },
  results = { timed { series = "size", kernel = "read", precision = "fp64", alloc = "device", array_bytes = 2 ^ 30,
                      working_set_bytes = 2 ^ 30, gbps_best = 4300, gbps_median = 4250 } } })
r.context.cuda.devices = { { name = "NVIDIA H200", compute_capability = "9.0" } }
r.catalog.match, r.catalog.match_reason = "h200-sxm", "GPU name 'NVIDIA H200'"
local f = assert(io.open(env.out .. "/h200.json", "wb")); f:write(json.encode(r)); f:close()

local msg, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(env.out .. "/h200.json"), q(env.out .. "/h200.pdf")))
if rc ~= 0 then fail("render: %s", msg) end
local text = sh(("%s -layout %s -"):format(q(env.pdftotext), q(env.out .. "/h200-annex.pdf")))   -- the machine's annex
-- the section with the appendices its detail moved to
local section = text:match("Compute per precision(.*)$") or fail("no compute section")
local C = "[^\n]-"                    -- the rest of a cell on the same line (kind markers m, s)
local want = {
  "GPU%s+bf16%s+sustained GEMM rate: square" .. C .. "700,000" .. C .. "720,000" .. C .. "989,000" .. C .. "70%.8 %%",  -- of 989 TFLOPS
  "GPU%s+fp8%s+sustained GEMM rate: square" .. C .. "1,300,000" .. C .. "1,350,000" .. C .. "1,979,000" .. C .. "65%.7 %%",
  "GPU%s+nvfp4%s+not measured … %[%d+%]",    -- the long reason is a footnote under the table
  "Roofline, GPU: measured ceilings, sweep points %(best repetition%), spec dashed",
  "Bandwidth ceiling 4,300 GB/s: read kernel in FP64",
  "GPU%s+bf16%s+gemm%-k" .. C .. "4,133" .. C .. "62,000" .. C .. "15%.0" .. C .. "163" .. C .. "206",  -- 700000/4300, 989000/4800
  "GPU%s+bf16%s+cuBLASLt: cuBLASLt algo 66" .. C .. "2%.71e%-03" .. C .. "6%.12e%-04",
  "an empty CUDA kernel launch costs 2%.5 µs",
}
for _, p in ipairs(want) do
  if not section:find(p) then fail("the section lacks %s", p) end
end
local mark = section:match("GPU%s+nvfp4%s+not measured … %[(%d+)%]")
if not section:gsub("%s+", " "):find(("[%s] not measured: %s"):format(mark, reason), 1, true) then
  fail("the section lacks footnote [%s] with %q", mark, reason)
end
return "pass"
