//! The structural invariants of ARCHITECTURE.md that no compiler checks, read
//! from the sources (comments left out): which module may name which crate or
//! browser API, and the layers of `ui/`. Each test names the invariant it keeps.

use std::path::Path;

/// Every `.rs` file under `src/`, as (path from the repository root, code with
/// its comments removed).
fn sources() -> Vec<(String, String)> {
    raw_sources()
        .into_iter()
        .map(|(p, text)| (p, strip_comments(&text)))
        .collect()
}

/// Every `.rs` file under `src/`, as (path from the repository root, its whole
/// text, comments included).
fn raw_sources() -> Vec<(String, String)> {
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
                out.push((rel, text));
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
        "src/ui/apps/lab/cliff.rs",
        "src/ui/apps/trace/charts.rs",
        "src/ui/widgets/llm_measured.rs",
        "src/ui/widgets/roofline.rs",
        "src/ui/widgets/scaling.rs",
    ];
    let mut charts: Vec<String> = brrr::state::registry::DECLARED
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

/// The widget list (`state::widgets::widget_list!`) declares each widget's two
/// modules, its state file and its view file, so `cargo fmt`, which does not
/// expand macros, never reaches them: rustfmt checks them here, in the
/// package's edition (`rustfmt --edition 2021 FILES` formats them).
#[test]
fn the_files_the_widget_list_declares_are_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let edition = manifest
        .lines()
        .find_map(|l| l.strip_prefix("edition = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("Cargo.toml names the edition");
    let mut files = Vec::new();
    for d in brrr::state::registry::DECLARED {
        files.push(root.join(format!("src/state/widgets/{}.rs", d.file)));
        let view = root.join(format!("src/ui/widgets/{}.rs", d.file));
        files.push(if view.exists() {
            view
        } else {
            root.join(format!("src/ui/widgets/{}/mod.rs", d.file))
        });
    }
    assert!(files.iter().all(|f| f.exists()), "{files:?}");
    let rustfmt = std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".to_string());
    let out = std::process::Command::new(&rustfmt)
        .args(["--check", "--edition", edition])
        .args(&files)
        .output()
        .unwrap_or_else(|e| panic!("{rustfmt} runs (rustup component add rustfmt): {e}"));
    assert!(
        out.status.success(),
        "not formatted (`rustfmt --edition {edition}` on them formats them):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The code outside `#[cfg(test)]` items (a test module, a test-only `use`):
/// tests may reach any layer, so the layers are read from the rest.
fn without_tests(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        // the item ends at its first `;` outside braces or at the brace that
        // closes its body
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, ch) in item.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The module path of a source file: `src/model/gemm/mod.rs` is
/// `["model", "gemm"]`, `src/model/limit.rs` `["model", "limit"]`.
fn module_of(path: &str) -> Vec<String> {
    let inner = path.strip_prefix("src/").unwrap_or(path);
    let inner = inner.strip_suffix(".rs").unwrap_or(inner);
    let mut m: Vec<String> = inner.split('/').map(str::to_string).collect();
    if m.last().is_some_and(|l| l == "mod" || l == "lib") {
        m.pop();
    }
    m
}

/// The paths code names, each as written and where it starts: `a::b::{c, d::e}`
/// gives `a::b::c` and `a::b::d::e`.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    fn ident(s: &str) -> usize {
        s.char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i)
    }
    /// The path at the start of `s` (after `prefix`), expanded.
    fn expand(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut segs = prefix.to_vec();
        let mut s = s.trim_start();
        loop {
            if let Some(group) = s.strip_prefix('{') {
                let mut depth = 1usize;
                let mut start = 0;
                for (i, ch) in group.char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' | ',' if depth == 1 => {
                            expand(&group[start..i], &segs, out);
                            start = i + 1;
                            if ch == '}' {
                                return;
                            }
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                return;
            }
            let n = ident(s);
            if n == 0 {
                break;
            }
            segs.push(s[..n].to_string());
            match s[n..].strip_prefix("::") {
                Some(next) => s = next.trim_start(),
                None => break,
            }
        }
        if segs.len() > prefix.len() {
            out.push(segs);
        }
    }
    let mut out = Vec::new();
    for (i, _) in code.match_indices("::") {
        // the start of the path this `::` belongs to, when it is its first
        let head_start = code[..i]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .last()
            .map_or(i, |(j, _)| j);
        let before = code[..head_start].chars().next_back().unwrap_or(' ');
        if head_start == i || before == ':' || before.is_alphanumeric() || before == '_' {
            continue;
        }
        let mut found = Vec::new();
        expand(&code[head_start..], &[], &mut found);
        out.extend(found.into_iter().map(|p| (head_start, p)));
    }
    out
}

