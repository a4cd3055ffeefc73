//! A 50 MB PGN file, written on the fly, read as a stream.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::rc::Rc;

use backrank_util::scratch::ScratchDir;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

/// The file's size, at least.
const FILE_BYTES: u64 = 50 << 20;
/// The longest the test game may be, in plies.
const MAX_PLIES: usize = 120;

/// A game from the standard start (the `i`-th ply plays a legal move picked
/// by `i`), as fastchess writes it: a score comment after every move, with
/// a nested variation and a NAG after the third ply. Also its plies.
fn game_text() -> (String, usize) {
    let mut pos = Chess::default();
    let mut text = String::from("[Event \"stream\"]\n[Site \"?\"]\n[Result \"1/2-1/2\"]\n\n");
    let mut plies = 0;
    while plies < MAX_PLIES && !pos.is_game_over() {
        let legal = pos.legal_moves();
        let m = legal[(plies * 7 + 3) % legal.len()];
        if plies % 2 == 0 {
            text.push_str(&format!("{}. ", plies / 2 + 1));
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        text.push_str(&format!(
            "{san} {{{:+.2}/{} 0.{:03}s}} ",
            (plies as f64 - 40.0) / 30.0,
            plies % 20,
            plies
        ));
        if plies == 2 {
            text.push_str("$2 (2. a3 (2. h3 h6) a6 3. h3 {a side line}) ");
        }
        plies += 1;
    }
    text.push_str("1/2-1/2\n\n");
    (text, plies)
}

/// A reader that counts the bytes it has given.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

#[test]
fn a_50_mb_pgn_is_streamed_game_by_game() {
    let dir = ScratchDir::new("pgn-stream");
    let path = dir.join("games.pgn");
    let (text, plies) = game_text();
    let copies = FILE_BYTES.div_ceil(text.len() as u64) as usize;
    let mut out = BufWriter::new(File::create(&path).unwrap());
    for _ in 0..copies {
        out.write_all(text.as_bytes()).unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    assert!(file_bytes >= FILE_BYTES);

    // The first games come after the first few kilobytes: nothing reads
    // the file whole.
    let read = Rc::new(Cell::new(0));
    let counting = Counting { inner: File::open(&path).unwrap(), read: Rc::clone(&read) };
    let mut games = backrank_data::pgn::games(counting);
    for _ in 0..3 {
        assert_eq!(games.next().unwrap().unwrap().moves.len(), plies);
        assert!(read.get() < 64 << 10, "{} bytes read for three games", read.get());
    }

    // The whole file, as the trainer reads it.
    let (mut count, mut positions) = (0, 0);
    for game in backrank_data::read_games(&path).unwrap() {
        count += 1;
        positions += game.unwrap().moves.len();
    }
    assert_eq!(count, copies);
    assert_eq!(positions, copies * plies);
}
