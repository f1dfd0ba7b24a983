//! The lab's results as DOM: adapter and limits, headline readouts, notes and the
//! fused-vs-eager tables. Built with Leptos views from the pure words and numbers
//! of `gpu::table`, so values from the browser or an imported file are text nodes,
//! never HTML.

use crate::gpu::analysis::rows;
use crate::gpu::results::{AdapterInfo, Dt, LabRun, Op};
use crate::gpu::table::{self, Cells};
use crate::model::units;
use crate::ui::kit::readout::Readout;
use leptos::prelude::*;

#[component]
pub fn AdapterList(a: AdapterInfo) -> impl IntoView {
    view! {
        <dl class="lab-adapter">
            {table::adapter_items(&a)
                .into_iter()
                .enumerate()
                .map(|(i, (k, v))| {
                    view! {
                        <div>
                            <dt>{k}</dt>
                            <dd id=(i == 0).then_some("lab-adapter")>{v}</dd>
                        </div>
                    }
                })
                .collect_view()}
        </dl>
    }
}

/// A headline figure with the spread of the trials behind it ("12 GB/s ±3 %").
fn metric(
    label: &'static str,
    name: &'static str,
    raw: Option<f64>,
    spread: Option<f64>,
    unit: &'static str,
) -> impl IntoView {
    let text = raw.map_or("—".into(), |x| {
        table::and_spread(units::si(x, unit), spread)
    });
    let raw = raw
        .filter(|x| x.is_finite())
        .map(|x| x.to_string())
        .unwrap_or_default();
    view! {
        <div class="metric">
            <dt>{label}</dt>
            <dd><Readout name=name raw=Signal::stored(raw) text=Signal::stored(text)/></dd>
        </div>
    }
}

/// The headline readouts (always present, "—" without a run).
#[component]
pub fn LabMetrics(run: Option<LabRun>) -> impl IntoView {
    let s = table::summary_of(run.as_ref());
    let cross_raw = s
        .crossover
        .filter(|x| x.is_finite())
        .map(|x| x.to_string())
        .unwrap_or_default();
    let (cross, cross_note) = table::cross_text(&s);
    let sp = &s.spreads;
    view! {
        <dl class="metrics lab-metrics">
            {metric("Copy bandwidth (read + write)", "lab_copy_bw", s.copy_bw, sp.copy_bw, "B/s")}
            {metric("Compute ceiling (fma chain, FMA = 2 FLOP)", "lab_peak_flops", s.peak_flops.map(|p| p.0), sp.peak_flops, "FLOP/s")}
            {metric("x · m chain, at best", "lab_mul_rate", s.mul_rate.map(|p| p.0), None, " multiplies/s")}
            <div class="metric">
                <dt>"Crossover repeat"</dt>
                <dd><Readout name="lab_crossover_repeat" raw=Signal::stored(cross_raw)
                    text=Signal::stored(cross)/></dd>
                {cross_note.map(|n| view! { <dd class="note" id="lab-crossover-note">{n}</dd> })}
            </div>
            {metric("Per dispatch (empty kernel)", "lab_dispatch_s", s.dispatch, sp.dispatch, "s")}
            {metric("Per queue.submit", "lab_submit_s", s.submit, sp.submit, "s")}
            {metric("CPU to record a dispatch", "lab_encode_s", s.encode, sp.encode, "s")}
        </dl>
    }
}

/// Notes (outcome, reasons, failures) and one table per (dtype, op) measured.
#[component]
pub fn LabDetails(run: Option<LabRun>, running: bool) -> impl IntoView {
    let Some(r) = run else { return ().into_any() };
    let tables = Dt::ALL
        .into_iter()
        .flat_map(|dt| Op::ALL.into_iter().map(move |op| (dt, op)))
        .filter_map(|(dt, op)| {
            let rs = rows(&r, op, dt);
            if rs.is_empty() {
                return None;
            }
            let body = rs
                .iter()
                .map(|row| {
                    let (f, e) = (table::cells(row.fused), table::cells(row.eager));
                    let noisy = [&f, &e].iter().any(|c| matches!(c, Cells::Values(_, _, true)));
                    let (sp, sp_text) = table::speedup(row);
                    // interleaved: fused/eager time, FLOP/s, bandwidth
                    let cells: Vec<AnyView> =
                        split(f).into_iter().zip(split(e)).flat_map(|(a, b)| [td(a), td(b)]).collect();
                    view! {
                        <tr data-repeat=row.repeat data-speedup=sp.map(|s| s.to_string())
                            data-same-kernel=row.same_kernel().then_some("1")
                            data-noisy=noisy.then_some("1")>
                            <th scope="row">{row.repeat}</th>
                            {cells}
                            <td class="speedup">{sp_text}</td>
                        </tr>
                    }
                })
                .collect_view();
            Some(view! {
                <div class="table-scroll" tabindex="0" role="region"
                    aria-label=format!("Lab results, {} in {}, scrollable", op.label(), dt.id())>
                    <table class="lab-table" data-op=op.id() data-dt=dt.id()>
                        <caption><code>{op.label()}</code>" in "{dt.id()}": fused (one kernel) vs eager (one kernel per op); each time is the median of its trials, ± half their range"</caption>
                        <thead><tr>
                            <th scope="col">"repeat"</th><th scope="col">"fused time"</th><th scope="col">"eager time"</th>
                            <th scope="col">"fused FLOP/s"</th><th scope="col">"eager FLOP/s"</th>
                            <th scope="col">"fused bandwidth"</th><th scope="col">"eager bandwidth"</th>
                            <th scope="col">"fusion speedup"</th>
                        </tr></thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
            })
        })
        .collect_view();
    view! {
        <ul class="lab-notes" data-outcome=r.outcome.id()>
            {table::notes(&r, running).into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
        </ul>
        {tables}
    }
    .into_any()
}

/// One table cell: (class, title, text).
struct Cell(Option<&'static str>, Option<String>, String);

fn td(c: Cell) -> AnyView {
    view! { <td class=c.0 title=c.1>{c.2}</td> }.into_any()
}

fn split(c: Cells) -> [Cell; 3] {
    match c {
        Cells::Missing => std::array::from_fn(|_| Cell(None, None, "–".into())),
        Cells::Failed(d) => {
            std::array::from_fn(|_| Cell(Some("failed"), Some(d.clone()), "failed".into()))
        }
        Cells::Values([t, f, b], tip, noisy) => [
            Cell(noisy.then_some("noisy"), Some(tip), t),
            Cell(None, None, f),
            Cell(None, None, b),
        ],
    }
}
