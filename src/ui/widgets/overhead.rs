//! Widget `overhead`: the CPU lane issuing kernels (Python, framework dispatch,
//! launch) and the GPU lane running them, simulated for the explorer's workload;
//! GPU-Util, the double-the-batch diagnostic, and remedy toggles.

use crate::model::overhead::{self, CpuPart, OverheadRun, OverheadView};
use crate::model::reference::h100;
use crate::model::{units, Bound};
use crate::state::widgets::overhead::{self as spec, field};
use crate::ui::chart::palette::{self, bg, rgb};
use crate::ui::chart::plot::{csv, plot_with, shared, Plot, PlotCanvas};
use crate::ui::chart::{Area, Look};
use crate::ui::kit::controls::{GpuPicker, Toggle};
use crate::ui::kit::later::Later;
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

const PYTHON: RGBColor = rgb(palette::GREEN);
const DISPATCH: RGBColor = rgb(palette::YELLOW);
const LAUNCH: RGBColor = rgb(palette::RED);

#[component]
pub fn Overhead(ctx: Ctx) -> impl IntoView {
    // The widget's one model call (`state::widgets::overhead::view`): the simulated step,
    // the double-batch ratio, what limits it and the one add, computed once per
    // change on the live path (GPU-Util and the regime are readouts); the chart
    // and the flamegraph draw it held while off-screen.
    let live = ctx.live(spec::view);
    let held = ctx.held(live);
    let data = Memo::new(move |_| held.with(|v| Lanes(v.run.clone())));
    let util = Memo::new(move |_| live.with(|v| v.run.gpu_util()));
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="overhead-hw"/>
            <Toggle ctx=ctx flag=field::graphs/>
            <Toggle ctx=ctx flag=field::compiled/>
            <Toggle ctx=ctx flag=field::cpp/>
        </div>
        <PlotCanvas ctx=ctx id="overhead-canvas" data=shared(data)
            label=Signal::derive(move || format!("Timeline: the GPU is busy {} of the step; the rest it waits for the CPU.", units::percent(util.get())))/>
        <ul class="legend">
            <li><span class="swatch" style=bg(palette::GREEN)></span>"Python"</li>
            <li><span class="swatch" style=bg(palette::YELLOW)></span>"framework dispatch"</li>
            <li><span class="swatch" style=bg(palette::RED)></span>"kernel launch"</li>
            <li><span class="swatch compute"></span>"GPU kernel on the compute roof"</li>
            <li><span class="swatch memory"></span>"GPU kernel on the memory roof"</li>
        </ul>
        <Later name="overhead-readouts">
        <OverheadReadouts live=live held=held data=data util=util/>
        </Later>
        <Later name="overhead-notes">
        <OverheadFlamegraph live=live held=held/>
        <p class="note">
            "Python manages about 32 million simple operations a second; in the time of one, this GPU could do "
            {move || held.with(|v| units::si(v.python_flops, "FLOP"))}" of arithmetic. PyTorch issues roughly "
            {format!("{:.0}", overhead::PYTORCH_OPS_PER_S / 1e3)}
            " thousand tiny ops a second. "
            "The split of each launch into Python, dispatch and launch time is illustrative: only the totals are measured."
        </p>
        <MeasuredOverhead ctx=ctx/>
        <p class="note">
            "In practice: tracing ("<code>"torch.jit.trace"</code>", "<code>"torch.fx"</code>", "<code>"jax.jit"</code>") "
            "records the ops once so Python leaves the loop; CUDA graphs replay a recorded launch sequence in one "
            "launch; a real JIT compiler such as TorchDynamo ("<code>"torch.compile"</code>") also fuses the chain "
            "into fewer kernels."
        </p>
        </Later>
    }
}

