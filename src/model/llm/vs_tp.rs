//! DEP `n` against tensor parallel `n` on the same GPUs ([`against_tp`]):
//! where DEP ([`super::dep`]) starts to pay over the doubling batches, and the
//! part of the step that decides it, computed by the step model and said in
//! words.

use super::dep::ranks;
use super::step::Split;
use super::{LlmRun, Parallel};

/// The batches the comparison with tensor parallelism runs: 1, 2, 4 … 4096.
const BATCHES: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// DEP `n` against tensor parallel `n` on the same GPUs ([`against_tp`]).
#[derive(Clone, Debug, PartialEq)]
pub struct VsTp {
    pub n: u32,
    /// DEP's and TP's step now.
    pub dep: Split,
    pub tp: Split,
    /// The smallest of [`BATCHES`] from which DEP's step is the shorter at
    /// every batch of them; `None` where it is at none of the largest.
    pub from: Option<u32>,
    /// Where DEP's step loses most against TP's just below `from` (or where
    /// it gains most, now, where it is faster), and the two steps' seconds
    /// in that part.
    pub part: (&'static str, f64, f64),
}

/// The parts of a split by name, in [`Split::largest`]'s words.
fn parts(s: &Split) -> [(&'static str, f64); 6] {
    [
        ("weights", s.weights),
        ("kv", s.kv),
        ("activations", s.activations),
        ("compute", s.compute),
        ("overhead", s.overhead),
        ("comm", s.comm),
    ]
}

/// The part where `a` exceeds `b` most, with both seconds.
fn most_over(a: &Split, b: &Split) -> (&'static str, f64, f64) {
    parts(a)
        .into_iter()
        .zip(parts(b))
        .map(|((name, x), (_, y))| (name, x, y))
        .fold(("weights", 0.0, 0.0), |m, p| {
            if p.1 - p.2 > m.1 - m.2 {
                p
            } else {
                m
            }
        })
}

/// DEP `r.par.dep` against tensor parallel of the same degree (DEP 1, the
/// rest kept) on `setting`, at `r`'s batch and over [`BATCHES`]; `None`
/// without DEP or where tensor parallel of that degree does not split the
/// heads.
pub fn against_tp(r: &LlmRun, setting: &crate::model::setting::Setting) -> Option<VsTp> {
    use super::step::{plain, wall, KvRead};
    let n = ranks(r);
    let tp = LlmRun {
        par: Parallel {
            tp: n,
            dep: 1,
            ..r.par
        },
        ..*r
    };
    if n <= 1 || super::spread(&tp.config, tp.par).0 != tp.par {
        return None;
    }
    let at = |x: &LlmRun, batch| plain(&LlmRun { batch, ..*x }, setting, KvRead::AsWritten);
    let faster = |batch| {
        wall(&LlmRun { batch, ..*r }, setting, KvRead::AsWritten)
            < wall(&LlmRun { batch, ..tp }, setting, KvRead::AsWritten)
    };
    let wins: Vec<bool> = BATCHES.iter().map(|&b| faster(b)).collect();
    let from = (0..BATCHES.len())
        .find(|&i| wins[i..].iter().all(|&w| w))
        .map(|i| BATCHES[i]);
    let (d, t) = (at(r, r.batch), at(&tp, r.batch));
    let part = match from {
        Some(b) if b > 1 => {
            let below = b / 2;
            most_over(&at(r, below).split, &at(&tp, below).split)
        }
        _ if d.wall < t.wall => {
            let (name, x, y) = most_over(&t.split, &d.split);
            (name, y, x)
        }
        _ => most_over(&d.split, &t.split),
    };
    Some(VsTp {
        n,
        dep: d.split,
        tp: t.split,
        from,
        part,
    })
}

/// A part's name in a sentence.
fn part_words(name: &str) -> &'static str {
    match name {
        "weights" => "weight reads",
        "kv" => "KV-cache reads",
        "activations" => "activation traffic",
        "compute" => "compute",
        "overhead" => "launch overhead",
        _ => "communication",
    }
}

/// [`against_tp`] in words: the two steps now, where DEP starts to pay and
/// the part that decides it.
pub fn vs_tp_words(v: &VsTp, batch: u32) -> String {
    use crate::model::units::{si, sig3};
    let (d, t) = (v.dep.total(), v.tp.total());
    let now = format!(
        "DEP {n} against tensor parallel {n} on the same {n} GPUs, at batch {batch}: {} a step against {} ({}× {}).",
        si(d, "s"),
        si(t, "s"),
        sig3(if d < t { t / d.max(f64::MIN_POSITIVE) } else { d / t.max(f64::MIN_POSITIVE) }),
        if d < t { "faster" } else { "slower" },
        n = v.n,
    );
    let (name, x, y) = v.part;
    let why = format!(
        "{}: {} in DEP's step, {} in tensor parallel's",
        part_words(name),
        si(x, "s"),
        si(y, "s")
    );
    let last = BATCHES[BATCHES.len() - 1];
    let when = match v.from {
        Some(1) => format!(
            " DEP is the faster at every batch from 1 to {last} (doubling); it gains most in {why}."
        ),
        Some(b) => format!(
            " DEP pays from batch {b} (of 1 to {last}, doubling); below it, at batch {}, it loses most in {why}.",
            b / 2
        ),
        None => format!(
            " DEP does not stay the faster up to batch {last}; {} most in {why}.",
            if d < t { "now it gains" } else { "it loses" }
        ),
    };
    format!("{now}{when}")
}

/// Where tensor parallel of DEP's degree does not split the heads: no
/// like-for-like comparison, and why.
pub fn no_tp_words(r: &LlmRun) -> String {
    let c = &r.config;
    format!(
        "Tensor parallel {n} does not split this model's {} query heads and {} KV heads evenly, so DEP {n} has no like-for-like tensor-parallel comparison here.",
        c.heads,
        c.kv_heads,
        n = ranks(r)
    )
}
