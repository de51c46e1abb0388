-- tests/e2e/disk_limits.lua: write errors under a file size limit (ulimit -f: EFBIG, with
-- SIGXFSZ ignored by sparkreport). The run fails naming the file and the system's reason,
-- exits 1, leaves no run folder and no temporary, and the earlier run is untouched; render
-- leaves an existing PDF as it was, and writes neither document when one cannot be written.
local env = ...
local sh, q = env.sh, env.q
local fail = env.fail
local root = env.out .. "/reports"
local run = ("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(env.bin), q(root))

local first, code = sh(run)
if code ~= 0 then fail("first run: %s", first) end
local dir = first:gsub("/report%.pdf\n$", "")
local before = sh("cd " .. q(dir) .. " && sha256sum *")

-- ulimit -f counts blocks of 512 bytes in some shells and 1024 in others: measure
local probe = env.out .. "/probe"
local block = tonumber((sh(("ulimit -f 1 && (trap '' XFSZ; head -c 4096 /dev/zero > %s 2>/dev/null); wc -c < %s"):format(q(probe), q(probe)))))
if block ~= 512 and block ~= 1024 then return "skip", "cannot measure the shell's ulimit -f unit" end

local function limited(bytes, cmd)
  return sh(("ulimit -f %d && %s"):format(bytes // block, cmd))
end

local function clean()
  local listing = sh("ls -A " .. q(root)):gsub("%s+$", "")
  if listing ~= dir:match("[^/]+$") .. "\nlatest" then fail("the reports folder holds:\n%s", listing) end
  if sh("cd " .. q(dir) .. " && sha256sum *") ~= before then fail("a failed run changed the earlier one") end
end

-- 64 KiB: results.json fits, the PDFs do not (the annex is drawn first: the report cites its pages)
local msg, c = limited(64 * 1024, run)
if c ~= 1 then fail("64 KiB limit: exit %d, expected 1: %s", c, msg) end
if not msg:match("^sparkreport: " .. root:gsub("%p", "%%%0") .. "/%.tmp%-%w+/annex%.pdf: cannot write: File too large\n$") then
  fail("64 KiB limit: %s", msg)
end
clean()

-- 4 KiB: not even results.json
msg, c = limited(4 * 1024, run)
if c ~= 1 or not msg:match("/%.tmp%-%w+/results%.json: cannot write: File too large\n$") then
  fail("4 KiB limit: exit %d: %s", c, msg)
end
clean()

-- render over an existing PDF: the old one stays whole
local pdf = env.out .. "/again.pdf"
sh(("cp %s %s"):format(q(dir .. "/report.pdf"), q(pdf)))
local old = sh("sha256sum < " .. q(pdf))
msg, c = limited(64 * 1024, ("%s render %s -o %s"):format(q(env.bin), q(dir .. "/results.json"), q(pdf)))
local apdf = env.out .. "/again-annex.pdf"
if c ~= 1 or msg ~= ("sparkreport: %s: cannot write: File too large\n"):format(apdf) then fail("render: exit %d: %s", c, msg) end
if sh("sha256sum < " .. q(pdf)) ~= old then fail("render changed the existing PDF") end
local tmps = sh("ls -A " .. q(env.out)):gsub("%s+$", "")
if tmps ~= "again.pdf\nprobe\nreports" then fail("render left:\n%s", tmps) end
return "pass"
