-- tests/pdfrules.lua: the layout rules of src/report, checked on a drawn PDF: from its words and
-- their boxes (pdftotext -bbox-layout), and from the layout log the drawing wrote
-- (SPARKREPORT_LAYOUT_LOG, report.h's pdf_doc_log: why each page ended, the label and marker boxes
-- a chart placed, each legend's entries per row, table lines wider than their column). Used by
-- tests/e2e/layout.lua (a synthetic document) and tests/e2e/documents.lua (the two documents of a run).
-- Every check calls fail(fmt, ...) on the first breach it finds.
local M = {}

M.PAGE_H = 841.89
M.BODY_TOP, M.BODY_BOTTOM = 64.0, 841.89 - 60.0     -- the body, pt from the top (report.h's margins)
M.FILL_MIN = 2 / 3
local HEADING = 13.0     -- pt: word boxes of 12 pt bold and up (H2, H1); body text is 11.6
local H1 = 17.5          -- pt: the box of a 16 pt heading

-- pages = { { lines = { { y0, y1, x0, x1, words = { {text, x0, x1} } } }, [i] = block } }
function M.boxes(env, pdf)
  local xml = env.sh(("%s -bbox-layout %s -"):format(env.q(env.pdftotext), env.q(pdf)))
  local pages = {}
  for page in xml:gmatch("<page .-</page>") do
    local p = { lines = {} }
    for block in page:gmatch("<block .-</block>") do
      local b = {}
      for attrs, body in block:gmatch("<line ([^>]*)>(.-)</line>") do
        local l = { words = {} }
        l.x0, l.y0, l.x1, l.y1 = attrs:match('xMin="([%d.]+)" yMin="([%d.]+)" xMax="([%d.]+)" yMax="([%d.]+)"')
        l.x0, l.y0, l.x1, l.y1 = tonumber(l.x0), tonumber(l.y0), tonumber(l.x1), tonumber(l.y1)
        for wa, text in body:gmatch("<word ([^>]*)>(.-)</word>") do
          local x0, y0, x1, y1 = wa:match('xMin="([%d.]+)" yMin="([%d.]+)" xMax="([%d.]+)" yMax="([%d.]+)"')
          l.words[#l.words + 1] = { text = text:gsub("&amp;", "&"):gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&apos;", "'")
                                              :gsub("&quot;", '"'),
                                    x0 = tonumber(x0), y0 = tonumber(y0), x1 = tonumber(x1), y1 = tonumber(y1) }
        end
        b[#b + 1] = l
        p.lines[#p.lines + 1] = l
      end
      p[#p + 1] = b
    end
    pages[#pages + 1] = p
  end
  return pages
end

function M.text_of(l)
  local t = {}
  for i, w in ipairs(l.words) do t[i] = w.text end
  return table.concat(t, " ")
end

-- The running footer: the page number, and beside it for whom and from which run (below the body).
local function footer(l) return M.text_of(l):match("^Page %d+ of %d+$") ~= nil or l.y0 > M.BODY_BOTTOM end
M.footer = footer
local function header(l) return l.y1 < M.BODY_TOP end

function M.heading(l)
  local h = l.y1 - l.y0
  return h >= HEADING and h < 24 and l.x1 - l.x0 > h      -- not rotated axis labels
end

-- The body's lines of a page, top to bottom (running header and page number aside).
function M.body(p)
  local out = {}
  for _, l in ipairs(p.lines) do
    if not footer(l) and not header(l) then out[#out + 1] = l end
  end
  table.sort(out, function(a, b) return a.y0 < b.y0 or (a.y0 == b.y0 and a.x0 < b.x0) end)
  return out
end

-- How much of the page's body its text fills, from the top of the body to its lowest line.
function M.fill(p)
  local low = M.BODY_TOP
  for _, l in ipairs(M.body(p)) do low = math.max(low, l.y1) end
  return (low - M.BODY_TOP) / (M.BODY_BOTTOM - M.BODY_TOP)
end

-- The layout log: { docs = { [name] = { path, pages = { [n] = { fill, why, need, room } }, labels, markers,
-- legends, overflow, missing } } }, by the "document NAME PATH" lines draw.c writes (one unnamed
-- document when there are none).
function M.log(text)
  local docs, cur = {}, nil
  local function doc(name, path)
    docs[name] = { path = path, pages = {}, labels = {}, markers = {}, legends = {}, overflow = {}, missing = {} }
    cur = docs[name]
  end
  for line in text:gmatch("[^\n]+") do
    local f = {}
    for field in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = field end
    if f[1] == "document" then doc(f[2], f[3])
    else
      if not cur then doc("document", "?") end
      if f[1] == "page" then
        cur.pages[tonumber(f[2])] = { fill = tonumber(f[3]), why = f[4], need = tonumber(f[5]), room = tonumber(f[6]) }
      elseif f[1] == "label" or f[1] == "marker" then
        local b = { page = tonumber(f[2]), x0 = tonumber(f[3]), y0 = tonumber(f[4]), x1 = tonumber(f[5]),
                    y1 = tonumber(f[6]), leader = f[7] == "1", text = f[8] }
        local list = f[1] == "label" and cur.labels or cur.markers
        list[#list + 1] = b
      elseif f[1] == "legend" then
        local counts = {}
        for c in f[3]:gmatch("%d+") do counts[#counts + 1] = tonumber(c) end
        cur.legends[#cur.legends + 1] = { page = tonumber(f[2]), counts = counts }
      elseif f[1] == "overflow" then cur.overflow[#cur.overflow + 1] = { page = tonumber(f[2]), text = f[3] }
      elseif f[1] == "contents-missing" then cur.missing[#cur.missing + 1] = f[2]
      end
    end
  end
  return docs
end

-- No page but the last is filled less than FILL_MIN, unless a section ends there (the next page
-- opens with a level-1 heading) or what comes next could not fit even at its smallest (the log's
-- "figure", with what it needed beyond the room left). `log` is the document's log record.
function M.page_fill(pages, log, what, fail)
  for n = 1, #pages - 1 do
    local fill = M.fill(pages[n])
    if fill < M.FILL_MIN then
      local why = log.pages[n] or fail("%s: the layout log has no record of page %d", what, n)
      local first = M.body(pages[n + 1])[1]
      if why.why == "section" then
        if not (first and first.y1 - first.y0 >= H1) then
          fail("%s: page %d is %.0f %% full and said to end a section, but page %d opens with %q", what, n,
               100 * fill, n + 1, first and M.text_of(first) or "nothing")
        end
      elseif why.why == "figure" then
        if not (why.need > why.room) then
          fail("%s: page %d is %.0f %% full; the figure after it needed %.0f pt of %.0f", what, n, 100 * fill, why.need,
               why.room)
        end
      elseif why.why == "full" and (why.fill or 0) >= M.FILL_MIN
             and fill >= M.FILL_MIN - 14 / (M.BODY_BOTTOM - M.BODY_TOP) then
        -- full by the layout's own measure, which counts the space after the last line (a small
        -- paragraph's spacing, under 14 pt) that the text's box ends above
      else
        fail("%s: page %d is %.0f %% full (its text ends %.0f pt down) and no section ends there (%s)", what, n,
             100 * fill, M.BODY_TOP + fill * (M.BODY_BOTTOM - M.BODY_TOP), why.why)
      end
    end
  end
end

-- The lowest text of each page above the page number is not a heading.
function M.no_heading_ends_a_page(pages, what, fail)
  for n = 1, #pages - 1 do
    local body = M.body(pages[n])
    local last = body[#body]
    if last and M.heading(last) then fail("%s: page %d ends with the heading %q", what, n, M.text_of(last)) end
  end
end

-- A block of wrapped body text (a paragraph or a caption): lines across most of the text width.
local function prose(b)
  if #b == 0 then return false end
  for i, l in ipairs(b) do
    local h = l.y1 - l.y0
    if h > HEADING or h < 7 then return false end
    if i < #b and l.x1 - l.x0 < 380 then return false end
  end
  return true
end

-- A paragraph split between pages leaves at least three of its lines on each side: the last block of
-- a page, when it is prose whose last line runs to the margin (the paragraph goes on), has three lines
-- or more, and so has the first block of the next page.
function M.no_short_split(pages, what, fail)
  for n = 1, #pages - 1 do
    local last, first
    for _, b in ipairs(pages[n]) do
      if b[1] and not footer(b[1]) and not header(b[1]) and (not last or b[1].y0 > last[1].y0) then last = b end
    end
    for _, b in ipairs(pages[n + 1]) do
      if b[1] and not footer(b[1]) and not header(b[1]) and (not first or b[1].y0 < first[1].y0) then first = b end
    end
    if last and prose(last) and last[#last].x1 - last[#last].x0 > 400 and first and prose(first)
       and first[1].words[1] and first[1].words[1].text:match("^%l") then
      if #last < 3 or #first < 3 then
        fail("%s: a paragraph is split %d | %d lines between pages %d and %d (%q | %q)", what, #last, #first, n, n + 1,
             M.text_of(last[#last]), M.text_of(first[1]))
      end
    end
  end
end

local function overlap(a, b)
  local w = math.min(a.x1, b.x1) - math.max(a.x0, b.x0)
  local h = math.min(a.y1, b.y1) - math.max(a.y0, b.y0)
  return w > 0 and h > 0 and w * h or 0
end
M.overlap = overlap

-- No label the chart layer placed covers another label or a marker (more than a touch: 0.5 pt²),
-- and each is on its page where the log says (its words inside the logged box, pdftotext's y measured
-- from the top).
function M.labels_apart(pages, log, what, fail)
  for i, a in ipairs(log.labels) do
    for j = i + 1, #log.labels do
      local b = log.labels[j]
      if a.page == b.page and overlap(a, b) > 0.5 then
        fail("%s: page %d: the labels %q and %q overlap (%.1f pt²)", what, a.page, a.text, b.text, overlap(a, b))
      end
    end
    for _, m in ipairs(log.markers) do
      if m.page == a.page and overlap(a, m) > 0.5 then
        fail("%s: page %d: the label %q covers a marker (%.1f pt²)", what, a.page, a.text, overlap(a, m))
      end
    end
    local p, found = pages[a.page], false
    local first = a.text:match("^(%S+)")
    for _, l in ipairs(p and p.lines or {}) do
      for _, w in ipairs(l.words) do
        if w.text == first and math.abs(w.x0 - a.x0) < 1.5 and math.abs((M.PAGE_H - w.y1) - a.y0) < 3 then found = true end
      end
    end
    if not found then fail("%s: page %d: the label %q is not drawn where the log places it", what, a.page, a.text) end
  end
end

-- No legend leaves an entry alone on a row while another row holds more.
function M.no_lone_legend_entry(log, what, fail)
  for _, g in ipairs(log.legends) do
    local most = 0
    for _, c in ipairs(g.counts) do most = math.max(most, c) end
    for _, c in ipairs(g.counts) do
      if c == 1 and most > 1 then
        fail("%s: page %d: a legend leaves one entry alone on a row (entries per row: %s)", what, g.page,
             table.concat(g.counts, ","))
      end
    end
  end
end

-- No table line is wider than its column (a word too long for it would have been cut before).
function M.no_overflow(log, what, fail)
  for _, o in ipairs(log.overflow) do fail("%s: page %d: the table line %q is wider than its column", what, o.page, o.text) end
end

-- Every word in `words` (a list) appears whole among the PDF's words, and no word of the PDF is a
-- piece of one (a word broken inside a table cell: "yea" / "rs").
function M.words_whole(pages, words, what, fail)
  local seen = {}
  for _, p in ipairs(pages) do
    for _, l in ipairs(p.lines) do for _, w in ipairs(l.words) do seen[w.text] = true end end
  end
  for _, want in ipairs(words) do
    if not seen[want] then
      for got in pairs(seen) do
        if #got >= 2 and #got < #want and (want:sub(1, #got) == got or want:sub(-#got) == got) and got:match("%a") then
          fail("%s: the word %q is broken (%q)", what, want, got)
        end
      end
      fail("%s: the word %q is missing", what, want)
    end
  end
end

return M
