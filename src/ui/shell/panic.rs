//! Last line of defence: if something still panics, the WASM instance is dead, so
//! show a banner (built with DOM calls, no HTML strings) with the message and a link
//! that reloads the page with the same state, instead of a frozen page.

use wasm_bindgen::JsCast;

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&info.to_string());
    }));
}

fn show_banner(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = doc.body() else { return };
    let Ok(banner) = doc.create_element("div") else {
        return;
    };
    banner.set_id("panic-banner");
    banner.set_class_name("panic-banner");
    let _ = banner.set_attribute("role", "alert");
    if let Ok(p) = doc.create_element("p") {
        p.set_text_content(Some(
            "brrr hit an internal error and stopped responding. Your settings are in the address bar.",
        ));
        let _ = banner.append_child(&p);
    }
    if let Ok(code) = doc.create_element("code") {
        code.set_text_content(Some(message));
        let _ = banner.append_child(&code);
    }
    if let Ok(a) = doc.create_element("a") {
        let href = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let _ = a.set_attribute("href", &href);
        a.set_text_content(Some("Reload with the same state"));
        let _ = banner.append_child(&a);
    }
    if let Some(first) = body.first_child() {
        let _ = body.insert_before(&banner, Some(&first));
    } else {
        let _ = body.append_child(&banner);
    }
    if let Ok(el) = banner.dyn_into::<web_sys::HtmlElement>() {
        let _ = el.focus();
    }
}
