//! Part of the `llm` widget: the model against gpt-fast's published decode speeds
//! (`model::llm::vs_measured`), as a table (model, measured, error, what limits the
//! modelled step) and a chart of model against measured tokens/s with the ±20 %
//! band. The rows are fixed: computed once, after the widget is built, a row
//! per task ([`VsMeasured`]).

use crate::model::llm::vs_measured::{self as vs, Row, Runs};
use crate::model::units;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::later;
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

/// The rows for the chart.
#[derive(Clone, PartialEq)]
struct Rows(Vec<Row>);

/// The model against the published rows: every row's model run (one GPU, then
/// tensor parallel, then the H100 rows) in a task of its own (`kit::later`:
/// 28 runs in one task held the page's start for ~60 ms at 4× CPU), then the
/// tables. The readouts are there once the page is ready (`data-ready` waits
/// for these tasks too).
#[component]
pub fn VsMeasured(ctx: Ctx) -> impl IntoView {
    let done = RwSignal::new(None::<vs::VsMeasured>);
    let acc = Rc::new(RefCell::new(Runs::default()));
    for j in vs::jobs() {
        let acc = acc.clone();
        later::queue(move || acc.borrow_mut().run(j));
    }
    later::queue(move || done.set(Some(vs::view(&acc.borrow()))));
    move || done.get().map(|v| view! { <Tables ctx=ctx v=v/> })
}

#[component]
fn Tables(ctx: Ctx, v: vs::VsMeasured) -> impl IntoView {
    let (max, tp_max) = (v.max_error, v.tp_max_error);
    let body = |tp: bool| {
        v.rows
        .iter()
        .filter(move |r| (r.gpus > 1) == tp)
        .map(|r| {
            view! {
                <tr data-row=r.id.clone()>
                    <th scope="row">{r.model}</th>
                    <td>{r.wdtype}</td>
                    <td>{if r.compiled { "compiled, CUDA graph" } else { "eager" }}</td>
                    <td>{r.gpus}</td>
                    <td>{units::sig3(r.measured)}</td>
                    <td>{units::sig3(r.modelled)}</td>
                    <td data-error=r.error.to_string()>{format!("{:+.1} %", r.error * 100.0)}</td>
                    <td>{r.regime.1}</td>
                </tr>
            }
        })
        .collect_view()
    };
    let data = Memo::new({
        let rows = v.rows.clone();
        move |_| Rows(rows.clone())
    });
    view! {
        <div class="table-scroll llm-vs-measured" tabindex="0" role="region" aria-label="Model against measured decode speeds, scrollable">
            <table class="kernels">
                <caption>"The model against gpt-fast's published decode speeds (batch 1, one A100-80GB, achievable roofs)"</caption>
                <thead><tr><th scope="col">"model"</th><th scope="col">"weights"</th><th scope="col">"step"</th><th scope="col">"GPUs"</th>
                    <th scope="col">"measured tok/s"</th><th scope="col">"model tok/s"</th><th scope="col">"error"</th><th scope="col">"model: what limits it"</th></tr></thead>
                <tbody>{body(false)}</tbody>
            </table>
        </div>
        <details class="llm-vs-measured-tp">
            <summary>{format!("On 2–8 GPUs: gpt-fast's tensor-parallel rows, largest error {:.1} %", tp_max * 100.0)}</summary>
            <div class="table-scroll llm-vs-measured" tabindex="0" role="region" aria-label="Model against measured tensor-parallel decode speeds, scrollable">
                <table class="kernels">
                    <caption>"Tensor parallel over NVLink 3 (batch 1, A100-80GB, achievable roofs, compiled)"</caption>
                    <thead><tr><th scope="col">"model"</th><th scope="col">"weights"</th><th scope="col">"step"</th><th scope="col">"GPUs"</th>
                        <th scope="col">"measured tok/s"</th><th scope="col">"model tok/s"</th><th scope="col">"error"</th><th scope="col">"model: what limits it"</th></tr></thead>
                    <tbody>{body(true)}</tbody>
                </table>
            </div>
            <div class="table-scroll llm-vs-measured" tabindex="0" role="region" aria-label="Model against measured per-token latencies on H100s, scrollable">
                <table class="kernels">
                    <caption>"On H100s: NVIDIA NIM's per-token latency, one request at a time (TensorRT-LLM engine, fp8; modelled on H100 SXM over NVLink 4, achievable roofs, one CUDA graph, KV cache in bf16: the source does not say)"</caption>
                    <thead><tr><th scope="col">"model"</th><th scope="col">"weights"</th><th scope="col">"in / out tokens"</th><th scope="col">"GPUs"</th>
                        <th scope="col">"measured ms/token"</th><th scope="col">"model ms/token"</th><th scope="col">"error (tok/s)"</th><th scope="col">"model: what limits it"</th></tr></thead>
                    <tbody>{v.h100.iter().map(|r| {
                        view! {
                            <tr data-row=r.id.clone()>
                                <th scope="row">{r.model}</th>
                                <td>{r.wdtype}</td>
                                <td>{format!("{} / {}", r.input_tokens, r.output_tokens)}</td>
                                <td>{r.gpus}</td>
                                <td>{units::sig3(r.measured_s * 1e3)}</td>
                                <td>{units::sig3(r.modelled_s * 1e3)}</td>
                                <td data-error=r.error.to_string()>{format!("{:+.1} %", r.error * 100.0)}</td>
                                <td>{r.regime}</td>
                            </tr>
                        }
                    }).collect_view()}</tbody>
                </table>
            </div>
        </details>
        <PlotCanvas ctx=ctx id="llm-vs-measured-canvas" data=shared(data)
            label=Signal::derive(move || format!(
                "Model against measured tokens per second for gpt-fast's rows, log scales, with the ±20 % band; the largest error over the README's rows is {:.1} %.",
                max * 100.0))/>
        <ul class="legend">
            <li><span class="swatch memory"></span>"compiled (one CUDA graph)"</li>
            <li><span class="swatch region overhead"></span>"eager"</li>
            <li><span class="swatch comm"></span>"tensor parallel, 2–8 GPUs"</li>
            <li>"— model = measured, thin lines ±20 %"</li>
        </ul>
        <p class="note">"Largest error over the README's rows: "
            <Readout name="llm_vs_measured_max_error" raw=Signal::derive(move || max.to_string())
                text=Signal::derive(move || format!("{:.1} %", max * 100.0))/>
            "; over its tensor-parallel rows: "
            <Readout name="llm_tp_vs_measured_max_error" raw=Signal::derive(move || tp_max.to_string())
                text=Signal::derive(move || format!("{:.1} %", tp_max * 100.0))/>
            {v.worst_tp.clone()}
            {v.link_note.clone()}
            "Sources: gpt-fast's README (8×A100-80GB capped at 330 W, NVLink) and its blog's eager starting point; NVIDIA NIM's benchmarking page (Llama-3.3-70B, NIM 1.8.0, 2 × H100 80G, fp8, TP2, concurrency 1). "
            "The decode matmuls stream at fractions torchao measured on another model (Llama-3-8B), not fitted to these rows. "
            {v.eager_note.clone()}
        </p>
    }
}

