#!/usr/bin/env bash
# The release binaries on CPUs without their level, emulated: each must
# print its one line naming the build to use and exit with status 1, or,
# on a CPU that has its level, run. Linux binaries under qemu-x86_64 -cpu
# MODEL; the Windows ones too when Wine is here (qemu-user runs Wine's
# loader in place with WINELOADERNOEXEC=1, so the .exe runs emulated).
#
#   tools/qemu_check.sh [FOLDER]     (default: release, from `make release`)
#
# Installs nothing; needs qemu-user (Debian: apt-get install -y qemu-user)
# and, for the Windows binaries, wine64. QEMU 7.2's TCG has AVX2 but no
# AVX-512, so the v4 builds are shown refusing only.
set -uo pipefail
cd "$(dirname "$0")/.."
folder=${1:-release}
command -v qemu-x86_64 >/dev/null || {
    echo "qemu_check.sh: needs qemu-x86_64 (apt-get install -y qemu-user)" >&2
    exit 2
}
WINE64=${WINE64:-/usr/lib/wine/wine64}
export WINEPREFIX=${WINEPREFIX:-${TMPDIR:-/tmp}/backrank-wine-$(id -u)} WINEDEBUG=${WINEDEBUG:--all}
failures=0

# `run FILE MODEL EXPECTED`: EXPECTED is the level whose build the line
# must name, `none` for no release build, or `runs`.
run() {
    local file=$1 model=$2 expected=$3 output status
    local command=(qemu-x86_64 -cpu "$model" "$file" --version)
    if [[ $file == *.exe ]]; then
        [[ -x $WINE64 ]] || return 0
        command=(env WINELOADERNOEXEC=1 qemu-x86_64 -cpu "$model" "$WINE64" "$file" --version)
    fi
    output=$(timeout 300 "${command[@]}" 2>/dev/null | tr -d '\r')
    status=$?
    local ok=false
    case $expected in
        runs) [[ $status == 0 && $output == Backrank\ *\(*\)* ]] && ok=true ;;
        none) [[ $status == 1 && $output == *"no release build runs on it"* ]] && ok=true ;;
        *) [[ $status == 1 && $output == *"use the $expected build instead: "*"-$expected"* ]] && ok=true ;;
    esac
    if $ok; then
        echo "PASS $(basename "$file") on $model: $output (exit $status)"
    else
        echo "FAIL $(basename "$file") on $model: '$output' (exit $status, expected $expected)"
        failures=$((failures + 1))
    fi
}

shopt -s nullglob
files=("$folder"/backrank-*-x86-64-v*)
((${#files[@]})) || {
    echo "qemu_check.sh: no binaries in $folder (make release)" >&2
    exit 2
}
for file in "${files[@]}"; do
    case $file in
        *-v2 | *-v2.exe) run "$file" core2duo none && run "$file" Nehalem runs ;;
        *-v3 | *-v3.exe) run "$file" Nehalem x86-64-v2 && run "$file" Haswell runs ;;
        *-v4 | *-v4.exe) run "$file" Nehalem x86-64-v2 && run "$file" Haswell x86-64-v3 ;;
    esac
done
((failures == 0)) || {
    echo "qemu_check.sh: $failures failed"
    exit 1
}
echo "qemu_check.sh: all passed"
