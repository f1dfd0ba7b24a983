//! Widget `lab`: "Measure my GPU", ITS OWN LEPTOS APP (mounted by
//! `src/bin/brrr-lab-ui.rs` when the page's stand-in, `ui/widgets/lab.rs`, imports it;
//! never by `start`). Shows the WebGPU adapter and its limits, runs
//! the lab (`gpu::web`) with a progress bar and a Cancel button, and shows the
//! copy bandwidth, the fused-vs-eager tables, the crossover, the dispatch
//! overhead and the measured roofline over the preset's. "Use my GPU" loads the
//! measured ceilings into the explorer. Results persist in localStorage
//! ([`STORAGE_KEY`]) and export/import as JSON or CSV.
//!
//! Test knobs: `?lab_size=small` (or `window.__brrrLabSmall = true`) runs at the
//! small size; `?lab_timer=wall` (or `window.__brrrLabWallClock = true`) times
//! with `performance.now()` even when timestamp queries exist;
//! `window.__brrrLabLoseDevice()` (present during a run) destroys the device and
//! returns `device.lost`;
//! `window.__brrrLabBreakShader = true` makes fused x·m ×2's WGSL invalid (read by
//! `gpu::web` when it compiles that variant).

mod cliff;
mod datasheet;
mod view;

use crate::gpu::results::{AdapterInfo, Kernel, LabRun, Op, Outcome};
use crate::gpu::table::Status;
use crate::gpu::{analysis, apply, export, table, web};
use crate::js;
use crate::model::units;
use crate::state::page::Knobs;
use crate::state::{url, State};
use crate::ui::chart::palette::{self, bg};
use crate::ui::chart::plot::{shared, PlotCanvas};
use crate::ui::chart::OnScreen;
use crate::ui::kit::download::save_text;
use crate::ui::kit::readout::Readout;
use crate::ui::kit::storage;
use crate::ui::kit::Ctx;
use crate::ui::widgets::roofline::{Measured, MeasuredPoint, RooflineData};
use cliff::LabCliff;
use datasheet::LabDatasheet;
use leptos::prelude::*;
use view::{AdapterList, LabDetails, LabMetrics};
use wasm_bindgen::{JsCast, JsValue};

/// Where results persist (versioned with the export format).
pub const STORAGE_KEY: &str = "brrr.lab.v1";

#[derive(Clone, PartialEq)]
enum Probe {
    Checking,
    Missing(String),
    Ready(AdapterInfo),
}

fn save(run: &LabRun) -> Result<(), String> {
    storage::set(STORAGE_KEY, &export::to_json_text(run))
        .map_err(|e| format!("could not save the results: {e}"))
}

/// The page this app runs in (`ui/widgets/lab.rs`): its shared state, as the URL
/// codec's query, read and written through two callbacks.
struct Page {
    /// `live()` → the page's state now.
    live: Option<js_sys::Function>,
    /// `apply(query)`: the page's state becomes this one.
    apply: Option<js_sys::Function>,
}

impl Page {
    fn live(&self) -> Option<State> {
        let q = self
            .live
            .as_ref()?
            .call0(&JsValue::NULL)
            .ok()?
            .as_string()?;
        Some(url::decode(&q).0)
    }
    fn apply(&self, s: &State) -> Result<(), String> {
        let f = self.apply.as_ref().ok_or("the page took no state")?;
        f.call1(&JsValue::NULL, &url::encode(s).into())
            .map(|_| ())
            .map_err(js::js_err)
    }
}

thread_local! {
    /// The state the widget draws and the theme, as the page last said.
    static SIGNALS: std::cell::Cell<Option<(RwSignal<State>, RwSignal<bool>)>> =
        const { std::cell::Cell::new(None) };
}

