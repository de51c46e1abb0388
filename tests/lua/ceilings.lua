-- tests/lua/ceilings.lua: the machine's measured ceilings are assembled from the precision and
-- bandwidth records as they are (synthetic records, values chosen to make the arithmetic
-- checkable): the sustained peak is the FMA kernel on all threads where there is one and the best
-- GEMM otherwise, GEMM efficiency is relative to that peak, the DRAM ceiling is the read kernel at
-- the largest working set, and a launch cost that was not measured says why.
local ceilings = require "sparkreport.ceilings"

local function timed(t)
  t.valid, t.samples_s, t.time_s = true, { 1, 1 }, { cv = 0.01, min = 1, median = 1 }
  return t
end

local prec = {
  timed { series = "peak", device = "cpu", precision = "fp64", threads = 1, isa = "avx512f", gflops_median = 50, gflops_best = 52 },
  timed { series = "peak", device = "cpu", precision = "fp64", threads = 2, isa = "avx512f", gflops_median = 90, gflops_best = 100 },
  timed { series = "gemm", device = "cpu", precision = "fp64", shape = "square", m = 64, n = 64, k = 64, gflops_median = 45, gflops_best = 50 },
  timed { series = "gemm", device = "cpu", precision = "fp64", shape = "lm-head", m = 8, n = 8, k = 8, gflops_median = 30, gflops_best = 31 },
  timed { series = "gemm", device = "gpu", precision = "bf16", shape = "square", m = 8192, n = 8192, k = 8192, gflops_median = 7e5, gflops_best = 7.1e5 },
  timed { series = "gemm", device = "gpu", precision = "bf16", shape = "square", m = 256, n = 256, k = 256, gflops_median = 7e4, gflops_best = 8e4 },
  { series = "gemm", device = "cpu", precision = "fp32", shape = "square", m = 64, n = 64, k = 64, valid = false },
  { series = "knee", device = "cpu", precision = "fp64", method = "fma-chain", ceiling_gbps = 20, ceiling_gflops = 90, knee_flops_per_byte = 4.5 },
  timed { series = "overhead", device = "cpu", what = "omp_parallel_region", threads = 2, seconds_median = 2e-6 },
}
local bw = {}
for i, size in ipairs { 1e6, 1e9 } do
  for _, k in ipairs { "triad", "read" } do
    bw[#bw + 1] = { series = "size", kernel = k, precision = "fp64", threads = 2, working_set_bytes = size, valid = true,
                    gbps_best = (k == "read" and 30 or 25) / i, gbps_median = (k == "read" and 29 or 24) / i }
  end
end
local doc = { experiments = {
  { name = "bandwidth", device = "cpu", status = "complete", results = bw, skipped = {} },
  { name = "precision", device = "all", status = "complete", results = prec,
    skipped = { { item = "GPU kernel launch cost", reason = "no CUDA device: test" } } },
} }

local c = ceilings.build(doc)
assert(c.version == 1 and c.kind == "measured")
local peaks = {}
for _, p in ipairs(c.peaks) do peaks[p.device .. "/" .. p.precision] = p end
assert(peaks["cpu/fp64"].gflops == 90 and peaks["cpu/fp64"].gflops_best == 100, "all threads, not one, not a GEMM")
assert(peaks["cpu/fp64"].method:find("2 threads", 1, true))
assert(peaks["gpu/bf16"].gflops == 7e5 and peaks["gpu/bf16"].method:find("8192x8192x8192", 1, true), "best GEMM")
assert(peaks["cpu/fp32"] == nil, "a GEMM that failed validation is no peak")
assert(#c.gemm == 4)
for _, g in ipairs(c.gemm) do
  if g.device == "cpu" and g.shape == "square" then assert(g.efficiency == 45 / 90) end
  if g.device == "gpu" and g.m == 256 then assert(g.efficiency == 0.1) end
end
assert(#c.bandwidth_ladder == 4)
assert(#c.dram == 1 and c.dram[1].kernel == "read" and c.dram[1].working_set_bytes == 1e9 and c.dram[1].gbps_best == 15)
assert(ceilings.dram(doc, "cpu").gbps_best == 15 and ceilings.dram(doc, "gpu") == nil)
assert(c.knees[1].knee_flops_per_byte == 4.5)
assert(c.overheads.omp_parallel_region_s == 2e-6)
assert(c.overheads.kernel_launch_not_measured == "no CUDA device: test" and c.overheads.kernel_launch_s == nil)
assert(#c.not_measured == 1)

-- one sustained GEMM rate per device and precision: the fastest GEMM of the run, best repetition,
-- the model calibration's matmul ceiling among them (re-measured: said so)
local g = ceilings.gemm_rate(doc, "cpu", "fp64")
assert(g.gflops == 50 and g.m == 64 and g.source:find("precision experiment", 1, true))
local cr = {}
for _, r in ipairs(c.gemm_rates) do cr[r.device .. "/" .. r.precision] = r end
assert(cr["cpu/fp64"].gflops == 50 and cr["gpu/bf16"].gflops == 7.1e5 and cr["cpu/fp32"] == nil)
local withmodel = { experiments = { doc.experiments[1], doc.experiments[2],
  { name = "model", device = "cpu", status = "complete", results = {},
    info = { calibration = { device = "cpu", peak_flops = { fp64 = 60e9 }, peak_gemm = { m = 1, n = 2, k = 3, family = "model" },
                             remeasured = { m = 4, n = 5, k = 6 } } } } } }
g = ceilings.gemm_rate(withmodel, "cpu", "fp64")
assert(g.gflops == 60 and g.m == 4 and g.remeasured and g.source == "the model's calibration, re-measured")

-- the DRAM ceilings: the bandwidth experiment's info.dram, its read ceiling raised by a later
-- experiment's faster read (compression's weight stream)
local dd = { experiments = {
  { name = "bandwidth", device = "cpu", results = {}, info = { dram = { gbps = 50, kernel = "copy", read_gbps = 40,
    ceilings = { { mix = "read", read_share = 1, gbps = 40, kernel = "read" }, { mix = "write", read_share = 0, gbps = 30 } },
    write_allocate = { shown = false, counted = "once", evidence = "e", counters = "c" } } } },
  { name = "compress", device = "cpu", results = {}, info = { dram = { gbps = 50, kernel = "copy", read_gbps = 44,
    read_raised = "raised from 40 to 44 GB/s by the compression experiment's gemv of its fp32 matrix",
    ceilings = { { mix = "read", read_share = 1, gbps = 44, kernel = "read", precision = "fp32" },
                 { mix = "write", read_share = 0, gbps = 30 } } } } } } }
local d = ceilings.dram(dd, "cpu")
assert(d.read_gbps == 44 and ceilings.read_ceiling(d) == 44 and d.gbps == 50 and d.read_raised:find("raised from 40"))
assert(#d.ceilings == 2 and d.ceilings[1].gbps == 44 and d.ceilings[2].read_share == 0)
assert(ceilings.counted_text(d):find("^once %(e; hardware counters: c%)"))
