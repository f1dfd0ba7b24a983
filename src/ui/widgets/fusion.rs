//! Widget `fusion`: `x.cos().cos()` and any chain of n pointwise ops — memory
//! accesses per element eager (2n) vs fused (2), bytes, predicted time each way and
//! the speedup, on the tensor and hardware of the explorer.

use crate::model::units;
use crate::state::widgets::fusion::{self as spec, field};
use crate::ui::kit::controls::{GpuPicker, LogSlider};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

#[component]
pub fn Fusion(ctx: Ctx) -> impl IntoView {
    // the widget's one model call (`state::widgets::fusion::view`), once per change on the
    // live path (the speedups are readouts); the comparison is drawn held
    let live = ctx.live(spec::view);
    let speedup = Memo::new(move |_| live.with(|v| v.compare.speedup()));
    let held = ctx.held(live);
    let cmp = Memo::new(move |_| held.with(|v| v.compare.clone()));
    let remat = Memo::new(move |_| live.with(|v| v.remat.clone()));
    let code = move || crate::model::fusion::chain_code(cmp.with(|c| c.ops));
    let trips = move || {
        let n = cmp.with(|c| c.ops).min(8);
        (0..n)
            .map(|i| view! { <span class="trip" title=format!("op {}: read + write", i + 1)>"R W"</span> })
            .collect_view()
    };
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="fusion-hw"/>
            <LogSlider ctx=ctx field=field::n/>
        </div>
        <p class="code"><code>{code}</code>" on "{move || ctx.view.with(|s| format!("{} × {} {} elements", s.setting.shape.batch, s.setting.shape.hidden, s.setting.dtype.id()))}</p>
        <div class="compare">
            <div class="side eager">
                <h4>"Eager: one kernel per op"</h4>
                <p class="trips">{trips}{move || (cmp.with(|c| c.ops) > 8).then_some("…")}</p>
                <dl>
                    <dt>"accesses per element"</dt><dd>{move || cmp.with(|c| c.eager_accesses)}</dd>
                    <dt>"bytes moved"</dt><dd>{move || units::si(cmp.with(|c| c.eager_bytes), "B")}</dd>
                    <dt>"kernels"</dt><dd>{move || cmp.with(|c| c.eager_kernels)}</dd>
                    <dt>"time"</dt><dd>{move || units::si(cmp.with(|c| c.eager_time), "s")}</dd>
                    <dt>"regime"</dt><dd>{move || cmp.with(|c| c.eager_regime.label())}</dd>
                </dl>
            </div>
            <div class="side fused">
                <h4>"Fused: one kernel"</h4>
                <p class="trips"><span class="trip">"R"</span>" cos…cos in registers "<span class="trip">"W"</span></p>
                <dl>
                    <dt>"accesses per element"</dt><dd>{move || cmp.with(|c| c.fused_accesses)}</dd>
                    <dt>"bytes moved"</dt><dd>{move || units::si(cmp.with(|c| c.fused_bytes), "B")}</dd>
                    <dt>"kernels"</dt><dd>{move || cmp.with(|c| c.fused_kernels)}</dd>
                    <dt>"time"</dt><dd>{move || units::si(cmp.with(|c| c.fused_time), "s")}</dd>
                    <dt>"regime"</dt><dd>{move || cmp.with(|c| c.fused_regime.label())}</dd>
                </dl>
            </div>
        </div>
        <p class="big" aria-live="polite">
            "Fusion speedup: "
            <Readout name="fusion_speedup"
                raw=Signal::derive(move || speedup.get().to_string())
                text=Signal::derive(move || format!("{}×", units::sig3(speedup.get())))/>
        </p>
        <p class="note">
            {move || cmp.with(|c| c.note())}
            "While the chain is memory-bound, the extra cosines ride along for free: a fused chain of "
            "two costs what one costs, which is why an activation like GELU costs about what ReLU does. "
            "The same logic makes recomputing cheap values faster than saving and reloading them:"
        </p>
        <p class="remat">
            {move || remat.with(|r| r.words().0)}
            <Readout name="remat_speedup" raw=Signal::derive(move || remat.with(|r| r.speedup().to_string()))
                text=Signal::derive(move || remat.with(|r| r.words().1))/>
            {move || remat.with(|r| r.words().2)}
        </p>
    }
}
