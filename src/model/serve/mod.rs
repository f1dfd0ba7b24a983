//! Serving under load: a continuous-batching engine in steady state, on
//! top of the `llm` widget's step model (its model, dtypes, tensor/pipeline
//! spread, link and CUDA graphs all apply). Pure; the `serve` widget draws what
//! [`run`] returns.
//!
//! **The engine.** Requests have `isl` prompt and `osl` output tokens; `c` of
//! them are in the system at once (a closed loop: a finished request is replaced
//! at once, as AIPerf's and `trtllm-bench`'s concurrency modes do). Each engine
//! step decodes one token of every running request and prefills prompt tokens
//! of the requests that have just joined (chunked prefill, [`step`]) with what
//! is left of its budget of `chunk` tokens: the decode tokens count against the
//! budget and take theirs first, as vLLM's and TensorRT-LLM's schedulers
//! count them ([`budget_tokens`]). The running batch is capped by `max_seqs` and by the KV cache: the
//! `llm` widget's fit rule ([`crate::model::llm::fit`]: the KV cache fills 90 % of
//! what the weights leave) holding sequences of `isl + osl` tokens, each reserved
//! whole when it joins (TensorRT-LLM's default `GUARANTEED_NO_EVICT` scheduling).
//! Requests beyond the cap wait in a queue.
//!
//! **The steady state**, seen by one request among `n = min(c, cap)` running:
//! a request spends `k = ⌈isl / chunk⌉` steps in prefill and `osl − 1` decoding
//! (its first token comes with its last prefill chunk), `S = k + osl − 1` steps
//! in all, so the other `n − 1` finish `(n − 1) / S` requests per step and their
//! replacements bring `(n − 1)·isl / S` prompt tokens per step. While it decodes,
//! its steps carry its own token, the others' decode tokens
//! (`(n − 1)(osl − 1) / S` of them) and, in a share of the steps, those prompt
//! tokens: the inter-token latency (ITL) is the mean of those steps' times. Its
//! own prefill steps carry its chunk beside the others. Its time to first token
//! (TTFT) is half a step's wait when the engine is busy, its prefill steps, and
//! the queue; end to end, TTFT + (osl − 1)·ITL. Little's law then gives the
//! throughput: `n` requests each taking that long finish `n / e2e` per second,
//! and `c` requests in the loop wait `c / λ` in all, the rest of it in the
//! queue. When the tokens of `n / S` new requests per step (their prompts and
//! their decode tokens) exceed the chunk, the budget sets the pace:
//! `chunk / (isl + osl − 1)` requests per step, every step a full chunk of
//! decode and prompt tokens.
//!
//! **The engine's CPU.** Each step adds `engine` seconds the GPU waits for: the
//! part of the engine's own CPU work (scheduling, sampling checks, streaming the
//! tokens, detokenising) its overlap does not hide (see [`ENGINE_US`]).
//!
//! **What it leaves out.** Requests all have the same lengths; the closed loop
//! has no think time; a pipeline's stages run one micro-batch at a time (as the
//! `llm` widget's decode step); no speculative decoding, prefix caching or
//! preemption.

pub mod measured;
pub mod memo;
pub mod moe_tp;
pub mod overview;
pub mod published;
pub mod queued;
pub mod step;
pub mod view;
pub mod vllm;

use crate::model::hardware::{Dtype, Preset};
use crate::model::limit::{Halving, Limit};
use crate::model::llm::{self, fit, LlmRun};
use crate::model::setting::Setting;
use crate::model::timeline::{Regime, Shares};

/// Accepted ranges (URL keys `serve_*`).
pub mod limits {
    pub const ISL: (u32, u32) = (1, 131072);
    pub const OSL: (u32, u32) = (1, 131072);
    pub const CONCURRENCY: (u32, u32) = (1, 4096);
    pub const CHUNK: (u32, u32) = (64, 65536);
    pub const MAX_SEQS: (u32, u32) = (1, 4096);
    pub const ENGINE_US: (u32, u32) = (0, 100_000);
    /// Dollars per GPU-hour.
    pub const USD_H: (f64, f64) = (0.01, 1000.0);
}

