//! "Diagnose your own run": a torch.profiler trace → where each GPU's
//! time went and which cost, halved, shortens the run most.
//!
//! Two .wasm files besides the page's, both fetched only when the widget first
//! comes on screen: this UI is its own Leptos app (`src/bin/brrr-trace-ui.rs`,
//! mounted by the page's stand-in `ui/widgets/trace.rs`), so the page's first load does
//! not carry it; the parsing and the analysis (`crate::trace`) run in a Web
//! Worker (`src/bin/brrr-trace-worker.rs`, protocol in its module docs). This
//! file starts the worker, follows its messages and draws the rows it posts
//! (`trace::report::Row` as JSON, the one schema, `trace_row`). The readouts
//! are the CLI's `--json` fields, unrounded; two files of one rank are compared
//! before and after (`trace_compare`).

use crate::ui::kit::readout::Readout;
mod charts;
mod compare;
mod row;

use crate::model::hardware;
use crate::model::units;
use crate::trace::{remedy, words};
use leptos::prelude::*;
use row::{decode, pc, raw, secs, Rank};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};

/// The worker's loader (static/trace-worker.js), beside index.html.
const WORKER: &str = "trace-worker.js";
/// The bundled example: HTA's A100 test trace (README, credits).
const EXAMPLE: &str = "example/rank0.json.gz";

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
    /// The first two files compared before → after (else ranks of one run).
    compare: RwSignal<bool>,
    /// The names of the files last chosen (the example: none).
    loaded: RwSignal<Vec<String>>,
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
        // two files of the same rank (or of none) are one model before and after
        self.compare
            .set(got.len() >= 2 && got.first().map(|r| r.rank) == got.get(1).map(|r| r.rank));
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
        self.loaded.set(Vec::new());
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
        self.loaded.set(
            (0..list.length())
                .filter_map(|i| list.get(i))
                .map(|f| f.name())
                .collect(),
        );
        self.preset.set(None);
        self.start(items, false, first);
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
        compare: RwSignal::new(false),
        loaded: RwSignal::new(Vec::new()),
    };
    // this app is loaded when the widget is first on screen: the example now
    g.example();
    let cur = Memo::new(move |_| g.ranks.with(|r| r.get(g.sel.get()).or(r.first()).cloned()));
    let first_file = move || match g.phase.get() {
        Phase::Done => g.ranks.with(|r| r.first().map(|r| r.file.clone())),
        _ => None,
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        let files = ev.data_transfer().and_then(|d| d.files());
        // the file input names what was dropped, as it names what was chosen
        let input = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.query_selector("[data-trace-input]").ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let (Some(input), Some(list)) = (input, files.as_ref()) {
            input.set_files(Some(list));
        }
        g.files(files);
    };
    let detail = move || cur.get().map(|c| detail(&c));
    view! {
        <div class="trace" data-trace-state=move || g.phase.get().id() data-trace-file=first_file
            on:dragover=|e: leptos::ev::DragEvent| e.prevent_default() on:drop=on_drop>
            <Picker g=g/>
            <p class="note">"…or drop them here. Files are read inside this page by a worker thread: nothing leaves the page."</p>
            <p class="trace-status" data-trace-message role="status" aria-live="polite">{move || g.message.get()}</p>
            <ul class="trace-errors">{move || g.errors.get().into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
            <RanksTable g=g/>
            <compare::ComparePanel ranks=g.ranks on=g.compare/>
            <Readouts g=g cur=cur/>
            {detail}
            <GpuPicker g=g cur=cur/>
            <charts::TraceCharts cur=cur dark=dark/>
        </div>
    }
}

/// The file input (it keeps naming the files read; a drop puts them there
/// too), Cancel and Reset.
#[component]
fn Picker(g: Sig) -> impl IntoView {
    let input = NodeRef::<leptos::html::Input>::new();
    let on_change = move |ev: leptos::ev::Event| {
        let el = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(el) = el {
            g.files(el.files());
        }
    };
    // the input names the files read: a drop sets them on it, the example clears it
    Effect::new(move |_| {
        let names = g.loaded.get();
        if let Some(el) = input.get() {
            if names.is_empty() && !el.value().is_empty() {
                el.set_value("");
            }
        }
    });
    let loaded = move || {
        g.loaded.with(|n| match n.as_slice() {
            [] => "Showing the bundled example.".to_string(),
            [one] => format!("Read: {one}"),
            many => format!("Read: {}", many.join(", ")),
        })
    };
    view! {
        <div class="trace-pick">
            <label class="file">"Choose trace files (.json, .json.gz) "
                <input type="file" node_ref=input data-trace-input multiple accept=".json,.gz,application/json,application/gzip" on:change=on_change/></label>
            <button type="button" data-trace-cancel disabled=move || g.phase.get() != Phase::Loading on:click=move |_| g.cancel()>"Cancel"</button>
            <button type="button" data-trace-reset on:click=move |_| g.example()>"Reset to the example"</button>
            <span class="note" data-trace-loaded>{loaded}</span>
        </div>
    }
}

