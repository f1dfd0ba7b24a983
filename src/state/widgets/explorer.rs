//! Widget `roofline-explorer`: the explorer's controls are the model's
//! [`Setting`](crate::model::Setting) (`State::setting`). ONE DECLARATION PER KEY: a key is one field of
//! `Setting`, one row of [`ROWS`] (how a URL value is read into the state, a bad
//! one → the reason for its notice, and how the state writes it) and its control
//! in `ui::widgets::explorer`. A number's row is its control's [`Field`] (below:
//! range, units, the slider and the box), so the codec and the control cannot
//! disagree on a range. Its row in docs/contract.md is generated from it (tests/docs.rs).
//!
//! Rows are in URL order, which is also the order they are read in: the preset
//! first (it picks the preset every later default comes from), the dtype before
//! the peak (whose default is the preset's peak in that dtype).

use crate::model::achievable::Roof;
use crate::model::mygpu::SPREAD_MAX;
use crate::model::setting::{limits, preset_flops};
use crate::model::{hardware, Dtype, Workload};
use crate::state::data::State;
use crate::state::fields::{to_u32, Field};
use crate::state::params::{number, other, params, Lookup, XDoc, XParam};
use crate::state::parse::gpu_name;
use crate::state::spec::{NativeOnly, Spec};

const fn range_u32((a, b): (u32, u32)) -> (f64, f64) {
    (a as f64, b as f64)
}

pub const FLOPS: Field = Field {
    id: "flops",
    label: "Peak FLOP/s (matmul)",
    box_unit: "TFLOP/s",
    base_unit: "FLOP/s",
    scale: 1e12,
    min: limits::FLOPS.0,
    max: limits::FLOPS.1,
    integer: false,
    get: |s| s.setting.flops,
    set: |s, v| s.setting.flops = v,
};

pub const BW: Field = Field {
    id: "bw",
    label: "Memory bandwidth",
    box_unit: "TB/s",
    base_unit: "B/s",
    scale: 1e12,
    min: limits::BW.0,
    max: limits::BW.1,
    integer: false,
    get: |s| s.setting.bw,
    set: |s, v| s.setting.bw = v,
};

pub const OVERHEAD: Field = Field {
    id: "overhead",
    label: "Overhead per kernel",
    box_unit: "µs",
    base_unit: "s",
    scale: 1e-6,
    min: limits::OVERHEAD.0,
    max: limits::OVERHEAD.1,
    integer: false,
    get: |s| s.setting.overhead,
    set: |s, v| s.setting.overhead = v,
};

pub const BATCH: Field = Field {
    id: "batch",
    label: "Batch size B",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::BATCH).0,
    max: range_u32(limits::BATCH).1,
    integer: true,
    get: |s| f64::from(s.setting.shape.batch),
    set: |s, v| s.setting.shape.batch = to_u32(v),
};

pub const HIDDEN: Field = Field {
    id: "hidden",
    label: "Hidden size D",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::HIDDEN).0,
    max: range_u32(limits::HIDDEN).1,
    integer: true,
    get: |s| f64::from(s.setting.shape.hidden),
    set: |s, v| s.setting.shape.hidden = to_u32(v),
};

pub const OPS: Field = Field {
    id: "ops",
    label: "Pointwise ops in the chain",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::OPS).0,
    max: range_u32(limits::OPS).1,
    integer: true,
    get: |s| f64::from(s.setting.shape.ops),
    set: |s, v| s.setting.shape.ops = to_u32(v),
};

/// The numeric controls, in the order the page shows them.
pub const FIELDS: [Field; 6] = [FLOPS, BW, OVERHEAD, BATCH, HIDDEN, OPS];

