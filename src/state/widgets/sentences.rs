//! A lint over the sentences the widgets compute (natively, from the model),
//! for the varied states: none may compare a number with itself ("8.17 µs
//! instead of 8.17 µs", "1× faster"), pair a count with the wrong number of
//! its noun ("1 bytes", "4 GPU"), or write a chain of ops as code with another
//! op count than the chain it describes.

use super::{dit, fusion, llm, overhead, serve};
use crate::model::{fusion as fm, limit, parallel, remedies};
use crate::state::data::State;
use crate::state::registry::tests::states;
use crate::state::url::decode;

/// Plural nouns that a count of exactly one may not take, and singular nouns
/// that any other whole count may not take.
const NOUNS: [(&str, &str); 16] = [
    ("byte", "bytes"),
    ("GPU", "GPUs"),
    ("kernel", "kernels"),
    ("op", "ops"),
    ("launch", "launches"),
    ("step", "steps"),
    ("token", "tokens"),
    ("sequence", "sequences"),
    ("element", "elements"),
    ("wave", "waves"),
    ("layer", "layers"),
    ("head", "heads"),
    ("stage", "stages"),
    ("run", "runs"),
    ("sample", "samples"),
    ("access", "accesses"),
];

/// A token without the punctuation around it.
fn bare(t: &str) -> &str {
    t.trim_matches(|c: char| matches!(c, ',' | ':' | ';' | '.' | '(' | ')' | '“' | '”' | '"'))
}

fn number(t: &str) -> Option<f64> {
    let b = bare(t);
    if b.is_empty() || !b.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    b.parse().ok()
}

/// The quantity ("8.17 µs", "2×") that ends `before` and the one that starts
/// `after`, where each opens on a number.
fn quantities(before: &str, after: &str) -> Option<(String, String)> {
    let l: Vec<&str> = before.split_whitespace().rev().take(2).collect();
    let r: Vec<&str> = after.split_whitespace().take(2).collect();
    let q = |num: &str, unit: Option<&&str>| -> Option<String> {
        number(num)?;
        Some(format!("{} {}", bare(num), unit.map_or("", |u| bare(u))))
    };
    // "… 8.17 µs instead of 8.17 µs": the number is the last token but one,
    // or the last where no unit follows it
    let left = match l.as_slice() {
        [unit, num] if number(num).is_some() => q(num, Some(unit)),
        [num, ..] => q(num, None),
        _ => None,
    }?;
    let right = match r.as_slice() {
        [num, unit] if number(num).is_some() && number(unit).is_none() => q(num, Some(unit)),
        [num, ..] => q(num, None),
        _ => None,
    }?;
    Some((left, right))
}

/// What is wrong with `text`; `ops` is the op count of the chain it is about,
/// where it is about one.
pub fn faults(text: &str, ops: Option<u32>) -> Vec<String> {
    let mut out = Vec::new();
    // a number compared with itself
    for sep in [" instead of ", " → ", " against "] {
        let mut from = 0;
        while let Some(i) = text[from..].find(sep) {
            let at = from + i;
            if let Some((a, b)) = quantities(&text[..at], &text[at + sep.len()..]) {
                if a.trim() == b.trim() {
                    out.push(format!("“{a}{sep}{b}”"));
                }
            }
            from = at + sep.len();
        }
    }
    for word in ["× faster", "× slower"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(word) {
            let at = from + i;
            let num: String = text[..at]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if num.parse::<f64>() == Ok(1.0) {
                out.push(format!("“{num}{word}”"));
            }
            from = at + word.len();
        }
    }
    // a count and its noun
    let tokens: Vec<&str> = text.split_whitespace().collect();
    for w in tokens.windows(2) {
        let (n, noun) = (bare(w[0]), bare(w[1]));
        if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) || w[0].ends_with(['.', ',', ':'])
        {
            continue;
        }
        for (one, many) in NOUNS {
            if n == "1" && noun == many {
                out.push(format!("“1 {many}”"));
            }
            if n != "1" && noun == one && !w[1].contains('-') {
                out.push(format!("“{n} {one}”"));
            }
        }
    }
    // a chain written as code with another op count
    if let Some(ops) = ops {
        let mut from = 0;
        while let Some(i) = text[from..].find("x.cos()") {
            let at = from + i + 1;
            let rest = &text[at..];
            let mut k = 0u32;
            let mut r = rest;
            while let Some(t) = r.strip_prefix(".cos()") {
                k += 1;
                r = t;
            }
            let named = r
                .strip_prefix(" … (")
                .and_then(|t| t.split_once(" ops)"))
                .and_then(|(n, _)| n.parse().ok())
                .unwrap_or(k);
            if named != ops {
                out.push(format!(
                    "x{} names {named} ops, the chain has {ops}",
                    ".cos()".repeat(k as usize)
                ));
            }
            from = at;
        }
    }
    out
}

