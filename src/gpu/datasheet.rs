//! Measured figures beside a datasheet: which preset an adapter looks like (a
//! guess the user can change), and every headline figure of a run as a percentage
//! of the matching datasheet number, with the FLOP convention spelled out.
//!
//! Matching numbers (datasheets count an FMA as 2 FLOP):
//! - copy bandwidth (bytes read + written per second) ↔ memory bandwidth;
//! - the fma chain's rate ↔ the fp32 vector peak: FMA/s × 2 against FLOP/s;
//! - the `x · m` chain's rate ↔ the fp32 multiply rate, half the fp32 peak (one
//!   multiply per FMA slot): above 100 % only if a compiler shortened the chain.

use super::analysis::Summary;
use super::results::{AdapterInfo, Op};
use crate::model::hardware::{self, Preset};
use crate::model::units;

/// The words of an adapter's description, lower case, split on anything that is
/// not a letter or digit ("NVIDIA H100 80GB HBM3" → nvidia, h100, 80gb, hbm3).
fn tokens(a: &AdapterInfo) -> Vec<String> {
    [&a.vendor, &a.architecture, &a.device, &a.description]
        .iter()
        .flat_map(|s| {
            s.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The preset an adapter looks like, from its vendor, architecture, device and
/// description, or `None` when nothing identifies one. Browsers often expose only
/// the vendor and architecture ("nvidia", "hopper"): an architecture guesses its
/// data-centre part only where brrr has a single preset for it.
pub fn guess(a: &AdapterInfo) -> Option<&'static Preset> {
    let t = tokens(a);
    let has = |w: &str| t.iter().any(|x| x == w);
    let id = if has("h100") {
        if has("pcie") {
            "h100-pcie"
        } else if has("nvl") {
            return None; // a different part (94 GB, other clocks): no preset
        } else {
            "h100-sxm"
        }
    } else if has("h200") || has("gh200") {
        "h200"
    } else if has("b200") {
        "b200"
    } else if has("a100") {
        if has("80gb") {
            "a100-80gb"
        } else {
            "a100-40gb"
        }
    } else if has("v100") {
        "v100"
    } else if has("mi300x") {
        "mi300x"
    } else if has("4090") && !has("laptop") && !has("d") {
        "rtx-4090"
    } else if has("3090") && !has("ti") && !has("laptop") {
        "rtx-3090"
    } else if has("l4") {
        "l4"
    } else if has("t4") {
        "t4"
    } else if has("m2") && has("max") {
        "m2-max"
    } else if has("hopper") {
        "h100-sxm"
    } else if has("volta") {
        "v100"
    } else if has("blackwell") && !has("geforce") {
        "b200"
    } else {
        return None;
    };
    hardware::preset(id)
}

/// The datasheet preset "Use my GPU" takes what the lab cannot measure from:
/// the one the reader picked in the lab's select (`Some("")`: none), else the
/// adapter's [`guess`].
pub fn base(choice: Option<&str>, a: &AdapterInfo) -> Option<&'static Preset> {
    match choice {
        Some(id) => hardware::preset(id).filter(|p| !p.is_measured()),
        None => guess(a),
    }
}

/// One measured figure beside its datasheet number.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// What was measured, in words.
    pub label: &'static str,
    /// `data-metric` name of the percentage readout.
    pub metric: &'static str,
    /// The measured figure, formatted with its unit.
    pub measured: String,
    /// The datasheet number it is compared with, in words.
    pub datasheet: String,
    /// measured ÷ datasheet.
    pub fraction: f64,
}

impl Comparison {
    /// "89 %".
    pub fn percent(&self) -> String {
        format!("{} %", units::sig3(self.fraction * 100.0))
    }
}

/// The FLOP convention, in a sentence for the page.
pub const CONVENTION: &str = "FLOP convention, as on datasheets: an FMA (fused multiply-add) \
    counts as 2 FLOP, a multiply as 1; the fp32 peak is FMAs per second × 2, and a \
    chain of multiplies can reach at most half of it.";

