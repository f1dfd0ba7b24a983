//! THE WIDGET REGISTRY: every widget's [`Spec`], read from the one list
//! (`state::widgets::widget_list!`): [`WIDGETS`] in page order, [`DECLARED`]
//! (each line as data), every widget's URL parameters ([`PARAMS`]) and the
//! look-ups over them. It stands above every widget's file, whose specs it
//! reads; its tests walk every declared widget.

use crate::state::data::State;
#[cfg(not(target_arch = "wasm32"))]
use crate::state::fields::Field;
use crate::state::params::{WKind, WParam};
use crate::state::spec::Spec;
use crate::state::widgets::widget_list;

/// Whether `a` and `b` differ at most in the own parameters of the widgets
/// loaded on demand ([`Declared::on_demand`]): a change the page's app may take
/// without telling its widgets (the on-demand module's sliders, which no widget
/// of the page's own app reads).
pub fn alike_but_on_demand(a: &State, b: &State) -> bool {
    *a == with_on_demand_of(b, a)
}

/// A line of [`widget_list!`] as data.
#[derive(Clone, Copy)]
pub struct Declared {
    /// Its file name in `state/widgets/` and `ui/widgets/`.
    pub file: &'static str,
    pub spec: &'static Spec,
    /// Its view file draws a chart itself.
    pub charts: bool,
    /// Its view is built by the module loaded on demand, not the page's .wasm.
    pub on_demand: bool,
}

/// `true` for `on_demand`, `false` for `page` (a [`widget_list!`] line's `loads`).
macro_rules! on_demand {
    (page) => {
        false
    };
    (on_demand) => {
        true
    };
}

/// `true` for `charts`, `false` for `no_charts` (a [`widget_list!`] line's `draws`).
macro_rules! charts {
    (charts) => {
        true
    };
    (no_charts) => {
        false
    };
}

/// The state's reading of [`widget_list!`].
macro_rules! registry {
    ($($m:ident: $view:ident, $draws:ident, $loads:ident $(($what:literal))?;)*) => {
        /// Every essay widget, in page order (ids, titles, URL keys, models).
        pub const WIDGETS: &[&Spec] = &[$(&crate::state::widgets::$m::SPEC,)*];

        /// Each widget's file name, in registry order.
        pub const FILES: &[&str] = &[$(stringify!($m),)*];

        /// Every line of the list as data, in page order.
        pub const DECLARED: &[Declared] = &[$(Declared {
            file: stringify!($m),
            spec: &crate::state::widgets::$m::SPEC,
            charts: charts!($draws),
            on_demand: on_demand!($loads),
        },)*];

        /// `s` with the parameters of the widgets loaded on demand taken from
        /// `from`.
        fn with_on_demand_of(s: &State, from: &State) -> State {
            let mut s = s.clone();
            $(if on_demand!($loads) {
                s.widgets.$m = from.widgets.$m;
            })*
            s
        }
    };
}

widget_list!(registry);

/// Whether the widget with this id is loaded on demand ([`Declared::on_demand`]).
pub fn on_demand(id: &str) -> bool {
    DECLARED.iter().any(|d| d.on_demand && d.spec.id == id)
}

/// The registered widget with this id.
pub fn widget(id: &str) -> Option<&'static Spec> {
    WIDGETS.iter().copied().find(|w| w.id == id)
}

/// How many URL parameters the widgets have.
const N_PARAMS: usize = {
    let (mut n, mut i) = (0, 0);
    while i < WIDGETS.len() {
        n += WIDGETS[i].params.len();
        i += 1;
    }
    n
};

/// Every widget's own URL parameters, in URL order (widgets in page order): the
/// specs' `params` laid end to end, once, as the build compiles.
pub const PARAMS: [&WParam; N_PARAMS] = {
    let mut out = [&EMPTY_PARAM; N_PARAMS];
    let (mut i, mut k) = (0, 0);
    while i < WIDGETS.len() {
        let mut j = 0;
        while j < WIDGETS[i].params.len() {
            out[k] = &WIDGETS[i].params[j];
            j += 1;
            k += 1;
        }
        i += 1;
    }
    out
};

/// A placeholder while [`PARAMS`] is filled (every slot is overwritten).
const EMPTY_PARAM: WParam = WParam {
    key: "",
    kind: WKind::Flag { default: false },
    get: |_| 0,
    set: |_, _| {},
    needs: |_| None,
    #[cfg(not(target_arch = "wasm32"))]
    doc: crate::state::params::WDoc {
        label: "",
        lines: &[],
    },
};

