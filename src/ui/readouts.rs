//! Where the time goes: the regime in words, the three shares as a stacked bar, the
//! key numbers (each a `data-metric` / `data-value` readout, a public contract),
//! and the per-kernel table.

use super::Ctx;
use crate::model::{units, Bound, Regime, Report};
use leptos::prelude::*;

/// A readout: visible text plus the raw value in SI base units for machines.
#[component]
fn Metric(
    name: &'static str,
    label: &'static str,
    #[prop(into)] raw: Signal<String>,
    #[prop(into)] text: Signal<String>,
    #[prop(optional, into)] note: Option<Signal<String>>,
) -> impl IntoView {
    view! {
        <div class="metric">
            <dt>{label}</dt>
            <dd data-metric=name data-value=move || raw.get()>{move || text.get()}</dd>
            {note.map(|n| view! { <dd class="note">{move || n.get()}</dd> })}
        </div>
    }
}

fn advice(r: Regime) -> &'static str {
    match r {
        Regime::Compute => {
            "The arithmetic units are the bottleneck. Helps: tensor-core dtypes (bf16, fp8), \
             a faster GPU, fewer FLOPs. Won't help: fusing or rewriting in C++."
        }
        Regime::Memory => {
            "Bytes moving between DRAM and the cores are the bottleneck. Helps: fusing \
             pointwise ops, smaller dtypes, bigger batches (for matmuls). Won't help: \
             more FLOP/s — the factory already waits for its trucks."
        }
        Regime::Overhead => {
            "The GPU waits for the CPU to hand it work. Helps: fewer, bigger kernels \
             (fusion, bigger batches), CUDA graphs, tracing/compiling away Python. \
             Won't help: a faster GPU."
        }
    }
}

#[component]
pub fn Readouts(ctx: Ctx) -> impl IntoView {
    let r = ctx.report;
    let m = Memo::new(move |_| ctx.state.with(|s| s.machine()));
    let f = move |get: fn(&Report) -> f64| move || r.with(get);
    let raw = |get: fn(&Report) -> f64| Signal::derive(move || r.with(get).to_string());
    let share_w =
        move |get: fn(&Report) -> f64| move || format!("width:{:.3}%", r.with(get) * 100.0);

    let summary = move || {
        r.with(|r| {
            format!(
                "{}: {} of the time computing, {} moving memory, {} waiting on overhead. \
                 One step takes {} and attains {}.",
                r.regime.label(),
                units::percent(r.shares.compute),
                units::percent(r.shares.memory),
                units::percent(r.shares.overhead),
                units::si(r.wall_time_s, "s"),
                units::si(r.achieved_flops, "FLOP/s"),
            )
        })
    };

    view! {
        <div class="regime" data-regime=move || r.with(|r| r.regime.id())>
            <p class="regime-name">
                "This step is "
                <strong data-metric="regime" data-value=move || r.with(|r| r.regime.id())>
                    {move || r.with(|r| r.regime.label())}
                </strong>
            </p>
            <div class="share-bar" role="img" aria-label=summary>
                <div class="share compute" style=share_w(|r| r.shares.compute)></div>
                <div class="share memory" style=share_w(|r| r.shares.memory)></div>
                <div class="share overhead" style=share_w(|r| r.shares.overhead)></div>
            </div>
            <dl class="shares">
                <Metric name="share_compute" label="compute" raw=raw(|r| r.shares.compute)
                    text=Signal::derive(move || units::percent(f(|r| r.shares.compute)()))/>
                <Metric name="share_memory" label="memory" raw=raw(|r| r.shares.memory)
                    text=Signal::derive(move || units::percent(f(|r| r.shares.memory)()))/>
                <Metric name="share_overhead" label="overhead" raw=raw(|r| r.shares.overhead)
                    text=Signal::derive(move || units::percent(f(|r| r.shares.overhead)()))/>
            </dl>
            <p class="advice">{move || advice(r.with(|r| r.regime))}</p>
            <p class="sr-only" aria-live="polite">{summary}</p>
        </div>
        <dl class="metrics">
            <Metric name="wall_time_s" label="Time per step" raw=raw(|r| r.wall_time_s)
                text=Signal::derive(move || units::si(f(|r| r.wall_time_s)(), "s"))
                note=Signal::derive(move || r.with(|r| format!("{} kernel launches", r.kernel_count)))/>
            <Metric name="achieved_flops" label="Achieved FLOP/s" raw=raw(|r| r.achieved_flops)
                text=Signal::derive(move || units::si(f(|r| r.achieved_flops)(), "FLOP/s"))
                note=Signal::derive(move || format!("{} of the matmul peak",
                    units::percent(f(|r| r.achieved_flops)() / m.get().matmul_flops)))/>
            <Metric name="achieved_bw" label="Achieved bandwidth" raw=raw(|r| r.achieved_bw)
                text=Signal::derive(move || units::si(f(|r| r.achieved_bw)(), "B/s"))
                note=Signal::derive(move || format!("{} of the memory roof",
                    units::percent(f(|r| r.achieved_bw)() / m.get().bw)))/>
            <Metric name="intensity" label="Arithmetic intensity" raw=raw(|r| r.intensity)
                text=Signal::derive(move || format!("{} FLOP/B", units::sig3(f(|r| r.intensity)())))
                note=Signal::derive(move || {
                    let m = m.get();
                    format!("ridge: {} (matmul), {} (pointwise)",
                        units::sig3(m.matmul_flops / m.bw), units::sig3(m.pointwise_flops / m.bw))
                })/>
        </dl>
        <table class="kernels">
            <caption>"Kernels in one step"</caption>
            <thead>
                <tr><th scope="col">"kernel"</th><th scope="col">"×"</th><th scope="col">"time each"</th>
                    <th scope="col">"intensity"</th><th scope="col">"bound by"</th></tr>
            </thead>
            <tbody>
                {move || r.with(|r| r.groups.iter().map(|g| {
                    let bound = match g.bound { Bound::Compute => "compute", Bound::Memory => "memory" };
                    view! {
                        <tr>
                            <td>{g.group.name}</td>
                            <td>{g.group.count}</td>
                            <td>{units::si(g.time, "s")}</td>
                            <td>{format!("{} FLOP/B", units::sig3(g.group.intensity()))}</td>
                            <td class=bound>{bound}</td>
                        </tr>
                    }
                }).collect_view())}
            </tbody>
        </table>
    }
}
