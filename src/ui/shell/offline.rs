//! Register the service worker (static/sw.js) so the page works offline after the
//! first visit. Optional: where the browser has no service workers (or the page is
//! not on http(s)), nothing happens and nothing is reported as an error.

use leptos::task::spawn_local;

pub fn register() {
    let Some(win) = web_sys::window() else { return };
    let protocol = win.location().protocol().unwrap_or_default();
    if protocol != "https:" && protocol != "http:" {
        return;
    }
    // `navigator.serviceWorker` is undefined in insecure contexts.
    let nav = win.navigator();
    let has_sw = js_sys::Reflect::has(&nav, &"serviceWorker".into()).unwrap_or(false)
        && win.is_secure_context();
    if !has_sw {
        return;
    }
    let promise = nav.service_worker().register("./sw.js");
    spawn_local(async move {
        // a failed registration only means no offline support
        let _ = crate::js::wait(promise).await;
    });
}
