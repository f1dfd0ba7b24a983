use super::*;
use crate::model::hardware;
use crate::model::llm::{KvDtype, LlmModel, Parallel, Phase, WeightDtype};
use crate::model::parallel::{link, Link};

fn setting(hw: &str) -> Setting {
    crate::model::llm::measured::setting_on(hardware::preset(hw).unwrap_or(&hardware::PRESETS[0]))
}

/// Llama-3-8B in fp8 on one GPU, CUDA graphs, 1000 in / 1000 out, `c` in flight.
pub(super) fn base(c: u32) -> ServeRun {
    ServeRun {
        llm: LlmRun {
            config: LlmModel::Llama3_8b.config_or_toy(),
            phase: Phase::Decode,
            batch: 1,
            context: 1,
            wdtype: WeightDtype::Fp8,
            kvdtype: KvDtype::Fp8,
            graphs: true,
            flash: true,
            par: Parallel::ONE,
        },
        isl: 1000,
        osl: 1000,
        concurrency: c,
        chunk: 8192,
        max_seqs: 256,
        engine_s: ENGINE_US * 1e-6,
        spec: crate::model::llm::spec::SpecRun::OFF,
    }
}

fn go(r: &ServeRun, s: &Setting) -> Serve {
    run(r, s).unwrap_or_else(|| panic!("{r:?} does not fit"))
}

#[test]
fn one_request_reproduces_the_llm_decode_step() {
    let s = setting("h100-sxm");
    for model in [
        LlmModel::Llama3_8b,
        LlmModel::Llama3_70b,
        LlmModel::Mixtral8x7b,
    ] {
        for (tp, graphs) in [(1, true), (2, true), (2, false)] {
            let mut r = ServeRun {
                engine_s: 0.0,
                ..base(1)
            };
            r.llm.config = model.config_or_toy();
            r.llm.graphs = graphs;
            r.llm.par = Parallel {
                tp,
                pp: 1,
                dep: 1,
                link: link("nvlink4").copied().unwrap_or(Link::NONE),
                overlap: false,
                rank_tokens: 0,
            };
            let Some(v) = run(&r, &s) else {
                continue; // (70B on one H100)
            };
            // its inter-token latency is the llm widget's decode step at batch 1 at
            // the mean context, exactly
            let decode = crate::model::llm::step::full(
                &LlmRun {
                    phase: Phase::Decode,
                    batch: 1,
                    context: 1000 + 500,
                    ..r.llm
                },
                &s,
            );
            assert_eq!(v.itl, decode.wall, "{model:?} tp {tp} graphs {graphs}");
            assert_eq!(v.regime, decode.regime);
            // its first token is the llm widget's prefill of the prompt (within the
            // LM head's rows), with no wait and no queue
            let prefill = crate::model::llm::step::plain(
                &LlmRun {
                    phase: Phase::Prefill,
                    batch: 1,
                    context: 1000,
                    ..r.llm
                },
                &s,
                crate::model::llm::step::KvRead::AsWritten,
            );
            assert!(
                (v.ttft / prefill.wall - 1.0).abs() < 0.01,
                "{} {}",
                v.ttft,
                prefill.wall
            );
            assert_eq!((v.queue, v.wait, v.running, v.waiting), (0.0, 0.0, 1, 0));
            assert!((v.e2e - v.ttft - 999.0 * v.itl).abs() < 1e-9 * v.e2e);
            assert!((v.tok_s * v.e2e - 1000.0).abs() < 1e-6);
            assert!((v.batch - 1.0).abs() < 0.01, "{}", v.batch);
        }
    }
    // the engine's time is added to every step
    let s1 = go(&base(1), &s);
    let s0 = go(
        &ServeRun {
            engine_s: 0.0,
            ..base(1)
        },
        &s,
    );
    assert!((s1.itl - s0.itl - ENGINE_US * 1e-6).abs() < 1e-12);
}

