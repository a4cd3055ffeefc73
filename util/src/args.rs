//! `key value` command-line arguments, as `backrank datagen`, the tuner and
//! the trainer take them: `games 100 nodes 5000 out data.bin`.

use std::str::FromStr;

/// Parsed `key value` pairs, checked against the keys a command knows.
#[derive(Debug, Clone, Default)]
pub struct KeyValues {
    pairs: Vec<(String, String)>,
}

impl KeyValues {
    /// Reads `args` as pairs; every key must be one of `known`. `usage` is
    /// the error text for an odd count or an unknown key.
    pub fn parse<S: AsRef<str>>(args: &[S], known: &[&str], usage: &str) -> Result<KeyValues, String> {
        if !args.len().is_multiple_of(2) {
            return Err(usage.to_string());
        }
        let mut pairs = Vec::new();
        for pair in args.chunks(2) {
            let (key, value) = (pair[0].as_ref(), pair[1].as_ref());
            if !known.contains(&key) {
                return Err(format!("unknown key '{key}'\n{usage}"));
            }
            pairs.push((key.to_string(), value.to_string()));
        }
        Ok(KeyValues { pairs })
    }

    /// The last value given for `key`, as text.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The value of `key` parsed as `T`, or `default` when it is absent.
    pub fn get<T: FromStr>(&self, key: &str, default: T) -> Result<T, String> {
        match self.text(key) {
            None => Ok(default),
            Some(value) => value.parse().map_err(|_| format!("bad value '{value}' for {key}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pairs_and_refuses_junk() {
        let args =
            KeyValues::parse(&["games", "7", "out", "x.txt"], &["games", "out", "nodes"], "usage").unwrap();
        assert_eq!(args.get("games", 1u64).unwrap(), 7);
        assert_eq!(args.get("nodes", 300u64).unwrap(), 300);
        assert_eq!(args.text("out"), Some("x.txt"));
        assert!(args.get::<u64>("out", 0).is_err());
        assert!(KeyValues::parse(&["games"], &["games"], "usage").is_err());
        assert!(KeyValues::parse(&["colour", "blue"], &["games"], "usage").is_err());
    }
}
