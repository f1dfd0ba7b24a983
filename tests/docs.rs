//! The generated parts of docs/contract.md (the URL keys, the widgets and their
//! embeds, from the registry and the codec) and docs/accuracy.md (the model
//! against every stored measurement, from the model's own comparison code).
//!
//! Each file is prose with generated regions between
//! `<!-- generated: NAME -->` and `<!-- end: NAME -->`. A test fails when a
//! committed region differs from what the code writes today; to rewrite them:
//!
//! ```sh
//! BRRR_BLESS=1 cargo test --test docs
//! ```
//!
//! The readouts (`data-metric` names) are prose in docs/contract.md: the test
//! `every_readout_the_ui_names_is_in_the_contract` greps `src/` for the names
//! the page publishes and fails on any the contract does not name.

use brrr::model::llm::measured as llm;
use brrr::model::serve::measured as serve;
use brrr::model::shapes::measured as gemm;
use brrr::state::params::{milli_text, WKind, WParam, XKind};
use brrr::state::registry::WIDGETS;
use brrr::state::widgets::explorer;
use std::fmt::Write as _;
use std::path::PathBuf;

const BLESS: &str = "BRRR_BLESS=1 cargo test --test docs";

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `text` with each generated region replaced by `regions`' text for it; an
/// error names a region the file lacks.
fn fill(text: &str, regions: &[(&str, String)]) -> Result<String, String> {
    let mut out = text.to_string();
    for (name, body) in regions {
        let open = format!("<!-- generated: {name} -->\n");
        let close = format!("<!-- end: {name} -->");
        let start = out
            .find(&open)
            .ok_or_else(|| format!("no `{}` line", open.trim()))?
            + open.len();
        let end = out[start..]
            .find(&close)
            .ok_or_else(|| format!("no `{close}` line"))?
            + start;
        out.replace_range(start..end, body);
    }
    Ok(out)
}

/// The committed file against its regenerated regions; with `BRRR_BLESS=1`,
/// writes the regenerated file instead.
fn check(path: &str, regions: &[(&str, String)]) {
    let file = repo(path);
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    let fresh = match fill(&committed, regions) {
        Ok(f) => f,
        Err(e) => panic!("{path}: {e}"),
    };
    if std::env::var("BRRR_BLESS").is_ok_and(|v| v == "1") {
        if fresh != committed {
            if let Err(e) = std::fs::write(&file, &fresh) {
                panic!("{path}: {e}");
            }
        }
        return;
    }
    if fresh != committed {
        let line = committed
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(fresh.lines().count()));
        panic!(
            "{path} is stale: line {} differs from what the code writes now\n  committed: {:?}\n  generated: {:?}\nregenerate with `{BLESS}` and commit the file",
            line + 1,
            committed.lines().nth(line).unwrap_or(""),
            fresh.lines().nth(line).unwrap_or(""),
        );
    }
}

// ---------------------------------------------------------------------------
// docs/contract.md
// ---------------------------------------------------------------------------