/// The engine's CPU time per step that the GPU waits for, µs: TensorRT-LLM's
/// PyTorch executor with its overlap scheduler on (the default: the CPU work of
/// step n, its sampling checks, responses and the next batch's scheduling, runs
/// while the GPU computes step n + 1) still leaves ~580 µs of host work per
/// iteration exposed as GPU idle time, measured by NVIDIA on Llama-3.1-8B FP8 at
/// concurrency 64 (https://github.com/NVIDIA/TensorRT-LLM/issues/13957, 2026-05). The rest of its CPU
/// work is hidden; this is what is not.
pub const ENGINE_US: f64 = 580.0;
/// Where [`ENGINE_US`] comes from, in words.
pub const ENGINE_SOURCE: &str = "TensorRT-LLM's executor with its overlap scheduler (on by default) leaves ~580 µs of CPU work per step exposed as GPU idle time (https://github.com/NVIDIA/TensorRT-LLM/issues/13957: Llama-3.1-8B FP8, concurrency 64)";

/// A public on-demand price per GPU-hour, with its source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    pub usd_per_gpu_h: f64,
    pub source: &'static str,
}

/// The default price of a GPU-hour on `hw`: RunPod's public on-demand list
/// price (Secure Cloud pods, per GPU, runpod.io/pricing, read 2026-10-07), for
/// the presets it lists; `None` elsewhere (the cost stays empty until a price
/// is typed).
pub fn price(hw: &Preset) -> Option<Price> {
    let (usd, source) = match hw.datasheet().id {
        "h100-sxm" => (
            3.49,
            "RunPod on-demand, H100 SXM 80GB pod: $3.49 per GPU-hour (runpod.io/pricing, read 2026-10-07)",
        ),
        "h200" => (
            4.59,
            "RunPod on-demand, H200 141GB pod: $4.59 per GPU-hour (runpod.io/pricing, read 2026-10-07)",
        ),
        _ => return None,
    };
    Some(Price {
        usd_per_gpu_h: usd,
        source,
    })
}

/// Everything the serving controls choose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServeRun {
    /// The model, dtypes, graphs, FlashAttention and spread (its phase, batch and
    /// context are the engine's to choose).
    pub llm: LlmRun,
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
    pub chunk: u32,
    pub max_seqs: u32,
    /// The engine's exposed CPU time per step, seconds.
    pub engine_s: f64,
    /// Speculative decoding ([`llm::spec`]): each decode step verifies `k`
    /// drafts per sequence and emits their accepted length.
    pub spec: llm::spec::SpecRun,
}

impl ServeRun {
    /// GPUs the deployment runs on: tensor × pipeline parallel (× DEP's
    /// ranks).
    pub fn gpus(&self) -> u32 {
        self.llm.par.gpus()
    }
    /// Prompt tokens the deployment prefills per step: `chunk` on each of
    /// DEP's ranks (each schedules its own requests), `chunk` without DEP.
    pub fn chunk_total(&self) -> f64 {
        f64::from(self.chunk.max(1)) * f64::from(crate::model::llm::dep::ranks(&self.llm))
    }
    /// The mean context of a decoding sequence: the prompt and half the output.
    pub fn decode_context(&self) -> u32 {
        self.isl.max(1).saturating_add(self.osl / 2)
    }
}

/// What caps the running batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// The KV cache holds no more sequences of `isl + osl` tokens.
    Kv,
    /// `max_seqs`.
    MaxSeqs,
}

/// Where the steady state's time goes and what limits it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Serve {
    pub run: ServeRun,
    /// Sequences of `isl + osl` tokens the KV cache holds (`serve_kv_max_seqs`);
    /// `None` when the GPU's memory is not known.
    pub kv_max_seqs: Option<u32>,
    /// The cap on the running batch and what sets it.
    pub cap: u32,
    pub capped_by: Cap,
    /// Requests running (`min(c, cap)`) and waiting.
    pub running: u32,
    pub waiting: u32,
    /// The step's budget (`chunk` tokens, the decode tokens' first) sets the
    /// pace of the prompts.
    pub prefill_bound: bool,
    /// Sequences decoding in a step as one request sees it, and beside its own
    /// prefill.
    pub decode_seen: u32,
    pub decode_beside: u32,
    /// Prompt tokens per step from the others' new requests.
    pub prompt_seen: f64,
    /// Share of a decoding request's steps that carry prompt tokens, and how many.
    pub mixed_share: f64,
    pub mixed_prompt: f64,
    /// GPU time of a pure decode step, a step with prompt tokens, and one of the
    /// request's own prefill steps (the engine's time not in them), seconds.
    pub t_decode: f64,
    pub t_mixed: f64,
    pub t_prefill: f64,
    /// Prefill steps per request.
    pub prefill_steps: u32,
    /// Seconds a new request waits before its first prefill step (not counting
    /// the queue for a place in the batch), and the share of the time the
    /// prefill budget is busy with the others' prompts.
    pub wait: f64,
    pub prefill_busy: f64,
    /// Seconds: time to first token, inter-token latency, end to end, and the
    /// part of TTFT spent queueing.
    pub ttft: f64,
    pub itl: f64,
    pub e2e: f64,
    pub queue: f64,
    /// Requests finished per second.
    pub req_s: f64,
    /// Output tokens per second: all GPUs, per GPU, per user (1 / ITL).
    pub tok_s: f64,
    pub tok_s_gpu: f64,
    pub tok_s_user: f64,
    /// Mean sequences decoding per step (`serve_batch`: tok/s × ITL).
    pub batch: f64,
    /// The decode step at the batch one request sees, the engine's time
    /// counted as overhead: its limit by the page's one rule.
    pub limit: Limit,
    pub regime: Regime,
}

