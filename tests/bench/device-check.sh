#!/bin/sh
# device-check.sh: every GPU check of the program in one prepared run of at most 10 minutes,
# for a session lent a CUDA machine (a driver, the CUDA libraries, python3 with torch; none of
# our libraries). Modes:
#   --pack [BUILDDIR]     here, in a CUDA build (default: the current folder): bundles the program,
#                         the GPU unit tests, the gpu-check scenarios, these scripts and the fonts
#                         into .devpack.tar.xz at the top of the source tree (bundle.sh: no CUDA
#                         libraries inside; the GPU machine has its own) and fails over 64 MiB
#   --dry-run [BUILDDIR]  packs, unpacks into a temporary folder and runs every part from there
#                         exactly as the GPU machine would; without a GPU each part says why
#   --plan                prints the time plan (each part's budget, the total) and fails when
#                         the budgets add up to more than 500 s
#   --check DEVDIR        runs the plan from a bundle already unpacked in DEVDIR
#   (no argument)         on the GPU machine, in the source tree with .devpack.tar.xz carried:
#                         unpacks it and runs the parts, each under its own timeout
# Writes under $OUT (default /tmp/device-check): summary.txt (read it first: a line per part, then
# the tally), results.json and report.pdf (all parts as one report), logs.tar.xz (each part's log
# and run folder). Exit 0 when every part passed or skipped (exit 77), 1 when one failed, was cut
# or did not run, 2 when the check could not start (no bundle, a bundle that is not ours, an OUT
# it cannot write); its temporary folders are removed on every way out.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
LIMIT=67108864                              # bytes the device tool carries, all paths together
TESTS="test_bandwidth_gpu test_precision_gpu test_compress_gpu test_train_cuda test_backend test_gpu_select test_collective_nccl"
SCENARIOS="gpu-check gpu-check-precision gpu-check-train gpu-check-compress gpu-check-model"

die() { echo "device-check.sh: $*" >&2; exit 2; }

