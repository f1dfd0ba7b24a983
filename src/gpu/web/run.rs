//! The whole run: open the device, create buffers and queries, then the sweep
//! (`plan::sweep`, per dtype, after the copy kernel and the overheads), reporting
//! progress and every measurement; the outcome and its reason in words.

use super::buffers::{buffer, cache_buffer, work_buffers};
use super::device::{adapter, info_of, limits_of, open_device, Session};
use super::driver::Rig;
use super::glue::{get_str, yield_now, LOSS_GRACE_TASKS};
use super::queries::Queries;
use super::{Hooks, Res, Stop};
use crate::gpu::plan::{self, Plan};
use crate::gpu::procedure::{self, Lab, OPENING};
use crate::gpu::results::*;
use crate::js::wait;
use js_sys::Reflect;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::gpu_buffer_usage as usage;

/// Run the whole lab. `Err` when nothing could be measured at all (no WebGPU, no
/// adapter, no device, limits too small, or the device lost or an error before the
/// first measurement); otherwise the run, complete, partial (device lost, error) or
/// cancelled, with everything measured so far. A run cancelled before its first
/// measurement is returned empty and is neither shown nor saved (`hooks.update`).
pub async fn run(small: bool, wall_clock: bool, hooks: &Hooks<'_>) -> Result<LabRun, String> {
    (hooks.progress)(0.0, OPENING);
    let adapter = adapter().await?;
    let info = info_of(&adapter);
    let limits = limits_of(&adapter);
    let plan = plan::plan(&limits, small).map_err(|e| format!("Limits too small: {e}."))?;
    let device = open_device(&adapter, &info).await?;

    let lost = Rc::new(RefCell::new(None::<String>));
    {
        let lost = lost.clone();
        let p = device.lost();
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(i) = wait(p).await {
                let reason = get_str(&i, "reason");
                let msg = get_str(&i, "message");
                *lost.borrow_mut() = Some(if msg.is_empty() {
                    format!("reason: {reason}")
                } else {
                    format!("{msg} (reason: {reason})")
                });
            }
        });
    }
    let errors = Rc::new(RefCell::new(Vec::<String>::new()));
    let on_error = {
        let errors = errors.clone();
        Closure::<dyn FnMut(web_sys::GpuUncapturedErrorEvent)>::new(
            move |e: web_sys::GpuUncapturedErrorEvent| {
                e.prevent_default();
                errors
                    .borrow_mut()
                    .push(format!("GPU error: {}", e.error().message()));
            },
        )
    };
    device.set_onuncapturederror(Some(on_error.as_ref().unchecked_ref()));
    let lost_hook = {
        let d = device.clone();
        // returns `device.lost`, so a test can wait until the loss is known
        Closure::<dyn FnMut() -> wasm_bindgen::JsValue>::new(move || {
            d.destroy();
            d.lost().into()
        })
    };
    if let Some(w) = web_sys::window() {
        let _ = Reflect::set(&w, &"__brrrLabLoseDevice".into(), lost_hook.as_ref());
    }
    let session = Session {
        device: device.clone(),
        _lost_hook: lost_hook,
        _on_error: on_error,
    };

    // saved as it goes: a run cut short by a reload or a crash stays marked partial
    let mut run = procedure::begin(
        &info,
        &plan,
        small,
        wall_clock,
        js_sys::Date::new_0().to_iso_string().into(),
        "Interrupted: the page was closed or reloaded during the run.",
    );
    let timer = run.timer;
    if info.fallback {
        run.notes.push(
            "This is a software (fallback) adapter: it runs on the CPU, so the figures describe \
             the CPU, not a GPU."
                .into(),
        );
    }
    if timer == Timer::WallClock {
        run.notes.push(if info.timestamps && wall_clock {
            "Timed with performance.now() around onSubmittedWorkDone (requested), minus the \
             measured round trip."
                .into()
        } else {
            "No timestamp queries on this adapter: timed with performance.now() around \
             onSubmittedWorkDone, minus the measured round trip."
                .into()
        });
    }

    let result = session_run(&session, plan, timer, lost.clone(), errors, hooks, &mut run).await;
    // A GPU promise can be rejected before device.lost resolves (a pending mapAsync
    // aborts first), and under load that takes more than one task: give the loss up
    // to LOSS_GRACE_TASKS tasks (each a zero-delay timeout) so it is reported as the
    // loss. Only an error pays this; checked before our own destroy below.
    let result = match result {
        Err(Stop::Error(m)) => {
            for _ in 0..LOSS_GRACE_TASKS {
                if lost.borrow().is_some() {
                    break;
                }
                yield_now().await;
            }
            let l = lost.borrow().clone();
            Err(l.map_or(Stop::Error(m), Stop::Lost))
        }
        r => r,
    };
    drop(session);
    // stopped before the first measurement: nothing to keep, so the results shown
    // and saved earlier (if any) stay as they were
    let none = run.measurements.is_empty();
    if result.is_ok() {
        (hooks.progress)(1.0, "done");
    }
    procedure::settle(
        &mut run,
        result,
        "nothing was measured; earlier results, if any, are unchanged",
    );
    if none {
        if run.outcome == Outcome::Partial {
            return Err(run.reason);
        }
    } else {
        (hooks.update)(&run);
    }
    Ok(run)
}

/// Buffers and queries on the open device, then the procedure's sweep.
async fn session_run(
    s: &Session,
    mut plan: Plan,
    timer: Timer,
    lost: Rc<RefCell<Option<String>>>,
    errors: Rc<RefCell<Vec<String>>>,
    hooks: &Hooks<'_>,
    run: &mut LabRun,
) -> Res<()> {
    let device = &s.device;
    // buffers, halving the size while the GPU runs out of memory
    let (a, b) = work_buffers(device, &mut plan, &mut run.notes).await?;
    run.elements = plan.elements(Dt::F32);
    let c = cache_buffer(device, &mut plan, &mut run.notes).await?;
    let uniform = buffer(device, 16.0, usage::UNIFORM | usage::COPY_DST)?;
    let staging = buffer(device, 8192.0 * 4.0, usage::MAP_READ | usage::COPY_DST)?;
    let queries = if timer == Timer::Timestamps {
        Some(Queries::new(device)?)
    } else {
        None
    };
    let rig = Rig {
        queue: device.queue(),
        device: device.clone(),
        lost,
        errors,
        a,
        b,
        c,
        uniform,
        staging,
        queries,
        hooks,
    };
    let dts = procedure::dtypes(&run.adapter);
    let mut lab = Lab::new(rig, plan, timer);
    let result = lab.sweep(&dts, run, hooks.update).await;
    for e in lab.driver.errors.borrow().iter().take(5) {
        run.notes.push(e.clone());
    }
    result
}
