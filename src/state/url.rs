//! The URL contract. Parameter names and meanings are stable: links in course
//! material must keep working. See README "URL contract".
//!
//! | key        | meaning                               | accepted                         |
//! |------------|---------------------------------------|----------------------------------|
//! | `hw`       | hardware preset id                    | an id from `model::hardware`     |
//! | `dtype`    | `fp32` `tf32` `bf16` `fp8`            | one the preset supports          |
//! | `flops`    | matmul peak, FLOP/s (`312e12`)        | 1e9 ..= 1e18                     |
//! | `bw`       | DRAM bandwidth, bytes/s               | 1e9 ..= 1e15                     |
//! | `batch`    | batch size B                          | integer 1 ..= 65536              |
//! | `hidden`   | hidden size D                         | integer 1 ..= 65536              |
//! | `workload` | `mlp` or `chain`                      |                                  |
//! | `ops`      | pointwise ops in the chain            | integer 1 ..= 1024               |
//! | `fused`    | `1` fused, `0` eager                  |                                  |
//! | `overhead` | CPU seconds per kernel (`3.57e-6`)    | 1e-8 ..= 1e-2                    |
//! | `gpu`      | adapter name, with `hw=measured`      | text, ≤ 80 characters            |
//! | `roof`     | `datasheet` or `achievable` roofs     | written only when `achievable`   |
//!
//! Plus the essay widgets' own keys, table-driven in [`widgets::PARAMS`] (written
//! only when they differ from their default), e.g. the microbenchmark's
//! `mb_dtype` (`fp32` `tf32` `bf16` `fp8`, default `fp32`; a dtype the preset
//! lacks is kept, and the widget shows fp32 and says so) and `mb_elems` (elements,
//! integer 2^10 ..= 2^30, default 2^28).
//!
//! Omitted keys take the preset's defaults; unknown keys are ignored; a bad value is
//! replaced by the default and reported as a [`Notice`]. `encode` writes every key,
//! so a shared link does not depend on today's defaults.

use super::{params, widgets, State};

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

/// The explorer's keys, in URL order (declared once each in [`params::EXPLORER`]).
pub const KEYS: [&str; params::EXPLORER.len()] = params::KEYS;

pub use super::parse::{gpu_name, GPU_NAME_MAX};

