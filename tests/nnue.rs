//! End-to-end tests of the neural evaluation: `EvalFile` loads a network or
//! refuses it with one `info string`, and `eval` reports the network's score.

mod common;

use backrank_eval::nnue::format::QuantisedNet;
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

/// The net this build embeds (`nets/default.nnue` or its `EVALFILE`).
const EMBEDDED: &[u8] = backrank_eval::nnue::embedded_file();

/// A Chess960 middlegame.
const FRC_MIDDLEGAME: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

#[test]
fn bad_eval_files_are_refused_and_play_goes_on() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-bad-files");
    let mut engine = Engine::ready();
    engine.send(&format!("position fen {FRC_MIDDLEGAME}"));
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

/// Loads, as `name`, another valid network: the embedded one with its
/// output bias moved by `cp` centipawns' worth (checksum recomputed).
/// Checks the one `info string` and that the evaluation moved by `cp`
/// (the bias is the side to move's; integer rounding may move it by one);
/// returns the new evaluation.
fn load_shifted_net(engine: &mut Engine, dir: &ScratchDir, name: &str, cp: i32) -> i32 {
    let before = final_evaluation(engine);
    let net = QuantisedNet::from_bytes(EMBEDDED).unwrap();
    let step = cp * backrank_eval::nnue::QA * net.qb as i32 / net.scale as i32;
    let shifted = QuantisedNet { output_bias: net.output_bias.iter().map(|b| b + step).collect(), ..net };
    let path = temp_file(dir, name, &shifted.to_bytes());
    engine.send(&format!("setoption name EvalFile value {path}"));
    let answer = engine.sync();
    assert_eq!(answer, [format!("info string EvalFile: loaded {name}")]);
    let after = final_evaluation(engine);
    assert!((after - before - cp).abs() <= 1, "{before} -> {after}");
    after
}

#[test]
fn eval_file_loads_a_network_and_empty_goes_back() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-load");
    let mut engine = Engine::ready();
    engine.send("position startpos moves e2e4 c7c5 g1f3");
    let embedded = final_evaluation(&mut engine);
    load_shifted_net(&mut engine, &dir, "shifted.nnue", 200);
    engine.send("go depth 3");
    engine.expect_line(|l| l.starts_with("bestmove "), SLOW);
    engine.send("setoption name EvalFile value <empty>");
    engine.expect_line(|l| l.contains("embedded network"), SLOW);
    assert_eq!(final_evaluation(&mut engine), embedded);
}

/// `bytes` with its last eight bytes replaced by the FNV-1a hash of the
/// rest (the published 64-bit offset basis and prime), as a valid file ends.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 8;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in &bytes[..body] {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    bytes[body..].copy_from_slice(&hash.to_le_bytes());
    bytes
}

#[test]
fn output_buckets_choose_by_material() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-buckets");
    let mut engine = Engine::ready();
    // The embedded net's first output layer alone, then eight copies of it.
    let embedded = QuantisedNet::from_bytes(EMBEDDED).unwrap();
    let one = QuantisedNet {
        buckets: 1,
        output_weights: embedded.output_weights[..2 * embedded.hidden].to_vec(),
        output_bias: embedded.output_bias[..1].to_vec(),
        ..embedded
    };
    // Eight copies of the output layer, bucket k's bias 10k centipawns
    // higher: the evaluation moves by 10 x the bucket, (pieces - 2) / 4.
    let step = 10 * backrank_eval::nnue::QA * one.qb as i32 / one.scale as i32;
    let eight = QuantisedNet {
        buckets: 8,
        output_weights: one.output_weights.repeat(8),
        output_bias: (0..8).map(|k| one.output_bias[0] + k * step).collect(),
        ..one.clone()
    };
    let (plain, bucketed) =
        (temp_file(&dir, "one.nnue", &one.to_bytes()), temp_file(&dir, "eight.nnue", &eight.to_bytes()));
    let mut buckets_seen = Vec::new();
    for fen in [
        FRC_MIDDLEGAME,
        "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1",
        "4k3/5pp1/4b3/8/8/4B3/5PPP/6K1 b - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    ] {
        let pieces = fen.split(' ').next().unwrap().chars().filter(char::is_ascii_alphabetic).count() as i32;
        buckets_seen.push((pieces - 2) / 4);
        engine.send(&format!("position fen {fen}"));
        engine.send(&format!("setoption name EvalFile value {plain}"));
        engine.sync();
        let base = final_evaluation(&mut engine);
        engine.send(&format!("setoption name EvalFile value {bucketed}"));
        assert_eq!(engine.sync(), ["info string EvalFile: loaded eight.nnue"]);
        let shifted = final_evaluation(&mut engine);
        let expected = 10 * ((pieces - 2) / 4);
        assert!((shifted - base - expected).abs() <= 1, "{fen}: {base} -> {shifted}, expected +{expected}");
    }
    assert_eq!(buckets_seen, [7, 5, 1, 0]);
}

