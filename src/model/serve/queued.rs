//! `trtllm-bench throughput` as it runs: a fixed number of requests of the
//! same lengths, all queued at once, served step by step until the last one
//! finishes, and the output tokens divided by the whole run's time
//! (`token_throughput_ns` in TensorRT-LLM's
//! `tensorrt_llm/bench/dataclasses/statistics.py`). [`super::run`] prices the
//! steady state of an endless loop; a finite queue of identical requests is not
//! one. Its first requests join together, so they finish together and their
//! replacements join together again: the engine runs in waves, and the last
//! wave, what is left of the queue, decodes at a smaller batch whose steps
//! still read every weight (a mixture of experts every expert). Pure.
//!
//! **The engine** is the steady state's (the same step times,
//! [`super::step::wall`], the same cap on the running batch, the engine's CPU
//! per step), with TensorRT-LLM's scheduler rules
//! (`cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp`): each step takes
//! every decoding request (one token each) and then prompt tokens first come,
//! first served, the chunk a budget for the decode and prompt tokens together;
//! a request emits its first token with its last prompt chunk. With DEP each
//! rank has its share of the requests, cap and budget, and, all requests
//! queued at once with the same lengths, every rank runs the same steps: the
//! ranks stay in step and none waits for another. Each step's decode context is
//! the decoding requests' mean.
//!
//! **Fast.** Requests that joined in the same step with the same progress move
//! together ([`Cohort`]); a stretch of steps with no prompt work is priced in
//! segments of [`SEGMENT`] steps at their middle context. Speculative decoding
//! is not run (`None`).

use super::{step, ServeRun};
use crate::json::{self, Json};
use crate::model::llm::{dep, spec::SpecKind};
use crate::model::setting::Setting;
use rustc_hash::FxHashMap;

/// The queued runs of the published `trtllm-bench` rows, computed ahead
/// (`BRRR_BLESS=1 cargo test --test docs` writes them): a row's run does not
/// depend on anything the page sets, and running all 118 rows takes half a
/// second natively, too long for the page to spend when the serve widget
/// opens. `tests/docs.rs` `the_stored_queued_runs_are_the_models` runs every
/// row again and fails where a stored one differs.
const STORED: &str = include_str!("queued.json");

/// The stored run of the published row `id` ([`super::measured::Published::id`]).
pub fn stored(id: &str) -> Option<Queued> {
    thread_local! {
        static RUNS: Option<Json> = json::parse(STORED).ok();
    }
    RUNS.with(|j| {
        let r = j.as_ref()?.get(id)?;
        let num = |k: &str| r.get(k).and_then(Json::as_f64);
        let whole = |k: &str| num(k).filter(|x| *x >= 0.0 && x.fract() == 0.0);
        Some(Queued {
            requests: whole("requests")? as u32,
            seconds: num("seconds")?,
            steps: whole("steps")? as u64,
            tok_s: num("tok_s")?,
            mean_decode: num("mean_decode")?,
        })
    })
}

/// Steps of pure decoding priced at once, at their middle context.
pub const SEGMENT: u32 = 256;
/// Decode contexts are priced to this many tokens.
const CONTEXT_STEP: u32 = 64;

/// A whole queued run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queued {
    pub requests: u32,
    /// Seconds from the first step to the last request's last token.
    pub seconds: f64,
    /// Engine steps in the run.
    pub steps: u64,
    /// Output tokens per second over the whole run (every request's `osl`
    /// over `seconds`).
    pub tok_s: f64,
    /// Mean sequences decoding per step, over the deployment.
    pub mean_decode: f64,
}

/// Requests that joined one rank in the same step and have made the same
/// progress: `n` of them, `done` prompt tokens prefilled, `out` tokens emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cohort {
    pub n: u32,
    pub done: u32,
    pub out: u32,
}

