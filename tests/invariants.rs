//! The structural invariants of ARCHITECTURE.md that no compiler checks, read
//! from the sources (comments left out): which module may name which crate or
//! browser API, and the layers of `ui/`. Each test names the invariant it keeps.

use std::path::Path;

/// Every `.rs` file under `src/`, as (path from the repository root, code with
/// its comments removed).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.push((rel, strip_comments(&text)));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("src"), root, &mut out);
    assert!(out.len() > 100, "{} source files", out.len());
    out
}

/// The code without `//` comments (doc comments included) and `/* */` blocks;
/// strings are kept (a URL or a CSS class is code too).
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut cut = line.len();
        for (i, ch) in line.char_indices() {
            if ch == '"' && prev != '\\' {
                in_str = !in_str;
            }
            if !in_str && ch == '/' && prev == '/' {
                cut = i - 1;
                break;
            }
            prev = ch;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The files whose code names `what`.
fn naming(files: &[(String, String)], what: &str) -> Vec<String> {
    files
        .iter()
        .filter(|(_, code)| code.contains(what))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The pure core never names a web or GPU crate: it compiles and tests
/// natively, and the page's .wasm holds no `wgpu`.
#[test]
fn the_core_names_no_web_or_gpu_crate() {
    let files = sources();
    let core = |p: &str| {
        ["src/model/", "src/state/", "src/trace/", "src/gpu/"]
            .iter()
            .any(|d| p.starts_with(d))
            || ["src/geom.rs", "src/factory.rs", "src/csv.rs"].contains(&p)
    };
    let shells = |p: &str| p.starts_with("src/gpu/web/") || p.starts_with("src/gpu/native/");
    for what in [
        "leptos",
        "web_sys",
        "wasm_bindgen",
        "js_sys",
        "wgpu",
        "plotters",
    ] {
        let bad: Vec<String> = naming(&files, &format!("{what}::"))
            .into_iter()
            .chain(naming(&files, &format!("use {what}")))
            .filter(|p| core(p) && !shells(p))
            .collect();
        assert!(bad.is_empty(), "{what} named in the core: {bad:?}");
    }
}

/// `ui/` in layers: kit/ at the bottom, chart/ above it, widgets/ above that,
/// shell/ and apps/ on top; no file imports a layer above its own.
#[test]
fn ui_layers_import_only_downwards() {
    let files = sources();
    let layer = |name: &str| match name {
        "kit" => Some(0),
        "chart" => Some(1),
        "widgets" => Some(2),
        "shell" | "apps" => Some(3),
        _ => None,
    };
    let mut checked = 0;
    for (p, code) in &files {
        let Some(own) = p
            .strip_prefix("src/ui/")
            .and_then(|r| r.split('/').next())
            .filter(|d| !d.ends_with(".rs"))
            .and_then(layer)
        else {
            continue;
        };
        checked += 1;
        for (i, _) in code.match_indices("crate::ui::") {
            let target: String = code[i + "crate::ui::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(t) = layer(&target) {
                assert!(
                    t <= own && !(t == 3 && own == 3 && !p.contains(&format!("/{target}/"))),
                    "{p} imports ui::{target}, a layer above or beside its own"
                );
            }
        }
    }
    assert!(checked > 50, "{checked} ui files");
}

/// Every promise the page and the lab await goes through `js::wait`, the one
/// `JsFuture` in their .wasm; the trace worker, a .wasm of its own, awaits its
/// own.
#[test]
fn promises_are_awaited_in_one_place() {
    let files = sources();
    assert_eq!(
        naming(&files, "JsFuture"),
        ["src/bin/brrr-trace-worker.rs", "src/js.rs"]
    );
}

/// The URL is read in one place: the shell's store hands `location.search` to
/// `state::page::decode`.
#[test]
fn the_url_is_read_in_one_place() {
    let files = sources();
    assert_eq!(naming(&files, ".search()"), ["src/ui/shell/store.rs"]);
}

/// One IntersectionObserver and one ResizeObserver helper (`js`), the only
/// other observer being an embed's height report.
#[test]
fn observers_are_made_in_one_place() {
    let files = sources();
    for what in ["IntersectionObserver::new", "ResizeObserver::new"] {
        let mut got = naming(&files, what);
        got.retain(|p| p != "src/ui/shell/embed.rs");
        assert_eq!(got, ["src/js.rs"], "{what}");
    }
}

/// Storage goes through `ui::kit::storage` (the lab's results, the theme).
#[test]
fn storage_is_read_in_one_place() {
    let files = sources();
    assert_eq!(naming(&files, "local_storage()"), ["src/ui/kit/storage.rs"]);
}

/// plotters is named by the chart layer, by the view files whose line in the
/// widget list (`state::widgets::widget_list!`) says `charts`, and by the chart
/// parts several views share (ARCHITECTURE.md lists them).
#[test]
fn plotters_is_named_by_the_chart_layer_and_the_charts() {
    let files = sources();
    let shared = [
        "src/ui/apps/trace/charts.rs",
        "src/ui/widgets/llm_measured.rs",
        "src/ui/widgets/roofline.rs",
        "src/ui/widgets/scaling.rs",
    ];
    let mut charts: Vec<String> = brrr::state::widgets::DECLARED
        .iter()
        .filter(|d| d.charts)
        .map(|d| format!("src/ui/widgets/{}.rs", d.file))
        .chain(shared.iter().map(|f| f.to_string()))
        .collect();
    charts.sort();
    let mut got: Vec<String> = naming(&files, "plotters::");
    got.retain(|p| !p.starts_with("src/ui/chart/"));
    assert_eq!(got, charts);
}
