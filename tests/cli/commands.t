# The command line: help, version, usage errors (exit 2), info and list.

$ sparkreport --version
sparkreport {num}.{num}.{num} (git {*})
$ sparkreport --help
Usage: sparkreport COMMAND [OPTIONS]
...
Exit codes:
  0  success
  1  the environment failed (I/O, memory, a library); nothing half-written is left
  2  bad command line
  3  the scenario has an error (message FILE:LINE: ...); nothing was measured or written
  4  a results file is unreadable or invalid; for run, a built-in data file (data/NAME.csv,
...
$ sparkreport
sparkreport: no command given (see sparkreport --help)
[2]
$ sparkreport frobnicate
sparkreport: unknown command 'frobnicate' (see sparkreport --help)
[2]
$ sparkreport run
sparkreport: run needs a scenario, a file or a shipped scenario's name, e.g. sparkreport run quick (see sparkreport --help)
[2]
$ sparkreport run scenarios/quick.lua --frob
sparkreport: unknown option '--frob' for run (see sparkreport --help)
[2]
$ sparkreport run scenarios/quick.lua --set
sparkreport: option '--set' needs a value (see sparkreport --help)
[2]
$ sparkreport run a.lua b.lua
sparkreport: run takes one scenario; extra argument 'b.lua' (see sparkreport --help)
[2]
$ sparkreport render
sparkreport: render needs a results file, e.g. sparkreport render reports/latest/results.json (see sparkreport --help)
[2]
$ sparkreport info
host       {*}
CPU        {*}, {num} logical CPUs
caches     {*} (source: {*})
clusters{*}
memory     {*} total, {*} available
OS         {*}
compiler   {*}
OpenMP     version {num}, {num} threads
BLAS       {*}
CUDA       {*}
...
tool       sparkreport {*}
$ sparkreport info --json | grep -c '"caches_total_bytes"'
1
$ sparkreport list
experiments (sr.NAME { ... } in a scenario):
  bandwidth: memory bandwidth: STREAM kernels over a working-set sweep and thread counts
...
templates (a scenario's template = NAME; built in, their source in {*}/sparkreport/templates):
  procurement
...
shipped scenarios (sparkreport run NAME; a file NAME here comes first), in {*}/sparkreport/scenarios:
...
catalog systems (data/systems.csv; spec figures, sources in the report) and their roles: subject (the
system the report is about), compared (the systems it is compared with), shared (N people share one):
  dgx-spark            NVIDIA DGX Spark (GB10)                         128 GB     273 GB/s  subject, shared
...
  h100-sxm             NVIDIA H100 SXM5                                 80 GB    3350 GB/s  compared
...
  mi300x               AMD Instinct MI300X                             192 GB    5300 GB/s