/// The run table's heads, its first column named `first`.
const fn run_heads(first: &'static str) -> [&'static str; 8] {
    [
        first,
        "file",
        "GPU",
        "span",
        "idle",
        "kernels busy (HTA's compute)",
        "HTA's non-compute",
        "regime",
    ]
}
const RANK_HEAD: [&str; 8] = run_heads("rank");
const RUN_HEAD: [&str; 8] = run_heads("run");

/// Several files: one row each, the slowest named, the rank shown picked; two
/// files compared are "before" and "after", not ranks.
#[component]
fn RanksTable(g: Sig) -> impl IntoView {
    move || {
        let ranks = g.ranks.get();
        let compared = g.compare.get() && ranks.len() == 2;
        (ranks.len() > 1).then(|| {
            let slowest = ranks
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.span_s.total_cmp(&b.1.span_s))
                .map_or(0, |(i, _)| i);
            let name = |r: &Rank, i: usize| if compared {
                crate::trace::compare::file_label(i).to_string()
            } else {
                r.rank.map_or(format!("file {}", i + 1), |x| format!("rank {x}"))
            };
            let (shown, caption, head) = if compared {
                ("Run shown ", "One row per file: before the change, then after it", &RUN_HEAD)
            } else {
                ("Rank shown ", "One row per file (rank)", &RANK_HEAD)
            };
            let slow_name = ranks.get(slowest).map(|r| format!("{} ({})", name(r, slowest), r.file)).unwrap_or_default();
            let rows = ranks.iter().enumerate().map(|(i, r)| vec![
                if i == slowest { format!("{} (slowest)", name(r, i)) } else { name(r, i) }, r.file.clone(),
                r.device.clone().unwrap_or_else(|| "unknown".into()), units::si(r.span_s, "s"),
                pc(Some(r.idle_share)), pc(Some(r.compute_share)), pc(Some(r.noncompute_share)), format!("{}-bound", r.regime),
            ]).collect();
            view! {
                <p class="note" data-trace-slowest=slowest.to_string()>"Slowest: "{slow_name}</p>
                <label class="select">{shown}
                    <select name="trace_rank" data-trace-rank-select
                        on:change=move |e| g.sel.set(event_target_value(&e).parse().unwrap_or(0))>
                        {ranks.iter().enumerate().map(|(i, r)| view! {
                            <option value=i.to_string() selected=move || g.sel.get() == i>{format!("{} — {}", name(r, i), r.file)}</option>
                        }).collect_view()}
                    </select></label>
                {table("trace-ranks", caption, head, rows)}
            }
        })
    }
}

/// One readout of the rank shown.
fn ro(
    cur: Memo<Option<Rank>>,
    name: &'static str,
    rawf: fn(&Rank) -> String,
    text: fn(&Rank) -> String,
) -> impl IntoView {
    view! { <Readout name=name raw=Signal::derive(move || cur.with(|c| c.as_ref().map(rawf).unwrap_or_default()))
    text=Signal::derive(move || cur.with(|c| c.as_ref().map_or("—".into(), text)))/> }
}

/// A share readout of the rank shown.
fn share(
    cur: Memo<Option<Rank>>,
    name: &'static str,
    f: fn(&Rank) -> Option<f64>,
) -> impl IntoView {
    view! { <Readout name=name raw=Signal::derive(move || cur.with(|c| raw(c.as_ref().and_then(f))))
    text=Signal::derive(move || cur.with(|c| pc(c.as_ref().and_then(f))))/> }
}

