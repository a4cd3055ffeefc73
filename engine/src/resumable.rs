//! A data file that a long run appends to (`backrank datagen`, `backrank
//! rescore`), and its resume record `<out>.progress`: three numbers on one
//! line, the units written (games, or input lines or games), the next unit
//! to start, and the data file's length after the last one written.
//!
//! The record is replaced whole (written beside it, then renamed), so a
//! kill leaves the old record or the new one. On resuming, bytes past the
//! recorded length (a unit torn by the kill, or one written but not yet
//! recorded) are cut off first, so a run stopped at any point loses only
//! the units in flight. [`ResumableWriter`] does all of it, and the
//! progress lines both tools print.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seconds between progress lines.
const REPORT_EVERY_S: f64 = 5.0;

/// A data file open for appending whole units, with its progress record.
pub struct ResumableWriter {
    /// What writes it, to begin each progress line (`datagen`).
    name: &'static str,
    file: std::fs::File,
    progress_path: PathBuf,
    progress: Progress,
    /// Units and positions written by this run.
    units_this_run: u64,
    positions_this_run: u64,
    started: Instant,
    /// When the last progress line was printed, in seconds since `started`.
    last_report: f64,
}

impl ResumableWriter {
    /// Opens `out` where its progress record says the last whole unit
    /// ended (a fresh file if there is no record).
    pub fn open(name: &'static str, out: &Path) -> Result<ResumableWriter, String> {
        let progress_path = progress_path(out);
        let progress = read_progress(&progress_path)?;
        let file = open_at(out, progress.bytes)?;
        Ok(ResumableWriter {
            name,
            file,
            progress_path,
            progress,
            units_this_run: 0,
            positions_this_run: 0,
            started: Instant::now(),
            last_report: 0.0,
        })
    }

    /// How far the file has got.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// Appends `units` whole units (`bytes`, holding `positions`
    /// positions) and records them; `next` is the number of the first unit
    /// after them.
    pub fn append(&mut self, bytes: &[u8], units: u64, next: u64, positions: u64) -> std::io::Result<()> {
        self.file.write_all(bytes)?;
        self.file.flush()?;
        let p = &mut self.progress;
        p.written += units;
        p.next = p.next.max(next);
        p.bytes = Some(self.file.metadata()?.len());
        self.units_this_run += units;
        self.positions_this_run += positions;
        write_progress(&self.progress_path, &self.progress)
    }

    /// Units written a second by this run.
    pub fn units_per_s(&self) -> f64 {
        self.units_this_run as f64 / self.started.elapsed().as_secs_f64().max(0.001)
    }

    /// A progress line every few seconds, and always at the `end`:
    /// `detail` follows the counts.
    pub fn report(&mut self, end: bool, detail: &str) {
        let seconds = self.started.elapsed().as_secs_f64();
        if !end && seconds - self.last_report < REPORT_EVERY_S {
            return;
        }
        self.last_report = seconds;
        eprintln!(
            "{}: {} done ({} this run), {} positions this run, {:.0} positions/s{detail}",
            self.name,
            self.progress.written,
            self.units_this_run,
            self.positions_this_run,
            self.positions_this_run as f64 / seconds.max(0.001),
        );
    }
}

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
