//! Writes weights back as Rust source: `eval/src/weights.rs`, a `static`
//! of [`backrank_eval::Weights`] laid out as [`backrank_eval::LAYOUT`] says.

use std::fmt::Write;

use backrank_eval::{LAYOUT, Tapered};

/// Values per line in a long array (one rank of a piece-square table).
const PER_LINE: usize = 8;

/// The source text of `eval/src/weights.rs` for `weights` (in
/// [`backrank_eval::Weights::as_slice`] order); `origin` says where they
/// came from, for the file's header.
pub fn weights_source(weights: &[Tapered], origin: &str) -> String {
    let mut out = String::new();
    out.push_str("//! The evaluation's weights, written by the tuner (`tune/`); change them\n");
    out.push_str("//! by tuning, not by hand. The meaning of each is documented on\n");
    out.push_str("//! [`crate::params::Weights`].\n//!\n");
    for line in origin.lines() {
        let _ = if line.is_empty() { writeln!(out, "//!") } else { writeln!(out, "//! {line}") };
    }
    out.push_str("\nuse crate::Tapered;\nuse crate::params::Weights;\n\n");
    out.push_str("const fn t(mg: i32, eg: i32) -> Tapered {\n    Tapered::new(mg, eg)\n}\n\n");
    out.push_str("/// Every tunable weight of the evaluation.\n");
    out.push_str("#[rustfmt::skip]\npub static WEIGHTS: Weights = Weights {\n");
    let mut next = 0;
    for (name, dims) in LAYOUT {
        let count: usize = dims.iter().product();
        let values = &weights[next..next + count];
        next += count;
        match dims {
            [] => {
                let _ = writeln!(out, "    {name}: {},", pair(values[0]));
            }
            [_] => {
                let _ = writeln!(out, "    {name}: [");
                write_rows(&mut out, values, "        ");
                out.push_str("    ],\n");
            }
            _ => {
                let inner = count / dims[0];
                let _ = writeln!(out, "    {name}: [");
                for table in values.chunks(inner) {
                    out.push_str("        [\n");
                    write_rows(&mut out, table, "            ");
                    out.push_str("        ],\n");
                }
                out.push_str("    ],\n");
            }
        }
    }
    out.push_str("};\n");
    out
}

fn pair(value: Tapered) -> String {
    format!("t({}, {})", value.mg, value.eg)
}

fn write_rows(out: &mut String, values: &[Tapered], indent: &str) {
    for row in values.chunks(PER_LINE) {
        let items: Vec<String> = row.iter().map(|&v| pair(v)).collect();
        let _ = writeln!(out, "{indent}{},", items.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_eval::weights::WEIGHTS;

    #[test]
    fn the_weights_file_is_what_the_writer_writes() {
        // The weights file must be exactly the writer's output for its own
        // values: no hand edits, and the writer covers every field.
        let source = include_str!("../../eval/src/weights.rs");
        let header_end = source.find("\nuse crate::Tapered;").unwrap();
        let origin: String = source[..header_end]
            .lines()
            .skip(4)
            .map(|line| format!("{}\n", line.trim_start_matches("//!").trim_start()))
            .collect();
        assert_eq!(weights_source(WEIGHTS.as_slice(), &origin), source);
    }
}
