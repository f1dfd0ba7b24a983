//! The roofline explorer, the essay's first widget.

use super::{controls, diagnosis, readouts, roofline};
use crate::ui::shell::later;
use crate::ui::Ctx;
use leptos::prelude::*;

/// The roofline explorer: controls, chart, diagnosis, key numbers. The chart is
/// built with the first screen; the controls (two groups), the diagnosis and the
/// readouts each in a task after it ([`later::Later`]): one long task split in five.
/// Three panels placed by CSS grid areas: controls beside the chart and the
/// breakdown on wide screens; on narrow ones the chart comes first and stays
/// pinned to the top of the viewport while the controls scroll under it, so a
/// slider and the chart it moves are on screen together.
#[component]
pub fn Explorer(ctx: Ctx) -> impl IntoView {
    view! {
        <div class="explorer">
            <section class="panel controls" aria-label="Hardware and workload">
                <controls::Controls ctx=ctx/>
            </section>
            <section class="panel figure explorer-chart" aria-label="Roofline">
                // on phones, the pinned chart's one-line answer (hidden on wide
                // screens, where the diagnosis sits beside the chart)
                <p class="explorer-headline">{move || ctx.report.with(|r| format!(
                    "The step is {}: {} per step",
                    r.regime.label(),
                    crate::model::units::si(r.wall_time_s, "s")
                ))}</p>
                <roofline::Roofline ctx=ctx/>
            </section>
            <section class="panel figure explorer-details" aria-label="Time breakdown">
                <later::Later><div id="diagnosis"><diagnosis::Diagnosis ctx=ctx/></div></later::Later>
                <later::Later><readouts::Readouts ctx=ctx/></later::Later>
            </section>
        </div>
    }
}
