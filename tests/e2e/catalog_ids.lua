-- tests/e2e/catalog_ids.lua: guards src/ and lua/ (every .c, .h, .cu and .lua file) against a catalog
-- system's id written in the code: each id of data/systems.csv, as a whole word (comments too), is a
-- hit. The code asks the catalog for a row's columns (generation, sms, span, match_*) or a role
-- (roles: subject, compared, shared) instead, so that adding a system is rows in data/ only.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local ids = {}
for line in read(env.srcdir .. "/data/systems.csv"):gmatch("[^\n]+") do
  local id = line:match("^([%w][%w%.%-]*),")
  if id and id ~= "id" then ids[#ids + 1] = id end
end
if #ids < 10 then fail("data/systems.csv: %d ids read, expected the catalog's rows", #ids) end

local function word_at(text, id)          -- the first place id stands as a whole word, or nil
  local init = 1
  while true do
    local a, b = text:find(id, init, true)
    if not a then return nil end
    if not text:sub(a - 1, a - 1):find("[%w_%-]") and not text:sub(b + 1, b + 1):find("[%w_%-]") then return a end
    init = b + 1
  end
end

local list = sh(("cd %s && find src lua -type f \\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.lua' \\) "
                 .. "| LC_ALL=C sort"):format(q(env.srcdir)))
local hits, files = {}, 0
for path in list:gmatch("[^\n]+") do
  files = files + 1
  local n = 0
  for line in (read(env.srcdir .. "/" .. path) .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    for _, id in ipairs(ids) do
      if word_at(line, id) then hits[#hits + 1] = ("%s:%d: '%s': %s"):format(path, n, id, line:gsub("^%s+", "")) end
    end
  end
end
if files < 50 then fail("found %d source files under src/ and lua/", files) end
if #hits > 0 then
  fail("%d catalog system id(s) written in code (ask the catalog for a column or a role instead):\n%s", #hits,
       table.concat(hits, "\n"))
end
return "pass"