#[test]
fn kv_capacity_is_the_fit_rule() {
    let s = setting("h100-sxm");
    for (isl, osl, kv) in [
        (1000, 1000, KvDtype::Fp8),
        (5000, 500, KvDtype::Bf16),
        (128, 128, KvDtype::Fp8),
    ] {
        let mut r = ServeRun {
            isl,
            osl,
            ..base(1)
        };
        r.llm.kvdtype = kv;
        let k = kv_max_seqs(&r, &s).unwrap_or(0);
        let whole = |batch| LlmRun {
            phase: Phase::Prefill,
            batch,
            context: isl + osl,
            ..r.llm
        };
        // the llm widget's own test: that many sequences of isl + osl tokens fit,
        // one more does not, and the KV cache stays within 90 % of what the
        // weights leave
        assert!(fit::fits(&whole(k), s.hw.mem_bytes) && !fit::fits(&whole(k + 1), s.hw.mem_bytes));
        let room = fit::kv_room(&whole(1), s.hw.mem_bytes);
        assert!(fit::kv_bytes(&whole(k)) <= room && fit::kv_bytes(&whole(k + 1)) > room);
        let f = fit::fit(&whole(1), s.hw.mem_bytes, 1.0, true);
        assert_eq!(f.max_batch, Some(k));
    }
    // 1000 + 1000 tokens of Llama-3-8B in fp8: 128 MiB each; 90 % of the ~71 GB
    // the weights leave holds ~490 of them
    let k = kv_max_seqs(&base(1), &s).unwrap_or(0);
    assert!((470..510).contains(&k), "{k}");
    // a GPU whose memory is not known caps nothing
    let mut unknown = s;
    unknown.hw = &hardware::MEASURED;
    assert_eq!(kv_max_seqs(&base(1), &unknown), None);
    // weights that do not fit: no steady state
    let mut r70 = base(1);
    r70.llm.config = LlmModel::Llama3_70b.config_or_toy();
    r70.llm.wdtype = WeightDtype::Bf16;
    assert_eq!(kv_max_seqs(&r70, &s), Some(0));
    assert!(run(&r70, &s).is_none());
}

#[test]
fn throughput_saturates_at_the_kv_cap() {
    let s = setting("h100-sxm");
    // 4000 in / 4000 out: the KV cache caps the batch below max_seqs
    let long = |c| ServeRun {
        isl: 4000,
        osl: 4000,
        ..base(c)
    };
    let cap = go(&long(1), &s).cap;
    assert_eq!(go(&long(1), &s).capped_by, Cap::Kv);
    assert!(cap > 100 && cap < 256, "{cap}");
    let at = |c| go(&long(c), &s);
    // below the cap throughput grows with concurrency and nothing queues
    let mut last = 0.0;
    for c in [1, 2, 4, 16, 64, cap] {
        let v = at(c);
        assert!(v.tok_s > last, "{c}: {} {last}", v.tok_s);
        assert_eq!((v.queue, v.waiting), (0.0, 0));
        last = v.tok_s;
    }
    // past it, the same batch runs: throughput and ITL stay, TTFT grows with the
    // queue (Little's law: c requests at the same rate), and queueing takes over
    let full = at(cap);
    for c in [cap + 1, 2 * cap, 4096] {
        let v = at(c);
        assert_eq!((v.running, v.waiting), (cap, c - cap));
        assert!((v.tok_s / full.tok_s - 1.0).abs() < 1e-12, "{c}");
        assert!((v.itl / full.itl - 1.0).abs() < 1e-12);
        assert!((v.e2e * v.req_s - f64::from(c)).abs() < 1e-6 * f64::from(c));
        assert!((v.queue - f64::from(c - cap) / v.req_s).abs() < 1e-6 * v.queue);
        assert!(v.ttft > full.ttft && v.queue_share() > 0.0);
    }
    assert!(at(4096).queue_share() > 0.9);
    // what the sweep reads past the knee: the full batch's run, requeued, is
    // the run at that concurrency, figure for figure
    for c in [cap, cap + 1, 2 * cap, 4096] {
        assert_eq!(full.at_concurrency(c), Some(at(c)), "{c}");
    }
    assert_eq!(at(cap / 2).at_concurrency(cap), None);
    // max_seqs below the KV cache is the cap instead
    let capped = go(
        &ServeRun {
            max_seqs: 32,
            ..long(64)
        },
        &s,
    );
    assert_eq!(
        (capped.cap, capped.capped_by, capped.running),
        (32, Cap::MaxSeqs, 32)
    );
}

