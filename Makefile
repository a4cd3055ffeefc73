# `make EXE=/path/to/binary [EVALFILE=net.nnue] [FEATURES=spsa]` builds the
# release engine there, with that network embedded (the convention of
# OpenBench and similar testing frameworks). Plain `make` builds ./backrank
# with nets/default.nnue. OpenBench passes no features: a tuning branch sets
# the default below to `spsa`, which makes every search tunable a UCI option.
# The build targets the CPU it runs on (.cargo/config.toml).
#
# `make windows [LEVEL=x86-64-v2|x86-64-v3|x86-64-v4] [WINEXE=backrank.exe]`
# cross-compiles ./backrank.exe for 64-bit Windows 7 to 11 (and Wine), for
# CPUs with AVX2 unless LEVEL says otherwise. It needs Debian's rustc-web
# cargo-web rust-web-src gcc-mingw-w64-x86-64 (README, "Windows").
#
# `make release` makes release/: Linux and Windows binaries for each CPU
# level, named backrank-VERSION-OS-LEVEL, and their SHA256SUMS
# (tools/release.sh).
EXE ?= backrank
EVALFILE ?=
FEATURES ?=
LEVEL ?= x86-64-v3
WINEXE ?= backrank.exe

.PHONY: all windows release clean
all:
	EVALFILE="$(EVALFILE)" cargo build --release -p backrank --features "$(FEATURES)"
	cp target/release/backrank $(EXE)

windows:
	EVALFILE="$(EVALFILE)" tools/release.sh windows $(LEVEL) $(WINEXE)

release:
	EVALFILE="$(EVALFILE)" tools/release.sh

clean:
	cargo clean
