//! The resume record of a data file that a long run appends to
//! (`backrank datagen`, `backrank rescore`): `<out>.progress`, three numbers
//! on one line: units written (games, or chunks of positions), the next
//! unit to start, and the data file's length after the last one written.
//!
//! The record is replaced whole (written beside it, then renamed), so a
//! kill leaves the old record or the new one. On resuming, bytes past the
//! recorded length (a unit torn by the kill, or one written but not yet
//! recorded) are cut off first, so a run stopped at any point loses only
//! the units in flight.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// How far a data file has got: what its progress record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Units in the file.
    pub written: u64,
    /// The number of the first unit not yet started.
    pub next: u64,
    /// The file's length after the last unit (`None` in records from
    /// before it was kept: the file is taken as it is).
    pub bytes: Option<u64>,
}

/// `<out>.progress`.
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// The progress record of a data file (none: a fresh start).
pub fn read_progress(path: &Path) -> Result<Progress, String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(Progress::default()) };
    let numbers: Vec<u64> = text.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    match numbers[..] {
        [written, next] => Ok(Progress { written, next, bytes: None }),
        [written, next, bytes] => Ok(Progress { written, next, bytes: Some(bytes) }),
        _ => Err(format!("{} is not a progress record", path.display())),
    }
}

/// Replaces the progress record whole: written beside it, then renamed
/// over it, so that a kill leaves the old record or the new one.
pub fn write_progress(path: &Path, progress: &Progress) -> std::io::Result<()> {
    let Progress { written, next, bytes } = progress;
    let mut text = format!("{written} {next}");
    if let Some(bytes) = bytes {
        text.push_str(&format!(" {bytes}"));
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    std::fs::write(&temporary, text + "\n")?;
    std::fs::rename(&temporary, path)
}

/// The data file, opened for appending after cutting it to `bytes`.
pub fn open_at(path: &Path, bytes: Option<u64>) -> Result<std::fs::File, String> {
    let cannot = |e: std::io::Error| format!("cannot open {}: {e}", path.display());
    let file = OpenOptions::new().create(true).append(true).open(path).map_err(cannot)?;
    if let Some(bytes) = bytes {
        let length = file.metadata().map_err(cannot)?.len();
        if length < bytes {
            return Err(format!("{} is shorter than its progress record says", path.display()));
        }
        if length > bytes {
            eprintln!("{}: dropping {} unrecorded bytes", path.display(), length - bytes);
            file.set_len(bytes).map_err(cannot)?;
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_util::scratch::ScratchDir;

    #[test]
    fn records_round_trip_and_old_two_number_records_still_resume() {
        let dir = ScratchDir::new("progress-record");
        let path = dir.join("data.progress");
        assert_eq!(read_progress(&path).unwrap(), Progress::default());
        let record = Progress { written: 7, next: 9, bytes: Some(1234) };
        write_progress(&path, &record).unwrap();
        assert_eq!(read_progress(&path).unwrap(), record);
        std::fs::write(&path, "42598 42600\n").unwrap();
        assert_eq!(read_progress(&path).unwrap(), Progress { written: 42598, next: 42600, bytes: None });
        std::fs::write(&path, "12\n").unwrap();
        assert!(read_progress(&path).is_err());
    }
}