/// A count as the contract writes it: `2^30` for a power of two from 2^20, else
/// the number.
fn count(v: u32) -> String {
    if v >= 1 << 20 && v.is_power_of_two() {
        format!("2^{}", v.trailing_zeros())
    } else {
        v.to_string()
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn accepted(p: &WParam) -> String {
    match p.kind {
        WKind::Int { min, max, .. } => format!("integer {} … {}", count(min), count(max)),
        WKind::Flag { .. } => "`1` / `0`".into(),
        WKind::Choice { names, .. } => names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(" "),
        WKind::Milli { min, max } => format!(
            "decimal {} … {}, to three places",
            milli_text(min),
            milli_text(max)
        ),
    }
}

fn default(p: &WParam) -> String {
    match p.kind {
        WKind::Int { default, .. } => count(default),
        WKind::Milli { .. } => "— (not typed)".into(),
        _ => format!("`{}`", p.format(p.kind.default())),
    }
}

fn url_explorer() -> String {
    let state = brrr::state::State::default();
    let mut t = String::from("| key | meaning | accepted | default |\n|---|---|---|---|\n");
    for p in explorer::ROWS {
        let accepted = match (p.kind, p.doc.accepted) {
            (XKind::Number(f), "") if f.integer => {
                format!("integer {} … {}", count(f.min as u32), count(f.max as u32))
            }
            (XKind::Number(f), "") => format!("{:e} … {:e}", f.min, f.max),
            (_, "") if p.key == "hw" => brrr::model::hardware::PRESETS
                .iter()
                .map(|h| format!("`{}`", h.id))
                .chain(["`measured`".to_string()])
                .collect::<Vec<_>>()
                .join(" "),
            (_, a) => a.to_string(),
        };
        let written = p.write(&state);
        let default = match (p.doc.default, written) {
            ("", Some(w)) => format!("`{w}`"),
            ("", None) => "absent".into(),
            (d, Some(w)) => format!("{d} (`{w}` on the default preset)"),
            (d, None) => d.into(),
        };
        let _ = writeln!(
            t,
            "| `{}` | {} | {} | {} |",
            p.key,
            cell(p.doc.meaning),
            cell(&accepted),
            cell(&default)
        );
    }
    t
}

fn url_widgets() -> String {
    let mut t =
        String::from("| key | widget | meaning | accepted | default |\n|---|---|---|---|---|\n");
    for w in WIDGETS {
        for p in w.params {
            let _ = writeln!(
                t,
                "| `{}` | {} | {} | {} | {} |",
                p.key,
                w.id,
                cell(&p.doc.text()),
                cell(&accepted(p)),
                cell(&default(p))
            );
        }
    }
    t
}

fn widgets() -> String {
    let mut t = String::from(
        "| id | title | link | embed | embed height (px, at 720 wide) | its own URL keys |\n|---|---|---|---|---:|---|\n",
    );
    for w in WIDGETS {
        let keys = w
            .params
            .iter()
            .map(|p| format!("`{}`", p.key))
            .collect::<Vec<_>>()
            .join(" ");
        let shown = match w.inside {
            Some(host) => format!(" (shown inside `{host}`)"),
            None => String::new(),
        };
        let _ = writeln!(
            t,
            "| `{id}` | {title}{shown} | `#{id}` | `?embed={id}` | {h} | {keys} |",
            id = w.id,
            title = cell(w.title),
            h = w.embed_height,
            keys = if keys.is_empty() { "—".into() } else { keys },
        );
    }
    t
}

fn contract_regions() -> Vec<(&'static str, String)> {
    vec![
        ("url-explorer", url_explorer()),
        ("url-widgets", url_widgets()),
        ("widgets", widgets()),
        (
            "embed-resize",
            format!("```html\n{}\n```\n", brrr::state::page::EMBED_RESIZE),
        ),
    ]
}

#[test]
fn the_contract_is_what_the_registry_declares() {
    check("docs/contract.md", &contract_regions());
}

#[test]
fn every_key_has_a_meaning() {
    for p in explorer::ROWS {
        assert!(!p.doc.meaning.trim().is_empty(), "{}", p.key);
    }
    for p in brrr::state::registry::params() {
        assert!(!p.doc.label.trim().is_empty(), "{}", p.key);
    }
}

/// The `data-metric` names the page's code publishes: a literal
/// `data-metric="NAME"`, a `readout("NAME"` (the widgets' helper), the lab's
/// `metric(LABEL, "NAME"`, and the names `gpu::datasheet` gives its readouts.
fn readout_names() -> std::collections::BTreeSet<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    fn ident(s: &str) -> Option<String> {
        let name: String = s
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        (name.len() > 1 && s[name.len()..].starts_with('"')).then_some(name)
    }
    let mut files = Vec::new();
    walk(&repo("src/ui"), &mut files);
    let mut names = std::collections::BTreeSet::new();
    for text in &files {
        for marker in ["data-metric=\"", "readout(\""] {
            for piece in text.split(marker).skip(1) {
                names.extend(ident(piece));
            }
        }
        // the lab's metric(label, "name", ...)
        for piece in text.split("metric(\"").skip(1) {
            if let Some((_, rest)) = piece.split_once("\", \"") {
                names.extend(ident(rest));
            }
        }
    }
    let datasheet = std::fs::read_to_string(repo("src/gpu/datasheet.rs")).unwrap_or_default();
    for piece in datasheet.split("metric: \"").skip(1) {
        names.extend(ident(piece));
    }
    names
}

#[test]
fn every_readout_the_ui_names_is_in_the_contract() {
    let contract = std::fs::read_to_string(repo("docs/contract.md")).unwrap_or_default();
    let names = readout_names();
    assert!(names.len() > 40, "the grep found too few names: {names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !contract.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "data-metric names the page publishes that docs/contract.md (\"Readouts\") does not name: {missing:?}"
    );
}

// ---------------------------------------------------------------------------
// docs/accuracy.md
// ---------------------------------------------------------------------------

/// model ÷ measured − 1 as a signed percentage.
fn pct(e: f64) -> String {
    let v = e * 100.0;
    let digits = if v.abs() < 10.0 { 1 } else { 0 };
    let s = format!("{:.*}", digits, v.abs());
    if s.trim_start_matches(['0', '.']).is_empty() {
        format!("{s} %")
    } else if v < 0.0 {
        format!("−{s} %")
    } else {
        format!("+{s} %")
    }
}

/// Three significant figures.
fn sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let d = 2 - x.abs().log10().floor() as i32;
    format!("{:.*}", d.max(0) as usize, x)
}

fn ms(s: f64) -> String {
    format!("{} ms", sig(s * 1e3))
}

fn essay() -> String {
    use brrr::model::achievable::Roof;
    use brrr::model::microbench::{compare, crossover_repeat, max_error};
    use brrr::model::reference::h100;
    let machine = |roof| {
        let hw = brrr::model::hardware::preset("h100-sxm");
        let mut s = hw.map_or_else(brrr::state::State::default, brrr::state::State::for_preset);
        s.select_dtype(brrr::model::Dtype::Fp32);
        s.setting.roof = roof;
        s.machine()
    };
    let (d, a) = (machine(Roof::Datasheet), machine(Roof::Achievable));
    let n = h100::TORCH_ELEMENTS;
    let mut t = String::from(
        "| experiment | measured | model, datasheet roofs | model, achievable roofs |\n|---|---|---|---|\n",
    );
    let rows = |series: &[(u32, f64)], eager: bool, what: &str, t: &mut String| {
        let (cd, ca) = (compare(series, n, &d, eager), compare(series, n, &a, eager));
        for (x, y) in cd.iter().zip(&ca) {
            let _ = writeln!(
                t,
                "| {what}, repeat {} | {} | {} ({}) | {} ({}) |",
                x.repeat,
                ms(x.measured_s),
                ms(x.model_s),
                pct(x.error()),
                ms(y.model_s),
                pct(y.error())
            );
        }
        (cd, ca)
    };
    let (cd, ca) = rows(
        &h100::TRITON_FUSED_MUL,
        false,
        "fused `x * m` chain (Triton)",
        &mut t,
    );
    rows(
        &h100::PYTORCH_EAGER_MUL,
        true,
        "eager chain (PyTorch)",
        &mut t,
    );
    let upto = |c: &[brrr::model::microbench::Compared]| {
        let v: Vec<_> = c.iter().copied().filter(|p| p.repeat <= 256).collect();
        pct(max_error(&v)).replace('+', "")
    };
    let _ = writeln!(
        t,
        "| largest error of the fused chain, repeat 1 … 256 | | {} | {} |",
        upto(&cd),
        upto(&ca)
    );
    let measured = brrr::model::measured::crossover(&h100::TRITON_FUSED_MUL, n);
    let _ = writeln!(
        t,
        "| crossover repeat (memory → compute) | {:.0} | {:.0} | {:.0} |",
        measured,
        crossover_repeat(&d, d.elem_bytes),
        crossover_repeat(&a, a.elem_bytes)
    );
    t
}

fn gemm_published() -> String {
    let mut t = String::from(
        "| M × K × N | source | role | measured TFLOP/s | model TFLOP/s | error (time) | target |\n|---|---|---|---:|---:|---:|---:|\n",
    );
    let rows = gemm::compare();
    for c in &rows {
        let tf = |s: f64| sig(c.gflop() / s / 1e3);
        let _ = writeln!(
            t,
            "| {} × {} × {} | {} | {} | {} | {} | {} | {} |",
            c.row.m,
            c.row.k,
            c.row.n,
            c.row.source,
            c.row.role.id(),
            tf(c.row.seconds),
            tf(c.model_s),
            pct(c.error()),
            pct(c.target()).replace('+', "±")
        );
    }
    let _ = writeln!(
        t,
        "\nLargest error over the checked rows: {}.",
        pct(gemm::max_error(&rows)).replace('+', "")
    );
    t
}

fn gemm_lent() -> String {
    let rows = gemm::lent();
    let family = |tag: &str| -> &'static str {
        match tag {
            t if t.starts_with("dit") => "DiT-XL/2 layers",
            t if t.starts_with("llama3") => "Llama-3-8B prefill layers",
            t if t.starts_with("vocab") => "GPT-2's vocabulary, 50257 and 50304",
            "square" => "squares",
            "wave_n" => "N sweep at M = K = 4096 (waves)",
            "small_m" => "small M at K = N = 4096 (decode's end)",
            _ => "other",
        }
    };
    let mut fams: Vec<&'static str> = Vec::new();
    for r in &rows {
        if !fams.contains(&family(&r.tag)) {
            fams.push(family(&r.tag));
        }
    }
    let mut t = String::from(
        "| shapes | GPU | rows | within target | error range (time) |\n|---|---|---:|---:|---|\n",
    );
    for f in fams {
        for hw in ["h100-sxm", "h200"] {
            let v: Vec<_> = rows
                .iter()
                .filter(|r| r.hw == hw && family(&r.tag) == f)
                .collect();
            if v.is_empty() {
                continue;
            }
            let lo = v.iter().map(|r| r.error()).fold(f64::INFINITY, f64::min);
            let hi = v
                .iter()
                .map(|r| r.error())
                .fold(f64::NEG_INFINITY, f64::max);
            let within = v.iter().filter(|r| r.error().abs() <= r.target()).count();
            let _ = writeln!(
                t,
                "| {f} | {hw} | {} | {within} | {} … {} |",
                v.len(),
                pct(lo),
                pct(hi)
            );
        }
    }
    let _ = writeln!(t, "\n{}", gemm::lent_summary(&rows));
    t
}