/// The preset select (`#hw`).
pub const HW: XParam = other("hw", read_hw, |s| Some(s.setting.hw.id.into()), XDoc {
    meaning: "hardware preset (`measured`: the GPU the lab measured, \"Use my GPU\": its numbers are the link's `flops`, `bw` and `overhead`, with `hw_base` the datasheet preset it matched for what the lab cannot measure, else fp32 only; without `flops` and `bw` it falls back to the default preset with a notice)",
    accepted: "",
    default: "",
});
/// The dtype select.
pub const DTYPE: XParam = other(
    "dtype",
    read_dtype,
    |s| Some(s.setting.dtype.id().into()),
    XDoc {
        meaning: "storage / matmul precision",
        accepted: "those the preset has",
        default: "the preset's `bf16`, else `fp32`",
    },
);
/// The workload select.
pub const WORKLOAD: XParam = other(
    "workload",
    read_workload,
    |s| Some(s.setting.shape.workload.id().into()),
    XDoc {
        meaning: "`mlp`: `x[B,D] @ W[D,D]` then a pointwise chain; `chain`: the essay's microbenchmark alone",
        accepted: "`mlp` `chain`",
        default: "",
    },
);
/// The fuse checkbox.
pub const FUSED: XParam = other(
    "fused",
    read_fused,
    |s| Some(if s.setting.shape.fused { "1" } else { "0" }.into()),
    XDoc {
        meaning: "the pointwise chain fused into one kernel (`1`) or eager (`0`)",
        accepted: "`1` / `0`",
        default: "",
    },
);
/// The roofs select: written only when the reader chose the roofs (then they
/// apply to every widget); absent, each widget keeps its own (`State::beyond`).
pub const ROOF: XParam = other(
    "roof",
    read_roof,
    |s| s.roof_choice().map(|r| r.id().into()),
    XDoc {
        meaning: "the roofs: the datasheet's peaks or the achievable ones (the preset's measured or estimated fractions of them). Absent, each widget keeps its own: the essay's widgets draw the datasheet's idealisation, the `llm`, `dit` and serving widgets the achievable roofs a real run gets; present, either value applies to every widget and stays in the link",
        accepted: "`datasheet` `achievable`",
        default: "",
    },
);
/// The datasheet preset a measured GPU matched: only with a measured GPU.
pub const HW_BASE: XParam = other(
    "hw_base",
    read_hw_base,
    |s| s.setting.hw.base().map(|b| b.id.into()),
    XDoc {
        meaning: "the datasheet preset a measured GPU (`hw=measured`) matched: its tensor-core rates (scaled by the measured fp32 rate over its datasheet fp32 peak), memory size, SM count and L2 size stand for what the lab cannot measure, so the dtypes it has become choosable; absent, a measured GPU is fp32 only",
        accepted: "a preset id, only with `hw=measured`",
        default: "",
    },
);
/// The measured GPU's spread of its bandwidth.
pub const BW_SPREAD: XParam = other(
    "bw_spread",
    |s, v, _| read_spread(s, v, |s, x| s.spread.bw = x),
    |s| write_spread(s, s.spread.bw),
    XDoc {
        meaning: "± the measured bandwidth's spread, a fraction (`0.04` = ±4 %: half the range of the lab's trials over their median); the GPU-dependent widgets show their headline at both ends as a range",
        accepted: "0 … 0.9, only with `hw=measured`",
        default: "`0`",
    },
);
/// The measured GPU's spread of its fp32 rate.
pub const FLOPS_SPREAD: XParam = other(
    "flops_spread",
    |s, v, _| read_spread(s, v, |s, x| s.spread.flops = x),
    |s| write_spread(s, s.spread.flops),
    XDoc {
        meaning: "± the measured fp32 rate's spread (which scales every compute rate), a fraction, as `bw_spread`",
        accepted: "0 … 0.9, only with `hw=measured`",
        default: "`0`",
    },
);
/// The overhead per kernel the lab measured: only with a measured GPU.
pub const OVERHEAD_MEASURED: XParam = other(
    "overhead_measured",
    read_overhead_measured,
    |s| {
        s.spread
            .overhead
            .filter(|_| s.setting.hw.is_measured())
            .map(|o| format!("{o:e}"))
    },
    XDoc {
        meaning: "the overhead per kernel the lab measured on this GPU (its dispatch or encode time), seconds: the `overhead` is labelled measured while it equals this value, and the page's or the reader's otherwise; absent, the lab timed no dispatch",
        accepted: "1e-8 … 1e-2, only with `hw=measured`",
        default: "",
    },
);
/// The measured GPU's L2 roof, from the lab's cache cliff: only with a
/// measured GPU.
pub const L2: XParam = other(
    "l2",
    read_l2,
    |s| {
        s.setting
            .l2_measured
            .filter(|_| s.setting.hw.is_measured())
            .map(|l| format!("{:e}_{:e}", l.bw, l.fits))
    },
    XDoc {
        meaning: "a measured GPU's L2 roof from the lab's cache cliff: the fast plateau's bandwidth (bytes/s) and the working set where it ends (bytes); it replaces the matched preset's L2 in the explorer, the microbenchmark and the remedies, labelled measured",
        accepted: "`BW_BYTES` (two positive numbers, `9.9e12_4.1e7`; a comma also parses), the bandwidth within the `bw` limits, only with `hw=measured`",
        default: "",
    },
);
/// The measured GPU's name: only with a measured GPU.
pub const GPU: XParam = other(
    "gpu",
    read_gpu,
    |s| (s.setting.hw.is_measured() && !s.gpu_name.is_empty()).then(|| s.gpu_name.clone()),
    XDoc {
        meaning: "adapter name of a measured GPU (only with `hw=measured`)",
        accepted: "text, at most 80 characters",
        default: "",
    },
);

