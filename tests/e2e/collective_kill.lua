-- tests/e2e/collective_kill.lua: a rank killed (SIGKILL) while the collectives run ends the
-- whole job: mpirun exits non-zero naming the killed rank, rank 0 says it stopped and wrote
-- nothing, and the reports folder holds no run folder, finished or not (.tmp-*). Skips without
-- MPI in the build or mpirun.
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local launch, why = env.mpi(2)
if not launch then return "skip", why end

local reports, log = env.out .. "/reports", env.out .. "/mpirun.log"
-- mpirun in the background (its pid in $!), rank 1 found among its children by its rank, killed
-- once the collectives run (the run folder exists; at least 1000 repetitions of each size keep
-- them running for the budget's minute), then mpirun's exit status
local script = ([[
%s \
  %s run %s -o %s --set collective.budget_s=60 --set budget_s=80 --set collective.min_reps=1000 \
  --set collective.max_reps=100000 >%s 2>&1 &
mp=$!
i=0
while [ $i -lt 300 ] && ! ls -d %s/.tmp-* >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done
sleep 2
for p in $(pgrep -P $mp); do
  if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then kill -9 $p; echo killed; fi
done
wait $mp
echo "exit $?"
]]):format(launch, q(env.bin), q(env.srcdir .. "/tests/scenarios/collective.lua"), q(reports), q(log), q(reports))
local out = sh(script)
if not out:find("killed", 1, true) then fail("rank 1 was not found to kill: %s\n%s", out, read(log)) end
local code = tonumber(out:match("exit (%d+)"))
if not code or code == 0 then fail("mpirun exited %s after a rank was killed", tostring(code)) end
local text = read(log)
if not text:find("rank 1", 1, true) or not text:find("signal 9", 1, true) then fail("mpirun does not name the killed rank: %s", text) end
if not text:find("sparkreport: SIGTERM: stopped; nothing was written", 1, true)
   and not text:find("the MPI job failed", 1, true) then
  fail("rank 0 gave no clear message: %s", text)
end
local left = sh("ls -A " .. q(reports) .. " 2>/dev/null")
if left ~= "" then fail("the reports folder holds %s after the job ended", left) end
return "pass"
