//! The link between GPUs as the `llm` and `dit` widgets' controls set it (issue
//! 24): the link select (`llm_link`, `dit_link`) and, beside it, the link's
//! bandwidth and per-step latency typed in (`llm_link_bw`, `llm_link_lat`,
//! `dit_link_bw`, `dit_link_lat`; declared in `widgets::PARAMS` as `Milli` rows).
//!
//! **What a typed figure means.** An absent key (the value 0 in the state) is the
//! chosen link's own figure ([`crate::model::parallel::LINKS`], with its source);
//! a typed one replaces it. A figure belongs to the link it was typed for:
//! choosing another link, or a GPU whose own link differs while the select says
//! "the GPU's own", starts again from the new link's own figures, since a
//! bandwidth typed for NVLink is meaningless for PCIe. Typing the link's own
//! figure back clears the key, so the link stays short.
//!
//! **Units.** The URL carries GB/s per direction and µs per ring step, to three
//! decimals; the state keeps thousandths of them (MB/s, ns) as whole numbers, as
//! every other widget parameter is a whole number. The latency is the ring's
//! per-step term (`Link::hop`, the α); NCCL's base latency of a call
//! (`Link::base`) stays its own.

use super::fields::Field;
use super::widgets::{field, ChoiceField, LinkChoice, Widgets};
use super::State;
use crate::model::hardware::Preset;
use crate::model::parallel::Link;

/// `*_link_bw`: 0.1 to 100 000 GB/s per direction, in MB/s.
pub const BW_MILLI: (u32, u32) = (100, 100_000_000);
/// `*_link_lat`: 0.001 to 1000 µs per ring step, in ns.
pub const LAT_MILLI: (u32, u32) = (1, 1_000_000);
/// One thousandth of the URL's unit in SI, as a fraction `(num, den)` so that
/// whole numbers convert without binary noise: 1 MB/s = 1e6 / 1, 1 ns = 1 / 1e9.
type Step = (f64, f64);
const BW_STEP: Step = (1e6, 1.0);
const LAT_STEP: Step = (1.0, 1e9);

/// Thousandths → SI.
fn si((num, den): Step, t: u32) -> f64 {
    f64::from(t) * num / den
}

/// What the sentences call a link whose figures were typed: it is no longer the
/// preset they name (its select still shows which one it started from).
pub const EDITED_NAME: &str = "the link as typed";
/// Its source.
pub const EDITED_SOURCE: &str = "typed on the page (bandwidth per direction and/or latency per ring step); NCCL's base latency of a call kept";

/// `link` with the typed figures (0: the link's own).
pub fn edited(link: Link, bw: u32, lat: u32) -> Link {
    if bw == 0 && lat == 0 {
        return link;
    }
    Link {
        bw: if bw == 0 { link.bw } else { si(BW_STEP, bw) },
        hop: if lat == 0 {
            link.hop
        } else {
            si(LAT_STEP, lat)
        },
        name: EDITED_NAME,
        source: EDITED_SOURCE,
        ..link
    }
}

/// A value from a control (SI) as the state keeps it: 0 where it is the link's
/// own figure (`own`), else thousandths of the URL unit inside `range`.
fn typed(v: f64, own: f64, (num, den): Step, range: (u32, u32)) -> u32 {
    let t = (v * den / num).round();
    if t == (own * den / num).round() || !t.is_finite() {
        0
    } else {
        (t.clamp(f64::from(range.0), f64::from(range.1))) as u32
    }
}

/// One widget's pair of link keys, read and written through its [`Widgets`].
struct Keys {
    choice: fn(&Widgets) -> LinkChoice,
    bw: fn(&mut Widgets) -> &mut u32,
    lat: fn(&mut Widgets) -> &mut u32,
}

const LLM: Keys = Keys {
    choice: |w| w.llm_link,
    bw: |w| &mut w.llm_link_bw,
    lat: |w| &mut w.llm_link_lat,
};
const DIT: Keys = Keys {
    choice: |w| w.dit_link,
    bw: |w| &mut w.dit_link_bw,
    lat: |w| &mut w.dit_link_lat,
};

impl Keys {
    fn clear(&self, w: &mut Widgets) {
        *(self.bw)(w) = 0;
        *(self.lat)(w) = 0;
    }

    /// The link the select resolves to on `hw`, without typed figures.
    fn own(&self, s: &State) -> Link {
        (self.choice)(&s.widgets).link(s.hw.id)
    }
}

impl State {
    /// The `llm` widget's link: the chosen one with its typed figures.
    pub fn llm_link(&self) -> Link {
        let w = &self.widgets;
        edited(LLM.own(self), w.llm_link_bw, w.llm_link_lat)
    }

    /// The `dit` widget's link: the chosen one with its typed figures.
    pub fn dit_link(&self) -> Link {
        let w = &self.widgets;
        edited(DIT.own(self), w.dit_link_bw, w.dit_link_lat)
    }

