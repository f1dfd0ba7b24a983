//! Every essay widget as pure data: its id (the same ids, in the same order, as
//! the page's registry `ui::widgets::WIDGETS`, which is wasm-only) and the URL keys
//! of its own controls. The native test below walks every widget and each of its
//! parameters through its whole range (as egui's demo tests walk every demo), so
//! the registry and the parameter tables are checked without a browser.

/// `(widget id, its own URL keys)`; a key ending in `_` stands for every
/// parameter with that prefix. The explorer's keys are `params::KEYS`.
pub const WIDGETS: &[(&str, &[&str])] = &[
    ("roofline-explorer", &[]),
    ("diagnosis", &[]),
    ("generations", &["gen_line"]),
    ("tensor-cores", &[]),
    ("bert", &["bert_"]),
    ("factory", &[]),
    ("fusion", &["fusion_"]),
    ("microbench", &["mb_"]),
    ("overhead", &["graphs", "compiled", "cpp"]),
    ("remedies", &[]),
    ("lab", &[]),
    ("trace", &["trace"]),
    ("llm", &["llm_"]),
    ("dit", &["dit_"]),
    ("calculator", &["calc", "calc_"]),
    ("hardware", &[]),
];

/// Whether URL key `key` is one of the keys `claim` names.
pub fn claims(claim: &str, key: &str) -> bool {
    if claim.ends_with('_') {
        key.starts_with(claim)
    } else {
        key == claim
    }
}

/// The widget whose control `key` is.
pub fn owner(key: &str) -> Option<&'static str> {
    WIDGETS
        .iter()
        .find(|(_, keys)| keys.iter().any(|c| claims(c, key)))
        .map(|(id, _)| *id)
}

#[cfg(test)]
mod tests {
    use super::super::params::{XKind, EXPLORER};
    use super::super::url::{decode, encode};
    use super::super::widgets::{WKind, PARAMS};
    use super::super::State;
    use super::*;

    /// The ids of the page's registry, in order, read from its source.
    fn ui_ids() -> Vec<String> {
        let src = include_str!("../ui/widgets/mod.rs");
        let table = src.split("pub const WIDGETS").nth(1).unwrap_or_default();
        table
            .lines()
            .filter_map(|l| l.trim().strip_prefix("id: \""))
            .filter_map(|l| l.split('"').next())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_pure_list_is_the_pages_registry() {
        let ids: Vec<String> = WIDGETS.iter().map(|(id, _)| id.to_string()).collect();
        assert!(ids.len() >= 10, "{ids:?}");
        assert_eq!(
            ids,
            ui_ids(),
            "state::registry::WIDGETS vs ui::widgets::WIDGETS"
        );
    }

    #[test]
    fn every_parameter_belongs_to_exactly_one_widget_and_every_claim_to_a_parameter() {
        for p in PARAMS {
            let n = WIDGETS
                .iter()
                .filter(|(_, keys)| keys.iter().any(|c| claims(c, p.key)))
                .count();
            assert_eq!(n, 1, "{} is claimed by {n} widgets", p.key);
        }
        for (id, keys) in WIDGETS {
            for c in *keys {
                assert!(
                    PARAMS.iter().any(|p| claims(c, p.key)),
                    "{id} claims {c}, no such parameter"
                );
            }
        }
    }

    /// Every value worth trying for one widget parameter, as URL text.
    fn values(kind: WKind) -> Vec<String> {
        match kind {
            WKind::Int { min, max, default } => {
                let mid = ((f64::from(min) * f64::from(max)).sqrt()) as u32;
                [min, max, default, mid.clamp(min, max)]
                    .iter()
                    .map(u32::to_string)
                    .collect()
            }
            WKind::Flag { .. } => vec!["0".into(), "1".into()],
            WKind::Choice { names, .. } => names.iter().map(|n| n.to_string()).collect(),
            // the default (not typed) is no value: the ends and the middle
            WKind::Milli { min, max } => {
                let mid = ((f64::from(min) * f64::from(max)).sqrt()) as u32;
                [min, max, mid.clamp(min, max)]
                    .into_iter()
                    .map(super::super::widgets::milli_text)
                    .collect()
            }
        }
    }

    /// Widget `id`'s one model call (`state::adapt`), where it has one; every
    /// widget's for `None`.
    fn widget_model(id: Option<&str>, s: &State) {
        type Run = fn(&State);
        let models: [(&str, Run); 6] = [
            ("microbench", |s| assert!(s.microbench_view().bench.n > 0.0)),
            ("llm", |s| assert!(s.llm_view(true).step.wall > 0.0)),
            ("dit", |s| assert!(s.dit_view(true).step.wall > 0.0)),
            ("bert", |s| assert!(s.bert_view().profile.wall > 0.0)),
            ("overhead", |s| assert!(s.overhead_view().run.wall() > 0.0)),
            ("fusion", |s| {
                assert!(s.fusion_view().compare.fused_time > 0.0)
            }),
        ];
        for (w, run) in models {
            if id.is_none_or(|id| id == w) {
                run(s);
            }
        }
    }

    /// Everything a widget computes from the state (the model of widget `id`,
    /// or of every widget): none of it may panic, and the explorer's numbers
    /// must be finite.
    fn run_all(id: Option<&str>, s: &State, q: &str) {
        let r = s.report();
        assert!(
            r.wall_time_s.is_finite() && r.wall_time_s > 0.0,
            "{q}: wall {}",
            r.wall_time_s
        );
        widget_model(id, s);
        let _ = super::super::hints::hints(s);
        let _ = crate::model::remedies::evaluate(&s.setting());
    }

    #[test]
    fn every_widget_runs_at_every_value_of_each_of_its_parameters() {
        let mut walked = 0;
        for (id, _) in WIDGETS {
            for p in PARAMS.iter().filter(|p| owner(p.key) == Some(id)) {
                for v in values(p.kind) {
                    // the llm's custom shape only applies with the custom model
                    for base in ["", "llm_model=custom&"] {
                        if p.key == "llm_model" && !base.is_empty() {
                            continue;
                        }
                        let q = format!("{base}{}={v}", p.key);
                        let (s, n) = decode(&q);
                        assert!(n.is_empty(), "{id}: {q}: {n:?}");
                        assert_eq!(p.format((p.get)(&s.widgets)), v, "{id}: {q} read back");
                        assert_eq!(
                            decode(&encode(&s)),
                            (s.clone(), vec![]),
                            "{id}: {q} round trip"
                        );
                        run_all(Some(id), &s, &q);
                        walked += 1;
                    }
                }
            }
        }
        // the explorer's own keys: each number at both ends of its range
        for p in EXPLORER {
            if let XKind::Number(f) = p.kind {
                for x in [f.min, f.max] {
                    let v = if f.integer {
                        format!("{}", x as u32)
                    } else {
                        format!("{x:e}")
                    };
                    let q = format!("{}={v}", p.key);
                    let (s, n) = decode(&q);
                    assert!(n.is_empty(), "{q}: {n:?}");
                    assert_eq!(decode(&encode(&s)), (s.clone(), vec![]), "{q} round trip");
                    run_all(None, &s, &q);
                    walked += 1;
                }
            }
        }
        assert!(walked > 200, "walked {walked} states");
    }
}
