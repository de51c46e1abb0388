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
#   (no argument)         on the GPU machine, in the source tree with .devpack.tar.xz carried:
#                         unpacks it and runs the parts, each under its own timeout
# Writes under $OUT (default /tmp/device-check): summary.txt (read it first), results.json and
# report.pdf (all parts as one report), logs.tar.xz (each part's log and run folder).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
LIMIT=67108864                              # bytes the device tool carries, all paths together
TESTS="test_bandwidth_gpu test_precision_gpu test_compress_gpu test_train_cuda test_backend test_gpu_select test_collective_nccl"
PARTS="bandwidth:gpu-check:150 precision:gpu-check-precision:130 train:gpu-check-train:140 \
compress:gpu-check-compress:100 model:gpu-check-model:100"   # part:scenario:timeout_s

die() { echo "device-check.sh: $*" >&2; exit 2; }

# The bundle: bundle.sh run in a staging folder that holds every file at its bundled path.
pack() {
    b=$(cd "${1:-.}" && pwd) || die "no build folder ${1:-.}"
    [ -x "$b/src/sparkreport" ] || die "$b has no src/sparkreport: give a build folder (--pack BUILDDIR)"
    grep -q '^#define HAVE_CUDA 1' "$b/config.h" || die "$b is built without CUDA: nothing to check on a GPU"
    bundle=${BUNDLE:-$src/../shared/tools/bundle.sh}
    [ -f "$bundle" ] || bundle=/work/shared/tools/bundle.sh
    [ -f "$bundle" ] || die "bundle.sh not found (set BUNDLE=/path/to/bundle.sh)"
    progs=$(for t in $TESTS; do printf 'tests/unit/%s ' "$t"; done)
    # nvcc's objects track no headers: one older than any header is rebuilt, never bundled stale
    newest=$(ls -t "$src"/src/*/*.h "$src"/src/*/*/*.h | head -n 1)
    (cd "$src" && find src -name '*.cu') | while read -r cu; do
        o=$b/${cu%.cu}.o
        if [ -f "$o" ] && [ "$o" -ot "$newest" ]; then rm -f "$o"; fi
    done
    make -s -C "$b" src/sparkreport $progs >&2 || die "make failed in $b"
    fonts=$(sed -n 's/^#define SR_FONT_DIR "\(.*\)"/\1/p' "$b/config.h")
    stage=$(mktemp -d) && mkdir -p "$stage/src" "$stage/tests/unit" "$stage/tests/bench" "$stage/scenarios" "$stage/fonts"
    ln -s "$b/src/sparkreport" "$stage/src/sparkreport"
    for p in $progs; do ln -s "$b/$p" "$stage/$p"; done
    cp "$src"/scenarios/gpu-check*.lua "$stage/scenarios/"
    cp "$src/tests/bench/device-check.sh" "$src/tests/bench/torch-compare.py" "$src/tests/bench/device-results.py" "$stage/tests/bench/"
    cp "$fonts/DejaVuSans.ttf" "$fonts/DejaVuSans-Bold.ttf" "$fonts/DejaVuSansMono.ttf" "$stage/fonts/"
    rm -rf "$src/.devpack" "$src/.devpack.tar.xz"
    (cd "$stage" && bash "$bundle" src/sparkreport "$src/.devpack" $progs scenarios/*.lua tests/bench/* fonts/*) >&2 ||
        die "bundle.sh failed"
    rm -rf "$stage" "$src/.devpack"
    size=$(wc -c < "$src/.devpack.tar.xz")
    echo "bundle: $src/.devpack.tar.xz, $size bytes ($((size / 1048576)) MiB; the limit is 64 MiB)"
    [ "$size" -lt "$LIMIT" ] || die "the bundle is over 64 MiB"
}

# part NAME SECONDS COMMAND...: COMMAND under its own timeout (and never past the deadline,
# less what the last parts need), its output in logs/NAME.log, one line in the summary.
part() {
    name=$1; want=$2; shift 2
    left=$((deadline - reserve - $(date +%s)))
    t=$((want < left ? want : left))
    if [ "$t" -lt 5 ]; then
        printf '%-22s not run: the 10 minutes are spent\n' "$name" >> "$sum"; return
    fi
    t0=$(date +%s)
    timeout -k 20 "$t" "$@" > "$logs/$name.log" 2>&1
    rc=$?
    case $rc in
        0) st=ok ;; 77) st="skipped (exit 77)" ;; 124|137) st="TIMED OUT at $t s" ;; *) st="exit $rc" ;;
    esac
    printf '%-22s %-20s %4d s\n' "$name" "$st" $(($(date +%s) - t0)) >> "$sum"
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || tail -n 5 "$logs/$name.log" | sed 's/^/    /' >> "$sum"
}

# What the machine is: the driver's view, our program's, the libraries it loads ($dev: the bundle).
versions() {
    dev=$1
    nvidia-smi || echo "no nvidia-smi: no NVIDIA driver on this machine"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
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
    for l in $(ldd "$here/sparkreport" | awk '/libcublasLt|libcudart/ {print $3}'); do readlink -f "$l"; done
}

# Every part, from the unpacked bundle $dev; then one report of all runs, the summary, the logs.
# The wrapper runs the program it is named ("$dev/run" sparkreport run ...: "run run" would
# name the wrapper itself).
check() {
    : "${OUT:=/tmp/device-check}"
    mkdir -p "$OUT" || die "cannot write $OUT"
    work=$(mktemp -d) || die "cannot make a temporary folder"
    logs=$work/logs; runs=$work/runs; sum=$OUT/summary.txt; mkdir -p "$logs" "$runs"
    deadline=$(($(date +%s) + ${DEADLINE_S:-550})); reserve=60
    echo "device check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): part, status, seconds" > "$sum"
    export SPARKREPORT_FONT_DIR="$dev/fonts"
    part versions 40 sh "$0" --versions "$dev"
    for t in $TESTS; do part "$t" 45 "$dev/run" "tests/unit/$t"; done
    for p in $PARTS; do
        set -- $(echo "$p" | tr : ' ')
        part "$1" "$3" "$dev/run" sparkreport run "$dev/scenarios/$2.lua" -q -o "$runs/$1"
    done
    part torch 90 python3 "$dev/tests/bench/torch-compare.py"
    reserve=10
    found=$(ls "$runs"/*/latest/results.json 2>/dev/null)
    part merge 20 python3 "$dev/tests/bench/device-results.py" merge "$OUT/results.json" $found
    part render 30 "$dev/run" sparkreport render "$OUT/results.json" -o "$OUT/report.pdf"
    { echo; sed -n '/^torch\|^not measured\|TFLOPS\|GB\/s/p' "$logs/torch.log"; echo
      python3 "$dev/tests/bench/device-results.py" summary $found; } >> "$sum" 2>&1
    tar -C "$work" -cJf "$OUT/logs.tar.xz" logs runs
    rm -rf "$work"
    cat "$sum"; ls -l "$OUT"
}

# The bundle, unpacked into a new temporary folder $tmp; the parts run from $dev.
unpack() {
    [ -f "$src/.devpack.tar.xz" ] || die "no $src/.devpack.tar.xz: run --pack in a CUDA build and carry it"
    tmp=$(mktemp -d) || die "cannot make a temporary folder"
    tar -C "$tmp" -xJf "$src/.devpack.tar.xz" || die "cannot unpack $src/.devpack.tar.xz"
    dev=$tmp/.devpack
}

case "${1:-}" in
    --libs) libs ;;
    --versions) versions "$2" ;;
    --pack) pack "${2:-.}" ;;
    --dry-run) pack "${2:-.}" && unpack && OUT=${OUT:-$tmp/out} && check; rm -rf "$tmp" ;;
    "") unpack && check; rm -rf "$tmp" ;;
    *) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