/// GPU-Util, what limits the step, the double-the-batch test and the step's time.
#[component]
fn OverheadReadouts(
    live: Memo<OverheadView>,
    held: Memo<OverheadView>,
    data: Memo<Lanes>,
    util: Memo<f64>,
) -> impl IntoView {
    let ratio = Memo::new(move |_| live.with(|v| v.double_batch));
    let limit = Memo::new(move |_| live.with(|v| v.limit));
    let limit_text = move || {
        limit.with(|l| {
            let h = crate::model::limit::Limit::halving(l.regime);
            format!(
                "{} ({} alone buys {}×)",
                l.regime.label(),
                h.words(),
                units::sig3(l.speedup(h))
            )
        })
    };
    view! {
        <dl class="metrics" aria-live="polite">
            <div class="metric">
                <dt>"GPU-Util (share of time a kernel runs)"</dt>
                <dd><Readout name="gpu_util" raw=Signal::derive(move || util.get().to_string())
                    text=Signal::derive(move || units::percent(util.get()))/></dd>
                <dd class="note">"what nvidia-smi reports: 100 % only says the GPU is never idle, not that it is fast"</dd>
            </div>
            <div class="metric">
                <dt>"What limits this step"</dt>
                <dd><Readout name="overhead_regime" raw=Signal::derive(move || limit.with(|l| l.regime.id().to_string()))
                    text=Signal::derive(limit_text)/></dd>
                <dd class="note">"the cost whose halving shortens the step most, as the diagnosis decides"</dd>
            </div>
            <div class="metric">
                <dt>{super::scaling::label::DOUBLE_BATCH}</dt>
                <dd><Readout name="double_batch_ratio" raw=Signal::derive(move || ratio.get().to_string())
                    text=Signal::derive(move || units::sig3(ratio.get()))/></dd>
                // the quick test read against what limits the step (where they
                // part ways, why): `model::limit::doubling`
                <dd class="note" id="double-batch-words">{move || held.with(|v| v.doubling.clone())}</dd>
            </div>
            <div class="metric">
                <dt>"Time per step"</dt>
                <dd>{move || units::si(data.with(|r| r.0.wall()), "s")}</dd>
                <dd class="note">{move || data.with(|r| format!("{}, CPU busy {}", units::count(r.0.kernel_count, "kernel", "kernels"), units::si(r.0.cpu_time(), "s")))}</dd>
            </div>
        </dl>
    }
}

/// The essay's flamegraph of one tiny `a + b`: the CPU's parts and the add
/// itself. Its compute share is a readout (live); the bars and their sentence
/// draw it held.
#[component]
fn OverheadFlamegraph(live: Memo<OverheadView>, held: Memo<OverheadView>) -> impl IntoView {
    let one_add = Memo::new(move |_| live.with(|v| v.one_add));
    let one_add_drawn = Memo::new(move |_| held.with(|v| v.one_add));
    let flame = move || {
        let op = one_add_drawn.get();
        let total = op.cpu.total() + op.kernel;
        let pct = |t: f64| if total > 0.0 { 100.0 * t / total } else { 0.0 };
        let parts = [
            ("python", CpuPart::Python.label(), op.cpu.python),
            ("dispatch", CpuPart::Dispatch.label(), op.cpu.dispatch),
            ("launch", CpuPart::Launch.label(), op.cpu.launch),
            ("add", "the add itself (GPU)", op.kernel),
        ];
        parts
            .into_iter()
            .map(|(class, label, t)| {
                view! {
                    <div class=format!("flame {class}") style=format!("width:{:.3}%", pct(t))
                        title=format!("{label}: {}", units::si(t, "s"))></div>
                }
            })
            .collect_view()
    };
    let flame_text = move || {
        let op = one_add_drawn.get();
        format!(
            "One a + b on {} numbers: the CPU spends {} deciding and launching it; the add itself takes {} on the GPU, ",
            units::words(overhead::ONE_ADD_ELEMENTS),
            units::si(op.cpu.total(), "s"),
            units::si(op.kernel, "s"),
        )
    };
    let share = Signal::derive(move || one_add.get().compute_share());
    let flame_label = move || {
        let drawn = one_add_drawn.with(|op| op.compute_share());
        format!("{}{} of the op.", flame_text(), units::percent(drawn))
    };
    view! {
        <figure class="flamegraph">
            <div class="flame-bar" role="img" aria-label=flame_label>{flame}</div>
            <figcaption class="note">
                {flame_text}
                <Readout name="add_compute_share" raw=Signal::derive(move || share.get().to_string())
                    text=Signal::derive(move || units::percent(share.get()))/>
                " of the op: the sliver at the right end of the bar. The rest is overhead (the essay's flamegraph)."
            </figcaption>
        </figure>
    }
}

