//! The lab's results as text for the page: the fused-vs-eager tables as escaped
//! HTML (one string per table keeps the .wasm small; every value that came from
//! the browser or an imported file is escaped), and the readouts' wording.

use super::analysis::{rows, summary, Row};
use super::results::{spread, AdapterInfo, Check, Dt, LabRun, Measurement, Op, Outcome};
use crate::model::units;

/// Escape text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// "±3 %" from the trials' spread.
pub fn spread_text(times: &[f64]) -> String {
    spread(times).map_or(String::new(), |s| format!("±{:.0} %", s * 50.0))
}

/// A value with its spread, e.g. "1.23 ms ±2 %".
pub fn with_spread(value: f64, unit: &str, times: &[f64]) -> String {
    let sp = spread_text(times);
    if sp.is_empty() {
        units::si(value, unit)
    } else {
        format!("{} {sp}", units::si(value, unit))
    }
}

fn cells(m: Option<&Measurement>, out: &mut [String; 3]) {
    match m {
        None => out.iter_mut().for_each(|c| *c = "<td>–</td>".into()),
        Some(m) => match &m.check {
            Check::Failed { detail } => {
                let td = format!("<td class=\"failed\" title=\"{}\">failed</td>", esc(detail));
                out.iter_mut().for_each(|c| *c = td.clone());
            }
            Check::Passed { .. } if !m.usable() => {
                out.iter_mut().for_each(|c| *c = "<td>–</td>".into());
            }
            Check::Passed { .. } => {
                let t = m.time().unwrap_or(f64::NAN);
                out[0] = format!(
                    "<td title=\"{} elements\">{}</td>",
                    m.elements,
                    esc(&with_spread(t, "s", &m.times))
                );
                out[1] = format!(
                    "<td>{}</td>",
                    esc(&units::si(m.achieved_flops().unwrap_or(f64::NAN), "FLOP/s"))
                );
                out[2] = format!(
                    "<td>{}</td>",
                    esc(&units::si(m.achieved_bw().unwrap_or(f64::NAN), "B/s"))
                );
            }
        },
    }
}

fn row_html(r: &Row<'_>) -> String {
    let mut f: [String; 3] = Default::default();
    let mut e: [String; 3] = Default::default();
    cells(r.fused, &mut f);
    cells(r.eager, &mut e);
    let (sp_attr, sp_text) = match r.speedup() {
        Some(s) => (
            format!(" data-speedup=\"{s}\""),
            format!("{}×", units::sig3(s)),
        ),
        None => (String::new(), "–".into()),
    };
    format!(
        "<tr data-repeat=\"{rep}\"{sp_attr}><th scope=\"row\">{rep}</th>{}{}{}{}{}{}<td>{sp_text}</td></tr>",
        f[0], e[0], f[1], e[1], f[2], e[2],
        rep = r.repeat
    )
}

/// One table per (dtype, op) that has measurements.
pub fn tables_html(run: &LabRun) -> String {
    let mut out = String::new();
    for dt in Dt::ALL {
        for op in Op::ALL {
            let rs = rows(run, op, dt);
            if rs.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "<div class=\"table-scroll\"><table class=\"lab-table\" data-op=\"{o}\" data-dt=\"{d}\">\
                 <caption><code>{label}</code> in {d}: fused (one kernel) vs eager (one kernel per op)</caption>\
                 <thead><tr><th scope=\"col\">repeat</th><th scope=\"col\">fused time</th><th scope=\"col\">eager time</th>\
                 <th scope=\"col\">fused FLOP/s</th><th scope=\"col\">eager FLOP/s</th>\
                 <th scope=\"col\">fused bandwidth</th><th scope=\"col\">eager bandwidth</th>\
                 <th scope=\"col\">fusion speedup</th></tr></thead><tbody>",
                o = op.id(),
                d = dt.id(),
                label = esc(op.label()),
            ));
            for r in &rs {
                out.push_str(&row_html(r));
            }
            out.push_str("</tbody></table></div>");
        }
    }
    out
}

/// Failed variants, in words.
pub fn failures(run: &LabRun) -> Vec<String> {
    run.measurements
        .iter()
        .filter_map(|m| match &m.check {
            Check::Failed { detail } => Some(format!(
                "{} {}{} ({}): {}",
                m.kernel.id(),
                m.op.map_or("", Op::id),
                if m.repeat > 0 {
                    format!(" ×{}", m.repeat)
                } else {
                    String::new()
                },
                m.dt.id(),
                detail
            )),
            Check::Passed { .. } => None,
        })
        .collect()
}

/// A readout following the `data-metric` / `data-value` contract (as
/// `ui::frame::Readout` renders it).
fn readout(name: &str, raw: Option<f64>, text: &str) -> String {
    format!(
        "<span class=\"readout\" data-metric=\"{name}\" data-value=\"{}\">{}</span>",
        raw.filter(|x| x.is_finite())
            .map(|x| x.to_string())
            .unwrap_or_default(),
        esc(text)
    )
}

fn metric(label: &str, name: &str, raw: Option<f64>, unit: &str) -> String {
    let text = raw.map_or("—".into(), |x| units::si(x, unit));
    format!(
        "<div class=\"metric\"><dt>{label}</dt><dd>{}</dd></div>",
        readout(name, raw, &text)
    )
}

