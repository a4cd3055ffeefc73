//! Embeds the network: the file named by the `EVALFILE` environment
//! variable (`make EXE=... EVALFILE=net.nnue`, OpenBench's convention),
//! else the workspace's `nets/default.nnue`. It is copied into OUT_DIR so
//! that `include_bytes!` sees one fixed path, and its hidden size becomes
//! the build's `HIDDEN` (`hidden.rs` in OUT_DIR): the accumulators are
//! fixed-size arrays, so each width is its own build, and a net of another
//! width is refused at `EvalFile` with its reason.

use std::path::PathBuf;

/// Where the hidden size sits in a network file's header: after the magic
/// (8 bytes), the version and the input count (4 each); see
/// `src/nnue/format.rs`.
const HIDDEN_OFFSET: usize = 16;

fn main() {
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let net = match std::env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => {
            let path = PathBuf::from(path);
            if path.is_absolute() { path } else { manifest.join("..").join(path) }
        }
        _ => manifest.join("../nets/default.nnue"),
    };
    println!("cargo:rerun-if-changed={}", net.display());
    let bytes =
        std::fs::read(&net).unwrap_or_else(|e| panic!("cannot embed the network {}: {e}", net.display()));
    let word = bytes
        .get(HIDDEN_OFFSET..HIDDEN_OFFSET + 4)
        .unwrap_or_else(|| panic!("{}: too short for a network file", net.display()));
    let hidden = u32::from_le_bytes(word.try_into().expect("four bytes"));
    // The SIMD loops take 16 lanes at a time, and the output layer's 32-bit
    // lanes hold sums up to HIDDEN 2048 (see `simd::screlu_dot_avx2`).
    if hidden == 0 || !hidden.is_multiple_of(16) || hidden > 1024 {
        panic!("{}: hidden size {hidden} is not a multiple of 16 from 16 to 1024", net.display());
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("embedded.nnue"), &bytes).expect("OUT_DIR is writable");
    let source = format!(
        "/// The accumulator width of each perspective in this build: the embedded net's.\npub const HIDDEN: usize = {hidden};\n"
    );
    std::fs::write(out.join("hidden.rs"), source).expect("OUT_DIR is writable");
}
