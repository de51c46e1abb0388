#!/bin/sh
# tests/check-arm64.sh: `make check-arm64`: the program as a DGX Spark (aarch64) runs it. On an
# x86-64 machine it cross-builds in a folder of its own (Debian's crossbuild-essential-arm64 and
# the :arm64 -dev packages, installed when it runs as root with apt-get; MPI and CUDA left out:
# Debian's Open MPI -dev is not co-installable across architectures), then runs every unit test
# and one small scenario under qemu-user (qemu-aarch64 called explicitly, so no binfmt
# registration is needed; a registered binfmt_misc handler is used when qemu-aarch64 is not on
# PATH). On an aarch64 machine it builds and runs natively. Tests whose premise an emulator
# changes skip themselves (SR_EMULATED, env_emulated()). Exit 0 when everything passed or the
# check cannot run here (it says why, "SKIP: ..."); 1 when something failed. ARM64_REQUIRED=1
# turns a skip into a failure; ARM64_TESTS=regex runs only the unit tests it matches. Usage:
# check-arm64.sh SRCDIR BUILDDIR (the folder it builds in; a source tree configured in place is
# copied into it first, BUILDDIR/source).
set -u
src=$(cd "${1:?usage: check-arm64.sh SRCDIR BUILDDIR}" && pwd)
build=${2:?usage: check-arm64.sh SRCDIR BUILDDIR}
t0=$(date +%s)
triple=aarch64-linux-gnu
pcdir=/usr/lib/$triple/pkgconfig
# the :arm64 -dev packages the build needs (bootstrap's list, MPI left out) and the emulator
PKGS="crossbuild-essential-arm64 qemu-user liblua5.4-dev:arm64 libhpdf-dev:arm64 libcjson-dev:arm64
libopenblas-openmp-dev:arm64 libgomp1:arm64"

