-- tests/e2e/documents.lua: the two documents one run writes, drawn again from the recorded default run
-- (tests/fixtures/rerun/default.json.gz) by `render`: report.pdf, the decision report, at most 25 pages,
-- its title naming the decision, its index listing every appendix with the page it starts on, pages 1-3
-- free of the tool's internal words, the fine-tunes' 100 M tokens marked as an assumption, the vendor
-- claim of a QLoRA run set against the BF16 peak, its chart naming the decision table's workloads with
-- their tokens, the annex cited by page; annex.pdf, the technical annex, holding the rerun command. Both
-- byte-identical when drawn twice with SOURCE_DATE_EPOCH, both held to the layout rules (tests/pdfrules.lua:
-- page fill, headings, split paragraphs, labels, legends, table cells), and both written with one number
-- format: no figure above 9,999 without thousands separators, no "USD".
local env = ...
local json = require "json"
local rules = require "pdfrules"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local results = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(results)))
if zrc ~= 0 then return "skip", "gzip not found" end
local doc = json.decode(read(results))

-- render RESULTS -o REPORT --annex ANNEX, with the layout log; prints the two paths it wrote
local function render(tag)
  local report, annex, log = env.out .. "/" .. tag .. "-report.pdf", env.out .. "/" .. tag .. "-annex.pdf",
                             env.out .. "/" .. tag .. ".log"
  local out, rc = sh(("SOURCE_DATE_EPOCH=1700000000 SPARKREPORT_LAYOUT_LOG=%s %s render %s -o %s --annex %s"):format(
    q(log), q(env.bin), q(results), q(report), q(annex)))
  if rc ~= 0 then fail("render exited %d: %s", rc, out) end
  if out ~= report .. "\n" .. annex .. "\n" then fail("render printed %q, not the two documents' paths", out) end
  return report, annex, rules.log(read(log))
end
local report, annex, log = render("a")
local report2, annex2 = render("b")
for _, pair in ipairs { { report, report2 }, { annex, annex2 } } do
  local _, rc = sh(("cmp %s %s"):format(q(pair[1]), q(pair[2])))
  if rc ~= 0 then fail("%s and %s differ: render is not byte-reproducible", pair[1], pair[2]) end
end

local function pages_of(pdf)
  return tonumber(sh("pdfinfo " .. q(pdf)):match("Pages:%s+(%d+)")) or fail("no page count for %s", pdf)
end
local function page_text(pdf, i, j)
  return (sh(("%s -layout -f %d -l %d %s -"):format(q(env.pdftotext), i, j or i, q(pdf))))
end
local function flat(s) return (s:gsub("%s+", " ")) end

-- The decision report: its size and title.
local np = pages_of(report)
if np > 25 then fail("the decision report has %d pages, more than 25", np) end
local team = doc.scenario.team_name or "one ML team"
local title = ("DGX Spark or HBM GPUs for %s: training cost and time"):format(team)
if not sh("pdfinfo " .. q(report)):find("Title:%s+" .. title:gsub("%p", "%%%0")) then
  fail("the decision report's title is not %q:\n%s", title, sh("pdfinfo " .. q(report)))
end
if not flat(page_text(report, 1)):find(title, 1, true) then fail("page 1 does not open with %q", title) end
if not flat(page_text(annex, 1)):find("Technical annex: the machine that ran the decision report", 1, true) then
  fail("the annex's first page does not say what it is")
end

-- The appendix index: every appendix heading of the document listed, with the page it is on.
local function index_check(pdf, pages, what)
  local heads, listed, at = {}, {}, nil
  for n, p in ipairs(pages) do
    for i, l in ipairs(rules.body(p)) do
      local tx = rules.text_of(l)
      if tx == "Appendices" and rules.heading(l) then at = n end
      local label = tx:match("^(Appendix %u+):")
      if label and rules.heading(l) then heads[label] = n
      elseif label and at == n then     -- an index line: its page number ends it or the next line
        local num = tx:match(" (%d+)$") or rules.text_of(rules.body(p)[i + 1] or { words = {} }):match(" ?(%d+)$")
        listed[label] = tonumber(num) or fail("%s: the index lists %s without a page: %q", what, label, tx)
      end
    end
  end
  if not at then fail("%s has no page headed Appendices", what) end
  local n = 0
  for label, page in pairs(heads) do
    n = n + 1
    if not listed[label] then fail("%s: the index does not list %s (page %d)", what, label, page) end
    if listed[label] ~= page then fail("%s: the index puts %s on page %d; it is on page %d", what, label, listed[label], page) end
  end
  for label in pairs(listed) do if not heads[label] then fail("%s: the index lists %s, which is not there", what, label) end end
  if n < 3 then fail("%s: only %d appendices found", what, n) end
  return n
end

