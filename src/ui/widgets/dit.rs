//! Widget `dit`: a diffusion transformer's denoising step on the explorer's
//! hardware: attention vs MLP vs pointwise vs overhead and the roof each sits on,
//! what limits the step (`model::limit`), the
//! double-the-batch test, how the step moves with resolution, and what
//! FlashAttention, fusion and CUDA graphs each buy (`model::dit::advice`).

use super::scaling::label;
use crate::model::dit::{self, DitStep, DitView};
use crate::model::units;
use crate::state::widgets::dit::{self as spec, field};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Select, Toggle};
use crate::ui::kit::later::Later;
use crate::ui::kit::readout::{Lines, Readout};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// The split's parts: CSS class and words, in the bar's order.
const PARTS: &[(&str, &str)] = &[
    ("compute", "attention"),
    ("vector", "MLP"),
    ("memory", "pointwise"),
    ("overhead", "overhead"),
    ("comm", "communication"),
];

fn fractions(s: &dit::DitShares) -> [f64; 5] {
    [s.attention, s.mlp, s.pointwise, s.overhead, s.comm]
}

fn shares(st: &DitStep) -> Vec<(&'static str, &'static str, f64)> {
    PARTS
        .iter()
        .zip(fractions(&st.shares))
        .map(|(&(c, l), v)| (c, l, v))
        .collect()
}

/// The step on 1–8 sequence-parallel GPUs, drawn.
fn scaling_chart(r: &dit::DitRun, sc: &dit::DitScaling) -> super::scaling::Scaling {
    super::scaling::Scaling {
        parts: PARTS,
        points: sc
            .points
            .iter()
            .map(|(n, st)| super::scaling::Point {
                gpus: *n,
                wall: st.wall,
                parts: fractions(&st.shares).iter().map(|f| f * st.wall).collect(),
                fits: true,
            })
            .collect(),
        current: r.sp,
        stops: sc.stops_paying,
        link: r.link.name,
    }
}

