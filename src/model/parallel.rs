//! Moving bytes between GPUs: the fourth cost. Collectives on a ring
//! of `n` GPUs, each with a link of bandwidth `bw` bytes/s per direction and a
//! latency per ring step, and the interconnects the presets ship with.
//!
//! **The ring.** An all-reduce of an `S`-byte array is a reduce-scatter then an
//! all-gather: `2(n−1)` steps, each moving `S/n` bytes out of every GPU, so
//! `2(n−1)/n · S` bytes per GPU; all-gather and reduce-scatter are one half of
//! it (`n−1` steps, `(n−1)/n · S`); an all-to-all sends `(n−1)/n · S` in `n−1`
//! pairwise steps. Time = `base + steps · hop + bytes / bw`.
//!
//! **The latency terms are NCCL's own.** NCCL picks an algorithm and protocol
//! per call from a cost model whose constants are published in its source
//! (`src/graph/tuning.cc`, NVIDIA/nccl @ 5067397): a ring call costs a base
//! latency plus a hardware latency per step. brrr uses the ring's LL protocol
//! figures, the protocol NCCL picks for the few-kilobyte all-reduces of a decode
//! step: a base of 6.6 µs and 0.6 µs per step over NVLink, 1.0 µs over PCIe and
//! 2.7 µs over the network. The textbook `steps · α` is this with the base folded
//! into α; keeping it apart is what lets one set of constants fit 2 and 8 GPUs.
//!
//! **Bus bandwidth** is nccl-tests' definition (`doc/PERFORMANCE.md`): algorithm
//! bandwidth `S / t` times `2(n−1)/n` for an all-reduce and `(n−1)/n` for
//! all-gather, reduce-scatter and all-to-all, so that a run that keeps every
//! link busy reports the link's bandwidth whatever `n` is.
//!
//! What it idealises: a perfect ring (NVSwitch and full meshes can do better
//! for small messages: NVLS, trees), the full per-direction bandwidth reached at
//! every size (LL reaches a fraction of it; decode's messages are latency-bound
//! anyway), and no contention with the kernels running beside the transfer.

/// NCCL's base latency of a ring call with the LL protocol (tuning.cc), seconds.
pub const NCCL_RING_BASE_S: f64 = 6.6e-6;

/// One GPU-to-GPU interconnect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// URL id (`llm_link`, `dit_link`).
    pub id: &'static str,
    pub name: &'static str,
    /// Bytes/s per GPU per direction.
    pub bw: f64,
    /// Latency per ring step, seconds.
    pub hop: f64,
    /// Base latency of one call, seconds ([`NCCL_RING_BASE_S`] for every link).
    pub base: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// NCCL's per-step ring latencies (LL protocol), seconds.
const NVLINK_HOP: f64 = 0.6e-6;
const PCI_HOP: f64 = 1.0e-6;
const NET_HOP: f64 = 2.7e-6;
/// Where every link's per-step latency (`Link::hop`) comes from.
pub const HOP_SOURCE: &str =
    "per-step latency: NCCL's ring LL constant for this kind of link (src/graph/tuning.cc)";

