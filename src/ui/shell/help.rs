//! How to read the explorer, with the model's formulas, and "Try this" hints whose
//! sentences the model writes for the current state (`state::hints`), each beside
//! a button that sets it up.

use crate::model::{hardware, roofline, units};
use crate::state::hints;
use crate::ui::chart::OnScreen;
use crate::ui::kit::Ctx;
use leptos::html::Section;
use leptos::prelude::*;

#[component]
pub fn Help(ctx: Ctx) -> impl IntoView {
    // only the sentences: a widget's own control changes every hint's target state
    // but not its text, and must not re-render the list; the target is rebuilt from
    // the live state at click time
    // keyed on what they read (the explorer alone): another widget's slider
    // moves nothing here
    // and, while the help is off the screen, a frame late, as a gated widget's
    // readouts are (`frame::late_off_screen`): an explorer slider pays nothing
    // here in its input's task, so the slider stays fast
    let section = NodeRef::<Section>::new();
    let read = super::frame::late_off_screen(
        Memo::new(move |_| ctx.state.with(crate::state::spec::hints_inputs)).into(),
        OnScreen::within(section, "0px"),
    );
    let hs = Memo::new(move |_| {
        read.with(|s| {
            hints::hints(s)
                .into_iter()
                .map(|h| (h.id, h.text))
                .collect::<Vec<_>>()
        })
    });
    // bf16 ridge of a preset, three significant digits
    let preset_ridge = |id: &str| {
        hardware::preset(id)
            .and_then(|h| h.bf16.map(|p| units::sig3(roofline::ridge(p, h.mem_bw))))
            .unwrap_or_default()
    };
    let (tpu_flops, tpu_bw) = roofline::TPU_V5E;
    let ridges = format!(
        "an A100 {} and an H100 {} FLOP/byte in bf16 (more in the hardware table); a TPU v5e \
         about {} ({} over {}, the JAX scaling book's figures)",
        preset_ridge("a100-40gb"),
        preset_ridge("h100-sxm"),
        units::sig3(roofline::ridge(tpu_flops, tpu_bw)),
        units::si(tpu_flops, "FLOP/s"),
        units::si(tpu_bw, "B/s"),
    );
    view! {
        <section node_ref=section class="panel help" id="how-to-read" aria-labelledby="help-title">
            <h2 id="help-title">"How to read this"</h2>
            <p>
                "A GPU step spends its time in three ways. "<b>"Compute"</b>": the arithmetic units "
                "do FLOPs (the factory). "<b>"Memory"</b>": bytes travel between DRAM and the cores "
                "(the trucks between warehouse and factory). "<b>"Overhead"</b>": the GPU waits while "
                "the CPU (Python, the framework, the driver) decides what to launch next (the "
                "instruction desk). The regime is the one whose halving shortens the step most: "
                "the page runs the model again with 2× FLOP/s, 2× bandwidth and half the CPU "
                "overhead, and names the largest speedup. Every kernel also costs at least a "
                "minimum GPU time (about 1 µs), counted with the overhead."
            </p>
            <h3>"The chart"</h3>
            <p>
                "The x axis is arithmetic intensity: FLOPs done per byte moved. The y axis is the "
                "FLOP/s a kernel can attain. Low-intensity kernels sit on the slanted memory roof "
                "(bandwidth × intensity); high-intensity kernels hit a flat ceiling. Matmuls use "
                "tensor cores (the high ceiling); pointwise ops use the general units at the "
                "plain-multiply rate (the low one). Dots are kernels; the cross is the whole step "
                "including the time the GPU sat idle, so a cross far below the dots means overhead."
            </p>
            <h3>"The model"</h3>
            <ul class="formulas">
                <li><code>"kernel time = max(FLOPs / ceiling, bytes / bandwidth)"</code></li>
                <li><code>"intensity = FLOPs / bytes;  ridge = ceiling / bandwidth"</code></li>
                <li><code>"matmul x[B,D]·W[D,D]: 2·B·D² FLOPs, (2·B·D + D²)·bytes-per-element bytes"</code></li>
                <li><code>"pointwise chain of n ops on N elements: eager = n kernels of N FLOPs and 2·N elements moved; fused = 1 kernel of n·N FLOPs and 2·N elements moved"</code></li>
                <li><code>"CPU issues kernel i at (i+1)·overhead; GPU starts it at max(issued, previous done)"</code></li>
                <li><code>"shares: compute = Σ compute-bound kernel time / wall; memory = Σ memory-bound kernel time / wall; overhead = GPU idle / wall"</code></li>
                <li><code>"LLM: KV cache per sequence = 2 · layers · KV heads · head dim · context · bytes; a decode step reads every weight once for the whole batch"</code></li>
                <li><code>"LLM: critical batch ≈ ridge × bytes per weight ÷ 2 (× experts ÷ experts per token for a mixture of experts)"</code></li>
                <li><code>"DiT block: 12·T·h² + 2·B·N²·h multiply-adds for T = B·N tokens of width h"</code></li>
            </ul>
            <p>
                "The peak slider sets the matmul ceiling; the pointwise ceiling scales with it "
                "(half the preset's fp32 FMA rate, e.g. 9.75 TFLOP/s on an A100). Pointwise ops "
                "compute in fp32 whatever the storage dtype, so the dtype changes their bytes, not "
                "their ceiling. Per-kernel overhead defaults to 1 / "
                {units::grouped(crate::model::overhead::PYTORCH_OPS_PER_S)}
                " s, the rate at which PyTorch issues tiny ops."
            </p>
            <p>
                "Ridge points to compare: "{ridges}". Above its ridge a kernel can keep the compute "
                "units busy; below it the memory sets the pace."
            </p>
            <h3>"Try this"</h3>
            <p class="note">"What the model predicts from the current state; the buttons set it up."</p>
            <ol class="hints">
                {move || hs.with(|hs| hs.iter().map(|(id, text)| {
                    let id = *id;
                    let apply = move |_| {
                        let target = ctx.state.with_untracked(|s| {
                            hints::hints(s).into_iter().find(|h| h.id == id).map(|h| h.target)
                        });
                        if let Some(t) = target {
                            ctx.state.set(t);
                        }
                    };
                    view! {
                        <li data-hint=id>
                            {text.clone()}" "
                            <button class="small" data-try=id on:click=apply>"Try it"</button>
                        </li>
                    }
                }).collect_view())}
            </ol>
        </section>
    }
}
