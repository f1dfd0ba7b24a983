//! Widget `diagnosis`: the regime for the current state — three shares as a stacked
//! bar, the regime in words, and what would and would not help (the essay's
//! overfitting analogy: treat the regime you are in, not another one).

use super::frame::Readout;
use super::Ctx;
use crate::model::{units, Regime, Report};
use leptos::prelude::*;

struct Advice {
    helps: &'static [&'static str],
    useless: &'static [&'static str],
}

fn advice(r: Regime) -> Advice {
    match r {
        Regime::Compute => Advice {
            helps: &[
                "tensor-core dtypes (bf16, fp8)",
                "a GPU with more FLOP/s",
                "doing fewer FLOPs",
            ],
            useless: &[
                "fusing pointwise ops",
                "rewriting the loop in C++",
                "CUDA graphs",
            ],
        },
        Regime::Memory => Advice {
            helps: &[
                "fusing pointwise ops",
                "smaller dtypes",
                "bigger batches (raise matmul intensity)",
                "more bandwidth",
            ],
            useless: &[
                "more FLOP/s: the factory already waits for its trucks",
                "cutting Python overhead",
            ],
        },
        Regime::Overhead => Advice {
            helps: &[
                "fewer, bigger kernels (fusion, bigger batches)",
                "CUDA graphs",
                "tracing / compiling away Python",
            ],
            useless: &["a faster GPU", "more bandwidth"],
        },
    }
}

#[component]
pub fn Diagnosis(ctx: Ctx) -> impl IntoView {
    let r = ctx.report;
    let regime = Memo::new(move |_| r.with(|r| r.regime));
    let share = move |get: fn(&Report) -> f64| Memo::new(move |_| r.with(get));
    let (c, m, o) = (
        share(|r| r.shares.compute),
        share(|r| r.shares.memory),
        share(|r| r.shares.overhead),
    );
    let width = move |s: Memo<f64>| move || format!("width:{:.3}%", s.get() * 100.0);
    let summary = move || {
        format!(
            "{}: {} of the time computing, {} moving memory, {} waiting on overhead.",
            regime.get().label(),
            units::percent(c.get()),
            units::percent(m.get()),
            units::percent(o.get()),
        )
    };
    let list = |items: &'static [&'static str]| {
        items.iter().map(|i| view! { <li>{*i}</li> }).collect_view()
    };

    view! {
        <div class="regime" data-regime=move || regime.get().id()>
            <p class="regime-name">
                "This step is "
                <strong data-metric="regime" data-value=move || regime.get().id()>
                    {move || regime.get().label()}
                </strong>
            </p>
            <div class="share-bar" role="img" aria-label=summary>
                <div class="share compute" style=width(c)></div>
                <div class="share memory" style=width(m)></div>
                <div class="share overhead" style=width(o)></div>
            </div>
            <p class="shares">
                <span class="key compute">"compute "
                    <Readout name="share_compute" raw=Signal::derive(move || c.get().to_string()) text=Signal::derive(move || units::percent(c.get()))/>
                </span>
                <span class="key memory">"memory "
                    <Readout name="share_memory" raw=Signal::derive(move || m.get().to_string()) text=Signal::derive(move || units::percent(m.get()))/>
                </span>
                <span class="key overhead">"overhead "
                    <Readout name="share_overhead" raw=Signal::derive(move || o.get().to_string()) text=Signal::derive(move || units::percent(o.get()))/>
                </span>
            </p>
            <div class="advice">
                {move || {
                    let a = advice(regime.get());
                    view! {
                        <div><h4>"Would help"</h4><ul class="helps">{list(a.helps)}</ul></div>
                        <div><h4>"Would not help"</h4><ul class="useless">{list(a.useless)}</ul></div>
                    }
                }}
            </div>
            <p class="sr-only" aria-live="polite">{summary}</p>
        </div>
    }
}
