-- tests/lua/sandbox.lua: what scenario code cannot reach: files, processes, the environment,
-- binary chunks, the debug library, modules outside sparkreport's own library.
local function refused(fn, msg)
  local ok, err = pcall(fn)
  assert(not ok and err:find(msg, 1, true), tostring(err))
end
refused(function() return io.open end, "io.open is not available in a scenario: scenarios cannot read or write files")
refused(function() return io.popen("ls") end, "io.popen is not available in a scenario")
refused(function() return debug.getinfo end, "debug.getinfo is not available in a scenario")
for _, f in ipairs { "execute", "remove", "rename", "exit", "getenv", "tmpname" } do
  refused(function() return os[f] end, "os." .. f .. " is not available in a scenario: scenarios cannot run programs")
end
assert(dofile == nil and loadfile == nil)
assert(type(os.time()) == "number" and type(os.clock()) == "number" and os.date("!%Y", 0) == "1970")
assert(package.loadlib == nil)

local ok, err = pcall(require, "os")
assert(ok and rawget(err, "execute") == nil, "require 'os' must give the restricted table")
ok, err = pcall(require, "io")
assert(ok and rawget(err, "open") == nil, "require 'io' must give the empty table")
ok, err = pcall(require, "socket")
assert(not ok and err:find("no module 'socket' in sparkreport's Lua library", 1, true), err)

local bytecode = string.dump(function() return 1 end)
local f, lerr = load(bytecode)
assert(f == nil and lerr:find("attempt to load a binary chunk"), lerr)
assert(load("return 1 + 1")() == 2, "text chunks still load")

-- the memory ceiling ends a runaway allocation with an error, not a crash
ok, err = pcall(function() local t = {} ; for i = 1, 1e9 do t[i] = ("x"):rep(1000) .. i end end)
assert(not ok and tostring(err):find("not enough memory"), tostring(err))
