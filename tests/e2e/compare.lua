-- tests/e2e/compare.lua: a rerun compared with the run before it. scenarios/driver-update.lua
-- (cut down with --set to take seconds) runs twice into one reports folder: the first finds no
-- reports/latest and says so; the second writes comparison.json and comparison.pdf and exits
-- as they say. `sparkreport compare` of the two folders agrees with the run's own comparison,
-- a run compared with itself is unchanged throughout, and the PDFs say so (pdftotext).
local env = ...
local json = require "json"
local sh, q = env.sh, env.q

local fail = env.fail
local read = env.read
local root = env.out .. "/reports"
local run = ("cd %s && %s run scenarios/driver-update.lua -o %s --set budget_s=6 --set bandwidth.min_reps=3 "
             .. "--set bandwidth.max_reps=4 --set bandwidth.max_size=1MiB --set bandwidth.sample_s=0.0005")
            :format(q(env.srcdir), q(env.bin), q(root))

-- first run: no baseline yet, reported, not fatal
local out, code = sh(run)
if code ~= 0 then fail("first run exited %d: %s", code, out) end
if not out:find("baseline 'latest': " .. root .. "/latest does not exist, so this run is compared with nothing", 1, true) then
  fail("first run does not say the baseline is missing:\n%s", out)
end
local first = out:match("([^\n]*)/report%.pdf\n")
if out:find("comparison.pdf", 1, true) or io.open(first .. "/comparison.json") then fail("first run compared with something") end

-- second run: compared with the first
sh("sleep 1")
out, code = sh(run)
local second = out:match("([^\n]*)/report%.pdf\n")
if not second or not out:find(second .. "/comparison.pdf\n", 1, true) then fail("second run printed:\n%s", out) end
local cmp = json.decode(read(second .. "/comparison.json"))
if cmp.schema ~= "sparkreport/comparison" then fail("comparison schema %s", tostring(cmp.schema)) end
local real = sh("realpath " .. q(first .. "/results.json")):gsub("%s+$", "")
if cmp.baseline.path ~= real then fail("baseline %s, expected %s", cmp.baseline.path, real) end
if cmp.current.path ~= "results.json" then fail("current %s", cmp.current.path) end
local r2 = json.decode(read(second .. "/results.json"))
if r2.scenario.baseline ~= "latest" then fail("results.json records baseline %s", tostring(r2.scenario.baseline)) end
-- what reruns it: the command line as given, from the folder it ran in (the appendix prints both)
local args = run:match(" run (scenarios/driver%-update%.lua .*)$"):gsub("'", "")
if r2.scenario.command ~= "sparkreport run " .. args then fail("command recorded as %s", r2.scenario.command) end
local cwd = sh("cd " .. q(env.srcdir) .. " && pwd -P"):gsub("%s+$", "")
if r2.scenario.cwd ~= cwd then fail("cwd recorded as %s, expected %s", tostring(r2.scenario.cwd), cwd) end
local n = 0
for _, e in ipairs(r2.experiments) do for _, rec in ipairs(e.results) do if rec.samples_s then n = n + 1 end end end
if n == 0 or cmp.counts.compared ~= n then fail("%d records with samples, %d compared", n, cmp.counts.compared) end
local want = cmp.counts.slower > 0 and 6 or 0
if code ~= want then fail("second run exited %d; its comparison has %d slower", code, cmp.counts.slower) end
if not sh("cat " .. q(second .. "/run.log")):find("compared with the baseline " .. real, 1, true) then
  fail("run.log does not name the baseline")
end

-- the command agrees with the run's own comparison, on run folders
local text, c2 = sh(("%s compare %s %s -o %s"):format(q(env.bin), q(first), q(second), q(env.out .. "/c.pdf")))
if c2 ~= want then fail("compare exited %d, the run %d", c2, want) end
if not text:find(cmp.summary, 1, true) then fail("compare says:\n%s\nthe run said: %s", text, cmp.summary) end