/// Every explorer key, in URL order. Keys are stable (docs/contract.md).
pub const ROWS: &[XParam] = &[
    HW,
    HW_BASE,
    DTYPE,
    number(
        FLOPS,
        XDoc {
            meaning: "matmul peak, FLOP/s, plain or exponent (`312e12`)",
            accepted: "",
            default: "the preset's peak for the dtype",
        },
    ),
    number(
        BW,
        XDoc {
            meaning: "DRAM bandwidth, bytes/s",
            accepted: "",
            default: "the preset's",
        },
    ),
    number(
        BATCH,
        XDoc {
            meaning: "batch size B",
            accepted: "",
            default: "",
        },
    ),
    number(
        HIDDEN,
        XDoc {
            meaning: "hidden size D",
            accepted: "",
            default: "",
        },
    ),
    WORKLOAD,
    number(
        OPS,
        XDoc {
            meaning: "pointwise ops in the chain",
            accepted: "",
            default: "",
        },
    ),
    FUSED,
    number(
        OVERHEAD,
        XDoc {
            meaning: "CPU seconds per kernel (by default one over the essay's PyTorch op rate)",
            accepted: "",
            default: "",
        },
    ),
    ROOF,
    GPU,
    BW_SPREAD,
    FLOPS_SPREAD,
    OVERHEAD_MEASURED,
    L2,
];

/// The explorer's keys, in URL order.
pub const KEYS: [&str; ROWS.len()] = {
    let mut k = [""; ROWS.len()];
    let mut i = 0;
    while i < ROWS.len() {
        k[i] = ROWS[i].key;
        i += 1;
    }
    k
};

/// The explorer key `key`.
pub fn param(key: &str) -> Option<&'static XParam> {
    ROWS.iter().find(|p| p.key == key)
}

fn read_hw(s: &mut State, v: &str, get: Lookup) -> Result<(), String> {
    match hardware::preset(v) {
        // a measured GPU is only its numbers: without them there is nothing to show
        Some(p) if p.is_measured() && (get(FLOPS.id).is_none() || get(BW.id).is_none()) => {
            Err(format!(
                "a measured GPU needs its measured {}= and {}= in the link",
                FLOPS.id, BW.id
            ))
        }
        Some(p) => {
            *s = State::for_preset(p);
            Ok(())
        }
        None => Err("unknown hardware preset".into()),
    }
}

