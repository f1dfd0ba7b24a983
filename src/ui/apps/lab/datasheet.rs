//! The lab's figures beside a datasheet: a select of the preset to compare with
//! (guessed from the adapter by `gpu::datasheet::guess`, changeable), every
//! headline figure as a percentage of the matching datasheet number, the FLOP
//! convention, and what the two compute chains say (`gpu::analysis::findings`:
//! whether a compiler shortened the `x · m` chain), and after an import the
//! imported figures against those shown before (`datasheet::versus`: e.g.
//! `brrr-lab` natively against the browser on the same GPU). Words and numbers come from
//! the pure modules; this only lays them out.

use crate::gpu::results::LabRun;
use crate::gpu::{analysis, datasheet};
use crate::model::hardware;
use crate::ui::kit::readout::Readout;
use leptos::prelude::*;

/// `choice`: the preset the user picked (`Some("")` = none), `None` = the guess.
/// `previous`: the results shown before an import replaced them (compared side by
/// side with the imported ones).
#[component]
pub fn LabDatasheet(
    run: Signal<Option<LabRun>>,
    choice: RwSignal<Option<String>>,
    previous: RwSignal<Option<LabRun>>,
) -> impl IntoView {
    let guessed = Memo::new(move |_| {
        run.with(|r| {
            r.as_ref()
                .and_then(|r| datasheet::guess(&r.adapter))
                .map_or(String::new(), |p| p.id.to_string())
        })
    });
    let selected = Memo::new(move |_| choice.get().unwrap_or_else(|| guessed.get()));
    let on_change = move |ev| choice.set(Some(event_target_value(&ev)));
    move || {
        let Some(r) = run.get() else {
            return ().into_any();
        };
        let s = analysis::summary(&r);
        let preset = hardware::preset(&selected.get()).filter(|p| !p.is_measured());
        let guess_note = match (guessed.get(), choice.get()) {
            (g, None) if g.is_empty() => {
                "brrr does not recognise this adapter: pick the GPU it is."
            }
            (_, None) => "Guessed from the adapter's name: change it if it is wrong.",
            _ => "Chosen by you.",
        };
        let rows = preset
            .map(|p| datasheet::compare(&s, p))
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                let raw = c.fraction.to_string();
                let pct = c.percent();
                view! {
                    <li>
                        {c.label}": "{c.measured}" = "
                        <Readout name=c.metric raw=Signal::stored(raw) text=Signal::stored(pct)/>
                        " of the "{c.datasheet}"."
                    </li>
                }
            })
            .collect_view();
        let versus = previous
            .get()
            .filter(|p| p != &r)
            .map(|p| {
                let rows = datasheet::versus(&s, &analysis::summary(&p))
                    .into_iter()
                    .map(|(label, metric, this, other, ratio)| {
                        let raw = ratio.to_string();
                        let text = format!("{}×", crate::model::units::sig3(ratio));
                        view! {
                            <li>{label}": "{this}" now, "{other}" before: "
                                <Readout name=metric raw=Signal::stored(raw) text=Signal::stored(text)/>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <div id="lab-versus">
                        <p>"The results now shown ("{r.adapter.name()}", "{r.date.clone()}") against those shown before the import ("
                            {p.adapter.name()}", "{p.date}"), e.g. brrr-lab natively against this browser on the same GPU:"</p>
                        <ul class="lab-versus">{rows}</ul>
                    </div>
                }
            });
        view! {
            <div class="lab-datasheet">
                <div class="row">
                    <label for="lab-preset">"Compare with the datasheet of"</label>
                    <select id="lab-preset" on:change=on_change prop:value=move || selected.get()>
                        <option value="" selected=move || selected.get().is_empty()>"no preset"</option>
                        {hardware::PRESETS
                            .iter()
                            .map(|p| view! {
                                <option value=p.id selected=move || selected.get() == p.id>{p.name}</option>
                            })
                            .collect_view()}
                    </select>
                </div>
                <p class="note" id="lab-preset-note">{guess_note}" "{datasheet::CONVENTION}</p>
                <ul class="lab-vs-datasheet">{rows}</ul>
                <ul class="lab-findings" id="lab-findings">
                    {analysis::findings(&r).into_iter().map(|f| view! { <li>{f}</li> }).collect_view()}
                </ul>
                {versus}
            </div>
        }
        .into_any()
    }
}
