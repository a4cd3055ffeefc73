//! Embeds the network: the file named by the `EVALFILE` environment
//! variable (`make EXE=... EVALFILE=net.nnue`, OpenBench's convention),
//! else the workspace's `nets/default.nnue`. It is copied into OUT_DIR so
//! that `include_bytes!` sees one fixed path.

use std::path::PathBuf;

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
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("embedded.nnue");
    if let Err(e) = std::fs::copy(&net, &out) {
        panic!("cannot embed the network {}: {e}", net.display());
    }
}