/// A key of the measured GPU's: refused (with the reason) on any other GPU.
fn measured_only(s: &State) -> Result<(), String> {
    if s.setting.hw.is_measured() {
        Ok(())
    } else {
        Err(format!("only used with {}=measured", HW.key))
    }
}

fn read_hw_base(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    measured_only(s)?;
    let base = hardware::preset(v)
        .filter(|p| !p.is_measured())
        .ok_or("unknown hardware preset")?;
    *s = State::for_preset(hardware::measured_on(base));
    Ok(())
}

fn read_spread(s: &mut State, v: &str, set: fn(&mut State, f64)) -> Result<(), String> {
    measured_only(s)?;
    let x: f64 = v.trim().parse().map_err(|_| "must be a number")?;
    if !(0.0..=SPREAD_MAX).contains(&x) {
        return Err(format!("must be between 0 and {SPREAD_MAX}"));
    }
    set(s, x);
    Ok(())
}

fn read_overhead_measured(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    measured_only(s)?;
    let o = v
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|o| (limits::OVERHEAD.0..=limits::OVERHEAD.1).contains(o))
        .ok_or("must be seconds within the overhead limits")?;
    s.spread.overhead = Some(o);
    Ok(())
}

fn read_l2(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    measured_only(s)?;
    let (bw, fits) = v
        .split_once(['_', ','])
        .ok_or("must be the bandwidth and the working set, `BW_BYTES`")?;
    let num = |x: &str| x.trim().parse::<f64>().ok().filter(|x| x.is_finite());
    let (Some(bw), Some(fits)) = (num(bw), num(fits)) else {
        return Err("must be two numbers, `BW_BYTES`".into());
    };
    if !((limits::BW.0..=limits::BW.1).contains(&bw) && fits > 0.0 && fits <= 1e15) {
        return Err(
            "the bandwidth must be within the bw limits and the working set positive".into(),
        );
    }
    s.setting.l2_measured = Some(crate::model::workload::L2Roof { bw, fits });
    Ok(())
}

fn write_spread(s: &State, x: f64) -> Option<String> {
    (s.setting.hw.is_measured() && x > 0.0).then(|| x.to_string())
}

fn read_dtype(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    let d = Dtype::from_id(v).ok_or("unknown dtype (fp32, tf32, bf16, fp8)")?;
    // the one dtype rule (the llm widget's weights and cache follow it too)
    s.setting.hw.check(d)?;
    s.select_dtype(d);
    // the preset's peak in that dtype, unless `flops` says otherwise
    s.setting.flops = preset_flops(s.setting.hw, s.setting.dtype);
    Ok(())
}

fn read_workload(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    s.setting.shape.workload = Workload::from_id(v).ok_or("must be mlp or chain")?;
    Ok(())
}

fn read_fused(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    s.setting.shape.fused = match v {
        "1" => true,
        "0" => false,
        _ => return Err("must be 1 or 0".into()),
    };
    Ok(())
}

fn read_roof(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    let r = Roof::from_id(v).ok_or("must be datasheet or achievable")?;
    s.choose_roof(Some(r));
    Ok(())
}

fn read_gpu(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    measured_only(s)?;
    s.gpu_name = gpu_name(v);
    Ok(())
}

/// The explorer's step time at the low and the high end of a measured GPU's
/// spread (`model::mygpu::ends`: two reports), in words; `None` on a
/// datasheet preset.
pub fn range(s: &State) -> Option<String> {
    let [lo, hi] = crate::model::mygpu::ends(&s.setting, s.spread)?;
    Some(format!(
        "Across the measured spread: {} a step.",
        crate::model::mygpu::range(
            State::report_of(&lo).wall_time_s,
            State::report_of(&hi).wall_time_s,
            "s"
        )
    ))
}

params! { in explorer; }

