//! The `llm` widget's speculative decoding: its controls, its two readouts,
//! the speedup against the batch as a line of numbers with the batch where it
//! falls below 1×, the model's sentence and the published runs beside it.
//! Everything shown is `model::llm::spec`'s, through the widget's view.

use crate::model::llm::spec::{measured::Check, SpecKind, SpecView};
use crate::model::llm::view::LlmView;
use crate::model::units;
use crate::state::widgets::llm::field;
use crate::ui::kit::controls::{LogSlider, Select};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// The speculation's controls and readouts (live), and where drawn its line,
/// sentence and checks.
#[component]
pub fn LlmSpec(ctx: Ctx, live: Memo<LlmView>, v: Memo<LlmView>) -> impl IntoView {
    let draft = Memo::new(move |_| ctx.state.with(|s| s.widgets.llm.spec == SpecKind::Draft));
    let on = Memo::new(move |_| live.with(|v| v.spec.is_some()));
    let sv = Memo::new(move |_| v.with(|v| v.spec.clone()));
    let num = move |f: fn(&SpecView) -> f64| {
        Signal::derive(move || {
            live.with(|v| {
                v.spec
                    .as_ref()
                    .map(|s| f(s).to_string())
                    .unwrap_or_default()
            })
        })
    };
    let txt = move |f: fn(&SpecView) -> f64| {
        Signal::derive(move || {
            live.with(|v| {
                v.spec
                    .as_ref()
                    .map_or_else(|| "off".to_string(), |s| format!("{}×", units::sig3(f(s))))
            })
        })
    };
    view! {
        <div class="controls-inline" id="llm-spec">
            <Select ctx=ctx field=field::spec/>
            <LogSlider ctx=ctx field=field::spec_k/>
            <LogSlider ctx=ctx field=field::spec_accept/>
            {move || draft.get().then(|| view! { <Select ctx=ctx field=field::spec_draft/> })}
        </div>
        <dl class="metrics llm-spec-metrics" class:hidden=move || !on.get()>
            <div class="metric"><dt>"Tokens per step, speculating"</dt><dd><Readout name="llm_spec_tokens_per_step" raw=num(|s| s.step.tokens_per_step)
                text=Signal::derive(move || live.with(|v| v.spec.as_ref().map_or_else(|| "off".to_string(), |s| units::sig3(s.step.tokens_per_step))))/></dd></div>
            <div class="metric"><dt>"Speculation's speedup (tokens/s with ÷ without)"</dt><dd><Readout name="llm_spec_speedup" raw=num(|s| s.step.speedup) text=txt(|s| s.step.speedup)/></dd></div>
        </dl>
        {move || sv.with(|s| s.as_ref().map(|s| view! {
            <p class="note llm-spec-line">{line(s)}</p>
            <p class="note" id="llm-spec-sentence">{s.sentence.clone()}</p>
            <SpecChecks s=s.clone()/>
        }))}
    }
}

/// The speedup at each batch of the line, the crossing marked.
fn line(s: &SpecView) -> String {
    let pts: Vec<String> = s
        .points
        .iter()
        .map(|p| {
            let mark = if Some(p.batch) == s.crossing {
                " ◂ below 1×"
            } else {
                ""
            };
            format!("{}: {}×{mark}", p.batch, units::sig3(p.speedup))
        })
        .collect();
    format!("Speedup against the batch: {}.", pts.join(", "))
}

/// The published runs and the model's answer for each.
#[component]
fn SpecChecks(s: SpecView) -> impl IntoView {
    let rows = s.checks.iter().map(|r| {
        let published = format!("{}×", units::sig3(r.published));
        let verdict = match r.check {
            Check::Within(t) => format!("{:+.0} % (target ±{:.0} %)", 100.0 * r.error(), 100.0 * t),
            Check::Below(b1) => format!("direction: below the model's {}× at batch 1", units::sig3(b1)),
            Check::None => format!("length not published; needs {}", units::sig3(r.needed)),
        };
        view! { <tr><th scope="row">{r.what}</th><td>{published}</td><td>{format!("{}×", units::sig3(r.model))}</td><td>{verdict}</td></tr> }
    }).collect_view();
    view! {
        <details class="llm-spec-checks">
            <summary>"Speculation's model against published runs"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Published speculative decoding runs, scrollable">
                <table>
                    <thead><tr><th scope="col">"run"</th><th scope="col">"published"</th><th scope="col">"model"</th><th scope="col">"error"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="note">{s.checks_note.clone()}</p>
        </details>
    }
}
