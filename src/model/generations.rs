//! "Compute grows faster than bandwidth": GPU generations over time.
//!
//! The essay's figure 2 is a table of CPU doubling times from Patterson's "Latency
//! Lags Bandwidth" (CACM 47(10), October 2004): processor throughput doubled faster
//! than DRAM bandwidth. [`PATTERSON_2004`] keeps those numbers; [`GENERATIONS`] lets
//! the reader check the same claim on GPUs.
//!
//! Model:
//! - Each row has a release year, the fp32 vector peak (FMA = 2 FLOPs), the headline
//!   dense 16-bit tensor-core peak where the part has tensor cores (`None` before
//!   Volta / on Pascal), the DRAM bandwidth (bytes/s) and a source. Rows that are also
//!   explorer presets reference [`hardware::PRESETS`] by id, so the numbers live in one
//!   place; the other rows carry their own numbers and source.
//! - Growth is fitted by least squares of `log2(value)` against the year:
//!   `log2 v ≈ a + s·year`, so the value doubles every `1 / s` years:
//!
//!   ```text
//!   s = Σ (x − x̄)(y − ȳ) / Σ (x − x̄)²      x = year, y = log2(value)
//!   doubling time = 1 / s                   (negative: the value halves every |1/s|)
//!   ```
//! - Machine balance: FLOP per byte = peak FLOP/s / bandwidth (bytes/s), the ridge of
//!   the roofline. A ratio that grows means each byte fetched must feed ever more
//!   arithmetic before the chip is compute-bound.
//!
//! What the table shows (checked by the tests; fitted doubling times in years):
//! - datacenter: 16-bit tensor peak ≈ 1.9, HBM bandwidth ≈ 2.6, so the tensor
//!   FLOP/byte ratio grows. The fp32 *vector* peak (≈ 2.8) has kept pace with HBM
//!   (its FLOP/byte ratio is flat to slightly falling): the gap is a tensor-core
//!   phenomenon;
//! - consumer: fp32 ≈ 2.3, 16-bit tensor ≈ 3.3, GDDR bandwidth ≈ 4.5: here even
//!   the fp32 units outgrew memory bandwidth.

use super::hardware::{self, Preset};

/// Which product line a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    /// Datacenter accelerators (HBM).
    Datacenter,
    /// GeForce cards (GDDR).
    Consumer,
}

impl Line {
    pub const ALL: [Line; 2] = [Line::Datacenter, Line::Consumer];

    pub fn id(self) -> &'static str {
        match self {
            Line::Datacenter => "datacenter",
            Line::Consumer => "consumer",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Line::Datacenter => "Datacenter (HBM)",
            Line::Consumer => "Consumer (GDDR)",
        }
    }
}

/// Where a row's numbers come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Specs {
    /// An explorer preset: name, year, peaks, bandwidth and source are read from
    /// [`hardware::PRESETS`] (16-bit tensor peak = the preset's `bf16` field, which is
    /// the fp16 tensor peak on parts without bf16).
    Preset(&'static str),
    /// A part that is not an explorer preset.
    Listed {
        name: &'static str,
        year: u16,
        /// fp32 vector peak, FLOP/s (FMA = 2 FLOPs).
        fp32: f64,
        /// Dense 16-bit tensor-core peak, FLOP/s; `None` without tensor cores.
        tensor16: Option<f64>,
        /// DRAM bandwidth, bytes/s.
        mem_bw: f64,
        source: &'static str,
    },
}

/// One row of the static table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Generation {
    pub line: Line,
    pub specs: Specs,
}

/// A row with every number resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenRow {
    pub name: &'static str,
    pub year: u16,
    pub line: Line,
    /// fp32 vector peak, FLOP/s.
    pub fp32: f64,
    /// Dense 16-bit tensor-core peak, FLOP/s.
    pub tensor16: Option<f64>,
    /// DRAM bandwidth, bytes/s.
    pub mem_bw: f64,
    pub source: &'static str,
    /// The explorer preset this row comes from, if any.
    pub preset_id: Option<&'static str>,
}

/// Which number of a row to plot or fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    Fp32,
    Tensor16,
    Bandwidth,
    /// fp32 FLOP/s ÷ bandwidth (FLOP/byte).
    Fp32PerByte,
    /// 16-bit tensor FLOP/s ÷ bandwidth (FLOP/byte).
    Tensor16PerByte,
}