/// Mounts the widget into `el` (the page's stand-in calls this once the module is
/// loaded). `opts` (see `ui/widgets/lab.rs`): `dark`, the test knobs `small` and
/// `wall`, `view` (the state it draws, a URL query) and the callbacks `live` and
/// `apply` (see [`Page`]).
pub fn mount(el: web_sys::HtmlElement, opts: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(opts, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let flag = |k: &str| get(k).as_bool().unwrap_or(false);
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.set();
    let state = RwSignal::new(url::decode(&get("view").as_string().unwrap_or_default()).0);
    let dark = RwSignal::new(flag("dark"));
    SIGNALS.with(|s| s.set(Some((state, dark))));
    let ctx = Ctx::of_app(
        state,
        dark,
        Knobs {
            lab_small: flag("small"),
            lab_wall_clock: flag("wall"),
            debug_panic: false,
        },
    );
    let page = StoredValue::new_local(Page {
        live: get("live").dyn_into().ok(),
        apply: get("apply").dyn_into().ok(),
    });
    leptos::mount::mount_to(el, move || view! { <Lab ctx=ctx page=page/> }).forget();
    std::mem::forget(owner);
}

/// The page's theme changed.
pub fn set_dark(on: bool) {
    if let Some((_, d)) = SIGNALS.with(std::cell::Cell::get) {
        d.set(on);
    }
}

/// The state the page draws changed (a URL query).
pub fn set_view(query: &str) {
    if let Some((s, _)) = SIGNALS.with(std::cell::Cell::get) {
        s.set(url::decode(query).0);
    }
}

/// The lab's signals, shared by its actions and the parts of its view.
#[derive(Clone, Copy)]
struct Signals {
    probe: RwSignal<Probe>,
    status: RwSignal<Status>,
    message: RwSignal<Option<String>>,
    run: RwSignal<Option<LabRun>>,
    progress: RwSignal<(f64, String)>,
    cancel: RwSignal<bool>,
    applied: RwSignal<Option<String>>,
    /// The preset the figures are compared with: None = guessed from the adapter.
    preset_choice: RwSignal<Option<String>>,
    /// The results shown before an import replaced them, to compare with.
    previous: RwSignal<Option<LabRun>>,
}

impl Signals {
    fn new() -> Self {
        Signals {
            probe: RwSignal::new(Probe::Checking),
            status: RwSignal::new(Status::Idle),
            message: RwSignal::new(None),
            run: RwSignal::new(None),
            progress: RwSignal::new((0.0, String::new())),
            cancel: RwSignal::new(false),
            applied: RwSignal::new(None),
            preset_choice: RwSignal::new(None),
            previous: RwSignal::new(None),
        }
    }

    /// An outcome becomes the status, unless the lab cannot run here at all.
    fn settle(self, o: Outcome) {
        if !matches!(self.probe.get_untracked(), Probe::Missing(_)) {
            self.status.try_set(Status::of(o));
        }
    }

    /// Results of an earlier visit; unreadable data is reported and left in place.
    fn load_saved(self) {
        if let Ok(Some(text)) = storage::get(STORAGE_KEY) {
            match export::import(&text) {
                Ok(r) => {
                    self.status.set(Status::of(r.outcome));
                    self.run.set(Some(r));
                }
                Err(e) => self.message.set(Some(format!(
                    "Saved lab results (localStorage “{STORAGE_KEY}”) could not be read ({e}); \
                     they were left untouched. A new run replaces them."
                ))),
            }
        }
    }

    /// Ask for an adapter only once the lab is (nearly) on screen: visitors who
    /// never reach it cost nothing, and a browser without adapters does not log
    /// its "no available adapters" warning on every page load.
    fn probe_when_on_screen(self, on_screen: OnScreen) {
        let (probe, status) = (self.probe, self.status);
        Effect::new(move |probed: Option<bool>| {
            if probed == Some(true) || !on_screen.get() {
                return probed.unwrap_or(false);
            }
            leptos::task::spawn_local(async move {
                match web::probe().await {
                    Ok(info) => {
                        probe.try_set(Probe::Ready(info));
                    }
                    Err(e) => {
                        probe.try_set(Probe::Missing(e));
                        status.try_set(Status::Unsupported);
                    }
                }
            });
            true
        });
    }

    /// "Run": the whole sweep, saved after every measurement.
    fn start(self, small: bool, wall: bool) {
        if self.status.get_untracked() == Status::Running
            || !matches!(self.probe.get_untracked(), Probe::Ready(_))
        {
            return;
        }
        self.cancel.set(false);
        self.status.set(Status::Running);
        self.message.set(None);
        self.applied.set(None);
        self.progress.set((0.0, "starting".into()));
        let small = small || js::flag("__brrrLabSmall");
        let wall = wall || js::flag("__brrrLabWallClock");
        leptos::task::spawn_local(async move {
            let cancelled = move || self.cancel.get_untracked();
            let prog = move |f: f64, what: &str| {
                self.progress.try_set((f, what.to_string()));
            };
            let update = move |r: &LabRun| {
                if let Err(e) = save(r) {
                    self.message.try_set(Some(e));
                }
                self.run.try_set(Some(r.clone()));
            };
            let hooks = web::Hooks {
                cancelled: &cancelled,
                progress: &prog,
                update: &update,
            };
            let result = web::run(small, wall, &hooks).await;
            self.finish(result);
        });
    }

    /// A run ended: the progress line says how (never "cancelling…"), the
    /// status and the message follow.
    fn finish(self, result: Result<LabRun, String>) {
        let ended = match &result {
            Ok(r) => table::progress_end(r.outcome),
            Err(_) => "failed",
        };
        self.progress.try_update(|p| p.1 = ended.into());
        match result {
            Ok(r) => {
                self.settle(r.outcome);
                if !r.reason.is_empty() {
                    self.message.try_set(Some(r.reason.clone()));
                }
            }
            Err(e) => {
                self.status.try_set(Status::Failed);
                self.message.try_set(Some(e));
            }
        }
    }

    /// "Import…": a file chosen in the input, read, checked and saved.
    fn import(self, ev: leptos::ev::Event) {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let text = js::wait(file.text()).await;
            let result = text
                .map_err(js::js_err)
                .and_then(|t| {
                    t.as_string()
                        .ok_or_else(|| "the file is not text".to_string())
                })
                .and_then(|t| export::import(&t));
            match result {
                Ok(r) => {
                    let saved = save(&r);
                    self.settle(r.outcome);
                    self.message.try_set(Some(match saved {
                        Ok(()) => format!(
                            "Imported {}.",
                            units::count(
                                r.measurements.len() as u32,
                                "measurement",
                                "measurements"
                            )
                        ),
                        Err(e) => format!("Imported, but {e}."),
                    }));
                    self.previous.try_set(self.run.get_untracked());
                    self.run.try_set(Some(r));
                }
                Err(e) => {
                    self.message.try_set(Some(format!("Import failed: {e}")));
                }
            }
        });
    }

    /// "Export JSON" / "Export CSV": the run as a file named after its date.
    fn export(self, csv: bool) {
        self.run.with_untracked(|r| {
            let Some(r) = r else { return };
            let stamp: String = r
                .date
                .chars()
                .filter(char::is_ascii_digit)
                .take(14)
                .collect();
            let res = if csv {
                save_text(
                    &format!("brrr-lab-{stamp}.csv"),
                    "text/csv",
                    &export::to_csv(r),
                )
            } else {
                save_text(
                    &format!("brrr-lab-{stamp}.json"),
                    "application/json",
                    &export::to_json_text(r),
                )
            };
            if let Err(e) = res {
                self.message.set(Some(format!("Export failed: {e}")));
            }
        });
    }

    /// "Use my GPU": the page's state now with the measured ceilings applied,
    /// handed back to the page.
    fn use_gpu(self, ctx: Ctx, page: StoredValue<Page, LocalStorage>) {
        let run = self.run;
        let Some(sum) = run
            .with_untracked(|r| r.as_ref().map(analysis::summary))
            .filter(|s| s.copy_bw.is_some() || s.peak_flops.is_some())
        else {
            self.applied
                .set(Some("No verified measurements to use yet.".into()));
            return;
        };
        let adapter =
            run.with_untracked(|r| r.as_ref().map(|r| r.adapter.name()).unwrap_or_default());
        let mut s = page
            .with_value(Page::live)
            .unwrap_or_else(|| ctx.state.get_untracked());
        let choice = self.preset_choice.get_untracked();
        let base = run.with_untracked(|r| {
            r.as_ref()
                .and_then(|r| crate::gpu::datasheet::base(choice.as_deref(), &r.adapter))
        });
        let cliff = run.with_untracked(|r| r.as_ref().and_then(crate::gpu::cliff::of_run));
        let res = apply::apply(&mut s, &sum, &adapter, base, cliff.as_ref().map(|c| &c.0))
            .and_then(|a| {
                page.with_value(|p| p.apply(&s))?;
                Ok(a)
            });
        self.applied.set(Some(match res {
            Err(e) => e,
            Ok(a) => applied_text(&s, &a),
        }));
    }
}

