-- tests/e2e/concurrent.lua: eight runs at once into one reports folder (issue 18, class 7): all
-- exit 0, each has a folder of its own (runs finishing in the same second get a suffix, chosen
-- without replacing anything), latest is a link to one of them, no .tmp-* is left. The stress
-- version is tests/bench/concurrent-runs.sh (16 at once, 20 rounds).
local env = ...
local sh, q, fail = env.sh, env.q, env.fail
local root, n = env.out .. "/reports", 8
local cmd = {}
for i = 1, n do
  cmd[#cmd + 1] = ("( %s run tests/scenarios/tiny.lua -q -o %s > %s 2>&1; echo $? > %s ) &")
                  :format(q(env.bin), q(root), q(env.out .. "/out." .. i), q(env.out .. "/rc." .. i))
end
sh("cd " .. q(env.srcdir) .. "; " .. table.concat(cmd, " ") .. " wait")
local seen = {}
for i = 1, n do
  local rc = sh("cat " .. q(env.out .. "/rc." .. i)):gsub("%s+$", "")
  local out = sh("cat " .. q(env.out .. "/out." .. i))
  if rc ~= "0" then fail("run %d exited %s: %s", i, rc, out) end
  local dir = out:match("([^\n]*)/report%.pdf\n$")
  if not dir then fail("run %d printed %s", i, out) end
  if seen[dir] then fail("runs %d and %d both wrote %s", seen[dir], i, dir) end
  seen[dir] = i
end
local listing = sh("ls -A " .. q(root))
local folders, tmps = 0, 0
for name in listing:gmatch("[^\n]+") do
  if name:find("^%.tmp%-") then tmps = tmps + 1 elseif name ~= "latest" then folders = folders + 1 end
end
if folders ~= n or tmps ~= 0 then fail("%d folders and %d .tmp-* for %d runs:\n%s", folders, tmps, n, listing) end
local latest = sh("readlink " .. q(root .. "/latest")):gsub("%s+$", "")
if not seen[root .. "/" .. latest] then fail("latest points at %s, not at one of the runs", latest) end
return "pass"