impl GenRow {
    /// FLOP per byte of the fp32 vector peak: `fp32 / mem_bw`.
    pub fn fp32_per_byte(&self) -> f64 {
        self.fp32 / self.mem_bw
    }

    /// FLOP per byte of the 16-bit tensor peak: `tensor16 / mem_bw`.
    pub fn tensor16_per_byte(&self) -> Option<f64> {
        self.tensor16.map(|t| t / self.mem_bw)
    }

    /// The requested number, `None` where the row has none (no tensor cores).
    pub fn metric(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Fp32 => Some(self.fp32),
            Metric::Tensor16 => self.tensor16,
            Metric::Bandwidth => Some(self.mem_bw),
            Metric::Fp32PerByte => Some(self.fp32_per_byte()),
            Metric::Tensor16PerByte => self.tensor16_per_byte(),
        }
    }

    fn from_preset(p: &'static Preset, line: Line) -> GenRow {
        GenRow {
            name: p.name,
            year: p.year,
            line,
            fp32: p.fp32_vector,
            tensor16: p.bf16,
            mem_bw: p.mem_bw,
            source: p.source,
            preset_id: Some(p.id),
        }
    }
}

impl Generation {
    /// Resolve the row; `None` only if a referenced preset id does not exist (a test
    /// checks that every row resolves).
    pub fn resolve(&self) -> Option<GenRow> {
        match self.specs {
            Specs::Preset(id) => hardware::preset(id).map(|p| GenRow::from_preset(p, self.line)),
            Specs::Listed {
                name,
                year,
                fp32,
                tensor16,
                mem_bw,
                source,
            } => Some(GenRow {
                name,
                year,
                line: self.line,
                fp32,
                tensor16,
                mem_bw,
                source,
                preset_id: None,
            }),
        }
    }
}

const T: f64 = 1e12;
const GB: f64 = 1e9;

/// The table, oldest first within each line.
pub static GENERATIONS: &[Generation] = &[
    // ---- datacenter ----
    Generation {
        line: Line::Datacenter,
        specs: Specs::Listed {
            name: "NVIDIA Tesla P100 SXM2",
            year: 2016,
            fp32: 10.6 * T,
            // Pascal has no tensor cores (its 21.2 TFLOP/s fp16 is packed vector math).
            tensor16: None,
            mem_bw: 732.0 * GB,
            source: "NVIDIA Tesla P100 datasheet (2016), SXM2/NVLink column: FP32 10.6 TFLOPS, FP16 21.2 TFLOPS (vector, no tensor cores); HBM2 732 GB/s",
        },
    },
    Generation {
        line: Line::Datacenter,
        specs: Specs::Preset("v100"),
    },
    Generation {
        line: Line::Datacenter,
        specs: Specs::Preset("a100-40gb"),
    },
    Generation {
        line: Line::Datacenter,
        specs: Specs::Preset("h100-sxm"),
    },
    Generation {
        line: Line::Datacenter,
        specs: Specs::Preset("h200"),
    },
    Generation {
        line: Line::Datacenter,
        specs: Specs::Preset("b200"),
    },
    // ---- consumer ----
    Generation {
        line: Line::Consumer,
        specs: Specs::Listed {
            name: "NVIDIA GeForce GTX 1080 Ti",
            year: 2017,
            // 3584 CUDA cores x 2 FLOP x 1.582 GHz boost.
            fp32: 11.34 * T,
            tensor16: None,
            // 11 Gbps GDDR5X x 352-bit bus / 8.
            mem_bw: 484.0 * GB,
            source: "NVIDIA GeForce GTX 1080 Ti specifications (2017): 3584 CUDA cores, 1582 MHz boost (= 11.34 TFLOPS FP32), 11 Gbps GDDR5X on 352 bits = 484 GB/s; Pascal, no tensor cores",
        },
    },
    Generation {
        line: Line::Consumer,
        specs: Specs::Listed {
            name: "NVIDIA GeForce RTX 2080 Ti",
            year: 2018,
            fp32: 13.4 * T,
            tensor16: Some(53.8 * T),
            mem_bw: 616.0 * GB,
            source: "NVIDIA Turing architecture whitepaper (2018), RTX 2080 Ti reference clocks: FP32 13.4 TFLOPS, FP16 tensor with FP32 accumulate 53.8 TFLOPS; GDDR6 616 GB/s",
        },
    },
    Generation {
        line: Line::Consumer,
        specs: Specs::Preset("rtx-3090"),
    },
    Generation {
        line: Line::Consumer,
        specs: Specs::Preset("rtx-4090"),
    },
    Generation {
        line: Line::Consumer,
        specs: Specs::Listed {
            name: "NVIDIA GeForce RTX 5090",
            year: 2025,
            // 21760 CUDA cores x 2 FLOP x 2.407 GHz boost.
            fp32: 104.8 * T,
            tensor16: Some(209.5 * T),
            mem_bw: 1792.0 * GB,
            source: "NVIDIA RTX Blackwell GPU architecture whitepaper (2025), RTX 5090: FP32 104.8 TFLOPS (21760 cores at 2.407 GHz), FP16/BF16 tensor with FP32 accumulate 209.5 TFLOPS dense; GDDR7 1,792 GB/s",
        },
    },
];

