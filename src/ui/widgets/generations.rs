//! Widget `generations`: peak FLOP/s and DRAM bandwidth of GPU generations by year,
//! the FLOP-per-byte ratio they imply, fitted doubling times, and the CPU
//! observation (Patterson, CACM 2004) the essay starts from.

use crate::geom;
use crate::model::generations::{self as gen, Line, Metric, PATTERSON_2004};
use crate::model::units;
use crate::state::widgets::generations::field;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::controls::Select;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

#[component]
pub fn Generations(ctx: Ctx) -> impl IntoView {
    let line = Memo::new(move |_| ctx.view.with(|s| s.widgets.generations.line.filter()));
    let rows = Memo::new(move |_| Rows(gen::rows(line.get())));
    let fits = move || {
        Line::ALL
            .into_iter()
            .filter(|l| line.get().is_none_or(|f| f == *l))
            .map(|l| {
                let dt = |m| gen::doubling_words(gen::doubling(Some(l), m));
                view! {
                    <tr>
                        <th scope="row">{l.label()}</th>
                        <td>{dt(Metric::Fp32)}</td>
                        <td>{dt(Metric::Tensor16)}</td>
                        <td>{dt(Metric::Bandwidth)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Select ctx=ctx field=field::line/>
        <PlotCanvas ctx=ctx id="generations-canvas" data=shared(rows)
            label="Peak FLOP/s (fp32 and 16-bit tensor) and DRAM bandwidth of GPU generations by year, log scale: the FLOP/s lines climb faster than the bandwidth line."/>
        <ul class="legend">
            <li><span class="swatch vector"></span>"fp32 FLOP/s"</li>
            <li><span class="swatch compute"></span>"16-bit tensor FLOP/s"</li>
            <li><span class="swatch memory"></span>"DRAM bytes/s"</li>
            <li>"● datacenter  ▲ consumer"</li>
        </ul>
        <p class="sr-only" aria-live="polite">
            {move || gen::summary(line.get())}
        </p>
        <table class="fits">
            <caption>"Fitted doubling time (least squares on log2 of the value vs year)"</caption>
            <thead><tr><th scope="col">"line"</th><th scope="col">"fp32 FLOP/s"</th><th scope="col">"tensor FLOP/s"</th><th scope="col">"bandwidth"</th></tr></thead>
            <tbody>{fits}</tbody>
        </table>
        <div class="table-scroll" tabindex="0" role="region" aria-label="GPU generations, scrollable">
            <table class="gen-table">
                <thead><tr><th scope="col">"GPU"</th><th scope="col">"year"</th><th scope="col">"fp32"</th><th scope="col">"tensor 16-bit"</th>
                    <th scope="col">"bandwidth"</th><th scope="col">"FLOP per byte (tensor)"</th></tr></thead>
                <tbody>
                    {move || rows.get().0.into_iter().map(|r| view! {
                        <tr>
                            <th scope="row">{r.name}</th><td>{r.year}</td>
                            <td>{units::si(r.fp32, "FLOP/s")}</td>
                            <td>{r.tensor16.map(|t| units::si(t, "FLOP/s")).unwrap_or_else(|| "–".into())}</td>
                            <td>{units::si(r.mem_bw, "B/s")}</td>
                            <td>{r.tensor16_per_byte().map(units::sig3).unwrap_or_else(|| "–".into())}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <p class="note">
            {format!(
                "The trend is old: Patterson (CACM 2004) found CPU throughput doubling every {} years while DRAM \
                 bandwidth took {} years. ",
                PATTERSON_2004.cpu_doubling_years, PATTERSON_2004.dram_doubling_years
            )}
            {PATTERSON_2004.caveat}
        </p>
    }
}

/// The rows shown, as a chart.
#[derive(Clone, PartialEq)]
struct Rows(Vec<gen::GenRow>);

impl Plot for Rows {
    fn height(&self, w: f64) -> f64 {
        (w * if w < 560.0 { 0.9 } else { 0.45 }).clamp(240.0, 420.0)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        csv(
            &[
                "gpu",
                "year",
                "line",
                "fp32_flop_per_s",
                "tensor16_flop_per_s",
                "dram_bytes_per_s",
                "source",
            ],
            self.0.iter().map(|r| {
                vec![
                    r.name.into(),
                    r.year.to_string(),
                    r.line.id().into(),
                    r.fp32.to_string(),
                    opt(r.tensor16),
                    r.mem_bw.to_string(),
                    r.source.into(),
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
    // years on the log-log chart type (see `geom::year_x`)
    let x = geom::year_x;
    let label = |v: &f64| geom::year_label(*v);
    let mut ch = chart::log_log_with(
        &root,
        (x(2015.0), x(2026.0)),
        (1e11, 1e16),
        "release year",
        "per second (FLOP/s or B/s)",
        &label,
        look,
    )?;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    marks.area(&chart::plot_rect(&ch), (x(2015.0), x(2026.0)), (1e11, 1e16));
    for line in Line::ALL {
        let r: Vec<&gen::GenRow> = rows.0.iter().filter(|r| r.line == line).collect();
        if r.is_empty() {
            continue;
        }
        for (metric, color) in [
            (Metric::Fp32, pal.vector),
            (Metric::Tensor16, pal.compute),
            (Metric::Bandwidth, pal.memory),
        ] {
            let pts: Vec<(f64, f64)> = r
                .iter()
                .filter_map(|g| g.metric(metric).map(|v| (x(f64::from(g.year)), v)))
                .collect();
            // every point hoverable and focusable, with its GPU, year and value
            for (g, &at) in r.iter().filter(|g| g.metric(metric).is_some()).zip(&pts) {
                let (what, unit) = match metric {
                    Metric::Fp32 => ("fp32", "FLOP/s"),
                    Metric::Tensor16 => ("16-bit tensor", "FLOP/s"),
                    Metric::Bandwidth => ("memory bandwidth", "B/s"),
                    Metric::Fp32PerByte | Metric::Tensor16PerByte => ("FLOP per byte", ""),
                };
                marks.point(
                    ch.backend_coord(&at),
                    "generation",
                    at,
                    "",
                    vec![
                        format!("{} ({})", g.name, g.year),
                        format!("{what}: {}", units::si(at.1, unit)),
                    ],
                );
            }
            let style =
                color.stroke_width(look.px(if line == Line::Datacenter { 2.0 } else { 1.0 }));
            ch.draw_series(LineSeries::new(pts.iter().copied(), style))
                .map_err(err)?;
            let size = look.px(4.0);
            match line {
                Line::Datacenter => {
                    ch.draw_series(pts.iter().map(|&p| Circle::new(p, size, color.filled())))
                        .map_err(err)?;
                }
                Line::Consumer => {
                    ch.draw_series(
                        pts.iter()
                            .map(|&p| TriangleMarker::new(p, size, color.filled())),
                    )
                    .map_err(err)?;
                }
            }
        }
    }
    Ok(())
}