fn dit_lent() -> String {
    let mut t = String::from(
        "| GPU | resolution | batch | step | measured | model | error | target |\n|---|---:|---:|---|---:|---:|---:|---:|\n",
    );
    for r in gemm::dit_lent() {
        let _ = writeln!(
            t,
            "| {} | {} px | {} | {} | {} | {} | {} | {} |",
            r.case.hw,
            r.case.res,
            r.case.batch,
            if r.case.compiled {
                "compiled (one CUDA graph)"
            } else {
                "eager"
            },
            ms(r.measured_s),
            ms(r.case.model_s),
            pct(r.error()),
            pct(r.target()).replace('+', "±")
        );
    }
    t
}

fn llm_rows(rows: &[llm::Compared], with_regime: bool) -> String {
    let mut t =
        String::from("| model | weights | step | GPUs | measured tok/s | model tok/s | error |");
    t.push_str(if with_regime {
        " what limits it |\n|---|---|---|---:|---:|---:|---:|---|\n"
    } else {
        "\n|---|---|---|---:|---:|---:|---:|\n"
    });
    for c in rows {
        let _ = write!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.row.model,
            c.row.wdtype.id(),
            if c.row.compiled { "compiled" } else { "eager" },
            c.row.gpus,
            sig(c.row.tokens_per_s),
            sig(c.model_tokens_per_s),
            pct(c.error())
        );
        if with_regime {
            let _ = write!(t, " {} |", c.regime.id());
        }
        t.push('\n');
    }
    t
}