/// Every row that resolves, optionally restricted to one line, in table order.
pub fn rows(line: Option<Line>) -> Vec<GenRow> {
    GENERATIONS
        .iter()
        .filter(|g| line.is_none_or(|l| g.line == l))
        .filter_map(Generation::resolve)
        .collect()
}

/// `(year, value)` points of one metric, skipping rows that lack it.
pub fn series(rows: &[GenRow], metric: Metric) -> Vec<(f64, f64)> {
    rows.iter()
        .filter_map(|r| r.metric(metric).map(|v| (f64::from(r.year), v)))
        .collect()
}

/// The fitted doubling time of `metric` over the GPUs of `line` (every line:
/// `None`), years; `None` where the fit gives none ([`doubling_time`]).
pub fn doubling(line: Option<Line>, metric: Metric) -> Option<f64> {
    doubling_time(&series(&rows(line), metric))
}

/// A doubling time in words: "2.5 years", "–" where there is none.
pub fn doubling_words(years: Option<f64>) -> String {
    years
        .map(|y| format!("{} years", super::units::sig3(y)))
        .unwrap_or_else(|| "–".into())
}

/// What the chart shows, in a sentence: how many GPUs, and how often their
/// tensor FLOP/s and their bandwidth double.
pub fn summary(line: Option<Line>) -> String {
    let r = rows(line);
    let dt = |m| doubling_words(doubling_time(&series(&r, m)));
    format!(
        "Showing {}: tensor FLOP/s double every {}, bandwidth every {}.",
        super::units::count(r.len() as u32, "GPU", "GPUs"),
        dt(Metric::Tensor16),
        dt(Metric::Bandwidth)
    )
}

/// Doubling time in years of a least-squares fit of `log2(value)` against year.
///
/// `None` for fewer than two points, any non-finite or non-positive value, all
/// points in one year, or a zero slope. A negative result means the value halves
/// every `|result|` years.
pub fn doubling_time(points: &[(f64, f64)]) -> Option<f64> {
    let slope = log2_slope(points)?;
    if slope == 0.0 {
        return None;
    }
    let d = 1.0 / slope;
    d.is_finite().then_some(d)
}

/// Slope of `log2(value)` per year (doublings per year); `None` as for
/// [`doubling_time`] except that a zero slope is returned.
pub fn log2_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    if points
        .iter()
        .any(|&(x, v)| !x.is_finite() || !v.is_finite() || v <= 0.0)
    {
        return None;
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1.log2()).sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for &(x, v) in points {
        let dx = x - mx;
        sxy += dx * (v.log2() - my);
        sxx += dx * dx;
    }
    if sxx == 0.0 {
        return None;
    }
    let s = sxy / sxx;
    s.is_finite().then_some(s)
}

/// The CPU observation behind the essay's figure 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuTrend {
    /// Processor throughput growth per year (Patterson's "bandwidth" of a
    /// microprocessor is its peak instruction rate, MIPS).
    pub cpu_per_year: f64,
    /// Years for processor throughput to double.
    pub cpu_doubling_years: f64,
    /// DRAM module bandwidth growth per year.
    pub dram_bw_per_year: f64,
    /// Years for DRAM bandwidth to double.
    pub dram_doubling_years: f64,
    pub source: &'static str,
    pub caveat: &'static str,
}

