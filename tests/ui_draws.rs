//! `src/ui` formats and draws; every number, sentence and decision a widget
//! shows is computed in `src/model`, `src/trace` or `src/state`, where the
//! native tests reach it. This test reads the UI's sources (the wasm-only code
//! no native test runs) and fails where one calls the model's arithmetic.
//!
//! What is forbidden, precisely:
//! - a call into the model's running, pricing or judging functions, named in
//!   `CALLS` (building roofs from a preset, a roof at an intensity, the page's
//!   bar for a remedy, the comparisons with measured GPUs, the remedies'
//!   counterfactual runs, the fitted doubling time, the diagnosis card's choice
//!   of sentence, a GPU's dtype fallback, a run's decode context, a kernel's or
//!   the step's place on the roofline);
//! - choosing words by matching a trace row's ids (`.regime.as_str()`,
//!   `.step_basis.as_str()`): the trace's sentences are `trace::words`';
//! - arithmetic on a machine's roofs: `bw`, `matmul_flops` or `pointwise_flops`
//!   as an operand of `+ - * /` or of `.min(`/`.max(`, or a share of a roof
//!   (dividing by a `.roof`).
//!
//! Allowed: formatting (`model::units`, `format!`), reading the fields of a
//! view the core computed, and the chart geometry of `ui/widgets/roofline.rs`,
//! which draws the roofs it is given. Each rule can list by name files that
//! still make its call (`allowed`); every list is empty now, and a listed file
//! that no longer needs its exception fails the test, so a list only shrinks.

// in a cfg(test) module: clippy allows unwrap in the helpers too (clippy.toml)
#[cfg(test)]
mod ui {
    use std::path::{Path, PathBuf};

