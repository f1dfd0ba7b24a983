//! What the serve widget shows of the model against published serving runs:
//! each row's published figures beside the model's, with their errors, the
//! largest error over the rows held to targets (its readout) and the sentence
//! on where the model misses ([`targets`]); every stored row on request
//! ([`every_row`]). The view only formats and draws these fields.

use super::measured::{self, Compared};

/// One published run beside the model's answer for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Stable id: `nim-llama-3.3-70b-h100-sxm-tp2-5000-500-c50`.
    pub id: String,
    /// Held to the serving targets.
    pub target: bool,
    /// "NVIDIA NIM 1.8.0 Llama-3.3-70B".
    pub name: String,
    pub tp: u32,
    /// The GPUs in words: "2 × h100-sxm", "DEP 4 × h100-sxm".
    pub gpus: String,
    /// The hardware preset's id.
    pub hw: &'static str,
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
    /// Published and modelled, seconds (`None`: not published / no answer).
    pub ttft: (Option<f64>, Option<f64>),
    pub itl: (Option<f64>, Option<f64>),
    /// Output tokens per second, published and modelled (the queued run's
    /// where the row has one, [`Compared::tok_s`]).
    pub tok_s: (f64, Option<f64>),
    /// The steady state's output tokens per second where the compared figure
    /// is a queued run's (`None` otherwise).
    pub steady_tok_s: Option<f64>,
    /// model ÷ published − 1 (`None` where either is missing).
    pub ttft_error: Option<f64>,
    pub itl_error: Option<f64>,
    pub tok_error: Option<f64>,
}

/// The rows held to targets and what the widget says of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    pub rows: Vec<Row>,
    /// The largest |error| over these rows (`serve_vs_measured_max_error`).
    pub max_error: f64,
    /// Where the model misses them, and why.
    pub misses: String,
}

/// One compared row as the table shows it.
pub fn row(c: &Compared) -> Row {
    let r = c.row;
    let m = c.model;
    Row {
        id: r.id(),
        target: r.target,
        name: format!("{} {}", r.engine.label(), r.model_name()),
        tp: r.tp,
        gpus: if r.dep > 1 {
            format!("DEP {} × {}", r.dep, r.hw)
        } else {
            format!("{} × {}", r.tp, r.hw)
        },
        hw: r.hw,
        isl: r.isl,
        osl: r.osl,
        concurrency: r.concurrency,
        // a queued run's compared figure is its throughput; the steady
        // state's latencies are not that run's, so none are shown beside it
        ttft: (r.ttft_s, m.filter(|_| c.queued.is_none()).map(|m| m.ttft)),
        itl: (r.itl_s, m.filter(|_| c.queued.is_none()).map(|m| m.itl)),
        tok_s: (r.tok_s, c.tok_s()),
        steady_tok_s: c.queued.and(m.map(|m| m.tok_s)),
        ttft_error: c.ttft_error(),
        itl_error: c.itl_error(),
        tok_error: c.tok_error(),
    }
}

/// The rows held to targets against the model (cheap beside [`every_row`]).
pub fn targets() -> Published {
    let rows = measured::compare_targets();
    Published {
        max_error: measured::max_error(&rows),
        misses: measured::misses(&rows),
        rows: rows.iter().map(row).collect(),
    }
}

/// TensorRT-LLM's performance overview against the model: its rows as the
/// table shows them and the sentence on where the model misses them.
pub fn overview() -> (Vec<Row>, String) {
    let rows = super::overview::compare();
    (
        rows.iter().map(row).collect(),
        super::overview::words(&rows),
    )
}

/// The MoE runs the model was not fitted to (TensorRT-LLM's TP 8 rows of
/// Qwen3-235B-A22B and Llama-4-Maverick) against the model: the rows as the
/// table shows them and the sentence on their median and misses.
pub fn moe_tp() -> (Vec<Row>, String) {
    let rows = super::moe_tp::compare();
    (rows.iter().map(row).collect(), super::moe_tp::words(&rows))
}

/// vLLM's runs on H100 (GPUStack) against the model: the rows as the table
/// shows them and the sentence on what they say.
pub fn vllm() -> (Vec<Row>, String) {
    let rows = super::vllm::compare();
    (rows.iter().map(row).collect(), super::vllm::words(&rows))
}

/// How many vLLM runs [`vllm`] compares (the file read, the model not run).
pub fn vllm_count() -> usize {
    super::vllm::runs().len()
}

/// How many MoE runs [`moe_tp`] compares (the file read, the model not run).
pub fn moe_tp_count() -> usize {
    super::moe_tp::rows().len()
}

/// Every stored row against the model: NIM's, then `trtllm-bench`'s (it runs
/// the model once per row).
pub fn every_row() -> Vec<Row> {
    measured::compare().iter().map(row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readout_is_the_largest_error_its_table_shows() {
        let p = targets();
        assert!(!p.rows.is_empty());
        assert!(p.rows.iter().all(|r| r.target));
        let errors = |r: &Row| {
            [r.ttft_error, r.itl_error, r.tok_error]
                .into_iter()
                .flatten()
                .map(f64::abs)
                .collect::<Vec<_>>()
        };
        // every shown error within the readout, and one of them is it
        assert!(p.rows.iter().flat_map(errors).all(|e| e <= p.max_error));
        assert!(p.rows.iter().flat_map(errors).any(|e| e == p.max_error));
        assert!(p.max_error > 0.0 && p.max_error < 0.5, "{}", p.max_error);
        assert!(p.misses.starts_with("Where it misses:"), "{}", p.misses);
    }

    #[test]
    fn each_error_is_the_model_against_the_published_figure() {
        let all = every_row();
        assert_eq!(all.len(), 119);
        let mut ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "row ids are unique");
        assert!(ids.contains(&"nim-llama-3.3-70b-h100-sxm-tp2-5000-500-c50"));
        for r in &all {
            let pair = |(p, m): (Option<f64>, Option<f64>), e: Option<f64>| match (p, m) {
                (Some(p), Some(m)) => {
                    let e = e.unwrap();
                    assert_eq!(e > 0.0, m > p, "{}", r.id);
                    assert!((p * (1.0 + e) / m - 1.0).abs() < 1e-12, "{}", r.id);
                }
                _ => assert_eq!(e, None, "{}", r.id),
            };
            pair(r.ttft, r.ttft_error);
            pair(r.itl, r.itl_error);
            pair((Some(r.tok_s.0), r.tok_s.1), r.tok_error);
            assert!(r.id.contains(r.hw) && r.id.ends_with(&format!("-c{}", r.concurrency)));
        }
        // the rows held to targets are among every row, with the same figures
        for t in targets().rows {
            assert!(all.contains(&t), "{}", t.id);
        }
    }
}