#[test]
fn king_buckets_choose_by_the_kings_square() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-king-buckets");
    let mut engine = Engine::ready();
    // The embedded net's rows as bucket 0 (kings on their back rank) and
    // the same rows, every weight one unit up, as bucket 1 (anywhere else).
    let embedded = QuantisedNet::from_bytes(EMBEDDED).unwrap();
    let raised = embedded.feature_weights.iter().map(|w| w + 1);
    let two = QuantisedNet {
        king_buckets: backrank_eval::nnue::KingBuckets::standard(2).unwrap(),
        feature_weights: embedded.feature_weights.iter().copied().chain(raised).collect(),
        ..embedded
    };
    let path = temp_file(&dir, "kings.nnue", &two.to_bytes());
    let mut differences = Vec::new();
    for moves in ["", "e1e2", "e1e2 e8e7", "e1e2 e8e7 e2e1", "e1e2 e8e7 e2e1 e7e8"] {
        let position = format!("position fen 4k3/ppp5/8/8/8/8/PPPP4/4K3 w - - 0 1 moves {moves}");
        engine.send(&position);
        engine.send("setoption name EvalFile value <empty>");
        engine.sync();
        let one_bucket = final_evaluation(&mut engine);
        engine.send(&format!("setoption name EvalFile value {path}"));
        assert_eq!(engine.sync(), ["info string EvalFile: loaded kings.nnue"]);
        differences.push(final_evaluation(&mut engine) != one_bucket);
    }
    // Only while a king is off its back rank does the net read bucket 1.
    assert_eq!(differences, [false, true, true, true, false]);
    engine.send("position fen 1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1");
    engine.send("go depth 8");
    engine.expect_line(|l| l.starts_with("bestmove ") && !l.contains("0000"), SLOW);
}

/// The embedded net with the header's 32-bit word `index` (0 the version,
/// then inputs, hidden size, activation, QA, QB, scale) set to `value`,
/// checksum made good.
fn with_header_word(index: usize, value: u32) -> Vec<u8> {
    let mut bytes = EMBEDDED.to_vec();
    let at = 8 + 4 * index;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    with_checksum(bytes)
}

#[test]
fn broken_nets_are_refused_with_their_reason_and_the_last_net_stays() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("nnue-broken");
    let mut engine = Engine::ready();
    engine.send(&format!("position fen {FRC_MIDDLEGAME}"));
    // First another valid net, so that keeping the last net is not the same
    // as falling back to the embedded one.
    let before = load_shifted_net(&mut engine, &dir, "last.nnue", 100);

    let net = QuantisedNet::from_bytes(EMBEDDED).unwrap();
    // A consistent file of another hidden size.
    let hidden = 64;
    let small = QuantisedNet {
        hidden,
        feature_weights: vec![0; backrank_eval::nnue::INPUTS * hidden],
        king_buckets: backrank_eval::nnue::KingBuckets::ONE,
        feature_bias: vec![0; hidden],
        output_weights: vec![0; 2 * hidden],
        buckets: 1,
        output_bias: vec![0],
        ..net.clone()
    };
    // An output weight of 200 / QB: 200 x QA overflows the output layer's 16 bits.
    let mut output_weights = net.output_weights.clone();
    output_weights[7] = 200;
    let loud = QuantisedNet { output_weights, ..net.clone() };
    // One feature weight's bit flipped, the checksum left as it was.
    let mut damaged = EMBEDDED.to_vec();
    damaged[5000] ^= 0x10;
    let other_width = format!("hidden size 64, this build evaluates {}", backrank_eval::nnue::HIDDEN);
    let cases: [(&str, Vec<u8>, &str); 7] = [
        ("hidden-header.nnue", with_header_word(2, 64), "wrong length for hidden size 64"),
        ("hidden-64.nnue", small.to_bytes(), &other_width),
        ("qa.nnue", with_header_word(4, 127), "QA 127"),
        ("qb.nnue", with_header_word(5, 0), "QB 0"),
        ("version.nnue", with_header_word(0, 9), "version 9"),
        ("checksum.nnue", damaged, "checksum mismatch"),
        ("output-weight.nnue", loud.to_bytes(), "output weight is too large"),
    ];
    for (name, bytes, reason) in cases {
        let path = temp_file(&dir, name, &bytes);
        engine.send(&format!("setoption name EvalFile value {path}"));
        let answer = engine.sync();
        let [line] = answer.as_slice() else {
            engine.fail(&format!("{name}: expected one line, got {answer:?}"));
        };
        if !line.starts_with("info string EvalFile: ")
            || !line.contains(reason)
            || !line.ends_with("keeping last.nnue")
        {
            engine.fail(&format!(
                "{name}: expected the reason `{reason}` and `keeping last.nnue`, got {line:?}"
            ));
        }
        assert_eq!(final_evaluation(&mut engine), before, "after {name}");
    }
    let (best, _, _) = engine.go("go depth 3");
    let pos = backrank_uci::notation::parse_fen(FRC_MIDDLEGAME).unwrap();
    common::assert_legal(&engine, &pos, &best, false);
}