#[test]
fn decode_climbs_from_memory_toward_compute_and_the_engine_is_overhead() {
    let s = setting("h100-sxm");
    let short = |c| ServeRun {
        isl: 128,
        osl: 128,
        max_seqs: 4096,
        engine_s: 0.0,
        ..base(c)
    };
    // one request: memory-bound (the weights); thousands: the weight matmuls
    // share each read among as many tokens, and the step turns compute-bound
    assert_eq!(go(&short(1), &s).regime, Regime::Memory);
    assert_eq!(go(&short(4096), &s).regime, Regime::Compute);
    // the batch's arithmetic intensity rises, so per-GPU throughput rises
    // faster than the ITL
    let (a, b) = (go(&short(8), &s), go(&short(64), &s));
    assert!(b.tok_s / a.tok_s > 4.0 && b.itl / a.itl < 2.0);
    // a slow engine makes the step overhead-bound, and halving its time is
    // what helps most
    let slow = go(
        &ServeRun {
            engine_s: 20e-3,
            ..short(8)
        },
        &s,
    );
    assert_eq!(slow.regime, Regime::Overhead, "{:?}", slow.limit);
    assert!(slow.limit.overhead_half > 1.3);
    assert!(slow.limit.shares.overhead > 0.5);
}

/// The decode tokens count against the step's budget and take theirs first,
/// as vLLM's and TensorRT-LLM's schedulers count them: a step's prompt tokens
/// and its decoding sequences' tokens (`k + 1` each under speculation) never
/// exceed the chunk, whether the budget has room or sets the pace; and a
/// budget the decode tokens already fill lets the prompts in slower than one
/// that leaves them the whole chunk would.
#[test]
fn the_decode_tokens_take_their_share_of_the_budget_first() {
    let s = setting("h100-sxm");
    let eagle = crate::model::llm::spec::SpecRun {
        kind: crate::model::llm::spec::SpecKind::Eagle,
        ..crate::model::llm::spec::SpecRun::OFF
    };
    let mut bound = 0;
    for (isl, osl, chunk, c, spec) in [
        (1000, 1000, 8192, 256, crate::model::llm::spec::SpecRun::OFF),
        (8000, 256, 2048, 256, crate::model::llm::spec::SpecRun::OFF),
        (4000, 100, 1024, 200, crate::model::llm::spec::SpecRun::OFF),
        (2000, 500, 4096, 128, eagle),
    ] {
        let r = ServeRun {
            isl,
            osl,
            chunk,
            spec,
            ..base(c)
        };
        let v = go(&r, &s);
        let w = budget_tokens(&r);
        assert_eq!(
            w,
            if spec.kind == crate::model::llm::spec::SpecKind::Off {
                1.0
            } else {
                f64::from(spec.k + 1)
            }
        );
        if v.mixed_share > 0.0 {
            let used = v.mixed_prompt + w * f64::from(v.decode_seen);
            assert!(
                used <= f64::from(chunk) + 1.0,
                "{isl}/{osl} chunk {chunk}: {used}"
            );
        }
        if v.prefill_bound {
            bound += 1;
            // chunk / (isl + w·(osl − 1)/τ) requests join a step
            let tau = spec_tau(&r);
            let want = f64::from(chunk) / (f64::from(isl) + w * f64::from(osl - 1) / tau);
            assert!(
                (v.req_s * v.itl - want).abs() < 1e-9 * want.max(1.0),
                "{isl}/{osl}"
            );
        }
    }
    assert!(bound >= 2, "the cases should include budget-bound ones");
}

#[test]
fn a_small_chunk_makes_the_prefill_budget_the_bound() {
    let s = setting("h100-sxm");
    let r = ServeRun {
        isl: 8000,
        osl: 256,
        chunk: 256,
        max_seqs: 1024,
        ..base(512)
    };
    let v = go(&r, &s);
    assert!(v.prefill_bound);
    assert_eq!(v.prefill_steps, 8000 / 256 + 1);
    // the decode tokens take their share of the chunk first: chunk / (isl +
    // osl − 1) requests finish per step
    assert!((v.req_s * v.itl - 256.0 / (8000.0 + 255.0)).abs() < 1e-9);
    // a larger chunk lifts it
    let w = go(&ServeRun { chunk: 8192, ..r }, &s);
    assert!(!w.prefill_bound && w.tok_s > v.tok_s);
}

#[test]
fn ttft_waits_longer_as_prefills_crowd() {
    // long prompts: the prefill budget grows busy with concurrency, and a new
    // request waits longer for the step in flight and the prompts ahead
    let s = setting("h100-sxm");
    let r = |c| ServeRun {
        isl: 5000,
        osl: 500,
        ..base(c)
    };
    let mut last = (0.0, 0.0);
    for c in [2, 5, 25, 50] {
        let v = go(&r(c), &s);
        assert!(v.wait > last.0 && v.prefill_busy > last.1, "{c}: {v:?}");
        assert!(v.prefill_busy < 1.0);
        assert!(v.ttft >= v.wait + f64::from(v.prefill_steps) * v.t_prefill);
        last = (v.wait, v.prefill_busy);
    }
}