pub static LINKS: &[Link] = &[
    Link {
        id: "nvlink2",
        name: "NVLink 2 (V100 SXM2)",
        bw: 150e9,
        hop: NVLINK_HOP,
        base: NCCL_RING_BASE_S,
        source: "NVIDIA Tesla V100 datasheet: NVLink 300 GB/s (6 links × 25 GB/s each way, counted both ways)",
    },
    Link {
        id: "nvlink3",
        name: "NVLink 3 (A100 SXM)",
        bw: 300e9,
        hop: NVLINK_HOP,
        base: NCCL_RING_BASE_S,
        source: "NVIDIA A100 datasheet: NVLink 600 GB/s (12 links × 25 GB/s each way, counted both ways)",
    },
    Link {
        id: "nvlink4",
        name: "NVLink 4 (H100 / H200 SXM)",
        bw: 450e9,
        hop: NVLINK_HOP,
        base: NCCL_RING_BASE_S,
        source: "NVIDIA H100 datasheet: NVLink 900 GB/s (18 links × 25 GB/s each way, counted both ways)",
    },
    Link {
        id: "nvlink5",
        name: "NVLink 5 (B200)",
        bw: 900e9,
        hop: NVLINK_HOP,
        base: NCCL_RING_BASE_S,
        source: "NVIDIA DGX B200 / HGX B200: NVLink 1.8 TB/s per GPU, counted both ways",
    },
    Link {
        id: "xgmi",
        name: "Infinity Fabric (MI300X)",
        bw: 448e9,
        hop: NVLINK_HOP,
        base: NCCL_RING_BASE_S,
        source: "AMD Instinct MI300X datasheet: 896 GB/s aggregate peak Infinity Fabric bandwidth (7 links), counted both ways; the per-step latency is NCCL's NVLink figure (RCCL publishes none)",
    },
    Link {
        id: "pcie4",
        name: "PCIe 4.0 x16",
        bw: 32e9,
        hop: PCI_HOP,
        base: NCCL_RING_BASE_S,
        source: "PCI-SIG: PCIe 4.0 x16, 16 GT/s × 16 lanes ≈ 32 GB/s each way",
    },
    Link {
        id: "pcie5",
        name: "PCIe 5.0 x16",
        bw: 64e9,
        hop: PCI_HOP,
        base: NCCL_RING_BASE_S,
        source: "PCI-SIG: PCIe 5.0 x16, 32 GT/s × 16 lanes ≈ 64 GB/s each way",
    },
    Link {
        id: "ib-ndr",
        name: "InfiniBand NDR (between nodes)",
        bw: 50e9,
        hop: NET_HOP,
        base: NCCL_RING_BASE_S,
        source: "NVIDIA ConnectX-7 / Quantum-2: NDR 400 Gb/s = 50 GB/s each way, one adapter per GPU",
    },
];

impl Link {
    /// No link: one GPU.
    pub const NONE: Link = Link {
        id: "none",
        name: "one GPU",
        bw: f64::INFINITY,
        hop: 0.0,
        base: 0.0,
        source: "",
    };

    /// The regime rule's counterfactual for communication: 2× the bandwidth and
    /// half the latency ([`crate::model::limit::Halving::Link`]).
    pub fn halved(self) -> Link {
        Link {
            bw: self.bw * 2.0,
            hop: self.hop * 0.5,
            base: self.base * 0.5,
            ..self
        }
    }

    /// A usable link: a positive bandwidth and latencies that are not negative.
    pub fn valid(&self) -> bool {
        self.bw > 0.0 && self.hop >= 0.0 && self.base >= 0.0 && !self.bw.is_nan()
    }
}

/// How a model is spread over GPUs: `tp`-way tensor parallel inside each of
/// `pp` pipeline stages, joined by `link`; `overlap`: collectives run beside the
/// kernels after them instead of in line. `dep`: a mixture of experts run as
/// TensorRT-LLM's "DEP n" (`tp` then 1): `dep` GPUs each hold the whole
/// attention and their own sequences, the routed experts spread over all of
/// them (`crate::model::llm::dep`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parallel {
    pub tp: u32,
    pub pp: u32,
    pub dep: u32,
    pub link: Link,
    pub overlap: bool,
    /// The tokens the slowest DEP rank runs through its own kernels (its
    /// attention and every whole-weight kernel) when a step's prompts are not
    /// spread evenly (a prompt belongs to one rank); 0: an even share of the
    /// batch (`crate::model::llm::dep::rank_batch`).
    pub rank_tokens: u32,
}

impl Parallel {
    /// One GPU.
    pub const ONE: Parallel = Parallel {
        tp: 1,
        pp: 1,
        dep: 1,
        link: Link::NONE,
        overlap: false,
        rank_tokens: 0,
    };

    /// GPUs in the group.
    pub fn gpus(&self) -> u32 {
        self.tp
            .max(1)
            .saturating_mul(self.pp.max(1))
            .saturating_mul(self.dep.max(1))
    }

    /// The same spread over a link with 2× the bandwidth and half the latency.
    pub fn halved(self) -> Parallel {
        Parallel {
            link: self.link.halved(),
            ..self
        }
    }
}

