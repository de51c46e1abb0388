-- sparkreport.sections.common: the sections every template shares: title page, summary
-- (the answer in a few sentences, with each figure's kind), the decision report's appendix
-- (catalog sources) and the technical annex's title and appendix (environment, scenario source
-- and the command that reruns it), each opening with the list of its appendices and their pages.
-- Draws from results only.
local ceilings = require "sparkreport.ceilings"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}
local machine_table

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

-- Who a document is for and what made it, as it is filed: "Prepared for one ML team", the run
-- (its folder's name, the date it finished), the tool (version and commit).
function S.filing(results)
  local scn, tool = results.scenario or {}, (results.context or {}).tool or {}
  local team = type(scn.team_name) == "string" and scn.team_name ~= "" and scn.team_name or "one ML team"
  local date = type(results.finished_utc) == "string" and results.finished_utc:sub(1, 10) or "an unknown date"
  return { team = team, run = scn.run_folder or "unrecorded", date = date,
           tool = ("%s %s (%s)"):format(tool.name or "sparkreport", tool.version or "?", tool.git or "commit unknown") }
end

-- The running footer of both documents: for whom, which run, which tool.
function S.footer(results)
  local f = S.filing(results)
  return ("Prepared for %s · run %s, %s · %s"):format(f.team, f.run, f.date, f.tool)
end

-- The report's first lines: its title (the scenario's, unless `title` is given), and a partial
-- run said before any figure; the running header and footer.
function S.title_block(doc, results, subtitle, title)
  local scn = results.scenario or {}
  title = title or scn.title or "sparkreport"
  doc:title(title, subtitle or "What this machine's memory and compute mean for training time")
  if results.status ~= "complete" then
    doc:notice(("PARTIAL RUN: %s. Figures cover only what was measured before it stopped.")
               :format(results.status_reason or results.status), "bad")
  end
  doc:header(title)
  doc:footer(S.footer(results))
end

-- The decision report's title: the question it answers, for whom (the scenario's team_name).
function S.decision_title(results)
  local team = (results.scenario or {}).team_name
  return ("DGX Spark or HBM GPUs for %s: training cost and time"):format(type(team) == "string" and team ~= ""
                                                                       and team or "one ML team")
end

-- The technical annex's first page: what it holds, and which document it backs.
function S.annex_title(doc, results)
  local scn = results.scenario or {}
  S.title_block(doc, results, ("%s. Run %s on %s."):format(scn.title or "sparkreport", results.finished_utc or "?",
                               (results.context or {}).host or "this machine"),
                "Technical annex: the machine that ran the decision report")
  doc:paragraph(("This annex backs the decision report drawn from the same run (report.pdf, \"%s\"). It holds what "
    .. "the run measured on the machine that ran it (memory bandwidth, compute per precision, training steps, "
    .. "compression), how the training-time model was calibrated on those measurements and checked against this "
    .. "machine's own training runs and against published GPU runs, every workload on every catalog system, "
    .. "scale-out, the environment, and the command that reruns the scenario. The decision report cites it by page "
    .. "where it relies on it.")
    :format(S.decision_title(results)))
end

function S.title(doc, results)
  S.title_block(doc, results)
  machine_table(doc, results)
end

-- The machine and the run: host, CPU, GPU, catalog match, times, scenario, tool.
machine_table = function(doc, results)
  local scn, ctx = results.scenario or {}, results.context or {}
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