/// What "Use my GPU" says it did.
fn applied_text(s: &State, a: &apply::Applied) -> String {
    let mut parts = vec![
        format!(
            "{} peak {} (pointwise {})",
            s.setting.dtype.id(),
            units::si(a.flops, "FLOP/s"),
            units::si(s.machine().pointwise_flops, "FLOP/s")
        ),
        format!("bandwidth {}", units::si(a.bw, "B/s")),
    ];
    if let Some(o) = a.overhead {
        parts.push(format!("overhead {} per kernel", units::si(o, "s")));
    }
    if let Some(l2) = a.l2 {
        parts.push(format!(
            "L2 {} up to {} (the cache cliff)",
            units::si(l2.bw, "B/s"),
            units::si(l2.fits, "B")
        ));
    }
    format!(
        "The explorer now describes this GPU as “{}”: {}. Every widget follows. {}",
        s.hw_name(),
        parts.join(", "),
        s.mygpu_line().unwrap_or_default()
    )
}

#[component]
fn Lab(ctx: Ctx, page: StoredValue<Page, LocalStorage>) -> impl IntoView {
    // read now: the URL is rewritten to the explorer's keys once the app mounts
    let (small_url, wall_url) = (ctx.knobs.lab_small, ctx.knobs.lab_wall_clock);
    let l = Signals::new();
    l.load_saved();
    let root = NodeRef::<leptos::html::Div>::new();
    l.probe_when_on_screen(OnScreen::new(root));
    let (probe, status, run) = (l.probe, l.status, l.run);
    view! {
        <div class="lab" node_ref=root data-lab-status=move || status.get().id()
            data-lab-gpu=move || match probe.get() {
                Probe::Checking => "checking",
                Probe::Missing(_) => "missing",
                Probe::Ready(_) => "ready",
            }
            data-lab-results=move || if run.with(Option::is_some) { "yes" } else { "no" }>
            <LabIntro/>
            <div class="lab-gpu">
                {move || match probe.get() {
                    Probe::Checking => view! { <p class="note">"Looking for WebGPU…"</p> }.into_any(),
                    Probe::Missing(e) => view! {
                        <p id="lab-fallback" class="notice">
                            {e}" The rest of the page works without it, and results saved or imported earlier still show below."
                        </p>
                    }
                    .into_any(),
                    Probe::Ready(a) => view! { <AdapterList a=a/> }.into_any(),
                }}
            </div>
            <LabActions l=l on_run=move || l.start(small_url, wall_url) on_use=move || l.use_gpu(ctx, page)/>
            <LabProgress l=l/>
            <div class="lab-results">{move || view! { <LabMetrics run=run.get()/> }}</div>
            <LabDatasheet run=run.into() choice=l.preset_choice previous=l.previous/>
            <LabChart ctx=ctx run=run/>
            <LabCliff ctx=ctx run=run/>
            <div class="lab-details">
                {move || {
                    let running = status.get() == Status::Running;
                    view! { <LabDetails run=run.get() running=running/> }
                }}
            </div>
        </div>
    }
}