/// Measured per-op costs on an H100 beside the model's.
#[component]
fn MeasuredOverhead(ctx: Ctx) -> impl IntoView {
    view! {
        <table class="measured-overhead" data-measured="h100-overhead">
            <caption>{format!("Measured per-op costs on an {} ({}; {}), beside the model's", h100::SOURCE.machine, h100::SOURCE.date, h100::SOURCE.software)}</caption>
            <thead><tr><th scope="col">"what"</th><th scope="col">"measured"</th><th scope="col">"model"</th></tr></thead>
            <tbody>
                <tr><th scope="row">"one tiny eager PyTorch op (CPU)"</th>
                    <td data-value=h100::EAGER_TINY_OP_S.to_string()>{units::si(h100::EAGER_TINY_OP_S, "s")}</td>
                    <td>{move || format!("{} (the slider; the essay's {:.0} K ops/s is {})", units::si(ctx.view.with(|s| s.setting.overhead), "s"), overhead::PYTORCH_OPS_PER_S / 1e3, units::si(1.0 / overhead::PYTORCH_OPS_PER_S, "s"))}</td></tr>
                <tr><th scope="row">"one tiny kernel inside a replayed CUDA graph"</th>
                    <td data-value=h100::CUDA_GRAPH_TINY_KERNEL_S.to_string()>{units::si(h100::CUDA_GRAPH_TINY_KERNEL_S, "s")}</td>
                    <td>"0 (the model charges one launch per graph, nothing per kernel)"</td></tr>
                <tr><th scope="row">"one empty WebGPU dispatch inside a compute pass (GPU)"</th>
                    <td data-value=h100::WEBGPU_EMPTY_DISPATCH_S.to_string()>{units::si(h100::WEBGPU_EMPTY_DISPATCH_S, "s")}</td>
                    <td>"not modelled (the lab measures it on your GPU)"</td></tr>
            </tbody>
        </table>
    }
}

/// The two lanes of one simulated step.
#[derive(Clone, PartialEq)]
struct Lanes(OverheadRun);

impl Plot for Lanes {
    fn height(&self, w: f64) -> f64 {
        (w * if w < 560.0 { 0.5 } else { 0.2 }).clamp(150.0, 220.0)
    }
    plot_with!(render);
    fn csv(&self) -> String {
        let mut rows: Vec<Vec<String>> = self
            .0
            .cpu
            .iter()
            .map(|s| {
                vec![
                    "cpu".into(),
                    s.part.label().into(),
                    s.start.to_string(),
                    s.end.to_string(),
                ]
            })
            .collect();
        rows.extend(self.0.timeline.spans.iter().map(|s| {
            let b = match s.bound {
                Bound::Compute => "kernel (compute-bound)",
                Bound::Memory => "kernel (memory-bound)",
            };
            vec![
                "gpu".into(),
                b.into(),
                s.gpu_start.to_string(),
                s.gpu_end.to_string(),
            ]
        }));
        csv(&["lane", "what", "start_s", "end_s"], rows)
    }
}

fn render<DB: DrawingBackend>(lanes: &Lanes, root: Area<DB>, look: &Look) -> Result<(), String> {
    let run = &lanes.0;
    let (pal, dpr) = (look.pal, look.dpr);
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    let left = 56.0 * dpr;
    let right = w - 8.0 * dpr;
    let wall = run.wall().max(run.cpu_time()).max(f64::MIN_POSITIVE);
    let x = |t: f64| (left + (t / wall).clamp(0.0, 1.0) * (right - left)).round() as i32;
    let lane = |i: f64| {
        (
            (h * (0.18 + 0.4 * i)) as i32,
            (h * (0.18 + 0.4 * i + 0.28)) as i32,
        )
    };
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let label = look.font(11.0, &pal.ink);
    let (cpu_top, cpu_bot) = lane(0.0);
    let (gpu_top, gpu_bot) = lane(1.0);
    root.draw(&Text::new("CPU", (4, cpu_top), label.clone()))
        .map_err(err)?;
    root.draw(&Text::new("GPU", (4, gpu_top), label.clone()))
        .map_err(err)?;
    root.draw(&Rectangle::new(
        [(x(0.0), gpu_top), (x(wall), gpu_bot)],
        pal.muted.mix(0.15).filled(),
    ))
    .map_err(err)?;
    for s in &run.cpu {
        let color = match s.part {
            CpuPart::Python => PYTHON,
            CpuPart::Dispatch => DISPATCH,
            CpuPart::Launch => LAUNCH,
        };
        let (a, b) = (x(s.start), x(s.end).max(x(s.start) + 1));
        root.draw(&Rectangle::new(
            [(a, cpu_top), (b, cpu_bot)],
            color.filled(),
        ))
        .map_err(err)?;
    }
    for s in &run.timeline.spans {
        let color = match s.bound {
            Bound::Compute => pal.compute,
            Bound::Memory => pal.memory,
        };
        let (a, b) = (x(s.gpu_start), x(s.gpu_end).max(x(s.gpu_start) + 1));
        root.draw(&Rectangle::new(
            [(a, gpu_top), (b, gpu_bot)],
            color.filled(),
        ))
        .map_err(err)?;
    }
    let axis = look.font(10.0, &pal.muted);
    root.draw(&Text::new("0", (x(0.0), (h * 0.9) as i32), axis.clone()))
        .map_err(err)?;
    let end = units::si(wall, "s");
    root.draw(&Text::new(
        end,
        (x(wall) - (48.0 * dpr) as i32, (h * 0.9) as i32),
        axis,
    ))
    .map_err(err)?;
    Ok(())
}
