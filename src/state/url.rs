//! The URL contract: the whole state as a query string and back. Parameter
//! names and meanings are stable (links in course material must keep working);
//! README "URL contract" lists them, and tests/url_contract.rs checks that table
//! against the code both ways.
//!
//! The codec runs over the registry: the explorer's keys first
//! (`widgets::explorer::ROWS`, in their order: the preset first, since every
//! later default comes from it), then each widget's own keys (each
//! `widgets::Spec::params`, widgets in page order), written only when they
//! differ from their default.
//!
//! Omitted keys take the preset's defaults; unknown keys are ignored; a bad value is
//! replaced by the default and reported as a [`Notice`]. `encode` writes every
//! explorer key, so a shared link does not depend on today's defaults.

use super::widgets::{self, explorer};
use super::State;

/// A parameter that was ignored, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub param: String,
    pub value: String,
    pub reason: String,
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Ignored {}={:?}: {}; using the default.",
            self.param, self.value, self.reason
        )
    }
}

/// The explorer's keys, in URL order (declared once each in [`explorer::ROWS`]).
pub const KEYS: [&str; explorer::ROWS.len()] = explorer::KEYS;

pub use super::parse::{gpu_name, GPU_NAME_MAX};

/// The longest value a notice shows.
pub const MAX_SHOWN: usize = 40;

/// A bad value as a notice shows it: at most 40 characters, then an ellipsis.
pub(crate) fn shown(v: &str) -> String {
    if v.chars().count() > MAX_SHOWN {
        let mut s: String = v.chars().take(MAX_SHOWN).collect();
        s.push('…');
        s
    } else {
        v.to_string()
    }
}

/// Parse a query string (with or without the leading `?`). Never panics.
pub fn decode(query: &str) -> (State, Vec<Notice>) {
    let q = query.strip_prefix('?').unwrap_or(query);
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut notices = Vec::new();
    for (k, v) in form_urlencoded::parse(q.as_bytes()) {
        if !KEYS.contains(&k.as_ref()) && widgets::param(&k).is_none() {
            continue; // unknown keys are someone else's business
        }
        if pairs.iter().any(|(pk, _)| *pk == k) {
            notices.push(Notice {
                param: k.to_string(),
                value: shown(&v),
                reason: "repeated; the first value was used".into(),
            });
            continue;
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let mut bad = |param: &str, value: &str, reason: String| {
        notices.push(Notice {
            param: param.into(),
            value: shown(value),
            reason,
        });
    };

    let lookup = |key: &str| get(key).map(str::to_string);
    let mut s = State::default();
    for p in explorer::ROWS {
        if let Some(v) = get(p.key) {
            if let Err(reason) = p.read(&mut s, v, &lookup) {
                bad(p.key, v, reason);
            }
        }
    }
    for p in widgets::PARAMS {
        if let Some(v) = get(p.key) {
            // the value, then the one dtype rule on the GPU the explorer's keys chose
            match p.parse(v).and_then(|x| p.check(&s, x).map(|()| x)) {
                Ok(x) => (p.set)(&mut s, x),
                Err(reason) => bad(p.key, v, reason),
            }
        }
    }
    (s, notices)
}

/// The query string for a state (without `?`), every key present, fixed order.
pub fn encode(s: &State) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            explorer::ROWS
                .iter()
                .filter_map(|p| p.write(s).map(|v| (p.key, v))),
        )
        .extend_pairs(widgets::PARAMS.iter().filter_map(|p| {
            let v = (p.get)(s);
            (v != p.kind.default()).then(|| (p.key, p.format(v)))
        }))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_query_is_default() {
        let (s, n) = decode("");
        assert_eq!(s, State::default());
        assert!(n.is_empty());
        assert_eq!(decode("?").0, State::default());
        assert!(!KEYS.is_empty());
    }

    /// Every key of every widget is read, and an unknown one ignored; a
    /// repeated one is a notice.
    #[test]
    fn the_codec_reads_every_registered_key() {
        let (s, n) = decode("foo=bar&embed=x");
        assert!(n.is_empty() && s == State::default());
        for p in widgets::params() {
            let (_, n) = decode(&format!("{0}=%00&{0}=%00", p.key));
            assert_eq!(n.len(), 2, "{}: {n:?}", p.key);
            assert!(n[0].reason.starts_with("repeated"), "{}", p.key);
        }
    }
}