/// Each figure of `s` that was measured, as a fraction of `p`'s datasheet.
pub fn compare(s: &Summary, p: &Preset) -> Vec<Comparison> {
    let mut out = Vec::new();
    let name = p.name;
    if let Some(bw) = s.copy_bw {
        out.push(Comparison {
            label: "Copy bandwidth",
            metric: "lab_copy_bw_pct",
            measured: units::si(bw, "B/s"),
            datasheet: format!(
                "{} memory bandwidth of the {name}",
                units::si(p.mem_bw, "B/s")
            ),
            fraction: bw / p.mem_bw,
        });
    }
    if let Some((fma, _)) = s.fma_rate {
        out.push(Comparison {
            label: "Compute ceiling (fma chain)",
            metric: "lab_peak_flops_pct",
            measured: format!(
                "{} FMA/s = {} (FMA = 2 FLOP)",
                units::si(fma, ""),
                units::si(fma * Op::Fma.flop(), "FLOP/s")
            ),
            datasheet: format!(
                "{} fp32 peak of the {name}",
                units::si(p.fp32_vector, "FLOP/s")
            ),
            fraction: fma * Op::Fma.flop() / p.fp32_vector,
        });
    }
    if let Some((mul, _)) = s.mul_rate {
        out.push(Comparison {
            label: "x · m chain",
            metric: "lab_mul_rate_pct",
            measured: format!("{} multiplies/s (1 FLOP each)", units::si(mul, "")),
            datasheet: format!(
                "{} multiplies/s, the fp32 multiply rate of the {name} (half its fp32 peak)",
                units::si(p.pointwise_peak(), "")
            ),
            fraction: mul / p.pointwise_peak(),
        });
    }
    out
}

/// One figure of two runs side by side (e.g. `brrr-lab` natively against the
/// browser on the same GPU): (label, `data-metric` name of the ratio, this run,
/// the other run, this ÷ other).
pub type Versus = (&'static str, &'static str, String, String, f64);

