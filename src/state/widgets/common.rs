//! What the `llm` and `dit` widgets share: how many GPUs ([`Degree`]), the link
//! between them ([`LinkChoice`] and its typed figures), and "Compare GPUs" (a
//! widget's state on every preset, [`compare`]).
//!
//! **The link.** The link select (`llm_link`, `dit_link`) and, beside
//! it, the link's bandwidth and per-step latency typed in (`llm_link_bw`,
//! `llm_link_lat`, `dit_link_bw`, `dit_link_lat`; declared in each widget's
//! `params!` table as `Milli` rows). An absent key (the value 0 in the state) is
//! the chosen link's own figure ([`crate::model::parallel::LINKS`], with its
//! source); a typed one replaces it. A figure belongs to the link it was typed
//! for: choosing another link, or a GPU whose own link differs while the select
//! says "the GPU's own", starts again from the new link's own figures, since a
//! bandwidth typed for NVLink is meaningless for PCIe. Typing the link's own
//! figure back clears the key, so the link stays short.
//!
//! **Units.** The URL carries GB/s per direction and µs per ring step, to three
//! decimals; the state keeps thousandths of them (MB/s, ns) as whole numbers, as
//! every other widget parameter is a whole number. The latency is the ring's
//! per-step term (`Link::hop`, the textbook α); NCCL's base latency of a call
//! (`Link::base`) stays its own.

use crate::model::hardware::{Preset, PRESETS};
use crate::model::parallel::Link;
use crate::model::setting::Setting;
use crate::model::timeline::Regime;
use crate::state::data::State;
use crate::state::fields::Field;
use crate::state::params::{choice_enum, Choice};

/// The controls' labels `llm` and `dit` share, written once.
pub mod label {
    pub const GRAPHS: &str = "CUDA graphs (one launch per step)";
    pub const FLASH: &str = "FlashAttention";
    pub const LINK: &str = "Link between GPUs";
    pub const LINK_BW: &str = "Link bandwidth, each way (GB/s)";
    pub const LINK_LAT: &str = "Link latency per ring step (µs)";
}

choice_enum! {
    /// How many GPUs share one parallel dimension (`llm_tp`, `llm_pp`, `dit_sp`):
    /// `model::parallel::DEGREES`.
    pub enum Degree {
        One = "1" "1",
        Two = "2" "2",
        Four = "4" "4",
        Eight = "8" "8",
    }
}

impl Degree {
    pub fn n(self) -> u32 {
        match self {
            Degree::One => 1,
            Degree::Two => 2,
            Degree::Four => 4,
            Degree::Eight => 8,
        }
    }
}

choice_enum! {
    /// The link between GPUs (`llm_link`, `dit_link`): the preset's own, or one of
    /// `model::parallel::LINKS` by its id (a test checks the two lists agree).
    pub enum LinkChoice {
        Preset = "preset" "the GPU's own",
        Nvlink2 = "nvlink2" "NVLink 2 (150 GB/s)",
        Nvlink3 = "nvlink3" "NVLink 3 (300 GB/s)",
        Nvlink4 = "nvlink4" "NVLink 4 (450 GB/s)",
        Nvlink5 = "nvlink5" "NVLink 5 (900 GB/s)",
        Xgmi = "xgmi" "Infinity Fabric (448 GB/s)",
        Pcie4 = "pcie4" "PCIe 4.0 x16 (32 GB/s)",
        Pcie5 = "pcie5" "PCIe 5.0 x16 (64 GB/s)",
        IbNdr = "ib-ndr" "InfiniBand NDR (50 GB/s)",
    }
}

impl LinkChoice {
    /// The link itself: the chosen one, or the preset's (`preset_id`), or PCIe 4.0
    /// for a preset with none.
    pub fn link(self, preset_id: &str) -> Link {
        use crate::model::parallel::{default_link, link};
        let chosen = match self {
            LinkChoice::Preset => default_link(preset_id),
            other => link(other.id()),
        };
        chosen
            .or_else(|| link("pcie4"))
            .copied()
            .unwrap_or(Link::NONE)
    }
}

