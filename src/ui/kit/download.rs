//! Save a file from the page (PNG, SVG, CSV, JSON exports): a temporary link with
//! the `download` attribute. Errors come back as sentences, never panics.

use wasm_bindgen::{JsCast, JsValue};

fn click_link(name: &str, href: &str) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a = doc
        .create_element("a")
        .map_err(|_| "could not create a link")?
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .map_err(|_| "could not create a link")?;
    a.set_href(href);
    a.set_download(name);
    a.click();
    Ok(())
}

/// Save `text` as a file of type `mime`.
pub fn save_text(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|_| "the browser refused to build the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser refused to save the file")?;
    let result = click_link(name, &url);
    // the download has started from the click; the object URL can go after a tick
    let to_revoke = url.clone();
    gloo_timers::callback::Timeout::new(1_000, move || {
        let _ = web_sys::Url::revoke_object_url(&to_revoke);
    })
    .forget();
    result
}

/// Save a `data:` URL (a canvas's PNG).
pub fn save_data_url(name: &str, url: &str) -> Result<(), String> {
    click_link(name, url)
}
