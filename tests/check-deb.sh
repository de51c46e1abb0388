#!/bin/sh
# tests/check-deb.sh: the Debian package as its users get it, for CI (.ci/run) and by hand. amd64:
# `make deb`, lintian (no error), then a clean Debian root (debootstrap --variant=minbase of this
# machine's release) where apt-get installs the .deb with its dependencies, and
# tests/check-installed.sh runs the installed program from an empty folder: --version says the
# package's version, list shows the shipped scenarios, `run quick -o /tmp/...` writes both PDFs and
# nothing under /usr. arm64: `make deb DEB_ARCH=arm64` cross-built as make check-arm64 builds (no
# MPI, no CUDA), lintian, and the packaged program's --version and list under qemu-user. As root
# with apt-get it installs what it needs (debhelper, lintian, debootstrap, the build dependencies
# debian/control names; for arm64 the cross tools and qemu-user), else it says "SKIP: why" and
# exits 0 (DEB_REQUIRED=1: 1); so does a debootstrap that cannot reach DEB_MIRROR (default
# http://deb.debian.org/debian). Its logs, the package and the root stay in BUILDDIR.
# Usage: check-deb.sh SRCDIR BUILDDIR amd64|arm64; exit 0 when all held, else 1.
set -eu
src=$(cd "${1:?usage: check-deb.sh SRCDIR BUILDDIR amd64|arm64}" && pwd)
build=${2:?usage: check-deb.sh SRCDIR BUILDDIR amd64|arm64}
arch=${3:?usage: check-deb.sh SRCDIR BUILDDIR amd64|arm64}
t0=$(date +%s)
mkdir -p "$build"
build=$(cd "$build" && pwd)
root=$build/root

skip() {
    echo "check-deb: SKIP: $*"
    [ "${DEB_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}
fail() {
    echo "check-deb: FAIL: $*"
    exit 1
}
step() {
    echo "check-deb: $* ($(($(date +%s) - t0)) s)"
}
aptget() {
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q "$@" >> "$build/apt.log" 2>&1 ||
        skip "apt-get $* failed (log: $build/apt.log): $(tail -n 1 "$build/apt.log")"
}

case $arch in amd64|arm64) ;; *) fail "the architecture is amd64 or arm64, not '$arch'" ;; esac
[ "$(dpkg --print-architecture 2> /dev/null)" = amd64 ] || skip "this check runs on an amd64 Debian machine"
{ [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; } || skip "only root with apt-get can install the build tools and make a clean root"

# what the build and the checks need, from debian/control for the build
profiles=nocheck
if [ "$arch" = arm64 ]; then
    profiles=nocheck,cross,pkg.sparkreport.nompi
    dpkg --add-architecture arm64
fi
step "installing the build dependencies ($profiles)"
aptget update
aptget install --no-install-recommends debhelper lintian debootstrap
[ "$arch" = amd64 ] || aptget install --no-install-recommends crossbuild-essential-arm64 qemu-user
aptget build-dep --no-install-recommends -a "$arch" -P "$profiles" "$src"

# make deb from a configured tree: the source tree when it is configured in place, else a folder here
if [ -f "$src/Makefile" ]; then
    tree=$src
else
    tree=$build/conf
    mkdir -p "$tree"
    [ -f "$tree/Makefile" ] || (cd "$tree" && "$src/configure" -q --without-cuda --without-mpi) > "$build/configure.log" 2>&1 ||
        fail "configure failed: $(tail -n 5 "$build/configure.log")"
fi
step "make deb DEB_ARCH=$arch"
make -s -C "$tree" deb DEB_ARCH="$arch" DEB_DIR="$build/deb" > "$build/make-deb.log" 2>&1 ||
    fail "make deb failed: $(tail -n 30 "$build/make-deb.log")"
deb=$(tail -n 1 "$build/make-deb.log")
[ -f "$deb" ] || fail "make deb did not end with the package's path: $(tail -n 3 "$build/make-deb.log")"
version=$(dpkg-deb -f "$deb" Version)
echo "check-deb: $deb ($(dpkg-deb -f "$deb" Architecture), version $version)"
echo "check-deb: Depends: $(dpkg-deb -f "$deb" Depends)"

step "lintian"
lintian --fail-on error --info "${deb%_*.deb}_$arch.changes" > "$build/lintian.log" 2>&1 || {
    cat "$build/lintian.log"; fail "lintian reports errors"; }
grep -E '^[EWIO]:' "$build/lintian.log" | sed 's/^/check-deb: lintian: /' || echo "check-deb: lintian: no error, no warning"

if [ "$arch" = arm64 ]; then
    step "the packaged aarch64 program under qemu-user"
    rm -rf "$build/unpacked"
    dpkg-deb -x "$deb" "$build/unpacked"
    prog=$build/unpacked/usr/bin/sparkreport
    file "$prog" | grep -q aarch64 || fail "$prog is not an aarch64 program: $(file "$prog")"
    run="qemu-aarch64"
    [ -e /lib/ld-linux-aarch64.so.1 ] || run="qemu-aarch64 -L /usr/aarch64-linux-gnu"
    got=$(cd "$build" && $run "$prog" --version 2>&1) || fail "--version under $run failed: $got"
    case $got in "sparkreport $version (git "*) ;; *) fail "--version says '$got'; the package is $version" ;; esac
    echo "check-deb: $got"
    got=$(cd "$build" && SPARKREPORT_DATA_DIR=$build/unpacked/usr/share/sparkreport $run "$prog" list 2>&1) ||
        fail "list under $run failed: $got"
    for name in default quick driver-update scale-out example; do
        echo "$got" | grep -qx "  $name" || fail "list does not show the shipped scenario '$name'"
    done
    echo "check-deb: list under $run shows the shipped scenarios"
    step "PASS arm64"
    exit 0
fi

# CMD... run in the clean root, with /proc, /sys and /dev mounted in a mount namespace of its own: the
# mounts end with it, so nothing outside ever sees them and removing the root never reaches them
in_root() {
    # shellcheck disable=SC2016 # the inner sh expands them
    unshare --mount --propagation private sh -euc 'r=$1; shift; mount -t proc proc "$r/proc";
        mount --rbind /sys "$r/sys"; mount --rbind /dev "$r/dev"; exec chroot "$r" "$@"' - "$root" "$@"
}

# a clean root of this machine's release, where apt resolves the package's dependencies
# shellcheck source=/dev/null
. /etc/os-release
suite=${VERSION_CODENAME:?/etc/os-release names no release}
step "debootstrap --variant=minbase $suite"
rm -rf "$root"
debootstrap --variant=minbase "$suite" "$root" "${DEB_MIRROR:-http://deb.debian.org/debian}" > "$build/debootstrap.log" 2>&1 ||
    skip "debootstrap from ${DEB_MIRROR:-http://deb.debian.org/debian} failed (log: $build/debootstrap.log): $(tail -n 1 "$build/debootstrap.log")"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$src/tests/check-installed.sh" "$root/tmp/"
step "apt-get install ./$(basename "$deb") in the clean root"
in_root sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    ./tmp/$(basename "$deb")" > "$build/install.log" 2>&1 || fail "apt-get install failed: $(tail -n 10 "$build/install.log")"
step "the installed program in the clean root"
in_root env INSTALLED_FULL=1 INSTALLED_VERSION="$version" sh /tmp/check-installed.sh /usr/bin/sparkreport /usr \
    /tmp/quick-reports || fail "the installed package does not work (above)"
ls "$root"/tmp/quick-reports/*-quick/report.pdf "$root"/tmp/quick-reports/*-quick/annex.pdf
step "PASS amd64"