const MAX_SHOWN: usize = 40;

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
    for p in params::EXPLORER {
        if let Some(v) = get(p.key) {
            if let Err(reason) = p.read(&mut s, v, &lookup) {
                bad(p.key, v, reason);
            }
        }
    }
    for p in widgets::PARAMS {
        if let Some(v) = get(p.key) {
            match p.parse(v) {
                Ok(x) => (p.set)(&mut s.widgets, x),
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
            params::EXPLORER
                .iter()
                .filter_map(|p| p.write(s).map(|v| (p.key, v))),
        )
        .extend_pairs(widgets::PARAMS.iter().filter_map(|p| {
            let v = (p.get)(&s.widgets);
            (v != p.kind.default()).then(|| (p.key, p.format(v)))
        }))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::achievable::Roof;
    use crate::model::{Dtype, Workload};

    #[test]
    fn a_measured_gpu_round_trips_with_its_name() {
        let q = "hw=measured&flops=2e13&bw=4e11&overhead=5e-6&gpu=Apple%20M2%0A%20%20Max";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        assert!(s.hw.is_measured());
        assert_eq!(s.gpu_name, "Apple M2 Max");
        assert_eq!(s.hw_name(), "Measured: Apple M2 Max");
        assert_eq!((s.flops, s.bw), (2e13, 4e11));
        assert_eq!(decode(&encode(&s)).0, s);
        // without its numbers it is nothing: the default preset, with a notice
        let (s, n) = decode("hw=measured");
        assert_eq!(s.hw.id, crate::model::hardware::DEFAULT_PRESET);
        assert_eq!(n[0].param, "hw");
        // a name without a measured GPU is ignored, with a notice
        let (s, n) = decode("gpu=foo");
        assert!(s.gpu_name.is_empty());
        assert_eq!(n[0].param, "gpu");
        assert_eq!(gpu_name(&"x".repeat(500)).chars().count(), GPU_NAME_MAX);
        // cleaning is idempotent (a link survives a round trip), also at the cut
        let cut = format!("{} tail", "y".repeat(GPU_NAME_MAX - 1));
        assert_eq!(gpu_name(&gpu_name(&cut)), gpu_name(&cut));
        assert!(!gpu_name(&cut).ends_with(' '));
    }

    #[test]
    fn achievable_roofs_round_trip_and_scale_the_machine() {
        let (s, n) = decode("hw=h100-sxm&roof=achievable");
        assert!(n.is_empty());
        assert_eq!(s.roof, Roof::Achievable);
        assert_eq!(decode(&encode(&s)).0, s);
        let d = decode("hw=h100-sxm").0;
        assert!(
            !encode(&d).contains("roof"),
            "the default stays out of links"
        );
        let (a, b) = (s.machine(), d.machine());
        assert!(
            a.bw < b.bw && a.matmul_flops < b.matmul_flops && a.pointwise_flops < b.pointwise_flops
        );
        let (_, n) = decode("roof=dreamy");
        assert_eq!(n[0].param, "roof");
    }

    #[test]
    fn empty_query_is_default() {
        let (s, n) = decode("");
        assert_eq!(s, State::default());
        assert!(n.is_empty());
        assert_eq!(decode("?").0, State::default());
    }

    #[test]
    fn full_round_trip() {
        let q = "hw=h100-sxm&dtype=fp8&flops=2e15&bw=3.35e12&batch=4096&hidden=8192&workload=chain&ops=64&fused=1&overhead=1e-5";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(s.hw.id, "h100-sxm");
        assert_eq!(s.dtype, Dtype::Fp8);
        assert_eq!(s.flops, 2e15);
        assert_eq!(s.batch, 4096);
        assert_eq!(s.workload, Workload::Chain);
        assert!(s.fused);
        assert_eq!(decode(&encode(&s)), (s, vec![]));
    }

    #[test]
    fn plain_and_exponent_numbers() {
        assert_eq!(decode("flops=312000000000000").0.flops, 312e12);
        assert_eq!(decode("flops=3.12e14").0.flops, 312e12);
        assert_eq!(decode("flops=312E12").0.flops, 312e12);
    }

    #[test]
    fn bad_values_fall_back_with_a_notice() {
        for (q, key) in [
            ("flops=abc", "flops"),
            ("flops=NaN", "flops"),
            ("flops=inf", "flops"),
            ("flops=-5", "flops"),
            ("flops=0", "flops"),
            ("flops=1e400", "flops"),
            ("bw=1", "bw"),
            ("batch=0", "batch"),
            ("batch=1.5", "batch"),
            ("batch=70000", "batch"),
            ("ops=2000", "ops"),
            ("hidden=", "hidden"),
            ("fused=yes", "fused"),
            ("workload=cnn", "workload"),
            ("hw=z80", "hw"),
            ("dtype=fp64", "dtype"),
            ("dtype=fp8", "dtype"), // A100 has no fp8
            ("overhead=1", "overhead"),
        ] {
            let (s, n) = decode(q);
            assert_eq!(n.len(), 1, "{q}: {n:?}");
            assert_eq!(n[0].param, key, "{q}");
            assert_eq!(s, State::default(), "{q}");
        }
    }

    #[test]
    fn unknown_keys_ignored_and_repeats_reported() {
        let (s, n) = decode("foo=bar&embed=x&batch=8&batch=9");
        assert_eq!(s.batch, 8);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].param, "batch");
    }

    #[test]
    fn flops_default_follows_hw_and_dtype() {
        let (s, _) = decode("hw=h100-sxm&dtype=fp32");
        assert_eq!(s.flops, 67e12);
        assert_eq!(s.bw, 3.35e12);
    }

    #[test]
    fn widget_params_round_trip_and_fall_back() {
        let (s, n) = decode("bert_seq=128&graphs=1&calc=attention&fusion_n=7");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(
            (
                s.widgets.bert_seq,
                s.widgets.graphs,
                s.widgets.calc,
                s.widgets.fusion_n
            ),
            (128, true, widgets::CalcOp::Attention, 7)
        );
        let q = encode(&s);
        assert!(q.contains("bert_seq=128") && q.contains("calc=attention"));
        assert!(!q.contains("bert_batch"), "defaults are not written: {q}");
        assert_eq!(decode(&q).0, s);
        let (s, n) = decode("bert_seq=0&calc=conv");
        assert_eq!(n.len(), 2);
        assert_eq!(s, State::default());
    }

    #[test]
    fn microbench_keys_round_trip_and_fall_back() {
        let (s, n) = decode("mb_dtype=bf16&mb_elems=1048576");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(
            (s.widgets.mb_dtype, s.widgets.mb_elems),
            (crate::model::Dtype::Bf16, 1 << 20)
        );
        let q = encode(&s);
        assert!(
            q.contains("mb_dtype=bf16") && q.contains("mb_elems=1048576"),
            "{q}"
        );
        assert_eq!(decode(&q), (s, vec![]));
        // defaults are not written
        assert!(!encode(&State::default()).contains("mb_"));
        // a dtype the preset lacks is kept (the widget falls back and says so)
        let (s, n) = decode("mb_dtype=fp8");
        assert!(n.is_empty());
        assert_eq!(s.mb_dtype().used, Dtype::Fp32);
        assert_eq!(decode(&encode(&s)), (s, vec![]));
        for (q, key) in [
            ("mb_dtype=fp64", "mb_dtype"),
            ("mb_dtype=", "mb_dtype"),
            ("mb_elems=1023", "mb_elems"),
            ("mb_elems=2000000000", "mb_elems"),
            ("mb_elems=4096.5", "mb_elems"),
            ("mb_elems=abc", "mb_elems"),
        ] {
            let (s, n) = decode(q);
            assert_eq!(n.len(), 1, "{q}: {n:?}");
            assert_eq!(n[0].param, key, "{q}");
            assert_eq!(s, State::default(), "{q}");
        }
    }

    #[test]
    fn long_values_are_truncated_in_notices() {
        let long = "x".repeat(10_000);
        let (_, n) = decode(&format!("hw={long}"));
        assert!(n[0].value.chars().count() <= MAX_SHOWN + 1);
    }
}
