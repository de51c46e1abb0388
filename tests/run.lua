-- tests/run.lua: the test driver `make check` runs: C unit programs, Lua library tests, CLI
-- transcripts (tests/cli/*.t) and end-to-end checks (tests/e2e/*.lua). Prints one line per
-- test and ends with "N passed, N failed". Environment: SR_BIN, SR_BUILDDIR, SR_SRCDIR,
-- PDFTOTEXT, SR_UNIT_TESTS (set by Makefile.am). TESTS_ONLY=pattern runs matching tests (several
-- patterns separated by spaces: the tests any of them matches; make check-quick gives three).
local bin = assert(os.getenv("SR_BIN"), "SR_BIN not set")
local builddir = assert(os.getenv("SR_BUILDDIR"))
local srcdir = assert(os.getenv("SR_SRCDIR"))
package.path = srcdir .. "/tests/?.lua;" .. package.path

local passed, failed, skipped = 0, 0, 0
local only = os.getenv("TESTS_ONLY")   -- Lua patterns: run only matching tests

local function report(name, status, detail)
  if status == "pass" then passed = passed + 1; print("PASS " .. name)
  elseif status == "skip" then skipped = skipped + 1; print("SKIP " .. name .. (detail and (": " .. detail) or ""))
  else
    failed = failed + 1
    print("FAIL " .. name)
    if detail then for line in (detail .. "\n"):gmatch("(.-)\n") do print("     " .. line) end end
  end
end

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function tempdir()
  local out = sh("mktemp -d " .. q((os.getenv("TMPDIR") or "/tmp") .. "/sparkreport-test-XXXXXX"))
  return (out:gsub("%s+$", ""))
end

local function wanted(name)
  if not only then return true end
  for pattern in only:gmatch("%S+") do if name:find(pattern) then return true end end
  return false
end

-- C unit programs (Makefile.am's check_PROGRAMS): exit 0 pass, 77 skip, anything else fail.
for prog in (os.getenv("SR_UNIT_TESTS") or ""):gmatch("%S+") do
  local name = "unit/" .. prog:match("([^/]+)$")
  if wanted(name) then
    local out, code = sh(("cd %s && SR_SRCDIR=%s PDFTOTEXT=%s %s/%s"):format(q(srcdir), q(srcdir),
      q(os.getenv("PDFTOTEXT") or ""), q(builddir), prog))
    report(name, code == 0 and "pass" or code == 77 and "skip" or "fail", code ~= 0 and out or nil)
  end
end

-- Transcripts.
local transcript = require "transcript"
local list = sh("ls " .. q(srcdir .. "/tests/cli") .. "/*.t")
for file in list:gmatch("[^\n]+") do
  local name = "cli/" .. file:match("([^/]+)%.t$")
  if wanted(name) then
    local out = tempdir()
    local ok, detail = transcript.run(file, { bin = bin, srcdir = srcdir, out = out, sh = sh })
    sh("rm -rf " .. q(out))
    report(name, ok and "pass" or "fail", detail)
  end
end

-- End to end. Each test gets the runner's helpers: sh and q, fail (an error without a position),
-- read (a whole file), rate (the report's rule for rates, lua/sparkreport/format.lua), plain (a PDF's text),
-- mpi (an MPI job's launch prefix) and schema_version (the writer's).
local function fail(fmt, ...) error(fmt:format(...), 0) end
local function read(path)
  local f = assert(io.open(path, "rb")); local s = f:read("a"); f:close(); return s
end
local function rate(x)           -- as sparkreport.format writes a rate: "3,350", "273", "46.9", "0.63"
  if x >= 1000 then
    local s = ("%.0f"):format(x):reverse():gsub("(%d%d%d)", "%1,"):reverse()
    return (s:gsub("^,", ""))
  end
  if x >= 100 then return ("%.0f"):format(x) elseif x >= 10 then return ("%.1f"):format(x) end
  return ("%.2f"):format(x)
end
-- A PDF's plain text without the page furniture (the running footer, "Prepared for ... · run ...",
-- and "Page N of M", the form feed and the running title after it), so that a paragraph reads on
-- across a page break.
local function plain(pdf)
  local t = sh(("%s %s -"):format(q(os.getenv("PDFTOTEXT") or "pdftotext"), q(pdf)))
  t = t:gsub("\n[^\n]*Prepared for [^\n]* · run [^\n]*\n", "\n")
  return (t:gsub("%s*Page %d+ of %d+%s*\f[^\n]*\n", " "))
end
-- The command prefix that starts n ranks of an MPI job, or nil and why an MPI test skips (no MPI
-- in the build, no mpirun). As root (CI), Open MPI refuses to start without the ALLOW variables;
-- --oversubscribe: more ranks than cores; in sanitizer builds Open MPI's own leaks in MPI_Init and
-- MPI_Finalize are suppressed (full stacks so the suppressions see those frames); other builds
-- ignore both variables.
local function mpi(n)
  local f = io.open(builddir .. "/config.h")
  local config = f and f:read("a") or ""
  if f then f:close() end
  if not config:find("#define HAVE_MPI 1", 1, true) then return nil, "this build has no MPI (configure says why)" end
  local mpirun = os.getenv("SR_MPIRUN") or ""
  if mpirun == "" then return nil, "mpirun not found" end
  return ("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LSAN_OPTIONS=suppressions=%s:print_suppressions=0 "
          .. "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0\" "
          .. "%s --allow-run-as-root --oversubscribe -np %d")
         :format(q(srcdir .. "/tests/lsan-mpi.supp"), q(mpirun), n)
end
-- The results schema version the writer writes (src/util/schema.h).
local schema_version = tonumber(read(srcdir .. "/src/util/schema.h"):match("#define SR_SCHEMA_VERSION (%d+)"))
local e2e = sh("ls " .. q(srcdir .. "/tests/e2e") .. "/*.lua")
for file in e2e:gmatch("[^\n]+") do
  local name = "e2e/" .. file:match("([^/]+)%.lua$")
  if wanted(name) then
    local out = tempdir()
    local chunk = assert(loadfile(file))
    local ok, status, detail = pcall(chunk, { bin = bin, srcdir = srcdir, builddir = builddir, out = out, sh = sh,
                                              q = q, pdftotext = os.getenv("PDFTOTEXT"), fail = fail,
                                              read = read, rate = rate, plain = plain, mpi = mpi,
                                              schema_version = schema_version })
    sh("rm -rf " .. q(out))
    if not ok then report(name, "fail", tostring(status)) else report(name, status, detail) end
  end
end

print(("%d skipped"):format(skipped))
print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