fn llm_section() -> String {
    let one = llm::compare();
    let tp = llm::compare_tp();
    let h100 = llm::compare_h100();
    let mut t = String::from("On one A100-80GB (gpt-fast's single-GPU table):\n\n");
    t.push_str(&llm_rows(&one, true));
    let _ = writeln!(
        t,
        "\nLargest error: {} (`llm_vs_measured_max_error`).\n\nTensor parallel over NVLink 3 (gpt-fast's table):\n",
        pct(llm::max_error(&one)).replace('+', "")
    );
    t.push_str(&llm_rows(&tp, false));
    t.push_str("\nNVIDIA NIM on 2 × H100 (fp8, one request at a time; the inter-token latency is one decode step):\n\n| model | weights | GPUs | in / out tokens | measured ms/token | model ms/token | error (tok/s) | what limits it |\n|---|---|---:|---|---:|---:|---:|---|\n");
    for c in &h100 {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} / {} | {} | {} | {} | {} |",
            c.row.model,
            c.row.wdtype.id(),
            c.row.gpus,
            c.row.input_tokens,
            c.row.output_tokens,
            sig(c.row.itl_s * 1e3),
            sig(c.model_itl_s * 1e3),
            pct(c.error()),
            c.regime.id()
        );
    }
    let _ = writeln!(
        t,
        "\nLargest error over the multi-GPU rows: {} (`llm_tp_vs_measured_max_error`).",
        pct(llm::tp_max_error(&tp).max(llm::itl_max_error(&h100))).replace('+', "")
    );
    t
}