/// Every sentence the explorer, fusion, overhead, llm, dit and serve widgets
/// compute for `s`, each with the op count of the chain it is about (if any).
fn sentences(s: &State) -> Vec<(String, Option<u32>)> {
    let mut out: Vec<(String, Option<u32>)> = Vec::new();
    let mut push = |t: String, ops: Option<u32>| out.push((t, ops));
    // the explorer
    let r = s.report();
    push(limit::headline(&r.limit, r.wall_time_s), None);
    push(limit::verdict(&r.limit), None);
    if let Some(t) = limit::card_sentence(&r.limit) {
        push(t, None);
    }
    let outs = remedies::evaluate(&s.setting);
    push(remedies::headline(&r.limit, &outs), None);
    for o in &outs {
        let effect = if o.helps() {
            format!("{}× faster", remedies::speedup_text(o))
        } else {
            format!("{}×", remedies::speedup_text(o))
        };
        push(format!("{} — {effect}", o.label), Some(s.setting.shape.ops));
        if let Ok(e) = &o.effect {
            push(remedies::before_after(o, e), None);
        }
    }
    for h in crate::state::hints::hints(s) {
        push(h.text, None);
    }
    // fusion
    let f = fusion::view(s);
    let n = f.compare.ops;
    push(fm::chain_code(n), Some(n));
    if let Some(t) = f.compare.note() {
        push(t, Some(n));
    }
    let (a, b, c) = f.remat.words();
    push(format!("{a}{b}{c}"), Some(n));
    // overhead
    push(overhead::view(s).doubling, None);
    // llm and dit, the scaling readouts with their label
    let l = llm::view(s, true);
    for t in l.sentences.iter().chain(&l.spread_notes) {
        push(t.clone(), None);
    }
    push(l.fit.clone(), None);
    let d = dit::view(s, true);
    for t in &d.sentences {
        push(t.clone(), None);
    }
    // serve, as drawn: its sentences, notes and each remedy's words
    let v = serve::view(s, true);
    for t in v.sentences.iter().chain(&v.spread_notes) {
        push(t.clone(), None);
    }
    push(v.graphs_note.clone(), None);
    push(v.price_source.clone(), None);
    for r in &v.remedies {
        push(format!("{}: {}", r.label, r.why), None);
        push(r.sentence.clone(), None);
    }
    for at in [l.scaling.stops_paying, d.scaling.stops_paying] {
        push(
            format!("{} {}", parallel::STOPS_LABEL, parallel::stops_words(at)),
            None,
        );
    }
    out
}

/// The varied states, and states whose sentences once read wrong.
fn all_states() -> Vec<State> {
    let mut all = states();
    for q in [
        "batch=1",
        "batch=84",
        "batch=128",
        "batch=1&fusion_n=1",
        "batch=1&fusion_n=6",
        "batch=1&fusion_n=3",
        "batch=1&dtype=bf16&hw=h100-sxm",
        "hw=h100-sxm&dtype=bf16",
        "hw=h100-sxm&llm_model=llama3-70b&llm_tp=8",
        "hw=h100-sxm&dit_sp=8",
    ] {
        all.push(decode(q).0);
    }
    all
}

#[test]
fn no_sentence_compares_a_number_with_itself_or_miscounts() {
    let mut bad = Vec::new();
    let mut read = 0;
    for s in all_states() {
        for (t, ops) in sentences(&s) {
            read += 1;
            let f = faults(&t, ops);
            if !f.is_empty() {
                bad.push(format!("{}: {f:?} in “{t}”", crate::state::url::encode(&s)));
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(read > 500, "{read}");
    assert!(
        bad.is_empty(),
        "{} sentences:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_lint_catches_sentences_that_once_read_wrong() {
    assert_eq!(
        faults("takes 8.17 µs instead of 8.17 µs: 1× faster", None).len(),
        2
    );
    assert!(faults("takes 8.17 µs instead of 9.20 µs: 1.13× faster", None).is_empty());
    assert_eq!(
        faults(
            "Store tensors in fp8 (1 bytes per element instead of 2)",
            None
        )
        .len(),
        1
    );
    assert_eq!(faults("on 4 GPU", None).len(), 1);
    assert!(faults("on 1 GPU and 4 GPUs, 1 byte", None).is_empty());
    assert_eq!(
        faults("the pure memory-bound 2× of x.cos().cos(). ", Some(6)).len(),
        1
    );
    assert!(faults("the pure memory-bound 2× of x.cos().cos(). ", Some(2)).is_empty());
    assert!(faults("x.cos().cos() … (6 ops)", Some(6)).is_empty());
    assert_eq!(faults("432 ms → 432 ms", None).len(), 1);
}
