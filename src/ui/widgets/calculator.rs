//! Widget `calculator`: one operation — matmul, pointwise chain, row reduction or
//! attention — through the model on the explorer's hardware: FLOPs, bytes,
//! intensity, regime, time and achieved FLOP/s, and its kernels on a roofline.

use super::roofline::{Legend, RooflineData};
use crate::model::ops::{self};
use crate::model::timeline::RoofStep as Step;
use crate::model::units;
use crate::model::workload::RoofPoint;
use crate::state::widgets::calculator::{self as spec, field, CalcOp};
use crate::ui::chart::plot::{shared, PlotCanvas};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Select, Toggle};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

#[component]
pub fn Calculator(ctx: Ctx) -> impl IntoView {
    let op = Memo::new(move |_| ctx.view.with(|s| s.widgets.calculator.op));
    let result = Memo::new(move |_| {
        ctx.view.with(|s| {
            let m = s.machine();
            let (groups, summary) = spec::view(s);
            let points: Vec<RoofPoint> = groups.iter().map(|g| RoofPoint::of(g, &m)).collect();
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
                    link: None,
                },
            )
        })
    });
    let chart = Memo::new(move |_| result.with(|(_, d)| d.clone()));
    let row = |label: &'static str, f: fn(&ops::OpSummary) -> String| {
        view! { <div class="metric"><dt>{label}</dt><dd>{move || result.with(|(s, _)| f(s))}</dd></div> }
    };
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="calc-hw"/>
            <Select ctx=ctx field=field::op/>
        </div>
        <div class="calc-params">
            {move || match op.get() {
                CalcOp::Pointwise => view! {
                    <LogSlider ctx=ctx field=field::elems/>
                    <LogSlider ctx=ctx field=field::ops/>
                    <Toggle ctx=ctx flag=field::fused/>
                }.into_any(),
                CalcOp::Reduction => view! {
                    <Select ctx=ctx field=field::norm/>
                    <LogSlider ctx=ctx field=field::rows/>
                    <LogSlider ctx=ctx field=field::cols/>
                }.into_any(),
                CalcOp::Attention => view! {
                    <LogSlider ctx=ctx field=field::batch/>
                    <LogSlider ctx=ctx field=field::heads/>
                    <LogSlider ctx=ctx field=field::seq/>
                    <LogSlider ctx=ctx field=field::hd/>
                    <Toggle ctx=ctx flag=field::flash/>
                }.into_any(),
                CalcOp::Matmul => view! {
                    <LogSlider ctx=ctx field=field::m/>
                    <LogSlider ctx=ctx field=field::n/>
                    <LogSlider ctx=ctx field=field::k/>
                }.into_any(),
            }}
        </div>
        <p class="note">{move || ctx.view.with(|s| format!("On {} in {} (explorer's hardware and dtype).", s.hw_name(), s.setting.dtype.id()))}</p>
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
