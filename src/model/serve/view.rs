//! The `serve` widget's one model entry point ([`widget`]): the steady state for
//! the current state, its cost, the concurrency sweep the charts draw (throughput
//! per GPU against tokens per second per user; TTFT and ITL against
//! concurrency, with the knee where the running batch is full and the
//! concurrency from which decode is compute-bound), the decode step the roofline
//! draws, what would help (each one the model run again with one change) and
//! the sentences, each built from those numbers.

use super::{Cap, Serve, ServeRun};
use crate::model::llm::step::LlmStep;
use crate::model::llm::{self, KvDtype, WeightDtype};
use crate::model::setting::Setting;
use crate::model::timeline::Regime;
use crate::model::units;
use crate::model::verdict::{verdict, Figure, Verdict};

/// Concurrencies the sweep runs: 1, 2, 4 … 4096 and the current one.
pub fn concurrencies(current: u32) -> Vec<u32> {
    let mut c: Vec<u32> = (0..=12).map(|i| 1u32 << i).collect();
    c.push(current.clamp(super::limits::CONCURRENCY.0, super::limits::CONCURRENCY.1));
    c.sort_unstable();
    c.dedup();
    c
}

/// One point of the concurrency sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub concurrency: u32,
    pub ttft: f64,
    pub itl: f64,
    pub tok_s_gpu: f64,
    pub tok_s_user: f64,
    pub queue_share: f64,
}

/// One thing that might help, and what the model says it does.
#[derive(Clone, Debug, PartialEq)]
pub struct Remedy {
    /// Stable id (`data-remedy`): `graphs`, `flash`, `smaller_weights`,
    /// `fp8_kv`, `more_gpus`, `fewer_gpus`, `larger_chunk`, `smaller_chunk`,
    /// `fewer_seqs`, `more_seqs`, `faster_engine`.
    pub id: &'static str,
    /// The change in words ("an fp8 KV cache").
    pub label: String,
    /// The run with the change (`None`: it does not apply, `why` says so);
    /// [`super::run_plain`]'s: its times, not its decode step's limit.
    pub after: Option<Serve>,
    pub why: String,
    /// Its gain on the widget's objective: the largest of its headline
    /// figures' gains ([`figures`]: TTFT and ITL before ÷ after, throughput
    /// per GPU after ÷ before, cost before ÷ after; 1 where it does not
    /// apply), the page's `data-speedup`.
    pub speedup: f64,
    /// What the page's one rule says of it ([`verdict`]): it helps, it is a
    /// trade-off (a headline figure more than 10 % worse), or it does not help.
    pub verdict: Verdict,
    /// `verdict` is [`Verdict::Helps`].
    pub helps: bool,
    /// Its effect in words, from the two runs.
    pub sentence: String,
}

/// Everything the `serve` widget shows for one state.
#[derive(Clone, Debug, PartialEq)]
pub struct ServeView {
    /// The steady state (`None`: not one sequence fits beside the weights).
    pub serve: Option<Serve>,
    /// The run with the spread the model can split, and what changed.
    pub run: ServeRun,
    pub spread_notes: Vec<String>,
    /// Dollars per GPU-hour in use (typed, else the GPU's cited price) and its
    /// source; `None`: no price for this GPU until one is typed.
    pub usd_h: Option<f64>,
    pub price_source: String,
    pub usd_per_mtok: Option<f64>,
    pub usd_per_mtok_in_out: Option<f64>,
    /// The decode step at the batch one request sees (the roofline's kernels,
    /// its split), with the engine's time beside it.
    pub step: Option<LlmStep>,
    /// Drawn only (empty off the screen): the sweep, the knee, where decode
    /// turns compute-bound, the remedies and the sentences.
    pub sweep: Vec<SweepPoint>,
    /// The concurrency at which the running batch is full and queueing begins.
    pub knee: Option<u32>,
    /// The smallest concurrency of the sweep whose decode step is
    /// compute-bound (`None`: none up to 4096).
    pub compute_from: Option<u32>,
    pub remedies: Vec<Remedy>,
    pub sentences: Vec<String>,
    /// How decode is launched, beside the headline: replayed from CUDA graphs
    /// (as the engines do), or eager and what that leaves the step.
    pub graphs_note: String,
}

