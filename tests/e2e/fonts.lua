-- tests/e2e/fonts.lua: damaged fonts (class 9 of issue 18). Copies of the DejaVu fonts with a
-- damaged header, table count, table offset, unitsPerEm, loca, cmap or data, a truncated or
-- empty file, a folder and a FIFO in a font's place, given through SPARKREPORT_FONT_DIR: render
-- refuses each with exit 1 and "FILE: not a usable TrueType font: why" (or the file's own
-- problem), never a crash, and writes no PDF. The undamaged copies render.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local fixture = env.srcdir .. "/tests/fixtures/results/tiny.json"
local config = read(env.builddir .. "/config.h")
local fonts = os.getenv("SPARKREPORT_FONT_DIR") or config:match('#define SR_FONT_DIR "([^"]*)"')
local names = { "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf" }
local good = read(fonts .. "/" .. names[1])

local function write(path, s) local f = assert(io.open(path, "wb")); f:write(s); f:close() end

-- The table directory: tag -> { rec = offset of its record, off, len } (0-based offsets).
local function dir(s)
  local t, n = {}, string.unpack(">I2", s, 5)
  for i = 0, n - 1 do
    local rec = 12 + 16 * i
    local tag, _, off, len = string.unpack(">c4I4I4I4", s, rec + 1)
    t[tag] = { rec = rec, off = off, len = len }
  end
  return t
end

local function put(s, at, fmt, v) local b = string.pack(fmt, v); return s:sub(1, at) .. b .. s:sub(at + #b + 1) end

-- Changes bytes of table `tag` at `at` and sets its checksum again, so only the field is wrong.
local function patch(s, tag, at, fmt, v)
  local e = dir(s)[tag]
  s = put(s, e.off + at, fmt, v)
  local sum, body = 0, s:sub(e.off + 1, e.off + e.len) .. ("\0"):rep(3)
  for o = 0, e.len - 1, 4 do
    if not (tag == "head" and o == 8) then sum = (sum + string.unpack(">I4", body, o + 1)) & 0xffffffff end
  end
  return put(s, e.rec + 4, ">I4", sum)
end

local cases = {
  { "header", function(s) return put(s, 0, ">I4", 0x12345678) end, "its header is not a TrueType header" },
  { "numTables zero", function(s) return put(s, 4, ">I2", 0) end, "its table count" },
  { "numTables huge", function(s) return put(s, 4, ">I2", 0xffff) end, "its table count" },
  { "offset past the end", function(s) return put(s, 12 + 8, ">I4", 0x7ffffff0) end, "lies outside the file" },
  { "length past the end", function(s) return put(s, 12 + 16 + 12, ">I4", 0x7ffffff0) end, "lies outside the file" },
  { "unitsPerEm 0", function(s) return patch(s, "head", 18, ">I2", 0) end, "unitsPerEm" },
  { "indexToLocFormat 7", function(s) return patch(s, "head", 50, ">I2", 7) end, "indexToLocFormat" },
  { "numGlyphs 0", function(s) return patch(s, "maxp", 4, ">I2", 0) end, "no glyphs" },
  { "numberOfHMetrics huge", function(s) return patch(s, "hhea", 34, ">I2", 0xffff) end, "horizontal metrics" },
  { "loca outside glyf", function(s) return patch(s, "loca", 8, ">I2", 0xffff) end, "'loca'" },
  { "cmap subtables", function(s) return patch(s, "cmap", 2, ">I2", 0xffff) end, "'cmap'" },
  { "name count", function(s) return patch(s, "name", 2, ">I2", 0xffff) end, "'name'" },
  { "damaged glyph data", function(s) local e = dir(s).glyf; return put(s, e.off + 100, ">I4", 0xdeadbeef) end,
    "does not match its checksum" },
  { "truncated", function(s) return s:sub(1, #s // 2) end, "lies outside the file" },
  { "empty", function() return "" end, "12 bytes to 64 MiB" },
}

local pdf = env.out .. "/r.pdf"
local function render(dir_)
  return sh(("SPARKREPORT_FONT_DIR=%s %s render %s -o %s"):format(q(dir_), q(env.bin), q(fixture), q(pdf)))
end

local function refused(name, dir_, want)
  local out, code = render(dir_)
  if code ~= 1 then fail("%s: exit %d, expected 1:\n%s", name, code, out) end
  local path = dir_ .. "/" .. names[1]
  if not out:find("sparkreport: " .. path .. ": ", 1, true) or not out:find(want, 1, true) then
    fail("%s: the message does not name the font and say %q:\n%s", name, want, out)
  end
  if io.open(pdf) then fail("%s: a PDF was written", name) end
end

for i, c in ipairs(cases) do
  local d = ("%s/fonts%d"):format(env.out, i)
  sh("mkdir -p " .. q(d) .. " && cp " .. q(fonts .. "/" .. names[2]) .. " " .. q(fonts .. "/" .. names[3]) .. " " .. q(d))
  write(d .. "/" .. names[1], c[2](good))
  refused(c[1], d, c[3])
end

-- not a file: a folder and a FIFO (opened without blocking)
local d = env.out .. "/fonts-kinds"
sh("mkdir -p " .. q(d) .. " && cp " .. q(fonts .. "/" .. names[2]) .. " " .. q(fonts .. "/" .. names[3]) .. " " .. q(d))
sh("mkdir " .. q(d .. "/" .. names[1]))
refused("a folder", d, "not a regular file")
sh("rmdir " .. q(d .. "/" .. names[1]) .. " && mkfifo " .. q(d .. "/" .. names[1]))
refused("a FIFO", d, "not a regular file")

-- run refuses a damaged font before it measures anything, and leaves no run folder
do
  local bad = env.out .. "/fonts1"
  local reports = env.out .. "/font-reports"
  local out, code = sh(("SPARKREPORT_FONT_DIR=%s %s run %s -o %s"):format(q(bad), q(env.bin),
                       q(env.srcdir .. "/tests/scenarios/tiny.lua"), q(reports)))
  if code ~= 1 then fail("run with a damaged font: exit %d, expected 1:\n%s", code, out) end
  if not out:find(bad .. "/" .. names[1] .. ": not a usable TrueType font", 1, true) then
    fail("run with a damaged font: the message does not name the font:\n%s", out)
  end
  if out:find("[bandwidth", 1, true) then fail("run with a damaged font measured first:\n%s", out) end
  local ls = sh("if [ -d " .. q(reports) .. " ]; then ls -A " .. q(reports) .. "; fi")
  if ls:find("%S") then fail("run with a damaged font left %s", ls) end
end

-- the undamaged copies render
sh("rm " .. q(d .. "/" .. names[1]))
write(d .. "/" .. names[1], good)
local out, code = render(d)
if code ~= 0 or not io.open(pdf) then fail("undamaged fonts: exit %d:\n%s", code, out) end
return "pass"
