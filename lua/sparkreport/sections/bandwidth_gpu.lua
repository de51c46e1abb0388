-- sparkreport.sections.bandwidth_gpu: the GPU part of the bandwidth section: the sweep in
-- device memory, the allocation paths side by side, host<->device transfers and CPU/GPU
-- contention, each beside the catalog figure when the machine is a catalog system. Draws
-- from the GPU bandwidth records only; "not measured" with the reason when there are none.
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local M = {}

local PATH_ORDER = { "device", "managed", "managed-prefetch", "pinned", "malloc" }

-- A measured rate and its fraction of a spec figure, as two cells of different kinds.
local function versus(gbps, spec)
  if not spec then return { text = "no catalog figure" } end
  return { text = fmt.pct(gbps / spec), kind = "measured" }
end

local function paths_table(doc, exp, row)
  local rows = {}
  for _, path in ipairs(PATH_ORDER) do
    for _, r in ipairs(R.records(exp, { alloc = path, kernel = "triad", precision = "fp64" })) do
      if r.series == "alloc" or (path == "device" and r.array_bytes * 3 >= (exp.info.largest_bytes or 0) * 0.999) then
        rows[#rows + 1] = r.valid
          and { path, { text = fmt.rate(r.gbps_best), kind = "measured" }, { text = fmt.rate(r.gbps_median), kind = "measured" },
                { text = fmt.seconds(r.first_pass_s), kind = "measured" },
                row and { text = fmt.rate(row.mem_bw_gbs), kind = "spec" } or "unknown", versus(r.gbps_best, row and row.mem_bw_gbs) }
          or { path, "not timed", "", "", "", { text = "FAILED", tone = "bad" } }
      end
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Allocation", width = 0.2 }, { title = "Triad best\nGB/s", align = "right" },
                { title = "Median\nGB/s", align = "right" }, { title = "First pass", align = "right" },
                { title = "Catalog\nGB/s", align = "right" }, { title = "Fraction of\ncatalog", align = "right" } },
    rows = rows,
    caption = "FP64 triad at the largest working set per allocation path. The first pass includes page migration "
      .. "and mapping; the best and median exclude it." .. (row and (" Catalog: " .. row.name .. ", " .. (row.sources or "")) or ""),
  }
end

local function transfers_table(doc, exp, row)
  local recs = R.records(exp, { series = "transfer" })
  if #recs == 0 then return end
  local link = row and row.cpu_gpu_link_gbs
  local rows = {}
  for _, r in ipairs(recs) do
    local spec = link and (r.direction == "bidirectional" and link or link / 2)
    rows[#rows + 1] = r.valid
      and { r.direction, r.engine, r.host_memory, { text = fmt.rate(r.gbps_best), kind = "measured" },
            { text = fmt.rate(r.gbps_median), kind = "measured" }, spec and { text = fmt.rate(spec), kind = "spec" } or "unknown" }
      or { r.direction, r.engine, r.host_memory, "not timed", "", { text = r.error or "FAILED", tone = "bad" } }
  end
  doc:table {
    columns = { { title = "Direction", width = 0.17 }, { title = "Engine", width = 0.15 }, { title = "Host\nmemory", width = 0.13 },
                { title = "Best\nGB/s", align = "right" }, { title = "Median\nGB/s", align = "right" },
                { title = "Catalog link\nGB/s", align = "right" } },
    rows = rows,
    caption = (exp.info.transfer_byte_convention or "") .. ". The catalog gives the CPU-GPU link as the total of both "
      .. "directions; one direction is compared with half of it.",
  }
end

local function contention_table(doc, exp, row)
  local r = R.records(exp, { series = "contention" })[1]
  if not r then return end
  if not r.valid then
    doc:paragraph("CPU/GPU contention: not measured: " .. (r.error or "failed"))
    return
  end
  local unified = row and row.memory and row.memory:find("unified")
  local rows = {
    { "CPU triad (" .. r.cpu_threads .. " threads)", { text = fmt.rate(r.cpu_alone_gbps), kind = "measured" },
      { text = fmt.rate(r.cpu_together_gbps), kind = "measured" } },
    { "GPU triad", { text = fmt.rate(r.gpu_alone_gbps), kind = "measured" }, { text = fmt.rate(r.gpu_together_gbps), kind = "measured" } },
    { "Both at once", "", { text = fmt.rate(r.sum_together_gbps), kind = "measured" } },
  }
  if row then
    rows[#rows + 1] = { unified and (row.name .. ": the one shared pool") or (row.name .. ": GPU memory"), "",
                        { text = fmt.rate(row.mem_bw_gbs), kind = "spec" } }
  end
  doc:table {
    columns = { { title = "Stream", width = 0.45 }, { title = "Alone\nGB/s", align = "right" }, { title = "Together\nGB/s", align = "right" } },
    rows = rows,
    caption = ("Each side streams for %s, first alone, then both at once. On a machine whose CPU and GPU share one "
      .. "memory pool (a DGX Spark) the sum is bounded by that pool; with HBM the GPU's memory is its own.")
      :format(fmt.seconds(r.window_s)),
  }
end

function M.part(doc, results, exp, shared)
  doc:section("GPU memory bandwidth", 2)
  local info = exp.info or {}
  if #(exp.results or {}) == 0 then
    doc:paragraph("Not measured: " .. (info.reason or "no GPU result in this run") .. ".")
    shared.skipped(doc, exp)
    return
  end
  local row = R.catalog_row(results)
  doc:paragraph(("Device: %s, L2 %s. Kernels as on the CPU, with 16-byte vector loads over a grid sized by the "
    .. "occupancy API, timed with CUDA events after warm-up and validated on the device against the same reference. "
    .. "The sweep runs in device memory (cudaMalloc); the other allocation paths at the largest working set, %s.")
    :format(info.gpu_name or "?", fmt.bytes(info.l2_bytes or 0), fmt.bytes(info.largest_bytes or 0)))
  shared.size_charts(doc, exp)
  shared.top_table(doc, exp)
  paths_table(doc, exp, row)
  transfers_table(doc, exp, row)
  contention_table(doc, exp, row)
  shared.skipped(doc, exp)
end

return M
