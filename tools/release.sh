#!/usr/bin/env bash
# Release builds, made on x86-64 Linux (Debian 12 here).
#
#   tools/release.sh                     release/: Linux and Windows binaries
#                                        for x86-64-v2, -v3 and -v4, and SHA256SUMS
#   tools/release.sh linux LEVEL OUT     one Linux build for LEVEL (x86-64-v3...)
#   tools/release.sh windows LEVEL OUT   one Windows build (`make windows`)
#
# Each binary is built for an explicit CPU level (RUSTFLAGS replaces the
# `target-cpu=native` of .cargo/config.toml) in its own target folder, and
# checks the CPU before it runs: on one without the level's instructions it
# says which build to use and exits (engine/src/cpu.rs).
#
# Linux builds use the `cargo` on PATH (rustup's). Windows builds target
# x86_64-win7-windows-gnu with Debian's Rust, which brings the standard
# library's source to build for it (-Zbuild-std), and MinGW-w64 to link:
#   apt-get install -y rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64
# (WIN_CARGO and WIN_RUSTC name another toolchain with its rust-src). Why
# the win7 target and not x86_64-pc-windows-gnu: README, "Windows".
#
# EVALFILE=net.nnue embeds another network, as with `make`.
set -euo pipefail
cd "$(dirname "$0")/.."

WIN_TARGET=x86_64-win7-windows-gnu
WIN_CARGO=${WIN_CARGO:-/usr/bin/cargo}
WIN_RUSTC=${WIN_RUSTC:-/usr/bin/rustc}
WIN_LINKER=${WIN_LINKER:-x86_64-w64-mingw32-gcc}
LEVELS=(x86-64-v2 x86-64-v3 x86-64-v4)

die() {
    echo "release.sh: $*" >&2
    exit 1
}

check_level() {
    case $1 in
        x86-64-v2 | x86-64-v3 | x86-64-v4) ;;
        *) die "unknown level '$1' (x86-64-v2, x86-64-v3 or x86-64-v4)" ;;
    esac
}

build_linux() {
    local level=$1 out=$2
    check_level "$level"
    command -v cargo >/dev/null || die "no cargo on PATH (rustup: https://rustup.rs)"
    echo "== Linux $level -> $out"
    RUSTFLAGS="-C target-cpu=$level" CARGO_TARGET_DIR="target/levels/linux-$level" \
        cargo build --release -p backrank --target x86_64-unknown-linux-gnu
    cp "target/levels/linux-$level/x86_64-unknown-linux-gnu/release/backrank" "$out"
}

build_windows() {
    local level=$1 out=$2
    check_level "$level"
    local missing=()
    [[ -x $WIN_CARGO ]] || missing+=(cargo-web)
    [[ -x $WIN_RUSTC ]] || missing+=(rustc-web)
    command -v "$WIN_LINKER" >/dev/null || missing+=(gcc-mingw-w64-x86-64)
    if [[ -x $WIN_RUSTC && ! -d "$("$WIN_RUSTC" --print sysroot)/lib/rustlib/src/rust/library/std" ]]; then
        missing+=(rust-web-src)
    fi
    if ((${#missing[@]})); then
        die "a Windows build needs Debian's rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64;" \
            "missing: ${missing[*]} (apt-get install -y ${missing[*]})"
    fi
    echo "== Windows $level -> $out"
    # RUSTC_BOOTSTRAP: -Zbuild-std is unstable; it builds the standard
    # library for the target (and at the same CPU level) from its source.
    RUSTC="$WIN_RUSTC" RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C target-cpu=$level" \
        CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_LINKER="$WIN_LINKER" \
        CARGO_TARGET_DIR="target/levels/windows-$level" \
        "$WIN_CARGO" build --release -p backrank --target "$WIN_TARGET" -Zbuild-std=std,panic_abort
    cp "target/levels/windows-$level/$WIN_TARGET/release/backrank.exe" "$out"
}

case ${1:-all} in
    linux)
        (($# == 3)) || die "usage: tools/release.sh linux LEVEL OUT"
        build_linux "$2" "$3"
        exit
        ;;
    windows)
        (($# == 3)) || die "usage: tools/release.sh windows LEVEL OUT"
        build_windows "$2" "$3"
        exit
        ;;
    all) (($# <= 1)) || die "usage: tools/release.sh [linux|windows LEVEL OUT]" ;;
    *) die "usage: tools/release.sh [linux|windows LEVEL OUT]" ;;
esac

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[[ -n $version ]] || die "no version in Cargo.toml"
if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    echo "release.sh: warning: uncommitted changes; the binaries name $(git rev-parse --short HEAD)" >&2
fi
rm -rf release
mkdir -p release
for level in "${LEVELS[@]}"; do
    if ! rustc --print target-cpus | grep -qw -- "$level"; then
        echo "release.sh: this rustc has no target-cpu $level; skipped" >&2
        continue
    fi
    build_linux "$level" "release/backrank-$version-linux-$level"
    build_windows "$level" "release/backrank-$version-windows-$level.exe"
done
(cd release && sha256sum backrank-* >SHA256SUMS)
# Each binary knows its level (those this CPU can run say so themselves).
for file in release/backrank-*-linux-*; do
    echo "$file: $("$file" --version 2>&1 | head -n 1)"
done
ls -l release
