-- tests/e2e/installed.lua: `make install DESTDIR=...` gives a working tool (Makefile.am's install
-- rules, src/util/datadir.c, the scenario lookup in src/cmd/run.c): it installs the program, its man
-- page, the shipped scenarios and the templates' source and nothing else; the installed program
-- looks for its scenarios where make installs them; from an empty folder it lists them and runs quick
-- by its name, writing both PDFs under ./reports and nothing under the install
-- (tests/check-installed.sh, at reduced sizes); `make uninstall DESTDIR=...` leaves no file behind.
local env = ...
local sh, q, fail = env.sh, env.q, env.fail
if sh("command -v make >/dev/null && echo yes"):find("yes") == nil then return "skip", "no make" end
local stage = env.out .. "/stage"
local function make(target)
  local out, code = sh(("cd %s && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s %s DESTDIR=%s")
                       :format(q(env.builddir), target, q(stage)))
  if code ~= 0 then fail("make %s DESTDIR=%s exited %d:\n%s", target, stage, code, out) end
end
local function files()
  local list = {}
  for f in sh(("cd %s && find . ! -type d | sort"):format(q(stage))):gmatch("[^\n]+") do list[#list + 1] = f:sub(2) end
  return list
end

make("install")
local got = files()
local prefix = (got[1] or ""):match("^(.*)/bin/sparkreport$")
if not prefix then fail("make install put no bin/sparkreport first:\n%s", table.concat(got, "\n")) end
local want = { prefix .. "/bin/sparkreport", prefix .. "/share/man/man1/sparkreport.1" }
for _, s in ipairs { "default", "driver-update", "example", "quick", "scale-out" } do
  want[#want + 1] = prefix .. "/share/sparkreport/scenarios/" .. s .. ".lua"
end
for _, t in ipairs { "procurement", "regression" } do want[#want + 1] = prefix .. "/share/sparkreport/templates/" .. t .. ".lua" end
table.sort(want)
if table.concat(got, "\n") ~= table.concat(want, "\n") then
  fail("make install put:\n  %s\nexpected:\n  %s", table.concat(got, "\n  "), table.concat(want, "\n  "))
end
local bin, data = stage .. prefix .. "/bin/sparkreport", prefix .. "/share/sparkreport"

-- without SPARKREPORT_DATA_DIR the program looks where make installs (the path it was built for)
local list = sh(("cd %s && env -u SPARKREPORT_DATA_DIR %s list"):format(q(env.out), q(bin)))
local where = list:match("\nshipped scenarios [^\n]*, in ([^\n]*):\n")
if where ~= data .. "/scenarios" then fail("the installed program looks for its scenarios in %s, not %s/scenarios",
                                           tostring(where), data) end

local out, code = sh(("SPARKREPORT_DATA_DIR=%s sh %s %s %s"):format(q(stage .. data), q(env.srcdir .. "/tests/check-installed.sh"),
                                                                   q(bin), q(stage)))
if code ~= 0 then fail("tests/check-installed.sh exited %d:\n%s", code, out) end

make("uninstall")
local left = files()
if #left > 0 then fail("make uninstall left:\n  %s", table.concat(left, "\n  ")) end
if sh("test -e " .. q(stage .. data) .. " && echo there"):find("there") then
  fail("make uninstall left the folder %s", data)
end
return "pass"
