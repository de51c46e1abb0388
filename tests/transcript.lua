-- tests/transcript.lua: runs a CLI transcript. A transcript is a list of commands, each a
-- line "$ COMMAND", then the expected output lines (stdout and stderr together), then
-- optionally "[N]" for the exit code (default 0). In expected lines {num} matches a number,
-- {*} any text, and a line "..." any number of lines. $OUT is an empty folder, the commands
-- run in the source tree, and `sparkreport` is the program under test.
local M = {}

local function to_pattern(line)
  local p = line:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")
  p = p:gsub("{num}", "[-+]?%%d+%%.?%%d*[eE]?[-+]?%%d*"):gsub("{%%%*}", ".*")
  return "^" .. p .. "$"
end

local function match(expected, got)
  local function at(i, j)
    if i > #expected then return j > #got end
    if expected[i] == "..." then
      for k = j, #got + 1 do if at(i + 1, k) then return true end end
      return false
    end
    return j <= #got and got[j]:find(to_pattern(expected[i])) ~= nil and at(i + 1, j + 1)
  end
  return at(1, 1)
end

local function parse(file)
  local cmds, cur = {}, nil
  for line in io.lines(file) do
    if line:sub(1, 2) == "$ " then
      cur = { cmd = line:sub(3), expect = {}, code = 0 }
      cmds[#cmds + 1] = cur
    elseif cur and line:match("^%[(%d+)%]$") then
      cur.code = tonumber(line:match("^%[(%d+)%]$"))
    elseif cur and not line:match("^#") and line ~= "" then
      cur.expect[#cur.expect + 1] = line
    end
  end
  return cmds
end

function M.run(file, env)
  for _, c in ipairs(parse(file)) do
    local cmd = c.cmd:gsub("^sparkreport", env.bin):gsub("([|;&] *)sparkreport", "%1" .. env.bin)
    local out, code = env.sh(("cd '%s' && OUT='%s' && export OUT && %s"):format(env.srcdir, env.out, cmd))
    local got = {}
    for line in out:gmatch("([^\n]*)\n") do got[#got + 1] = line end
    if code ~= c.code or not match(c.expect, got) then
      return false, ("$ %s\nexpected exit %d, got %d\nexpected:\n  %s\ngot:\n  %s"):format(c.cmd, c.code, code,
        table.concat(c.expect, "\n  "), table.concat(got, "\n  "))
    end
  end
  return true
end

return M