#[component]
fn Readouts(g: Sig, cur: Memo<Option<Rank>>) -> impl IntoView {
    view! {
        <dl class="metrics">
            <div class="metric"><dt>"Ranks"</dt><dd><Readout name="trace_ranks" raw=Signal::derive(move || g.ranks.with(|r| if r.is_empty() { String::new() } else { r.len().to_string() }))
                text=Signal::derive(move || g.ranks.with(|r| r.len().to_string()))/></dd></div>
            <div class="metric"><dt>"Rank"</dt><dd>{ro(cur, "trace_rank", |c| c.rank.map(|r| r.to_string()).unwrap_or_default(), |c| c.rank.map_or("unknown".into(), |r| r.to_string()))}</dd></div>
            <div class="metric"><dt>"GPU"</dt><dd>{ro(cur, "trace_device", |c| c.device.clone().unwrap_or_default(), |c| c.device.clone().unwrap_or_else(|| "unknown".into()))}</dd></div>
            <div class="metric"><dt>"Preset"</dt><dd>{ro(cur, "trace_preset", |c| c.preset.clone().unwrap_or_default(), |c| c.preset.clone().unwrap_or_else(|| "none (unknown GPU)".into()))}</dd></div>
            <div class="metric"><dt>"Kernels"</dt><dd>{ro(cur, "trace_kernels", |c| c.kernels.to_string(), |c| units::sig3(c.kernels as f64))}</dd></div>
            <div class="metric"><dt>"Span"</dt><dd>{ro(cur, "trace_span_s", |c| raw(Some(c.span_s)), |c| units::si(c.span_s, "s"))}</dd></div>
            <div class="metric"><dt>"Steps (ProfilerStep)"</dt><dd>{ro(cur, "trace_steps", |c| c.steps.to_string(), |c| if c.steps == 0 { "none marked".into() } else { c.steps.to_string() })}</dd></div>
            <div class="metric"><dt>"Step"</dt><dd>{ro(cur, "trace_step_s", |c| raw(Some(c.step_s)), words::step_text)}</dd></div>
            <div class="metric"><dt>"Idle (HTA)"</dt><dd>{share(cur, "trace_idle_share", |c| Some(c.idle_share))}</dd></div>
            <div class="metric"><dt>"Kernels busy (HTA's compute)"</dt><dd>{share(cur, "trace_compute_share", |c| Some(c.compute_share))}</dd></div>
            <div class="metric"><dt>"HTA's non-compute"</dt><dd>{share(cur, "trace_noncompute_share", |c| Some(c.noncompute_share))}</dd></div>
            <div class="metric"><dt>"Idle waiting on the host (of idle, HTA)"</dt><dd>{share(cur, "trace_idle_host_share", |c| c.idle_host_share)}</dd></div>
            <div class="metric"><dt>"Idle between queued kernels (of idle, HTA)"</dt><dd>{share(cur, "trace_idle_kernel_share", |c| c.idle_kernel_share)}</dd></div>
            <div class="metric"><dt>"Other idle (of idle, HTA)"</dt><dd>{share(cur, "trace_idle_other_share", |c| c.idle_other_share)}</dd></div>
            <div class="metric"><dt>"Communication (of span)"</dt><dd>{share(cur, "trace_comm_share", |c| Some(c.comm_share))}</dd></div>
            <div class="metric"><dt>"Communication beside compute (HTA)"</dt><dd>{share(cur, "trace_comm_overlap", |c| c.comm_overlap)}</dd></div>
            <div class="metric"><dt>"Memory-bound kernels (of span)"</dt><dd>{share(cur, "trace_memory_share", |c| Some(c.memory_share))}</dd></div>
            <div class="metric"><dt>"Waiting for launches"</dt><dd>{share(cur, "trace_launch_wait_share", |c| Some(c.launch_wait_share))}</dd></div>
            <div class="metric"><dt>"Median launch delay (HTA)"</dt><dd>{ro(cur, "trace_launch_delay_median_s", |c| raw(c.launch_delay_median_s), |c| secs(c.launch_delay_median_s))}</dd></div>
            <div class="metric"><dt>"Kernels under 10 µs"</dt><dd>{share(cur, "trace_short_kernel_share", |c| Some(c.short_kernel_share))}</dd></div>
            <div class="metric"><dt>"Kernels placed by shape"</dt><dd>{ro(cur, "trace_placed_kernels", |c| c.placed_kernels.to_string(), |c| units::sig3(c.placed_kernels as f64))}</dd></div>
            <div class="metric"><dt>"Regime"</dt><dd>{ro(cur, "trace_regime", |c| c.regime.clone(), |c| format!("{}-bound", c.regime))}</dd></div>
            <div class="metric"><dt>"Best remedy"</dt><dd>{ro(cur, "trace_best_remedy", |c| c.best_remedy.clone().unwrap_or_default(), |c| c.best_remedy.as_deref().map_or("none", remedy::name).to_string())}
                " "{ro(cur, "trace_best_speedup", |c| raw(c.best_speedup), |c| c.best_speedup.map_or("—".into(), |x| format!("{}×", units::sig3(x))))}</dd></div>
        </dl>
    }
}

