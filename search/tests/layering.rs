//! The files of the search crate, and of the engine crate, import each
//! other without a circle: each module's `crate::` paths (outside comments
//! and its test module) name only modules that do not lead back to it. A
//! circle grows when a shared type is declared where it was first used;
//! shared types belong in a leaf (`search/src/state.rs`).

use std::collections::BTreeMap;
use std::path::Path;

/// Each module of the crate in `src` with the modules its code names.
fn imports(src: &Path) -> BTreeMap<String, Vec<String>> {
    let modules: Vec<String> = std::fs::read_dir(src)
        .unwrap()
        .filter_map(|entry| entry.unwrap().file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_string))
        .collect();
    let mut graph = BTreeMap::new();
    for module in &modules {
        let text = std::fs::read_to_string(src.join(format!("{module}.rs"))).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .map(|line| format!("{line}\n"))
            .collect();
        let named = |other: &String| {
            other != module
                && (code.contains(&format!("crate::{other}::"))
                    || code.contains(&format!("crate::{other};"))
                    || code.contains(&format!("crate::{other}}}"))
                    || code.contains(&format!("crate::{{{other}"))
                    || grouped_use_names(&code, other))
        };
        graph.insert(module.clone(), modules.iter().filter(|m| named(m)).cloned().collect());
    }
    graph
}

/// Whether a `use crate::{...}` group names `module` (as `module::...` or
/// `self`-less `module,`).
fn grouped_use_names(code: &str, module: &str) -> bool {
    code.split("use crate::{").skip(1).any(|rest| {
        let group = rest.split("};").next().unwrap_or("");
        group
            .split([',', '{', ' ', '\n'])
            .any(|word| word == module || word.starts_with(&format!("{module}::")))
    })
}

/// A circle of imports, if there is one.
fn find_circle(graph: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if done.iter().any(|m| m == module) {
            return None;
        }
        path.push(module.to_string());
        for next in &graph[module] {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.push(module.to_string());
        None
    }
    let mut done = Vec::new();
    graph.keys().find_map(|module| visit(module, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_search_and_the_engine_import_without_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for crate_src in [root.join("src"), root.join("../engine/src")] {
        let graph = imports(&crate_src);
        assert!(graph.len() > 10, "{}: {graph:?}", crate_src.display());
        assert_eq!(find_circle(&graph), None, "{}: {graph:#?}", crate_src.display());
    }
    // The search's layers, as `lib.rs` describes them.
    let search = imports(&root.join("src"));
    assert!(
        search["state"]
            .iter()
            .all(|m| !["negamax", "pruning", "quiescence", "worker", "pool"].contains(&m.as_str()))
    );
    assert!(search["negamax"].contains(&"state".to_string()));
}

#[test]
fn a_circle_is_found_when_there_is_one() {
    let graph: BTreeMap<String, Vec<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec![])]
            .into_iter()
            .map(|(m, deps)| (m.to_string(), deps.into_iter().map(str::to_string).collect()))
            .collect();
    let circle = find_circle(&graph).unwrap();
    assert_eq!(circle.first(), circle.last());
    assert_eq!(circle.len(), 4);
    let mut line = graph.clone();
    line.insert("c".to_string(), vec![]);
    assert_eq!(find_circle(&line), None);
}
