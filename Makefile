# `make EXE=/path/to/binary [EVALFILE=net.nnue]` builds the release engine
# there, with that network embedded (the convention of OpenBench and similar
# testing frameworks). Plain `make` builds ./backrank with nets/default.nnue.
# The build targets the CPU it runs on (.cargo/config.toml).
EXE ?= backrank
EVALFILE ?=

.PHONY: all clean
all:
	EVALFILE="$(EVALFILE)" cargo build --release -p backrank
	cp target/release/backrank $(EXE)

clean:
	cargo clean
