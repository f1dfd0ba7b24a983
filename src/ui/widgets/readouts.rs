//! The explorer's key numbers (each a `data-metric` / `data-value` readout, a
//! public contract) and the per-kernel table.

use crate::model::{units, Bound, Level, Report, Unit};
use crate::ui::kit::Ctx;
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

#[component]
pub fn Readouts(ctx: Ctx) -> impl IntoView {
    let r = ctx.report;
    let m = Memo::new(move |_| ctx.view.with(|s| s.machine()));
    let f = move |get: fn(&Report) -> f64| move || r.with(get);
    let raw = |get: fn(&Report) -> f64| Signal::derive(move || r.with(get).to_string());
    let summary = move || {
        r.with(|r| {
            format!(
                "One step takes {} and attains {} and {}.",
                units::si(r.wall_time_s, "s"),
                units::si(r.achieved_flops, "FLOP/s"),
                units::si(r.achieved_bw, "B/s"),
            )
        })
    };

    view! {
        <dl class="metrics">
            <Metric name="wall_time_s" label="Time per step" raw=raw(|r| r.wall_time_s)
                text=Signal::derive(move || units::si(f(|r| r.wall_time_s)(), "s"))
                note=Signal::derive(move || r.with(|r| units::count(r.kernel_count, "kernel launch", "kernel launches")))/>
            <Metric name="achieved_flops" label="Achieved FLOP/s" raw=raw(|r| r.achieved_flops)
                text=Signal::derive(move || units::si(f(|r| r.achieved_flops)(), "FLOP/s"))
                note=Signal::derive(move || format!("{} of the matmul roof",
                    units::percent(m.get().of_matmul_roof(f(|r| r.achieved_flops)()))))/>
            <Metric name="achieved_bw" label="Achieved bandwidth" raw=raw(|r| r.achieved_bw)
                text=Signal::derive(move || units::si(f(|r| r.achieved_bw)(), "B/s"))
                note=Signal::derive(move || format!("{} of the {} roof",
                    units::percent(m.get().of_memory_roof(f(|r| r.achieved_bw)())),
                    if r.with(|r| r.levels.is_some()) { "HBM" } else { "memory" }))/>
            <Metric name="intensity" label="Arithmetic intensity" raw=raw(|r| r.intensity)
                text=Signal::derive(move || format!("{} FLOP/B", units::sig3(f(|r| r.intensity)())))
                note=Signal::derive(move || {
                    let m = m.get();
                    format!("ridge: {} (matmul), {} (pointwise)",
                        units::sig3(m.ridge(Unit::Matmul)), units::sig3(m.ridge(Unit::Pointwise)))
                })/>
        </dl>
        <p class="sr-only" aria-live="polite">{summary}</p>
        <table class="kernels">
            <caption>"Kernels in one step"</caption>
            <thead>
                <tr><th scope="col">"kernel"</th><th scope="col">"×"</th><th scope="col">"time each"</th>
                    <th scope="col">"intensity"</th><th scope="col">"bound by"</th></tr>
            </thead>
            <tbody>
                {move || r.with(|r| r.groups.iter().map(|g| {
                    let bound = match (g.bound, g.level) {
                        (Bound::Compute, _) => "compute",
                        (Bound::Memory, Level::Hbm) => "memory",
                        (Bound::Memory, Level::L2) => "memory (L2)",
                    };
                    view! {
                        <tr>
                            <td>{g.group.name}</td>
                            <td>{g.group.count}</td>
                            <td>{units::si(g.time, "s")}</td>
                            <td>{format!("{} FLOP/B", units::sig3(g.group.intensity()))}</td>
                            <td class=g.bound.id()>{bound}</td>
                        </tr>
                    }
                }).collect_view())}
            </tbody>
        </table>
    }
}