/// `requests` requests of `r`'s lengths queued at once on `setting`, run to the
/// last token with at most `cap` running (the deployment's; the steady state's
/// [`super::Serve::cap`]) and at most `r.concurrency` (a closed loop of that
/// many clients over the requests). `None` with no request, no room, or
/// speculation on.
pub fn run(r: &ServeRun, setting: &Setting, requests: u32, cap: u32) -> Option<Queued> {
    if requests == 0 || cap == 0 || r.spec.kind != SpecKind::Off {
        return None;
    }
    let n = dep::ranks(&r.llm);
    let cap = (cap.min(r.concurrency.max(1)) / n).max(1);
    let per_rank = requests.div_ceil(n);
    let (isl, osl) = (r.isl.max(1), r.osl.max(1));
    let chunk = r.chunk.max(1);
    let mut memo: FxHashMap<(u32, u32, u32), f64> = FxHashMap::default();
    let mut wall = |decode: u32, prompt: u32, ctx: u32| -> f64 {
        let ctx = (ctx + CONTEXT_STEP / 2) / CONTEXT_STEP * CONTEXT_STEP;
        *memo.entry((decode, prompt, ctx)).or_insert_with(|| {
            step::wall_fresh(
                &r.llm,
                decode * n,
                ctx.max(1),
                f64::from(prompt * n),
                isl,
                setting,
            )
        })
    };
    let e = r.engine_s.max(0.0);
    let mut queue = per_rank;
    let mut running = 0u32;
    let mut cohorts: Vec<Cohort> = Vec::new();
    let (mut seconds, mut steps, mut decoded) = (0.0, 0u64, 0.0);
    loop {
        let join = (cap - running).min(queue);
        if join > 0 {
            cohorts.push(Cohort {
                n: join,
                done: 0,
                out: 0,
            });
            queue -= join;
            running += join;
        }
        if running == 0 {
            break;
        }
        let decoding = |c: &Cohort| c.done >= isl;
        let decode: u32 = cohorts.iter().filter(|c| decoding(c)).map(|c| c.n).sum();
        let ctx_sum: u64 = cohorts
            .iter()
            .filter(|c| decoding(c))
            .map(|c| u64::from(c.n) * u64::from(isl + c.out))
            .sum();
        let ctx = |extra: u32| {
            if decode == 0 {
                isl
            } else {
                (ctx_sum / u64::from(decode)) as u32 + extra
            }
        };
        let all_decoding = cohorts.iter().all(decoding);
        if all_decoding && (queue == 0 || running == cap) {
            // nothing to prefill until the first cohort finishes
            let until = cohorts.iter().map(|c| osl - c.out).min().unwrap_or(1);
            let seg = until.clamp(1, SEGMENT);
            seconds += f64::from(seg) * (wall(decode, 0, ctx((seg - 1) / 2)) + e);
            steps += u64::from(seg);
            decoded += f64::from(decode) * f64::from(seg);
            for c in &mut cohorts {
                c.out += seg;
            }
        } else {
            let (next, prompt) = prefill(&cohorts, isl, chunk.saturating_sub(decode));
            seconds += wall(decode, prompt, ctx(0)) + e;
            steps += 1;
            decoded += f64::from(decode);
            cohorts = next;
        }
        cohorts.retain(|c| {
            let left = c.out < osl;
            if !left {
                running -= c.n;
            }
            left
        });
    }
    (seconds > 0.0).then(|| Queued {
        requests,
        seconds,
        steps,
        tok_s: f64::from(requests) * f64::from(osl) / seconds,
        mean_decode: decoded / steps.max(1) as f64 * f64::from(n),
    })
}