# The temporary folders this process made (--pack's staging folder, the unpacked bundle, the
# parts' logs and runs), removed however it ends: finished, failed, refused or stopped by a signal.
# Their own names: a step (--step, a child) inherits $work and must not remove it.
made_stage=; made_tmp=; made_work=
cleanup() { for d in "$made_stage" "$made_tmp" "$made_work"; do [ -z "$d" ] || rm -rf "$d"; done; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The bundle: bundle.sh run in a staging folder that holds every file at its bundled path.
pack() {
    b=$(cd "${1:-.}" && pwd) || die "no build folder ${1:-.}"
    [ -x "$b/src/sparkreport" ] || die "$b has no src/sparkreport: give a build folder (--pack BUILDDIR)"
    grep -q '^#define HAVE_CUDA 1' "$b/config.h" || die "$b is built without CUDA: nothing to check on a GPU"
    bundle=${BUNDLE:-$src/../shared/tools/bundle.sh}
    [ -f "$bundle" ] || bundle=/work/shared/tools/bundle.sh
    [ -f "$bundle" ] || die "bundle.sh not found (set BUNDLE=/path/to/bundle.sh)"
    set --                          # the test programs, as paths relative to the build folder
    for t in $TESTS; do set -- "$@" "tests/unit/$t"; done
    # nvcc's objects track no headers: one older than any header is rebuilt, never bundled stale
    newest=$(ls -t "$src"/src/*/*.h "$src"/src/*/*/*.h | head -n 1)
    (cd "$src" && find src -name '*.cu') | while read -r cu; do
        o=$b/${cu%.cu}.o
        if [ -f "$o" ] && [ "$o" -ot "$newest" ]; then rm -f "$o"; fi
    done
    make -s -C "$b" src/sparkreport "$@" >&2 || die "make failed in $b"
    fonts=$(sed -n 's/^#define SR_FONT_DIR "\(.*\)"/\1/p' "$b/config.h")
    stage=$(mktemp -d) || die "cannot make a temporary folder"
    made_stage=$stage
    mkdir -p "$stage/src" "$stage/tests/unit" "$stage/tests/bench" "$stage/scenarios" "$stage/fonts"
    ln -s "$b/src/sparkreport" "$stage/src/sparkreport"
    for p in "$@"; do ln -s "$b/$p" "$stage/$p"; done
    cp "$src"/scenarios/gpu-check*.lua "$stage/scenarios/"
    cp "$src/tests/bench/device-check.sh" "$src/tests/bench/torch-compare.py" "$src/tests/bench/device-results.py" "$stage/tests/bench/"
    cp "$fonts/DejaVuSans.ttf" "$fonts/DejaVuSans-Bold.ttf" "$fonts/DejaVuSansMono.ttf" "$stage/fonts/"
    rm -rf "$src/.devpack" "$src/.devpack.tar.xz"
    (cd "$stage" && bash "$bundle" src/sparkreport "$src/.devpack" "$@" scenarios/*.lua tests/bench/* fonts/*) >&2 ||
        die "bundle.sh failed"
    rm -rf "$stage" "$src/.devpack"
    made_stage=
    size=$(wc -c < "$src/.devpack.tar.xz")
    echo "bundle: $src/.devpack.tar.xz, $size bytes ($((size / 1048576)) MiB; the limit is 64 MiB)"
    [ "$size" -lt "$LIMIT" ] || die "the bundle is over 64 MiB"
}

# The time plan: one line per part, "NAME BUDGET_S COMMAND", run in this order. PyTorch's anchors
# (its device copy and BF16 8192^3 matmul, what every GPU figure is judged against) run first;
# each scenario part's budget exceeds its scenario's budget_s by the start-up and the PDF; the
# budgets, the summary and the archive included, add up to at most PLAN_LIMIT s under the
# DEADLINE_S (550 s) the run ends by, under the device tool's 600 s. A part that overruns its
# budget is cut (timeout), and the next part runs: never the whole run. DC_PLAN replaces the plan
# (tests/e2e/device_plan.lua uses it to check the cutting).
PLAN_LIMIT=500
PLAN=${DC_PLAN:-'versions 15 sh "$0" --versions "$dev"
torch 60 python3 "$dev/tests/bench/torch-compare.py"
test_backend 5 "$dev/run" tests/unit/test_backend
test_gpu_select 5 "$dev/run" tests/unit/test_gpu_select
test_bandwidth_gpu 15 "$dev/run" tests/unit/test_bandwidth_gpu
test_precision_gpu 15 "$dev/run" tests/unit/test_precision_gpu
test_compress_gpu 10 "$dev/run" tests/unit/test_compress_gpu
test_train_cuda 20 "$dev/run" tests/unit/test_train_cuda
test_collective_nccl 10 "$dev/run" tests/unit/test_collective_nccl
bandwidth 75 sh "$0" --step scenario gpu-check
precision 70 sh "$0" --step scenario gpu-check-precision
train 70 sh "$0" --step scenario gpu-check-train
compress 40 sh "$0" --step scenario gpu-check-compress
model 40 sh "$0" --step scenario gpu-check-model
merge 10 sh "$0" --step merge
render 15 "$dev/run" sparkreport render "$OUT/results.json" -o "$OUT/report.pdf"
summary 10 sh "$0" --step summary
archive 10 sh "$0" --step archive'}

# The plan's lines as "NAME BUDGET", then "total N s (limit PLAN_LIMIT s)"; exit 1 when the
# budgets add up to more than the limit or a line has no whole budget.
plan() {
    printf '%s\n' "$PLAN" | awk -v limit="$PLAN_LIMIT" '
        NF == 0 { next }
        $2 !~ /^[0-9]+$/ { printf "device-check.sh: part %s has no budget in seconds\n", $1; bad = 1; next }
        { printf "%-22s %4d s\n", $1, $2; total += $2 }
        END { printf "total %d s (limit %d s, deadline %d s)\n", total, limit, ENVIRON["DEADLINE_S"] ? ENVIRON["DEADLINE_S"] : 550
              if (bad || total > limit) { print "device-check.sh: the plan does not fit its window"; exit 1 } }'
}

# part NAME BUDGET COMMAND...: COMMAND cut at BUDGET s (never past the deadline, less the budgets
# of the parts still to come), its output in logs/NAME.log, one line in the summary; a part that
# failed, was cut or did not run is named in $work/failed.
part() {
    name=$1; want=$2; shift 2
    left=$((deadline - $(date +%s)))
    t=$((want < left ? want : left))
    if [ "$t" -lt 2 ]; then
        printf '%-22s not run: the deadline has passed\n' "$name" >> "$sum"
        echo "$name" >> "$work/failed"; return 0
    fi
    t0=$(date +%s)
    rc=0
    timeout -k 5 "$t" "$@" > "$logs/$name.log" 2>&1 || rc=$?
    case $rc in
        0) st=ok ;; 77) st="skipped (exit 77)" ;; 124|137) st="CUT at $t s" ;; *) st="exit $rc" ;;
    esac
    printf '%-22s %-20s %4d s of %d\n' "$name" "$st" $(($(date +%s) - t0)) "$want" >> "$sum"
    if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        tail -n 5 "$logs/$name.log" | sed 's/^/    /' >> "$sum"
        echo "$name" >> "$work/failed"
    fi
}

# The plan's own steps, each run as `sh device-check.sh --step NAME ...` so that part's timeout
# can cut it (timeout runs programs, not shell functions); check() exports what they read.
scenario() { "$dev/run" sparkreport run "$dev/scenarios/$1.lua" -q -o "$runs/$1"; }
# device-results.py ACTION [OUTFILE] with every run's results.json (paths kept whole: no word splitting)
results() {
    action=$1; shift
    for f in "$runs"/*/latest/results.json; do
        [ -e "$f" ] || { echo "no part wrote a results.json"; return 1; }
        set -- "$@" "$f"
    done
    python3 "$dev/tests/bench/device-results.py" "$action" "$@"
}
merge() { results merge "$OUT/results.json"; }
summary() {
    { echo; if [ -f "$logs/torch.log" ]; then sed -n '/^torch\|^not measured\|TFLOPS\|GB\/s/p' "$logs/torch.log"; fi
      echo; results summary; } > "$work/summary.more" 2>&1
}
archive() { tar -C "$work" -cJf "$OUT/logs.tar.xz" logs runs; }

# What the machine is: the driver's view, our program's, the libraries it loads ($dev: the bundle).
versions() {
    dev=$1
    if nvidia-smi; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
    else
        echo "no nvidia-smi: no NVIDIA driver on this machine"
    fi
    "$dev/run" sparkreport info
    "$dev/run" sparkreport info --json
    "$dev/run" tests/bench/device-check.sh --libs
    python3 -m pip list 2>/dev/null | grep -i -E '^(torch|nvidia-)' || echo "no pip packages torch/nvidia-*"
}

# The libraries the program loads, run through the bundle's wrapper (its LD_LIBRARY_PATH).
libs() {
    here=$(cd "$(dirname "$0")/../.." && pwd)
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    ldd "$here/sparkreport"
    ldd "$here/sparkreport" | awk '/libcublasLt|libcudart/ {print $3}' | while read -r l; do readlink -f "$l"; done
}

# The unpacked bundle in $dev has what the plan runs: the wrapper and the program always; with the
# default plan, every test program, scenario, script and font it names. Refused (exit 2) otherwise:
# an archive that is not ours would run every part only to fail each.
check_bundle() {
    [ -x "$dev/run" ] && [ -f "$dev/sparkreport" ] ||
        die "$bundle_from does not hold the bundle (no .devpack/run and .devpack/sparkreport): run --pack in a CUDA build and carry .devpack.tar.xz"
    [ -z "${DC_PLAN:-}" ] || return 0
    set --
    for t in $TESTS; do set -- "$@" "tests/unit/$t"; done
    for c in $SCENARIOS; do set -- "$@" "scenarios/$c.lua"; done
    for f in "$@" tests/bench/device-check.sh tests/bench/torch-compare.py tests/bench/device-results.py \
             fonts/DejaVuSans.ttf fonts/DejaVuSans-Bold.ttf fonts/DejaVuSansMono.ttf; do
        [ -f "$dev/$f" ] || die "$bundle_from lacks $f: pack it again (--pack)"
    done
}

# OUT can be written, before any part starts the GPU: a read-only or missing place is refused now,
# not found out by every part in turn.
check_out() {
    mkdir -p "$OUT" 2>/dev/null || die "OUT=$OUT: cannot make that folder; set OUT to a folder this user can write"
    probe="$OUT/.device-check-probe.$$"
    if ! (: > "$probe") 2>/dev/null; then die "OUT=$OUT: cannot write there (read-only, or not this user's); set OUT to a folder this user can write"; fi
    rm -f "$probe"
}

# Every part of the plan, from the unpacked bundle $dev; the summary first in $OUT. Each part's
# window ends where the budgets of the parts after it begin, so a slow part cannot starve the
# summary and the archive. The wrapper runs the program it is named ("$dev/run" sparkreport run
# ...: "run run" would name the wrapper itself).
check() {
    : "${OUT:=/tmp/device-check}"
    plan > /dev/null || { plan; die "refusing to run"; }
    check_bundle
    check_out
    echo "time plan (part, budget):"; plan
    work=$(mktemp -d) || die "cannot make a temporary folder"
    made_work=$work
    logs=$work/logs; runs=$work/runs; sum=$OUT/summary.txt; mkdir -p "$logs" "$runs"
    : > "$work/failed"
    export dev work logs runs OUT
    end=$(($(date +%s) + ${DEADLINE_S:-550}))
    echo "device check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): part, status, seconds of its budget" > "$sum"
    export SPARKREPORT_FONT_DIR="$dev/fonts"
    after=$(printf '%s\n' "$PLAN" | awk 'NF { t += $2 } END { print t + 0 }')
    printf '%s\n' "$PLAN" | { while read -r name budget cmd; do
        [ -n "$name" ] || continue
        after=$((after - budget))
        deadline=$((end - after))
        eval "part $name $budget $cmd" < /dev/null
    done; }
    if [ -f "$work/summary.more" ]; then cat "$work/summary.more" >> "$sum"; fi
    parts=$(printf '%s\n' "$PLAN" | awk 'NF { n++ } END { print n + 0 }')
    failed=$(wc -l < "$work/failed" | tr -d ' ')
    if [ "$failed" -eq 0 ]; then
        echo "device check: all $parts parts passed or skipped" >> "$sum"
    else
        echo "device check: $failed of $parts parts failed, were cut or did not run: $(tr '\n' ' ' < "$work/failed" | sed 's/ $//')" >> "$sum"
    fi
    cat "$sum"; ls -l "$OUT"
    [ "$failed" -eq 0 ]
}

# The bundle, unpacked into a new temporary folder $tmp (removed on the way out); the parts run
# from $dev. A truncated or foreign archive is refused here.
unpack() {
    [ -f "$src/.devpack.tar.xz" ] || die "no $src/.devpack.tar.xz: run --pack in a CUDA build and carry it"
    tmp=$(mktemp -d) || die "cannot make a temporary folder"
    made_tmp=$tmp
    tar -C "$tmp" -xJf "$src/.devpack.tar.xz" 2>/dev/null ||
        die "cannot unpack $src/.devpack.tar.xz (truncated, or not an xz tar archive): run --pack again and carry it whole"
    dev=$tmp/.devpack
    bundle_from=$src/.devpack.tar.xz
}

case "${1:-}" in
    --libs) libs ;;
    --plan) plan ;;
    --step) shift; "$@" ;;
    --check) dev=$(cd "${2:?--check needs the unpacked bundle's folder}" && pwd); bundle_from=$dev; check ;;
    --versions) versions "$2" ;;
    --pack) pack "${2:-.}" ;;
    --dry-run) pack "${2:-.}"; unpack; OUT=${OUT:-$tmp/out}; check ;;
    "") unpack; check ;;
    *) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
