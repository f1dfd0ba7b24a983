//! Widget `calculator`: one operation — matmul, pointwise chain, row reduction or
//! attention — through the model on the explorer's hardware: FLOPs, bytes,
//! intensity, regime, time and achieved FLOP/s, and its kernels on a roofline.

use super::controls::{Choice, LogSlider, Toggle};
use super::plot::{shared, PlotCanvas};
use super::roofline::{Legend, Point, RooflineData, Step};
use super::Ctx;
use crate::model::ops::{self, Attention, Reduction};
use crate::model::{units, KernelGroup};
use crate::state::{fields, State};
use leptos::prelude::*;

const OPS: [(&str, &str); 4] = [
    ("matmul", "matmul [M,K] × [K,N]"),
    ("pointwise", "pointwise chain"),
    ("reduction", "row reduction (layernorm / softmax)"),
    ("attention", "attention"),
];
const NORMS: [(&str, &str); 2] = [("layernorm", "layernorm"), ("softmax", "softmax")];

fn kernels(s: &State) -> Vec<KernelGroup> {
    let w = &s.widgets;
    let b = s.dtype.bytes();
    match w.calc {
        1 => ops::pointwise_chain(w.calc_ops, f64::from(w.calc_elems), b, w.calc_fused),
        2 => {
            let kind = if w.calc_norm == 1 {
                Reduction::Softmax
            } else {
                Reduction::LayerNorm
            };
            ops::row_reduction(kind, w.calc_rows, w.calc_cols, b)
        }
        3 => {
            let kind = if w.calc_flash {
                Attention::Flash
            } else {
                Attention::Naive
            };
            ops::attention(w.calc_batch, w.calc_heads, w.calc_seq, w.calc_hd, b, kind)
        }
        _ => ops::matmul(w.calc_m, w.calc_n, w.calc_k, b),
    }
}

#[component]
pub fn Calculator(ctx: Ctx) -> impl IntoView {
    let op = Memo::new(move |_| ctx.view.with(|s| s.widgets.calc));
    let result = Memo::new(move |_| {
        ctx.view.with(|s| {
            let m = s.machine();
            let groups = kernels(s);
            let summary = ops::summarize(&groups, &m);
            let points: Vec<Point> = groups
                .iter()
                .map(|g| {
                    let (t, bound) = g.time(&m);
                    Point {
                        name: g.name,
                        intensity: g.intensity(),
                        flops: g.flops / t,
                        time: t,
                        count: g.count,
                        unit: g.unit,
                        bound,
                    }
                })
                .collect();
            let step = Some(Step {
                intensity: summary.intensity,
                flops: summary.achieved_flops,
                time: summary.time,
                regime: summary.regime,
            });
            (
                summary,
                RooflineData {
                    m,
                    kernels: points,
                    step,
                    measured: None,
                },
            )
        })
    });
    let chart = Memo::new(move |_| result.with(|(_, d)| d.clone()));
    let row = |label: &'static str, f: fn(&ops::OpSummary) -> String| {
        view! { <div class="metric"><dt>{label}</dt><dd>{move || result.with(|(s, _)| f(s))}</dd></div> }
    };
    view! {
        <Choice ctx=ctx id="calc" label="Operation" options=&OPS get=|s| s.widgets.calc set=|s, v| s.widgets.calc = v/>
        <div class="calc-params">
            {move || match op.get() {
                1 => view! {
                    <LogSlider ctx=ctx field=fields::CALC_ELEMS/>
                    <LogSlider ctx=ctx field=fields::CALC_OPS/>
                    <Toggle ctx=ctx id="calc_fused" label="fused into one kernel"
                        get=|s| s.widgets.calc_fused set=|s, v| s.widgets.calc_fused = v/>
                }.into_any(),
                2 => view! {
                    <Choice ctx=ctx id="calc_norm" label="Kind" options=&NORMS
                        get=|s| s.widgets.calc_norm set=|s, v| s.widgets.calc_norm = v/>
                    <LogSlider ctx=ctx field=fields::CALC_ROWS/>
                    <LogSlider ctx=ctx field=fields::CALC_COLS/>
                }.into_any(),
                3 => view! {
                    <LogSlider ctx=ctx field=fields::CALC_BATCH/>
                    <LogSlider ctx=ctx field=fields::CALC_HEADS/>
                    <LogSlider ctx=ctx field=fields::CALC_SEQ/>
                    <LogSlider ctx=ctx field=fields::CALC_HD/>
                    <Toggle ctx=ctx id="calc_flash" label="fused (FlashAttention-style): scores stay on chip"
                        get=|s| s.widgets.calc_flash set=|s, v| s.widgets.calc_flash = v/>
                }.into_any(),
                _ => view! {
                    <LogSlider ctx=ctx field=fields::CALC_M/>
                    <LogSlider ctx=ctx field=fields::CALC_N/>
                    <LogSlider ctx=ctx field=fields::CALC_K/>
                }.into_any(),
            }}
        </div>
        <p class="note">{move || ctx.view.with(|s| format!("On {} in {} (explorer's hardware and dtype).", s.hw_name(), s.dtype.id()))}</p>
        <dl class="metrics calc-results" aria-live="polite">
            {row("FLOPs", |s| units::si(s.flops, "FLOP"))}
            {row("bytes moved", |s| units::si(s.bytes, "B"))}
            {row("intensity", |s| format!("{} FLOP/B", units::sig3(s.intensity)))}
            {row("time", |s| units::si(s.time, "s"))}
            {row("achieved", |s| units::si(s.achieved_flops, "FLOP/s"))}
            {row("regime", |s| format!("{} ({})", s.regime.label(), units::count(s.kernel_count, "kernel", "kernels")))}
        </dl>
        <PlotCanvas ctx=ctx id="calculator-canvas" data=shared(chart)
            label=Signal::derive(move || result.with(|(s, _)| format!("Roofline with this operation's kernels; it is {}.", s.regime.label())))/>
        <Legend ctx=ctx/>
    }
}
