-- tests/e2e/vmlimit.lua: start-up under an address-space limit (class 11 of issue 18). OpenBLAS
-- maps its buffers in its load-time constructor and retries for ever when the limit refuses
-- them; sparkreport checks the limit before any library's constructor runs. Under each limit
-- `--version` ends within seconds: it prints the version (exit 0), or says which limit would do
-- (exit 1; with a CUDA build, below what cuBLASLt alone maps the dynamic loader refuses first,
-- exit 127 with its own message). Under a generous limit a small run works.
local env = ...
local sh, q, fail = env.sh, env.q, env.fail

if select(2, sh("ulimit -v 4000000")) ~= 0 then return "skip", "this shell may not set ulimit -v" end
if sh("ldd " .. q(env.bin)):find("libasan", 1, true) then
  return "skip", "ASan reserves terabytes of address space, so it cannot run under ulimit -v"
end

local function limited(kib, cmd)
  return sh(("ulimit -v %d && timeout 30 %s"):format(kib, cmd))
end

local need
for _, kib in ipairs({ 300000, 600000, 800000, 900000 }) do
  local t0 = os.time()
  local out, code = limited(kib, q(env.bin) .. " --version")
  local took = os.time() - t0
  if code == 124 or took > 15 then fail("ulimit -v %d: --version took %d s (exit %d): %s", kib, took, code, out) end
  if code == 0 then
    if not out:find("^sparkreport ") then fail("ulimit -v %d: --version printed %q", kib, out) end
  elseif code == 1 then
    local at_least = out:match("^sparkreport: the virtual memory limit %(ulimit %-v " .. kib
                               .. ", in KiB%) is too low to start: the libraries take %d+ MiB and OpenBLAS maps at least "
                               .. "%d+ MiB more when it loads; raise it to at least ulimit %-v (%d+)\n$")
      or out:match("^sparkreport: OpenBLAS could not map its buffers")
    if not at_least then fail("ulimit -v %d: exit 1 with %q", kib, out) end
    need = tonumber(at_least) or need
  elseif not (code == 127 and out:find("error while loading shared libraries", 1, true)) then
    fail("ulimit -v %d: exit %d: %s", kib, code, out)
  end
end

-- the limit it asked for, or a generous one, starts; a small run under it ends cleanly
local kib = math.max(need or 0, 1500000) + 200000
local out, code = limited(kib, q(env.bin) .. " --version")
if code ~= 0 then fail("ulimit -v %d: --version exit %d: %s", kib, code, out) end
out, code = sh(("ulimit -v %d && cd %s && timeout 60 %s run tests/scenarios/tiny.lua -q -o %s")
                 :format(kib, q(env.srcdir), q(env.bin), q(env.out .. "/reports")))
if code ~= 0 then fail("ulimit -v %d: a small run exited %d: %s", kib, code, out) end
return "pass"
