//! Small functions (issue 32, item 7): no function in `src/ui/` over 120 lines,
//! none anywhere else in `src/` over 150, counted from the line of its `fn` to
//! the line of its closing brace (blank lines and comments included); test
//! modules (`#[cfg(test)] mod …`, inline or in their own file) are not counted.
//! A view that grows past the limit is split into named sub-components.

use std::path::{Path, PathBuf};

/// One function: its file, the line of its `fn`, its name and its length in lines.
#[derive(Debug)]
struct Func {
    file: String,
    line: usize,
    name: String,
    lines: usize,
}

/// A file's characters outside comments, strings and character literals (each
/// replaced by a space, newlines kept), so that braces and keywords can be read.
fn code_only(src: &str) -> Vec<char> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::with_capacity(c.len());
    let mut i = 0;
    // keep the newlines of what is blanked out, so lines still count right
    let blank = |out: &mut Vec<char>, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        blank(&mut out, c[i]);
                        blank(&mut out, c[i + 1]);
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        blank(&mut out, c[i]);
                        blank(&mut out, c[i + 1]);
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
            }
            // raw strings: r"…", r#"…"#, br#"…"#
            'r' if (next == Some('"') || next == Some('#'))
                && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while c.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if c.get(j) != Some(&'"') {
                    out.push(c[i]);
                    i += 1;
                    continue;
                }
                let end: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let rest: String = c[j + 1..].iter().collect();
                let len = rest
                    .find(&end)
                    .map_or(c.len() - j - 1, |k| rest[..k].chars().count());
                for &ch in &c[i..(j + 1 + len + end.chars().count()).min(c.len())] {
                    blank(&mut out, ch);
                }
                i = (j + 1 + len + end.chars().count()).min(c.len());
            }
            '"' => {
                blank(&mut out, c[i]);
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                    if i < c.len() {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            // a character literal ('{', '\n', '\''), not a lifetime ('a)
            '\'' => {
                let lit = match (next, c.get(i + 2), c.get(i + 3)) {
                    (Some('\\'), _, _) => {
                        let mut j = i + 2;
                        while j < c.len() && c[j] != '\'' {
                            j += 1;
                        }
                        Some(j)
                    }
                    (Some(_), Some('\''), _) => Some(i + 2),
                    _ => None,
                };
                match lit {
                    Some(end) => {
                        for &ch in &c[i..=end.min(c.len() - 1)] {
                            blank(&mut out, ch);
                        }
                        i = end + 1;
                    }
                    None => {
                        out.push(c[i]);
                        i += 1;
                    }
                }
            }
            // only ASCII is left, so a char index is a byte index of the text
            ch => {
                out.push(if ch.is_ascii() { ch } else { '?' });
                i += 1;
            }
        }
    }
    out
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The functions of one file, test modules left out. `test_mods` collects the
/// names of the test modules declared here in files of their own.
fn functions(file: &str, src: &str, test_mods: &mut Vec<String>) -> Vec<Func> {
    let c = code_only(src);
    let text: String = c.iter().collect();
    let line_of = |at: usize| c[..at].iter().filter(|&&ch| ch == '\n').count() + 1;
    // the end of the block whose `{` is at `open`
    let close = |open: usize| {
        let mut depth = 0;
        for (k, &ch) in c.iter().enumerate().skip(open) {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return k;
                    }
                }
                _ => {}
            }
        }
        c.len() - 1
    };
    // test modules: `#[cfg(test)]` then `mod name {…}` or `mod name;`
    let mut skip: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("#[cfg(test)]") {
        let at = from + k + "#[cfg(test)]".len();
        let rest = text[at..].trim_start();
        let rest = rest.strip_prefix("pub ").unwrap_or(rest);
        if let Some(m) = rest.strip_prefix("mod ") {
            let name: String = m.chars().take_while(|&ch| is_ident(ch)).collect();
            let after = m[name.len()..].trim_start();
            if after.starts_with(';') {
                test_mods.push(name);
            } else if let Some(open) = text[at..].find('{').map(|o| at + o) {
                skip.push((at, close(open)));
            }
        }
        from = at;
    }
    let mut out = Vec::new();
    let mut idx = 0;
    while idx + 2 < c.len() {
        let at = idx;
        let is_fn = c[at] == 'f'
            && c[at + 1] == 'n'
            && (at == 0 || !is_ident(c[at - 1]))
            && c.get(at + 2).is_some_and(|ch| ch.is_whitespace());
        idx += 1;
        if !is_fn || skip.iter().any(|&(a, b)| at >= a && at <= b) {
            continue;
        }
        let mut k = at + 2;
        while k < c.len() && c[k].is_whitespace() {
            k += 1;
        }
        let name: String = c[k..].iter().take_while(|&&ch| is_ident(ch)).collect();
        if name.is_empty() {
            continue; // `fn(…)` types, `fn $name` in macros
        }
        // the body's `{`, or a `;` for a declaration without one
        let (mut paren, mut j) = (0i32, k);
        let open = loop {
            match c.get(j) {
                None => break None,
                Some('(' | '[') => paren += 1,
                Some(')' | ']') => paren -= 1,
                Some(';') if paren == 0 => break None,
                Some('{') if paren == 0 => break Some(j),
                _ => {}
            }
            j += 1;
        };
        let Some(open) = open else { continue };
        let (first, last) = (line_of(at), line_of(close(open)));
        out.push(Func {
            file: file.to_string(),
            line: first,
            name,
            lines: last - first + 1,
        });
    }
    out
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every function in `src/` outside test modules.
fn all_functions() -> Vec<Func> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("src"), &mut paths);
    let mut test_mods = Vec::new();
    let mut per_file = Vec::new();
    for p in &paths {
        let rel = p.strip_prefix(root).unwrap_or(p).display().to_string();
        let src = std::fs::read_to_string(p).unwrap_or_default();
        let mut mods = Vec::new();
        let f = functions(&rel, &src, &mut mods);
        // a test module in a file of its own: NAME.rs or NAME/mod.rs beside
        // this file (or in its folder, for a mod.rs)
        let dir = p.parent().unwrap_or(root);
        let own = if p
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            dir.to_path_buf()
        } else {
            dir.join(p.file_stem().unwrap_or_default())
        };
        for m in mods {
            test_mods.push(own.join(format!("{m}.rs")));
            test_mods.push(dir.join(format!("{m}.rs")));
        }
        per_file.push((p.clone(), f));
    }
    per_file
        .into_iter()
        .filter(|(p, _)| !test_mods.contains(p))
        .flat_map(|(_, f)| f)
        .collect()
}

