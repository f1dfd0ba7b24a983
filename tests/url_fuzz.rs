//! Fuzzing the URL decoder and the model with generated query strings: random
//! bytes, nasty numbers (NaN, inf, -0, 1e400, huge and tiny), unicode, repeated and
//! missing keys, very long values. For every case: no panic, every readout finite,
//! and the accepted state re-encodes to a URL that decodes to the same state.
//!
//! A fast slice runs with `cargo test` (BRRR_FUZZ_CASES defaults to 20 000); the
//! full run is documented in docs/testing.md "Robustness":
//!   BRRR_FUZZ_CASES=1000000 cargo test --release --test url_fuzz -- --nocapture

use brrr::state::page::{self, Theme};
use brrr::state::{registry, url, widgets, State};

mod common;
use common::Rng;

const NASTY: &[&str] = &[
    "",
    "0",
    "-0",
    "1",
    "-1",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e400",
    "1e-400",
    "1e308",
    "4.9e-324",
    "312e12",
    "3.12e14",
    "1.555e12",
    "65536",
    "65537",
    "1024",
    "1025",
    "0.5",
    "1.0",
    "2e0",
    "0x10",
    "１２",
    "٣",
    "1_000",
    " 64",
    "64 ",
    "+64",
    "--1",
    "1e",
    "e5",
    ".",
    "1..2",
    "%00",
    "%ZZ",
    "%",
    "&",
    "=",
    "==",
    "a100-40gb",
    "h100-sxm",
    "fp8",
    "bf16",
    "fp32",
    "tf32",
    "mlp",
    "chain",
    "matmul",
    "attention",
    "layernorm",
    "softmax",
    "datacenter",
    "🦀",
    "\u{202e}",
    "<script>",
    "18446744073709551616",
    "4294967296",
    "4294967295",
    "-4294967296",
    "true",
    "yes",
    "null",
];

fn key(r: &mut Rng) -> String {
    let main: Vec<&str> = url::KEYS.to_vec();
    let wk: Vec<&str> = registry::params().map(|p| p.key).collect();
    match r.below(10) {
        0..=3 => r.pick(&main).to_string(),
        4..=6 => r.pick(&wk).to_string(),
        7 => r
            .pick(&["embed", "theme", "lab_size", "lab_timer", "debug_panic"])
            .to_string(),
        8 => bytes(r, 8),
        _ => format!("{}{}", r.pick(&main), r.pick(&["", "[]", "%20", "x"])),
    }
}

fn bytes(r: &mut Rng, max: usize) -> String {
    let n = r.below(max + 1);
    let raw: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
    String::from_utf8_lossy(&raw).into_owned()
}

fn value(r: &mut Rng) -> String {
    match r.below(8) {
        0..=3 => r.pick(NASTY).to_string(),
        4 => format!("{}e{}", r.below(1000), r.below(40) as i32 - 20),
        5 => format!("{}", (r.next() as f64) / (r.next() as f64 + 1.0)),
        6 => bytes(r, 12),
        _ => "9".repeat(r.below(5000) + 1), // very long values
    }
}

fn query(r: &mut Rng) -> String {
    match r.below(20) {
        0 => bytes(r, 300),
        1 => String::new(),
        _ => {
            let n = r.below(14);
            let mut q = String::from(if r.below(2) == 0 { "?" } else { "" });
            for i in 0..n {
                if i > 0 {
                    q.push_str(r.pick(&["&", "&", "&", ";", "&&"]));
                }
                q.push_str(&key(r));
                if r.below(10) > 0 {
                    q.push('=');
                    let v = value(r);
                    // sometimes percent-encode the value, sometimes not
                    if r.below(2) == 0 {
                        q.push_str(
                            &form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>(),
                        );
                    } else {
                        q.push_str(&v);
                    }
                }
            }
            q
        }
    }
}

/// The page's whole start, as the shell decodes it (`state::page::decode`).
fn registry(id: &str) -> Option<&'static str> {
    ["roofline-explorer", "fusion", "lab"]
        .into_iter()
        .find(|w| *w == id)
}

