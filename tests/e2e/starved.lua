-- tests/e2e/starved.lua: runs that are cut off or starved leave no .tmp-* folder (issue 18,
-- class 8): the progress stream closed under the run (SIGPIPE: `run ... 2>&1 | head -1`), a
-- hang-up (SIGHUP) and a low open-file limit (ulimit -n) each end the run with a message and
-- nothing left in the reports folder but earlier, finished runs.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local run = ("cd %s && %s run tests/scenarios/tiny.lua -o %%s"):format(q(env.srcdir), q(env.bin))

local function leftovers(root)
  local n = 0
  for name in sh("ls -A " .. q(root) .. " 2>/dev/null"):gmatch("[^\n]+") do
    if name:find("^%.tmp%-") then n = n + 1 end
  end
  return n
end

-- SIGPIPE: head reads the first progress line and leaves
local pipe = env.out .. "/pipe"
local out = sh(run:format(q(pipe)) .. " 2>&1 | head -1")
if leftovers(pipe) ~= 0 then fail("a closed progress pipe left a .tmp-* folder (%s)", out) end

-- SIGHUP in the middle of a run that takes a few seconds
local hup = env.out .. "/hup"
local slow = ("cd %s; %s run tests/scenarios/slow.lua -o %s > %s 2>&1 & pid=$!; sleep 1.5; kill -HUP $pid; wait $pid")
             :format(q(env.srcdir), q(env.bin), q(hup), q(env.out .. "/hup.out"))
local _, code = sh(slow)
local msg = read(env.out .. "/hup.out")
if code ~= 129 then fail("SIGHUP: exit %s (%s)", tostring(code), msg) end
if not msg:find("SIGHUP: stopped at once; the unfinished run was removed", 1, true) then fail("SIGHUP said: %s", msg) end
if leftovers(hup) ~= 0 then fail("SIGHUP left a .tmp-* folder") end

-- too few file descriptors, at several limits: below what a run needs, refused before measuring;
-- else success, or exit 1 with a message; never a leftover. (The limit is set by an inner shell
-- that only execs: a shell's own redirections need descriptors too.)
local starved = env.out .. "/starved"
local limited = ("cd %s && sh -c 'ulimit -n %%d && exec \"$0\" \"$@\"' %s run tests/scenarios/tiny.lua -q -o %s")
                :format(q(env.srcdir), q(env.bin), q(starved))
for n = 5, 12 do
  local m, c = sh(limited:format(n))
  if n < 10 and (c ~= 1 or not m:find(("the open-file limit (ulimit -n) is %d; a run needs at least 10; nothing was measured"):format(n), 1, true)) then
    fail("ulimit -n %d: exit %d: %s", n, c, m)
  end
  if c ~= 0 and (c ~= 1 or not m:find("sparkreport: ", 1, true)) then fail("ulimit -n %d: exit %d: %s", n, c, m) end
  if leftovers(starved) ~= 0 then fail("ulimit -n %d left a .tmp-* folder: %s", n, m) end
end
return "pass"
