//! Widget `bert`: FLOPs are not time. BERT-base counted by operator class — tensor
//! contractions, statistical normalisations, element-wise ops — with each class's
//! share of FLOPs against its predicted share of GPU time on the explorer's
//! hardware, eager or fused, beside the shares Ivanov et al. measured.

use crate::model::bert::{self, ByClass, OpClass, IVANOV_2020};
use crate::model::reference::h100;
use crate::model::units;
use crate::state::widgets::bert::{self as spec, field};
use crate::ui::chart::palette::{self, bg};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Toggle};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

fn pct(v: f64) -> String {
    if v < 0.01 {
        format!("{:.2} %", v * 100.0)
    } else {
        format!("{:.1} %", v * 100.0)
    }
}

/// A stacked bar of three class shares.
fn stacked(shares: ByClass, label: String) -> impl IntoView {
    view! {
        <div class="share-bar" role="img" aria-label=label>
            <div class="share compute" style=format!("width:{:.3}%", shares.tensor * 100.0)></div>
            <div class="share vector" style=format!("width:{:.3}%", shares.norm * 100.0)></div>
            <div class="share memory" style=format!("width:{:.3}%", shares.elementwise * 100.0)></div>
        </div>
    }
}

#[component]
pub fn Bert(ctx: Ctx) -> impl IntoView {
    // the widget's one model call (`state::widgets::bert::view`), once per change on the
    // live path (its shares are readouts), drawn held while off-screen
    let live_view = ctx.live(spec::view);
    let held = ctx.held(live_view);
    let prof = Memo::new(move |_| held.with(|v| v.profile.clone()));
    let runtime = Memo::new(move |_| held.with(|v| v.runtime));
    let live = Memo::new(move |_| live_view.with(|v| v.runtime));
    let flop = Memo::new(move |_| held.with(|v| v.flop));
    let slow = Memo::new(move |_| held.with(|v| v.slowdown));
    let share_readout = move |name: &'static str, c: OpClass| {
        view! {
            <Readout name=name raw=Signal::derive(move || live.get().get(c).to_string())
                text=Signal::derive(move || pct(live.get().get(c)))/>
        }
    };
    let essay_slowdown = |c: OpClass| match c {
        OpClass::TensorContraction => "1×".to_string(),
        OpClass::StatNormalization => format!("~{}×", bert::ESSAY_NORM_SLOWDOWN),
        OpClass::ElementWise => format!("~{}×", bert::ESSAY_ELEMENTWISE_SLOWDOWN),
    };
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="bert-hw"/>
            <LogSlider ctx=ctx field=field::batch/>
            <LogSlider ctx=ctx field=field::seq/>
            <Toggle ctx=ctx flag=field::fused/>
        </div>
        <p class="note">
            {move || ctx.view.with(|s| format!(
                "BERT-base forward pass (12 layers, hidden 768, FFN 3072, 12 heads) on {} in {}; {}, {} per step.{}",
                s.hw_name(), s.setting.dtype.id(), prof.with(|p| units::count(p.kernel_count, "kernel", "kernels")), units::si(prof.with(|p| p.wall), "s"),
                if s.setting.hw.is_measured() && s.setting.hw.base().is_none() {
                    " The lab measures fp32 only, so matmuls here run on the measured fp32 units: this GPU's tensor cores, if it has any, are unknown."
                } else { "" }))}
        </p>
        <div class="bert-bars headline">
            <p>"Share of FLOPs (model)"</p>
            {move || stacked(flop.get(), format!("FLOP shares: matmul {}, normalisation {}, element-wise {}",
                pct(flop.get().tensor), pct(flop.get().norm), pct(flop.get().elementwise)))}
            <p>{move || if prof.with(|p| p.fused) { "Share of GPU time (model, fused)" } else { "Share of GPU time (model, eager)" }}</p>
            {move || stacked(runtime.get(), format!("GPU time shares: matmul {}, normalisation {}, element-wise {}",
                pct(runtime.get().tensor), pct(runtime.get().norm), pct(runtime.get().elementwise)))}
            <p>"Share of time measured by Ivanov et al. (PyTorch, eager)"</p>
            {stacked(IVANOV_2020.runtime, "Measured runtime shares: matmul 61 %, normalisation 25.5 %, element-wise 13.5 %".into())}
            <p>{format!(
                "Share of GPU kernel time measured on an {} ({}; {}): training step, fp16 autocast, eager attention; the GPU was busy only {} of the wall time",
                h100::SOURCE.machine, h100::SOURCE.date, h100::SOURCE.software, pct(h100::BERT_TRAIN_GPU_BUSY))}</p>
            {{
                let m = bert::h100_2026();
                view! { <div data-measured="h100-bert">{stacked(m, format!(
                    "Measured H100 kernel-time shares: matmul {}, normalisation {}, element-wise {}",
                    pct(m.tensor), pct(m.norm), pct(m.elementwise)))}</div> }
            }}
            <ul class="legend">
                <li><span class="swatch" style=bg(palette::COMPUTE)></span>"tensor contractions (matmuls)"</li>
                <li><span class="swatch" style=bg(palette::VECTOR)></span>"normalisations (layernorm, softmax)"</li>
                <li><span class="swatch" style=bg(palette::MEMORY)></span>"element-wise (bias, GELU, dropout, residual)"</li>
            </ul>
        </div>
        <div class="table-scroll" tabindex="0" role="region" aria-label="BERT operator classes, scrollable">
            <table class="bert-table">
                <thead>
                    <tr>
                        <th scope="col">"operator class"</th>
                        <th scope="col">"% FLOPs (model / measured)"</th>
                        <th scope="col">"% GPU time (model / Ivanov 2020 / H100 2026)"</th>
                        <th scope="col">"FLOP/s below matmul (model / essay)"</th>
                    </tr>
                </thead>
                <tbody>
                    {OpClass::ALL.into_iter().map(|c| {
                        let name = match c {
                            OpClass::TensorContraction => "bert_runtime_share_matmul",
                            OpClass::StatNormalization => "bert_runtime_share_norm",
                            OpClass::ElementWise => "bert_runtime_share_pointwise",
                        };
                        view! {
                            <tr>
                                <th scope="row">{c.label()}</th>
                                <td>{move || pct(flop.get().get(c))}" / "{pct(IVANOV_2020.flop.get(c))}</td>
                                <td>{share_readout(name, c)}" / "{pct(IVANOV_2020.runtime.get(c))}" / "{pct(bert::h100_2026().get(c))}</td>
                                <td>{move || format!("{}×", units::sig3(slow.get().get(c)))}" / "{essay_slowdown(c)}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <p class="note" aria-live="polite">
            {move || format!(
                "Matmuls are {} of the FLOPs but only {} of the predicted time: the rest goes to ops that do \
                 almost no arithmetic but still move every activation through memory. Our roofline model lets \
                 matmuls hit their peak and ignores kernel inefficiencies, so it differs from the measured split; \
                 the direction is the same.",
                pct(flop.get().tensor), pct(runtime.get().tensor))}
        </p>
    }
}
