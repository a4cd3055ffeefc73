# `make EXE=/path/to/binary [EVALFILE=net.nnue] [FEATURES=spsa]` builds the
# release engine there, with that network embedded (the convention of
# OpenBench and similar testing frameworks). Plain `make` builds ./backrank
# with nets/default.nnue. OpenBench passes no features: a tuning branch sets
# the default below to `spsa`, which makes every search tunable a UCI option.
# The build targets the CPU it runs on (.cargo/config.toml).
EXE ?= backrank
EVALFILE ?=
FEATURES ?=

.PHONY: all clean
all:
	EVALFILE="$(EVALFILE)" cargo build --release -p backrank --features "$(FEATURES)"
	cp target/release/backrank $(EXE)

clean:
	cargo clean