/// Every widget's own URL parameters, in URL order (widgets in page order).
pub fn params() -> impl Iterator<Item = &'static WParam> {
    PARAMS.iter().copied()
}

/// The widget parameter with this URL key.
pub fn param(key: &str) -> Option<&'static WParam> {
    params().find(|p| p.key == key)
}

/// The widget whose control `key` is.
pub fn owner(key: &str) -> Option<&'static Spec> {
    WIDGETS
        .iter()
        .copied()
        .find(|w| w.params.iter().any(|p| p.key == key))
}

/// Every widget's numeric controls (the explorer's first).
#[cfg(not(target_arch = "wasm32"))]
pub fn sliders() -> Vec<Field> {
    WIDGETS.iter().flat_map(|w| (w.sliders.get())()).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::state::params::XKind;
    use crate::state::spec::hints_inputs;
    use crate::state::url::{decode, encode};

    /// Each registered widget has every part the recipe names: a state file
    /// here, a view file in `ui/widgets/` (the page's `VIEWS` table is checked
    /// against `WIDGETS` when the page compiles), its slot in index.html, its
    /// line in README (its `#id` link and its picture), its row in the
    /// contract's widget table, a title and an embed height, and each of its
    /// URL keys in the contract's parameter table, owned by it alone
    /// (docs/contract.md's tables are generated: `tests/docs.rs`).
    #[test]
    fn every_registered_widget_has_each_part() {
        let root = env!("CARGO_MANIFEST_DIR");
        let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap_or_default();
        let (index, readme, contract) = (
            read("index.html"),
            read("README.md"),
            read("docs/contract.md"),
        );
        let table = |heading: &str| {
            contract
                .split(heading)
                .nth(1)
                .and_then(|t| t.split("\n\n").find(|b| b.contains("\n|")))
                .unwrap_or("")
                .to_string()
        };
        let widgets = table("## Widgets and embeds");
        let keys = contract
            .split("Widget parameters (")
            .nth(1)
            .and_then(|t| t.split("\n\n`embed=").next())
            .unwrap_or("");
        assert_eq!(WIDGETS.len(), FILES.len());
        assert!(WIDGETS.len() >= 16, "{}", WIDGETS.len());
        let mut slots = Vec::new();
        for (w, file) in WIDGETS.iter().zip(FILES) {
            let exists = |p: String| std::path::Path::new(&format!("{root}/{p}")).exists();
            assert!(exists(format!("src/state/widgets/{file}.rs")), "{file}");
            assert!(
                exists(format!("src/ui/widgets/{file}.rs"))
                    || exists(format!("src/ui/widgets/{file}/mod.rs")),
                "{}: no view file src/ui/widgets/{file}.rs",
                w.id
            );
            let id = w.id;
            assert!(
                !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{id}: ids are lowercase words joined by '-'"
            );
            assert_eq!(widget(id).map(|s| s.title), Some(w.title), "{id} twice");
            assert!(!w.title.is_empty() && w.embed_height >= 300, "{id}");
            let slot = format!("data-slot=\"{id}\"");
            let at = index.find(&slot);
            match w.inside {
                None => {
                    assert!(at.is_some(), "index.html has no {slot}");
                    slots.push(at.unwrap_or(0));
                }
                Some(host) => {
                    assert!(at.is_none(), "{id} is inside {host}, and has a slot too");
                    let h = widget(host);
                    assert!(h.is_some_and(|h| h.inside.is_none()), "{id} inside {host}");
                }
            }
            let row = format!("| `{id}` |");
            assert!(
                widgets.contains(&row),
                "the contract's widget table: no {row}"
            );
            let picture = format!("docs/img/embeds/{id}.png");
            assert!(
                readme.contains(&format!("`#{id}`")) && readme.contains(&picture),
                "README: no line with `#{id}` and {picture}"
            );
            assert!(exists(picture.clone()), "no {picture}");
            for p in w.params {
                assert!(
                    keys.contains(&format!("`{}`", p.key)),
                    "the contract's widget parameter table lacks `{}`",
                    p.key
                );
                assert_eq!(owner(p.key).map(|o| o.id), Some(id), "{} twice", p.key);
                assert!(
                    crate::state::widgets::explorer::param(p.key).is_none(),
                    "{} is also an explorer key",
                    p.key
                );
            }
        }
        // the slots are in registry order
        assert!(
            slots.windows(2).all(|p| p[0] < p[1]),
            "index.html's slots out of order"
        );
    }

    /// The browser tests' list of widgets, tests/e2e/data/widgets.json, is
    /// [`DECLARED`]: each widget's id, in page order, and whether the module
    /// loaded on demand draws it. `BRRR_BLESS=1` writes it.
    #[test]
    fn the_browser_tests_list_is_the_registry() {
        let want: String = format!(
            "[\n{}\n]\n",
            DECLARED
                .iter()
                .map(|d| format!(
                    "  {{ \"id\": \"{}\", \"onDemand\": {} }}",
                    d.spec.id, d.on_demand
                ))
                .collect::<Vec<_>>()
                .join(",\n")
        );
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/data/widgets.json");
        if std::env::var_os("BRRR_BLESS").is_some() {
            assert!(std::fs::write(path, &want).is_ok(), "{path} is writable");
        }
        let got = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(got, want, "write this registry into {path} (BRRR_BLESS=1)");
    }

    #[test]
    fn every_default_is_valid_and_reads_back() {
        let w = State::default();
        for p in params() {
            let d = p.kind.default();
            assert_eq!(p.clamp(d), d, "{}", p.key);
            assert_eq!((p.get)(&w), d, "{}", p.key);
            // a `Milli` default is "not typed": never written, so never read
            if !matches!(p.kind, WKind::Milli { .. }) {
                assert_eq!(p.parse(&p.format(d)), Ok(d), "{}", p.key);
            }
        }
        for f in sliders() {
            if let Some(p) = param(f.id) {
                let WKind::Int { min, max, .. } = p.kind else {
                    panic!("{}: {:?}", f.id, p.kind)
                };
                assert_eq!((f.min, f.max), (f64::from(min), f64::from(max)), "{}", f.id);
            }
        }
    }

    /// States over every preset with each widget's controls varied (batch,
    /// phase, model, spread, switches, resolution, remedies, chain length): the
    /// sweep the widgets' one-call tests run over.
    pub(crate) fn states() -> Vec<State> {
        use crate::model::dit::DitModel;
        use crate::model::hardware::PRESETS;
        use crate::model::llm::{LlmModel, Phase};
        use crate::state::params::Choice;
        use crate::state::widgets::common::{Degree, LinkChoice};
        let mut out = vec![State::default()];
        for (i, hw) in PRESETS.iter().enumerate() {
            let mut s = State::default();
            s.select_preset(hw);
            let bit = |b: usize| (i >> b) & 1 == 1;
            let l = &mut s.widgets.llm;
            l.model = LlmModel::ALL[i % LlmModel::ALL.len()];
            l.phase = if i % 3 == 2 {
                Phase::Prefill
            } else {
                Phase::Decode
            };
            l.batch = [1, 7, 64, 4096][i % 4];
            l.context = [4096, 512, 32768][i % 3];
            l.graphs = bit(0);
            l.flash = !bit(2);
            l.tp = Degree::ALL[(i + 1) % 4];
            l.pp = Degree::ALL[(i / 3) % 3];
            l.link = LinkChoice::ALL[i % LinkChoice::ALL.len()];
            l.overlap = bit(1);
            l.heads = [32, 12, 40][i % 3];
            let d = &mut s.widgets.dit;
            d.model = DitModel::ALL[i % 2];
            d.res = [256, 9, 512, 49][i % 4];
            d.batch = [1, 4, 32][i % 3];
            d.flash = !bit(1);
            d.fused = bit(0);
            d.graphs = bit(2);
            d.sp = Degree::ALL[i % 4];
            d.link = LinkChoice::ALL[(i + 3) % LinkChoice::ALL.len()];
            let o = &mut s.widgets.overhead;
            o.graphs = bit(0);
            o.compiled = bit(1);
            o.cpp = bit(2);
            s.widgets.serve.graphs = !bit(1);
            s.widgets.fusion.n = [1, 2, 8, 1024][i % 4];
            let b = &mut s.widgets.bert;
            b.batch = [1, 8, 64][i % 3];
            b.seq = [128, 512, 8][i % 3];
            b.fused = bit(1);
            s.setting.shape.batch = [256, 1, 4096][i % 3];
            out.push(s);
        }
        out
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
                    .map(crate::state::params::milli_text)
                    .collect()
            }
        }
    }

    /// Each of the explorer's numbers at both ends of its range, as a query.
    fn explorer_ends() -> Vec<String> {
        let mut out = Vec::new();
        for p in crate::state::widgets::explorer::ROWS {
            if let XKind::Number(f) = p.kind {
                for x in [f.min, f.max] {
                    let v = if f.integer {
                        format!("{}", x as u32)
                    } else {
                        format!("{x:e}")
                    };
                    out.push(format!("{}={v}", p.key));
                }
            }
        }
        out
    }

    /// Everything a widget computes from the state (the model of `spec`, or of
    /// every widget): none of it may panic, and the numbers must be finite.
    fn run_all(spec: Option<&Spec>, s: &State, q: &str) {
        let r = s.report();
        assert!(
            r.wall_time_s.is_finite() && r.wall_time_s > 0.0,
            "{q}: wall {}",
            r.wall_time_s
        );
        for w in WIDGETS {
            if spec.is_none_or(|x| x.id == w.id) {
                if let Some(model) = w.model.get() {
                    let v = model(s);
                    assert!(v.is_finite() && v > 0.0, "{}: {q}: {v}", w.id);
                }
            }
        }
        let _ = crate::state::hints::hints(s);
        let _ = crate::model::remedies::evaluate(&s.setting);
    }

    /// The registry walk (as egui's demo tests walk every demo): every widget at
    /// every value worth trying of each of its parameters, through the URL
    /// codec both ways and its own model; then the explorer's numbers at both
    /// ends of their ranges through every widget's model.
    #[test]
    fn every_widget_runs_at_every_value_of_each_of_its_parameters() {
        let mut walked = 0;
        for w in WIDGETS {
            // a widget's model runs on the default state too
            run_all(Some(w), &State::default(), "");
            for p in w.params {
                for v in values(p.kind) {
                    // the llm's custom shape only applies with the custom model
                    // a value that needs a dtype (fp8 weights) runs on a GPU that
                    // has it; on the default GPU, which has none, the one dtype
                    // rule refuses it with its reason
                    let needs = p.parse(&v).ok().and_then(p.needs);
                    if let Some(d) = needs {
                        let (s, n) = decode(&format!("{}={v}", p.key));
                        let why = s.setting.hw.check(d).err();
                        assert!(why.is_some(), "{}: the default GPU has {d:?}", p.key);
                        assert_eq!(n.len(), 1, "{}={v}: {n:?}", p.key);
                        assert_eq!(Some(&n[0].reason), why.as_ref(), "{}={v}", p.key);
                        assert_eq!((p.get)(&s), p.default_value(), "{}={v}", p.key);
                    }
                    let gpu = if needs.is_some() { "hw=h100-sxm&" } else { "" };
                    for base in ["", "llm_model=custom&"] {
                        if p.key == "llm_model" && !base.is_empty() {
                            continue;
                        }
                        let q = format!("{gpu}{base}{}={v}", p.key);
                        let (s, n) = decode(&q);
                        assert!(n.is_empty(), "{}: {q}: {n:?}", w.id);
                        assert_eq!(p.format((p.get)(&s)), v, "{}: {q} read back", w.id);
                        assert_eq!(
                            decode(&encode(&s)),
                            (s.clone(), vec![]),
                            "{}: {q} round trip",
                            w.id
                        );
                        run_all(Some(w), &s, &q);
                        walked += 1;
                    }
                }
            }
        }
        // the explorer's own numbers, each at both ends of its range
        for q in explorer_ends() {
            let (s, n) = decode(&q);
            assert!(n.is_empty(), "{q}: {n:?}");
            assert_eq!(decode(&encode(&s)), (s.clone(), vec![]), "{q} round trip");
            run_all(None, &s, &q);
            walked += 1;
        }
        assert!(walked > 200, "walked {walked} states");
    }

    /// The varied states, each value of every widget's keys on `hw`, and the
    /// explorer's ends.
    fn varied_with_every_key(hw: &str) -> Vec<State> {
        let mut all = states();
        for w in WIDGETS {
            for p in w.params {
                for v in values(p.kind) {
                    all.push(decode(&format!("hw={hw}&{}={v}", p.key)).0);
                }
            }
        }
        all.extend(explorer_ends().iter().map(|q| decode(q).0));
        all
    }

    /// A widget keyed on its inputs ([`Spec::reads`]) computes what it would
    /// from the whole state: its whole view on its inputs equals its view on
    /// the state (`Reads::same_view`), for the varied states, every value worth
    /// trying of every widget's parameter (each one another widget may or may
    /// not read) and the explorer's numbers at both ends. Every widget that
    /// declares its inputs is checked; a parameter a widget reads but its
    /// `reads` drops fails here.
    #[test]
    fn a_widget_reads_only_its_inputs() {
        let keyed: Vec<(&str, crate::state::spec::Reads)> = WIDGETS
            .iter()
            .filter_map(|w| w.reads.map(|r| (w.id, r)))
            .collect();
        assert!(keyed.len() >= 8, "{} widgets keyed", keyed.len());
        let all = varied_with_every_key("h100-sxm");
        for (id, reads) in keyed {
            let same = reads.same_view.get();
            for s in &all {
                assert!(same(s, &(reads.inputs)(s)), "{id}: {}", encode(s));
            }
        }
    }

    /// The page's own app reads none of the on-demand widgets' parameters, so
    /// the module's sliders may change them there without waking its readers
    /// (`ui::kit::on_demand::set_unread`): no widget keyed on its inputs holds
    /// them, no source of the page's app outside their own files (and this
    /// registry) names them, and [`alike_but_on_demand`] tells them apart from
    /// every other key.
    #[test]
    fn the_page_reads_no_on_demand_key() {
        let all = varied_with_every_key("h100-sxm");
        for w in WIDGETS.iter().filter(|w| !on_demand(w.id)) {
            let Some(reads) = w.reads.map(|r| r.inputs) else {
                continue;
            };
            for (a, b) in all.iter().zip(all.iter().rev()) {
                assert!(
                    reads(a) == reads(&with_on_demand_of(a, b)),
                    "{}: {}",
                    w.id,
                    encode(b)
                );
            }
        }
        // `alike_but_on_demand` against the address: the keys whose values
        // differ are all the on-demand widgets' own (an absent key holds its
        // default)
        let theirs: Vec<&str> = DECLARED
            .iter()
            .filter(|d| d.on_demand)
            .flat_map(|d| d.spec.params.iter().map(|p| p.key))
            .collect();
        assert!(theirs.len() > 5, "{theirs:?}");
        let keys = |s: &State| -> std::collections::BTreeMap<String, String> {
            encode(s)
                .split('&')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                    (k.to_string(), v.to_string())
                })
                .collect()
        };
        let mut differ = (0, 0);
        for (a, b) in all.iter().zip(all.iter().skip(1)) {
            let (ka, kb) = (keys(a), keys(b));
            let only_theirs = ka
                .keys()
                .chain(kb.keys())
                .filter(|k| ka.get(*k) != kb.get(*k))
                .all(|k| theirs.contains(&k.as_str()));
            assert_eq!(
                alike_but_on_demand(a, b),
                only_theirs,
                "{} | {}",
                encode(a),
                encode(b)
            );
            if a != b {
                if only_theirs {
                    differ.0 += 1;
                } else {
                    differ.1 += 1;
                }
            }
        }
        assert!(
            differ.0 > 10 && differ.1 > 10,
            "both kinds of pair tried: {differ:?}"
        );
        // the sources: a field access `.NAME` of an on-demand widget's
        // controls anywhere but in its own files (and this registry)
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let files: Vec<&str> = DECLARED
            .iter()
            .filter(|d| d.on_demand)
            .map(|d| d.file)
            .collect();
        assert!(!files.is_empty());
        let mut own = vec!["state/registry.rs".to_string(), "ui/apps/more/".into()];
        for f in &files {
            own.push(format!("state/widgets/{f}.rs"));
            own.push(format!("ui/widgets/{f}.rs"));
        }
        let mut stack = vec![root.join("ui"), root.join("state")];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).expect("src is readable").flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let rel = path
                    .strip_prefix(&root)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                if !rel.ends_with(".rs") || own.iter().any(|o| rel.starts_with(o)) {
                    continue;
                }
                seen += 1;
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for key in files.iter().map(|f| format!(".{f}")) {
                    for (i, _) in text.match_indices(&key) {
                        let next = text[i + key.len()..].chars().next().unwrap_or(' ');
                        assert!(
                            next.is_alphanumeric() || next == '_',
                            "{rel} names `{key}` (byte {i})"
                        );
                    }
                }
            }
        }
        assert!(seen > 40, "{seen} files scanned");
    }

    /// The help panel's "Try this" sentences read the explorer alone
    /// ([`hints_inputs`]): a widget's own control moves none of them, so the
    /// panel does not recompute them on every slider of the page.
    #[test]
    fn the_hints_read_only_the_explorer() {
        let texts = |s: &State| -> Vec<String> {
            crate::state::hints::hints(s)
                .into_iter()
                .map(|h| h.text)
                .collect()
        };
        let all = varied_with_every_key("a100-40gb");
        for s in &all {
            assert_eq!(texts(s), texts(&hints_inputs(s)), "{}", encode(s));
        }
    }
}