impl ServeView {
    /// The roofline chart's label: the decode step one request sees and what
    /// limits it (empty where not one sequence fits).
    pub fn roofline_label(&self) -> String {
        self.serve.map_or_else(String::new, |s| {
            format!(
                "The decode step one request sees ({} sequences at {} tokens of context): one layer's kernels on the roofline of this machine; the step is {}.",
                s.decode_seen,
                self.run.decode_context(),
                s.regime.label()
            )
        })
    }
}

/// The price in use: `typed` dollars per GPU-hour, else the GPU's cited one.
fn price_of(typed: Option<f64>, setting: &Setting) -> (Option<f64>, String) {
    match typed {
        Some(p) => (Some(p), "the price typed in".into()),
        None => match super::price(setting.hw) {
            Some(p) => (Some(p.usd_per_gpu_h), p.source.into()),
            None => (
                None,
                format!(
                    "no public price is stored for the {}: type one to see the cost",
                    setting.hw.name
                ),
            ),
        },
    }
}

/// The widget's model for `asked` (the spread as the controls ask for it) on
/// `setting`, at `typed` dollars per GPU-hour (`None`: the GPU's own price);
/// what is only drawn where `drawn`.
pub fn widget(asked: &ServeRun, setting: &Setting, typed: Option<f64>, drawn: bool) -> ServeView {
    let (par, spread_notes) = llm::spread(&asked.llm.config, asked.llm.par);
    let r = ServeRun {
        llm: llm::LlmRun { par, ..asked.llm },
        ..*asked
    };
    let (serve, step) = match super::run_with_step(&r, setting) {
        Some((s, st)) => (Some(s), Some(st)),
        None => (None, None),
    };
    let (usd_h, price_source) = price_of(typed, setting);
    let cost = |s: &Option<Serve>, f: fn(&Serve, f64) -> f64| match (s, usd_h) {
        (Some(s), Some(p)) => Some(f(s, p)),
        _ => None,
    };
    let mut v = ServeView {
        usd_per_mtok: cost(&serve, Serve::usd_per_mtok),
        usd_per_mtok_in_out: cost(&serve, Serve::usd_per_mtok_in_out),
        serve,
        run: r,
        spread_notes,
        usd_h,
        price_source,
        step,
        sweep: Vec::new(),
        knee: None,
        compute_from: None,
        remedies: Vec::new(),
        sentences: Vec::new(),
        graphs_note: String::new(),
    };
    v.graphs_note = graphs_note(&r, v.serve.as_ref());
    if !drawn {
        return v;
    }
    let Some(s) = serve else {
        v.sentences.push(no_room(&r, setting));
        return v;
    };
    // past the knee the running batch is full: the same steps, only the queue
    // grows (`Serve::at_concurrency`), so the model runs up to it
    let full = super::run_plain(
        &ServeRun {
            concurrency: s.cap,
            ..r
        },
        setting,
    );
    v.sweep = concurrencies(r.concurrency)
        .into_iter()
        .filter_map(|c| {
            let p = match full.and_then(|f| f.at_concurrency(c)) {
                Some(p) if c > s.cap => p,
                _ => super::run_plain(
                    &ServeRun {
                        concurrency: c,
                        ..r
                    },
                    setting,
                )?,
            };
            Some(SweepPoint {
                concurrency: c,
                ttft: p.ttft,
                itl: p.itl,
                tok_s_gpu: p.tok_s_gpu,
                tok_s_user: p.tok_s_user,
                queue_share: p.queue_share(),
            })
        })
        .collect();
    v.knee = Some(s.cap);
    v.compute_from = compute_from(&r, setting, &v.sweep, s.cap);
    v.remedies = remedies(&r, setting, &s, usd_h);
    v.sentences = sentences(&v, &s, setting);
    v
}

/// Whether the decode step at concurrency `c` is compute-bound by the page's
/// one rule (the engine's time counted).
fn compute_bound(r: &ServeRun, setting: &Setting, c: u32) -> bool {
    super::run(
        &ServeRun {
            concurrency: c,
            ..*r
        },
        setting,
    )
    .is_some_and(|s| s.regime == Regime::Compute)
}

