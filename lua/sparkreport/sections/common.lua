-- sparkreport.sections.common: the sections every template shares: title page, summary
-- (the answer in a few sentences, with each figure's kind), and the appendix (environment,
-- catalog sources, scenario source and the command that reruns it). Draws from results only.
local calibration = require "sparkreport.calibration"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local S = {}

local function cpu_line(ctx)
  local c = ctx.cpu or {}
  return ("%s, %d logical CPUs, %s memory"):format(c.model or "unknown CPU", c.logical_cpus or 0,
    ctx.memory and ctx.memory.total_bytes and fmt.bytes(ctx.memory.total_bytes) or "unknown")
end

local function gpu_line(ctx)
  local cu = ctx.cuda or {}
  if cu.devices and #cu.devices > 0 then
    local names = {}
    for _, d in ipairs(cu.devices) do names[#names + 1] = d.name .. " (sm_" .. d.compute_capability:gsub("%.", "") .. ")" end
    return table.concat(names, ", ")
  end
  return "none measured: " .. (cu.reason or "unknown reason")
end

function S.title(doc, results)
  local scn, ctx = results.scenario or {}, results.context or {}
  doc:title(scn.title or "sparkreport", "What this machine's memory and compute mean for training time")
  if results.status ~= "complete" then
    doc:notice(("PARTIAL RUN: %s. Figures cover only what was measured before it stopped.")
               :format(results.status_reason or results.status), "bad")
  end
  local match = results.catalog and results.catalog.match
  local lines = {
    { "Machine", ctx.host or "unknown" },
    { "CPU", cpu_line(ctx) },
    { "GPU", gpu_line(ctx) },
    { "Catalog match", match and (R.catalog_row(results, match).name .. " (" .. results.catalog.match_reason .. ")")
                       or ("this machine: " .. (results.catalog and results.catalog.match_reason or "not matched")) },
    { "Run", ("%s to %s (%s)"):format(results.started_utc or "?", results.finished_utc or "?",
                                      fmt.duration(results.elapsed_s or 0)) },
    { "Scenario", ("%s (%s), sha256 %s"):format(scn.name or "?", scn.path or "?", (scn.sha256 or "?"):sub(1, 16)) },
    { "Tool", ("sparkreport %s (git %s)"):format(ctx.tool and ctx.tool.version or "?", ctx.tool and ctx.tool.git or "?") },
  }
  doc:table { columns = { { title = "", width = 0.2 }, { title = "" } }, rows = lines }
  doc:header(scn.title or "sparkreport")
end

local function fraction_text(results, head, dram)
  local match = results.catalog and results.catalog.match
  if not match then
    return "This machine matches no system of the catalog (" .. (results.catalog and results.catalog.match_reason or "")
           .. "), so no fraction of a catalog figure is given."
  end
  local row = R.catalog_row(results, match)
  local bw = catalog.cpu_bandwidth(row)
  if not bw then
    return ("This machine is a %s; the catalog gives no figure for the memory its CPU streams from."):format(row.name)
  end
  return ("This machine is a %s. Its catalog memory bandwidth is %s GB/s (spec; source: %s); the measured "
          .. "%s reaches %s of it."):format(row.name, fmt.rate(bw), row.sources or "catalog",
          dram and "DRAM bandwidth" or "triad", fmt.pct((dram and dram.gbps or head.gbps_best) / bw))
end

-- The model's sentence: its validation error here and one workload on the Spark beside the H100.
local function model_text(results)
  for _, e in ipairs(R.experiments(results, "model")) do
    local info = e.info or {}
    local v, names, recs = info.validation, {}, {}
    for _, s in ipairs(info.systems or {}) do names[s.id] = s.name end
    for _, r in ipairs(R.records(e, { series = "projection" })) do
      if r.hours then recs[r.workload .. "|" .. r.system] = r end
    end
    local function hours(r)
      return ("%s h (%s to %s h)"):format(fmt.rate(r.hours), fmt.rate(r.hours_low), fmt.rate(r.hours_high))
    end
    for _, w in ipairs(v and info.workloads or {}) do
      local a, b = recs[w.id .. "|dgx-spark"], recs[w.id .. "|h100-sxm"]
      if a and b then
        return ("Projected by the training-time model, which predicted %d of this machine's own training "
          .. "configurations with a mean error of %.2f %% (max %.2f %%): %s would take about %s on the %s and %s "
          .. "on the %s."):format(v.n, 100 * v.mean_abs_error, 100 * v.max_abs_error, w.name, hours(a),
          names["dgx-spark"] or "dgx-spark", hours(b), names["h100-sxm"] or "h100-sxm")
      end
    end
  end
end

function S.summary(doc, results)
  doc:section("Summary")
  local head = R.headline(results)
  if not head then
    doc:paragraph("Not measured: no CPU bandwidth result validated in this run, so there is no headline figure.")
    if model_text(results) then doc:paragraph(model_text(results)) end
    return
  end
  local exp = select(2, R.headline(results))
  doc:paragraph(("Measured on this run: the CPU sustains %s GB/s on the %s kernel (%s, %d threads; best of %d "
    .. "repetitions, median %s GB/s, CV %s) at a working set of %s."):format(fmt.rate(head.gbps_best), head.kernel,
    head.precision, head.threads, #head.samples_s, fmt.rate(head.gbps_median), fmt.cv(head.time_s.cv),
    fmt.bytes(head.working_set_bytes)))
  local thr = exp.info and exp.info.dram_threshold_bytes
  if thr and head.array_bytes * 3 < thr * 0.999 then
    doc:paragraph(("This working set is below the DRAM-sized threshold of %s (each array 4x all caches), "
      .. "so the figure may include cache effects."):format(fmt.bytes(thr)), "note")
  end
  local dram = calibration.dram(results, "cpu")
  if dram then
    doc:paragraph(("This machine's DRAM bandwidth, the one figure the report divides by: %s GB/s, the %s. Rule: %s.")
      :format(fmt.rate(dram.gbps), calibration.dram_text(dram), dram.rule))
  end
  doc:paragraph(fraction_text(results, head, dram))
  local ghead, gexp = R.gpu_headline(results)
  if ghead then
    local row = R.catalog_row(results)
    doc:paragraph(("Measured on this run: the GPU (%s) sustains %s GB/s on the triad kernel in device memory (FP64, "
      .. "best of %d repetitions, median %s GB/s) at a working set of %s%s."):format(gexp.info.gpu_name or "?",
      fmt.rate(ghead.gbps_best), #ghead.samples_s, fmt.rate(ghead.gbps_median), fmt.bytes(ghead.working_set_bytes),
      row and row.mem_bw_gbs and ("; that is %s of its catalog memory bandwidth, %s GB/s (spec)")
        :format(fmt.pct(ghead.gbps_best / row.mem_bw_gbs), fmt.rate(row.mem_bw_gbs)) or ""))
  end
  if model_text(results) then doc:paragraph(model_text(results)) end
  S.comparison(doc, results, head, ghead, dram)
end

-- This machine's measured figure beside the catalog's spec figures, kinds marked per cell.
function S.comparison(doc, results, head, ghead, dram)
  local rows = { { "This machine (CPU triad)", { text = fmt.rate(head.gbps_best), kind = "measured" },
                   { text = ("%.0f GB"):format(results.context.memory.total_bytes / 1e9), kind = "measured" } } }
  if dram then
    table.insert(rows, 1, { "This machine (CPU DRAM bandwidth)", { text = fmt.rate(dram.gbps), kind = "measured" }, "" })
  end
  if ghead then
    rows[#rows + 1] = { "This machine (GPU triad)", { text = fmt.rate(ghead.gbps_best), kind = "measured" }, "" }
  end
  local sources = {}
  for _, r in ipairs(results.catalog.rows or {}) do
    rows[#rows + 1] = { r.name, { text = r.mem_bw_gbs and fmt.rate(r.mem_bw_gbs) or "unknown", kind = "spec" },
                        { text = r.memory_gb and (r.memory_gb .. " GB " .. (r.memory or "")) or "unknown", kind = "spec" } }
    sources[#sources + 1] = r.id .. ": " .. (r.sources or "no source")
  end
  doc:table {
    columns = { { title = "System", width = 0.42 }, { title = "Memory bandwidth\n(GB/s)", align = "right", width = 0.2 },
                { title = "Memory", align = "right" } },
    rows = rows,
    caption = "Spec figures from the catalog (" .. (results.catalog.source or "") .. "); sources: "
              .. table.concat(sources, "; ") .. ".",
  }
end

local function flatten(prefix, v, out)
  if type(v) == "table" then
    if #v > 0 and type(v[1]) ~= "table" then
      local parts = {}
      for _, x in ipairs(v) do parts[#parts + 1] = tostring(x) end
      out[#out + 1] = { prefix, table.concat(parts, ", ") }
      return
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do
      flatten(prefix == "" and tostring(k) or (prefix .. "." .. tostring(k)), v[k], out)
    end
  else
    out[#out + 1] = { prefix, tostring(v) }
  end
end

-- A word as a POSIX shell reads it back (the rule main.c records the command line with).
local function shell_word(w)
  if w ~= "" and not w:find("[^%w_@%%+=:,./-]") then return w end
  return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- The command that reruns the scenario as it ran: from the folder it ran in, with the OpenMP and
-- BLAS variables it ran with, and its command line as given (--set overrides included).
local function rerun_command(results)
  local scn, ctx = results.scenario or {}, results.context or {}
  local parts, envs, names = {}, ctx.build and ctx.build.openmp_env or {}, {}
  if scn.cwd then parts[#parts + 1] = "cd " .. shell_word(scn.cwd) .. " &&" end
  for k in pairs(envs) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do parts[#parts + 1] = k .. "=" .. shell_word(tostring(envs[k])) end
  parts[#parts + 1] = scn.command or ("sparkreport run " .. shell_word(scn.path or "?"))
  return table.concat(parts, " ")
end

function S.appendix(doc, results)
  doc:section("Appendix")
  doc:section("Environment", 2)
  local rows = {}
  flatten("", results.context or {}, rows)
  doc:table { columns = { { title = "Item", width = 0.35 }, { title = "Value" } }, rows = rows }
  doc:section("Catalog sources", 2)
  local crow = {}
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do
    crow[#crow + 1] = { r.id, r.confidence or "", r.sources or "", r.notes or "" }
  end
  doc:table { columns = { { title = "System", width = 0.15 }, { title = "Confidence", width = 0.12 },
                          { title = "Sources", width = 0.35 }, { title = "Notes" } }, rows = crow,
              caption = ("Catalog %s, sha256 %s."):format(results.catalog and results.catalog.source or "?",
                                                           results.catalog and results.catalog.sha256 or "?") }
  doc:section("Kinds of numbers", 2)
  doc:paragraph("Every figure is measured (on this run, on this machine, with its statistics), spec (a vendor or "
    .. "published figure, with its catalog source), or projected (output of the model, with a low/high band). "
    .. "Tables that mix kinds mark each figure: m measured, s spec, p projected.")
  doc:section("Scenario", 2)
  local scn = results.scenario or {}
  doc:paragraph(("Rerun with: %s"):format(rerun_command(results)), "mono")
  doc:paragraph(("The command expects the scenario file %s with sha256 %s, whose source follows; if the file "
    .. "has changed since, save this source and run it instead. OpenMP and BLAS variables not named in the "
    .. "command were unset (the environment table lists them under build.openmp_env)."):format(scn.path or "?",
    scn.sha256 or "?"))
  doc:code(scn.source or "")
end

return S
