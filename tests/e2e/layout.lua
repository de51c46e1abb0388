-- tests/e2e/layout.lua: the report layer's layout rules, read back from PDFs through pdftotext
-- (-bbox-layout word boxes and -layout text) and the layout log (tests/pdfrules.lua): no heading is
-- the last text of a page, no page but the last is filled less than two-thirds unless a section ends
-- there or a figure cannot fit, no paragraph is split leaving fewer than three lines on a side, no
-- word is broken in a table cell, no figure is wrapped away from its unit or split inside, no column
-- is empty, long cells are footnotes, charts keep one number format per axis, their legends never
-- leave one entry alone on a row, and their point labels cover no other label and no marker; log
-- axes from the data (one far point drawn off the scale), overlapping curves named, separate points
-- labelled. Checked on a synthetic document drawn through the Lua binding
-- (tests/fixtures/layout/document.lua, drawn by tests/unit/test_layout --pdf) and on the reports
-- of the model and DRAM fixtures.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local rules = require "pdfrules"

local function boxes(pdf) return rules.boxes(env, pdf) end
local text_of = rules.text_of
local function no_heading_ends_a_page(pages, what) rules.no_heading_ends_a_page(pages, what, fail) end

-- A page break only where the rest would not fit: every page but the last is filled at least
-- to its middle (A4, 842 pt; the page number aside).
local function no_near_empty_page(pages, what)
  for n, p in ipairs(pages) do
    local low = 0
    for _, l in ipairs(p.lines) do
      if not rules.footer(l) then low = math.max(low, l.y1) end
    end
    if n < #pages and low < 421 then fail("%s: page %d is near empty (text ends at %.0f pt)", what, n, low) end
  end
end

-- The title block opens page 1: its first line in the top eighth of the page, not a third down.
local function title_at_top(pages, what)
  local top = math.huge
  for _, l in ipairs(pages[1].lines) do top = math.min(top, l.y0) end
  if top > 842 / 8 then fail("%s: page 1's first line is %.0f pt down the page", what, top) end
end

-- Footnotes stay with their table: no page opens (below the running header) with a footnote [n].
local function footnotes_with_their_table(pages, what)
  for n, p in ipairs(pages) do
    local first
    for _, l in ipairs(p.lines) do
      if l.y0 > 60 and not rules.footer(l) and (not first or l.y0 < first.y0) then first = l end
    end
    if n > 1 and first and text_of(first):match("^%[%d+%] ") then
      fail("%s: page %d opens with the footnote %q, away from its table", what, n, text_of(first):sub(1, 60))
    end
  end
end

-- A note a table repeats is printed once per table: the stop rule of unsettled statistics once per note.
local function notes_once(pdf, what)
  local t = sh(("%s %s -"):format(q(env.pdftotext), q(pdf))):gsub("%s+", " ")
  local notes, rules = select(2, t:gsub("did not settle %(", "")), select(2, t:gsub("above the [%d.]+ %% target", ""))
  if rules > notes * 2 then fail("%s: the stop rule is printed %d times in %d notes", what, rules, notes) end
end

local UNITS = { h = 1, s = 1, ms = 1, ["µs"] = 1, ns = 1, GB = 1, GiB = 1, MB = 1, MiB = 1, KiB = 1, TB = 1,
                ["GB/s"] = 1, ["TB/s"] = 1, ["%"] = 1, W = 1, kWh = 1, TFLOPS = 1, GFLOPS = 1, ["GFLOP/s"] = 1 }