/// The headline readouts (always present, "—" without a run).
pub fn metrics_html(run: Option<&LabRun>) -> String {
    let s = run.map(summary).unwrap_or_default();
    let cross_text = match (s.crossover, s.first_compute_bound) {
        (Some(c), Some(f)) => format!("{} (slower from ×{f})", units::sig3(c)),
        (Some(c), None) => units::sig3(c),
        _ if s.peak_flops.is_some() => "still memory-bound at ×1024".into(),
        _ => "—".into(),
    };
    format!(
        "<dl class=\"metrics lab-metrics\">{}{}<div class=\"metric\"><dt>Crossover repeat</dt><dd>{}</dd></div>{}{}{}</dl>",
        metric("Copy bandwidth (read + write)", "lab_copy_bw", s.copy_bw, "B/s"),
        metric("Compute ceiling (fused x·m)", "lab_peak_flops", s.peak_flops.map(|p| p.0), "FLOP/s"),
        readout("lab_crossover_repeat", s.crossover, &cross_text),
        metric("Per dispatch (empty kernel)", "lab_dispatch_s", s.dispatch, "s"),
        metric("Per queue.submit", "lab_submit_s", s.submit, "s"),
        metric("CPU to record a dispatch", "lab_encode_s", s.encode, "s"),
    )
}

/// What the run was, why it is partial, its notes and failures, and the tables.
/// `running`: the run is still going (its outcome is not final yet).
pub fn details_html(run: Option<&LabRun>, running: bool) -> String {
    let Some(r) = run else {
        return String::new();
    };
    let mut out = String::new();
    let mut notes = vec![format!(
        "{} run of {} on {} ({} timing, {} buffers).",
        if running {
            "Running: a"
        } else if r.outcome == Outcome::Complete {
            "Complete"
        } else {
            "Partial"
        },
        r.date,
        r.adapter.name(),
        r.timer.id(),
        super::plan::size_text((r.elements * 4) as f64),
    )];
    if !r.reason.is_empty() && !running {
        notes.push(r.reason.clone());
    }
    notes.extend(r.notes.iter().cloned());
    notes.extend(
        failures(r)
            .into_iter()
            .map(|f| format!("Failed (not plotted): {f}")),
    );
    out.push_str(&format!(
        "<ul class=\"lab-notes\" data-outcome=\"{}\">",
        r.outcome.id()
    ));
    for n in notes {
        out.push_str(&format!("<li>{}</li>", esc(&n)));
    }
    out.push_str("</ul>");
    out.push_str(&tables_html(r));
    out
}

/// The adapter and the limits that matter.
pub fn adapter_html(a: &AdapterInfo) -> String {
    let items = [
        (
            "Adapter",
            format!(
                "{}{}",
                a.name(),
                if a.fallback {
                    " — software fallback"
                } else {
                    ""
                }
            ),
        ),
        (
            "Largest storage buffer binding",
            units::si(a.max_storage_binding, "B"),
        ),
        ("Largest buffer", units::si(a.max_buffer, "B")),
        (
            "Workgroups per dimension",
            a.max_workgroups_per_dim.to_string(),
        ),
        ("Invocations per workgroup", a.max_invocations.to_string()),
        (
            "Timestamp queries",
            if a.timestamps {
                "yes"
            } else {
                "no (wall-clock timing)"
            }
            .into(),
        ),
        (
            "shader-f16",
            if a.f16 {
                "yes (f16 runs too)"
            } else {
                "no (f32 only)"
            }
            .into(),
        ),
    ];
    let mut out = String::from("<dl class=\"lab-adapter\">");
    for (i, (k, v)) in items.iter().enumerate() {
        let id = if i == 0 { " id=\"lab-adapter\"" } else { "" };
        out.push_str(&format!("<div><dt>{k}</dt><dd{id}>{}</dd></div>", esc(v)));
    }
    out.push_str("</dl>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::analysis::tests::synthetic;
    use crate::gpu::results::Kernel;

    #[test]
    fn escapes() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn tables() {
        let mut run = synthetic();
        run.measurements
            .iter_mut()
            .filter(|m| m.kernel == Kernel::Eager && m.repeat == 4)
            .for_each(|m| {
                m.check = Check::Failed {
                    detail: "<script>alert(1)</script>".into(),
                }
            });
        let html = tables_html(&run);
        assert_eq!(html.matches("<table").count(), 1);
        assert_eq!(html.matches("<tr data-repeat").count(), 11);
        assert!(html.contains("data-speedup=\"8\""));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert_eq!(html.matches("class=\"failed\"").count(), 3);
        let f = failures(&run);
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("eager mul ×4 (f32): "), "{}", f[0]);
    }

    #[test]
    fn results_block() {
        let empty = metrics_html(None);
        assert_eq!(details_html(None, false), "");
        for m in [
            "lab_copy_bw",
            "lab_peak_flops",
            "lab_crossover_repeat",
            "lab_dispatch_s",
            "lab_submit_s",
        ] {
            assert!(
                empty.contains(&format!("data-metric=\"{m}\" data-value=\"\">—")),
                "{m}"
            );
        }
        let mut run = synthetic();
        run.adapter.vendor = "<b>".into();
        let html = metrics_html(Some(&run)) + &details_html(Some(&run), false);
        assert!(
            html.contains("data-metric=\"lab_crossover_repeat\" data-value=\"80"),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;") && !html.contains("<b>"));
        assert!(html.contains("data-outcome=\"complete\""));
        let a = adapter_html(&run.adapter);
        assert!(a.contains("id=\"lab-adapter\">&lt;b&gt;"));
    }

    #[test]
    fn spreads() {
        assert_eq!(spread_text(&[1.0, 1.02, 0.98]), "±2 %");
        assert_eq!(spread_text(&[]), "");
        assert_eq!(with_spread(1e-3, "s", &[1e-3]), "1 ms ±0 %");
    }
}
