-- tests/json.lua: a small JSON decoder for the tests (they read results.json independently
-- of the program under test). Numbers become Lua numbers, null becomes json.null.
local M = { null = setmetatable({}, { __tostring = function() return "null" end }) }

function M.decode(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local value
  local function str()
    local out, i = {}, pos + 1
    while true do
      local c = s:sub(i, i)
      if c == '"' then pos = i + 1; return table.concat(out) end
      if c == "\\" then
        local e = s:sub(i + 1, i + 1)
        local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
        if e == "u" then out[#out + 1] = utf8.char(tonumber(s:sub(i + 2, i + 5), 16)); i = i + 6
        else out[#out + 1] = map[e] or e; i = i + 2 end
      elseif c == "" then error("unterminated string")
      else out[#out + 1] = c; i = i + 1 end
    end
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1; return t end
      repeat
        ws(); local k = str(); ws()
        assert(s:sub(pos, pos) == ":", "expected ':' at " .. pos); pos = pos + 1
        t[k] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
      until d == "}"
      return t
    elseif c == "[" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1; return t end
      repeat
        t[#t + 1] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
      until d == "]"
      return t
    elseif c == '"' then return str()
    elseif s:sub(pos, pos + 3) == "true" then pos = pos + 4; return true
    elseif s:sub(pos, pos + 4) == "false" then pos = pos + 5; return false
    elseif s:sub(pos, pos + 3) == "null" then pos = pos + 4; return M.null
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      assert(num and #num > 0, "bad JSON at " .. pos)
      pos = pos + #num
      return tonumber(num)
    end
  end
  return value()
end

return M