fn serve_section() -> String {
    let rows = serve::compare();
    let opt = |e: Option<f64>| e.map_or("—".to_string(), pct);
    let mut t = String::from("The rows with targets (TTFT, ITL, output tokens/s: measured / model):\n\n| engine | model | GPU × TP | in / out | concurrency | TTFT | ITL | output tok/s | within targets |\n|---|---|---|---|---:|---|---|---|---|\n");
    for c in rows.iter().filter(|c| c.row.target) {
        let m = c.model;
        let pair = |a: Option<f64>, b: Option<f64>, scale: f64, e: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => format!("{} / {} ({})", sig(a * scale), sig(b * scale), opt(e)),
            _ => "—".into(),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} × {} | {} / {} | {} | {} | {} | {} | {} |",
            c.row.engine.label(),
            c.row.model_name(),
            c.row.hw,
            c.row.tp,
            c.row.isl,
            c.row.osl,
            c.row.concurrency,
            pair(c.row.ttft_s, m.map(|m| m.ttft), 1e3, c.ttft_error()),
            pair(c.row.itl_s, m.map(|m| m.itl), 1e3, c.itl_error()),
            pair(Some(c.row.tok_s), c.tok_s(), 1.0, c.tok_error()),
            if c.within_targets() { "yes" } else { "no" }
        );
    }
    t.push_str("\nEvery stored row, by run (error ranges, model ÷ measured − 1):\n\n| engine | model | GPU × TP | rows | within targets | TTFT | ITL | output tok/s |\n|---|---|---|---:|---:|---|---|---|\n");
    let mut groups: Vec<(&str, &str, &str, u32)> = Vec::new();
    for c in &rows {
        let g = (c.row.engine.label(), c.row.model_name(), c.row.hw, c.row.tp);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    for g in groups {
        let v: Vec<_> = rows
            .iter()
            .filter(|c| (c.row.engine.label(), c.row.model_name(), c.row.hw, c.row.tp) == g)
            .collect();
        let range = |f: &dyn Fn(&serve::Compared) -> Option<f64>| {
            let e: Vec<f64> = v.iter().filter_map(|c| f(c)).collect();
            if e.is_empty() {
                return "—".to_string();
            }
            let lo = e.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{} … {}", pct(lo), pct(hi))
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} × {} | {} | {} | {} | {} | {} |",
            g.0,
            g.1,
            g.2,
            g.3,
            v.len(),
            v.iter().filter(|c| c.within_targets()).count(),
            range(&|c| c.ttft_error()),
            range(&|c| c.itl_error()),
            range(&|c| c.tok_error())
        );
    }
    let _ = writeln!(
        t,
        "\nLargest error over the rows with targets: {} (`serve_vs_measured_max_error`).\n\n{}",
        pct(serve::max_error(&rows)).replace('+', ""),
        serve::misses(&rows)
    );
    t
}

/// The steady state's output tokens per second (over `gpus`) and its error,
/// where the row's compared figure is its queued run's.
fn steady(c: &serve::Compared, gpus: f64) -> String {
    match (c.queued, c.model) {
        (Some(_), Some(m)) => format!(
            "{} ({})",
            sig(m.tok_s / gpus),
            pct(m.tok_s / c.row.tok_s - 1.0)
        ),
        _ => "—".into(),
    }
}