/// Patterson's summary over all milestones (microprocessors 80286 → Pentium 4,
/// memory modules 16-bit DRAM → 64-bit DDR SDRAM, roughly 1980–2003).
///
/// Source: D. A. Patterson, "Latency Lags Bandwidth", Communications of the ACM
/// 47(10), Oct 2004 (the article the essay links), as summarised in his companion
/// talk's table "improvement in time for BW to double": CPU 1.50×/year → 1.7 years,
/// memory 1.27×/year → 2.9 years. (The same table lists the last three milestones
/// only: CPU 1.55×/year → 1.6 years, memory 1.30×/year → 2.7 years.) The printed
/// CACM table itself could not be retrieved here; the two numbers are consistent
/// with each other: `ln 2 / ln 1.50 = 1.71`, `ln 2 / ln 1.27 = 2.89`.
pub const PATTERSON_2004: CpuTrend = CpuTrend {
    cpu_per_year: 1.50,
    cpu_doubling_years: 1.7,
    dram_bw_per_year: 1.27,
    dram_doubling_years: 2.9,
    source: "D. A. Patterson, \"Latency Lags Bandwidth\", Communications of the ACM 47(10), October 2004; figures from the summary table of the accompanying talk (all milestones)",
    caveat: "Patterson measures processor \"bandwidth\" as peak instruction throughput (MIPS) of six IA-32 generations; the essay reads it as CPU compute.",
};

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(line: Line, metric: Metric) -> f64 {
        doubling_time(&series(&rows(Some(line)), metric)).unwrap_or(f64::NAN)
    }

    /// The widget's table and sentence: compute outpaces bandwidth on every
    /// line (the essay's point), and the sentence gives the same fits.
    #[test]
    fn flops_double_faster_than_bandwidth_and_the_sentence_says_so() {
        for line in [None].into_iter().chain(Line::ALL.into_iter().map(Some)) {
            let flops = doubling(line, Metric::Tensor16).unwrap();
            let bw = doubling(line, Metric::Bandwidth).unwrap();
            assert!(0.0 < flops && flops < bw, "{line:?}: {flops} vs {bw}");
            let s = summary(line);
            assert!(
                s.contains(&format!(
                    "tensor FLOP/s double every {} years",
                    crate::model::units::sig3(flops)
                )),
                "{s}"
            );
            assert!(
                s.contains(&format!(
                    "bandwidth every {} years.",
                    crate::model::units::sig3(bw)
                )),
                "{s}"
            );
            assert!(
                s.starts_with(&format!("Showing {} GPUs", rows(line).len())),
                "{s}"
            );
        }
        assert_eq!(doubling_words(None), "–");
    }

    #[test]
    fn every_row_resolves_and_is_sourced() {
        assert_eq!(rows(None).len(), GENERATIONS.len());
        for r in rows(None) {
            assert!(r.fp32.is_finite() && r.fp32 > 0.0, "{}", r.name);
            assert!(r.mem_bw.is_finite() && r.mem_bw > 0.0, "{}", r.name);
            if let Some(t) = r.tensor16 {
                assert!(t > r.fp32, "{}", r.name);
            }
            assert!(r.source.len() > 30, "{}", r.name);
            assert!((2016..=2025).contains(&r.year), "{}", r.name);
        }
    }

    #[test]
    fn presets_are_referenced_not_copied() {
        let a100 = rows(Some(Line::Datacenter))
            .into_iter()
            .find(|r| r.preset_id == Some("a100-40gb"));
        let Some(a100) = a100 else {
            panic!("A100 row missing")
        };
        assert_eq!(a100.tensor16, Some(312e12));
        assert_eq!(a100.fp32, 19.5e12);
        assert_eq!(a100.mem_bw, 1.555e12);
        assert_eq!(a100.year, 2020);
        assert_eq!(
            rows(None).iter().filter(|r| r.preset_id.is_some()).count(),
            7
        );
    }

    #[test]
    fn lines_are_filtered_and_ordered() {
        let dc = rows(Some(Line::Datacenter));
        let cons = rows(Some(Line::Consumer));
        assert_eq!(dc.len(), 6);
        assert_eq!(cons.len(), 5);
        assert!(dc.iter().all(|r| r.line == Line::Datacenter));
        assert!(cons.iter().all(|r| r.line == Line::Consumer));
        for l in [&dc, &cons] {
            assert!(l.windows(2).all(|w| w[0].year <= w[1].year));
        }
        assert_eq!(dc[0].year, 2016);
        assert_eq!(cons[cons.len() - 1].year, 2025);
    }

    #[test]
    fn exact_exponential_doubles_every_two_years() {
        let pts: Vec<(f64, f64)> = (2010..2020)
            .map(|y| {
                let t = f64::from(y);
                (t, 3.0 * 2f64.powf((t - 2010.0) / 2.0))
            })
            .collect();
        let d = doubling_time(&pts).unwrap_or(f64::NAN);
        assert!((d - 2.0).abs() < 1e-9, "{d}");
        // halving series gives a negative doubling time
        let halving: Vec<(f64, f64)> = pts.iter().map(|&(x, v)| (x, 1.0 / v)).collect();
        let h = doubling_time(&halving).unwrap_or(f64::NAN);
        assert!((h + 2.0).abs() < 1e-9, "{h}");
    }

    #[test]
    fn degenerate_fits_are_none() {
        assert_eq!(doubling_time(&[]), None);
        assert_eq!(doubling_time(&[(2020.0, 1.0)]), None);
        assert_eq!(doubling_time(&[(2020.0, 1.0), (2020.0, 2.0)]), None);
        assert_eq!(doubling_time(&[(2020.0, 5.0), (2022.0, 5.0)]), None);
        assert_eq!(doubling_time(&[(2020.0, 1.0), (2022.0, 0.0)]), None);
        assert_eq!(doubling_time(&[(2020.0, 1.0), (2022.0, -3.0)]), None);
        assert_eq!(doubling_time(&[(2020.0, 1.0), (2022.0, f64::NAN)]), None);
        assert_eq!(doubling_time(&[(f64::INFINITY, 1.0), (2022.0, 2.0)]), None);
        assert_eq!(
            doubling_time(&[(2020.0, 1.0), (2022.0, 4.0)]).map(|d| (d * 1e9).round()),
            Some(1e9)
        );
    }

    #[test]
    fn datacenter_flops_outgrow_bandwidth() {
        let flops = dt(Line::Datacenter, Metric::Tensor16);
        let bw = dt(Line::Datacenter, Metric::Bandwidth);
        assert!(flops > 0.0 && bw > 0.0, "{flops} {bw}");
        assert!(flops < bw, "tensor {flops} y vs bandwidth {bw} y");
        // the machine balance (FLOP/byte) grows over the line
        let ratio = dt(Line::Datacenter, Metric::Tensor16PerByte);
        assert!(ratio > 0.0, "{ratio}");
        let pts = series(&rows(Some(Line::Datacenter)), Metric::Tensor16PerByte);
        assert!(pts[pts.len() - 1].1 > pts[0].1);
    }

    #[test]
    fn consumer_flops_outgrow_bandwidth() {
        let fp32 = dt(Line::Consumer, Metric::Fp32);
        let bw = dt(Line::Consumer, Metric::Bandwidth);
        assert!(0.0 < fp32 && fp32 < bw, "{fp32} {bw}");
        assert!(dt(Line::Consumer, Metric::Fp32PerByte) > 0.0);
        assert!(dt(Line::Consumer, Metric::Tensor16) < bw);
    }

    #[test]
    fn datacenter_fp32_vector_kept_pace_with_hbm() {
        // Documented in the module docs: the gap is a tensor-core phenomenon.
        let fp32 = dt(Line::Datacenter, Metric::Fp32);
        let bw = dt(Line::Datacenter, Metric::Bandwidth);
        assert!(fp32 > 0.0 && bw > 0.0 && fp32 >= 0.8 * bw, "{fp32} {bw}");
    }

    #[test]
    fn ratio_per_row() {
        let a100 = rows(None)
            .into_iter()
            .find(|r| r.preset_id == Some("a100-40gb"));
        let Some(a100) = a100 else {
            panic!("A100 row missing")
        };
        let r = a100.tensor16_per_byte().unwrap_or(0.0);
        assert!((r - 312.0 / 1.555).abs() < 1e-9, "{r}");
        assert!((a100.fp32_per_byte() - 19.5 / 1.555).abs() < 1e-9);
        let p100 = rows(None)[0];
        assert_eq!(p100.tensor16_per_byte(), None);
        assert_eq!(p100.metric(Metric::Tensor16), None);
    }

    #[test]
    fn patterson_numbers_are_consistent() {
        let p = PATTERSON_2004;
        assert!(p.cpu_doubling_years < p.dram_doubling_years);
        let cpu = 2f64.ln() / p.cpu_per_year.ln();
        let dram = 2f64.ln() / p.dram_bw_per_year.ln();
        assert!((cpu - p.cpu_doubling_years).abs() < 0.05, "{cpu}");
        assert!((dram - p.dram_doubling_years).abs() < 0.05, "{dram}");
    }
}
