#!/bin/sh
# tests/check-installed.sh: an installed sparkreport used as its users use it. From an empty folder:
# `--version` (INSTALLED_VERSION, when set, is the version it must say), `list` names the shipped
# scenarios, `run quick` finds the shipped scenario by its name and writes report.pdf and annex.pdf
# under ./reports (or under OUT with -o OUT, the folder then left empty), and nothing under ROOT, the
# tree it was installed into, is written. INSTALLED_FULL=1 runs quick as shipped, else at reduced
# sizes (seconds; its DRAM figure still takes most of them). Used by `make installcheck` (so `make
# distcheck`), tests/e2e/installed.lua (make install DESTDIR=...) and tests/check-deb.sh (the Debian
# package in a clean root). Usage: check-installed.sh BIN ROOT [OUT]; exit 0 when all held, else 1.
set -eu
bin=${1:?usage: check-installed.sh BIN ROOT [OUT]}
root=${2:?usage: check-installed.sh BIN ROOT [OUT]}
out=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/sparkreport-installed-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
fail() {
    echo "check-installed: $*" >&2
    exit 1
}

mkdir "$work/empty" "$work/logs"
touch "$work/stamp"
sleep 1                                 # a write under ROOT from now on is newer than the stamp
cd "$work/empty"

"$bin" --version > "$work/logs/version" 2>&1 || fail "$bin --version failed: $(cat "$work/logs/version")"
want="sparkreport "
[ -z "${INSTALLED_VERSION:-}" ] || want="sparkreport $INSTALLED_VERSION (git "
case $(cat "$work/logs/version") in
    "$want"*) ;;
    *) fail "$bin --version says '$(cat "$work/logs/version")'; the package is ${INSTALLED_VERSION:-?}" ;;
esac

"$bin" list > "$work/logs/list" 2>&1 || fail "$bin list failed: $(tail -n 5 "$work/logs/list")"
sed -n '/^shipped scenarios/,/^$/p' "$work/logs/list" > "$work/logs/shipped"
for name in default quick driver-update scale-out; do
    grep -qx "  $name" "$work/logs/shipped" ||
        fail "list does not show the shipped scenario '$name':$(printf '\n'; cat "$work/logs/shipped")"
done

reduce=""
[ "${INSTALLED_FULL:-0}" = 1 ] || reduce="--set budget_s=5 --set bandwidth.sizes=16KiB,256KiB --set bandwidth.min_reps=2
    --set bandwidth.max_reps=3 --set precision.formats=fp64,fp32 --set precision.square=64 --set precision.min_reps=2
    --set precision.max_reps=2 --set precision.budget_s=1 --set train.steps=3 --set train.precisions=fp32
    --set train.budget_s=1 --set compress.schemes=int8 --set compress.budget_s=1 --set model.configs=2
    --set model.extra_configs=0"
# shellcheck disable=SC2086 # reduce is a list of words
"$bin" run quick -q ${out:+-o "$out"} $reduce > "$work/logs/run" 2>&1 ||
    fail "run quick exited $?: $(tail -n 20 "$work/logs/run")"
reports=${out:-$work/empty/reports}
dir=$(sed -n 's|/report\.pdf$||p' "$work/logs/run")
case $dir in
    "${out:-reports}"/*-quick) ;;
    *) fail "run quick printed '$(cat "$work/logs/run")', not a run folder in ${out:-./reports}" ;;
esac
for f in report.pdf annex.pdf results.json; do
    [ -s "$reports/${dir##*/}/$f" ] || fail "run quick wrote no $f in $reports/${dir##*/}"
done
grep -Eq '"status":[[:space:]]*"complete"' "$reports/${dir##*/}/results.json" || fail "results.json is not complete"
want=reports
[ -z "$out" ] || want=""
left=$(ls -A "$work/empty")
[ "$left" = "$want" ] || fail "run quick left '$left' in the current folder (expected '$want')"

written=$(find "$root" -newer "$work/stamp" -print | head -n 5)
[ -z "$written" ] || fail "the run wrote under $root: $written"
echo "check-installed: $(cat "$work/logs/version"): list and run quick from an empty folder, both PDFs in ${out:-./reports}, nothing written under $root"
