//! "Compare GPUs": a widget's current settings on every preset, one row
//! per preset, the model run once per preset and only while the table is open;
//! sortable by step time or throughput. Each row carries its raw figures in
//! `data-*`; the row of the current preset is marked, and a row whose state does
//! not fit in memory is hypothetical (italic).

use crate::model::units;
use crate::state::widgets::common::{compare, RowFn};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

pub use crate::state::widgets::common::Row;

#[derive(Clone, Copy, PartialEq)]
enum SortBy {
    Preset,
    Step,
    Rate,
}

/// The table, folded: `prefix` names its classes (`{prefix}-compare`), `rate`
/// its throughput column ("tokens/s"), `row` runs the widget's model for the
/// state on a preset's setting.
#[component]
pub fn CompareGpus(
    ctx: Ctx,
    prefix: &'static str,
    rate: &'static str,
    row: RowFn,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let sort = RwSignal::new(SortBy::Preset);
    let rows = Memo::new(move |_| {
        if !open.get() {
            return Vec::new();
        }
        ctx.view.with(|s| compare(s, row))
    });
    let memory = Memo::new(move |_| {
        rows.with(|r| {
            r.iter()
                .any(|x| x.1.as_ref().is_ok_and(|x| x.fit.is_some()))
        })
    });
    let current = Memo::new(move |_| ctx.state.with(|s| s.setting.hw.id));
    let head = move |by: SortBy, label: &'static str, dir: &'static str| {
        view! {
            <th scope="col" aria-sort=move || if sort.get() == by { dir } else { "none" }>
                <button class="small" data-sort=label on:click=move |_| sort.set(by)>{label}</button>
            </th>
        }
    };
    view! {
        <details class=format!("gpu-compare {prefix}-compare") on:toggle=move |ev| {
            open.set(event_target::<web_sys::Element>(&ev).has_attribute("open"));
        }>
            <summary>"Compare GPUs: these settings on every preset"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="The step on every GPU, scrollable">
                <table class=format!("kernels gpu-compare-table {prefix}-compare-table")>
                    <thead><tr>
                        {head(SortBy::Preset, "GPU", "other")}
                        {head(SortBy::Step, "step", "ascending")}
                        {head(SortBy::Rate, rate, "descending")}
                        {move || memory.get().then(|| view! { <th scope="col">"fits"</th><th scope="col">"largest batch"</th> })}
                        <th scope="col">"what limits it"</th>
                    </tr></thead>
                    <tbody>
                        {move || {
                            let mut v = rows.get();
                            // a preset that cannot run these settings sorts last
                            let key = |r: &Result<Row, String>, f: fn(&Row) -> f64| {
                                r.as_ref().map_or(f64::INFINITY, f)
                            };
                            match sort.get() {
                                SortBy::Preset => {}
                                SortBy::Step => v.sort_by(|a, b| key(&a.1, |r| r.step).total_cmp(&key(&b.1, |r| r.step))),
                                SortBy::Rate => v.sort_by(|a, b| key(&a.1, |r| -r.rate).total_cmp(&key(&b.1, |r| -r.rate))),
                            }
                            let cols = move || if memory.get() { 5 } else { 3 };
                            v.into_iter().map(|(p, r)| {
                                let r = match r {
                                    Ok(r) => r,
                                    Err(why) => return view! {
                                        <tr data-hw=p.id data-refused="1" class:current=move || current.get() == p.id>
                                            <th scope="row">{p.name}</th>
                                            <td class="refused" colspan=cols>{format!("Not run: {why}.")}</td>
                                        </tr>
                                    }.into_any(),
                                };
                                let fits = r.fit.is_none_or(|f| f.0);
                                view! {
                                    <tr data-hw=p.id data-step=r.step.to_string() data-rate=r.rate.to_string()
                                        data-fits=if fits { "1" } else { "0" } data-regime=r.regime.id()
                                        class:current=move || current.get() == p.id class:hypothetical=!fits>
                                        <th scope="row">{p.name}</th>
                                        <td>{units::si(r.step, "s")}</td>
                                        <td>{units::sig3(r.rate)}</td>
                                        {r.fit.map(|(ok, over, max)| view! {
                                            <td>{if ok { "yes".to_string() } else { format!("no (by {})", units::si(over, "B")) }}</td>
                                            <td>{max.map(|b| b.to_string()).unwrap_or_else(|| "–".into())}</td>
                                        })}
                                        <td>{r.regime.label()}</td>
                                    </tr>
                                }.into_any()
                            }).collect_view()
                        }}
                    </tbody>
                </table>
            </div>
            <p class="note">"Each GPU at its own numbers, on the roofs this widget uses, with its settings (a row that does not fit in memory is hypothetical, in italics; a GPU that cannot run them, such as fp8 weights on a GPU without fp8, is not run). The buttons sort by step time, fastest first, or by throughput, most first."</p>
        </details>
    }
}
