//! The trace widget's roofline in numbers: the dtype whose matmul ceiling it
//! draws, the machine (roofs) of the picked GPU, each placed kernel as a point
//! at the FLOP/s it achieved, and what the points say in words. Computed from
//! the JSON row (`report::Row`) so that `ui/apps/trace/charts.rs` only draws.

use super::report::{PlacedRow, Row};
use super::words::short;
use crate::model::achievable::Roof;
use crate::model::hardware::{self, Dtype, Preset};
use crate::model::setting::Setting;
use crate::model::workload::RoofPoint;
use crate::model::{units, Bound, Machine, Unit};

/// The roofline the trace widget draws for a rank, and its words.
#[derive(Clone, Debug, PartialEq)]
pub struct RoofView {
    pub hw: &'static Preset,
    pub dtype: Dtype,
    pub machine: Machine,
    pub points: Vec<RoofPoint>,
    /// What the points say (`summary`).
    pub summary: Vec<String>,
    /// The chart's accessible label.
    pub label: String,
}

/// The roofline of rank `c` on its roof preset's `roof` roofs; `None` where
/// the rank has no roof preset (its GPU matches none and none was picked).
pub fn view(c: &Row, roof: Roof) -> Option<RoofView> {
    let hw = c.roof_preset.as_deref().and_then(hardware::preset)?;
    let dtype = roof_dtype(hw, &c.roofline);
    let m = machine(hw, dtype, roof);
    let points = points(&m, &c.roofline);
    // another GPU than the trace's own was picked: name the one they ran on
    let own = (c.roof_preset != c.preset)
        .then(|| c.device.clone().unwrap_or_else(|| "trace's own GPU".into()));
    let summary = summary(&m, hw, dtype, roof, &points, own.as_deref());
    let label = format!(
        "The trace's kernels on the {} roofline ({}, {} roofs): {}, one per aten op and kernel name, at the FLOP/s they achieved",
        hw.name,
        dtype.label(),
        roof.id(),
        units::count(points.len() as u32, "point", "points")
    );
    Some(RoofView {
        hw,
        dtype,
        machine: m,
        points,
        summary,
        label,
    })
}

/// The dtype whose matmul ceiling the chart draws: the one the placed
/// matmul-class kernels spent most time in, else the one all placed kernels
/// did (an fp32 run is drawn against fp32, or TF32 where a kernel's name says
/// so), else the preset's own; if the preset has it.
pub fn roof_dtype(hw: &Preset, placed: &[PlacedRow]) -> Dtype {
    dtype_by_time(placed, true)
        .or_else(|| dtype_by_time(placed, false))
        .filter(|d| hw.supports(*d))
        .unwrap_or_else(|| hw.default_dtype())
}

/// The dtype the placed kernels (matmul-class ones only, or all) spent most
/// time in; `None` where none says.
fn dtype_by_time(placed: &[PlacedRow], matmul_only: bool) -> Option<Dtype> {
    let mut time = [0.0; 4];
    for p in placed
        .iter()
        .filter(|p| !matmul_only || is_matmul_class(&p.class))
    {
        if let Some(i) = p
            .dtype
            .as_deref()
            .and_then(|d| super::roof_dtype(d, false))
            .and_then(|d| Dtype::ALL.iter().position(|x| *x == d))
        {
            if let Some(t) = time.get_mut(i) {
                *t += p.time_s.max(0.0);
            }
        }
    }
    Dtype::ALL
        .iter()
        .zip(time)
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(d, _)| *d)
}

fn is_matmul_class(class: &str) -> bool {
    matches!(class, "matmul" | "attention")
}

/// The roofs of `hw` in `dtype` (datasheet or achievable), as the explorer
/// builds them.
pub fn machine(hw: &'static Preset, dtype: Dtype, roof: Roof) -> Machine {
    Setting::on(hw, dtype, roof).machine()
}

/// The roofs the chart holds while no rank has a roof preset (it is not
/// shown then): the default GPU's datasheet roofs in bf16.
pub fn no_roof() -> Machine {
    machine(hardware::default_preset(), Dtype::Bf16, Roof::Datasheet)
}

/// The placed kernels as roofline points on `m`: at their achieved FLOP/s and
/// intensity, coloured by the roof that binds at that intensity; the name line
/// says how far below it they ran.
pub fn points(m: &Machine, placed: &[PlacedRow]) -> Vec<RoofPoint> {
    placed
        .iter()
        .filter(|p| p.flops > 0.0 && p.bytes > 0.0 && p.time_s > 0.0 && p.count >= 1)
        .map(|p| {
            let unit = if is_matmul_class(&p.class) {
                Unit::Matmul
            } else {
                Unit::Pointwise
            };
            let intensity = p.flops / p.bytes;
            let achieved = p.flops / p.time_s;
            let (mem, top) = (m.bw * intensity, m.ceiling(unit));
            let bound = if mem < top {
                Bound::Memory
            } else {
                Bound::Compute
            };
            let of_roof = achieved / mem.min(top);
            RoofPoint {
                name: format!(
                    "{} ({}), {} of its roof",
                    short(&p.kernel, 48),
                    p.op,
                    units::percent(of_roof)
                )
                .into(),
                intensity,
                flops: achieved,
                time: p.time_s / p.count as f64,
                count: u32::try_from(p.count).unwrap_or(u32::MAX),
                unit,
                bound,
            }
        })
        .collect()
}