/// NCCL's ring all-reduce bus bandwidth on 8 H100 SXM over NVLink 4 at large
/// sizes, bytes/s: the line rate less its protocol overhead
/// (tests/data/nccl-h100.json, with its source).
pub const NCCL_H100_RING_BUSBW: f64 = 370e9;

/// The model's bus bandwidth for the same all-reduce (4 GB on 8 GPUs over
/// NVLink 4), bytes/s: compare with [`NCCL_H100_RING_BUSBW`].
pub fn model_h100_ring_busbw() -> f64 {
    let s = 4e9;
    let l = link("nvlink4").copied().unwrap_or(Link::NONE);
    bus_bandwidth(
        Collective::AllReduce,
        8,
        s,
        collective(Collective::AllReduce, 8, s, &l).total(),
    )
}

/// The degrees the widgets offer (`llm_tp`, `llm_pp`, `dit_sp`).
pub const DEGREES: [u32; 4] = [1, 2, 4, 8];

/// A doubling of the GPUs that buys less than this speedup no longer pays.
pub const PAYS: f64 = 1.1;

/// Where adding GPUs stops paying: the smallest GPU count in `walls` (GPU
/// count, wall time; in increasing count) from which the next count shortens
/// the step by less than [`PAYS`]×; `None` when every step up pays.
pub fn stops_paying(walls: &[(u32, f64)]) -> Option<u32> {
    walls
        .windows(2)
        .find(|w| w[1].1 <= 0.0 || w[0].1 / w[1].1 < PAYS)
        .map(|w| w[0].0)
}

/// The widgets' label for [`stops_words`].
pub const STOPS_LABEL: &str = "More GPUs stop paying";

/// Where adding GPUs stops paying, in words that follow "stops paying" (the
/// widgets' readout): "beyond 1 GPU" (one GPU is where it stops: doubling to
/// two buys less than [`PAYS`]), "beyond 4 GPUs", or "not up to 8 GPUs" where
/// every doubling pays.
pub fn stops_words(at: Option<u32>) -> String {
    match at {
        Some(n) => format!("beyond {}", super::units::count(n, "GPU", "GPUs")),
        None => format!("not up to {} GPUs", DEGREES[DEGREES.len() - 1]),
    }
}

/// Scaling efficiency: the speedup from `base` GPUs (wall `t_base`) to `n`
/// GPUs (wall `t_n`), divided by the `n / base` more GPUs; 1 is perfect.
pub fn efficiency(base: u32, t_base: f64, n: u32, t_n: f64) -> f64 {
    let e = (t_base * f64::from(base.max(1))) / (t_n * f64::from(n.max(1)));
    if e.is_finite() {
        e
    } else {
        0.0
    }
}

pub fn link(id: &str) -> Option<&'static Link> {
    LINKS.iter().find(|l| l.id == id)
}

/// The link a preset's GPUs are joined by in their usual server (SXM boards:
/// NVLink; PCIe cards: their PCIe generation; `None` for a laptop).
pub fn default_link(preset_id: &str) -> Option<&'static Link> {
    let id = match preset_id {
        "v100" => "nvlink2",
        "a100-40gb" | "a100-80gb" => "nvlink3",
        "h100-sxm" | "h200" => "nvlink4",
        "b200" => "nvlink5",
        "mi300x" => "xgmi",
        "h100-pcie" => "pcie5",
        "rtx-3090" | "rtx-4090" | "l4" | "t4" => "pcie4",
        _ => return None,
    };
    link(id)
}

/// A collective operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    /// One GPU sends `S` bytes to the next (a pipeline stage's activations).
    Send,
}

impl Collective {
    /// Ring steps on `n` GPUs.
    pub fn steps(self, n: u32) -> f64 {
        let k = f64::from(n.max(1) - 1);
        match self {
            Collective::AllReduce => 2.0 * k,
            Collective::Send => 1.0,
            _ => k,
        }
    }

    /// nccl-tests' bus-bandwidth factor: bytes each GPU sends ÷ `S`.
    pub fn bus_factor(self, n: u32) -> f64 {
        let n = f64::from(n.max(1));
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            Collective::Send => 1.0,
            _ => (n - 1.0) / n,
        }
    }
}