-- The layout rules, in both documents.
local counts = {}
for _, d in ipairs { { report, "report", "the decision report" }, { annex, "annex", "the technical annex" } } do
  local pdf, l, what = d[1], log[d[2]] or fail("the layout log has no %s", d[2]), d[3]
  local pages = rules.boxes(env, pdf)
  rules.page_fill(pages, l, what, fail)
  rules.no_heading_ends_a_page(pages, what, fail)
  rules.no_short_split(pages, what, fail)
  rules.labels_apart(pages, l, what, fail)
  rules.no_lone_legend_entry(l, what, fail)
  rules.no_overflow(l, what, fail)
  if #l.missing > 0 then fail("%s: its contents name %q, which no heading has", what, l.missing[1]) end
  counts[#counts + 1] = ("%s %d pages, %d appendices"):format(d[2], #pages, index_check(pdf, pages, what))
end

-- One number format: every figure above 9,999 with thousands separators, dollars as "$". The annex's
-- environment and scenario appendices print the run's own strings (versions, hashes) as recorded.
local function numbers_check(text, what)
  if text:find("USD", 1, true) then fail("%s writes USD: %q", what, text:match(".-USD.-\n") or "") end
  for token in text:gmatch("%S+") do
    local core = token:gsub("^[%(%[\"'<>~+%-]+", ""):gsub("[%)%]\"',.;:%%]+$", "")
    local whole = core:match("^(%d+)%.?%d*$") or core:match("^%$(%d+)%.?%d*$")
    if whole and #whole >= 5 then fail("%s writes %q without thousands separators", what, token) end
  end
end
numbers_check(page_text(report, 1, np), "the decision report")
local na = pages_of(annex)
local annex_text = page_text(annex, 1, na)
local before_env = annex_text:match("^(.-)\n%s*Appendix %u+: Environment%s*\n") or annex_text
numbers_check(before_env, "the technical annex")

-- Pages 1-3: no word of the tool's insides.
local front = page_text(report, 1, 3)
for _, pat in ipairs {
  { "[%a%d]+_[%a%d_]+", "a field name" }, { "info%.%a", "a results field" }, { "[Ii]ssue %d", "an issue number" },
  { "#%d", "an issue number" }, { "cuda%u%a+", "a CUDA error name" }, { "%u%u+_%u%u+", "an enum name" },
  { "DEFECT", "DEFECT" }, { "[%w_.-]+/[%w_.-]+%.%a%a+", "a file path" }, { "%w%.csv", "a file name" },
  { "%w%.json", "a file name" }, { "%w%.lua", "a file name" }, { "%w%.pdf", "a file name" },
  { "baseline=", "a command-line setting" }, { "%-%-set", "a command-line option" }, { "sr%.%a", "scenario code" },
  { "research note", "an internal note" }, { "sparkreport issue", "an issue" },
} do
  local at = front:find(pat[1])
  if at then fail("pages 1-3 of the decision report carry %s: %q", pat[2], flat(front:sub(math.max(1, at - 40), at + 40))) end
end

-- The fine-tunes' round figure is an assumption (a), with its legend; a published run's size is spec (s).
if not front:find("100 M tokens a", 1, true) then fail("pages 1-3 do not mark 100 M tokens as an assumption (a)") end
if front:find("100 M tokens s", 1, true) then fail("pages 1-3 mark 100 M tokens as spec") end
-- the legend closes the per-job table, which page 1's answer for the team pushes to pages 3-4
if not flat(page_text(report, 1, 4)):find("a assumption", 1, true) then fail("pages 1-4 lack the legend of the assumption mark") end
for _, w in ipairs(doc.experiments) do
  for _, wl in ipairs(w.name == "model" and w.info.workloads or {}) do
    if wl.id == "gpt2-124m" and not front:find(env.rate(wl.tokens / 1e9) .. " B tokens s", 1, true) then
      fail("the published size of GPT-2 124M's run is not marked spec (s)")
    end
  end
end

-- The rest of the decision report: the vendor claims, the chart, the annex cited by page, no rerun command.
local all = flat(page_text(report, 1, np))
if all:find("sparkreport issue", 1, true) then fail("the decision report cites a sparkreport issue") end
local claim = all:match("Llama%-3%.3 70B QLoRA[^%[]-") and all:match("%[3%] [^%[]-computed in BF16")
if not claim then fail("the 70B QLoRA claim does not say it computes in BF16: %s", all:match("%[3%].-%[") or "no [3]") end
local row = all:match("%[3%] [%d.]+ GFLOP [%d.]+ PFLOP/s ([%d.,]+ TFLOP/s %(%u+%d*%))")
if row ~= "62.0 TFLOP/s (BF16)" and not (row and row:find("(BF16)", 1, true)) then
  fail("the 70B QLoRA claim is set against %s, not the BF16 peak", tostring(row))
end
local chart = all:match("Projected hours per job, the decision table's workloads.-%(1%)%-%(") or ""
for i = 1, 5 do
  if not chart:find(("(%d) "):format(i), 1, true) then fail("the chart does not name workload (%d) as the decision table does", i) end
end
if not chart:find("9.89 B tokens", 1, true) or not chart:find("100 M tokens (assumed)", 1, true) then
  fail("the chart does not show the tokens of each workload: %s", chart)
end
local cited = 0
for page, head in all:gmatch("the technical annex %(annex%.pdf%), page (%d+), ([^.;:]+)") do
  cited = cited + 1
  if not flat(page_text(annex, tonumber(page))):find(head, 1, true) then
    fail("the decision report cites the annex's page %s for %q, which is not there", page, head)
  end
end
if cited == 0 then fail("the decision report never cites the annex by page") end
if all:find("Rerun with", 1, true) then fail("the rerun command is in the decision report, not the annex") end
if not flat(annex_text):find("Rerun with:", 1, true) then fail("the annex lacks the rerun command") end
return "pass", table.concat(counts, "; ")