impl Plot for Rows {
    fn height(&self, w: f64) -> f64 {
        (w * 0.6).clamp(260.0, 340.0)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        csv(
            &[
                "row",
                "measured_tokens_per_s",
                "model_tokens_per_s",
                "error",
                "model_regime",
            ],
            self.0.iter().map(|r| {
                vec![
                    r.id.clone(),
                    r.measured.to_string(),
                    r.modelled.to_string(),
                    r.error.to_string(),
                    r.regime.0.to_string(),
                ]
            }),
        )
    }
}

fn render(
    rows: &Rows,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let r = (10.0, 1000.0);
    let mut ch = chart::log_log(&root, r, r, "measured tokens/s", "model tokens/s", look)?;
    marks.area(&chart::plot_rect(&ch), r, r);
    // y = k·x for k = 1 and the ±20 % band, cut to the axes (y within r too)
    for (k, width, color) in [
        (1.0, 1.5, pal.ink),
        (1.2, 1.0, pal.muted),
        (0.8, 1.0, pal.muted),
    ] {
        let from = if k >= 1.0 {
            (r.0, r.0 * k)
        } else {
            (r.0 / k, r.0)
        };
        let to = if k >= 1.0 {
            (r.1 / k, r.1)
        } else {
            (r.1, r.1 * k)
        };
        ch.draw_series(LineSeries::new(
            [from, to],
            color.stroke_width(look.px(width)),
        ))
        .map_err(err)?;
    }
    for c in &rows.0 {
        let at = (c.measured, c.modelled);
        let color = if c.gpus > 1 {
            pal.comm
        } else if c.compiled {
            pal.memory
        } else {
            pal.muted
        };
        marks.point(
            ch.backend_coord(&at),
            "measured",
            at,
            "",
            vec![
                format!(
                    "{} {}, {}{}",
                    c.model,
                    c.wdtype,
                    if c.compiled { "compiled" } else { "eager" },
                    if c.gpus > 1 {
                        format!(", {}", units::count(c.gpus, "GPU", "GPUs"))
                    } else {
                        String::new()
                    }
                ),
                format!("measured {} tok/s", units::sig3(c.measured)),
                format!(
                    "model {} tok/s ({:+.1} %)",
                    units::sig3(c.modelled),
                    c.error * 100.0
                ),
            ],
        );
        ch.draw_series(std::iter::once(Circle::new(
            at,
            look.px(4.0),
            color.filled(),
        )))
        .map_err(err)?;
    }
    Ok(())
}