/// The smallest concurrency of the sweep at or below the knee whose decode step
/// is compute-bound. The decode step's arithmetic intensity only grows with its
/// batch, and past the knee the batch stops growing, so the knee's step is
/// tested first and the sweep's points below it are searched by halves
/// (`tests::compute_from_is_the_first_compute_bound_point` checks it against
/// every point).
fn compute_from(r: &ServeRun, setting: &Setting, sweep: &[SweepPoint], knee: u32) -> Option<u32> {
    let below: Vec<u32> = sweep
        .iter()
        .map(|p| p.concurrency)
        .filter(|&c| c < knee)
        .chain([knee])
        .collect();
    let last = *below.last()?;
    if !compute_bound(r, setting, last) {
        return None;
    }
    let (mut lo, mut hi) = (0usize, below.len() - 1);
    // `below[hi]` is compute-bound; find the first that is
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if compute_bound(r, setting, below[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    below.get(hi).copied()
}

/// How decode is launched, in words: replayed from CUDA graphs (serving
/// engines' default), or eager and what the decode step is then.
fn graphs_note(r: &ServeRun, s: Option<&Serve>) -> String {
    if r.llm.graphs {
        return "Decode is replayed from CUDA graphs, as TensorRT-LLM, vLLM and SGLang run it by default: the CPU launches each step once, not each of its kernels.".into();
    }
    let step = match s.map(|s| s.regime) {
        Some(Regime::Overhead) => {
            ", and the step is launch-bound (overhead-bound): the GPU waits on the CPU".to_string()
        }
        Some(regime) => format!(", and the step is {}", regime.label()),
        None => String::new(),
    };
    format!(
        "Decode runs eager here: the CPU launches each of the step's kernels in turn{step}. TensorRT-LLM, vLLM and SGLang replay it from CUDA graphs by default."
    )
}

/// Why nothing runs: the weights leave no room for one sequence.
fn no_room(r: &ServeRun, setting: &Setting) -> String {
    format!(
        "Not one sequence of {} tokens fits beside the weights in the {} GB of the {} (the KV cache may fill 90 % of what the weights leave): nothing can be served; more GPUs or smaller weights would make room.",
        r.isl.saturating_add(r.osl),
        units::gb(setting.hw.mem_bytes),
        setting.hw.name
    )
}

/// The serving widget's headline figures before and after a change: TTFT,
/// ITL, throughput per GPU and (with a price) the cost per million output
/// tokens. Its objective is the best of their gains (throughput per GPU at the
/// reader's TTFT and ITL, or cost): a change that buys one and costs another
/// more than 10 % is a trade-off ([`verdict`]).
pub fn figures(now: &Serve, a: &Serve, usd_h: Option<f64>) -> Vec<Figure> {
    let mut f = vec![
        Figure::lower(TTFT, now.ttft, a.ttft),
        Figure::lower(ITL, now.itl, a.itl),
        Figure::higher(THROUGHPUT, now.tok_s_gpu, a.tok_s_gpu),
    ];
    if let Some(p) = usd_h {
        f.push(Figure::lower(COST, now.usd_per_mtok(p), a.usd_per_mtok(p)));
    }
    f
}

const TTFT: &str = "TTFT";
const ITL: &str = "ITL";
const THROUGHPUT: &str = "throughput";
const COST: &str = "cost";

/// A headline figure before → after, in its units.
fn show(f: &Figure) -> String {
    match f.name {
        THROUGHPUT => format!(
            "{THROUGHPUT} {} output tokens/s per GPU",
            units::arrow(&units::sig3(f.before), &units::sig3(f.after))
        ),
        COST => format!(
            "{COST} {} per million output tokens",
            units::arrow(&usd(f.before), &usd(f.after))
        ),
        name => format!(
            "{name} {}",
            units::arrow(&units::si(f.before, "s"), &units::si(f.after, "s"))
        ),
    }
}

/// Every setting the serving model reads that changes its answer, each changed
/// once and the model run again ([`super::run_plain`]), judged by [`verdict`]:
/// CUDA graphs, FlashAttention, the weights' and the KV cache's dtypes, the
/// tensor-parallel degree both ways, the prefill chunk both ways, the most
/// sequences running both ways and the engine's CPU time.
fn remedies(r: &ServeRun, setting: &Setting, now: &Serve, usd_h: Option<f64>) -> Vec<Remedy> {
    let mut out = Vec::new();
    engine_changes(r, setting, &mut out);
    gpu_changes(r, setting, &mut out);
    batch_changes(r, now, &mut out);
    out.into_iter()
        .map(|x| judge(x, setting, now, usd_h))
        .collect()
}

/// A remedy before it is run: its id, its label and the changed run (or why
/// it does not apply).
type Change = (&'static str, String, Result<ServeRun, String>);

/// One change run through the model and judged by [`verdict`] against the
/// headline figures now: its gain, whether it helps, its sentence.
fn judge(
    (id, label, change): Change,
    setting: &Setting,
    now: &Serve,
    usd_h: Option<f64>,
) -> Remedy {
    let (after, why) = match change {
        Ok(changed) => match super::run_plain(&changed, setting) {
            Some(a) => (Some(a), String::new()),
            None => (None, "it would not fit in memory".into()),
        },
        Err(why) => (None, why),
    };
    let (speedup, judged, sentence) = match after {
        Some(a) => {
            let figs = figures(now, &a, usd_h);
            let best = figs
                .iter()
                .copied()
                .max_by(|x, y| x.gain().total_cmp(&y.gain()));
            let speedup = best.map_or(1.0, |b| b.gain());
            let judged = verdict(speedup, &figs);
            let sentence = match (judged, best) {
                (Verdict::TradeOff { worse }, Some(best)) => {
                    trade_off(&label, &best, &worse, &figs)
                }
                (judged, _) => effect(&label, judged.helps(), &figs),
            };
            (speedup, judged, sentence)
        }
        None => (
            1.0,
            Verdict::NoHelp,
            format!("{} would not apply: {why}.", capital(&label)),
        ),
    };
    Remedy {
        id,
        label,
        after,
        why,
        speedup,
        helps: judged.helps(),
        verdict: judged,
        sentence,
    }
}

/// CUDA graphs, FlashAttention, smaller weights, an fp8 KV cache.
fn engine_changes(r: &ServeRun, setting: &Setting, out: &mut Vec<Change>) {
    let graphs = if r.llm.graphs {
        Err("decode is already replayed from CUDA graphs".into())
    } else {
        let mut c = *r;
        c.llm.graphs = true;
        Ok(c)
    };
    out.push(("graphs", "decode replayed as a CUDA graph".into(), graphs));
    let flash = if r.llm.flash {
        Err("attention already runs FlashAttention kernels".into())
    } else {
        let mut c = *r;
        c.llm.flash = true;
        Ok(c)
    };
    out.push(("flash", "FlashAttention kernels".into(), flash));
    let fp8 = setting.hw.supports(crate::model::hardware::Dtype::Fp8);
    let smaller = match r.llm.wdtype {
        WeightDtype::Bf16 if fp8 => Ok(WeightDtype::Fp8),
        WeightDtype::Bf16 => Ok(WeightDtype::Int8),
        WeightDtype::Fp8 | WeightDtype::Int8 => Ok(WeightDtype::Int4),
        WeightDtype::Int4 => Err("the weights are already 4-bit".to_string()),
    };
    match smaller {
        Ok(w) => {
            let mut c = *r;
            c.llm.wdtype = w;
            let label = match w {
                WeightDtype::Fp8 => "fp8 weights",
                WeightDtype::Int8 => "int8 weights (W8A16)",
                _ => "int4 weights (W4A16)",
            };
            out.push(("smaller_weights", label.into(), Ok(c)));
        }
        Err(why) => out.push(("smaller_weights", "smaller weights".into(), Err(why))),
    }
    let kv = if r.llm.kvdtype == KvDtype::Fp8 {
        Err("the KV cache is already fp8".into())
    } else if !fp8 {
        Err(format!("the {} has no fp8", setting.hw.name))
    } else {
        let mut c = *r;
        c.llm.kvdtype = KvDtype::Fp8;
        Ok(c)
    };
    out.push(("fp8_kv", "an fp8 KV cache".into(), kv));
}

/// Tensor parallelism over more GPUs and over fewer.
fn gpu_changes(r: &ServeRun, setting: &Setting, out: &mut Vec<Change>) {
    let tp = r.llm.par.tp.max(1);
    let more = crate::model::parallel::DEGREES
        .into_iter()
        .find(|&d| d > tp && r.llm.config.splits_over(d));
    let link = if r.llm.par.link.valid() {
        Some(r.llm.par.link)
    } else {
        crate::model::parallel::default_link(setting.hw.datasheet().id).copied()
    };
    let gpus = match (more, link) {
        (Some(d), Some(link)) if link.valid() => {
            let mut c = *r;
            c.llm.par.tp = d;
            c.llm.par.link = link;
            Ok((d, c))
        }
        (None, _) => Err(format!(
            "no tensor-parallel degree above {tp} up to 8 splits the heads evenly"
        )),
        _ => Err(format!("the {} has no link between GPUs", setting.hw.name)),
    };
    match gpus {
        Ok((d, c)) => out.push((
            "more_gpus",
            format!("tensor parallelism over {d} GPUs"),
            Ok(c),
        )),
        Err(why) => out.push(("more_gpus", "more GPUs (tensor parallel)".into(), Err(why))),
    }
    let fewer_gpus = crate::model::parallel::DEGREES
        .into_iter()
        .rev()
        .find(|&d| d < tp && r.llm.config.splits_over(d));
    match fewer_gpus {
        Some(d) => {
            let mut c = *r;
            c.llm.par.tp = d;
            let label = if d == 1 {
                "one GPU per replica (no tensor parallelism)".to_string()
            } else {
                format!("tensor parallelism over {d} GPUs")
            };
            out.push(("fewer_gpus", label, Ok(c)));
        }
        None => out.push((
            "fewer_gpus",
            "fewer GPUs (tensor parallel)".into(),
            Err(if tp == 1 {
                "one GPU is the fewest".into()
            } else {
                format!("no tensor-parallel degree below {tp} splits the heads evenly")
            }),
        )),
    }
}

/// The prefill chunk and the most sequences running, both ways, and the
/// engine's CPU time.
fn batch_changes(r: &ServeRun, now: &Serve, out: &mut Vec<Change>) {
    let chunk = r.chunk.saturating_mul(2).min(super::limits::CHUNK.1);
    // a larger budget changes a step where a prompt needs more than one chunk,
    // or where the budget sets the pace (the decode tokens take their share of
    // it first)
    let bigger = if chunk <= r.chunk {
        Err("the chunk is at its largest".into())
    } else if r.isl > r.chunk || now.prefill_bound {
        Ok(ServeRun { chunk, ..*r })
    } else {
        Err(format!(
            "each prompt ({} tokens) already fits in one chunk of {} beside the decode tokens",
            r.isl, r.chunk
        ))
    };
    out.push(("larger_chunk", format!("chunks of {chunk} tokens"), bigger));
    let half = (r.chunk / 2).max(super::limits::CHUNK.0);
    let smaller_chunk = if half < r.chunk {
        Ok(ServeRun { chunk: half, ..*r })
    } else {
        Err("the chunk is at its smallest".into())
    };
    out.push((
        "smaller_chunk",
        format!("chunks of {half} tokens"),
        smaller_chunk,
    ));
    let fewer = (now.running / 2).max(1);
    let seqs = if fewer < now.running {
        Ok(ServeRun {
            max_seqs: fewer,
            ..*r
        })
    } else {
        Err("one sequence is the fewest".into())
    };
    out.push((
        "fewer_seqs",
        format!("at most {fewer} sequences running"),
        seqs,
    ));
    let most = r.max_seqs.saturating_mul(2).min(super::limits::MAX_SEQS.1);
    let more_seqs = if now.waiting == 0 {
        Err(format!(
            "all {} already run",
            units::count(r.concurrency, "request", "requests")
        ))
    } else if now.capped_by == Cap::Kv {
        Err(format!(
            "the KV cache, not the maximum, caps the running batch at {}",
            now.cap
        ))
    } else if most <= r.max_seqs {
        Err("the maximum is at its largest".into())
    } else {
        Ok(ServeRun {
            max_seqs: most,
            ..*r
        })
    };
    out.push((
        "more_seqs",
        format!("at most {most} sequences running"),
        more_seqs,
    ));
    let engine = if r.engine_s > 0.0 {
        Ok(ServeRun {
            engine_s: r.engine_s / 2.0,
            ..*r
        })
    } else {
        Err("the engine's CPU time is already 0".into())
    };
    out.push((
        "faster_engine",
        format!(
            "an engine with half the CPU time per step ({})",
            units::si(r.engine_s / 2.0, "s")
        ),
        engine,
    ));
}

/// Dollars as a price is written: cents from $0.01, three figures below.
pub fn usd(x: f64) -> String {
    if x >= 0.01 || x <= 0.0 || !x.is_finite() {
        format!("${x:.2}")
    } else {
        let decimals = (2.0 - x.log10().floor()).clamp(0.0, 12.0) as usize;
        format!("${x:.decimals$}")
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// What `label` does to the headline figures, from the runs before and after.
fn effect(label: &str, helps: bool, figs: &[Figure]) -> String {
    let all: Vec<String> = figs.iter().map(show).collect();
    let verb = if helps { "" } else { " would not help" };
    format!("{}{verb}: {}.", capital(label), all.join(", "))
}

/// A trade-off in words: the figure it buys most, by how much, and the one it
/// costs most, both numbers; then the rest.
fn trade_off(label: &str, best: &Figure, worse: &Figure, figs: &[Figure]) -> String {
    let rest: Vec<String> = figs
        .iter()
        .filter(|f| f.name != worse.name)
        .map(show)
        .collect();
    format!(
        "{}: {} {}× better but {} ({}).",
        capital(label),
        best.name,
        units::sig3(best.gain()),
        show(worse),
        rest.join(", ")
    )
}

/// The widget's sentences, each from the numbers of this state.
fn sentences(v: &ServeView, s: &Serve, setting: &Setting) -> Vec<String> {
    let r = &v.run;
    let mut out = Vec::new();
    // the running batch and what caps it
    let kv = match s.kv_max_seqs {
        Some(k) => format!(
            "The KV cache holds {} of {} tokens (90 % of what the weights leave on each GPU)",
            units::count(k, "sequence", "sequences"),
            r.isl.saturating_add(r.osl)
        ),
        None => format!("The memory of the {} is not known", setting.hw.name),
    };
    let cap = match s.capped_by {
        Cap::Kv => format!("so at most {} can run at once", s.cap),
        Cap::MaxSeqs => format!("and at most {} can run at once (the maximum set)", s.cap),
    };
    let queue = if s.waiting > 0 {
        format!(
            "; {} of the {} requests wait in a queue, {} of their time to first token",
            s.waiting,
            r.concurrency,
            units::percent(s.queue_share())
        )
    } else if r.concurrency == 1 {
        "; the one request runs alone".to_string()
    } else {
        format!("; all {} requests run, none waits", r.concurrency)
    };
    out.push(format!("{kv}, {cap}{queue}."));
    // a step as a request sees it
    let mix = if s.mixed_share > 0.0 {
        format!(
            ", and {} of its steps also prefill {} prompt tokens ({} instead of {})",
            units::percent(s.mixed_share),
            units::sig3(s.mixed_prompt),
            units::si(s.t_mixed, "s"),
            units::si(s.t_decode, "s")
        )
    } else {
        String::new()
    };
    out.push(format!(
        "Each step decodes {} tokens{mix}; with {} of the engine's CPU time per step, one token follows another every {} (ITL), and the first comes after {} (TTFT).",
        s.decode_seen,
        units::si(r.engine_s, "s"),
        units::si(s.itl, "s"),
        units::si(s.ttft, "s"),
    ));
    // what limits the decode step (the page's one rule)
    let best = crate::model::limit::Limit::halving(s.regime);
    out.push(format!(
        "The decode step at this batch is {}: {} would make it {}× faster.",
        s.regime.label(),
        best.words(),
        units::sig3(s.limit.speedup(best))
    ));
    // where decode turns compute-bound, against the knee
    out.push(match (v.compute_from, v.knee) {
        (Some(c), Some(k)) if c <= k => format!(
            "Decode turns compute-bound from about {c} requests in flight, before the running batch is full at {k}."
        ),
        (_, Some(k)) => format!(
            "Decode stays short of compute-bound up to the full running batch ({k}): beyond it requests only queue, so throughput stops growing there."
        ),
        _ => String::new(),
    });
    out.retain(|x| !x.is_empty());
    out
}

#[cfg(test)]
mod tests;