/// The headline figures both runs measured, this run's against the other's.
pub fn versus(this: &Summary, other: &Summary) -> Vec<Versus> {
    type Figure = (
        &'static str,
        &'static str,
        Option<f64>,
        Option<f64>,
        &'static str,
    );
    let first = |p: Option<(f64, u32)>| p.map(|p| p.0);
    let figures: [Figure; 5] = [
        (
            "Copy bandwidth",
            "lab_versus_copy_bw",
            this.copy_bw,
            other.copy_bw,
            "B/s",
        ),
        (
            "Compute ceiling (fma chain)",
            "lab_versus_peak_flops",
            first(this.peak_flops),
            first(other.peak_flops),
            "FLOP/s",
        ),
        (
            "x · m chain, at best",
            "lab_versus_mul_rate",
            first(this.mul_rate),
            first(other.mul_rate),
            " multiplies/s",
        ),
        (
            "Per dispatch (empty kernel)",
            "lab_versus_dispatch_s",
            this.dispatch,
            other.dispatch,
            "s",
        ),
        (
            "Per queue.submit",
            "lab_versus_submit_s",
            this.submit,
            other.submit,
            "s",
        ),
    ];
    figures
        .into_iter()
        .filter_map(|(label, metric, a, b, unit)| {
            let (a, b) = (a?, b?);
            (a.is_finite() && b.is_finite() && b > 0.0)
                .then(|| (label, metric, units::si(a, unit), units::si(b, unit), a / b))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(vendor: &str, arch: &str, device: &str, description: &str) -> AdapterInfo {
        AdapterInfo {
            vendor: vendor.into(),
            architecture: arch.into(),
            device: device.into(),
            description: description.into(),
            ..AdapterInfo::default()
        }
    }

    fn id(a: &AdapterInfo) -> Option<&'static str> {
        guess(a).map(|p| p.id)
    }

    #[test]
    fn adapters_guess_their_preset() {
        // wgpu on Vulkan, as in h100.json: name in `device`, driver in `description`
        assert_eq!(
            id(&adapter(
                "NVIDIA",
                "",
                "NVIDIA H100 80GB HBM3",
                "580.159.04"
            )),
            Some("h100-sxm")
        );
        assert_eq!(
            id(&adapter("", "", "NVIDIA H100 PCIe", "")),
            Some("h100-pcie")
        );
        assert_eq!(id(&adapter("", "", "NVIDIA H100 NVL", "")), None);
        assert_eq!(
            id(&adapter("nvidia", "", "NVIDIA GH200 480GB", "")),
            Some("h200")
        );
        assert_eq!(
            id(&adapter("", "", "NVIDIA A100-SXM4-80GB", "")),
            Some("a100-80gb")
        );
        assert_eq!(
            id(&adapter("", "", "NVIDIA A100-PCIE-40GB", "")),
            Some("a100-40gb")
        );
        assert_eq!(
            id(&adapter("", "", "Tesla V100-SXM2-32GB", "")),
            Some("v100")
        );
        assert_eq!(
            id(&adapter("AMD", "", "AMD Instinct MI300X", "")),
            Some("mi300x")
        );
        assert_eq!(
            id(&adapter("NVIDIA", "", "NVIDIA GeForce RTX 4090", "")),
            Some("rtx-4090")
        );
        assert_eq!(
            id(&adapter("", "", "NVIDIA GeForce RTX 4090 Laptop GPU", "")),
            None
        );
        assert_eq!(id(&adapter("", "", "NVIDIA GeForce RTX 3090 Ti", "")), None);
        assert_eq!(id(&adapter("", "", "NVIDIA L4", "")), Some("l4"));
        assert_eq!(id(&adapter("", "", "NVIDIA L40S", "")), None);
        assert_eq!(id(&adapter("", "", "Tesla T4", "")), Some("t4"));
        assert_eq!(id(&adapter("", "", "Apple M2 Max", "")), Some("m2-max"));
        // a browser that exposes only vendor and architecture
        assert_eq!(id(&adapter("nvidia", "hopper", "", "")), Some("h100-sxm"));
        assert_eq!(id(&adapter("nvidia", "ampere", "", "")), None);
        // software adapters and the unknown: none
        assert_eq!(
            id(&adapter("google", "swiftshader", "", "SwiftShader Device")),
            None
        );
        assert_eq!(
            id(&adapter(
                "Mesa",
                "",
                "llvmpipe (LLVM 19.1.7, 256 bits)",
                "Mesa 25.0.7"
            )),
            None
        );
        assert_eq!(id(&AdapterInfo::default()), None);
    }

    #[test]
    fn two_runs_side_by_side() {
        let native = Summary {
            copy_bw: Some(2.98e12),
            peak_flops: Some((64.4e12, 1024)),
            dispatch: Some(1.6e-7),
            ..Summary::default()
        };
        let browser = Summary {
            copy_bw: Some(2.5e12),
            peak_flops: Some((60e12, 1024)),
            mul_rate: Some((30e12, 1024)),
            ..Summary::default()
        };
        let v = versus(&native, &browser);
        // only what both measured
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].0, "Copy bandwidth");
        assert_eq!(v[0].1, "lab_versus_copy_bw");
        assert_eq!(
            (v[0].2.as_str(), v[0].3.as_str()),
            ("2.98 TB/s", "2.5 TB/s")
        );
        assert!((v[0].4 - 2.98 / 2.5).abs() < 1e-12);
        assert_eq!(v[1].2, "64.4 TFLOP/s");
        assert!(versus(&Summary::default(), &browser).is_empty());
    }

    #[test]
    fn figures_as_fractions_of_the_datasheet() {
        let h100 = hardware::preset("h100-sxm").unwrap();
        // h100.json: copy 2.98 TB/s, fma 32.2 T FMA/s, x·m 64 T multiplies/s
        let s = Summary {
            copy_bw: Some(2.983e12),
            fma_rate: Some((32.2e12, 1024)),
            peak_flops: Some((64.4e12, 1024)),
            mul_rate: Some((64.2e12, 1024)),
            ..Summary::default()
        };
        let c = compare(&s, h100);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].percent(), "89 %");
        assert_eq!(c[1].percent(), "96.1 %");
        assert!(
            c[1].measured.contains("32.2 T FMA/s = 64.4 TFLOP/s"),
            "{}",
            c[1].measured
        );
        assert!(
            c[1].datasheet.starts_with("67 TFLOP/s fp32 peak"),
            "{}",
            c[1].datasheet
        );
        // the shortened chain reads above the hardware's multiply rate
        assert_eq!(c[2].percent(), "192 %");
        assert!(
            c[2].datasheet.starts_with("33.5 T multiplies/s"),
            "{}",
            c[2].datasheet
        );
        assert_eq!(
            c.iter().map(|c| c.metric).collect::<Vec<_>>(),
            ["lab_copy_bw_pct", "lab_peak_flops_pct", "lab_mul_rate_pct"]
        );
        // nothing measured, nothing compared
        assert!(compare(&Summary::default(), h100).is_empty());
        assert!(CONVENTION.contains("FMA") && CONVENTION.contains("2 FLOP"));
    }
}