    /// After the GPU changed from `before`: a widget whose link changed with it
    /// (the select on "the GPU's own") starts from the new link's own figures.
    pub(super) fn links_follow_gpu(&mut self, before: &'static Preset) {
        for k in [&LLM, &DIT] {
            let c = (k.choice)(&self.widgets);
            if c.link(before.id).id != c.link(self.hw.id).id {
                k.clear(&mut self.widgets);
            }
        }
    }
}

/// A link select that clears the typed figures when the link changes.
macro_rules! select {
    ($name:ident, $field:ident, $keys:ident) => {
        pub const $name: ChoiceField<LinkChoice> = ChoiceField {
            set: |s, v| {
                let hw = s.hw.id;
                if s.widgets.$field.link(hw).id != v.link(hw).id {
                    $keys.clear(&mut s.widgets);
                }
                s.widgets.$field = v;
            },
            ..field::$field
        };
    };
}
select!(LLM_LINK, llm_link, LLM);
select!(DIT_LINK, dit_link, DIT);

/// The bandwidth and latency boxes (a [`Field`] each: slider, typed box and its
/// inline message); they show the link's own figure until one is typed.
macro_rules! boxes {
    ($bw:ident, $lat:ident, $bw_key:ident, $lat_key:ident, $link:ident, $keys:ident) => {
        pub const $bw: Field = Field {
            id: stringify!($bw_key),
            label: "Link bandwidth, each way",
            box_unit: "GB/s",
            base_unit: "B/s",
            scale: 1e9,
            min: BW_MILLI.0 as f64 * BW_STEP.0 / BW_STEP.1,
            max: BW_MILLI.1 as f64 * BW_STEP.0 / BW_STEP.1,
            integer: false,
            get: |s| s.$link().bw,
            set: |s, v| s.widgets.$bw_key = typed(v, $keys.own(s).bw, BW_STEP, BW_MILLI),
        };
        pub const $lat: Field = Field {
            id: stringify!($lat_key),
            label: "Link latency per ring step",
            box_unit: "µs",
            base_unit: "s",
            scale: 1e-6,
            min: LAT_MILLI.0 as f64 * LAT_STEP.0 / LAT_STEP.1,
            max: LAT_MILLI.1 as f64 * LAT_STEP.0 / LAT_STEP.1,
            integer: false,
            get: |s| s.$link().hop,
            set: |s, v| s.widgets.$lat_key = typed(v, $keys.own(s).hop, LAT_STEP, LAT_MILLI),
        };
    };
}
boxes!(
    LLM_LINK_BW,
    LLM_LINK_LAT,
    llm_link_bw,
    llm_link_lat,
    llm_link,
    LLM
);
boxes!(
    DIT_LINK_BW,
    DIT_LINK_LAT,
    dit_link_bw,
    dit_link_lat,
    dit_link,
    DIT
);

#[cfg(test)]
mod tests {
    use super::super::url::{decode, encode};
    use super::super::widgets::{param, WKind};
    use super::*;
    use crate::model::hardware;

    fn h100() -> State {
        let mut s = State::default();
        s.select_preset(hardware::preset("h100-sxm").unwrap());
        s
    }

    #[test]
    fn absent_keys_are_the_links_own_figures() {
        let s = h100();
        let nv4 = crate::model::parallel::link("nvlink4").copied().unwrap();
        assert_eq!(s.llm_link(), nv4);
        assert_eq!(s.dit_link(), nv4);
        assert_eq!((LLM_LINK_BW.get)(&s), 450e9);
        assert!(((LLM_LINK_LAT.get)(&s) - 0.6e-6).abs() < 1e-18);
        assert_eq!(LLM_LINK_BW.format_box((LLM_LINK_BW.get)(&s)), "450");
        assert_eq!(LLM_LINK_LAT.format_box((LLM_LINK_LAT.get)(&s)), "0.6");
    }

    #[test]
    fn typed_figures_round_trip_through_the_url() {
        let (s, n) = decode("hw=h100-sxm&llm_link_bw=900&llm_link_lat=1.25&dit_link_bw=12.5");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(s.widgets.llm_link_bw, 900_000);
        assert_eq!(s.llm_link().bw, 900e9);
        assert!((s.llm_link().hop - 1.25e-6).abs() < 1e-18);
        // NCCL's base latency of a call is not the per-step figure
        assert_eq!(s.llm_link().base, crate::model::parallel::NCCL_RING_BASE_S);
        assert_eq!(s.dit_link().bw, 12.5e9);
        assert_eq!(s.dit_link().hop, 0.6e-6);
        let q = encode(&s);
        assert!(q.contains("llm_link_bw=900&llm_link_lat=1.25"), "{q}");
        assert!(
            q.contains("dit_link_bw=12.5") && !q.contains("dit_link_lat"),
            "{q}"
        );
        assert_eq!(decode(&q), (s.clone(), vec![]));
        // the sentences no longer name the preset the figures replaced
        assert_eq!(s.llm_link().name, EDITED_NAME);
        assert_eq!(s.dit_link().source, EDITED_SOURCE);
        // the run the widgets compute uses them
        assert_eq!(s.llm_parallel().link.bw, 900e9);
        assert_eq!(s.dit_run().link.bw, 12.5e9);
        // the ends of the ranges
        for q in [
            "llm_link_bw=0.1",
            "llm_link_bw=100000",
            "llm_link_lat=0.001",
            "llm_link_lat=1000",
        ] {
            let (s, n) = decode(q);
            assert!(n.is_empty(), "{q}: {n:?}");
            assert_eq!(decode(&encode(&s)), (s, vec![]), "{q}");
        }
    }

