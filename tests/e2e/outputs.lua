-- tests/e2e/outputs.lua: runs never disturb each other or leave half files: a second run
-- leaves the first untouched and moves `latest`; a run that cannot write fails naming the
-- path and leaves nothing; render refuses to overwrite through a missing folder.
local env = ...
local sh, q = env.sh, env.q
local fail = env.fail
local run = ("cd %s && %s run tests/scenarios/tiny.lua -q -o %%s"):format(q(env.srcdir), q(env.bin))
local root = env.out .. "/reports"

local first, c1 = sh(run:format(q(root)))
if c1 ~= 0 then fail("first run: %s", first) end
first = first:gsub("/report%.pdf\n$", "")
local before = sh("cd " .. q(first) .. " && sha256sum *")
sh("sleep 1")
local second, c2 = sh(run:format(q(root)))
if c2 ~= 0 then fail("second run: %s", second) end
second = second:gsub("/report%.pdf\n$", "")
if second == first then fail("both runs wrote %s", first) end
if sh("cd " .. q(first) .. " && sha256sum *") ~= before then fail("the second run changed the first") end
if sh("readlink " .. q(root .. "/latest")):gsub("%s+$", "") ~= second:match("[^/]+$") then fail("latest not moved") end
local listing = sh("ls -A " .. q(root))
local n = 0
for _ in listing:gmatch("[^\n]+") do n = n + 1 end
if n ~= 3 then fail("reports holds %d entries (two runs and latest expected):\n%s", n, listing) end

-- a reports root that cannot be made: a file stands in the way
sh("touch " .. q(env.out .. "/blocker"))
local msg, c3 = sh(run:format(q(env.out .. "/blocker/reports")))
if c3 ~= 1 then fail("unwritable root: exit %d (%s)", c3, msg) end
if not msg:find("blocker/reports: cannot create folder: Not a directory", 1, true) then fail("message: %s", msg) end

-- render into a missing folder: an error naming the path, no file
local msg2, c4 = sh(("%s render %s -o %s"):format(q(env.bin), q(second .. "/results.json"), q(env.out .. "/no/such/r.pdf")))
if c4 ~= 1 or not msg2:find("/no/such/r.pdf", 1, true) then fail("render to a missing folder: exit %d, %s", c4, msg2) end
return "pass"