/// The link's four controls of a widget whose `params!` table has the rows
/// `link`, `link_bw` and `link_lat` (keys `<widget>_link`, `<widget>_link_bw`,
/// `<widget>_link_lat`): its [`LinkKeys`] (`LINK`), the select that drops the
/// typed figures when the link changes (`LINK_SELECT`) and the two boxes
/// (`LINK_BW`, `LINK_LAT`). Declared once here for `llm` and `dit`.
macro_rules! link_fields {
    ($w:ident) => {
        /// The widget's link keys.
        pub const LINK: $crate::state::widgets::common::LinkKeys =
            $crate::state::widgets::common::LinkKeys {
                get: |s| {
                    let w = &s.widgets.$w;
                    (w.link, w.link_bw, w.link_lat)
                },
                clear: |s| {
                    s.widgets.$w.link_bw = 0;
                    s.widgets.$w.link_lat = 0;
                },
            };

        /// The link select: the typed figures go when the link changes.
        pub const LINK_SELECT: $crate::state::params::ChoiceField<
            $crate::state::widgets::common::LinkChoice,
        > = $crate::state::params::ChoiceField {
            set: |s, v| {
                LINK.choose(s, v);
                s.widgets.$w.link = v;
            },
            ..field::link
        };

        /// The link's bandwidth box.
        pub const LINK_BW: $crate::state::fields::Field = $crate::state::widgets::common::bw_field(
            concat!(stringify!($w), "_link_bw"),
            |s| LINK.link(s).bw,
            |s, v| s.widgets.$w.link_bw = LINK.typed_bw(s, v),
        );

        /// The link's latency box.
        pub const LINK_LAT: $crate::state::fields::Field =
            $crate::state::widgets::common::lat_field(
                concat!(stringify!($w), "_link_lat"),
                |s| LINK.link(s).hop,
                |s, v| s.widgets.$w.link_lat = LINK.typed_lat(s, v),
            );
    };
}
pub(crate) use link_fields;

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

/// One widget's link keys, read and cleared in the state.
pub struct LinkKeys {
    /// The select, and the typed bandwidth and latency (0: not typed).
    pub get: fn(&State) -> (LinkChoice, u32, u32),
    /// Forget the typed figures.
    pub clear: fn(&mut State),
}

impl LinkKeys {
    /// The link the select resolves to on the state's GPU, without typed figures.
    pub fn own(&self, s: &State) -> Link {
        (self.get)(s).0.link(s.setting.hw.datasheet().id)
    }

    /// The chosen link with its typed figures.
    pub fn link(&self, s: &State) -> Link {
        let (_, bw, lat) = (self.get)(s);
        edited(self.own(s), bw, lat)
    }

    /// Before the select takes `v`: the typed figures go when the link changes.
    pub fn choose(&self, s: &mut State, v: LinkChoice) {
        let hw = s.setting.hw.datasheet().id;
        if (self.get)(s).0.link(hw).id != v.link(hw).id {
            (self.clear)(s);
        }
    }

    /// After the GPU changed from `before`: where the link changed with it (the
    /// select on "the GPU's own"), the typed figures go, and the widget starts
    /// from the new link's own.
    pub fn follow_gpu(&self, s: &mut State, before: &'static Preset) {
        let c = (self.get)(s).0;
        if c.link(before.datasheet().id).id != c.link(s.setting.hw.datasheet().id).id {
            (self.clear)(s);
        }
    }

    /// A typed bandwidth (SI) as the state keeps it.
    pub fn typed_bw(&self, s: &State, v: f64) -> u32 {
        typed(v, self.own(s).bw, BW_STEP, BW_MILLI)
    }

    /// A typed latency (SI) as the state keeps it.
    pub fn typed_lat(&self, s: &State, v: f64) -> u32 {
        typed(v, self.own(s).hop, LAT_STEP, LAT_MILLI)
    }
}