/// The modules written inline in `code` (`mod NAME { … }`), each with the span
/// of its body: a path inside one starts from it.
fn inline_modules(code: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("mod ") {
        if code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let after = &code[i + 4..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let rest = after[name.len()..].trim_start();
        if name.is_empty() || !rest.starts_with('{') {
            continue;
        }
        let open = code.len() - rest.len();
        let mut depth = 0usize;
        for (j, ch) in code[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((open, open + j, name));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// How a part of `src/` is cut into rooms.
#[derive(Clone, Copy)]
enum Rooms<'a> {
    /// `src/<top>`: each top-level file and each folder; `mod.rs` is a room of
    /// its own.
    Folders(&'a str),
    /// `src/<top>`: each file (`widgets/llm.rs` is `widgets/llm`, the folder's
    /// `mod.rs` `widgets`); `<top>/mod.rs` is `mod`.
    Files(&'a str),
    /// `src/` itself: each top-level file and folder of the library (the
    /// binaries, `main.rs` and `bin/`, are crates of their own).
    Top,
}

impl Rooms<'_> {
    /// The room of the module `m` (a path from the crate's root), if it is in
    /// this part.
    fn of(self, m: &[String]) -> Option<String> {
        match self {
            Rooms::Folders(top) => (m.first().is_some_and(|f| f == top))
                .then(|| m.get(1).cloned().unwrap_or_else(|| "mod".to_string())),
            Rooms::Files(top) => (m.first().is_some_and(|f| f == top)).then(|| {
                if m.len() == 1 {
                    "mod".to_string()
                } else {
                    m[1..].join("/")
                }
            }),
            Rooms::Top => match m.first().map(String::as_str) {
                Some("bin" | "main") => None,
                Some(f) => Some(f.to_string()),
                None => Some("lib".to_string()),
            },
        }
    }
}

/// The rooms of a part of `src/` ([`Rooms`]) and which room's code outside
/// tests names which other's: a path from `crate::`, `super::`, `self::` or a
/// child module, resolved to the deepest module it names (`crate::model::Dtype`
/// names `model/mod.rs`, which re-exports it).
fn room_edges(files: &[(String, String)], rooms: Rooms) -> Vec<(String, String, String)> {
    let modules: Vec<(Vec<String>, &str)> = files
        .iter()
        .map(|(p, _)| (module_of(p), p.as_str()))
        .collect();
    let is_module = |m: &[String]| modules.iter().any(|(x, _)| x == m);
    let room = |m: &[String]| rooms.of(m);
    // a test file: declared by `#[cfg(test)] mod NAME;`, or inside one
    let mut test_mods: Vec<Vec<String>> = Vec::new();
    for (p, code) in files {
        let own = module_of(p);
        for (i, _) in code.match_indices("#[cfg(test)]") {
            let after = code[i + "#[cfg(test)]".len()..].trim_start();
            let after = after.strip_prefix("pub ").unwrap_or(after);
            if let Some(decl) = after.strip_prefix("mod ") {
                let name: String = decl
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if decl[name.len()..].trim_start().starts_with(';') {
                    let mut m = own.clone();
                    m.push(name);
                    test_mods.push(m);
                }
            }
        }
    }
    let mut edges = Vec::new();
    for (p, code) in files {
        let own = module_of(p);
        let Some(from) = room(&own) else { continue };
        if test_mods.iter().any(|t| own.starts_with(t)) {
            continue;
        }
        let code = without_tests(code);
        let inline = inline_modules(&code);
        for (at, path) in paths_in(&code) {
            // the module the path is written in: the file's, or one inline in it
            let mut own = own.clone();
            own.extend(
                inline
                    .iter()
                    .filter(|(open, close, _)| *open < at && at < *close)
                    .map(|m| m.2.clone()),
            );
            let (mut base, rest): (Vec<String>, &[String]) = match path[0].as_str() {
                "crate" => (Vec::new(), &path[1..]),
                "self" => (own.clone(), &path[1..]),
                "super" => {
                    let ups = path.iter().take_while(|s| *s == "super").count();
                    (own[..own.len().saturating_sub(ups)].to_vec(), &path[ups..])
                }
                first => {
                    let mut child = own.clone();
                    child.push(first.to_string());
                    if !is_module(&child) {
                        continue;
                    }
                    (own.clone(), &path[..])
                }
            };
            let mut target = base.clone();
            for seg in rest {
                base.push(seg.clone());
                if is_module(&base) {
                    target = base.clone();
                } else {
                    break;
                }
            }
            if let Some(to) = room(&target) {
                if to != from {
                    edges.push((from.clone(), to, p.clone()));
                }
            }
        }
    }
    edges.sort();
    edges.dedup();
    edges
}

/// A circle of rooms (`a → b → … → a`), if the rooms' imports hold one.
fn a_circle(edges: &[(String, String, String)]) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &[(String, String, String)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut circle = path[i..].to_vec();
            circle.push(at.to_string());
            return Some(circle);
        }
        if done.iter().any(|d| d == at) {
            return None;
        }
        path.push(at.to_string());
        for (_, to, _) in edges.iter().filter(|(f, _, _)| f == at) {
            if let Some(c) = visit(to, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(at.to_string());
        None
    }
    let mut done = Vec::new();
    edges
        .iter()
        .find_map(|(from, _, _)| visit(from, edges, &mut Vec::new(), &mut done))
}

/// Fails, naming each arrow and the files that draw it, when the rooms'
/// imports hold a circle.
fn assert_no_circle(edges: &[(String, String, String)], what: &str) {
    if let Some(circle) = a_circle(edges) {
        let via: Vec<String> = circle
            .windows(2)
            .map(|w| {
                let files: Vec<&str> = edges
                    .iter()
                    .filter(|(f, t, _)| *f == w[0] && *t == w[1])
                    .map(|e| e.2.as_str())
                    .collect();
                format!("{} → {} ({})", w[0], w[1], files.join(", "))
            })
            .collect();
        panic!("{what} import in a circle:\n{}", via.join("\n"));
    }
}

/// Inside `src/model` nothing runs back up: the rooms (each top-level file,
/// each folder, and `mod.rs` with what it re-exports) import one another in
/// no circle, so they stack in floors with every import pointing down. Test
/// code may reach any layer and is not read.
#[test]
fn model_rooms_import_in_no_circle() {
    let files = sources();
    let edges = room_edges(&files, Rooms::Folders("model"));
    assert!(edges.len() > 50, "{} edges", edges.len());
    assert_no_circle(&edges, "model's rooms");
}

/// Inside `src/state` nothing runs back up: its files (each widget's file, the
/// registry, `mod.rs` with what it re-exports) import one another in no
/// circle, so they stack in floors with every import pointing down (the
/// `State` below the widgets' files, which name it; the registry, which reads
/// their specs, above them). Test code is not read.
#[test]
fn state_modules_import_only_downwards() {
    let files = sources();
    let edges = room_edges(&files, Rooms::Files("state"));
    assert!(edges.len() > 60, "{} edges", edges.len());
    assert!(
        edges
            .iter()
            .any(|(f, t, _)| f == "widgets/llm" && t == "data"),
        "the widgets' files name the State"
    );
    assert_no_circle(&edges, "state's modules");
}

/// Between the top-level modules of `src/` nothing runs back up (`model`, then
/// `state` and `trace`, `gpu`, `ui`; the ground files `json`, `geom`, `csv`,
/// `colour`, `js`): they import one another in no circle. Test code is not
/// read (the model's tests do build a `state::State`).
#[test]
fn top_level_modules_import_only_downwards() {
    let files = sources();
    let edges = room_edges(&files, Rooms::Top);
    assert!(edges.len() > 10, "{} edges", edges.len());
    for (from, to) in [("state", "model"), ("ui", "state"), ("gpu", "json")] {
        assert!(
            edges.iter().any(|(f, t, _)| f == from && t == to),
            "{from} → {to} is read"
        );
    }
    assert_no_circle(&edges, "src's top-level modules");
}

/// The rooms are cut as asked: the state's by file (a widget's file is a room
/// of its own), the top level by top-level module (the binaries left out).
#[test]
fn the_room_reader_cuts_files_and_the_top() {
    let files: Vec<(String, String)> = [
        ("src/state/mod.rs", "pub use data::State;\n"),
        ("src/state/data.rs", "use crate::state::widgets::Widgets;\n"),
        ("src/state/widgets/mod.rs", "use crate::model::Setting;\n"),
        (
            "src/state/widgets/llm.rs",
            "use crate::state::data::State;\n",
        ),
        ("src/model/mod.rs", "use crate::json::Value;\n"),
        ("src/json.rs", ""),
        ("src/main.rs", "use crate::state::State;\n"),
    ]
    .iter()
    .map(|(p, c)| (p.to_string(), c.to_string()))
    .collect();
    let pairs = |rooms| -> Vec<(String, String)> {
        room_edges(&files, rooms)
            .into_iter()
            .map(|(f, t, _)| (f, t))
            .collect()
    };
    let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    };
    assert_eq!(
        pairs(Rooms::Files("state")),
        own(&[
            ("data", "widgets"),
            ("mod", "data"),
            ("widgets/llm", "data")
        ])
    );
    assert_eq!(
        pairs(Rooms::Top),
        own(&[("model", "json"), ("state", "model")])
    );
}

/// The room reader sees what it must: a path through a re-export, `super`, a
/// brace group and a child module each draw their edge, and test code none.
#[test]
fn the_room_reader_reads_paths() {
    let files = vec![
        (
            "src/model/mod.rs".to_string(),
            "pub mod a;\npub use a::X;\n".to_string(),
        ),
        (
            "src/model/a.rs".to_string(),
            "use super::{b::Y, c};\n".to_string(),
        ),
        (
            "src/model/b.rs".to_string(),
            "fn f() -> crate::model::X { todo!() }\n".to_string(),
        ),
        (
            "src/model/c/mod.rs".to_string(),
            "#[cfg(test)]\nmod t { use crate::model::a; }\n".to_string(),
        ),
        (
            "src/model/d.rs".to_string(),
            "pub struct S;\nmod inner { use super::S; }\n".to_string(),
        ),
    ];
    let edges: Vec<(String, String)> = room_edges(&files, Rooms::Folders("model"))
        .into_iter()
        .map(|(f, t, _)| (f, t))
        .collect();
    let want = [("a", "b"), ("a", "c"), ("b", "mod"), ("mod", "a")];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    assert_eq!(edges, want);
    assert_eq!(
        a_circle(&room_edges(&files, Rooms::Folders("model"))),
        Some(vec!["a".into(), "b".into(), "mod".into(), "a".into()])
    );
}

/// Inside `src/model` no file runs back up either: its files import one
/// another in no circle, within a folder as across folders. A folder's
/// `mod.rs` holds the folder's shared types and gathers its files' answers, so
/// its arrows into its own files are the folder's, not a file's, and are not
/// read; every other arrow is. Test code is not read.
#[test]
fn model_files_import_in_no_circle() {
    let files = sources();
    let edges: Vec<_> = room_edges(&files, Rooms::Files("model"))
        .into_iter()
        .filter(|(from, to, _)| !to.starts_with(&format!("{from}/")))
        .collect();
    assert!(edges.len() > 100, "{} edges", edges.len());
    assert!(
        edges
            .iter()
            .any(|(f, t, _)| f == "llm/mla" && t == "llm/kernels"),
        "a file's arrow to a file beside it is read"
    );
    assert_no_circle(&edges, "model's files");
}

/// Paths name modules from the crate's root (`crate::`), never by climbing
/// (`super::super`); and nothing in `src/`, comments or strings, cites "issue N"
/// of a tracker that is not in the repository (an outside tracker is cited by
/// its URL, `.../issues/13957`).
#[test]
fn no_climbing_paths_and_no_tracker_numbers() {
    let files = raw_sources();
    let climbing = naming(&files, "super::super");
    assert!(climbing.is_empty(), "super::super in {climbing:?}");
    let cites = |text: &str| {
        let low = text.to_lowercase();
        low.match_indices("issue").any(|(i, _)| {
            let rest = low[i + "issue".len()..].trim_start_matches([' ', '#']);
            low[i + "issue".len()..].starts_with([' ', '#'])
                && rest.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let numbered: Vec<&String> = files
        .iter()
        .filter(|(_, t)| cites(t))
        .map(|(p, _)| p)
        .collect();
    assert!(numbered.is_empty(), "\"issue N\" in {numbered:?}");
    // the reader finds what it looks for
    assert!(cites("see issue 53") && cites("Issue #7") && !cites(".../issues/13957"));
    assert!(!cites("an issue 'x'"));
}
