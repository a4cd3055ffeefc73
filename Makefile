# `make EXE=/path/to/binary` builds the release engine there (the convention
# of OpenBench and similar testing frameworks). Plain `make` builds ./backrank.
EXE ?= backrank

.PHONY: all clean
all:
	cargo build --release -p backrank
	cp target/release/backrank $(EXE)

clean:
	cargo clean
