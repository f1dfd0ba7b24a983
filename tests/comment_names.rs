//! Comments name only code that exists: a backticked Rust path in a comment
//! under `src/` (`State::view`, `crate::model::llm`, `tests::some_test`) whose
//! first segment is this crate's (a module, a type, `crate`, `super`, `self`,
//! `Self`, `tests`) ends in a name some Rust file under `src/` or `tests/`
//! spells. Names of other projects (`aten::reshape`, `torch.compile`) and bare
//! single words are not checked: nothing here can tell them from ours.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !is_ident_char(c))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// The backticked paths of one comment line: `a::b::c`, a trailing `()` allowed.
fn paths(comment: &str) -> Vec<Vec<&str>> {
    comment
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|t| {
            let t = t.strip_suffix("()").unwrap_or(t);
            let segs: Vec<&str> = t.split("::").collect();
            let ok = segs.len() > 1
                && segs.iter().all(|s| {
                    !s.is_empty()
                        && s.chars().all(is_ident_char)
                        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                });
            ok.then_some(segs)
        })
        .collect()
}

#[test]
fn comments_name_only_code_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut src = Vec::new();
    rust_files(&root.join("src"), &mut src);
    let mut all = src.clone();
    rust_files(&root.join("tests"), &mut all);
    assert!(src.len() > 50, "found {} files under src/", src.len());

    // every word any Rust line spells, and the crate's own first segments
    let mut spelled = BTreeSet::new();
    let mut ours: BTreeSet<String> = ["crate", "super", "self", "Self", "tests"]
        .map(String::from)
        .into();
    let mut comments = Vec::new();
    // this file spells the names its own test catches
    let me = Path::new(file!()).file_name();
    for p in all.iter().filter(|p| p.file_name() != me) {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let in_src = p.starts_with(root.join("src"));
        if in_src {
            if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
                ours.insert(stem.to_string());
            }
            if let Some(dir) = p
                .parent()
                .and_then(|d| d.file_name())
                .and_then(|s| s.to_str())
            {
                ours.insert(dir.to_string());
            }
        }
        for (n, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") {
                if in_src {
                    comments.push((p.clone(), n + 1, t.to_string()));
                }
                continue;
            }
            let mut w = words(line).peekable();
            while let Some(x) = w.next() {
                spelled.insert(x.to_string());
                if in_src && matches!(x, "struct" | "enum" | "trait" | "type" | "mod") {
                    if let Some(name) = w.peek() {
                        ours.insert(name.to_string());
                    }
                }
            }
        }
    }
    let mut missing = Vec::new();
    for (p, n, c) in &comments {
        for segs in paths(c) {
            if !ours.contains(segs[0]) {
                continue;
            }
            if segs.iter().any(|s| !spelled.contains(*s)) {
                let file = p.strip_prefix(root).unwrap_or(p);
                missing.push(format!("{}:{n}: `{}`", file.display(), segs.join("::")));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "comments name code that does not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_path_to_nothing_is_caught_and_others_projects_are_not() {
    assert_eq!(
        paths("the call (`State::bert_view`), and `aten::mm()`"),
        vec![vec!["State", "bert_view"], vec!["aten", "mm"]]
    );
    assert!(paths("a `word`, `torch.compile` and `a::`").is_empty());
}