/// The GPU the roofline and the remedies use (the files are read again).
#[component]
fn GpuPicker(g: Sig, cur: Memo<Option<Rank>>) -> impl IntoView {
    move || {
        (!g.ranks.with(Vec::is_empty)).then(|| view! {
        <label class="select">"GPU for the roofline, the kernels' limits and the remedies "
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
    })
    }
}

/// What the selected rank shows beyond its readouts.
fn detail(c: &Rank) -> impl IntoView {
    let bar = [
        ("overhead", "idle", c.idle_share),
        ("compute", "kernels busy (HTA's compute)", c.compute_share),
        ("memory", "HTA's non-compute", c.noncompute_share),
    ];
    let label = format!(
        "Where the GPU time went, in HTA's terms: idle {}, kernels busy {}, non-compute {}",
        pc(Some(bar[0].2)),
        pc(Some(bar[1].2)),
        pc(Some(bar[2].2))
    );
    let per_device = (c.devices.len() > 1).then(|| view! {
        <ul class="note">{c.devices.iter().map(|d| view! { <li>{format!("GPU {}: span {}, idle {}, kernels busy {}, non-compute {}", d.device, units::si(d.span_s, "s"), pc(Some(d.idle_share)), pc(Some(d.compute_share)), pc(Some(d.noncompute_share)))}</li> }).collect_view()}</ul>
    });
    view! {
        <div class="share-bar" role="img" aria-label=label.clone() title=label>
            {bar.iter().map(|(cls, l, v)| view! { <div class=format!("share {cls}") style=format!("width:{:.3}%", 100.0 * v.max(0.0)) title=format!("{l}: {}", pc(Some(*v)))></div> }).collect_view()}
        </div>
        <ul class="legend">
            <li><span class="swatch region overhead"></span>"idle"</li>
            <li><span class="swatch compute"></span>"kernels busy (HTA's \"compute\": every kernel but copies and collectives)"</li>
            <li><span class="swatch memory"></span>"HTA's non-compute: communication, copies"</li>
        </ul>
        {per_device}
        <p data-trace-regime-note>{words::regime_sentence(c)}</p>
        {remedies(c)}
        {table("trace-classes", "Kernel time by class (by name)", &["class", "kernels", "time", "per step", "share"],
            c.classes.iter().map(|k| vec![k.class.clone(), units::sig3(k.count as f64), units::si(k.time_s, "s"), units::si(k.step_s, "s"), pc(Some(k.share))]).collect())}
        {table("trace-top", "Top kernels by time", &["kernel", "class", "calls", "time", "share"],
            c.top_kernels.iter().map(|k| vec![words::short(&k.name, 60), k.class.clone(), units::sig3(k.count as f64), units::si(k.time_s, "s"), pc(Some(k.share))]).collect())}
    }
}

/// The remedies as sentences, each with its predicted step.
fn remedies(c: &Rank) -> impl IntoView {
    let profiled = words::profiled_note(c);
    let items = c.remedy_list.iter().map(|r| {
        let words::RemedyWords { helps, effect, unprofiled } = words::remedy_words(c, r);
        view! { <li data-remedy=r.id.clone() data-speedup=r.speedup.to_string() data-step-after=r.step_after_s.to_string() data-helps=if helps { "1" } else { "0" }>
            <strong>{remedy::name(&r.id)}</strong>": "{r.label.clone()}". "<span class="effect">{effect}{unprofiled}</span></li> }
    }).collect_view();
    view! {
        <h4>"What would help (each remedy priced on this trace, per step)"</h4>
        {profiled.map(|p| view! { <p class="note" data-trace-profiled>{p}</p> })}
        <ul class="remedy-list">{items}</ul>
    }
}

/// A captioned table in a keyboard-scrollable region; a row's first cell heads it.
pub(super) fn table(
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