#[component]
pub fn Dit(ctx: Ctx) -> impl IntoView {
    // the widget's one model call (`state::widgets::dit::view`): the step, the ratio, the
    // scaling sweep, the sentences and the by-resolution table, computed once
    // per change on the live path (its figures are readouts; off-screen only
    // they) and drawn held
    // while the widget is off-screen; the rest only reads its fields
    let live = ctx.live_drawn(spec::view);
    let v = ctx.held(live);
    let st = Memo::new(move |_| v.with(|v| v.step.clone()));
    let scale_chart = Memo::new(move |_| v.with(|v| scaling_chart(&v.step.run, &v.scaling)));
    // on one GPU the link's typed figures move nothing in the step: greyed out
    let link_off = Signal::derive(move || {
        live.with(|v| crate::state::widgets::common::link_off(v.step.run.sp))
    });
    let sentences = Memo::new(move |_| v.with(|v| v.sentences.clone()));
    let table = Memo::new(move |_| v.with(|v| v.by_resolution.clone()));
    let bar =
        move || {
            st.with(|st| {
                shares(st)
                .into_iter()
                .map(|(class, label, v)| view! {
                    <div class=format!("share {class}") style=format!("width:{:.3}%", 100.0 * v)
                        title=format!("{label}: {}", units::percent(v))></div>
                })
                .collect_view()
            })
        };
    let bar_label = move || {
        st.with(|st| {
            let l: Vec<String> = shares(st)
                .iter()
                .map(|(_, n, v)| format!("{n} {}", units::percent(*v)))
                .collect();
            format!("Where the denoising step's time goes: {}", l.join(", "))
        })
    };
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="dit-hw" range=crate::state::widgets::dit::range/>
            <Select ctx=ctx field=spec::MODEL/>
            <LogSlider ctx=ctx field=field::res/>
            <LogSlider ctx=ctx field=field::batch/>
            <Toggle ctx=ctx flag=field::flash/>
            <Toggle ctx=ctx flag=field::fused/>
            <Toggle ctx=ctx flag=field::graphs/>
            <Select ctx=ctx field=field::sp/>
            <Select ctx=ctx field=spec::LINK_SELECT/>
            <LogSlider ctx=ctx field=spec::LINK_BW off=link_off/>
            <LogSlider ctx=ctx field=spec::LINK_LAT off=link_off/>
        </div>
        <Later name="dit-readouts">
        <p class="note">
            {move || ctx.view.with(|s| {
                dit::advice::about(s.widgets.dit.model, st.with(|st| st.kernel_count), &s.hw_name(), s.beyond_roof_words())
            })}
        </p>
        <DitMetrics live=live/>
        </Later>
        <Later name="dit-advice">
        <super::compare::CompareGpus ctx=ctx prefix="dit" rate="samples/s" row=spec::compare_row/>
        <div class="share-bar" role="img" aria-label=bar_label>{bar}</div>
        <ul class="legend">
            <li><span class="swatch compute"></span>"attention (QKV, scores, projection)"</li>
            <li><span class="swatch vector"></span>"MLP"</li>
            <li><span class="swatch memory"></span>"pointwise (adaLN, residual, activation)"</li>
            <li><span class="swatch region overhead"></span>"overhead"</li>
            <li><span class="swatch comm"></span>{label::COMM_SWATCH}</li>
        </ul>
        <ul class="llm-advice" aria-live="polite">
            <Lines items=sentences/>
        </ul>
        </Later>
        <Later name="dit-scaling">
        <crate::ui::chart::plot::PlotCanvas ctx=ctx id="dit-scaling" data=crate::ui::chart::plot::shared(scale_chart)
            label=Signal::derive(move || scale_chart.with(|c| format!(
                "Time per denoising step against the sequence-parallel GPU count over {}, with its parts; {}.",
                c.link,
                c.stops.map(|g| format!("adding GPUs stops paying {}", crate::model::parallel::stops_words(Some(g)))).unwrap_or_else(|| "every doubling up to 8 pays".into()))))/>
        <p class="note">"The step on 1, 2, 4 and 8 GPUs, each holding its share of the tokens: black the time per step, the lines its parts as in the bar above, teal the time spent waiting on the other GPUs. A doubling that buys less than 1.1× no longer pays (dashed)."</p>
        </Later>
        <Later name="dit-table">
        <div class="table-scroll" tabindex="0" role="region" aria-label="The step by resolution, scrollable">
            <table class="kernels dit-res">
                <caption>{move || ctx.view.with(|s| format!("The step by {} (batch and switches as set)", s.widgets.dit.model.res_meaning().0))}</caption>
                <thead><tr><th scope="col">"resolution"</th><th scope="col">"tokens"</th><th scope="col">"step"</th>
                    <th scope="col">"attention"</th><th scope="col">"MLP"</th><th scope="col">"pointwise"</th><th scope="col">"overhead"</th></tr></thead>
                <tbody>
                    {move || table.get().into_iter().map(|r| view! {
                        <tr><th scope="row">{r.run.res}</th><td>{units::sig3(r.tokens)}</td><td>{units::si(r.wall, "s")}</td>
                            <td>{units::percent(r.shares.attention)}</td><td>{units::percent(r.shares.mlp)}</td>
                            <td>{units::percent(r.shares.pointwise)}</td><td>{units::percent(r.shares.overhead)}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        </Later>
        <Later name="dit-measured">
        {
            // the note changes with the model alone: found again only then
            let model = Memo::new(move |_| ctx.view.with(|s| s.widgets.dit.model));
            let said = Memo::new(move |_| crate::model::shapes::measured::dit_note(model.get()));
            move || said.get().map(|t| view! { <p class="note dit-measured">{t}</p> })
        }
        </Later>
    }
}

/// The step's figures, each a readout on the live path.
#[component]
fn DitMetrics(live: Memo<DitView>) -> impl IntoView {
    let ratio = move || live.with(|v| v.double_batch);
    let efficiency = move || live.with(|v| v.scaling.efficiency);
    let stops = move || live.with(|v| v.scaling.stops_paying);
    let readout = move |name: &'static str,
                        raw: fn(&DitStep) -> String,
                        text: fn(&DitStep) -> String| {
        view! { <Readout name=name raw=Signal::derive(move || live.with(|v| raw(&v.step))) text=Signal::derive(move || live.with(|v| text(&v.step)))/> }
    };
    view! {
        <dl class="metrics" aria-live="polite">
            <div class="metric"><dt>"Time per step"</dt><dd>{readout("dit_step_s", |s| s.wall.to_string(), |s| units::si(s.wall, "s"))}</dd></div>
            <div class="metric"><dt>"FLOPs per forward"</dt><dd>{readout("dit_flops", |s| s.flops.to_string(), |s| units::si(s.flops, "FLOP"))}</dd></div>
            <div class="metric"><dt>{label::LIMITS}</dt><dd>{readout("dit_regime", |s| s.regime.id().to_string(), |s| s.regime.label().to_string())}</dd>
                <dd class="note">"halve one cost: "
                    {readout("dit_speedup_flops2", |s| s.limit.flops2.to_string(), |s| format!("2× FLOP/s {}×", units::sig3(s.limit.flops2)))}", "
                    {readout("dit_speedup_bw2", |s| s.limit.bw2.to_string(), |s| format!("2× bandwidth {}×", units::sig3(s.limit.bw2)))}", "
                    {readout("dit_speedup_overhead_half", |s| s.limit.overhead_half.to_string(), |s| format!("half the CPU overhead {}×", units::sig3(s.limit.overhead_half)))}", "
                    {readout("dit_speedup_link2", |s| s.limit.link2.to_string(), |s| format!("2× link {}×", units::sig3(s.limit.link2)))}
                </dd></div>
            <div class="metric"><dt>{label::DOUBLE_BATCH}</dt><dd><Readout name="dit_double_batch_ratio" raw=Signal::derive(move || ratio().to_string())
                text=Signal::derive(move || units::sig3(ratio()))/></dd></div>
            <div class="metric"><dt>"Attention"</dt><dd>{readout("dit_share_attention", |s| s.shares.attention.to_string(), |s| units::percent(s.shares.attention))}</dd></div>
            <div class="metric"><dt>"MLP"</dt><dd>{readout("dit_share_mlp", |s| s.shares.mlp.to_string(), |s| units::percent(s.shares.mlp))}</dd></div>
            <div class="metric"><dt>"Pointwise"</dt><dd>{readout("dit_share_pointwise", |s| s.shares.pointwise.to_string(), |s| units::percent(s.shares.pointwise))}</dd></div>
            <div class="metric"><dt>"Overhead"</dt><dd>{readout("dit_share_overhead", |s| s.shares.overhead.to_string(), |s| units::percent(s.shares.overhead))}</dd></div>
            <div class="metric"><dt>{label::COMM_SHARE}</dt><dd>{readout("dit_comm_share", |s| s.shares.comm.to_string(), |s| units::percent(s.shares.comm))}</dd></div>
            <div class="metric"><dt>"Attention spread by"</dt><dd>{readout("dit_sp_kind", |s| format!("{:?}", dit::SpKind::of(&s.run)).to_lowercase(), |s| dit::SpKind::of(&s.run).words().to_string())}</dd></div>
            <div class="metric"><dt>{label::EFFICIENCY}</dt><dd><Readout name="dit_scaling_efficiency" raw=Signal::derive(move || efficiency().to_string())
                text=Signal::derive(move || units::percent(efficiency()))/></dd></div>
            <div class="metric"><dt>{crate::model::parallel::STOPS_LABEL}</dt><dd><Readout name="dit_sp_stops_paying" raw=Signal::derive(move || stops().map(|t| t.to_string()).unwrap_or_default())
                text=Signal::derive(move || crate::model::parallel::stops_words(stops()))/></dd></div>
        </dl>
    }
}