skip() {
    echo "check-arm64: SKIP: $*"
    [ "${ARM64_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}

have_cross() {
    command -v $triple-gcc > /dev/null && [ -f $pcdir/lua5.4.pc ] && [ -f $pcdir/libcjson.pc ] &&
        [ -f /usr/include/hpdf.h ] && ls /usr/lib/$triple/libhpdf*.so > /dev/null 2>&1 &&
        ls /usr/lib/$triple/libopenblas*.so > /dev/null 2>&1 && command -v qemu-aarch64 > /dev/null
}

install_cross() {
    [ "$(id -u)" = 0 ] || skip "the arm64 cross tools are missing and only root may install them ($PKGS)"
    command -v apt-get > /dev/null || skip "the arm64 cross tools are missing and there is no apt-get to install them"
    echo "check-arm64: installing $PKGS" | tr '\n' ' '; echo
    { dpkg --add-architecture arm64 &&
      apt-get -o DPkg::Lock::Timeout=300 update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends $PKGS
    } > "$build.apt.log" 2>&1 || skip "installing the arm64 packages failed (log: $build.apt.log): $(tail -n 1 "$build.apt.log")"
}

# RUN: how an aarch64 program is started here.
if [ "$(uname -m)" = aarch64 ]; then
    host=""; RUN=""; cc=gcc
else
    have_cross || install_cross
    have_cross || skip "the arm64 cross tools are still missing after installing them"
    host="--host=$triple"; cc=$triple-gcc
    if command -v qemu-aarch64 > /dev/null; then
        RUN=qemu-aarch64
        [ -e /lib/ld-linux-aarch64.so.1 ] || RUN="qemu-aarch64 -L /usr/$triple"
    elif grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2> /dev/null; then
        RUN=""
    else
        skip "neither qemu-aarch64 nor a binfmt_misc handler for aarch64 is here to run the programs"
    fi
    export SR_EMULATED="qemu-user ($RUN)"
fi

mkdir -p "$build" || exit 1
build=$(cd "$build" && pwd)
# A source tree configured in place (the README's ./configure && make) cannot have a build of its own
# configured beside it (configure refuses): the check then builds a clean copy of it, the files its
# `make distdir` lists (what a release holds), kept in BUILD/source and refreshed each time (times
# kept, so that the build after it is incremental).
if [ -f "$src/config.status" ] && [ "$src/config.status" != "$build/config.status" ]; then
    rm -rf "$build/source.new"
    make -C "$src" distdir distdir="$build/source.new" > "$build/distdir.log" 2>&1 ||
        { tail -n 20 "$build/distdir.log"; echo "check-arm64: make distdir in $src failed"; exit 1; }
    rm -rf "$build/source" && mv "$build/source.new" "$build/source" || exit 1
    src=$build/source
    echo "check-arm64: $1 is configured in place; building a copy of it ($src)"
fi
cd "$build" || exit 1
if [ ! -f config.status ] || [ "$src/configure" -nt config.status ]; then
    PKG_CONFIG_LIBDIR=$pcdir:/usr/share/pkgconfig CC=$cc "$src/configure" -q $host --without-cuda --without-mpi \
        > configure.log 2>&1 || { tail -n 20 configure.log; echo "check-arm64: configure failed"; exit 1; }
fi
progs=$(grep -o 'tests/unit/test_[a-z0-9_]*' "$src/Makefile.am" | sort -u | grep -E "${ARM64_TESTS:-.}")
{ make -s -j2 && make -s -j2 $progs; } > make.log 2>&1 || { tail -n 30 make.log; echo "check-arm64: the build failed"; exit 1; }
if grep -q 'warning:' make.log; then
    grep 'warning:' make.log | head -n 20; echo "check-arm64: the arm64 build has warnings"; exit 1
fi
t_build=$(($(date +%s) - t0))
file src/sparkreport | grep -q aarch64 || { echo "check-arm64: src/sparkreport is not an aarch64 program"; exit 1; }

# Every unit test, two at a time (exit 0 pass, 77 skip, else fail), from the source tree as
# `make check` runs them; then one small scenario, its PDF and its results checked. A test may take
# 900 s natively, twice that under an emulator (test_predict_stack, which fits the stack profiles
# about thirty times, took 799-881 s under qemu-user on two shared cores).
limit=900; [ -n "${SR_EMULATED:-}" ] && limit=1800
mkdir -p logs
printf '%s\n' $progs | xargs -P 2 -I{} sh -c '
    p={}; n=$(basename "$p"); s=$(date +%s)
    (cd "$1" && SR_SRCDIR="$1" timeout $4 $2 "$3/$p") > "logs/$n.log" 2>&1
    rc=$?; case $rc in 0) st=PASS ;; 77) st=SKIP ;; *) st="FAIL (exit $rc)" ;; esac
    echo "$st unit/$n $(($(date +%s) - s)) s" > "logs/$n.status"' - "$src" "$RUN" "$build" "$limit"
passed=0; failed=0; skipped=0
for p in $progs; do
    n=$(basename "$p"); line=$(cat "logs/$n.status" 2> /dev/null || echo "FAIL unit/$n (no status)")
    echo "$line"
    case $line in
        PASS*) passed=$((passed + 1)) ;;
        SKIP*) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)); sed 's/^/     /' "logs/$n.log" | tail -n 15 ;;
    esac
done
rm -rf scenario && mkdir scenario
s=$(date +%s)
if (cd "$src" && $RUN "$build/src/sparkreport" info > "$build/logs/info.log" 2>&1 &&
    $RUN "$build/src/sparkreport" run tests/scenarios/tiny.lua -q -o "$build/scenario") > logs/scenario.log 2>&1 &&
   [ -s scenario/latest/report.pdf ] && grep -Eq '"status":[[:space:]]*"complete"' scenario/latest/results.json &&
   grep -q aarch64 logs/info.log; then
    echo "PASS scenario/tiny $(($(date +%s) - s)) s"; passed=$((passed + 1))
else
    echo "FAIL scenario/tiny"; tail -n 15 logs/scenario.log logs/info.log | sed 's/^/     /'; failed=$((failed + 1))
fi
echo "check-arm64: build $t_build s, all $(($(date +%s) - t0)) s${SR_EMULATED:+, under $SR_EMULATED}"
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