    #[test]
    fn bad_figures_are_refused_with_a_reason_and_the_links_own_kept() {
        for (q, why) in [
            ("llm_link_bw=0", "greater than zero"),
            ("llm_link_bw=-5", "greater than zero"),
            ("llm_link_bw=fast", "not a number"),
            ("llm_link_bw=1e9", "out of range"),
            ("llm_link_bw=0.0001", "out of range"),
            ("llm_link_bw=NaN", "not a finite number"),
            ("dit_link_lat=0", "greater than zero"),
            ("dit_link_lat=5000", "out of range"),
        ] {
            let (s, n) = decode(&format!("hw=h100-sxm&{q}"));
            assert_eq!(n.len(), 1, "{q}");
            assert!(n[0].reason.contains(why), "{q}: {}", n[0].reason);
            assert_eq!(s.llm_link().bw, 450e9, "{q}");
            assert_eq!(s.dit_link().hop, 0.6e-6, "{q}");
        }
        // the box refuses the same values and says why; the state is not touched
        for t in ["0", "-1", "abc", "1e9", ""] {
            assert!(LLM_LINK_BW.parse_box(t).is_err(), "{t}");
        }
        assert!(LLM_LINK_LAT.parse_box("0").is_err());
        assert_eq!(LLM_LINK_BW.parse_box("900"), Ok(900e9));
    }

    #[test]
    fn the_codec_rows_are_the_controls_ranges() {
        for (f, key) in [
            (LLM_LINK_BW, "llm_link_bw"),
            (LLM_LINK_LAT, "llm_link_lat"),
            (DIT_LINK_BW, "dit_link_bw"),
            (DIT_LINK_LAT, "dit_link_lat"),
        ] {
            assert_eq!(f.id, key);
            let p = param(key).unwrap();
            let WKind::Milli { min, max } = p.kind else {
                panic!("{key}: {:?}", p.kind)
            };
            // the box's range in its unit is the URL's
            assert_eq!(f.format_box(f.min), p.format(min), "{key}");
            assert_eq!(f.format_box(f.max), p.format(max), "{key}");
            assert_eq!(p.kind.default(), 0);
        }
    }

    #[test]
    fn a_typed_figure_belongs_to_its_link() {
        let mut s = h100();
        (LLM_LINK_BW.set)(&mut s, 900e9);
        (LLM_LINK_LAT.set)(&mut s, 2e-6);
        (DIT_LINK_BW.set)(&mut s, 100e9);
        assert_eq!(s.llm_link().bw, 900e9);
        assert_eq!(s.llm_link().hop, 2e-6);
        // the link's own figure typed back clears the key
        (LLM_LINK_LAT.set)(&mut s, 0.6e-6);
        assert_eq!(s.widgets.llm_link_lat, 0);
        // the same link chosen by its id: kept
        (LLM_LINK.set)(&mut s, LinkChoice::Nvlink4);
        assert_eq!(s.llm_link().bw, 900e9);
        // another link: its own figures, the dit widget's untouched
        (LLM_LINK.set)(&mut s, LinkChoice::Pcie4);
        assert_eq!(s.widgets.llm_link, LinkChoice::Pcie4);
        assert_eq!(s.llm_link().bw, 32e9);
        assert_eq!(s.llm_link().hop, 1.0e-6);
        assert_eq!(s.dit_link().bw, 100e9);
        // a GPU with another own link: the dit widget (on "the GPU's own") starts
        // again; the llm widget's chosen PCIe 4.0 is the same link, kept typed
        (LLM_LINK_BW.set)(&mut s, 16e9);
        s.select_preset(hardware::preset("h100-pcie").unwrap());
        assert_eq!(s.dit_link().id, "pcie5");
        assert_eq!(s.dit_link().bw, 64e9);
        assert_eq!(s.llm_link().bw, 16e9);
        // a GPU with the same own link keeps the figure
        (DIT_LINK_BW.set)(&mut s, 20e9);
        s.select_preset(hardware::preset("h100-pcie").unwrap());
        assert_eq!(s.dit_link().bw, 20e9);
    }
}
