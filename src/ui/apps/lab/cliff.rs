//! The cache cliff: achieved bandwidth of the read kernel against its working set
//! (log-log, the shared chart component), the plateaus the finder named
//! (`gpu::cliff`), its words and the three readouts. Formats and draws only.

use crate::gpu::cliff::{self, Cliff};
use crate::gpu::results::LabRun;
use crate::model::units;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

/// The sweep's points and what the finder made of them.
#[derive(Clone, PartialEq)]
struct Sweep {
    points: Vec<(f64, f64)>,
    cliff: Option<Cliff>,
}

impl Plot for Sweep {
    fn height(&self, w: f64) -> f64 {
        (w * 0.5).clamp(240.0, 320.0)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        csv(
            &["working_set_bytes", "bandwidth_bytes_per_s"],
            self.points
                .iter()
                .map(|&(b, w)| vec![b.to_string(), w.to_string()]),
        )
    }
}

fn range(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let lo = v.clone().fold(f64::INFINITY, f64::min);
    let hi = v.fold(0.0, f64::max);
    if lo.is_finite() && hi > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (1.0, 10.0)
    }
}

fn render(
    s: &Sweep,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let xr = range(s.points.iter().map(|p| p.0));
    let yr = range(s.points.iter().map(|p| p.1));
    let size = |v: &f64| units::si(*v, "B");
    let mut ch = chart::log_log_with(
        &root,
        xr,
        yr,
        "working set",
        "achieved bandwidth (B/s)",
        &size,
        look,
    )?;
    marks.area(&chart::plot_rect(&ch), xr, yr);
    if let Some(c) = &s.cliff {
        for (i, q) in c.plateaus.iter().enumerate() {
            let seg = [(q.from, q.bw), (q.to.max(q.from * 1.01), q.bw)];
            let (color, name) = if i == c.fast {
                (pal.memory, "fast-plateau")
            } else {
                (pal.muted, "plateau")
            };
            ch.draw_series(LineSeries::new(seg, color.stroke_width(look.px(4.0))))
                .map_err(err)?;
            marks.line(name, seg);
        }
        if let Some(at) = c.cache_bytes {
            let seg = [(at, yr.0), (at, yr.1)];
            ch.draw_series(LineSeries::new(seg, pal.ink.stroke_width(look.px(1.0))))
                .map_err(err)?;
            marks.line("cliff", seg);
        }
    }
    ch.draw_series(LineSeries::new(
        s.points.iter().copied(),
        pal.compute.stroke_width(look.px(1.5)),
    ))
    .map_err(err)?;
    for &at in &s.points {
        ch.draw_series(std::iter::once(Circle::new(
            at,
            look.px(3.5),
            pal.compute.filled(),
        )))
        .map_err(err)?;
        marks.point(
            ch.backend_coord(&at),
            "working-set",
            at,
            "",
            vec![
                format!("{} working set", units::si(at.0, "B")),
                units::si(at.1, "B/s"),
            ],
        );
    }
    Ok(())
}

fn raw(x: Option<f64>) -> Signal<String> {
    Signal::stored(
        x.filter(|v| v.is_finite())
            .map(|v| v.to_string())
            .unwrap_or_default(),
    )
}

fn text(x: Option<f64>, unit: &str) -> Signal<String> {
    Signal::stored(x.map_or("—".into(), |v| units::si(v, unit)))
}

/// The cache sweep's chart, words and readouts; nothing without a sweep.
#[component]
pub fn LabCliff(ctx: Ctx, run: RwSignal<Option<LabRun>>) -> impl IntoView {
    let data = Memo::new(move |_| {
        run.with(|r| {
            let points = r.as_ref().map(cliff::points).unwrap_or_default();
            let cliff = cliff::find(&points);
            Sweep { points, cliff }
        })
    });
    let words = move || run.with(|r| cliff::of_run(r.as_ref()?).map(|(_, w)| w));
    view! {
        <section class="lab-cliff" id="lab-cliff-section"
            style:display=move || if data.with(|d| d.points.is_empty()) { "none" } else { "" }>
            <h3>"The cache cliff"</h3>
            <p class="note">
                "A read-mostly kernel sums the same working set over and over, from 64 KiB up to the "
                "largest buffer the adapter allows, each size checked against the CPU: while the working "
                "set fits in a cache, the cache serves the reads; past it, memory does."
            </p>
            {move || {
                let d = data.get();
                let c = d.cliff.as_ref();
                view! {
                    <dl class="metrics lab-metrics lab-cliff-metrics">
                        <div class="metric"><dt>"Fast plateau (cache)"</dt><dd>
                            <Readout name="lab_cache_bw" raw=raw(c.map(|c| c.cache_bw)) text=text(c.map(|c| c.cache_bw), "B/s")/></dd></div>
                        <div class="metric"><dt>"Where it ends (working set)"</dt><dd>
                            <Readout name="lab_cache_bytes" raw=raw(c.and_then(|c| c.cache_bytes)) text=text(c.and_then(|c| c.cache_bytes), "B")/></dd></div>
                        <div class="metric"><dt>"Beyond it (largest working sets)"</dt><dd>
                            <Readout name="lab_mem_bw" raw=raw(c.and_then(|c| c.mem_bw)) text=text(c.and_then(|c| c.mem_bw), "B/s")/></dd></div>
                    </dl>
                }
            }}
            <p id="lab-cliff-words">{words}</p>
            // the chart is built once a sweep has points: a canvas nobody can see
            // would never draw
            <Show when=move || data.with(|d| !d.points.is_empty())>
            <figure class="chart">
                <PlotCanvas ctx=ctx id="lab-cliff" data=shared(data)
                    label="Achieved read bandwidth against working-set size, log scales, with the plateaus the lab found and where the fast one ends."/>
                <figcaption>
                    <ul class="legend">
                        <li>"dots: each working set, verified, median of its trials"</li>
                        <li>"thick lines: the plateaus found (the fast one in the memory colour); thin vertical line: where the fast one ends"</li>
                    </ul>
                </figcaption>
            </figure>
            </Show>
        </section>
    }
}