-- The model's sentence: its validation error here and one workload on the Spark beside the first
-- HBM system it is compared with (data/systems.csv's roles: the H100).
local function model_text(results)
  for _, e in ipairs(R.experiments(results, "model")) do
    local info, roles = e.info or {}, R.roles(e)
    local v, names, recs = info.validation, {}, {}
    local spark, hbm_id = roles.subject or "", roles.compared[1] or ""
    for _, s in ipairs(info.systems or {}) do names[s.id] = s.name end
    for _, r in ipairs(R.records(e, { series = "projection" })) do
      if r.hours then recs[r.workload .. "|" .. r.system] = r end
    end
    local function hours(r)
      return ("%s h (%s to %s h)"):format(fmt.rate(r.hours), fmt.rate(r.hours_low), fmt.rate(r.hours_high))
    end
    for _, w in ipairs(v and info.workloads or {}) do
      local a, b = recs[w.id .. "|" .. spark], recs[w.id .. "|" .. hbm_id]
      if a and b then
        local hbm = (b.gpus or 1) > 1 and ("%d x %s"):format(b.gpus, names[hbm_id] or hbm_id)
                    or ("the " .. (names[hbm_id] or hbm_id))
        return ("Projected by the training-time model (GPU rows from software-stack profiles fitted on published "
          .. "training runs; its CPU validation, %d of this machine's own configurations at a mean error of %.2f %%, "
          .. "checks the method here only): %s would take about %s on the %s and %s on %s."):format(v.n,
          100 * v.mean_abs_error, w.name, hours(a), names[spark] or spark, hours(b), hbm)
      end
    end
  end
end

function S.summary(doc, results)
  doc:section("Summary")
  machine_table(doc, results)
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
  local dram = ceilings.dram(results, "cpu")
  if dram then
    doc:paragraph(("This machine's DRAM bandwidth, the one figure the report divides by: %s GB/s, the %s. Rule: %s.")
      :format(fmt.rate(dram.gbps), ceilings.dram_text(dram), dram.rule))
    if dram.read_gbps then
      doc:paragraph(("Its ceilings by mix, in bytes known to move: read %s GB/s, write %s GB/s, read and write %s GB/s; "
        .. "a weight stream is judged against the read ceiling, every op against its own mix.")
        :format(fmt.rate(dram.read_gbps), dram.write_gbps and fmt.rate(dram.write_gbps) or "not measured",
                dram.mix_gbps and fmt.rate(dram.mix_gbps) or "not measured"))
    end
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

-- Readable labels of the environment's keys ("cpu.caches.1.cpus_sharing" is no label).
local LABELS = {
  host = "Host name", ["cpu.model"] = "CPU model", ["cpu.arch"] = "CPU architecture",
  ["cpu.logical_cpus"] = "Logical CPUs", ["cpu.clusters"] = "CPU core clusters",
  ["cpu.caches_source"] = "Cache sizes read from", ["cpu.caches_total_bytes"] = "All caches together",
  ["memory.total_bytes"] = "Memory, total", ["memory.available_bytes"] = "Memory, available at the start",
  ["os.name"] = "Operating system", ["os.kernel"] = "Kernel", ["os.kernel_build"] = "Kernel build",
  ["cuda.built"] = "Built with CUDA", ["cuda.reason"] = "GPU: why none was measured",
  ["cuda.runtime_version"] = "CUDA runtime (built against)", ["cuda.driver_version"] = "CUDA driver (supports up to)",
  ["cuda.cublaslt_version"] = "cuBLASLt", ["cuda.status"] = "CUDA status",
  ["build.compiler"] = "Compiler", ["build.cflags"] = "Compiler flags", ["build.openmp_env"] = "OpenMP/BLAS variables set",
  ["build.openmp_max_threads"] = "OpenMP threads", ["build.openmp_version"] = "OpenMP version (date)",
  ["tool.git"] = "sparkreport git revision", ["tool.name"] = "Tool", ["tool.version"] = "sparkreport version",
}

local function cuda_version(v)
  return ("%d.%d (%d)"):format(v // 1000, v % 1000 // 10, v)
end

-- "build.libraries.lua" -> "Build: libraries: lua"; values of *_bytes as sizes, CUDA versions as x.y.
local function env_row(key, value)
  local label = LABELS[key] or (key:gsub("_bytes$", ""):gsub("_", " "):gsub("%.", ": "):gsub("^%l", string.upper))
  local n = tonumber(value)
  if n and key:find("_bytes$") then value = fmt.bytes(n)
  elseif key == "cuda.driver_version" and n == 0 then value = "none loaded (0)"
  elseif n and key:find("^cuda%..*_version$") and key ~= "cuda.cublaslt_version" and n >= 1000 then value = cuda_version(n) end
  return { label, value }
end

-- One row per CPU cache, in words: "L2 unified, 2.00 MiB, 2 instances, each shared by 1 CPU".
local function cache_rows(caches, out)
  for _, c in ipairs(caches or {}) do
    out[#out + 1] = { ("CPU cache L%s %s"):format(tostring(c.level or "?"), tostring(c.type or ""):lower()),
      ("%s, %s instance(s), each shared by %s CPU(s)"):format(c.size_bytes and fmt.bytes(c.size_bytes) or "?",
        tostring(c.instances or "?"), tostring(c.cpus_sharing or "?")) }
  end
end

local function environment(doc, results)
  local ctx, rows, flat = results.context or {}, {}, {}
  local rest = {}
  for k, v in pairs(ctx) do rest[k] = v end
  local cpu = {}
  for k, v in pairs(ctx.cpu or {}) do if k ~= "caches" then cpu[k] = v end end
  rest.cpu = cpu
  flatten("", rest, flat)
  for _, r in ipairs(flat) do rows[#rows + 1] = env_row(r[1], r[2]) end
  cache_rows(ctx.cpu and ctx.cpu.caches, rows)
  doc:table { columns = { { title = "Item", width = 0.35 }, { title = "Value" } }, rows = rows,
              caption = "The context block of results.json, as this run recorded it." }
end

-- Every catalog row the report uses: the compared systems and those the model projected onto.
local function used_rows(results)
  local out, seen = {}, {}
  local function add(row) if row and not seen[row.id] then seen[row.id] = true; out[#out + 1] = row end end
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do add(r) end
  for _, e in ipairs(R.experiments(results, "model")) do
    for _, sy in ipairs(e.info and e.info.systems or {}) do
      if sy.kind == "catalog" then add(R.catalog_row(results, sy.id) or catalog.find(sy.id)) end
    end
  end
  return out
end

local function sources(doc, results)
  local crow = {}
  for _, r in ipairs(used_rows(results)) do
    crow[#crow + 1] = { r.id, r.confidence or "", r.sources or "no source given", r.notes or "" }
  end
  doc:table { columns = { { title = "System", width = 0.22 }, { title = "Confidence", width = 0.14 },
                          { title = "Sources", width = 0.29 }, { title = "Notes" } }, rows = crow,
              caption = ("Every catalog system this report shows (%d). Catalog %s, sha256 %s (first 16 digits)."):format(#crow,
                results.catalog and results.catalog.source or "?", (results.catalog and results.catalog.sha256 or "?"):sub(1, 16)) }
  doc:paragraph("Every figure is measured (on this run, on this machine, with its statistics), spec (a vendor or "
    .. "published figure, with its catalog source), or projected (output of the model, with a low/high band). "
    .. "Tables that mix kinds mark each figure: m measured, s spec, p projected, a assumption (a figure this report "
    .. "chooses, such as the round 100 M tokens of every fine-tune).")
end

-- The scenario without its comments: they describe what its author expected, not what this run did.
local function code_of(line)
  local quote, i = nil, 1
  while i <= #line do
    local c = line:sub(i, i)
    if quote then
      if c == "\\" then i = i + 1 elseif c == quote then quote = nil end
    elseif c == '"' or c == "'" then quote = c
    elseif line:sub(i, i + 1) == "--" then return (line:sub(1, i - 1):gsub("%s+$", "")), true end
    i = i + 1
  end
  return line, false
end

local function strip_comments(src)
  local out = {}
  for line in (src .. "\n"):gmatch("(.-)\n") do
    local code, had = code_of(line)
    if not (had and code == "") then out[#out + 1] = code end
  end
  return (table.concat(out, "\n"):gsub("\n\n\n+", "\n\n"))
end

local function what_ran(doc, results)
  local rows = {}
  for _, e in ipairs(results.experiments or {}) do
    rows[#rows + 1] = { e.name, e.device or "", e.status or "?", e.elapsed_s and fmt.duration(e.elapsed_s) or "",
                        ("%d"):format(#(e.results or {})), ("%d"):format(#(e.skipped or {})) }
  end
  doc:table { columns = { { title = "Experiment", width = 0.2 }, { title = "Device", width = 0.12 },
                          { title = "Status", width = 0.16 }, { title = "Time", align = "right", width = 0.16 },
                          { title = "Records", align = "right", width = 0.16 }, { title = "Skipped", align = "right" } },
              rows = rows, caption = "What this run did, experiment by experiment (results.json)." }
end

local function scenario(doc, results)
  local scn = results.scenario or {}
  what_ran(doc, results)
  local rerun = rerun_command(results)
  doc:paragraph(("Rerun with: %s"):format(rerun), "mono")
  if not require("pdf").exact(rerun) then   -- the font lacks a character: '?' or a stand-in above
    doc:paragraph("The command above contains characters the report's font cannot show, drawn here as '?' or a "
      .. "stand-in: it is not the exact command. The exact command line is results.json's scenario.command (run "
      .. "from scenario.cwd, with the variables of context.build.openmp_env).")
  end
  if scn.run_folder then      -- the same, compared with this run: it writes comparison.pdf beside its report
    doc:paragraph(("Rerun and compare with this run: %s --set baseline=%s"):format(rerun,
                  shell_word(scn.run_folder)), "mono")
  end
  doc:paragraph(("The command expects the scenario file %s with sha256 %s. Its code follows without its comments "
    .. "(they state what its author expected, not what this run measured; the table above is this run); if the "
    .. "file has changed since, save this code and run it instead. OpenMP and BLAS variables not named in the "
    .. "command were unset."):format(scn.path or "?", scn.sha256 or "?"))
  doc:code(strip_comments(scn.source or ""))
end

-- "Appendices", the list of every appendix with the page it starts on, then the appendices.
local function appendices(doc)
  doc:section("Appendices")
  local list = {}
  for _, part in ipairs(appendix.parts(doc)) do list[#list + 1] = part.label .. ": " .. part.title end
  doc:contents(list)
  appendix.draw(doc, 2)
end

-- The decision report's appendices: what its sections deferred, and the catalog's sources.
function S.appendix(doc, results)
  appendix.defer(doc, "Catalog sources and kinds of numbers", function(d) sources(d, results) end)
  appendices(doc)
end

-- The technical annex's appendices: what its sections deferred, the environment, and the scenario
-- with the command that reruns it.
function S.annex_appendix(doc, results)
  appendix.defer(doc, "Environment", function(d) environment(d, results) end)
  appendix.defer(doc, "Scenario: what ran and how to rerun it", function(d) scenario(d, results) end)
  appendices(doc)
end

return S
