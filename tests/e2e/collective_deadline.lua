-- tests/e2e/collective_deadline.lua: an MPI job whose ranks do not all answer ends within a
-- deadline, with a clear message and nothing written: (1) rank 1 exits before it joins (before
-- MPI_Init): every rank that waits in MPI_Init_thread ends after SPARKREPORT_MPI_JOIN_S; (2) rank 1
-- is stopped (SIGSTOP) while the collectives run: rank 0 ends the job at the collective
-- experiment's budget x 1.5 + 10 s (COLL_DEADLINE_* in collective_int.h), not when rank 1 resumes.
-- Both: mpirun exits non-zero, rank 0 names the deadline, the reports folder holds no run folder
-- (finished or not: .tmp-*). Skips without MPI in the build or mpirun.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local launch, why = env.mpi(2)
if not launch then return "skip", why end
local scenario = q(env.srcdir .. "/tests/scenarios/collective.lua")

local function no_run_folder(reports)
  local left = sh(("if [ -e %s ]; then ls -A %s; fi"):format(q(reports), q(reports)))
  if left ~= "" then fail("the reports folder holds %s after the job ended", left) end
end

-- (1) rank 1 never joins: a wrapper exits in its place; the join deadline is 5 s here
local reports, log = env.out .. "/reports1", env.out .. "/mpirun1.log"
local wrap = env.out .. "/never-joins.sh"
local f = assert(io.open(wrap, "w"))
f:write('#!/bin/sh\nif [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then exit 0; fi\nexec "$@"\n')
f:close()
sh("chmod +x " .. q(wrap))
local out = sh(([[
start=$(date +%%s)
timeout -s KILL 120 env SPARKREPORT_MPI_JOIN_S=5 %s %s %s run %s -o %s >%s 2>&1
echo "exit $? after $(( $(date +%%s) - start )) s"
]]):format(launch, q(wrap), q(env.bin), scenario, q(reports), q(log)))
local code, took = out:match("exit (%d+) after (%d+) s")
code, took = tonumber(code), tonumber(took)
if not code or code == 0 or code == 137 then fail("a rank that never joined: mpirun exited %s: %s", tostring(code), read(log)) end
if took > 60 then fail("a rank that never joined: the job took %d s to end (deadline 5 s)", took) end
local want = "sparkreport: rank 0: the MPI job did not start within 5 s (a rank never joined: it exited, was stopped or "
             .. "never started before MPI_Init; SPARKREPORT_MPI_JOIN_S sets this deadline); stopped, nothing was written"
if not read(log):find(want, 1, true) then fail("a rank that never joined: no clear message: %s", read(log)) end
no_run_folder(reports)

-- (2) rank 1 stopped once the collectives run (the run folder exists; at least 1000 repetitions
-- of each size keep them running for the experiment's 4 s): the deadline is 4 x 1.5 + 10 = 16 s
reports, log = env.out .. "/reports2", env.out .. "/mpirun2.log"
out = sh(([[
%s %s run %s -o %s --set collective.budget_s=4 --set budget_s=60 --set collective.min_reps=1000 \
  --set collective.max_reps=100000 >%s 2>&1 &
mp=$!
start=$(date +%%s)
i=0
while [ $i -lt 300 ] && ! ls -d %s/.tmp-* >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done
sleep 1
for p in $(pgrep -P $mp); do
  if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then kill -STOP $p; echo "stopped $p"; fi
done
( sleep 120; kill -KILL $mp 2>/dev/null ) >/dev/null 2>&1 &
guard=$!
wait $mp
echo "exit $? after $(( $(date +%%s) - start )) s"
kill $guard 2>/dev/null
]]):format(launch, q(env.bin), scenario, q(reports), q(log), q(reports)))
local stopped = out:match("stopped (%d+)")
if stopped then sh("kill -CONT " .. stopped .. " 2>/dev/null; kill -KILL " .. stopped .. " 2>/dev/null") end
if not stopped then fail("rank 1 was not found to stop: %s\n%s", out, read(log)) end
code, took = out:match("exit (%d+) after (%d+) s")
code, took = tonumber(code), tonumber(took)
if not code or code == 0 or code == 137 then fail("a stopped rank: mpirun exited %s: %s", tostring(code), read(log)) end
if took > 60 then fail("a stopped rank: the job took %d s to end (deadline 16 s after the collectives began)", took) end
want = "sparkreport: the MPI job missed its deadline (16 s after the collective experiment began: 1.5 x its budget + 10 s): "
       .. "rank 0 waited in "
if not read(log):find(want, 1, true) or not read(log):find("stopped, nothing was written", 1, true) then
  fail("a stopped rank: no clear message: %s", read(log))
end
if read(log):find("left\n[^\n]*$") then fail("the progress line still counts: %s", read(log)) end
no_run_folder(reports)
return "pass"
