use super::*;
use crate::json;

/// A data file's `rows`.
fn rows_of(j: &json::Json) -> &[json::Json] {
    j.get("rows").and_then(|r| r.as_arr()).unwrap_or(&[])
}

fn model_id(p: &Published) -> &'static str {
    match p.model {
        LlmModel::Llama3_70b => "llama-3.3-70b",
        _ => "llama-3.1-8b",
    }
}

/// The rows against the model, for `cargo test -- --nocapture`.
fn print(rows: &[Compared]) {
    let pct = |e: Option<f64>| e.map_or("—".into(), |e| format!("{:+.1} %", e * 100.0));
    for c in rows {
        let m = c.model;
        eprintln!(
            "{} {} {} tp{} {}/{} c{}: TTFT {:.0} ms vs {:?} ({}), ITL {:.2} ms vs {:?} ({}), {:.0} tok/s vs {} ({}); batch {:.0}, cap {:?}",
            c.row.engine.label(),
            c.row.model_name(),
            c.row.hw,
            c.row.tp,
            c.row.isl,
            c.row.osl,
            c.row.concurrency,
            m.map_or(0.0, |m| m.ttft * 1e3),
            c.row.ttft_s.map(|x| x * 1e3),
            pct(c.ttft_error()),
            m.map_or(0.0, |m| m.itl * 1e3),
            c.row.itl_s.map(|x| x * 1e3),
            pct(c.itl_error()),
            m.map_or(0.0, |m| m.tok_s),
            c.row.tok_s,
            pct(c.tok_error()),
            m.map_or(0.0, |m| m.batch),
            m.map(|m| m.cap),
        );
    }
}

/// Every row of each file is read (none skipped for a column it lacks or a
/// model or GPU not known), with the values the file writes.
#[test]
fn the_rows_are_the_files() {
    let (nim, trtllm) = (nim(), trtllm());
    for (text, rows) in [(NIM_FILE, &nim), (TRTLLM_FILE, &trtllm)] {
        let j = json::parse(text).unwrap_or(json::Json::Null);
        let file = rows_of(&j);
        assert_eq!(file.len(), rows.len());
        for (r, p) in file.iter().zip(rows.iter()) {
            let num = |k: &str| r.get(k).and_then(|x| x.as_f64());
            assert_eq!(r.get("model").and_then(|x| x.as_str()), Some(model_id(p)));
            assert_eq!(r.get("weights").and_then(|x| x.as_str()), Some("fp8"));
            assert_eq!(num("tp"), Some(f64::from(p.tp)));
            assert_eq!(num("input_tokens"), Some(f64::from(p.isl)));
            assert_eq!(num("output_tokens"), Some(f64::from(p.osl)));
            assert!(crate::model::hardware::preset(p.hw).is_some(), "{}", p.hw);
            match p.engine {
                Engine::Nim => {
                    assert_eq!(num("concurrency"), Some(f64::from(p.concurrency)));
                    assert_eq!(num("ttft_ms").map(|x| x / 1e3), p.ttft_s);
                    assert_eq!(num("itl_ms").map(|x| x / 1e3), p.itl_s);
                    assert_eq!(num("throughput_tokens_per_s"), Some(p.tok_s));
                    assert_eq!((p.hw, p.max_seqs), ("h100-sxm", 256));
                }
                Engine::Vllm => unreachable!("the NIM and trtllm-bench files hold no vLLM rows"),
                Engine::TrtllmBench | Engine::TrtllmOverview => {
                    assert_eq!(r.get("hw").and_then(|x| x.as_str()), Some(p.hw));
                    assert_eq!(num("output_tokens_per_s"), Some(p.tok_s));
                    assert_eq!((p.concurrency, p.max_seqs), (4096, 2048));
                    assert_eq!((p.ttft_s, p.itl_s), (None, None));
                }
            }
        }
    }
    assert_eq!((nim.len(), trtllm.len()), (79, 40));
    assert!(nim.iter().all(|p| p.engine == Engine::Nim));
    assert!(trtllm.iter().all(|p| p.engine == Engine::TrtllmBench));
    // the six NIM rows held to targets
    let t: Vec<_> = nim.iter().filter(|p| p.target).collect();
    assert_eq!(t.len(), 6);
    assert!(t.iter().all(|p| (p.isl, p.osl, p.tp) == (5000, 500, 2)));
    let c: Vec<u32> = t.iter().map(|p| p.concurrency).collect();
    assert_eq!(c, [1, 5, 25, 50, 100, 250]);
    let t: Vec<(u32, u32, f64)> = trtllm
        .iter()
        .filter(|p| p.target)
        .map(|p| (p.isl, p.osl, p.tok_s))
        .collect();
    assert_eq!(
        t,
        [
            (128, 128, 28312.0),
            (128, 2048, 22714.0),
            (2048, 128, 3450.0),
            (2048, 2048, 9305.0),
            (20000, 2000, 1351.0)
        ]
    );
}