/// The limit for a file: 120 lines in `src/ui/`, 150 elsewhere.
fn limit(file: &str) -> usize {
    if file.starts_with("src/ui/") {
        120
    } else {
        150
    }
}

fn over(funcs: &[Func], within: impl Fn(&str) -> bool) -> Vec<String> {
    let mut bad: Vec<&Func> = funcs
        .iter()
        .filter(|f| within(&f.file) && f.lines > limit(&f.file))
        .collect();
    bad.sort_by_key(|f| std::cmp::Reverse(f.lines));
    bad.iter()
        .map(|f| {
            format!(
                "{}:{} {} ({} lines, limit {})",
                f.file,
                f.line,
                f.name,
                f.lines,
                limit(&f.file)
            )
        })
        .collect()
}

/// The counter itself: a function's lines from `fn` to its brace, comments,
/// blank lines, strings with braces and nested blocks included; declarations
/// without a body and test modules left out.
#[test]
fn the_counter_counts_what_it_should() {
    let src = r#"
fn one() {
    let s = "}}}";
    // a comment with a brace }
    let c = '}';
    let r = r"{";

    /* a block { comment */
    if true { let _ = 'a'; }
}

trait T {
    fn declared(&self) -> fn(u32) -> u32;
}

#[cfg(test)]
mod tests {
    fn hidden() {}
}

#[cfg(test)]
mod more;

fn two<'a>(x: &'a str) -> &'a str {
    x
}
"#;
    let mut mods = Vec::new();
    let f = functions("src/x.rs", src, &mut mods);
    let got: Vec<(&str, usize, usize)> = f
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(got, vec![("one", 2, 9), ("two", 24, 3)]);
    assert_eq!(mods, vec!["more".to_string()]);
}

/// `src/ui/` and `src/state/`: every function within its limit.
#[test]
fn ui_and_state_functions_are_small() {
    let funcs = all_functions();
    assert!(funcs.len() > 500, "{} functions found", funcs.len());
    let bad = over(&funcs, |f| {
        f.starts_with("src/ui/") || f.starts_with("src/state/")
    });
    assert!(
        bad.is_empty(),
        "functions over the limit:\n{}",
        bad.join("\n")
    );
}

/// All of `src/`.
#[test]
fn every_function_is_small() {
    let funcs = all_functions();
    let bad = over(&funcs, |_| true);
    assert!(
        bad.is_empty(),
        "functions over the limit:\n{}",
        bad.join("\n")
    );
}
