-- tests/e2e/scripts.lua: guards src/report/encoding.c and text.c (other scripts drawn as runs of one
-- code page each, a ToUnicode map on those fonts), src/results/draw.c (draw_check_text) and
-- lua/sparkreport/schema.lua ("text"): a scenario titled in Russian for a Russian team, with a provider
-- named in Cyrillic in data/offers.csv (a user's edit, built in: Makefile.am's edited-binary) and a
-- vendor's claim sourced in Cyrillic and Greek in data/vendor-claims.csv, draws that text on page 1 as
-- written (pdftotext finds it), results.json and results.csv keep it as given, render with
-- SOURCE_DATE_EPOCH gives the same bytes twice; Greek (mu too), Central European, Turkish and Baltic
-- letters extract as written; CJK is refused before measuring (exit 3, the field and fonts-noto-cjk
-- named) and by render (exit 4, its place in the file) (issue 50, class 3: "?????? GPU ?").
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local function write(path, text) local f = assert(io.open(path, "wb")); f:write(text); f:close() end
local function page1(pdf) return (sh(("%s -l 1 %s - | tr -s ' \\n' '  '"):format(q(env.pdftotext), q(pdf)))) end

-- the program with the edited data files, built as a user's edit reaches a run
local tree = env.out .. "/tree"
local out, rc = sh(("mkdir -p %s && cp -r %s %s %s %s"):format(q(tree), q(env.srcdir .. "/lua"),
                   q(env.srcdir .. "/templates"), q(env.srcdir .. "/data"), q(tree)))
if rc ~= 0 then fail("copying the tree: %s", out) end
local PROVIDER, CLAIM = "Облачный провайдер «Север»", "Блог NVIDIA: Llama 3.2 3B, σ = 3 %, μ-batch 8"
local offers = read(tree .. "/data/offers.csv"):gsub(",AWS EC2,([^\n]-),6%.88,", "," .. PROVIDER .. ",%1,0.5,", 1)
write(tree .. "/data/offers.csv", offers)
local claims = read(tree .. "/data/vendor-claims.csv")
claims = claims:gsub("(\nspark%-llama3b%-full,[^\n]*,)\"[^\n]*\"\n", "%1\"" .. CLAIM:gsub("%%", "%%%%") .. "\"\n", 1)
write(tree .. "/data/vendor-claims.csv", claims)
out, rc = sh(("make -s -C %s edited-binary EDITED=%s"):format(q(env.builddir), q(tree)))
if rc ~= 0 then fail("make edited-binary: %s", out) end
local bin = tree .. "/sparkreport"

-- a Russian title and team name
local TITLE, TEAM = "Скорость памяти и время обучения", "команда машинного обучения"
local scn = env.out .. "/ru.lua"
write(scn, ([[
local sr = require "sparkreport"
return sr.scenario {
  title = %q, team_name = %q, budget_s = 20,
  team = sr.team { people = 3, deadline_h = 48, jobs = { { "gpt2-124m", per_month = 4 } } },
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "gpt2-124m" },
}
]]):format(TITLE, TEAM))
out, rc = sh(("%s run %s -q -o %s"):format(q(bin), q(scn), q(env.out .. "/r")))
if rc ~= 0 then fail("run exited %d: %s", rc, out) end
local dir = out:match("^(.-)/report%.pdf\n$") or fail("run printed %q", out)
local p1 = page1(dir .. "/report.pdf")
for _, want in ipairs { "DGX Spark or HBM GPUs for " .. TEAM .. ": training cost and time", PROVIDER } do
  if not p1:find(want, 1, true) then fail("report page 1 lacks %q:\n%s", want, p1) end
end
if p1:gsub("HBM GPUs%?", ""):find("?", 1, true) then fail("report page 1 draws a '?':\n%s", p1) end
local a1 = page1(dir .. "/annex.pdf")
if not a1:find(TITLE, 1, true) then fail("annex page 1 lacks the title %q:\n%s", TITLE, a1) end
local doc = read(dir .. "/results.json")
for _, want in ipairs { TITLE, TEAM, PROVIDER, CLAIM } do
  if not doc:find(json.encode(want), 1, true) then fail("results.json does not keep %q as given", want) end
end
if not read(dir .. "/results.csv"):find(CLAIM, 1, true) then fail("results.csv does not keep %q as given", CLAIM) end
local drawn = sh(("%s %s - | tr -s ' \\n' '  '; %s %s - | tr -s ' \\n' '  '"):format(q(env.pdftotext),
                 q(dir .. "/report.pdf"), q(env.pdftotext), q(dir .. "/annex.pdf")))
if not drawn:find(CLAIM, 1, true) then fail("neither PDF draws the claim's source %q", CLAIM) end

-- render twice with SOURCE_DATE_EPOCH: the same bytes
local pdfs = {}
for i = 1, 2 do
  pdfs[i] = ("%s/again%d.pdf"):format(env.out, i)
  out, rc = sh(("SOURCE_DATE_EPOCH=1700000000 %s render %s -o %s"):format(q(bin), q(dir .. "/results.json"), q(pdfs[i])))
  if rc ~= 0 then fail("render: %s", out) end
end
for _, f in ipairs { "", "-annex" } do
  local a, b = read(pdfs[1]:gsub("%.pdf$", f .. ".pdf")), read(pdfs[2]:gsub("%.pdf$", f .. ".pdf"))
  if a ~= b then fail("render%s is not byte-reproducible", f) end
end

-- other scripts, drawn and read back as written (Greek mu too: its glyph's name reads as micro)
local d = json.decode(doc)
local MIXED = "Ομάδα μηχανικής μάθησης, zespół z Łodzi, Türk ekibi ığş, Rīgas komanda ķļņ"
d.scenario.team_name = MIXED
local mixed = env.out .. "/mixed.json"
write(mixed, json.encode(d))
out, rc = sh(("%s render %s -o %s"):format(q(bin), q(mixed), q(env.out .. "/mixed.pdf")))
if rc ~= 0 then fail("render of other scripts: %s", out) end
p1 = page1(env.out .. "/mixed.pdf")
if not p1:find(MIXED, 1, true) then fail("page 1 lacks %q:\n%s", MIXED, p1) end

-- CJK: refused before measuring, naming the field and the package; by render, naming its place
local CJK = "'中', U+4E2D) cannot be drawn: it is CJK, and the report's fonts (DejaVu, Debian fonts-dejavu-core) "
            .. "draw Latin, Greek and Cyrillic; a font that has it (Debian fonts-noto-cjk) is not one sparkreport can embed"
out, rc = sh(("%s run %s -q -o %s --set 'team_name=команда 中'"):format(q(bin), q(scn), q(env.out .. "/cjk")))
if rc ~= 3 or out ~= ("%s: scenario: team_name: character 9 (%s\n"):format(scn, CJK) then
  fail("a CJK team name: exit %d: %s", rc, out)
end
if io.open(env.out .. "/cjk") then fail("the refused run wrote its folder") end
d.scenario.team_name = TEAM
d.catalog.offers.rows[1].provider = "Север 中"
write(mixed, json.encode(d))
out, rc = sh(("%s render %s -o %s"):format(q(bin), q(mixed), q(env.out .. "/cjk.pdf")))
if rc ~= 4 or out ~= ("sparkreport: %s: catalog.offers.rows[1].provider: character 7 (%s\n"):format(mixed, CJK) then
  fail("render of a CJK provider: exit %d: %s", rc, out)
end
return "pass"