/// One step of `cohorts` (in the order they joined) with `budget` prompt tokens
/// to give first come, first served: the decoding cohorts emit a token, whole
/// prompts (or their rest) are prefilled while the budget lasts, and one
/// request may take a partial chunk. Returns the cohorts after the step (still
/// in order) and the prompt tokens prefilled.
pub fn prefill(cohorts: &[Cohort], isl: u32, mut budget: u32) -> (Vec<Cohort>, u32) {
    let mut next = Vec::with_capacity(cohorts.len() + 2);
    let mut prompt = 0u32;
    for c in cohorts {
        if c.done >= isl {
            next.push(Cohort {
                out: c.out + 1,
                ..*c
            });
            continue;
        }
        let rest = isl - c.done;
        let whole = c.n.min(budget / rest);
        if whole > 0 {
            next.push(Cohort {
                n: whole,
                done: isl,
                out: 1,
            });
            budget -= whole * rest;
            prompt += whole * rest;
        }
        let mut left = c.n - whole;
        if left > 0 && budget > 0 {
            next.push(Cohort {
                n: 1,
                done: c.done + budget,
                out: 0,
            });
            prompt += budget;
            budget = 0;
            left -= 1;
        }
        if left > 0 {
            next.push(Cohort { n: left, ..*c });
        }
    }
    (next, prompt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::serve::tests::base;

    fn h100() -> Setting {
        crate::model::llm::measured::h100_setting()
    }

    /// One request alone is its steady state at one in flight: its prompt in
    /// one step, then `osl − 1` decode steps (the steady state prices them
    /// all at the mean context, the queued run at each step's own; 2 % apart
    /// at most).
    #[test]
    fn one_request_is_the_steady_state_of_one() {
        let s = h100();
        let r = base(1);
        let steady = crate::model::serve::run(&r, &s).expect("fits");
        let q = run(&r, &s, 1, steady.cap).expect("runs");
        assert_eq!(q.steps, u64::from(r.osl));
        assert!(
            (q.seconds / steady.e2e - 1.0).abs() < 0.02,
            "{q:?} {}",
            steady.e2e
        );
        assert!((q.tok_s * q.seconds - f64::from(r.osl)).abs() < 1e-6);
    }

    /// Same-length requests queued at once run in waves: one request past
    /// two full waves costs a third wave, its `osl − 1` decode steps after
    /// the last wave ends (its prompt rides in that wave's last step), each at
    /// least a lone sequence's decode step and the engine's time.
    #[test]
    fn one_request_past_a_wave_costs_a_whole_wave() {
        let s = h100();
        let r = ServeRun {
            max_seqs: 16,
            osl: 200,
            ..base(4096)
        };
        let cap = crate::model::serve::run(&r, &s).expect("fits").cap;
        assert_eq!(cap, 16);
        let two = run(&r, &s, 2 * cap, cap).expect("runs");
        let more = run(&r, &s, 2 * cap + 1, cap).expect("runs");
        let lone = step::wall_fresh(&r.llm, 1, r.isl + r.osl / 2, 0.0, r.isl, &s) + r.engine_s;
        assert!(
            more.steps == two.steps + u64::from(r.osl - 1),
            "{two:?} {more:?}"
        );
        assert!(
            more.seconds - two.seconds >= 0.9 * f64::from(r.osl - 1) * lone,
            "{two:?} {more:?} {lone}"
        );
        // and the run's throughput falls though it serves more
        assert!(more.tok_s < two.tok_s);
    }

    /// DEP's ranks each take an equal share of the queue, the slowest the
    /// share rounded up: 4k + 1 requests over 4 ranks take as long as 4k + 4.
    #[test]
    fn dep_ranks_take_equal_shares_in_step() {
        let s = crate::model::llm::measured::setting_on(
            crate::model::hardware::preset("h200").expect("h200"),
        );
        let mut r = base(4096);
        r.llm.config = crate::model::llm::LlmModel::Qwen3_30b.config_or_toy();
        r.llm.par = crate::model::parallel::Parallel {
            dep: 4,
            link: crate::model::parallel::link("nvlink4")
                .copied()
                .unwrap_or(crate::model::parallel::Link::NONE),
            ..crate::model::parallel::Parallel::ONE
        };
        r.max_seqs = 64;
        r.osl = 100;
        let a = run(&r, &s, 4 * 40 + 1, 64).expect("runs");
        let b = run(&r, &s, 4 * 40 + 4, 64).expect("runs");
        assert_eq!((a.steps, a.seconds), (b.steps, b.seconds));
        assert!(a.tok_s < b.tok_s);
    }

    /// No requests, no room or speculation on: no run.
    #[test]
    fn nothing_to_run_is_no_run() {
        let s = h100();
        let r = base(1);
        assert_eq!(run(&r, &s, 0, 8), None);
        assert_eq!(run(&r, &s, 8, 0), None);
        let spec = ServeRun {
            spec: crate::model::llm::spec::SpecRun {
                kind: SpecKind::Eagle,
                ..r.spec
            },
            ..r
        };
        assert_eq!(run(&spec, &s, 8, 8), None);
    }

    /// A step with no budget left after the decode tokens prefills nothing;
    /// the decoding requests still each emit a token.
    #[test]
    fn no_budget_prefills_nothing() {
        let cs = [
            Cohort {
                n: 5,
                done: 64,
                out: 3,
            },
            Cohort {
                n: 2,
                done: 10,
                out: 0,
            },
        ];
        let (next, prompt) = prefill(&cs, 64, 0);
        assert_eq!(prompt, 0);
        assert_eq!(
            next,
            [
                Cohort {
                    n: 5,
                    done: 64,
                    out: 4
                },
                cs[1]
            ]
        );
    }

    /// The budget goes first come, first served: whole prompts while they fit,
    /// then one partial chunk; the decoding cohorts each emit a token.
    #[test]
    fn the_budget_goes_to_the_oldest_prompts_first() {
        let cs = [
            Cohort {
                n: 3,
                done: 100,
                out: 5,
            },
            Cohort {
                n: 4,
                done: 0,
                out: 0,
            },
        ];
        let (next, prompt) = prefill(&cs, 100, 250);
        assert_eq!(prompt, 250);
        assert_eq!(
            next,
            [
                Cohort {
                    n: 3,
                    done: 100,
                    out: 6
                },
                Cohort {
                    n: 2,
                    done: 100,
                    out: 1
                },
                Cohort {
                    n: 1,
                    done: 50,
                    out: 0
                },
                Cohort {
                    n: 1,
                    done: 0,
                    out: 0
                },
            ]
        );
        // the partial request finishes first the next step
        let (next, prompt) = prefill(&next, 100, 60);
        assert_eq!(prompt, 60);
        assert_eq!(
            next[2],
            Cohort {
                n: 1,
                done: 100,
                out: 1
            }
        );
        assert_eq!(
            next[3],
            Cohort {
                n: 1,
                done: 10,
                out: 0
            }
        );
    }
}
