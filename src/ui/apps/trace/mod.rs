//! "Diagnose your own run" (issue 23): a torch.profiler trace → where each GPU's
//! time went and which cost, halved, shortens the run most.
//!
//! Two .wasm files besides the page's, both fetched only when the widget first
//! comes on screen: this UI is its own Leptos app (`src/bin/brrr-trace-ui.rs`,
//! mounted by the page's stand-in `ui/widgets/trace.rs`), so the page's first load does
//! not carry it; the parsing and the analysis (`crate::trace`) run in a Web
//! Worker (`src/bin/brrr-trace-worker.rs`, protocol in its module docs). This
//! file starts the worker, follows its messages and draws the rows it posts
//! (`trace::report::Row` as JSON, read back with the small JSON reader
//! `gpu::json`). The readouts are the CLI's `--json` fields, unrounded.

use crate::ui::kit::readout::Readout;
mod charts;
mod row;

use crate::model::hardware;
use crate::model::units;
use leptos::prelude::*;
use row::{decode, Rank};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};

/// The worker's loader (static/trace-worker.js), beside index.html.
const WORKER: &str = "trace-worker.js";
/// The bundled example: HTA's A100 test trace (README, credits).
const EXAMPLE: &str = "example/rank0.json.gz";
/// A remedy "helps" from this predicted speedup on (the page's one bar).
const BAR: f64 = 1.05;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Nothing asked for yet (the widget has not been on screen).
    Idle,
    Loading,
    Example,
    Done,
    Error,
}

impl Phase {
    fn id(self) -> &'static str {
        match self {
            Phase::Idle | Phase::Loading => "loading",
            Phase::Example => "example",
            Phase::Done => "done",
            Phase::Error => "error",
        }
    }
}

