-- tests/e2e/collective_serving.lua: the serving ranks keep a deadline of their own (issue 38,
-- class 7). Rank 0 is stopped (SIGSTOP) while the collectives run: rank 1 waits for its next
-- message no longer than what the collective experiment's deadline left (4 s x 1.5 + 10 s = 16 s
-- from the experiment's start, + 5 s), says so and ends, and mpirun ends the job: mpirun exits
-- non-zero well before rank 0 would be let go, and the reports folder holds no run folder
-- (finished or not: .tmp-*). And SPARKREPORT_MPI_JOIN_S that is not a number of seconds from 1 to
-- 86400 is refused before any rank joins, naming the variable, not replaced by 60 s. Skips without
-- MPI in the build or mpirun.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local launch, why = env.mpi(2)
if not launch then return "skip", why end
local scenario = q(env.srcdir .. "/tests/scenarios/collective.lua")

local function no_run_folder(reports)
  local left = sh(("if [ -e %s ]; then ls -A %s; fi"):format(q(reports), q(reports)))
  if left ~= "" then fail("the reports folder holds %s after the job ended", left) end
end

-- (1) rank 0 stopped once the collectives run (the run folder exists; at least 1000 repetitions
-- of each size keep them running for the experiment's 4 s); a guard lets it go after 120 s
local reports, log = env.out .. "/reports", env.out .. "/mpirun.log"
local out = sh(([[
%s %s run %s -o %s --set collective.budget_s=4 --set budget_s=60 --set collective.min_reps=1000 \
  --set collective.max_reps=100000 >%s 2>&1 &
mp=$!
start=$(date +%%s)
i=0
while [ $i -lt 300 ] && ! ls -d %s/.tmp-* >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done
sleep 1
for p in $(pgrep -P $mp); do
  if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=0'; then kill -STOP $p; echo "stopped $p"; fi
done
( sleep 120; kill -CONT $(pgrep -P $mp) 2>/dev/null; sleep 5; kill -KILL $mp 2>/dev/null ) >/dev/null 2>&1 &
guard=$!
wait $mp
echo "exit $? after $(( $(date +%%s) - start )) s"
kill $guard 2>/dev/null
]]):format(launch, q(env.bin), scenario, q(reports), q(log), q(reports)))
local stopped = out:match("stopped (%d+)")
if stopped then sh("kill -CONT " .. stopped .. " 2>/dev/null; kill -KILL " .. stopped .. " 2>/dev/null") end
if not stopped then fail("rank 0 was not found to stop: %s\n%s", out, read(log)) end
local code, took = out:match("exit (%d+) after (%d+) s")
code, took = tonumber(code), tonumber(took)
if not code or code == 0 then fail("rank 0 stopped: mpirun exited %s: %s", tostring(code), read(log)) end
if took > 90 then fail("rank 0 stopped: the job took %d s to end (rank 1's deadline: 21 s after the collectives began)", took) end
local want = "sparkreport: rank 1: rank 0 did not answer within "
if not read(log):find(want, 1, true) or not read(log):find("ending this rank, which wrote nothing", 1, true) then
  fail("rank 0 stopped: rank 1 gave no clear message: %s", read(log))
end
no_run_folder(reports)

-- (2) SPARKREPORT_MPI_JOIN_S refused, on every rank, before MPI_Init: exit 2 from rank 0's line
for _, v in ipairs { "garbage", "0", "-5", "1e30", "60s", "nan" } do
  out = sh(("SPARKREPORT_MPI_JOIN_S=%s %s %s run %s -o %s 2>&1; echo \"exit $?\""):format(q(v), launch, q(env.bin),
    scenario, q(reports)))
  local line = ("sparkreport: SPARKREPORT_MPI_JOIN_S=%s: must be a number of seconds from 1 to 86400 (unset it, or "
                .. "set it within that)"):format(v)
  if not out:find(line, 1, true) or out:find("exit 0\n", 1, true) then fail("SPARKREPORT_MPI_JOIN_S=%s: %s", v, out) end
end
no_run_folder(reports)
return "pass"
