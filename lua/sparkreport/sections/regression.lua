-- sparkreport.sections.regression: the sections of a regression report, drawn from a comparison
-- document (sparkreport.compare) alone: the verdict in one sentence, the two runs and what
-- changed in their environment, geometric means, the largest changes, a table per experiment
-- coloured by verdict, what could not be compared and why, and the method with its thresholds.
local fmt = require "sparkreport.format"

local S = {}

local TONE = { slower = "bad", faster = "good", unchanged = "neutral" }
local ORDER = { slower = 1, faster = 2, inconclusive = 3, unchanged = 4 }
local MAX_BARS = 12

local function value_text(v, unit)
  if unit == "s" then return fmt.seconds(v) end
  return fmt.rate(v) .. " " .. unit
end

local function signed_pct(x) return ("%+.1f %%"):format(100 * x) end

local function p_text(p)
  if p < 1e-4 then return ("%.1e"):format(p) end
  return ("%.4f"):format(p)
end

local function plural(n, one, many) return ("%d %s"):format(n, n == 1 and one or many) end

function S.regression_title(doc, cmp)
  local b, c = cmp.baseline, cmp.current
  doc:title(cmp.title, "What changed since the baseline run, result by result")
  if cmp.slower then
    doc:notice(("SLOWER: %s slower than the baseline (p < %g and a change of the median of at least %s)")
               :format(plural(cmp.counts.slower, "result is", "results are"), cmp.thresholds.alpha,
                       fmt.pct(cmp.thresholds.min_change)), "bad")
  else
    doc:notice("Nothing is slower than the baseline.", "good")
  end
  doc:paragraph(cmp.summary)
  doc:paragraph("The comparison covers both documents of each run: the measured results (the technical annex: "
    .. "bandwidth, compute, training, compression, the model's calibration) under Verdicts, and the projected rows "
    .. "the decision report answers from (hours, fit, cost) under Projections.", "small")
  local function run(r)
    return ("%s to %s (%s)"):format(r.started_utc or "?", r.finished_utc or "?", r.status or "?")
  end
  doc:table {
    columns = { { title = "", width = 0.16 }, { title = "Baseline", width = 0.42 }, { title = "Current run" } },
    rows = {
      { "Results", b.path or "?", c.path or "?" },
      { "Scenario", ("%s (%s)"):format(b.title or "?", b.scenario_path or "?"), ("%s (%s)"):format(c.title or "?", c.scenario_path or "?") },
      { "Ran", run(b), run(c) },
      { "Host", b.host or "?", c.host or "?" },
      { "Tool", b.tool or "?", c.tool or "?" },
    },
  }
  doc:header(cmp.title)
end

