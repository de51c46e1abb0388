-- tests/e2e/disk_permissions.lua: no permission to write (EACCES). As an ordinary user the
-- reports folder is made read-only with chmod; as root, where chmod stops nothing, the runs
-- are made as the user nobody (setpriv) against folders root owns. Skipped, with the reason,
-- when neither is possible. The run and render fail naming the path and the reason, exit 1,
-- and leave the earlier run as it was.
local env = ...
local sh, q = env.sh, env.q
local fail = env.fail
local root = env.out .. "/reports"

local first, code = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root)))
if code ~= 0 then fail("first run: %s", first) end
local dir = first:gsub("/report%.pdf\n$", "")
local before = sh("cd " .. q(dir) .. " && sha256sum *")

local as = ""                          -- the prefix that runs a command without write permission
if sh("id -u"):match("^0%s") then
  local _, c = sh("command -v setpriv")
  if c ~= 0 then return "skip", "running as root, where chmod does not stop writes, and setpriv is missing" end
  as = "setpriv --reuid=nobody --regid=nogroup --clear-groups "
  sh("chmod 755 " .. q(env.out))      -- nobody may look, not write
  local _, x = sh(as .. q(env.bin) .. " --version")
  if x ~= 0 then return "skip", "running as root, and the user nobody cannot run " .. env.bin end
  local _, r = sh(("cd %s && %s test -r tests/scenarios/tiny.lua"):format(q(env.srcdir), as))
  if r ~= 0 then return "skip", "running as root, and the user nobody cannot read the source tree" end
else
  sh("chmod 555 " .. q(root) .. " " .. q(dir))
end
local _, writable = sh(as .. "touch " .. q(root .. "/probe"))
if writable == 0 then
  sh("chmod 755 " .. q(root) .. " " .. q(dir))
  return "skip", "a read-only folder still takes writes here (CAP_DAC_OVERRIDE?)"
end

local msg, c = sh(("cd %s && %s%s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), as, q(env.bin), q(root)))
if c ~= 1 or msg ~= ("sparkreport: %s: cannot create a folder in: Permission denied\n"):format(root) then
  fail("run into a folder without write permission: exit %d: %s", c, msg)
end
msg, c = sh(("%s%s render %s"):format(as, q(env.bin), q(dir .. "/results.json")))
if c ~= 1 or msg ~= ("sparkreport: %s/annex.pdf: cannot create: Permission denied\n"):format(dir) then   -- drawn first
  fail("render into a folder without write permission: exit %d: %s", c, msg)
end
sh("chmod 755 " .. q(root) .. " " .. q(dir))
if sh("cd " .. q(dir) .. " && sha256sum *") ~= before then fail("a refused write changed the earlier run") end
local listing = sh("ls -A " .. q(root)):gsub("%s+$", "")
if listing ~= dir:match("[^/]+$") .. "\nlatest" then fail("the reports folder holds:\n%s", listing) end
return "pass"
