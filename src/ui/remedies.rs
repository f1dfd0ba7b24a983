//! Widget `remedies`: the essay's conclusion table — regime → what helps — with the
//! current regime's row highlighted. Each remedy is a button that applies it to the
//! shared state; its predicted effect on the step time is shown before you click.

use super::Ctx;
use crate::model::{units, Dtype, Regime};
use crate::state::{limits, State};
use leptos::prelude::*;

struct Remedy {
    id: &'static str,
    label: &'static str,
    apply: fn(&mut State),
}

const FUSE: Remedy = Remedy {
    id: "fuse",
    label: "Fuse the pointwise chain",
    apply: |s| s.fused = true,
};
const BATCH: Remedy = Remedy {
    id: "batch",
    label: "Raise the batch 4×",
    apply: |s| s.batch = (s.batch.saturating_mul(4)).min(limits::BATCH.1),
};
const CUT_OVERHEAD: Remedy = Remedy {
    id: "overhead",
    label: "Cut overhead 10× (tracing, CUDA graphs, a JIT, no Python)",
    apply: |s| s.overhead = (s.overhead / 10.0).max(limits::OVERHEAD.0),
};
const TENSOR: Remedy = Remedy {
    id: "tensor",
    label: "Switch to a tensor-core dtype",
    // The fastest tensor-core dtype this GPU has that beats the current one (the
    // list is fastest first, so only the dtypes before the current one qualify).
    apply: |s| {
        let faster = [Dtype::Fp8, Dtype::Bf16, Dtype::Tf32]
            .into_iter()
            .take_while(|d| *d != s.dtype)
            .find(|d| s.hw.supports(*d));
        if let Some(d) = faster {
            s.select_dtype(d);
        }
    },
};
const MORE_FLOPS: Remedy = Remedy {
    id: "flops",
    label: "Buy 2× FLOP/s",
    apply: |s| s.flops = (s.flops * 2.0).min(limits::FLOPS.1),
};
const SMALLER_DTYPE: Remedy = Remedy {
    id: "dtype",
    label: "Store in a smaller dtype",
    apply: |s| {
        let next = match s.dtype {
            Dtype::Fp32 | Dtype::Tf32 => Some(Dtype::Bf16),
            Dtype::Bf16 => Some(Dtype::Fp8),
            Dtype::Fp8 => None,
        };
        if let Some(d) = next.filter(|d| s.hw.supports(*d)) {
            s.select_dtype(d);
        }
    },
};

const ROWS: [(Regime, &str, &[Remedy]); 3] = [
    (
        Regime::Overhead,
        "Overhead-bound",
        &[CUT_OVERHEAD, FUSE, BATCH],
    ),
    (
        Regime::Memory,
        "Bandwidth-bound",
        &[FUSE, SMALLER_DTYPE, BATCH],
    ),
    (Regime::Compute, "Compute-bound", &[TENSOR, MORE_FLOPS]),
];

#[component]
pub fn Remedies(ctx: Ctx) -> impl IntoView {
    let regime = Memo::new(move |_| ctx.report.with(|r| r.regime));
    // Compare time per sample, so a bigger batch (more work per step) is judged by
    // throughput, not by the longer step it makes.
    let per_sample = |s: &State, wall: f64| wall / f64::from(s.batch.max(1));
    let before = Memo::new(move |_| {
        ctx.state
            .with(|s| per_sample(s, ctx.report.with(|r| r.wall_time_s)))
    });
    let effect = move |apply: fn(&mut State)| {
        move || {
            let after = ctx.view.with(|s| {
                let mut t = s.clone();
                apply(&mut t);
                (t != *s).then(|| per_sample(&t, t.report().wall_time_s))
            });
            match after {
                None => "already applied".to_string(),
                Some(t) => {
                    let b = before.get();
                    format!(
                        "{} → {} per sample ({}×)",
                        units::si(b, "s"),
                        units::si(t, "s"),
                        units::sig3(b / t)
                    )
                }
            }
        }
    };
    view! {
        <table class="remedies">
            <thead><tr><th scope="col">"regime"</th><th scope="col">"remedies (click to apply; predicted time per sample, before → after)"</th></tr></thead>
            <tbody>
                {ROWS.iter().map(|(r, name, remedies)| {
                    let r = *r;
                    view! {
                        <tr class:current=move || regime.get() == r data-regime=r.id()>
                            <th scope="row">{*name}{move || (regime.get() == r).then_some(" ← you are here")}</th>
                            <td>
                                <ul class="remedy-list">
                                    {remedies.iter().map(|m| {
                                        let apply = m.apply;
                                        view! {
                                            <li>
                                                <button class="remedy" data-remedy=m.id
                                                    on:click=move |_| ctx.state.update(apply)>{m.label}</button>
                                                " "<span class="effect">{effect(apply)}</span>
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <p class="sr-only" aria-live="polite">
            {move || format!("The step is {}; its row of remedies is highlighted.", regime.get().label())}
        </p>
        <p class="note">"Remedies for another regime barely move the time: that is the point of diagnosing first."</p>
    }
}