/// The serving model against TensorRT-LLM's later per-GPU overview (the
/// mixtures of experts GPT-OSS-120B and -20B, the DEP rows, and Llama-3.3-70B
/// TP2).
fn serve_moe_section() -> String {
    let rows = brrr::model::serve::overview::compare();
    let mut t = String::from("| model | GPU × TP (or DEP) | in / out | requests | held to 30 % | output tok/s per GPU, published / model | error | steady state |\n|---|---|---|---:|---|---|---|---|\n");
    for c in &rows {
        let gpus = f64::from(c.row.tp * c.row.dep);
        let spread = if c.row.dep > 1 {
            format!("DEP {}", c.row.dep)
        } else {
            c.row.tp.to_string()
        };
        let _ = writeln!(
            t,
            "| {} | {} × {} | {} / {} | {} | {} | {} / {} | {} | {} |",
            c.row.model_name(),
            c.row.hw,
            spread,
            c.row.isl,
            c.row.osl,
            c.row.requests.map_or("—".into(), |n| n.to_string()),
            if c.row.target { "yes" } else { "median" },
            sig(c.row.tok_s / gpus),
            c.tok_s().map_or("—".into(), |x| sig(x / gpus)),
            c.tok_error().map_or("—".into(), pct),
            steady(c, gpus)
        );
    }
    let _ = writeln!(t, "\n{}", brrr::model::serve::overview::words(&rows));
    t
}

/// The serving model against MoE runs it was not fitted to (TensorRT-LLM's
/// TP 8 rows of Qwen3-235B-A22B and Llama-4-Maverick).
fn serve_moe_tp_section() -> String {
    let rows = brrr::model::serve::moe_tp::compare();
    let mut t = String::from("| model | GPU × TP | in / out | requests | output tok/s (8 GPUs), published / model | error | steady state |\n|---|---|---|---:|---|---|---|\n");
    for c in &rows {
        let _ = writeln!(
            t,
            "| {} | {} × {} | {} / {} | {} | {} / {} | {} | {} |",
            c.row.model_name(),
            c.row.hw,
            c.row.tp,
            c.row.isl,
            c.row.osl,
            c.row.requests.map_or("—".into(), |n| n.to_string()),
            sig(c.row.tok_s),
            c.tok_s().map_or("—".into(), sig),
            c.tok_error().map_or("—".into(), pct),
            steady(c, 1.0)
        );
    }
    let _ = writeln!(t, "\n{}", brrr::model::serve::moe_tp::words(&rows));
    t
}

fn serve_vllm_section() -> String {
    let rows = brrr::model::serve::vllm::compare();
    let mut t = String::from("| model | GPUs | in / out | requests at once | TTFT ms, published / model | time per output token ms, published / model | output tok/s, published / model | error (tok/s) |\n|---|---|---|---|---|---|---|---|\n");
    let ms = |x: Option<f64>| x.map_or("—".into(), |x| sig(x * 1e3));
    for c in &rows {
        let m = c.model;
        let _ = writeln!(
            t,
            "| {} | {} × {} | {} / {} | {} | {} / {} | {} / {} | {} / {} | {} |",
            c.row.model_name(),
            c.row.tp,
            c.row.hw,
            c.row.isl,
            c.row.osl,
            c.row.concurrency,
            ms(c.row.ttft_s),
            ms(m.map(|m| m.ttft).filter(|_| c.row.ttft_s.is_some())),
            ms(c.row.itl_s),
            ms(m.map(|m| m.itl).filter(|_| c.row.itl_s.is_some())),
            sig(c.row.tok_s),
            m.map_or("—".into(), |m| sig(m.tok_s)),
            c.tok_error().map_or("—".into(), pct)
        );
    }
    let _ = writeln!(t, "\n{}", brrr::model::serve::vllm::words(&rows));
    t
}

fn spec_section() -> String {
    use brrr::model::llm::spec::measured::{note, rows, Check};
    let rows = rows();
    let mut t = String::from(
        "| run | published | model | accepted length | check |\n|---|---:|---:|---|---|\n",
    );
    for r in &rows {
        let check = match r.check {
            Check::Within(tol) => format!(
                "{} (within {}: {})",
                pct(r.error()),
                pct(tol).replace('+', "±"),
                if r.holds() { "yes" } else { "no" }
            ),
            Check::Below(b1) => format!(
                "direction: below the model's {}× at batch 1 ({})",
                sig(b1),
                if r.holds() { "yes" } else { "no" }
            ),
            Check::None => "none".into(),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {}× | {} | {} |",
            r.what,
            if r.published.is_finite() {
                format!("{}×", sig(r.published))
            } else {
                "—".into()
            },
            sig(r.model),
            match r.tau {
                Some(t) => sig(t),
                None if r.published.is_finite() => format!(
                    "not published: run at {}, needs {}",
                    sig(r.ran_at),
                    sig(r.needed)
                ),
                None => format!("run at {}", sig(r.ran_at)),
            },
            check
        );
    }
    let _ = writeln!(t, "\n{}", note(&rows));
    t
}