    struct Rule {
        /// The text of the call, as written in the source.
        calls: &'static str,
        why: &'static str,
        /// Files under `src/ui/` that still make the call.
        allowed: &'static [&'static str],
    }

    const CALLS: &[Rule] = &[
        Rule {
            calls: "Setting::on(",
            why: "builds a GPU's roofs from a preset",
            allowed: &[],
        },
        Rule {
            calls: ".ceiling(",
            why: "prices a roof at an intensity",
            allowed: &[],
        },
        Rule {
            calls: "verdict::",
            why: "judges a change by the page's one bar",
            allowed: &[],
        },
        Rule {
            calls: "dit_lent(",
            why: "runs the DiT model on the lent GPUs' cases",
            allowed: &[],
        },
        Rule {
            calls: "dit_summary(",
            why: "compares the DiT model with measured steps",
            allowed: &[],
        },
        Rule {
            calls: "measured::lent(",
            why: "runs the GEMM model on the lent GPUs' cases",
            allowed: &[],
        },
        Rule {
            calls: "lent_summary(",
            why: "compares the GEMM model with measured GEMMs",
            allowed: &[],
        },
        Rule {
            calls: "measured::compare",
            why: "runs the serving model on published rows",
            allowed: &[],
        },
        Rule {
            calls: "overview::compare(",
            why: "runs the serving model on TensorRT-LLM's overview rows",
            allowed: &[],
        },
        Rule {
            calls: "measured::max_error(",
            why: "compares a model with published rows",
            allowed: &[],
        },
        Rule {
            calls: "measured::model(",
            why: "runs the llm model on a published row",
            allowed: &[],
        },
        Rule {
            calls: "measured::model_itl(",
            why: "runs the llm model on a published row",
            allowed: &[],
        },
        Rule {
            calls: "remedies::evaluate(",
            why: "runs every remedy's counterfactual",
            allowed: &[],
        },
        Rule {
            calls: "remedies::best(",
            why: "picks the best remedy",
            allowed: &[],
        },
        Rule {
            calls: "model::sweep(",
            why: "prices GEMMs over a sweep of sizes",
            allowed: &[],
        },
        Rule {
            calls: "doubling_time(",
            why: "fits a doubling time",
            allowed: &[],
        },
        Rule {
            calls: "balance_sentence(",
            why: "picks the diagnosis card's sentence (`limit::card_sentence` picks it)",
            allowed: &[],
        },
        Rule {
            calls: "limit::contrast(",
            why: "picks the diagnosis card's sentence (`limit::card_sentence` picks it)",
            allowed: &[],
        },
        Rule {
            calls: ".supports(",
            why: "decides whether a GPU has the dtype asked for",
            allowed: &[],
        },
        Rule {
            calls: "default_dtype(",
            why: "picks the dtype a GPU falls back to",
            allowed: &[],
        },
        Rule {
            calls: "decode_context(",
            why: "computes a run's mean decode context",
            allowed: &[],
        },
        Rule {
            calls: "RoofPoint {",
            why: "places a kernel on the roofline (its rate is the model's: `RoofPoint::of`, `Report::roof_points`, `llm::roof::of`)",
            allowed: &[],
        },
        Rule {
            calls: "LinkRoof {",
            why: "places the step against the link's roof (`llm::roof::of`)",
            allowed: &[],
        },
        Rule {
            calls: ".regime.as_str()",
            why: "chooses a trace sentence's words by the row's regime id",
            allowed: &[],
        },
        Rule {
            calls: ".step_basis.as_str()",
            why: "chooses a trace sentence's words by the row's step basis",
            allowed: &[],
        },
    ];

    /// The files whose arithmetic on a machine's roofs is allowed: the roofline
    /// chart draws them (the ridge and the shares of a roof are `Machine`'s).
    const ROOF_ARITHMETIC: &[&str] = &["widgets/roofline.rs"];

    const ROOF_FIELDS: [&str; 3] = ["bw", "matmul_flops", "pointwise_flops"];

    fn ui_files() -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui");
        let mut out = Vec::new();
        walk(&root, &mut out);
        out.sort();
        assert!(out.len() > 40, "{} files under src/ui", out.len());
        out
    }

    /// `file`'s path under `src/ui/`, with `/` separators.
    fn rel(file: &Path) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui");
        file.strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// The source's code lines: comment lines (`//`, `///`, `//!`) dropped.
    fn code(text: &str) -> Vec<(usize, &str)> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with("//"))
            .map(|(i, l)| (i + 1, l))
            .collect()
    }

    fn ident(c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_'
    }

    /// Where `line` makes the call `calls`: the text, not inside a longer name.
    fn calls(line: &str, calls: &str) -> bool {
        line.match_indices(calls).any(|(i, _)| {
            !calls.starts_with(ident) || !line[..i].chars().next_back().is_some_and(ident)
        })
    }

    /// Where `line` uses a roof field of a machine in arithmetic: `x.bw * y`,
    /// `y / m.matmul_flops`, `m.bw.min(…)`.
    fn roof_arithmetic(line: &str) -> bool {
        let op = |c: char| matches!(c, '*' | '/' | '+' | '-');
        ROOF_FIELDS.iter().any(|f| {
            let field = format!(".{f}");
            line.match_indices(&field).any(|(i, _)| {
                let after = &line[i + field.len()..];
                if after.starts_with(ident) {
                    return false;
                }
                let next = after.trim_start();
                let used_after =
                    (next.starts_with(op) && !next.starts_with("->") && !next.starts_with("//"))
                        || next.starts_with(".min(")
                        || next.starts_with(".max(");
                // the receiver (`m`, `st.machine`, `l`, `m.get()`) and what stands before it
                let before =
                    line[..i].trim_end_matches(|c: char| ident(c) || matches!(c, '.' | '(' | ')'));
                let prev = before.trim_end();
                let used_before =
                    prev.ends_with(op) && !prev.ends_with("->") && !prev.ends_with("//");
                used_after || used_before
            })
        })
    }

    /// Where `line` divides by a roof (`v.flops / v.roof`): a share of the
    /// roof is the model's to compute.
    fn share_of_a_roof(line: &str) -> bool {
        line.match_indices(".roof").any(|(i, _)| {
            if line[i + 5..].starts_with(ident) {
                return false;
            }
            let before =
                line[..i].trim_end_matches(|c: char| ident(c) || matches!(c, '.' | '(' | ')'));
            before.trim_end().ends_with('/') && !before.trim_end().ends_with("//")
        })
    }

    #[test]
    fn the_ui_calls_no_model_arithmetic() {
        let files = ui_files();
        let mut wrong = Vec::new();
        let mut used: Vec<(&str, String)> = Vec::new();
        for f in &files {
            let name = rel(f);
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in code(&text) {
                for r in CALLS {
                    if calls(line, r.calls) {
                        if r.allowed.contains(&name.as_str()) {
                            used.push((r.calls, name.clone()));
                        } else {
                            wrong.push(format!("src/ui/{name}:{n} calls `{}`, which {}: compute it in model/ or trace/ and show the result", r.calls, r.why));
                        }
                    }
                }
                if share_of_a_roof(line) {
                    wrong.push(format!(
                        "src/ui/{name}:{n} takes a share of a roof: `{}`",
                        line.trim()
                    ));
                }
                if roof_arithmetic(line) {
                    if ROOF_ARITHMETIC.contains(&name.as_str()) {
                        used.push(("roof arithmetic", name.clone()));
                    } else {
                        wrong.push(format!(
                            "src/ui/{name}:{n} computes with a machine's roofs: `{}`",
                            line.trim()
                        ));
                    }
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "the UI computes what the core should:\n{}",
            wrong.join("\n")
        );
        // every exception still in use: one no longer needed is taken off its list
        let mut stale = Vec::new();
        for r in CALLS {
            for a in r.allowed {
                if !used.iter().any(|(c, f)| *c == r.calls && f == a) {
                    stale.push(format!(
                        "`{}` is allowed in src/ui/{a}, which no longer calls it",
                        r.calls
                    ));
                }
            }
        }
        for a in ROOF_ARITHMETIC {
            if !used.iter().any(|(c, f)| *c == "roof arithmetic" && f == a) {
                stale.push(format!(
                    "roof arithmetic is allowed in src/ui/{a}, which no longer does any"
                ));
            }
        }
        assert!(stale.is_empty(), "{}", stale.join("\n"));
    }

    /// The scanners find what they are meant to, and not their look-alikes.
    #[test]
    fn the_scanners_tell_a_call_from_a_lookalike() {
        assert!(calls(
            "let m = Setting::on(hw, dt, roof).machine();",
            "Setting::on("
        ));
        assert!(calls(
            "let helps = crate::model::verdict::helps(r.speedup);",
            "verdict::"
        ));
        assert!(calls("x.doubling_time(&s)", "doubling_time("));
        assert!(!calls("x.my_doubling_time(&s)", "doubling_time("));
        assert!(calls("match c.regime.as_str() {", ".regime.as_str()"));
        assert!(roof_arithmetic(
            "let attainable = m.matmul_flops.min(m.bw * intensity);"
        ));
        assert!(roof_arithmetic("units::sig3(m.matmul_flops / m.bw)"));
        assert!(roof_arithmetic(
            "units::percent(f(|r| r.achieved_bw)() / m.get().bw)"
        ));
        assert!(roof_arithmetic(
            "let (mem, top) = (m.bw * intensity, m.ceiling(unit));"
        ));
        assert!(!roof_arithmetic("units::si(m.bw, \"B/s\"),"));
        assert!(share_of_a_roof("units::percent(v.flops / v.roof))))}"));
        assert!(!share_of_a_roof("let roof = s.roof / tf;"));
        assert!(!share_of_a_roof("roof: v.roof,"));
        assert!(calls(
            "(!s.setting.hw.supports(wanted)).then(|| {",
            ".supports("
        ));
        assert!(calls(
            "limit::balance_sentence(l).or_else(|| limit::contrast(l))",
            "limit::contrast("
        ));
        assert!(!roof_arithmetic("bw: st.run.par.link.bw,"));
        assert!(!roof_arithmetic(
            "format!(\"2× bandwidth {}×\", units::sig3(s.limit.bw2))"
        ));
        assert_eq!(
            code("// Setting::on(\nlet x = 1;\n    /// m.bw * 2"),
            vec![(2, "let x = 1;")]
        );
    }
}
