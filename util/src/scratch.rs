//! Scratch folders for tests: made empty, removed when dropped, so that a
//! test run leaves nothing behind in the system's temporary folder.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh, empty folder under the system's temporary folder, named after
/// the process and `name`, and removed with its files when dropped.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Makes the folder `backrank-<name>-<process id>`, emptied first.
    pub fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("backrank-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
        ScratchDir(dir)
    }
}

impl Deref for ScratchDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_fresh_and_gone_after_drop() {
        let path = {
            let dir = ScratchDir::new("scratch-test");
            std::fs::write(dir.join("file"), b"x").unwrap();
            assert!(dir.join("file").exists());
            let again = ScratchDir::new("scratch-test");
            assert!(!again.join("file").exists(), "a new scratch folder starts empty");
            again.to_path_buf()
        };
        assert!(!path.exists());
    }
}
