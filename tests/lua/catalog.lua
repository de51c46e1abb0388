-- tests/lua/catalog.lua: the embedded catalog parses (quoted fields, empty cells unknown),
-- machines match a row only when they are that system, the memory units, and the CPU-side
-- bandwidth rule.
local catalog = require "sparkreport.catalog"

local cat = catalog.load()
assert(#cat.rows == 17, "rows: " .. #cat.rows)
local spark = catalog.find("dgx-spark")
assert(spark.name == "NVIDIA DGX Spark (GB10)")
assert(spark.mem_bw_gbs == 273 and spark.memory_gb == 128)
assert(spark.fp64_tflops == nil, "an empty cell is unknown, not zero")
assert(spark.notes:find("One memory pool shared by CPU and GPU", 1, true))   -- quoted, with commas
assert(catalog.find("h100-sxm").bf16_tflops == 989)
assert(#cat.sha256 == 64)
-- memory_unit: every row says GiB or GB; HBM parts GiB, the Spark's one pool GB (data/README.md)
for _, r in ipairs(cat.rows) do
  assert(r.memory_unit == "GiB" or r.memory_unit == "GB", r.id .. ": memory_unit " .. tostring(r.memory_unit))
end
assert(catalog.find("h100-sxm").memory_unit == "GiB" and catalog.find("h200-sxm").memory_unit == "GiB")
assert(catalog.find("a100-80g-sxm").memory_unit == "GiB" and spark.memory_unit == "GB")

local function ctx(gpu, cpu, ncpu, board)
  return { cuda = { devices = gpu and { { name = gpu } } or {} }, cpu = { model = cpu or "AMD EPYC", logical_cpus = ncpu or 2 },
           os = { board = { product = board } } }
end
assert(catalog.match(ctx("NVIDIA GB10")).id == "dgx-spark")
assert(catalog.match(ctx(nil, "10x Cortex-X925 + 10x Cortex-A725", 20)).id == "dgx-spark")
assert(catalog.match(ctx(nil, "10x Cortex-X925 + 10x Cortex-A725", 8)) == nil, "not 20 cores: not a Spark")
assert(catalog.match(ctx(nil, nil, nil, "NVIDIA DGX Spark")).id == "dgx-spark")
assert(catalog.match(ctx("NVIDIA H200")).id == "h200-sxm")
assert(catalog.match(ctx("NVIDIA H200 NVL")) == nil, "H200 NVL is not in the catalog")
assert(catalog.match(ctx("NVIDIA GH200 480GB")).id == "gh200-96g")
assert(catalog.match(ctx("NVIDIA H100 80GB HBM3")).id == "h100-sxm")
local row, why = catalog.match(ctx())
assert(row == nil and why == "no catalog system has this machine's GPU or CPU (CPU: AMD EPYC; GPU: none)", why)

assert(catalog.cpu_bandwidth(spark) == 273, "unified memory: the one pool")
assert(catalog.cpu_bandwidth(catalog.find("gh200-144g")) == 512, "Grace side")
assert(catalog.cpu_bandwidth(catalog.find("h100-sxm")) == nil, "host memory unknown")

local ok, err = catalog.check_ids({ "dgx-spark", "h300" })
assert(not ok and err:find("^unknown catalog system 'h300' in 'systems' %(valid: dgx%-spark, "), err)