pub const SPEC: Spec = Spec {
    id: "roofline-explorer",
    title: "The roofline explorer",
    // 2102 px at 720 px wide in the default state, with the advice lists (embed.test.mjs)
    embed_height: 2320,
    gate: false,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(|| FIELDS.to_vec()),
    model: NativeOnly::new(Some(|s| s.report().wall_time_s)),
    on_gpu: None,
    reads: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::params::XKind;
    use crate::state::url::{decode, encode, gpu_name, Notice, GPU_NAME_MAX, MAX_SHOWN};

    #[test]
    fn keys_are_unique_and_never_a_widget_key() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(!KEYS[..i].contains(k), "{k} twice");
            assert!(
                crate::state::registry::param(k).is_none(),
                "{k} is also a widget key"
            );
        }
    }

    #[test]
    fn every_number_row_is_its_controls_range() {
        for p in ROWS {
            if let XKind::Number(f) = p.kind {
                assert_eq!(p.key, f.id);
                let s = State::default();
                // the default is inside the range, and reads back as itself
                let v = p.write(&s).unwrap_or_default();
                let mut t = State::default();
                assert_eq!(p.read(&mut t, &v, &|_| None), Ok(()), "{}={v}", p.key);
                assert_eq!((f.get)(&t), (f.get)(&s), "{}", p.key);
                // just outside either end is refused
                for x in [f.min / 2.0, f.max * 2.0] {
                    let v = if f.integer {
                        format!("{}", x.floor().max(0.0))
                    } else {
                        format!("{x:e}")
                    };
                    if f.integer && x < 1.0 {
                        continue; // "0" is refused as "must be greater than zero", also a refusal
                    }
                    assert!(
                        p.read(&mut t, &v, &|_| None).is_err(),
                        "{}={v} accepted",
                        p.key
                    );
                }
            }
        }
    }

    #[test]
    fn a_measured_gpu_round_trips_with_its_name() {
        let q = "hw=measured&flops=2e13&bw=4e11&overhead=5e-6&gpu=Apple%20M2%0A%20%20Max";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        assert!(s.setting.hw.is_measured());
        assert_eq!(s.gpu_name, "Apple M2 Max");
        assert_eq!(s.hw_name(), "Measured: Apple M2 Max");
        assert_eq!((s.setting.flops, s.setting.bw), (2e13, 4e11));
        assert_eq!(decode(&encode(&s)).0, s);
        // without its numbers it is nothing: the default preset, with a notice
        let (s, n) = decode("hw=measured");
        assert_eq!(s.setting.hw.id, hardware::DEFAULT_PRESET);
        assert_eq!(n[0].param, "hw");
        assert!(n[0].reason.contains("flops= and bw="), "{}", n[0].reason);
        // a name without a measured GPU is ignored, with a notice
        let (s, n) = decode("gpu=foo");
        assert!(s.gpu_name.is_empty());
        assert_eq!(n[0].param, "gpu");
        assert_eq!(n[0].reason, "only used with hw=measured");
        assert_eq!(gpu_name(&"x".repeat(500)).chars().count(), GPU_NAME_MAX);
        // cleaning is idempotent (a link survives a round trip), also at the cut
        let cut = format!("{} tail", "y".repeat(GPU_NAME_MAX - 1));
        assert_eq!(gpu_name(&gpu_name(&cut)), gpu_name(&cut));
        assert!(!gpu_name(&cut).ends_with(' '));
    }

    #[test]
    fn a_measured_gpu_on_a_datasheet_round_trips_and_bad_values_keep_the_last_good() {
        let q = "hw=measured&hw_base=h100-sxm&dtype=bf16&flops=8.86e14&bw=3e12&overhead=5e-6&gpu=NVIDIA%20H100&bw_spread=0.04&flops_spread=0.02";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(s.setting.hw.base().map(|b| b.id), Some("h100-sxm"));
        assert_eq!((s.setting.dtype, s.setting.flops), (Dtype::Bf16, 8.86e14));
        assert_eq!((s.spread.bw, s.spread.flops), (0.04, 0.02));
        assert_eq!(decode(&encode(&s)).0, s);
        for (bad, key) in [
            ("hw_base=z80", "hw_base"),
            ("hw_base=measured", "hw_base"),
            ("bw_spread=2", "bw_spread"),
            ("bw_spread=-0.1", "bw_spread"),
            ("flops_spread=x", "flops_spread"),
        ] {
            let (t, n) = decode(&q.replace(
                match key {
                    "hw_base" => "hw_base=h100-sxm",
                    "bw_spread" => "bw_spread=0.04",
                    _ => "flops_spread=0.02",
                },
                bad,
            ));
            assert!(n.iter().any(|x| x.param == key), "{bad}: {n:?}");
            if key != "hw_base" {
                // the rest of the link stands
                assert_eq!(t.setting, s.setting, "{bad}");
            }
        }
        // only with a measured GPU
        // the measured L2 roof: both numbers, within the limits
        let (t, n) = decode(&format!("{q}&l2=9e12_4e7"));
        assert!(n.is_empty(), "{n:?}");
        let l2 = t.setting.l2_measured.map(|l| (l.bw, l.fits));
        assert_eq!(l2, Some((9e12, 4e7)));
        assert_eq!(decode(&encode(&t)).0, t);
        for bad in [
            "l2=9e12",
            "l2=x,4e7",
            "l2=9e12,-1",
            "l2=1e20,4e7",
            "l2=9e12,inf",
        ] {
            let (u, n) = decode(&format!("{q}&{bad}"));
            assert!(n.iter().any(|x| x.param == "l2"), "{bad}: {n:?}");
            assert_eq!(u.setting, s.setting, "{bad}");
        }
        // the measured overhead: seconds within the overhead limits
        let (t, n) = decode(&format!("{q}&overhead_measured=5e-6"));
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(t.spread.overhead, Some(5e-6));
        assert_eq!(decode(&encode(&t)).0, t);
        assert_eq!(s.spread.overhead, None);
        for bad in [
            "overhead_measured=x",
            "overhead_measured=1",
            "overhead_measured=-1e-6",
        ] {
            let (u, n) = decode(&format!("{q}&{bad}"));
            assert!(
                n.iter().any(|x| x.param == "overhead_measured"),
                "{bad}: {n:?}"
            );
            assert_eq!(u, s, "{bad}");
        }
        for k in [
            "hw_base=h100-sxm",
            "bw_spread=0.1",
            "flops_spread=0.1",
            "overhead_measured=5e-6",
            "l2=9e12,4e7",
        ] {
            let (t, n) = decode(&format!("hw=h100-sxm&{k}"));
            assert_eq!(n[0].reason, "only used with hw=measured", "{k}");
            assert_eq!(t, decode("hw=h100-sxm").0);
        }
    }

    #[test]
    fn achievable_roofs_round_trip_and_scale_the_machine() {
        let (s, n) = decode("hw=h100-sxm&roof=achievable");
        assert!(n.is_empty());
        assert_eq!(s.setting.roof, Roof::Achievable);
        assert_eq!(decode(&encode(&s)).0, s);
        let d = decode("hw=h100-sxm").0;
        assert!(
            !encode(&d).contains("roof"),
            "the default stays out of links"
        );
        let (a, b) = (s.machine(), d.machine());
        assert!(
            a.bw < b.bw && a.matmul_flops < b.matmul_flops && a.pointwise_flops < b.pointwise_flops
        );
        let (_, n) = decode("roof=dreamy");
        assert_eq!(n[0].param, "roof");
    }

    /// With no `roof` key the essay's widgets run on the
    /// datasheet and those beyond it (llm, dit) on the achievable roofs; an
    /// explicit `roof=` (either value) applies to every widget and stays in the
    /// link.
    #[test]
    fn roofs_default_per_widget_and_an_explicit_one_applies_to_all() {
        let none = decode("hw=h100-sxm").0;
        let ach = decode("hw=h100-sxm&roof=achievable").0;
        let ds = decode("hw=h100-sxm&roof=datasheet").0;
        // the explorer: datasheet unless told
        assert_eq!(none.machine(), ds.machine());
        assert_ne!(none.machine(), ach.machine());
        // beyond the essay: achievable unless told
        assert_eq!(none.beyond(), ach.beyond());
        assert_ne!(none.beyond(), ds.beyond());
        let llm = |s: &State| crate::state::widgets::llm::view(s, false).step.wall;
        let dit = |s: &State| crate::state::widgets::dit::view(s, false).step.wall;
        assert_eq!(llm(&none), llm(&ach));
        assert_ne!(llm(&none), llm(&ds));
        assert_eq!(dit(&none), dit(&ach));
        // an explicit choice stays in the link, both ways; none stays out
        assert!(encode(&ds).contains("roof=datasheet"));
        assert!(encode(&ach).contains("roof=achievable"));
        assert!(!encode(&none).contains("roof"));
        for s in [&none, &ach, &ds] {
            assert_eq!(&decode(&encode(s)).0, s);
        }
        // the select's three choices
        let mut t = none.clone();
        t.choose_roof(Some(Roof::Datasheet));
        assert_eq!(t, ds);
        t.choose_roof(None);
        assert_eq!(t, none);
    }

    #[test]
    fn full_round_trip() {
        let q = "hw=h100-sxm&dtype=fp8&flops=2e15&bw=3.35e12&batch=4096&hidden=8192&workload=chain&ops=64&fused=1&overhead=1e-5";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        let t = &s.setting;
        assert_eq!(t.hw.id, "h100-sxm");
        assert_eq!(t.dtype, Dtype::Fp8);
        assert_eq!(t.flops, 2e15);
        assert_eq!(t.shape.batch, 4096);
        assert_eq!(t.shape.workload, Workload::Chain);
        assert!(t.shape.fused);
        // every key written, in URL order
        assert_eq!(encode(&s), q);
        assert_eq!(decode(&encode(&s)), (s, vec![]));
    }

    #[test]
    fn plain_and_exponent_numbers() {
        assert_eq!(decode("flops=312000000000000").0.setting.flops, 312e12);
        assert_eq!(decode("flops=3.12e14").0.setting.flops, 312e12);
        assert_eq!(decode("flops=312E12").0.setting.flops, 312e12);
    }

    #[test]
    fn bad_values_fall_back_with_a_notice() {
        for (q, key) in [
            ("flops=abc", "flops"),
            ("flops=NaN", "flops"),
            ("flops=inf", "flops"),
            ("flops=-5", "flops"),
            ("flops=0", "flops"),
            ("flops=1e400", "flops"),
            ("bw=1", "bw"),
            ("batch=0", "batch"),
            ("batch=1.5", "batch"),
            ("batch=70000", "batch"),
            ("ops=2000", "ops"),
            ("hidden=", "hidden"),
            ("fused=yes", "fused"),
            ("workload=cnn", "workload"),
            ("hw=z80", "hw"),
            ("dtype=fp64", "dtype"),
            ("dtype=fp8", "dtype"), // A100 has no fp8
            ("overhead=1", "overhead"),
        ] {
            let (s, n) = decode(q);
            assert_eq!(n.len(), 1, "{q}: {n:?}");
            assert_eq!(n[0].param, key, "{q}");
            assert_eq!(s, State::default(), "{q}");
        }
    }

    #[test]
    fn unknown_keys_ignored_and_repeats_reported() {
        let (s, n) = decode("foo=bar&embed=x&batch=8&batch=9");
        assert_eq!(s.setting.shape.batch, 8);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].param, "batch");
    }

    #[test]
    fn flops_default_follows_hw_and_dtype() {
        let (s, _) = decode("hw=h100-sxm&dtype=fp32");
        assert_eq!(s.setting.flops, 67e12);
        assert_eq!(s.setting.bw, 3.35e12);
    }

    #[test]
    fn long_values_are_truncated_in_notices() {
        let long = "x".repeat(10_000);
        let (_, n) = decode(&format!("hw={long}"));
        assert!(n[0].value.chars().count() <= MAX_SHOWN + 1);
        let _: &Notice = &n[0];
    }
}