/// What the lab does, in a paragraph.
#[component]
fn LabIntro() -> impl IntoView {
    view! {
        <p>
            "Runs the essay's microbenchmark on this machine through WebGPU: a copy kernel for "
            "bandwidth, then "<code>"x = x · m"</code>" and "<code>"x = cos(x)"</code>" chains of 1 to 1024 "
            "ops per element, each once as one fused kernel and once as one kernel per op, and a fused "
            <code>"x = fma(x, x, c)"</code>" chain for the compute ceiling: no compiler may shorten it "
            "(one of "<code>"x · m"</code>" may be, and then the lab says so). Every "
            "kernel's output is checked against the same chain computed on the CPU; nothing leaves "
            "your browser. It takes from seconds to a few minutes and the page stays usable."
        </p>
    }
}

/// The buttons: run, cancel, use, export, import.
#[component]
fn LabActions(
    l: Signals,
    on_run: impl Fn() + Copy + 'static,
    on_use: impl Fn() + Copy + 'static,
) -> impl IntoView {
    view! {
        <div class="lab-actions">
            // shown by CSS from data-lab-status / data-lab-gpu, so no reactive attributes
            <button id="lab-run" class="lab-button primary" on:click=move |_| on_run()>"Run"</button>
            <button id="lab-cancel" class="lab-button" on:click=move |_| {
                l.cancel.set(true);
                l.progress.update(|p| p.1 = "cancelling…".into());
            }>"Cancel"</button>
            <button id="lab-use" class="lab-button has-run" on:click=move |_| on_use()>"Use my GPU"</button>
            <button id="lab-export-json" class="lab-button has-run" on:click=move |_| l.export(false)>"Export JSON"</button>
            <button id="lab-export-csv" class="lab-button has-run" on:click=move |_| l.export(true)>"Export CSV"</button>
            <label class="lab-button lab-file">"Import…"
                <input id="lab-import" type="file" accept=".json,.csv,application/json,text/csv"
                    on:change=move |ev| l.import(ev)/>
            </label>
        </div>
    }
}