impl Serve {
    /// Share of TTFT spent queueing (`serve_queue_share`).
    pub fn queue_share(&self) -> f64 {
        if self.ttft > 0.0 {
            (self.queue / self.ttft).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
    /// Dollars per million output tokens at `usd_h` per GPU-hour.
    pub fn usd_per_mtok(&self, usd_h: f64) -> f64 {
        usd_h * f64::from(self.run.gpus()) / 3600.0 / self.tok_s.max(f64::MIN_POSITIVE) * 1e6
    }
    /// Dollars per million tokens in and out together at `usd_h` per GPU-hour.
    pub fn usd_per_mtok_in_out(&self, usd_h: f64) -> f64 {
        let tokens = self.req_s * f64::from(self.run.isl + self.run.osl);
        usd_h * f64::from(self.run.gpus()) / 3600.0 / tokens.max(f64::MIN_POSITIVE) * 1e6
    }
}

/// Sequences of `isl + osl` tokens the KV cache holds on `setting`'s GPU by the
/// `llm` widget's fit rule, `None` when its memory is not known. 0 when the
/// weights do not fit.
pub fn kv_max_seqs(r: &ServeRun, setting: &Setting) -> Option<u32> {
    let capacity = setting.hw.mem_bytes;
    if capacity <= 0.0 {
        return None;
    }
    let whole = LlmRun {
        phase: llm::Phase::Prefill,
        batch: 1,
        context: r.isl.saturating_add(r.osl).max(1),
        ..r.llm
    };
    fit::fit(&whole, capacity, 0.0, setting.hw.supports(Dtype::Fp8)).max_batch
}

/// Round a mean count of sequences to a whole batch.
fn whole(x: f64) -> u32 {
    x.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The steady state of `r` on `setting` ([`Serve`]); `None` when not one sequence
/// fits in the memory beside the weights.
pub fn run(r: &ServeRun, setting: &Setting) -> Option<Serve> {
    memo::remembered(memo::RunKey::of(r, setting, true), || {
        run_with(r, setting, Limits::Decide).map(|x| x.0)
    })
}

/// [`run`] and the decode step whose limit it reports (the batch one request
/// sees, at the mean context: what the roofline draws).
pub fn run_with_step(r: &ServeRun, setting: &Setting) -> Option<(Serve, llm::step::LlmStep)> {
    let (s, st) = run_with(r, setting, Limits::Step)?;
    Some((s, st?))
}

/// [`run`] without the decode step's counterfactual runs: its `limit` holds no
/// speedups and `regime` names the largest share (for sweeps that only need the
/// times).
pub fn run_plain(r: &ServeRun, setting: &Setting) -> Option<Serve> {
    memo::remembered(memo::RunKey::of(r, setting, false), || {
        run_with(r, setting, Limits::Skip).map(|x| x.0)
    })
}

/// Whether [`run_with`] decides the decode step's limit, and whether it keeps
/// the step (its kernels and split: what the roofline draws) or only what
/// limits it (`llm::step::limit`, the same limit bit for bit).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Limits {
    Step,
    Decide,
    Skip,
}

fn run_with(
    r: &ServeRun,
    setting: &Setting,
    limits: Limits,
) -> Option<(Serve, Option<llm::step::LlmStep>)> {
    let kv = kv_max_seqs(r, setting);
    let max_seqs = r.max_seqs.max(1);
    let (cap, capped_by) = match kv {
        Some(k) if k < max_seqs => (k, Cap::Kv),
        _ => (max_seqs, Cap::MaxSeqs),
    };
    if cap == 0 {
        return None;
    }
    let c = r.concurrency.max(1);
    let n = c.min(cap);
    let (isl, osl) = (r.isl.max(1), r.osl.max(1));
    let chunk = r.chunk_total();
    let ctx = r.decode_context();
    let e = r.engine_s.max(0.0);
    let k = isl.div_ceil(r.chunk.max(1));
    let tau = spec_tau(r);
    let steps = f64::from(k) + f64::from(osl - 1) / tau;
    let t = |decode: u32, prompt: f64| {
        let llm = step::slowest_rank(&r.llm, decode, prompt, isl.min(r.chunk.max(1)));
        step::wall(&llm, decode, ctx, prompt, isl, setting) + spec_extra(r, decode, ctx, setting)
    };
    let decode_steps = f64::from(osl - 1) / tau;
    let w = budget_tokens(r);
    let prefill_bound = f64::from(n) * (f64::from(isl) + w * decode_steps) / steps > chunk;
    let l = Loop {
        t: &t,
        n,
        isl,
        decode_steps,
        k,
        steps,
        chunk,
        w,
        e,
    };
    let s = if prefill_bound {
        budget_bound(&l)
    } else {
        budget_free(&l)
    };
    // Little's law over the whole loop: c requests finishing req_s per second
    let (e2e, queue) = queued(c, n, prefill_bound, s.req_s, s.e2e_run);
    let ttft = s.ttft_run + queue;
    let tok_s = s.req_s * f64::from(osl);
    let (limit, step) = match limits {
        Limits::Step => {
            let st = llm::step::full(&step::decode_run(&r.llm, s.decode_seen, ctx), setting);
            (limit_with_engine(st.wall, &st.limit, e), Some(st))
        }
        Limits::Decide => {
            let (wall, lim) =
                llm::step::limit(&step::decode_run(&r.llm, s.decode_seen, ctx), setting);
            (limit_with_engine(wall, &lim, e), None)
        }
        Limits::Skip => {
            let wall = s.itl;
            let k = (wall - e) / wall.max(f64::MIN_POSITIVE);
            let shares = Shares::three(0.0, k, 1.0 - k);
            (Limit::decide(wall, shares, |_| wall), None)
        }
    };
    let out = Serve {
        run: *r,
        kv_max_seqs: kv,
        cap,
        capped_by,
        running: n,
        waiting: c - n,
        prefill_bound,
        decode_seen: s.decode_seen,
        decode_beside: s.decode_beside,
        prompt_seen: s.prompt_seen,
        mixed_share: s.mixed_share,
        mixed_prompt: s.mixed_prompt,
        t_decode: s.t_decode,
        t_mixed: s.t_mixed,
        t_prefill: s.t_prefill,
        prefill_steps: k,
        wait: s.wait,
        prefill_busy: s.rho,
        ttft,
        itl: s.itl / tau,
        e2e,
        queue,
        req_s: s.req_s,
        tok_s,
        tok_s_gpu: tok_s / f64::from(r.gpus()),
        tok_s_user: tau / s.itl.max(f64::MIN_POSITIVE),
        batch: tok_s * s.itl / tau,
        regime: limit.regime,
        limit,
    };
    Some((out, step))
}

/// What the steady state's two regimes read: a step's time `t(decode, prompt)`,
/// the running requests, their lengths, a prompt's prefill steps `k` and the
/// steps a request takes, the prefill budget per step and the engine's time.
struct Loop<'a> {
    t: &'a dyn Fn(u32, f64) -> f64,
    n: u32,
    isl: u32,
    /// Decode steps a request takes after its first token: `osl − 1`, over
    /// the tokens a speculative step emits.
    decode_steps: f64,
    k: u32,
    steps: f64,
    chunk: f64,
    /// Tokens of the budget a decoding sequence takes each step
    /// ([`budget_tokens`]).
    w: f64,
    e: f64,
}

/// The steady state while the prefill budget has room: each step decodes the
/// running requests and prefills what prompt work has arrived.
fn budget_free(l: &Loop) -> Partial {
    let Loop {
        t,
        n,
        isl,
        decode_steps,
        k,
        steps,
        chunk,
        w,
        e,
    } = *l;
    let others = f64::from(n - 1);
    let own = f64::from(isl).min(chunk);
    let prompt_seen = others * f64::from(isl) / steps;
    let decode_seen = whole(1.0 + others * decode_steps / steps).max(1);
    let decode_beside = whole(others * decode_steps / steps);
    // the budget left for prompt tokens once the decode tokens have theirs
    let room = |decode: u32| (chunk - w * f64::from(decode)).max(1.0);
    let (mixed_share, mixed_prompt) = if prompt_seen > 0.0 {
        let q = room(decode_seen).min(own.max(prompt_seen));
        ((prompt_seen / q).min(1.0), q)
    } else {
        (0.0, 0.0)
    };
    let t_decode = t(decode_seen, 0.0);
    let t_mixed = if mixed_share > 0.0 {
        t(decode_seen, mixed_prompt)
    } else {
        t_decode
    };
    let itl = mixed_share * t_mixed + (1.0 - mixed_share) * t_decode + e;
    let q_own = room(decode_beside).min(own + prompt_seen);
    let t_prefill = t(decode_beside, q_own);
    let prefill = f64::from(k) * (t_prefill + e);
    // the wait before its first prefill step: the rest of the step in flight,
    // a step picked by when it arrives (so long steps weigh more, as a
    // renewal process's residual life: E[T²] / 2 E[T]), and the prompt work
    // queued ahead for the prefill budget; an M/G/1 queue's
    // Pollaczek–Khinchine wait, residual / (1 − ρ), ρ the share of time the
    // budget is busy with the others' prompts (each takes `isl / q_own` of
    // its prefill steps)
    let residual = if n > 1 {
        let sq = |x: f64| (x + e) * (x + e);
        (mixed_share * sq(t_mixed) + (1.0 - mixed_share) * sq(t_decode)) / (2.0 * itl)
    } else {
        0.0
    };
    let work = f64::from(k) * (t_prefill + e) * (f64::from(isl) / f64::from(k) / q_own).min(1.0);
    let steady = |wait: f64| {
        let ttft = wait + prefill;
        let e2e = ttft + decode_steps * itl;
        (ttft, e2e, f64::from(n) / e2e.max(f64::MIN_POSITIVE))
    };
    // λ and the wait depend on each other: a fixed point, from no wait
    let (mut wait, mut rho) = (0.0, 0.0);
    for _ in 0..32 {
        let (_, _, req_s) = steady(wait);
        rho = (req_s * others / f64::from(n) * work).min(RHO_MAX);
        let next = residual / (1.0 - rho);
        let done = (next - wait).abs() <= 1e-9 * next.max(1e-12);
        wait = next;
        if done {
            break;
        }
    }
    let (ttft_run, e2e_run, req_s) = steady(wait);
    Partial {
        decode_seen,
        decode_beside,
        prompt_seen,
        mixed_share,
        mixed_prompt,
        t_decode,
        t_mixed,
        t_prefill,
        itl,
        ttft_run,
        e2e_run,
        req_s,
        wait,
        rho,
    }
}

/// The steady state when the prefill budget is the bound: every step a full chunk.
fn budget_bound(l: &Loop) -> Partial {
    let Loop {
        t,
        isl,
        decode_steps,
        k,
        chunk,
        w,
        e,
        ..
    } = *l;
    // the decode tokens take their share of the budget first: `per_step`
    // requests join per step, each `isl` prompt tokens, beside
    // `per_step · decode_steps` sequences decoding
    let per_step = chunk / (f64::from(isl) + w * decode_steps);
    let decode = whole(per_step * decode_steps);
    let prompt = (chunk - w * f64::from(decode)).max(1.0);
    let t_mixed = t(decode, prompt);
    let itl = t_mixed + e;
    // the budget is always busy: a new prompt waits for the step in flight
    let ttft_run = itl / 2.0 + f64::from(k) * itl;
    Partial {
        decode_seen: decode.max(1),
        decode_beside: decode,
        prompt_seen: prompt,
        mixed_share: 1.0,
        mixed_prompt: prompt,
        t_decode: t(decode.max(1), 0.0),
        t_mixed,
        t_prefill: t_mixed,
        itl,
        ttft_run,
        e2e_run: ttft_run + decode_steps * itl,
        req_s: per_step / itl.max(f64::MIN_POSITIVE),
        wait: itl / 2.0,
        rho: 1.0,
    }
}

/// End to end and the queue's part of it for `c` requests in the loop, `n`
/// running: Little's law over the whole loop (`c` requests finishing `req_s`
/// per second) where some wait for a place or for the prefill budget.
fn queued(c: u32, n: u32, prefill_bound: bool, req_s: f64, e2e_run: f64) -> (f64, f64) {
    let e2e = if c > n || prefill_bound {
        (f64::from(c) / req_s).max(e2e_run)
    } else {
        e2e_run
    };
    (e2e, e2e - e2e_run)
}

impl Serve {
    /// The same engine with `c` requests in the loop, where the running batch
    /// is already full (`running == cap`, and `c ≥ cap`): the steps, the batch
    /// and the throughput are the same, only the queue grows (`None` where the
    /// batch is not full or `c` is below it). What [`run`] gives at `c`.
    pub fn at_concurrency(&self, c: u32) -> Option<Serve> {
        if self.running < self.cap || c < self.cap {
            return None;
        }
        let e2e_run = self.e2e - self.queue;
        let ttft_run = self.ttft - self.queue;
        let (e2e, queue) = queued(c, self.running, self.prefill_bound, self.req_s, e2e_run);
        Some(Serve {
            run: ServeRun {
                concurrency: c,
                ..self.run
            },
            waiting: c - self.running,
            ttft: ttft_run + queue,
            e2e,
            queue,
            ..*self
        })
    }
}

/// Tokens a decode step emits per sequence: 1, or speculation's accepted
/// length ([`llm::spec::tokens_per_step`]).
pub fn spec_tau(r: &ServeRun) -> f64 {
    if r.spec.kind == llm::spec::SpecKind::Off {
        1.0
    } else {
        llm::spec::tokens_per_step(r.spec.accept, r.spec.k.clamp(1, 8))
    }
}

/// What speculation adds to a step with `decode` sequences decoding at
/// `ctx`: the verify step's width beyond one token per sequence and the
/// drafter's steps (0 when off, or with no sequence decoding).
pub fn spec_extra(r: &ServeRun, decode: u32, ctx: u32, setting: &Setting) -> f64 {
    if r.spec.kind == llm::spec::SpecKind::Off || decode == 0 {
        return 0.0;
    }
    let d = step::decode_run(&r.llm, decode, ctx);
    let base = llm::step::wall(&d, setting, llm::step::KvRead::AsWritten);
    llm::spec::spec_step(&d, &r.spec, setting, base)
        .map_or(0.0, |st| (st.verify_s + st.draft_s - st.base_s).max(0.0))
}

/// Tokens of a step's budget (`chunk`) each decoding sequence takes: one, or
/// the `k + 1` a speculative verify step checks. vLLM and TensorRT-LLM count
/// the decode tokens against the same budget as the prompt tokens, and give
/// them theirs first.
pub fn budget_tokens(r: &ServeRun) -> f64 {
    if r.spec.kind == llm::spec::SpecKind::Off {
        1.0
    } else {
        f64::from(r.spec.k.clamp(1, 8) + 1)
    }
}

/// The steady state's parts before the queue.
struct Partial {
    decode_seen: u32,
    decode_beside: u32,
    prompt_seen: f64,
    mixed_share: f64,
    mixed_prompt: f64,
    t_decode: f64,
    t_mixed: f64,
    t_prefill: f64,
    itl: f64,
    ttft_run: f64,
    e2e_run: f64,
    req_s: f64,
    wait: f64,
    rho: f64,
}

/// The prefill budget's busy share is held below this (the queue's wait grows
/// as `1 / (1 − ρ)`; past it the budget is the bound, see [`run`]).
const RHO_MAX: f64 = 0.95;

/// What limits a decode step of `gpu_wall` seconds limited by `gpu_limit` with the engine's `engine` seconds per step:
/// the `llm` step's own counterfactual runs (2× FLOP/s, 2× bandwidth, half the
/// CPU overhead, the link), the engine's time counted as CPU overhead (halved
/// with it), decided by the page's one rule.
pub fn limit_with_engine(gpu_wall: f64, gpu_limit: &Limit, engine: f64) -> Limit {
    let wall = gpu_wall + engine;
    let gpu = gpu_limit.shares;
    let k = gpu_wall / wall.max(f64::MIN_POSITIVE);
    let shares = Shares {
        compute: gpu.compute * k,
        memory: gpu.memory * k,
        overhead: gpu.overhead * k + (1.0 - k),
        comm: gpu.comm * k,
    };
    Limit::decide(wall, shares, |h| {
        let cpu = if h == Halving::Overhead {
            engine / 2.0
        } else {
            engine
        };
        gpu_wall / gpu_limit.speedup(h) + cpu
    })
}

#[cfg(test)]
mod tests;
