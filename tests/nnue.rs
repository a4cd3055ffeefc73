//! End-to-end tests of the neural evaluation: `EvalFile` loads a network or
//! refuses it with one `info string`, and `eval` reports the network's score.

mod common;

use backrank_util::scratch::ScratchDir;
use common::{Engine, SLOW};

/// The `Final evaluation` of the current position.
fn final_evaluation(engine: &mut Engine) -> i32 {
    engine.send("eval");
    let line = engine.expect_line(|l| l.starts_with("Final evaluation:"), SLOW);
    line.split_whitespace().nth(2).and_then(|n| n.parse().ok()).unwrap_or_else(|| engine.fail(&line))
}

/// Writes `bytes` to the file `name` in `dir` and returns its path.
fn temp_file(dir: &ScratchDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

const EMBEDDED: &[u8] = include_bytes!("../nets/default.nnue");

#[test]
fn bad_eval_files_are_refused_and_play_goes_on() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-bad-files");
    let mut engine = Engine::ready();
    engine.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    let before = final_evaluation(&mut engine);
    let mut wrong_header = EMBEDDED.to_vec();
    wrong_header[0] = b'X';
    let truncated = &EMBEDDED[..EMBEDDED.len() / 2];
    for path in [
        "/no/such/net.nnue".to_string(),
        temp_file(&dir, "truncated.nnue", truncated),
        temp_file(&dir, "header.nnue", &wrong_header),
    ] {
        engine.send(&format!("setoption name EvalFile value {path}"));
        let line = engine.expect_line(|l| l.starts_with("info string EvalFile"), SLOW);
        assert!(line.contains("keeping"), "{line}");
        assert_eq!(final_evaluation(&mut engine), before, "{path}");
    }
    engine.send("go depth 4");
    engine.expect_line(|l| l.starts_with("bestmove ") && !l.contains("0000"), SLOW);
}

#[test]
fn eval_file_loads_a_network_and_empty_goes_back() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-load");
    let mut engine = Engine::ready();
    engine.send("position startpos moves e2e4 c7c5 g1f3");
    let embedded = final_evaluation(&mut engine);
    // Another valid network: the embedded one with its output bias moved
    // by one centipawn's worth (recomputing the checksum).
    let net = backrank_eval::nnue::format::QuantisedNet::from_bytes(EMBEDDED).unwrap();
    let shifted = backrank_eval::nnue::format::QuantisedNet {
        output_bias: net.output_bias
            + 200 * backrank_eval::nnue::QA * backrank_eval::nnue::QB / net.scale as i32,
        ..net
    };
    let path = temp_file(&dir, "shifted.nnue", &shifted.to_bytes());
    engine.send(&format!("setoption name EvalFile value {path}"));
    let line = engine.expect_line(|l| l.starts_with("info string EvalFile"), SLOW);
    assert!(line.contains("loaded shifted.nnue"), "{line}");
    // The bias is the side to move's; integer rounding may move it by one.
    let shifted = final_evaluation(&mut engine);
    assert!((shifted - embedded - 200).abs() <= 1, "{embedded} -> {shifted}");
    engine.send("go depth 3");
    engine.expect_line(|l| l.starts_with("bestmove "), SLOW);
    engine.send("setoption name EvalFile value <empty>");
    engine.expect_line(|l| l.contains("embedded network"), SLOW);
    assert_eq!(final_evaluation(&mut engine), embedded);
}