#[test]
fn every_state_obeys_littles_law() {
    let s = setting("h100-sxm");
    for c in [1, 3, 50, 700, 4096] {
        for (isl, osl) in [(1, 1), (100, 3000), (20000, 200)] {
            for chunk in [64, 8192] {
                let r = ServeRun {
                    isl,
                    osl,
                    chunk,
                    ..base(c)
                };
                let v = go(&r, &s);
                for x in [v.ttft, v.itl, v.e2e, v.tok_s, v.req_s, v.batch] {
                    assert!(x.is_finite() && x > 0.0, "{r:?} {v:?}");
                }
                assert!(
                    (v.e2e * v.req_s - f64::from(c)).abs() < 1e-6 * f64::from(c),
                    "{r:?}"
                );
                assert!(v.queue >= 0.0 && v.queue <= v.ttft);
                assert!((v.e2e - v.ttft - f64::from(osl - 1) * v.itl).abs() < 1e-6 * v.e2e);
                assert!((v.tok_s_gpu - v.tok_s).abs() < 1e-9 * v.tok_s);
            }
        }
    }
}

#[test]
fn cost_follows_the_throughput() {
    let s = setting("h100-sxm");
    let v = go(&base(64), &s);
    let p = price(s.hw).map_or(0.0, |p| p.usd_per_gpu_h);
    assert!(p > 1.0 && p < 10.0);
    // dollars per hour over millions of tokens per hour
    let per_m = p / (v.tok_s * 3600.0 / 1e6);
    assert!((v.usd_per_mtok(p) / per_m - 1.0).abs() < 1e-12);
    assert!(v.usd_per_mtok_in_out(p) < v.usd_per_mtok(p));
    // two GPUs cost twice per hour
    let mut r2 = base(64);
    r2.llm.par = Parallel {
        tp: 2,
        pp: 1,
        dep: 1,
        link: link("nvlink4").copied().unwrap_or(Link::NONE),
        overlap: false,
        rank_tokens: 0,
    };
    let v2 = go(&r2, &s);
    assert!((v2.usd_per_mtok(p) / (2.0 * p / (v2.tok_s * 3600.0 / 1e6)) - 1.0).abs() < 1e-12);
    assert!((v2.tok_s_gpu * 2.0 - v2.tok_s).abs() < 1e-9 * v2.tok_s);
    // a price for the H100 SXM and the H200, each with its source; none elsewhere
    for id in ["h100-sxm", "h200"] {
        let p = hardware::preset(id).and_then(price);
        assert!(
            p.is_some_and(|p| p.usd_per_gpu_h > 0.0 && p.source.contains("per GPU-hour")),
            "{id}"
        );
    }
    assert_eq!(hardware::preset("mi300x").and_then(price), None);
}

/// The widget's answer with the runs remembered from other concurrencies and
/// other states (a slider dragged) is the answer with nothing remembered, bit
/// for bit; so are `run` and `run_plain` beside a full memory.
#[test]
fn remembered_runs_are_the_models() {
    let h100 = setting("h100-sxm");
    let a100 = setting("a100-80gb");
    let mut runs = Vec::new();
    for c in [1, 7, 16, 300, 4096] {
        for (isl, chunk) in [(1000, 8192), (20000, 512)] {
            let mut r = base(c);
            r.isl = isl;
            r.chunk = chunk;
            runs.push((r, h100));
            r.llm.kvdtype = KvDtype::Bf16;
            runs.push((r, a100));
        }
    }
    let cold: Vec<_> = runs
        .iter()
        .map(|(r, s)| {
            memo::forget();
            view::widget(r, s, None, true)
        })
        .collect();
    memo::forget();
    // warm: every state in turn and then backwards, the memory full of the others'
    for (i, (r, s)) in runs.iter().enumerate().chain(runs.iter().enumerate().rev()) {
        assert_eq!(view::widget(r, s, None, true), cold[i], "{r:?}");
        let plain = run_with(r, s, Limits::Skip).map(|x| x.0);
        let decided = run_with(r, s, Limits::Decide).map(|x| x.0);
        assert_eq!((run_plain(r, s), run(r, s)), (plain, decided), "{r:?}");
    }
    // the memory stays bounded
    let kept = memo::len();
    assert!(kept > 0 && kept <= memo::KEEP, "{kept}");
}