-- Within a block, a line that ends in a digit followed by one that starts with a unit (or
-- with the rest of a range) is a figure wrapped inside its cell.
local function no_figure_wraps(pages, what)
  for n, p in ipairs(pages) do
    for _, b in ipairs(p) do
      for i = 2, #b do
        local a, c = b[i - 1], b[i]
        local last, first = a.words[#a.words], c.words[1]
        local below = c.y0 - a.y1 < 4 and c.y0 > a.y0 and first.x0 < last.x1 + 2 and first.x0 >= a.x0 - 2
        if below and last.text:match("%d$") and (UNITS[first.text] or first.text:match("^[–%-]%d")) then
          fail("%s: page %d: the figure %q is wrapped from %q", what, n, last.text, first.text)
        end
        if below and last.text:match("[–]$") and first.text:match("^%d") then
          fail("%s: page %d: the range %q is wrapped before %q", what, n, last.text, first.text)
        end
      end
    end
  end
end

local function layout_text(pdf)
  return sh(("%s -layout %s -"):format(q(env.pdftotext), q(pdf)))
end
local function has(t, want, what)
  if not t:find(want, 1, true) then fail("%s lacks %q", what, want) end
end

-- The synthetic document, with its layout log.
local pdf, logpath = env.out .. "/layout.pdf", env.out .. "/layout.log"
local out, rc = sh(("%s/tests/unit/test_layout --pdf %s %s %s 2>&1"):format(q(env.builddir), q(pdf),
                   q(env.srcdir .. "/tests/fixtures/layout/document.lua"), q(logpath)))
if rc ~= 0 then fail("drawing the synthetic document: %s", out) end
local pages, t = boxes(pdf), layout_text(pdf)
local log = rules.log(env.read(logpath)).document or fail("the synthetic document wrote no layout log")
local syn = "the synthetic document"
no_heading_ends_a_page(pages, syn)
no_near_empty_page(pages, syn)
no_figure_wraps(pages, syn)
rules.page_fill(pages, log, syn, fail)
rules.no_short_split(pages, syn, fail)
rules.labels_apart(pages, log, syn, fail)
rules.no_lone_legend_entry(log, syn, fail)
rules.no_overflow(log, syn, fail)
-- no word broken in a cell, even in tables too crowded for their columns
rules.words_whole(pages, { "years", "accumulation", "checkpointing", "measured)", "ConnectX-7", "held-out",
                           "DRAM-bound", "2/128/4/64/8/512" }, syn, fail)
-- the crowded points: every label drawn, those set off joined by a leader (the log says which)
local crowded = 0
for _, l in ipairs(log.labels) do
  if l.text:match("^v%d$") then crowded = crowded + 1 end
end
if crowded ~= 9 then fail("%d of the 9 crowded points are labelled", crowded) end
-- every split paragraph keeps three lines or more on each side of its page break
local lines_of = {}
for n, p in ipairs(pages) do
  for _, l in ipairs(p.lines) do
    local tx = text_of(l)
    local k = tx:match("^Split (%d+) begins")
    if k then lines_of.cur = { k = k, [n] = 0 }; lines_of[k] = lines_of.cur end
    if lines_of.cur and l.y1 - l.y0 < 13 and l.x0 < 60 then
      lines_of.cur[n] = (lines_of.cur[n] or 0) + 1
    end
    if tx:match("split %d+ ends%.$") then lines_of.cur = nil end
  end
end
local splits = 0
for k = 1, 30 do
  local pl = lines_of[tostring(k)] or fail("split paragraph %d is missing", k)
  local parts = {}
  for n, c in pairs(pl) do if type(n) == "number" then parts[#parts + 1] = c end end
  if #parts > 1 then
    splits = splits + 1
    for _, c in ipairs(parts) do
      if c < 3 then fail("split paragraph %d keeps %d line(s) on one page", k, c) end
    end
  end
end
if splits < 3 then fail("only %d of the split paragraphs were split: the check checks nothing", splits) end

-- every figure on one line, in full or shortened with the key under the table
local short = t:find("187k–26.8k h", 1, true)
for r = 1, 6 do
  local full = ("187375–2683%d h"):format(r)
  if not t:find(full, 1, true) and not short then fail("the figure %q is not on one line", full) end
end
if short then has(t, "Numbers shortened to fit: k thousand", "the synthetic document") end
for _, want in ipairs { "+1.5 %", "$1999", "1.25 kWh", "80 GB" } do has(t, want, "the crowded table") end
-- words are never broken: a long word stays whole, or goes whole to a footnote
for _, word in ipairs { "cudaErrorInsufficientDriver", "Confidence" } do
  local found = false
  for _, p in ipairs(pages) do
    for _, l in ipairs(p.lines) do
      for _, w in ipairs(l.words) do
        if w.text == word then found = true
        elseif #w.text >= 3 and word:sub(1, #w.text) == w.text then   -- the head of a broken word
          fail("the word %q is broken (%q)", word, w.text)
        end
      end
    end
  end
  if not found then fail("the word %q is missing", word) end
end
-- the empty column is gone, its caption unchanged
local head = t:match("[^\n]*System%s+Time%s+Error[^\n]*") or fail("no header row in %s", t)
if head:find("Fraction", 1, true) then fail("the column empty in every row is still drawn: %s", head) end
has(t, "Crowded table caption: the Fraction column is empty in every row.", "the synthetic document")
-- the 20-item cell and the long explanations are footnotes with markers in their cells
has(t, "[2] item 01; item 02; item 03", "the footnotes")
has(t, "item 19; item 20", "the footnotes")
local note = "[1] fits with activation checkpointing and gradient accumulation 32 (micro-batch 1): 24.2 GB of 25.3 GB"
has(t:gsub("%s+", " "), note, "the footnotes")
local ones = select(2, t:gsub("%[1%]", ""))
if ones < 4 then fail("the three cells with the same long text do not all point to footnote [1] (%d markers)", ones - 1) end
if t:find("[3]", 1, true) then fail("a repeated long text got a footnote of its own") end
-- the last row of a table never starts a page alone
for n, p in ipairs(pages) do
  local last, before = false, false
  for _, l in ipairs(p.lines) do
    last = last or text_of(l):match("^row 12%f[%D]") ~= nil
    before = before or text_of(l):match("^row 11%f[%D]") ~= nil
  end
  if last and not before then fail("page %d starts with the last row of a table alone", n) end
end
-- a group of rows on one page; no page holds one row of a table; a caption with its last rows
local seen_group, seen_solo = {}, {}
for n, p in ipairs(pages) do
  local solo, caption = {}, {}
  for _, l in ipairs(p.lines) do
    local tx = text_of(l)
    local k, g = tx:match("^grp (%d+)%.(%d+) row %d")
    if k then
      local key = k .. "." .. g
      if seen_group[key] and seen_group[key] ~= n then fail("group %s is split between pages %d and %d", key, seen_group[key], n) end
      seen_group[key] = n
    end
    local sk = tx:match("^solo (%d+) row %d")
    if sk then solo[sk] = (solo[sk] or 0) + 1; seen_solo[sk] = true end
    local ck = tx:match("^Solo table (%d+) caption")
    if ck then caption[ck] = true end
  end
  for k, c in pairs(solo) do if c == 1 then fail("page %d holds one row of solo table %s", n, k) end end
  for k in pairs(caption) do if not solo[k] then fail("page %d starts with solo table %s's caption alone", n, k) end end
end
for k = 1, 6 do
  if not seen_solo[tostring(k)] then fail("solo table %d is missing", k) end
  for g = 1, 3 do if not seen_group[k .. "." .. g] then fail("group %d.%d is missing", k, g) end end
end
-- an axis of counts has whole-number ticks only
local counts_chart = false
for n, p in ipairs(pages) do
  local top
  for _, l in ipairs(p.lines) do if text_of(l) == "Two thread counts" then top, counts_chart = l.y0, true end end
  for _, l in ipairs(top and p.lines or {}) do
    if l.y0 > top and l.y0 < top + 230 then
      for _, w in ipairs(l.words) do
        if w.text:match("^%d+%.%d+$") then fail("page %d: the axis of thread counts has the tick %s", n, w.text) end
      end
    end
  end
end
if not counts_chart then fail("the chart of thread counts is missing") end
-- a table too wide even at the floor size is split in two, its first column repeated
for c = 1, 11 do has(t, ("Wide %02d"):format(c), "the split table") end
local names = select(2, t:gsub("wide row", ""))
if names ~= 6 then fail("the split table does not repeat its first column (%d names for 3 rows)", names) end
has(t, "Too wide for the page: the columns continue in the next table.", "the split table")
has(t, "Wide table caption.", "the split table")
-- a heading moves to the next page with the chart that did not fit under it
for k = 1, 5 do
  for n, p in ipairs(pages) do
    for i, l in ipairs(p.lines) do
      if text_of(l) == ("Chart heading %d"):format(k) then
        local follows = false
        for j = i + 1, #p.lines do follows = follows or text_of(p.lines[j]) == ("Tall chart %d"):format(k) end
        if not follows then fail("'Chart heading %d' is on page %d, its chart is not", k, n) end
      end
    end
  end
end
-- legend entries whole on one line; one tick format on the 8-decade axis
for i = 1, 12 do has(t, ("series %02d"):format(i), "the legend") end
for _, want in ipairs { "1e0", "1e4", "1e8" } do has(t, want, "the log axis") end
for _, plain in ipairs { "10000", "100000", "1000000" } do
  if t:find("%f[%d]" .. plain .. "%f[%D]") then fail("the log axis mixes %s with 1e-style labels", plain) end
end

-- The words of a chart: those on the lines from its title down `depth` pt, on the page that has it.
local function chart_words(pages, title, depth)
  for _, p in ipairs(pages) do
    local top
    for _, l in ipairs(p.lines) do if not top and text_of(l):sub(1, #title) == title then top = l.y0 end end
    if top then
      local words, lines = {}, {}
      for _, l in ipairs(p.lines) do
        if l.y0 > top and l.y0 < top + depth then
          lines[#lines + 1] = text_of(l)
          for _, w in ipairs(l.words) do words[w.text] = true end
        end
      end
      return words, table.concat(lines, "\n")
    end
  end
  fail("the chart %q is missing", title)
end
-- A log axis from the data: one point three powers below the rest does not stretch it (no tick
-- below the power under the others' least, 3e5), and it is drawn as off the scale, named.
local words, text = chart_words(pages, "One point far below", 250)
for _, tick in ipairs { "1e1", "1e2", "1e3", "1e4", "10", "100", "1000" } do
  if words[tick] then fail("the log axis is stretched to %s for one point: %s", tick, text) end
end
for _, tick in ipairs { "1e5", "1e7" } do
  if not words[tick] then fail("the log axis lacks the tick %s: %s", tick, text) end
end
if not text:find("lone cpu: 52 below the scale", 1, true) then fail("the point off the scale is not named: %s", text) end
-- Two curves with the same values: the legend says which one the second lies on.
words, text = chart_words(pages, "Two equal curves", 260)
if not text:find("bf16 run (overlaps fp32 run)", 1, true) then fail("the hidden curve is not named in the legend: %s", text) end
if text:find("fp32 run (overlaps", 1, true) then fail("the first curve is said to overlap: %s", text) end
-- Every separate point carries its label, close ones included.
words, text = chart_words(pages, "Labelled points", 260)
for _, label in ipairs { "alpha32", "beta16", "gamma8", "delta4", "eps4", "zeta8", "eta4" } do
  if not words[label] then fail("the point %q is not labelled: %s", label, text) end
end
-- One x value: the axis spans a power of two either side of it.
words, text = chart_words(pages, "One size only", 200)
for _, tick in ipairs { "32", "64", "128" } do
  if not words[tick] then fail("the axis of one size lacks the tick %s (the point sits on the frame): %s", tick, text) end
end
-- Two lines sharing a stretch: the later one says so.
words, text = chart_words(pages, "Two roofs", 240)
if not text:find("roof B (overlaps roof A in part)", 1, true) then fail("the shared stretch is not named in the legend: %s", text) end

-- The recorded default run's report: the same chart rules on its charts, and no word broken in
-- a narrow column's header (the validation table's "Held out" read "Hel d out").
local default, dpdf = env.out .. "/default.json", env.out .. "/default.pdf"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(default)))
if zrc ~= 0 then fail("cannot unpack the recorded default run") end
local dannex = env.out .. "/default-annex.pdf"      -- the technical annex holds the machine's charts
local dmsg, drc = sh(("%s render %s -o %s 2>&1"):format(q(env.bin), q(default), q(dpdf)))
if drc ~= 0 then fail("render the default run: %s", dmsg) end
local dp = boxes(dannex)
local held = false
for n, p in ipairs(dp) do
  local cfg, found = false, {}
  for _, l in ipairs(p.lines) do
    for _, w in ipairs(l.words) do found[w.text] = true; cfg = cfg or w.text == "Layers/hidden/" end
  end
  if cfg then
    held = true
    if not found.Held or found.Hel then fail("page %d: the validation table's header breaks \"Held\"", n) end
  end
end
if not held then fail("the validation table's header is missing") end
words, text = chart_words(dp, "Projected scaling, gpt2-124m", 260)
for _, tick in ipairs { "1e1", "1e2", "1e3" } do
  if words[tick] then fail("the scaling chart's log axis is stretched to %s for one point: %s", tick, text) end
end
if not text:find("this machine (CPU, measured): ", 1, true) or not text:find("below the scale", 1, true) then
  fail("the scaling chart does not name the point below its scale: %s", text)
end
words, text = chart_words(dp, "Training loss, tiny", 300)
if not text:find("bf16 cpu (overlaps fp32 cpu)", 1, true) then fail("the training loss legend does not say the curves overlap: %s", text) end
-- the roofline needs the precision experiment's intensity sweep, which a run on a loaded machine may not
-- reach within its budget (the synthetic "Two roofs" checks the same rule whatever the fixture holds)
local swept = read(default):find('"series":%s*"sweep"') ~= nil
if swept then
  words, text = chart_words(dp, "Roofline, CPU", 320)
  -- the FP32 roof runs on the FP64 roof's slope (one read ceiling), over it or its sweep as this run measured
  if not text:gsub("%s+", " "):find("FP32 roof (measured) (overlaps FP64 ", 1, true) then  -- a legend entry may wrap
    fail("the roofline's legend does not say the FP32 roof overlaps the FP64 curves: %s", text)
  end
end
-- every scheme the recorded run measured a product of (a run on a loaded machine measures fewer) is labelled
words, text = chart_words(dp, "Speed-up over dense FP32 against bits per weight", 270)
local measured = {}
for _, e in ipairs(require("json").decode(read(default)).experiments) do
  for _, r in ipairs(e.name == "compress" and e.device == "cpu" and e.results or {}) do
    if r.series == "gemv" and r.valid and r.speedup_vs_fp32 then measured[r.scheme] = true end
  end
end
local nmeasured = 0
for scheme in pairs(measured) do
  nmeasured = nmeasured + 1
  if not words[scheme] then fail("the compression chart's point %q is not labelled: %s", scheme, text) end
end
if nmeasured < 2 then fail("the recorded run measured %d compression products", nmeasured) end

-- Reports rendered from fixtures follow the same rules.
for _, fixture in ipairs { "model", "dram" } do
  local rpdf = env.out .. "/" .. fixture .. ".pdf"
  local msg, code = sh(("%s render %s -o %s"):format(q(env.bin), q(env.srcdir .. "/tests/fixtures/" .. fixture .. "/results.json"), q(rpdf)))
  if code ~= 0 then fail("render %s: %s", fixture, msg) end
  for _, doc in ipairs { { rpdf, fixture .. " report" }, { env.out .. "/" .. fixture .. "-annex.pdf", fixture .. " annex" } } do
    local pages = boxes(doc[1])
    no_heading_ends_a_page(pages, doc[2])
    no_near_empty_page(pages, doc[2])
    no_figure_wraps(pages, doc[2])
    title_at_top(pages, doc[2])
    footnotes_with_their_table(pages, doc[2])
    notes_once(doc[1], doc[2])
  end
end
return "pass"
