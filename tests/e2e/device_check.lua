-- tests/e2e/device_check.lua: the GPU check script says what happened (issue 38, class 6). From a
-- copy of the script in a source tree of its own, with TMPDIR holding a space (every path quoted):
--   a truncated bundle and an archive without the bundle are refused (exit 2, naming the archive)
--   before any part runs, and leave no temporary folder behind;
--   an OUT it cannot write (/sys, read-only even for root) is refused before any part starts;
--   a plan with a failing part runs every part, writes a summary line per part and a tally naming
--   it, and exits 1;
--   a plan that runs a real scenario from a bundle (the program behind the bundle's wrapper),
--   merges, renders, summarises and archives: exit 0, every file in OUT, nothing left in TMPDIR.
-- Skips without xz or python3 (the merge and summary steps are python3's).
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not sh("command -v xz >/dev/null && command -v python3 >/dev/null && echo yes"):find("yes") then
  return "skip", "no xz or no python3"
end

local tree, tmpdir = env.out .. "/src tree", env.out .. "/tmp dir"
local script = tree .. "/tests/bench/device-check.sh"
sh(("mkdir -p %s %s && cp %s %s"):format(q(tree .. "/tests/bench"), q(tmpdir),
  q(env.srcdir .. "/tests/bench/device-check.sh"), q(script)))
local fonts = read(env.builddir .. "/config.h"):match('#define SR_FONT_DIR "([^"]*)"')

-- A bundle as --pack makes it, small: the wrapper (bundle.sh's shape), the program, the fonts, a
-- scenario, the results script.
local stage = env.out .. "/stage/.devpack"
local function write(path, text)
  local f = assert(io.open(path, "w")); f:write(text); f:close()
end
sh(("mkdir -p %s/scenarios %s/tests/bench %s/fonts && ln -s %s %s/sparkreport && cp %s/DejaVuSans.ttf "
    .. "%s/DejaVuSans-Bold.ttf %s/DejaVuSansMono.ttf %s/fonts/ && cp %s %s/scenarios/ && cp %s %s/tests/bench/")
   :format(q(stage), q(stage), q(stage), q(env.bin), q(stage), q(fonts), q(fonts), q(fonts), q(stage),
           q(env.srcdir .. "/tests/scenarios/tiny.lua"), q(stage), q(env.srcdir .. "/tests/bench/device-results.py"),
           q(stage)))
write(stage .. "/run", '#!/bin/sh\nhere=$(cd "$(dirname "$0")" && pwd)\nprog="$here/sparkreport"\n'
  .. 'if [ $# -gt 0 ] && [ -x "$here/$1" ] && [ ! -d "$here/$1" ]; then prog="$here/$1"; shift; fi\nexec "$prog" "$@"\n')
sh("chmod +x " .. q(stage .. "/run"))
local archive = tree .. "/.devpack.tar.xz"
sh(("tar -C %s -cJhf %s .devpack"):format(q(env.out .. "/stage"), q(archive)))

local function check(plan, out)
  local cmd = ("TMPDIR=%s DC_PLAN=%s OUT=%s sh %s 2>&1; echo \"exit $?\""):format(q(tmpdir), q(plan), q(out), q(script))
  local text = sh(cmd)
  return tonumber(text:match("exit (%d+)\n$")), text
end
local function tmp_empty(what)
  local left = sh("ls -A " .. q(tmpdir))
  if left ~= "" then fail("%s: left in TMPDIR: %s", what, left) end
end

-- (1) a truncated bundle, (2) an archive without it: refused before any part, nothing left
local good = read(archive)
write(archive, good:sub(1, #good // 2))
local code, text = check("a 5 echo ran", env.out .. "/o1")
if code ~= 2 or not text:find("device-check.sh: cannot unpack " .. archive .. " (truncated, or not an xz tar archive)", 1, true)
   or text:find("ran", 1, true) then
  fail("a truncated bundle: exit %s\n%s", tostring(code), text)
end
tmp_empty("a truncated bundle")
sh(("cd %s && echo hello > other.txt && tar -cJf %s other.txt"):format(q(env.out), q(archive)))
code, text = check("a 5 echo ran", env.out .. "/o2")
if code ~= 2 or not text:find("device-check.sh: " .. archive .. " does not hold the bundle", 1, true) then
  fail("an archive without the bundle: exit %s\n%s", tostring(code), text)
end
if io.open(env.out .. "/o2/summary.txt") then fail("an archive without the bundle: a summary was written") end
tmp_empty("an archive without the bundle")
write(archive, good)

-- (3) an OUT it cannot write: refused before any part runs
code, text = check("a 5 echo ran", "/sys")
if code ~= 2 or not text:find("device-check.sh: OUT=/sys: cannot write there", 1, true) or text:find("time plan", 1, true) then
  fail("OUT=/sys: exit %s\n%s", tostring(code), text)
end
tmp_empty("OUT=/sys")

-- (4) a part that fails: every part runs, a line each, the tally, exit 1
local o4 = env.out .. "/o 4"
code, text = check("good 5 true\nbad 5 false\nlast 5 true", o4)
local sum = read(o4 .. "/summary.txt")
if code ~= 1 then fail("a failed part: exit %s\n%s", tostring(code), text) end
for _, line in ipairs { "good%s+ok", "bad%s+exit 1", "last%s+ok",
                        "device check: 1 of 3 parts failed, were cut or did not run: bad" } do
  if not sum:find(line) then fail("a failed part: the summary lacks %q:\n%s", line, sum) end
end
tmp_empty("a failed part")

-- (5) a real part from the bundle, then merge, render, summary and archive
local o5 = env.out .. "/o 5"
code, text = check(table.concat({
  'tiny 60 sh "$0" --step scenario tiny',
  'merge 20 sh "$0" --step merge',
  'render 30 "$dev/run" sparkreport render "$OUT/results.json" -o "$OUT/report.pdf"',
  'summary 20 sh "$0" --step summary',
  'archive 20 sh "$0" --step archive' }, "\n"), o5)
if code ~= 0 then fail("a plan that works: exit %s\n%s", tostring(code), text) end
sum = read(o5 .. "/summary.txt")
if not sum:find("device check: all 5 parts passed or skipped", 1, true) then fail("no tally:\n%s", sum) end
for _, f in ipairs { "results.json", "report.pdf", "logs.tar.xz" } do
  if not io.open(o5 .. "/" .. f) then fail("a plan that works: no %s in OUT:\n%s", f, text) end
end
tmp_empty("a plan that works")
return "pass"