fn check(q: &str) {
    let start = page::decode(q, registry);
    let (s, notices) = url::decode(q);
    // the page's start adds the mode's notices to the state's, never changes the state
    assert_eq!(start.state, s, "{q:?}");
    assert!(start.notices.len() >= notices.len() && start.notices[..notices.len()] == notices[..]);
    assert!(start.embed.is_none_or(|id| registry(id).is_some()));
    assert!(matches!(
        start.theme,
        None | Some(Theme::Light | Theme::Dark)
    ));
    for n in &start.notices {
        assert!(n.value.chars().count() <= 41, "{q:?}: {n:?}");
    }
    let r = s.report();
    for v in [
        r.wall_time_s,
        r.achieved_flops,
        r.achieved_bw,
        r.intensity,
        r.shares.compute,
        r.shares.memory,
        r.shares.overhead,
    ] {
        assert!(v.is_finite(), "non-finite readout for {q:?}: {r:?}");
    }
    // the microbenchmark's own dtype and size (mb_dtype, mb_elems)
    let b = widgets::microbench::bench(&s);
    assert!(
        s.setting.hw.supports(b.dtype),
        "{q:?}: {:?} on {}",
        b.dtype,
        s.setting.hw.id
    );
    for p in &b.points {
        for v in [
            p.runtime,
            p.achieved_flops,
            p.achieved_bw,
            p.shares.overhead,
        ] {
            assert!(v.is_finite() && v >= 0.0, "microbench for {q:?}: {p:?}");
        }
    }
    assert!(b.crossover.repeat.is_finite() && b.crossover.repeat > 0.0);
    let again = url::encode(&s);
    let (back, notices) = url::decode(&again);
    assert!(
        notices.is_empty(),
        "re-encoded URL has notices: {again} {notices:?}"
    );
    assert_eq!(
        back, s,
        "round trip changed the state for {q:?} via {again}"
    );
}

#[test]
fn fuzz_url_decoder_and_model() {
    let cases: usize = std::env::var("BRRR_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let seed: u64 = std::env::var("BRRR_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6272_7272);
    let mut r = Rng(seed | 1);
    for _ in 0..cases {
        let q = query(&mut r);
        check(&q);
    }
    // the default state must also survive
    check("");
    assert_eq!(url::decode("").0, State::default());
    println!("url_fuzz: {cases} generated query strings decoded, analysed and round-tripped (seed {seed})");
}

#[test]
fn fuzz_typed_number_boxes() {
    use brrr::state::fields::Field;
    let cases: usize = std::env::var("BRRR_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    // every widget's numeric controls, the explorer's first
    let all: Vec<Field> = registry::sliders();
    assert!(all.len() >= 6 + 20, "{} fields", all.len());
    let mut r = Rng(0x5eed_f00d);
    for _ in 0..cases {
        let f = all[r.below(all.len())];
        let text = match r.below(3) {
            0 => value(&mut r),
            1 => format!(
                "{}{}",
                value(&mut r),
                r.pick(&["", " T", "k", "M", "G", "P", "x", "µ"])
            ),
            _ => bytes(&mut r, 20),
        };
        if let Ok(v) = f.parse_box(&text) {
            assert!(
                v.is_finite() && v >= f.min && v <= f.max,
                "{} accepted {text:?} as {v}",
                f.id
            );
            assert!(
                !f.integer || v.fract() == 0.0,
                "{} accepted a fraction {text:?}",
                f.id
            );
            // what the box accepts, the state holds and the URL round-trips
            let mut s = State::default();
            (f.set)(&mut s, v);
            assert_eq!((f.get)(&s), v, "{}: {text:?}", f.id);
            let (back, n) = url::decode(&url::encode(&s));
            assert!(n.is_empty());
            assert_eq!(back, s);
        }
        // the slider mapping never leaves the range either
        let x = (r.next() as f64 / u64::MAX as f64) * 40.0 - 20.0;
        let v = f.from_slider(x);
        assert!(
            v.is_finite() && v >= f.min && v <= f.max,
            "{} slider {x} -> {v}",
            f.id
        );
    }
    println!("box fuzz: {cases} typed values through the number boxes");
}