/// What one collective costs, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Base and per-step latency.
    pub latency: f64,
    /// Bytes over the link.
    pub transfer: f64,
}

impl Cost {
    pub fn total(&self) -> f64 {
        self.latency + self.transfer
    }
}

/// One collective over `bytes` (the whole array, `S`) on `n` GPUs joined by
/// `link`: nothing on one GPU.
pub fn collective(c: Collective, n: u32, bytes: f64, link: &Link) -> Cost {
    if n <= 1 {
        return Cost::default();
    }
    let bytes = bytes.max(0.0);
    Cost {
        latency: link.base + c.steps(n) * link.hop,
        transfer: c.bus_factor(n) * bytes / link.bw,
    }
}

/// One collective as a kernel of the timeline: no FLOPs, the bytes each GPU
/// sends (nccl-tests' bus bytes), and its whole time, latency and transfer
/// ([`collective`]), as the kernel's fixed latency; `overlapped`: it runs on the
/// link's own lane beside the kernels after it.
pub fn kernel(
    name: &'static str,
    c: Collective,
    n: u32,
    bytes: f64,
    link: &Link,
    overlapped: bool,
) -> crate::model::workload::KernelGroup {
    crate::model::workload::KernelGroup {
        name,
        unit: crate::model::workload::Unit::Collective { overlapped },
        count: 1,
        flops: 0.0,
        bytes: c.bus_factor(n) * bytes.max(0.0),
        gemm: None,
        cpu_ops: 0,
        latency: collective(c, n, bytes, link).total(),
    }
}

/// nccl-tests' algorithm bandwidth: `S / t`.
pub fn alg_bandwidth(bytes: f64, seconds: f64) -> f64 {
    bytes / seconds
}