fn accuracy_regions() -> Vec<(&'static str, String)> {
    vec![
        ("essay", essay()),
        ("gemm-published", gemm_published()),
        ("gemm-lent", gemm_lent()),
        ("dit-lent", dit_lent()),
        ("llm", llm_section()),
        ("serve", serve_section()),
        ("serve-moe", serve_moe_section()),
        ("serve-moe-tp", serve_moe_tp_section()),
        ("serve-vllm", serve_vllm_section()),
        ("spec", spec_section()),
    ]
}

#[test]
fn the_accuracy_tables_are_the_models_comparisons() {
    check("docs/accuracy.md", &accuracy_regions());
}

#[test]
fn a_stale_region_is_found_and_a_missing_one_named() {
    let doc = "a\n<!-- generated: x -->\nold\n<!-- end: x -->\nb\n";
    let fresh = fill(doc, &[("x", "new\n".into())]);
    assert_eq!(
        fresh.as_deref(),
        Ok("a\n<!-- generated: x -->\nnew\n<!-- end: x -->\nb\n")
    );
    assert!(fill(doc, &[("y", String::new())]).is_err());
}

/// Every field of `brrr-trace --json`'s row (`trace::report::Row`, the one
/// schema the CLI, the worker and the page share) is named in the contract.
#[test]
fn every_trace_json_field_is_in_the_contract() {
    let contract = std::fs::read_to_string(repo("docs/contract.md")).unwrap_or_default();
    let cli = contract
        .split("### `brrr-trace --json OUT`")
        .nth(1)
        .unwrap_or("");
    let row = serde_json::to_value(brrr::trace::report::Row::default()).unwrap_or_default();
    let keys: Vec<&String> = row
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert!(keys.len() > 30, "{keys:?}");
    let missing: Vec<&&String> = keys
        .iter()
        .filter(|k| !cli.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "brrr-trace --json fields docs/contract.md does not name: {missing:?}"
    );
}

/// The queued runs the page reads rather than runs
/// (src/model/serve/queued.json, [`brrr::model::serve::queued::stored`]) are
/// the model's: every published `trtllm-bench` row with a dataset size run
/// again, the file written anew with `BRRR_BLESS=1` and compared otherwise.
#[test]
fn the_stored_queued_runs_are_the_models() {
    use brrr::model::serve::{self, measured, moe_tp, overview, queued};
    let mut lines = Vec::new();
    for p in measured::trtllm()
        .into_iter()
        .chain(moe_tp::rows())
        .chain(overview::rows())
    {
        let Some(n) = p.requests else { continue };
        let (r, s) = (measured::serve_run(&p), measured::setting(&p));
        let m = serve::run(&r, &s).expect("every row fits");
        let q = queued::run(&r, &s, n, m.cap).expect("every row runs");
        lines.push(format!(
            "  \"{}\": {{\"requests\": {}, \"seconds\": {}, \"steps\": {}, \"tok_s\": {}, \"mean_decode\": {}}}",
            p.id(),
            q.requests,
            q.seconds,
            q.steps,
            q.tok_s,
            q.mean_decode
        ));
        if std::env::var_os("BRRR_BLESS").is_none() {
            let stored = queued::stored(&p.id())
                .unwrap_or_else(|| panic!("{} has no stored run: run `{BLESS}`", p.id()));
            assert!(
                (stored.tok_s / q.tok_s - 1.0).abs() < 1e-12 && stored.steps == q.steps,
                "{}: stored {stored:?}, the model {q:?}: run `{BLESS}`",
                p.id()
            );
        }
    }
    assert_eq!(lines.len(), 40 + 34 + 44);
    let text = format!("{{\n{}\n}}\n", lines.join(",\n"));
    let path = repo("src/model/serve/queued.json");
    if std::env::var_os("BRRR_BLESS").is_some() {
        std::fs::write(&path, &text).expect("write queued.json");
    } else {
        let now = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            now == text,
            "src/model/serve/queued.json is stale: run `{BLESS}`"
        );
    }
}
