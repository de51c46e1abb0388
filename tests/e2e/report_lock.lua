-- tests/e2e/report_lock.lua: two `make report` at once in one build folder (issue 38, class 5):
-- the build holds a lock in the build folder (.make-report.lock, flock), and a second one waits
-- for it, saying so on stderr, instead of racing in the build; once the first lets go it builds
-- (nothing left to do here) and runs. The first is played by a flock holding the lock for 4 s.
-- Skips without flock or make.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if sh("command -v flock >/dev/null && command -v make >/dev/null && echo yes"):find("yes") == nil then
  return "skip", "no flock (util-linux) or no make"
end
local lock = env.builddir .. "/.make-report.lock"
local out = sh(([[
cd %s || exit 99
flock %s sleep 4 &
holder=$!
sleep 0.5
t0=$(date +%%s)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s report SCENARIO=%s REPORTS=%s >%s/make.out 2>&1
echo "exit $? after $(( $(date +%%s) - t0 )) s"
wait $holder
]]):format(q(env.builddir), q(lock), q(env.srcdir .. "/tests/scenarios/tiny.lua"), q(env.out .. "/reports"),
           q(env.out)))
local code, took = out:match("exit (%d+) after (%d+) s")
local text = read(env.out .. "/make.out")
if tonumber(code) ~= 0 then fail("make report: exit %s\n%s", tostring(code), text) end
local want = ("make report: another build is running in %s (it holds %s); waiting for it to finish")
             :format(env.builddir, lock)
if not text:find(want, 1, true) then fail("the second make report did not say it waits:\n%s", text) end
if tonumber(took) < 3 then fail("the second make report did not wait for the lock (%s s)", took) end
if not text:find("/report.pdf\n", 1, true) then fail("the second make report did not run after the wait:\n%s", text) end
return "pass"