/// nccl-tests' bus bandwidth of a collective that took `seconds`.
pub fn bus_bandwidth(c: Collective, n: u32, bytes: f64, seconds: f64) -> f64 {
    alg_bandwidth(bytes, seconds) * c.bus_factor(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nv4() -> &'static Link {
        link("nvlink4").unwrap()
    }

    #[test]
    fn ring_formulas_by_hand() {
        // all-reduce of 1 GB on 4 GPUs over 450 GB/s: 2·3/4 GB each way
        let c = collective(Collective::AllReduce, 4, 1e9, nv4());
        assert!((c.transfer - 1.5e9 / 450e9).abs() < 1e-15);
        assert!((c.latency - (6.6e-6 + 6.0 * 0.6e-6)).abs() < 1e-15);
        // all-gather and reduce-scatter: half the bytes and half the steps
        for k in [Collective::AllGather, Collective::ReduceScatter] {
            let h = collective(k, 4, 1e9, nv4());
            assert!((h.transfer - 0.75e9 / 450e9).abs() < 1e-15);
            assert!((h.latency - (6.6e-6 + 3.0 * 0.6e-6)).abs() < 1e-15);
        }
        // all-to-all on 8: 7/8 of the array in 7 steps
        let a = collective(Collective::AllToAll, 8, 8e6, nv4());
        assert!((a.transfer - 7e6 / 450e9).abs() < 1e-15);
        // one GPU: nothing moves
        assert_eq!(
            collective(Collective::AllReduce, 1, 1e9, nv4()).total(),
            0.0
        );
    }

    #[test]
    fn small_all_reduce_is_nccls_latency_model() {
        // NCCL's own estimate of a tiny ring LL all-reduce on 8 GPUs over NVLink:
        // baseLat 6.6 + 2·7 steps × 0.6 µs = 15.0 µs
        let c = collective(Collective::AllReduce, 8, 8.0, nv4());
        assert!((c.latency - 15.0e-6).abs() < 1e-12, "{}", c.latency);
        assert!(c.transfer < 1e-9);
        // and over PCIe, 1.0 µs a step
        let p = collective(Collective::AllReduce, 8, 8.0, link("pcie4").unwrap());
        assert!((p.latency - (6.6e-6 + 14.0e-6)).abs() < 1e-12);
    }

    #[test]
    fn bus_bandwidth_of_a_large_ring_is_the_link() {
        // nccl-tests: a collective that keeps every link busy reports the link's
        // bandwidth as its bus bandwidth, whatever the GPU count
        for c in [
            Collective::AllReduce,
            Collective::AllGather,
            Collective::ReduceScatter,
            Collective::AllToAll,
        ] {
            for n in [2, 4, 8] {
                let s = 8e9;
                let t = collective(c, n, s, nv4()).transfer;
                let bus = bus_bandwidth(c, n, s, t);
                assert!((bus / 450e9 - 1.0).abs() < 1e-12, "{c:?} n={n}: {bus}");
            }
        }
        // algorithm bandwidth of an 8-GPU all-reduce is 8/14 of the link's
        let t = collective(Collective::AllReduce, 8, 8e9, nv4()).transfer;
        assert!((alg_bandwidth(8e9, t) / 450e9 - 8.0 / 14.0).abs() < 1e-12);
    }

    #[test]
    fn large_ring_all_reduce_against_nccl_on_8_h100() {
        // tests/data/nccl-h100.json: NCCL's ring reaches 370 GB/s of bus
        // bandwidth on 8 H100s, the line rate less ~20 % of protocol; the model
        // moves bytes at the line rate, so for large messages it is optimistic by
        // 450/370 − 1 ≈ 22 % (decode's small all-reduces are latency-bound, where
        // NCCL's own constants hold)
        let text = include_str!("../../tests/data/nccl-h100.json");
        let j = crate::json::parse(text).unwrap_or(crate::json::Json::Null);
        let rows = j.get("rows").and_then(|r| r.as_arr()).unwrap_or(&[]);
        let ring = rows
            .iter()
            .find(|r| r.get("algorithm").and_then(|a| a.as_str()) == Some("ring"))
            .and_then(|r| r.get("busbw_gbps").and_then(|b| b.as_f64()))
            .unwrap_or(0.0);
        assert_eq!(ring * 1e9, NCCL_H100_RING_BUSBW);
        let model = model_h100_ring_busbw() / 1e9;
        let err = model / ring - 1.0;
        assert!(
            err > 0.2 && err < 0.25,
            "model {model} GB/s vs {ring}: {err}"
        );
    }

    #[test]
    fn where_scaling_stops_paying() {
        assert_eq!(
            stops_paying(&[(1, 10.0), (2, 5.0), (4, 2.6), (8, 1.4)]),
            None
        );
        assert_eq!(
            stops_paying(&[(1, 10.0), (2, 5.0), (4, 4.7), (8, 4.0)]),
            Some(2)
        );
        assert_eq!(stops_paying(&[(1, 10.0), (2, 9.5)]), Some(1));
        assert_eq!(stops_words(Some(1)), "beyond 1 GPU");
        assert_eq!(stops_words(Some(4)), "beyond 4 GPUs");
        assert_eq!(stops_words(None), "not up to 8 GPUs");
        assert!((efficiency(1, 10.0, 4, 2.5) - 1.0).abs() < 1e-12);
        assert!((efficiency(2, 10.0, 8, 5.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn every_link_and_preset_default() {
        for l in LINKS {
            assert!(
                l.bw > 0.0 && l.hop > 0.0 && !l.source.is_empty(),
                "{}",
                l.id
            );
            assert_eq!(link(l.id), Some(l));
        }
        let ids: Vec<&str> = LINKS.iter().map(|l| l.id).collect();
        assert_eq!(
            ids,
            ["nvlink2", "nvlink3", "nvlink4", "nvlink5", "xgmi", "pcie4", "pcie5", "ib-ndr"]
        );
        // every preset with a server form names its link; the laptop none
        for p in crate::model::hardware::PRESETS {
            let l = default_link(p.id);
            assert_eq!(l.is_none(), p.id == "m2-max", "{}", p.id);
        }
        assert_eq!(default_link("h100-sxm").map(|l| l.id), Some("nvlink4"));
        assert_eq!(default_link("h100-pcie").map(|l| l.id), Some("pcie5"));
    }
}