/// A row that lacks a column, names a model or GPU not known, or holds a
/// number that is not a whole one where one is needed is left out, not read
/// as a default.
#[test]
fn a_row_with_a_bad_column_is_left_out() {
    let good = r#"{"model": "llama-3.1-8b", "weights": "fp8", "hw": "h100-sxm", "tp": 1, "input_tokens": 128, "output_tokens": 128, "output_tokens_per_s": 28312}"#;
    let file = |row: &str| format!(r#"{{"rows": [{row}]}}"#);
    let read = |row: &str| rows_in(&file(row), trtllm_row).len();
    assert_eq!(read(good), 1);
    for bad in [
        good.replace("llama-3.1-8b", "llama-2"),
        good.replace("h100-sxm", "h999"),
        good.replace(r#""tp": 1"#, r#""tp": 1.5"#),
        good.replace(r#""input_tokens": 128, "#, ""),
        good.replace("28312", r#""fast""#),
    ] {
        assert_eq!(read(&bad), 0, "{bad}");
    }
    assert!(rows_in("not json", trtllm_row).is_empty());
}

/// The NIM rows held to targets whose TTFT the model misses: the prefill-heavy
/// concurrencies, where every extra millisecond of prefill counts twice (the
/// step itself and the queue behind it) and the model's prefill is already 27 %
/// short at concurrency 1 (its matmuls at the H100's measured bf16 fraction of
/// the fp8 peak).
const TTFT_MISSES: [u32; 3] = [5, 25, 50];

#[test]
fn the_target_rows_meet_their_targets_or_are_named() {
    let rows = compare();
    print(&rows);
    for c in rows.iter().filter(|c| c.row.target) {
        let miss = c.row.engine == Engine::Nim && TTFT_MISSES.contains(&c.row.concurrency);
        if miss {
            let e = c.ttft_error().unwrap_or(f64::NAN);
            // short, by more than the 35 % target and less than 45 %
            assert!(
                e < -0.35 && e > -0.45,
                "{c:?}: {e} (fixed? regenerate docs/accuracy.md)"
            );
            assert!(c.itl_error().is_some_and(|e| e.abs() <= 0.25), "{c:?}");
            assert!(c.tok_error().is_some_and(|e| e.abs() <= 0.25), "{c:?}");
        } else {
            assert!(c.within_targets(), "{c:?}");
        }
    }
    // the largest error over the rows held to targets is one of the TTFT misses, and
    // the target rows alone give the same
    let worst = max_error(&rows);
    assert_eq!(max_error(&compare_targets()), worst);
    assert!(worst > 0.35 && worst < 0.45, "{worst}");
}

#[test]
fn the_kv_cache_holds_what_the_saturated_runs_hold() {
    // at saturation, throughput × ITL is the sequences decoding per step: the
    // fit rule's capacity (90 % of what the weights leave, fp8 KV cache) against
    // what each saturated NIM sweep ran, not fitted to them
    for (model, isl, osl) in [
        (LlmModel::Llama3_70b, 5000, 500),
        (LlmModel::Llama3_70b, 20000, 2000),
        (LlmModel::Llama3_8b, 5000, 500),
        (LlmModel::Llama3_8b, 20000, 2000),
    ] {
        let rows = nim();
        let top = rows
            .iter()
            .filter(|p| (p.model, p.isl, p.osl) == (model, isl, osl))
            .max_by_key(|p| p.concurrency);
        let Some(p) = top else {
            panic!("no row for {model:?} {isl}/{osl}")
        };
        let held = p.tok_s * p.itl_s.unwrap_or(0.0);
        let kv = crate::model::serve::kv_max_seqs(&serve_run(p), &setting(p)).unwrap_or(0);
        let e = f64::from(kv) / held - 1.0;
        eprintln!(
            "{model:?} {isl}/{osl}: measured {held:.1} in flight, KV cache holds {kv} ({:+.1} %)",
            e * 100.0
        );
        assert!(e.abs() < 0.06, "{model:?} {isl}/{osl}: {held} vs {kv}");
    }
}

#[test]
fn every_row_has_an_answer() {
    for c in compare() {
        let m = c
            .model
            .unwrap_or_else(|| panic!("{:?} does not fit", c.row));
        assert!(m.tok_s.is_finite() && m.tok_s > 0.0 && m.ttft > 0.0 && m.itl > 0.0);
    }
}

#[test]
fn the_misses_are_said_from_the_rows() {
    let rows = compare_targets();
    let said = misses(&rows);
    let one = rows[0].ttft_error().unwrap_or(0.0);
    assert!(
        said.contains(&format!("{:.0} % short of NIM's", -one * 100.0)),
        "{said}"
    );
    let within = rows
        .iter()
        .filter(|c| c.row.engine == Engine::Nim)
        .flat_map(|c| [c.itl_error(), c.tok_error()])
        .flatten()
        .fold(0.0, |m: f64, e| m.max(e.abs()));
    assert!(
        said.contains(&format!("within {:.0} %", within * 100.0)),
        "{said}"
    );
    eprintln!("{said}");
    assert_eq!(misses(&[]), "");
}