-- a run against itself: all unchanged, exit 0
text, c2 = sh(("%s compare %s %s/latest --json"):format(q(env.bin), q(second), q(root)))
if c2 ~= 0 then fail("self compare exited %d: %s", c2, text) end
local self = json.decode(text)
if self.counts.unchanged ~= n or self.counts.not_comparable ~= 0 or self.counts.geomean ~= 1 then
  fail("self compare: %d unchanged of %d, %d not comparable, geomean %s", self.counts.unchanged, n,
       self.counts.not_comparable, tostring(self.counts.geomean))
end

-- the same inputs give the same PDF, byte for byte
local fx = env.srcdir .. "/tests/fixtures/compare/"
local a, b = env.out .. "/a.pdf", env.out .. "/b.pdf"
sh(("%s compare %s %s -o %s"):format(q(env.bin), q(fx .. "baseline.json"), q(fx .. "slower.json"), q(a)))
sh(("%s compare %s %s -o %s"):format(q(env.bin), q(fx .. "baseline.json"), q(fx .. "slower.json"), q(b)))
if read(a) ~= read(b) then fail("two comparisons of the same files differ") end

-- the PDFs' text
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local function pdf(path) return (sh(("%s -layout %s -"):format(q(env.pdftotext), q(path)))) end
local t = pdf(a)
for _, want_text in ipairs {
  "Regression report: Rerun after a driver update",
  "SLOWER: 2 results are slower than the baseline (p < 0.01 and a change of the",
  "2 of 3 compared results are slower than the baseline",
  "Environment", "Verdicts", "Not comparable", "Method", "The 3 largest changes",
  "only in the current run", "Free memory is not compared",
} do
  if not t:find(want_text, 1, true) then fail("regression PDF lacks %q", want_text) end
end
for _, pattern in ipairs {
  "CUDA driver%s+13000%s+13010", "Kernel%s+6%.11%.0%-1016%-nvidia%s+6%.11%.0%-1017%-nvidia",
  "triad fp64 size, 1024 MiB, 20%s+40%.02 ms%s+44%.05 ms%s+%+10%.1 %%%s+1%.1e%-05 slower",
  "read fp64 size, 341 MiB, 20 threads%s+19%.01 ms%s+20%.93 ms%s+%+10%.1 %%%s+1%.1e%-05 slower",
  "copy fp64 size, 32 KiB, 20 threads%s+1%.6 µs%s+1%.6 µs%s+%+0%.1 %%%s+0%.9705 unchanged",
  "bandwidth cpu%s+3%s+2%s+0%s+1%s+0%s+0%.938x %(%-6%.2 %%%)",
} do
  if not t:find(pattern) then fail("regression PDF lacks a match for %s", pattern) end
end
local vars, names = r2.context.build.openmp_env or {}, {}
for k in pairs(vars) do names[#names + 1] = k end
table.sort(names)
for i, k in ipairs(names) do names[i] = k .. "=" .. vars[k] .. " " end
local rerun = "Rerun with: cd " .. cwd .. " && " .. table.concat(names) .. r2.scenario.command
-- compared without whitespace and without the page furniture (footer "Page N of M", form feed, running
-- title): where the paragraph wraps and whether it crosses a page depends on what the run printed before it
local plain = env.plain(second .. "/annex.pdf")       -- the technical annex holds the rerun command
if not plain:gsub("%s", ""):find(rerun:gsub("%s", ""), 1, true) then
  fail("annex.pdf lacks %q; it has %q", rerun, plain:match("Rerun with:.-The command") or "no 'Rerun with:'")
end
t = pdf(second .. "/comparison.pdf")
if not t:find("Nothing is slower than the baseline.", 1, true) and not t:find("SLOWER:", 1, true) then
  fail("the run's comparison.pdf has no verdict")
end
return "pass"