/// The running worker and its handlers (dropped together).
struct Job {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

#[derive(Clone, Copy)]
struct Sig {
    phase: RwSignal<Phase>,
    /// What to go back to on Cancel.
    before: RwSignal<Phase>,
    ranks: RwSignal<Vec<Rank>>,
    sel: RwSignal<usize>,
    message: RwSignal<String>,
    errors: RwSignal<Vec<String>>,
    job: StoredValue<Option<Job>, LocalStorage>,
    /// What was last read (the items, whether the example, the first name), so
    /// a preset chosen for the roofline can read it again.
    last: StoredValue<Option<(js_sys::Array, bool, String)>, LocalStorage>,
    /// The preset chosen for the roofline and remedies (none: the trace's own).
    preset: RwSignal<Option<String>>,
}

impl Sig {
    /// Runs the worker on `items` (Files, or the example's URL).
    fn start(self, items: js_sys::Array, example: bool, first: String) {
        self.job.set_value(None);
        self.last
            .set_value(Some((items.clone(), example, first.clone())));
        let preset = self.preset.get_untracked();
        if self.phase.get_untracked() != Phase::Loading {
            self.before.set(self.phase.get_untracked());
        }
        self.phase.set(Phase::Loading);
        self.message.set(format!("Reading {first}…"));
        let worker = match web_sys::Worker::new(WORKER) {
            Ok(w) => w,
            Err(e) => {
                return self.fail(format!(
                    "the trace worker could not start: {}",
                    crate::js::js_err(e)
                ))
            }
        };
        let (mut got, mut bad) = (Vec::new(), Vec::new());
        let w = worker.clone();
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let d = e.data();
                let name = get(&d, "name").as_string().unwrap_or_default();
                match get(&d, "type").as_string().as_deref() {
                    Some("ready") => {
                        let msg = js_sys::Object::new();
                        let _ = js_sys::Reflect::set(&msg, &"items".into(), &items);
                        let _ = js_sys::Reflect::set(
                            &msg,
                            &"slow".into(),
                            &crate::js::flag("__brrrTraceSlow").into(),
                        );
                        if let Some(p) = &preset {
                            let _ = js_sys::Reflect::set(&msg, &"preset".into(), &p.into());
                        }
                        if let Err(e) = w.post_message(&msg) {
                            self.fail(crate::js::js_err(e));
                        }
                    }
                    Some("progress") => {
                        let (b, t) = (
                            get(&d, "bytes").as_f64().unwrap_or(0.0),
                            get(&d, "total").as_f64().unwrap_or(0.0),
                        );
                        self.message.set(format!(
                            "Reading file {} : {} of {}…",
                            get(&d, "index").as_f64().unwrap_or(0.0) + 1.0,
                            units::si(b, "B"),
                            units::si(t, "B")
                        ));
                    }
                    Some("fatal") => self.fail(format!(
                        "the trace worker could not start: {}",
                        get(&d, "message").as_string().unwrap_or_default()
                    )),
                    Some("phase") => self.message.set("Decompressing…".into()),
                    Some("result") => match get(&d, "json").as_string().as_deref().and_then(decode)
                    {
                        Some(r) => got.push(r),
                        None => bad.push(format!("{name}: the worker's answer could not be read")),
                    },
                    Some("error") => bad.push(format!(
                        "{name}: {}",
                        get(&d, "message").as_string().unwrap_or_default()
                    )),
                    Some("done") => {
                        self.finish(std::mem::take(&mut got), std::mem::take(&mut bad), example)
                    }
                    _ => {}
                }
            });
        let on_error =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                self.fail(format!("the trace worker failed: {}", e.message()));
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.job.set_value(Some(Job {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        }));
    }

    fn finish(self, got: Vec<Rank>, bad: Vec<String>, example: bool) {
        // the worker is done: free its memory (after this message's handler returns)
        if let Some(w) = self
            .job
            .with_value(|j| j.as_ref().map(|j| j.worker.clone()))
        {
            w.terminate();
        }
        if got.is_empty() {
            self.errors.set(Vec::new());
            self.ranks.set(Vec::new());
            self.message.set(if bad.is_empty() {
                "No file was read.".into()
            } else {
                bad.join(" ")
            });
            self.phase.set(Phase::Error);
            return;
        }
        self.errors.set(bad);
        self.sel.set(0);
        let unknown: Vec<String> = got
            .iter()
            .filter(|r| r.preset.is_none())
            .map(|r| r.device.clone().unwrap_or_else(|| "(no name)".into()))
            .collect();
        let unknown = if unknown.is_empty() {
            String::new()
        } else {
            format!(
                " No hardware preset for the GPU {}: the breakdown and the regime hold, but its kernels are not placed on a roofline.",
                unknown.join(", ")
            )
        };
        self.message.set(if example {
            "The example: one rank of a real training run on an A100 (HTA's test trace). Choose your own trace to replace it.".into()
        } else {
            format!("{} of {} file(s) read.{unknown}", got.len(), got.len() + self.errors.with_untracked(Vec::len))
        });
        self.ranks.set(got);
        self.phase
            .set(if example { Phase::Example } else { Phase::Done });
    }

    fn fail(self, why: String) {
        self.job.set_value(None);
        self.ranks.set(Vec::new());
        self.errors.set(Vec::new());
        self.message.set(why);
        self.phase.set(Phase::Error);
    }

    fn cancel(self) {
        self.job.set_value(None);
        let back = self.before.get_untracked();
        self.phase
            .set(if back == Phase::Loading || back == Phase::Idle {
                Phase::Error
            } else {
                back
            });
        self.message
            .set("Cancelled: the worker was stopped; what was shown before stays.".into());
    }

    /// Reads what was last read again with `preset` for the roofline.
    fn repick(self, preset: Option<String>) {
        self.preset.set(preset);
        if let Some((items, example, first)) = self.last.get_value() {
            self.start(items, example, first);
        }
    }

    fn example(self) {
        self.preset.set(None);
        let items = js_sys::Array::of1(&EXAMPLE.into());
        self.start(items, true, "the example".into());
    }

    fn files(self, list: Option<web_sys::FileList>) {
        let Some(list) = list.filter(|l| l.length() > 0) else {
            return;
        };
        let items = js_sys::Array::new();
        for i in 0..list.length() {
            if let Some(f) = list.get(i) {
                items.push(&f);
            }
        }
        let first = list.get(0).map(|f| f.name()).unwrap_or_default();
        self.preset.set(None);
        self.start(items, false, first);
    }
}

/// A share as the page writes it; "—" when absent.
fn pc(v: f64) -> String {
    if v.is_finite() {
        units::percent(v)
    } else {
        "—".into()
    }
}
fn raw(v: f64) -> String {
    if v.is_finite() {
        v.to_string()
    } else {
        String::new()
    }
}

thread_local! {
    /// The page's theme, as the page last said (`set_dark`).
    static DARK: std::cell::Cell<Option<RwSignal<bool>>> = const { std::cell::Cell::new(None) };
}