function S.regression_environment(doc, cmp)
  doc:section("Environment", 2)
  local rows, changed = {}, 0
  for _, e in ipairs(cmp.environment) do
    if e.changed then changed = changed + 1 end
    rows[#rows + 1] = { e.item, e.baseline, e.changed and { text = e.current, tone = "neutral" } or e.current }
  end
  doc:paragraph(changed == 0 and "Nothing in the recorded environment differs between the two runs."
    or ("%s of the recorded environment %s between the two runs (shaded). The items listed first are "
        .. "always shown; any other field of the context block appears only when it differs.")
       :format(plural(changed, "item", "items"), changed == 1 and "differs" or "differ"))
  doc:table { columns = { { title = "Item", width = 0.24 }, { title = "Baseline", width = 0.38 }, { title = "Current run" } },
              rows = rows, caption = "Free memory is not compared: it changes from run to run." }
end

local function by_experiment(cmp)
  local groups, order = {}, {}
  for _, r in ipairs(cmp.results) do
    if not groups[r.experiment] then groups[r.experiment] = {}; order[#order + 1] = r.experiment end
    table.insert(groups[r.experiment], r)
  end
  return groups, order
end

local function geomean_table(doc, cmp)
  local rows = {}
  local function row(name, t)
    local g = t.geomean
    rows[#rows + 1] = { name, ("%d"):format(t.compared), { text = ("%d"):format(t.slower), tone = t.slower > 0 and "bad" or nil },
                        { text = ("%d"):format(t.faster), tone = t.faster > 0 and "good" or nil },
                        ("%d"):format(t.unchanged), ("%d"):format(t.inconclusive),
                        g and ("%.3fx (%s)"):format(g, signed_pct(g - 1)) or "n/a" }
  end
  for _, t in ipairs(cmp.experiments) do row(t.experiment, t) end
  if #cmp.experiments > 1 then row("overall", cmp.counts) end
  doc:table {
    columns = { { title = "Experiment", width = 0.19 }, { title = "Compared", align = "right", width = 0.13 },
                { title = "Slower", align = "right", width = 0.1 }, { title = "Faster", align = "right", width = 0.1 },
                { title = "Unchanged", align = "right", width = 0.14 }, { title = "Inconclusive", align = "right", width = 0.16 },
                { title = "Geometric mean\nof performance", align = "right" } },
    rows = rows,
    caption = "Performance of a result: baseline median / current median for times, current / baseline for rates, "
              .. "so above 1 is better. The geometric mean runs over every compared result.",
  }
end

local function changes_chart(doc, cmp)
  local list = {}
  for _, r in ipairs(cmp.results) do list[#list + 1] = r end
  table.sort(list, function(a, b)
    local x, y = math.abs(math.log(a.speedup)), math.abs(math.log(b.speedup))
    if x ~= y then return x > y end
    return a.label < b.label
  end)
  if #list == 0 or list[1].speedup == 1 then
    doc:paragraph("No compared result moved at all: the medians are equal.")
    return
  end
  local cats, ys = {}, {}
  for i = 1, math.min(MAX_BARS, #list) do
    cats[i] = list[i].label
    ys[i] = 100 * (list[i].speedup - 1)
  end
  doc:chart {
    kind = "bar", title = ("The %d largest changes (performance, %% against the baseline; above 0 is better)"):format(#cats),
    categories = cats, series = { { name = "change of performance (%)", y = ys } },
    y = { label = "change of performance (%)" },
    caption = "Measured on both runs; the verdict of each result is in the tables below.",
  }
end

local function result_table(doc, list)
  local rows = {}
  for _, r in ipairs(list) do
    rows[#rows + 1] = { r.label, value_text(r.median_baseline, r.unit), value_text(r.median_current, r.unit),
                        signed_pct(r.change), p_text(r.p), { text = r.verdict, tone = TONE[r.verdict] } }
  end
  doc:table {
    columns = { { title = "Result", width = 0.34 }, { title = "Median,\nbaseline", align = "right", width = 0.13 },
                { title = "Median,\ncurrent", align = "right", width = 0.13 },
                { title = "Change of\nthe median", align = "right", width = 0.13 },
                { title = "p (U test)", align = "right", width = 0.12 }, { title = "Verdict" } },
    rows = rows,
    caption = "Medians of the raw samples of each run (for bandwidth, seconds per pass: lower is better).",
  }
end

-- Slower first, then faster, inconclusive, unchanged; the document's order within a verdict
-- (table.sort is not stable, so the position is the tie-breaker).
local function by_verdict(list)
  local pos, out = {}, {}
  for i, r in ipairs(list) do pos[r] = i; out[i] = r end
  table.sort(out, function(a, b)
    if a.verdict ~= b.verdict then return ORDER[a.verdict] < ORDER[b.verdict] end
    return pos[a] < pos[b]
  end)
  return out
end

function S.regression_verdicts(doc, cmp)
  doc:section("Verdicts")
  local t = cmp.thresholds
  doc:paragraph(("A result is slower or faster when the two-sided Mann-Whitney U test on its raw samples gives "
    .. "p < %g and its median moved by at least %s; otherwise it is unchanged, or inconclusive when so few "
    .. "samples were taken that the test could not reach p < %g. The method is at the end.")
    :format(t.alpha, fmt.pct(t.min_change), t.alpha))
  if cmp.counts.compared == 0 then
    doc:paragraph("No result could be compared; the next section says why.")
    return
  end
  geomean_table(doc, cmp)
  changes_chart(doc, cmp)
  local groups, order = by_experiment(cmp)
  for _, id in ipairs(order) do
    doc:section(id, 2)
    result_table(doc, by_verdict(groups[id]))
  end
end

local MAX_DERIVED = 40          -- rows of changed figures listed; the rest counted

-- Projected hours with their band, marked projected (DESIGN.md, "Three kinds of numbers").
local function hours_cell(h, band)
  if not h then return "none" end
  local t = fmt.rate(h) .. " h"
  if band then t = ("%s\n(%s–%s)"):format(t, fmt.rate(band[1]), fmt.rate(band[2])) end
  return { text = t, kind = "projected" }
end

-- The projected rows (sparkreport.compare's projection_moved rule) and the results without raw
-- samples, compared by value. Older comparison documents lack both.
function S.regression_projections(doc, cmp)
  if not cmp.projections then return end
  doc:section("Projections and figures without raw samples")
  doc:paragraph(cmp.projection_summary or "")
  local rows = {}
  for _, r in ipairs(cmp.projections) do
    if r.moved then
      rows[#rows + 1] = { r.workload, r.system, hours_cell(r.hours_baseline, r.band_baseline),
                          hours_cell(r.hours_current, r.band_current), r.why }
    end
  end
  if #rows > 0 then
    doc:table { columns = { { title = "Workload", width = 0.2 }, { title = "System", width = 0.16 },
                            { title = "Hours (band),\nbaseline", align = "right", width = 0.16 },
                            { title = "Hours (band),\ncurrent", align = "right", width = 0.16 }, { title = "Why it moved" } },
                rows = rows, caption = "Projected rows that moved beyond their noise: projected hours with their "
                  .. "low-high band, as each run's report gives them." }
  end
  doc:paragraph("A projected row moved when its fit changed, or when its hours moved by at least the threshold ("
    .. fmt.pct(cmp.thresholds.min_change) .. ") and, for a row that rests on this run's measurements (this "
    .. "machine, or a GPU calibration), those measurements changed too (some result of the same experiment is "
    .. "slower or faster by the test above). A row projected from the catalog alone has no noise: it moves only "
    .. "when the catalog or the model changed.", "small")
  local n, changed = cmp.derived_count or 0, cmp.derived or {}
  if n > 0 then
    doc:paragraph(("%s without raw samples (projections, numerical errors, fitted figures) %s compared by value: "
      .. "%d changed.%s"):format(plural(n, "result", "results"), n == 1 and "was" or "were", #changed,
        #changed > MAX_DERIVED and (" The first %d are listed."):format(MAX_DERIVED) or ""))
    rows = {}
    for i = 1, math.min(#changed, MAX_DERIVED) do
      local d = changed[i]
      rows[i] = { d.experiment, d.label, d.fields }
    end
    if #rows > 0 then
      doc:table { columns = { { title = "Experiment", width = 0.16 }, { title = "Result", width = 0.42 },
                              { title = "Fields that changed" } }, rows = rows }
    end
  end
  if #(cmp.fields_added or {}) > 0 then
    rows = {}
    for _, f in ipairs(cmp.fields_added) do rows[#rows + 1] = { f.experiment, f.series or "", f.field, f.side } end
    doc:paragraph(("The two results files are of different schema versions (%s in the baseline, %s in the current "
      .. "run). Identifying fields that only one of them records are left out of the matching:")
      :format(cmp.baseline.schema_version or "?", cmp.current.schema_version or "?"))
    doc:table { columns = { { title = "Experiment", width = 0.16 }, { title = "Records", width = 0.16 },
                            { title = "Field", width = 0.26 }, { title = "" } }, rows = rows }
  end
end

function S.regression_not_comparable(doc, cmp)
  doc:section("Not comparable", 2)
  if #cmp.not_comparable == 0 then
    doc:paragraph("Every result of both runs was compared.")
    return
  end
  local rows = {}
  for _, n in ipairs(cmp.not_comparable) do
    rows[#rows + 1] = { n.experiment, n.count > 1 and ("%s (%d)"):format(n.label, n.count) or n.label, n.reason }
  end
  doc:paragraph(("%s not compared, because %s on one side only, failed validation, were measured with "
    .. "different parameters or kept no raw samples:")
    :format(plural(cmp.counts.not_comparable, "result was", "results were"),
            cmp.counts.not_comparable == 1 and "it exists" or "they exist"))
  doc:table { columns = { { title = "Experiment", width = 0.16 }, { title = "Result", width = 0.34 }, { title = "Why not" } },
              rows = rows }
end

function S.regression_method(doc, cmp)
  local t = cmp.thresholds
  doc:section("Method")
  doc:paragraph(("Matching. Two records are the same measurement when they come from the same experiment on the "
    .. "same device, the experiment parameters that shape how a "
    .. "record is measured are equal (parameters that only choose which records exist, such as sizes, kernels "
    .. "and repetition limits, may differ), and every identifying field of the record is equal. Identifying "
    .. "fields are all fields but the measurements: raw samples and statistics, numbers that are not whole, "
    .. "rates (GB/s, FLOP/s), seconds, validation outcomes, how the repetitions went, training losses and "
    .. "the algorithm a library chose at run time. A projected row is identified by its workload and system "
    .. "(and a scale-out row by its device count and sharding). Results files of different schema versions "
    .. "compare: an identifying field that only one of them records is left out of the matching and listed; "
    .. "records an older version wrote twice without telling them apart are not compared."))
  local n, smallest = 1, 1        -- the fewest samples a side that can reach p < alpha: 2 / C(2n, n)
  repeat
    n = n + 1
    local c = 1
    for i = 1, n do c = c * (n + i) / i end
    smallest = 2 / c
  until smallest < t.alpha or n >= 50
  doc:paragraph(("Test. %s. Each side needs at least %d samples. The smallest p that %d samples a side can "
    .. "give is %.2g, and fewer give more, so a result with fewer than %d samples on a side is inconclusive "
    .. "rather than slower or faster when its median moved.")
    :format(t.test:gsub("^%l", string.upper), t.min_samples, n, smallest, n))
  doc:paragraph(("Direction. Whether higher is better follows the unit of the sampled field: seconds (a name "
    .. "ending in _s) lower is better; GB/s, FLOP/s and rates per second higher is better. The change is "
    .. "(current median - baseline median) / baseline median of the sampled quantity; the thresholds are "
    .. "p < %g and a change of at least %s. The geometric mean of performance is taken over every compared "
    .. "result, per experiment and overall.")
    :format(t.alpha, fmt.pct(t.min_change)))
  doc:paragraph("Exit status of sparkreport compare, and of a run with a baseline: 6 when some result is slower, "
    .. "else 0 (a run whose measurements failed validation exits 5 first).", "note")
end

return S
