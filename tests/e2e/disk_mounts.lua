-- tests/e2e/disk_mounts.lua: a full disk (ENOSPC) and a read-only file system (EROFS), made
-- honestly with a small tmpfs in a private mount namespace (unshare -rm; skipped where the
-- system does not allow that). The failed run names the file and the reason, exits 1, leaves
-- no run folder or temporary, and the earlier run on the same disk is untouched.
local env = ...
local sh, q = env.sh, env.q
local fail = env.fail

local probe, pc = sh("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs " .. q(env.out) .. " && echo mounted'")
if pc ~= 0 or not probe:find("mounted") then
  return "skip", "cannot mount a tmpfs in a private namespace here (unshare -rm): " .. probe:gsub("%s+$", "")
end

-- what one run writes, to size the disk so that one fits and two do not
local sizes = env.out .. "/sizes"
local out, c = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(sizes)))
if c ~= 0 then fail("sizing run: %s", out) end
local kib = tonumber(sh("du -sk " .. q(out:gsub("/report%.pdf\n$", ""))):match("^(%d+)"))
local disk = (kib * 3 // 2 // 4 + 1) * 4

local mnt = env.out .. "/mnt"
local root = mnt .. "/reports"
local run = ("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root))
local script = ([[
mkdir -p %s && mount -t tmpfs -o size=%dk tmpfs %s || exit 70
%s > /dev/null || exit 71
first=$(ls %s | grep -v latest)
before=$(cd %s/$first && sha256sum *)
echo "== full"
%s; echo "exit $?"
echo "== listing"; ls -A %s; echo "== end"
[ "$before" = "$(cd %s/$first && sha256sum *)" ] && echo "first untouched"
mount -o remount,ro %s || exit 72
echo "== read-only"
%s; echo "exit $?"
echo "== end"
]]):format(q(mnt), disk, q(mnt), run, q(root), q(root), run, q(root), q(root), q(mnt), run)
local f = assert(io.open(env.out .. "/script.sh", "w"))
f:write(script)
f:close()
local got, code = sh("unshare -rm sh " .. q(env.out .. "/script.sh"))
if code ~= 0 then fail("the mount script stopped with %d:\n%s", code, got) end

local full = got:match("== full\n(.-)== listing")
local rootpat = root:gsub("%p", "%%%0")
if not full:match("^sparkreport: " .. rootpat .. "/%.tmp%-%w+/[%w.]+: cannot write: No space left on device\nexit 1\n$") then
  fail("a full disk:\n%s", full)
end
local listing = got:match("== listing\n(.-)== end")
if not listing:match("^%d+T%d+Z%-[%w._-]+%-tiny\nlatest\n$") then fail("after a full disk the reports folder holds:\n%s", listing) end
if not got:find("first untouched", 1, true) then fail("the failed run changed the earlier one") end
local ro = got:match("== read%-only\n(.-)== end")
if ro ~= ("sparkreport: %s: cannot create a folder in: Read-only file system\nexit 1\n"):format(root) then
  fail("a read-only file system:\n%s", ro)
end
return "pass"
