//! Gives the engine the commit it is built from, as `BACKRANK_COMMIT`
//! (`id name Backrank 0.2.0 (8909c38)`): `$BACKRANK_COMMIT` if set (a build
//! from a source archive), else `git rev-parse --short HEAD`, else `unknown`
//! (no git, or not a checkout). Cargo runs this again when HEAD moves.

use std::path::Path;
use std::process::Command;

/// `git <args>`'s first line of output, if git ran and succeeded.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.lines().next()?.trim();
    (output.status.success() && !line.is_empty()).then(|| line.to_string())
}

/// Asks Cargo to run this again when `path` changes, if it exists (a path
/// that does not exist would make Cargo run it on every build).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BACKRANK_COMMIT");
    let commit = std::env::var("BACKRANK_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BACKRANK_COMMIT={}", commit.trim());
    // HEAD, and the branch it names (a loose ref or packed-refs); a
    // worktree has its own HEAD but shares the refs.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        watch(&Path::new(&git_dir).join("HEAD"));
    }
    if let Some(common) = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]) {
        let common = Path::new(&common);
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(&common.join(branch));
        }
        watch(&common.join("packed-refs"));
    }
}