/// The bandwidth box of a widget's link: a [`Field`] (slider, typed box and its
/// inline message) that shows the link's own figure until one is typed.
pub const fn bw_field(id: &'static str, get: fn(&State) -> f64, set: fn(&mut State, f64)) -> Field {
    Field {
        id,
        label: "Link bandwidth, each way",
        box_unit: "GB/s",
        base_unit: "B/s",
        scale: 1e9,
        min: BW_MILLI.0 as f64 * BW_STEP.0 / BW_STEP.1,
        max: BW_MILLI.1 as f64 * BW_STEP.0 / BW_STEP.1,
        integer: false,
        get,
        set,
    }
}

/// The latency box of a widget's link, as [`bw_field`].
pub const fn lat_field(
    id: &'static str,
    get: fn(&State) -> f64,
    set: fn(&mut State, f64),
) -> Field {
    Field {
        id,
        label: "Link latency per ring step",
        box_unit: "µs",
        base_unit: "s",
        scale: 1e-6,
        min: LAT_MILLI.0 as f64 * LAT_STEP.0 / LAT_STEP.1,
        max: LAT_MILLI.1 as f64 * LAT_STEP.0 / LAT_STEP.1,
        integer: false,
        get,
        set,
    }
}

/// Why the link's typed bandwidth and latency move nothing in the step: it
/// runs on one GPU (the widgets disable the two boxes and say this); `None`
/// on more than one.
pub fn link_off(gpus: u32) -> Option<String> {
    (gpus <= 1).then(|| {
        "One GPU: this step crosses no link. Choose more GPUs above to type the link's figures (the scaling chart draws 2 to 8 GPUs over the link chosen above)."
            .to_string()
    })
}

/// One preset's row of "Compare GPUs".
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Seconds per step.
    pub step: f64,
    /// Tokens or samples per second.
    pub rate: f64,
    /// Fits in memory, bytes over it, largest batch that fits (`None`: the
    /// widget has no memory model).
    pub fit: Option<(bool, f64, Option<u32>)>,
    pub regime: Regime,
}

/// A widget's "Compare GPUs" row on a preset's setting: `Err` is why the
/// preset cannot run these settings at all (the one dtype rule: "… has no fp8
/// mode"), so it gets no figures.
pub type RowFn = fn(&State, &Setting) -> Result<Row, String>;

/// "Compare GPUs": the state's widget (its `row`) on every preset at its
/// datasheet numbers, the dtype, roofs (those of the widgets beyond the essay,
/// `State::beyond`), overhead and shape kept as choosing it in the hardware
/// select would (`Setting::on_preset`).
pub fn compare(s: &State, row: RowFn) -> Vec<(&'static Preset, Result<Row, String>)> {
    PRESETS
        .iter()
        .map(|p| (p, row(s, &s.beyond().on_preset(p))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_choices_are_the_model_links() {
        // every link the control offers is one of model::parallel's, by its id,
        // in its order, after the preset's own
        let ids: Vec<&str> = LinkChoice::ALL.iter().map(|c| c.id()).collect();
        let model: Vec<&str> = crate::model::parallel::LINKS.iter().map(|l| l.id).collect();
        assert_eq!(ids[0], "preset");
        assert_eq!(&ids[1..], &model[..]);
        for c in &LinkChoice::ALL[1..] {
            assert_eq!(c.link("h100-sxm").id, c.id());
        }
        // the preset's own, and PCIe 4.0 where a preset names none
        assert_eq!(LinkChoice::Preset.link("h100-sxm").id, "nvlink4");
        assert_eq!(LinkChoice::Preset.link("m2-max").id, "pcie4");
        let degrees: Vec<u32> = Degree::ALL.iter().map(|d| d.n()).collect();
        assert_eq!(degrees, crate::model::parallel::DEGREES);
    }

    #[test]
    fn compare_runs_every_preset_on_its_own_numbers() {
        let s = State::default();
        let rows = compare(&s, |_, t| {
            Ok(Row {
                step: t.bw,
                rate: 1.0,
                fit: None,
                regime: Regime::Memory,
            })
        });
        assert_eq!(rows.len(), PRESETS.len());
        for (p, r) in rows {
            assert_eq!(r.map(|r| r.step), Ok(p.mem_bw), "{}", p.id);
        }
    }
}