/// What the chart's points say in words: the matmul-class kernels together
/// against the roof at their combined intensity, and how many points sit above
/// their roof: on another GPU than the trace's, that they ran faster than the
/// picked GPU's roof allows (they ran on the trace's GPU); on its own, that the
/// op moved fewer bytes than its shapes imply, or did less. `own` names the
/// trace's GPU when `hw` is another one.
pub fn summary(
    m: &Machine,
    hw: &Preset,
    dt: Dtype,
    roof: Roof,
    pts: &[RoofPoint],
    own: Option<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let (mut flops, mut secs, mut bytes, mut calls) = (0.0, 0.0, 0.0, 0u64);
    for p in pts.iter().filter(|p| p.unit == Unit::Matmul) {
        let t = p.time * f64::from(p.count);
        let f = p.flops * t;
        flops += f;
        secs += t;
        bytes += f / p.intensity;
        calls += u64::from(p.count);
    }
    if flops > 0.0 && secs > 0.0 && bytes > 0.0 {
        let (achieved, intensity) = (flops / secs, flops / bytes);
        let attainable = m.matmul_flops.min(m.bw * intensity);
        out.push(format!(
            "The matmul, conv and attention kernels placed here ({}) did {} in {}: {} at {} FLOP per byte, {} of the {} allows there ({}, {} roofs: {}).",
            units::count(u32::try_from(calls).unwrap_or(u32::MAX), "call", "calls"),
            units::si(flops, "FLOP"),
            units::si(secs, "s"),
            units::si(achieved, "FLOP/s"),
            units::sig3(intensity),
            units::percent(achieved / attainable),
            hw.name,
            dt.label(),
            roof.id(),
            units::si(attainable, "FLOP/s")
        ));
    }
    let above = pts
        .iter()
        .filter(|p| p.flops > 1.0001 * m.ceiling(p.unit).min(m.bw * p.intensity))
        .count();
    if above > 0 {
        out.push(match own {
            Some(gpu) => format!(
                "{above} of the {} {} above the {}'s roof: those kernels ran faster than the picked GPU allows, because they ran on the {gpu}, not on the picked one.",
                units::count(pts.len() as u32, "point", "points"),
                if above == 1 { "sits" } else { "sit" },
                hw.name
            ),
            None => format!(
                "{above} of the {} {} above their roof: their op moved fewer bytes than its shapes count (a cache hit, a broadcast, an in-place op) or did less than they imply; the roofline bounds what the counted work could take, not these kernels.",
                units::count(pts.len() as u32, "point", "points"),
                if above == 1 { "sits" } else { "sit" }
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(
        class: &str,
        dtype: &str,
        count: usize,
        time_s: f64,
        flops: f64,
        bytes: f64,
    ) -> PlacedRow {
        PlacedRow {
            op: "aten::mm".into(),
            kernel: format!("{class}_kernel"),
            class: class.into(),
            dtype: Some(dtype.into()),
            count,
            time_s,
            flops,
            bytes,
        }
    }

    fn h100() -> &'static Preset {
        hardware::preset("h100-sxm").unwrap()
    }

    /// Each point sits at its kernel's achieved FLOP/s and intensity, per
    /// call, under the roof that binds at its intensity; kernels with nothing
    /// counted are left off.
    #[test]
    fn a_point_is_its_kernel_on_the_roof_that_binds() {
        let m = machine(h100(), Dtype::Bf16, Roof::Datasheet);
        let rows = [
            placed("matmul", "bf16", 4, 2e-3, 4e12, 1e9),
            placed("pointwise", "bf16", 10, 1e-3, 1e8, 4e8),
            placed("pointwise", "bf16", 1, 0.0, 1e8, 4e8),
            placed("matmul", "bf16", 1, 1e-3, 0.0, 4e8),
        ];
        let pts = points(&m, &rows);
        assert_eq!(pts.len(), 2);
        let (mm, pw) = (&pts[0], &pts[1]);
        assert_eq!((mm.unit, pw.unit), (Unit::Matmul, Unit::Pointwise));
        assert_eq!(mm.intensity, 4e12 / 1e9);
        assert_eq!(mm.flops, 4e12 / 2e-3);
        assert_eq!(mm.time, 2e-3 / 4.0);
        assert_eq!((mm.count, pw.count), (4, 10));
        for p in &pts {
            let memory = m.bw * p.intensity < m.ceiling(p.unit);
            assert_eq!(p.bound == Bound::Memory, memory, "{}", p.name);
            let of_roof = p.flops / (m.bw * p.intensity).min(m.ceiling(p.unit));
            assert!(
                p.name
                    .ends_with(&format!("{} of its roof", units::percent(of_roof))),
                "{}",
                p.name
            );
        }
        assert_eq!(pw.bound, Bound::Memory);
    }

    /// The matmul ceiling drawn is the dtype the matmul kernels spent most
    /// time in, else the one all kernels did, else the preset's own.
    #[test]
    fn the_roofs_dtype_is_where_the_matmuls_spent_their_time() {
        let hw = h100();
        let mixed = [
            placed("matmul", "fp32", 1, 3e-3, 1e9, 1e6),
            placed("matmul", "bf16", 1, 1e-3, 1e9, 1e6),
            placed("pointwise", "bf16", 1, 9e-3, 1e9, 1e6),
        ];
        assert_eq!(roof_dtype(hw, &mixed), Dtype::Fp32);
        let no_matmul = [placed("pointwise", "fp32", 1, 1e-3, 1e9, 1e6)];
        assert_eq!(roof_dtype(hw, &no_matmul), Dtype::Fp32);
        assert_eq!(roof_dtype(hw, &[]), hw.default_dtype());
    }

    /// The summary counts the points above their roof, and says why by whose
    /// GPU is drawn: on the trace's own, the op did or moved less than its
    /// shapes count; on another, the kernels ran on the trace's.
    #[test]
    fn the_summary_counts_the_points_above_their_roof() {
        let hw = h100();
        let m = machine(hw, Dtype::Bf16, Roof::Datasheet);
        // one kernel far above any roof (1 PB/s at intensity 1), one below
        let rows = [
            placed("pointwise", "bf16", 1, 1e-6, 1e9, 1e9),
            placed("pointwise", "bf16", 1, 1.0, 1e9, 1e9),
        ];
        let pts = points(&m, &rows);
        let own = summary(&m, hw, Dtype::Bf16, Roof::Datasheet, &pts, None);
        assert_eq!(own.len(), 1, "{own:?}");
        assert!(
            own[0]
                .starts_with("1 of the 2 points sits above their roof: their op moved fewer bytes"),
            "{}",
            own[0]
        );
        let other = summary(
            &m,
            hw,
            Dtype::Bf16,
            Roof::Datasheet,
            &pts,
            Some("NVIDIA A100"),
        );
        assert!(
            other[0].contains("because they ran on the NVIDIA A100"),
            "{}",
            other[0]
        );
        // a matmul under its roof: one line, the achieved share of what the roof allows
        let mm = points(&m, &[placed("matmul", "bf16", 2, 1e-3, 2e11, 1e8)]);
        let s = summary(&m, hw, Dtype::Bf16, Roof::Datasheet, &mm, None);
        assert_eq!(s.len(), 1, "{s:?}");
        let (achieved, intensity) = (2e11 / 1e-3, 2e11 / 1e8);
        let allows = m.matmul_flops.min(m.bw * intensity);
        assert!(
            s[0].contains(&format!(
                "{} of the {} allows there",
                units::percent(achieved / allows),
                hw.name
            )),
            "{}",
            s[0]
        );
    }

    /// A rank with no roof preset draws no roofline; one on a picked GPU
    /// other than its own names the GPU it ran on.
    #[test]
    fn the_view_follows_the_roof_preset() {
        let mut c = Row {
            device: Some("NVIDIA A100-SXM4-80GB".into()),
            preset: Some("a100-80gb".into()),
            roof_preset: None,
            roofline: vec![
                placed("pointwise", "bf16", 1, 1e-6, 1e9, 1e9),
                placed("matmul", "bf16", 2, 1e-3, 2e11, 1e8),
            ],
            ..Row::default()
        };
        assert!(view(&c, Roof::Datasheet).is_none());
        c.roof_preset = Some("a100-80gb".into());
        let own = view(&c, Roof::Achievable).unwrap();
        assert_eq!(own.hw.id, "a100-80gb");
        assert_eq!(own.machine, machine(own.hw, own.dtype, Roof::Achievable));
        assert_eq!(own.points.len(), 2);
        assert!(own.label.ends_with(", achievable roofs): 2 points, one per aten op and kernel name, at the FLOP/s they achieved"), "{}", own.label);
        assert!(own
            .summary
            .iter()
            .all(|l| !l.contains("NVIDIA A100-SXM4-80GB")));
        c.roof_preset = Some("h100-sxm".into());
        let other = view(&c, Roof::Datasheet).unwrap();
        assert!(
            other
                .summary
                .iter()
                .any(|l| l.contains("because they ran on the NVIDIA A100-SXM4-80GB")),
            "{:?}",
            other.summary
        );
    }
}