/// The progress bar, the status line and what "Use my GPU" did.
#[component]
fn LabProgress(l: Signals) -> impl IntoView {
    let (progress, status, message, applied) = (l.progress, l.status, l.message, l.applied);
    view! {
        <div class="lab-progress" class:idle=move || progress.with(|p| p.1.is_empty())>
            <progress id="lab-progress" max="1" prop:value=move || progress.get().0
                aria-label="Lab progress"></progress>
            <Readout name="lab_progress" raw=Signal::derive(move || progress.get().0.to_string())
                text=Signal::derive(move || progress.with(|p| format!("{:.0} % — {}", p.0 * 100.0, p.1)))/>
        </div>
        <p class="lab-status" role="status" aria-live="polite">
            "Status: "<Readout name="lab_status" raw=Signal::derive(move || status.get().id().to_string())
                text=Signal::derive(move || status.get().text().to_string())/>
            " "<span id="lab-message">{move || message.get()}</span>
        </p>
        <p id="lab-applied" class="note">{move || applied.get()}</p>
    }
}

/// The measured roofline over the preset's model (the shared chart component:
/// exports included), with its legend.
#[component]
fn LabChart(ctx: Ctx, run: RwSignal<Option<LabRun>>) -> impl IntoView {
    let chart_data = Memo::new(move |_| {
        // the preset's L2 roof too, where a source gives one
        let m = ctx.view.with(|s| s.cached());
        run.with(|r| RooflineData {
            m,
            kernels: vec![],
            step: None,
            link: None,
            measured: r.as_ref().and_then(measured),
        })
    });
    view! {
        <figure class="chart">
            <PlotCanvas ctx=ctx id="lab-roofline" data=shared(chart_data)
                label="Roofline of the selected preset with this GPU's measured roofline and kernels over it."/>
            <figcaption>
                <ul class="legend">
                    <li><span class="swatch" style=bg(palette::GREEN)></span>"this GPU, measured (copy bandwidth, fma chain ceiling, FMA = 2 FLOP)"</li>
                    <li><span class="dot" style=bg(palette::GREEN)></span>"fused x·m"</li>
                    <li><span class="dot" style=bg(palette::PINK)></span>"fused cos"</li>
                    <li>"fused fma: the same green dots, at twice the FLOP of x·m per op"</li>
                    <li><span class="dot" style=bg(palette::WHITE)></span>"eager (hollow)"</li>
                    <li>"orange, blue, purple: the selected preset's model, as in the explorer"</li>
                </ul>
                <p class="note">
                    "Expect the measured copy bandwidth a little under the datasheet's: mixbench, a "
                    "microbenchmark that sweeps operational intensity the same way, sustains about 94 % "
                    "of an RTX 2070's theoretical bandwidth at low intensity."
                </p>
            </figcaption>
        </figure>
    }
}

/// This GPU's measured roofline and every verified kernel, for the chart.
fn measured(run: &LabRun) -> Option<Measured> {
    let s = analysis::summary(run);
    let bw = s.copy_bw?;
    let points = run
        .measurements
        .iter()
        .filter(|k| k.usable() && k.op.is_some())
        .filter_map(|k| {
            Some(MeasuredPoint {
                intensity: k.intensity(),
                flops: k.achieved_flops()?,
                fused: k.kernel == Kernel::Fused,
                cos: k.op == Some(Op::Cos),
                repeat: k.repeat,
                time: k.time()?,
            })
        })
        .collect();
    Some(Measured {
        bw,
        peak: s.peak_flops.map(|p| p.0),
        points,
    })
}