/// Mounts the widget into `el` (the page's stand-in calls this once the module
/// is loaded), on the page's theme.
pub fn mount(el: web_sys::HtmlElement, dark: bool) {
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.set();
    let dark = RwSignal::new(dark);
    DARK.with(|d| d.set(Some(dark)));
    leptos::mount::mount_to(el, move || view! { <Trace dark=dark/> }).forget();
    std::mem::forget(owner);
}

/// The page's theme changed.
pub fn set_dark(on: bool) {
    if let Some(d) = DARK.with(std::cell::Cell::get) {
        d.set(on);
    }
}

#[component]
fn Trace(dark: RwSignal<bool>) -> impl IntoView {
    let g = Sig {
        phase: RwSignal::new(Phase::Idle),
        before: RwSignal::new(Phase::Idle),
        ranks: RwSignal::new(Vec::new()),
        sel: RwSignal::new(0),
        message: RwSignal::new("The example trace loads when this widget comes into view.".into()),
        errors: RwSignal::new(Vec::new()),
        job: StoredValue::new_local(None),
        last: StoredValue::new_local(None),
        preset: RwSignal::new(None),
    };
    // this app is loaded when the widget is first on screen: the example now
    g.example();
    let cur = Memo::new(move |_| g.ranks.with(|r| r.get(g.sel.get()).or(r.first()).cloned()));
    let first_file = move || match g.phase.get() {
        Phase::Done => g.ranks.with(|r| r.first().map(|r| r.file.clone())),
        _ => None,
    };
    let ro = move |name: &'static str, rawf: fn(&Rank) -> String, text: fn(&Rank) -> String| {
        view! { <Readout name=name raw=Signal::derive(move || cur.with(|c| c.as_ref().map(rawf).unwrap_or_default()))
        text=Signal::derive(move || cur.with(|c| c.as_ref().map_or("—".into(), text)))/> }
    };
    let share = move |name: &'static str, key: &'static str| {
        view! { <Readout name=name raw=Signal::derive(move || cur.with(|c| c.as_ref().map(|c| raw(c.num(key))).unwrap_or_default()))
        text=Signal::derive(move || cur.with(|c| c.as_ref().map_or("—".into(), |c| pc(c.num(key)))))/> }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(input) = input {
            g.files(input.files());
            input.set_value("");
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        g.files(ev.data_transfer().and_then(|d| d.files()));
    };
    let detail = move || cur.get().map(|c| detail(&c));
    view! {
        <div class="trace" data-trace-state=move || g.phase.get().id() data-trace-file=first_file
            on:dragover=|e: leptos::ev::DragEvent| e.prevent_default() on:drop=on_drop>
            <div class="trace-pick">
                <label class="file">"Choose trace files (.json, .json.gz) "
                    <input type="file" data-trace-input multiple accept=".json,.gz,application/json,application/gzip" on:change=on_change/></label>
                <button type="button" data-trace-cancel disabled=move || g.phase.get() != Phase::Loading on:click=move |_| g.cancel()>"Cancel"</button>
                <button type="button" data-trace-reset on:click=move |_| g.example()>"Reset to the example"</button>
            </div>
            <p class="note">"…or drop them here. Files are read inside this page by a worker thread: nothing leaves the page."</p>
            <p class="trace-status" data-trace-message role="status" aria-live="polite">{move || g.message.get()}</p>
            <ul class="trace-errors">{move || g.errors.get().into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
            {move || ranks_table(g)}
            <dl class="metrics">
                <div class="metric"><dt>"Ranks"</dt><dd><Readout name="trace_ranks" raw=Signal::derive(move || g.ranks.with(|r| if r.is_empty() { String::new() } else { r.len().to_string() }))
                    text=Signal::derive(move || g.ranks.with(|r| r.len().to_string()))/></dd></div>
                <div class="metric"><dt>"Rank"</dt><dd>{ro("trace_rank", |c| c.rank.map(|r| r.to_string()).unwrap_or_default(), |c| c.rank.map_or("unknown".into(), |r| r.to_string()))}</dd></div>
                <div class="metric"><dt>"GPU"</dt><dd>{ro("trace_device", |c| c.device.clone().unwrap_or_default(), |c| c.device.clone().unwrap_or_else(|| "unknown".into()))}</dd></div>
                <div class="metric"><dt>"Preset"</dt><dd>{ro("trace_preset", |c| c.preset.clone().unwrap_or_default(), |c| c.preset.clone().unwrap_or_else(|| "none (unknown GPU)".into()))}</dd></div>
                <div class="metric"><dt>"Kernels"</dt><dd>{ro("trace_kernels", |c| raw(c.num("kernels")), |c| units::sig3(c.num("kernels")))}</dd></div>
                <div class="metric"><dt>"Span"</dt><dd>{ro("trace_span_s", |c| raw(c.num("span_s")), |c| units::si(c.num("span_s"), "s"))}</dd></div>
                <div class="metric"><dt>"Idle"</dt><dd>{share("trace_idle_share", "idle_share")}</dd></div>
                <div class="metric"><dt>"Compute"</dt><dd>{share("trace_compute_share", "compute_share")}</dd></div>
                <div class="metric"><dt>"Non-compute"</dt><dd>{share("trace_noncompute_share", "noncompute_share")}</dd></div>
                <div class="metric"><dt>"Communication (of span)"</dt><dd>{share("trace_comm_share", "comm_share")}</dd></div>
                <div class="metric"><dt>"Memory-bound kernels (of span)"</dt><dd>{share("trace_memory_share", "memory_share")}</dd></div>
                <div class="metric"><dt>"Waiting for launches"</dt><dd>{share("trace_launch_wait_share", "launch_wait_share")}</dd></div>
                <div class="metric"><dt>"Kernels under 10 µs"</dt><dd>{share("trace_short_kernel_share", "short_kernel_share")}</dd></div>
                <div class="metric"><dt>"Kernels placed by shape"</dt><dd>{ro("trace_placed_kernels", |c| raw(c.num("placed_kernels")), |c| units::sig3(c.num("placed_kernels")))}</dd></div>
                <div class="metric"><dt>"Regime"</dt><dd>{ro("trace_regime", |c| c.regime.clone(), |c| format!("{}-bound", c.regime))}</dd></div>
                <div class="metric"><dt>"Best remedy"</dt><dd>{ro("trace_best_remedy", |c| c.best_remedy.clone().unwrap_or_default(), |c| c.best_remedy.clone().unwrap_or_else(|| "none".into()))}
                    " "{ro("trace_best_speedup", |c| raw(c.num("best_speedup")), |c| format!("{}×", units::sig3(c.num("best_speedup"))))}</dd></div>
            </dl>
            {detail}
            {move || (!g.ranks.with(Vec::is_empty)).then(|| gpu_select(g, cur))}
            <charts::TraceCharts cur=cur dark=dark/>
        </div>
    }
}

/// With several ranks: the slowest, the select of the rank shown, and one row
/// per rank.
fn ranks_table(g: Sig) -> Option<impl IntoView> {
    let ranks = g.ranks.get();
    (ranks.len() > 1).then(|| {
        let slowest = ranks.iter().enumerate()
            .max_by(|a, b| a.1.num("span_s").total_cmp(&b.1.num("span_s"))).map_or(0, |(i, _)| i);
        let name = |r: &Rank, i: usize| r.rank.map_or(format!("file {}", i + 1), |x| format!("rank {x}"));
        let slow_name = ranks.get(slowest).map(|r| format!("{} ({})", name(r, slowest), r.file)).unwrap_or_default();
        view! {
            <p class="note" data-trace-slowest=slowest.to_string()>"Slowest: "{slow_name}</p>
            <label class="select">"Rank shown "
                <select name="trace_rank" data-trace-rank-select
                    on:change=move |e| g.sel.set(event_target_value(&e).parse().unwrap_or(0))>
                    {ranks.iter().enumerate().map(|(i, r)| view! {
                        <option value=i.to_string() selected=move || g.sel.get() == i>{format!("{} — {}", name(r, i), r.file)}</option>
                    }).collect_view()}
                </select></label>
            {table("trace-ranks", "One row per file (rank)", &["rank", "file", "GPU", "span", "idle", "compute", "non-compute", "regime"],
                ranks.iter().enumerate().map(|(i, r)| vec![
                    if i == slowest { format!("{} (slowest)", name(r, i)) } else { name(r, i) }, r.file.clone(),
                    r.device.clone().unwrap_or_else(|| "unknown".into()), units::si(r.num("span_s"), "s"),
                    pc(r.num("idle_share")), pc(r.num("compute_share")), pc(r.num("noncompute_share")), r.regime.clone(),
                ]).collect())}
        }
    })
}

/// The GPU the roofline and the remedies use: the trace's own, or a preset.
fn gpu_select(g: Sig, cur: Memo<Option<Rank>>) -> impl IntoView {
    view! {
        <label class="select">"GPU for the roofline and remedies "
            <select name="trace_gpu" data-trace-preset on:change=move |e| {
                let v = event_target_value(&e);
                g.repick(hardware::preset(&v).map(|p| p.id.to_string()));
            }>
                <option value="" selected=move || g.preset.with(Option::is_none)>{move || cur.with(|c| {
                    match c.as_ref().and_then(|c| c.preset.clone()) {
                        Some(p) => format!("the trace's own ({p})"),
                        None => "the trace's own (no preset matches it)".to_string(),
                    }
                })}</option>
                {hardware::PRESETS.iter().map(|p| view! {
                    <option value=p.id selected=move || g.preset.get().as_deref() == Some(p.id)>{p.name}</option>
                }).collect_view()}
            </select></label>
    }
}

/// What the selected rank shows beyond its readouts.
fn detail(c: &Rank) -> impl IntoView {
    let bar = [
        ("overhead", "idle", c.num("idle_share")),
        ("compute", "compute", c.num("compute_share")),
        ("memory", "non-compute", c.num("noncompute_share")),
    ];
    let label = format!(
        "Where the GPU time went: idle {}, compute {}, non-compute {}",
        pc(bar[0].2),
        pc(bar[1].2),
        pc(bar[2].2)
    );
    let per_device = (c.devices.len() > 1).then(|| view! {
        <ul class="note">{c.devices.iter().map(|d| view! { <li>{format!("GPU {}: span {}, idle {}, compute {}, non-compute {}", d[0], units::si(d[1], "s"), pc(d[2]), pc(d[3]), pc(d[4]))}</li> }).collect_view()}</ul>
    });
    let saves = c.remedies.iter().map(|(id, label, sp)| {
        let helps = *sp >= BAR;
        view! { <li data-remedy=id.clone() data-speedup=sp.to_string() data-helps=if helps { "1" } else { "0" }>
            {label.clone()}" — "<span class="effect">{if helps { format!("{}× faster", units::sig3(*sp)) } else { format!("{}× (under the 5 % bar)", units::sig3(*sp)) }}</span></li> }
    }).collect_view();
    view! {
        <div class="share-bar" role="img" aria-label=label.clone() title=label>
            {bar.iter().map(|(cls, l, v)| view! { <div class=format!("share {cls}") style=format!("width:{:.3}%", 100.0 * v.max(0.0)) title=format!("{l}: {}", pc(*v))></div> }).collect_view()}
        </div>
        <ul class="legend">
            <li><span class="swatch region overhead"></span>"idle"</li>
            <li><span class="swatch compute"></span>"compute kernels (HTA)"</li>
            <li><span class="swatch memory"></span>"non-compute: communication, copies, memory"</li>
        </ul>
        {per_device}
        <p>{format!("Halving each cost would save: {}.", c.halvings.iter().map(|(k, v)| format!("{k} {}", pc(*v))).collect::<Vec<_>>().join(", "))}</p>
        <h4>"What would help (each remedy priced on this timeline)"</h4>
        <ul class="remedy-list">{saves}</ul>
        {table("trace-classes", "Kernel time by class", &["class", "kernels", "time", "share"],
            c.classes.iter().map(|(k, n, t, sh)| vec![k.clone(), units::sig3(*n), units::si(*t, "s"), pc(*sh)]).collect())}
        {table("trace-top", "Top kernels by time", &["kernel", "class", "calls", "time", "share"],
            c.top.iter().map(|(name, k, n, t, sh)| vec![short(name), k.clone(), units::sig3(*n), units::si(*t, "s"), pc(*sh)]).collect())}
    }
}

/// A captioned table in a keyboard-scrollable region; a row's first cell heads it.
fn table(
    class: &'static str,
    caption: &'static str,
    heads: &'static [&'static str],
    rows: Vec<Vec<String>>,
) -> AnyView {
    let rows = rows.into_iter().map(|r| {
        let mut cells = r.into_iter();
        let head = cells.next().unwrap_or_default();
        view! { <tr><th scope="row">{head}</th>{cells.map(|c| view! { <td>{c}</td> }).collect_view()}</tr> }
    });
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label=format!("{caption}, scrollable")>
            <table class=format!("kernels {class}")><caption>{caption}</caption>
                <thead><tr>{heads.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}</tr></thead>
                <tbody>{rows.collect_view()}</tbody>
            </table>
        </div>
    }
    .into_any()
}

fn short(name: &str) -> String {
    if name.chars().count() <= 60 {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(59).collect::<String>())
    }
}
