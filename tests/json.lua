-- tests/json.lua: a small JSON decoder and encoder for the tests (they read and make results
-- files independently of the program under test). Numbers become Lua numbers, null json.null.
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

-- Encodes tables with keys 1..n as arrays, others as objects (keys sorted); NaN as null.
function M.encode(v)
  local t = type(v)
  if v == M.null or v == nil then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v then return "null" end
    return math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c) return ("\\u%04x"):format(c:byte()) end) .. '"'
  end
  local n, count = #v, 0
  for _ in pairs(v) do count = count + 1 end
  local out = {}
  if count == n then
    for i = 1, n do out[i] = M.encode(v[i]) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do out[#out + 1] = M.encode(k) .. ":" .. M.encode(v[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end

return M
