//! A diffusion transformer (DiT) denoising step as kernels on the roofline.
//!
//! Models (URL `dit_model`):
//! - **DiT-XL/2** (Peebles & Xie, "Scalable Diffusion Models with Transformers",
//!   2023, table 1): 28 blocks, hidden 1152, 16 heads, patch 2, MLP 4×, on the
//!   latent of a VAE that downsamples 8×: a `R`-pixel image is `(R/16)²` tokens
//!   (256 px → 256, 512 px → 1024). adaLN-Zero: each block regresses 6 modulation
//!   vectors (shift, scale, gate for attention and MLP) from the conditioning `c`
//!   (`h` wide) with one `h × 6h` linear.
//! - **CogVideoX-2B** (THUDM/CogVideoX-2b, transformer/config.json on Hugging Face):
//!   30 blocks, 30 heads × 64 = hidden 1920, patch 2, 16 latent channels, time
//!   embedding 512 (the modulation linear is `512 × 6h`), 226 text tokens joined to
//!   the video tokens in full 3D attention; its VAE compresses 8× in space and 4× in
//!   time, and it samples 480 × 720 clips, so `f` frames are
//!   `((f − 1)/4 + 1) · 30 · 45` video tokens (49 frames → 17,550, + 226 text).
//!
//! Per block, `N` tokens per sample, batch `B`, `T = B·N`, `a` = 2 bytes (bf16),
//! in launch order (eager): SiLU(c) and the modulation linear; LayerNorm; modulate
//! (`x·(1 + scale) + shift`: two pointwise kernels); QKV (`2·T·h·3h` FLOPs);
//! attention (`4·B·N²·h` FLOPs, flash: one kernel reading Q, K, V and writing O;
//! naive: `QKᵀ`, softmax, `P·V` with the `N×N` scores through DRAM); output
//! projection (`2·T·h²`); gate and residual (two kernels); LayerNorm; modulate; fc1
//! (`2·T·h·4h`); GELU; fc2 (`2·T·4h·h`); gate and residual. Multiply-adds per block
//! are `12·T·h² + 2·B·N²·h`: DiT-XL/2 at 256 px, with the patch embedding and final
//! layer, is 118.6 G per image (the paper's "Gflops" count multiply-adds).
//!
//! **Fused** (URL `dit_fused`): modulate fused into the LayerNorm, GELU into fc1's
//! epilogue, gate and residual into the projection's and fc2's: 8 kernels per block
//! instead of 20 (`1 + scale` is a kernel of its own eager), and those activations
//! stop round-tripping through DRAM.
//!
//! **Sequence parallel** (URL `dit_sp`): `s` GPUs each hold `T/s`
//! tokens; every token-wise kernel does `1/s` of the work and every GPU reads all
//! the weights. Attention mixes tokens, so it needs the others' keys and values:
//! where `s` divides the heads, Ulysses (DeepSpeed-Ulysses: an all-to-all of Q, K
//! and V before attention hands each GPU `heads/s` whole heads, an all-to-all of
//! the output after it gives the tokens back); otherwise ring attention (each GPU
//! keeps its queries and the key/value shards pass round the ring, an
//! all-gather's traffic; it can hide behind the attention's arithmetic, which brrr
//! does not assume: the passes count in line). Either way each GPU computes `1/s`
//! of the attention.
//!
//! Classes for the split: attention = QKV, the attention kernels and the output
//! projection; MLP = fc1, fc2; pointwise = adaLN (SiLU, the small modulation linear,
//! LayerNorm, modulate), GELU, gate and residual, the patch embedding and final
//! layer; overhead = GPU idle time waiting for launches.

use super::hardware::Dtype;
use super::limit::Limit;
pub mod advice;
pub mod kernels;
pub use kernels::{block, flops, kernels, matmul_macs};

use super::llm::machine_for;
use super::roofline::Bound;
use super::setting::Setting;
use super::timeline::{self, Regime, Timeline};
use super::workload::{KernelGroup, Machine, Parts};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DitModel {
    XL2,
    CogVideoX2b,
}

impl DitModel {
    pub const ALL: [DitModel; 2] = [DitModel::XL2, DitModel::CogVideoX2b];
    pub const IDS: [&'static str; 2] = ["dit-xl-2", "cogvideox-2b"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
    pub fn label(self) -> &'static str {
        match self {
            DitModel::XL2 => "DiT-XL/2 (image)",
            DitModel::CogVideoX2b => "CogVideoX-2B (video, 480 × 720)",
        }
    }
    pub fn config(self) -> DitConfig {
        match self {
            DitModel::XL2 => DitConfig {
                layers: 28,
                hidden: 1152,
                heads: 16,
                cond: 1152,
                text_tokens: 0,
                in_channels: 4,
                out_channels: 8,
                video: false,
            },
            DitModel::CogVideoX2b => DitConfig {
                layers: 30,
                hidden: 1920,
                heads: 30,
                cond: 512,
                text_tokens: 226,
                in_channels: 16,
                out_channels: 16,
                video: true,
            },
        }
    }
    /// What `dit_res` means for this model, and its default.
    pub fn res_meaning(self) -> (&'static str, u32) {
        match self {
            DitModel::XL2 => ("image side, px", 256),
            DitModel::CogVideoX2b => ("frames", 49),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DitConfig {
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    /// Width of the conditioning the modulation linear reads.
    pub cond: u32,
    pub text_tokens: u32,
    pub in_channels: u32,
    pub out_channels: u32,
    pub video: bool,
}

/// Patch 2 on an 8× VAE: 16 pixels per token side.
pub const PIXELS_PER_TOKEN: u32 = 16;

impl DitConfig {
    /// Tokens per sample for `res` (image side in px, or frames).
    pub fn tokens(&self, res: u32) -> f64 {
        if self.video {
            let latent_frames = f64::from((res.max(1) - 1) / 4 + 1);
            latent_frames * (480.0 / 16.0) * (720.0 / 16.0) + f64::from(self.text_tokens)
        } else {
            let side = f64::from((res / PIXELS_PER_TOKEN).max(1));
            side * side
        }
    }
}

/// The class of a kernel in the split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Attention,
    Mlp,
    Pointwise,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Attention, Class::Mlp, Class::Pointwise];
    pub fn label(self) -> &'static str {
        match self {
            Class::Attention => "attention (QKV, scores, projection)",
            Class::Mlp => "MLP (fc1, fc2)",
            Class::Pointwise => "pointwise (adaLN, residual, activation)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DitRun {
    pub model: DitModel,
    pub res: u32,
    pub batch: u32,
    pub flash: bool,
    pub graphs: bool,
    pub fused: bool,
    /// Sequence-parallel GPUs (1: one GPU) and the link joining them.
    pub sp: u32,
    pub link: super::parallel::Link,
}

impl DitRun {
    /// DiT-XL/2 at `res` px and `batch` on one GPU, flash attention on,
    /// eager (no CUDA graph, nothing fused): the step the lent GPUs timed
    /// (`tests/data/dit-{h100,h200}.json`), whose other runs change a switch.
    pub const fn xl2(res: u32, batch: u32) -> DitRun {
        DitRun {
            model: DitModel::XL2,
            res,
            batch,
            flash: true,
            graphs: false,
            fused: false,
            sp: 1,
            link: super::parallel::Link::NONE,
        }
    }
}

/// How attention is spread over sequence-parallel GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpKind {
    /// One GPU.
    None,
    /// All-to-all of Q, K, V and the output (the degree divides the heads).
    Ulysses,
    /// Key/value shards passed round a ring.
    Ring,
}

impl SpKind {
    pub fn of(r: &DitRun) -> SpKind {
        let sp = r.sp.max(1);
        if sp == 1 {
            SpKind::None
        } else if r.model.config().heads.is_multiple_of(sp) {
            SpKind::Ulysses
        } else {
            SpKind::Ring
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            SpKind::None => "one GPU",
            SpKind::Ulysses => "Ulysses (all-to-all of Q, K, V and the output)",
            SpKind::Ring => "ring attention (key/value shards passed round the ring)",
        }
    }
}

/// Shares of the wall time; they sum to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DitShares {
    pub attention: f64,
    pub mlp: f64,
    pub pointwise: f64,
    pub overhead: f64,
    /// Collectives between GPUs (0 on one GPU).
    pub comm: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DitStep {
    pub run: DitRun,
    pub tokens: f64,
    pub flops: f64,
    pub wall: f64,
    pub kernel_count: u32,
    pub shares: DitShares,
    /// What limits the step ([`crate::model::limit`]).
    pub regime: Regime,
    pub limit: Limit,
    /// Each class's regime: the bound holding most of its kernel time.
    pub class_bound: [(Class, Bound); 3],
    /// The step's wall and busy times; no spans (see [`simulate`]).
    pub timeline: Timeline,
}

/// The machine: bf16 on the explorer's hardware ([`machine_for`]), with the CPU
/// cost of one eager PyTorch op on its host ([`super::llm::eager_op_s`]) per
/// dispatched op.
pub fn machine(setting: &Setting) -> Machine {
    Machine {
        overhead: super::llm::eager_op_s(setting.hw).0,
        ..machine_for(setting, Dtype::Bf16)
    }
}

/// The step's timeline on `m`: every kernel launched by the CPU, or the whole step
/// replayed as one CUDA graph. Its wall and busy times only, bit for bit those
/// of the simulation with spans (`tests::the_timeline_is_the_simulations`):
/// nothing draws a step's kernels one by one (the widget's sliders stay fast).
fn simulate(r: &DitRun, groups: &[KernelGroup], parts: &[Parts], m: &Machine) -> Timeline {
    timeline::lanes_only(groups.iter().zip(parts), m, r.graphs)
}

/// The wall time of `groups` on `m` as [`simulate`] gives it, bit for bit,
/// without its spans ([`timeline::wall_only`]).
fn wall_of(r: &DitRun, groups: &[KernelGroup], m: &Machine) -> f64 {
    let parts = priced(r, groups, m);
    timeline::wall_only(groups.iter().zip(&parts), m, r.graphs)
}

/// Each of `groups` (the kernels of `r`) priced on `m`, as `timeline::priced`
/// gives them, bit for bit: a kernel equal to the one a block earlier (the
/// model repeats its block once per layer) takes that one's parts, so each
/// block's kernels are priced once, not once per layer (the widget's
/// sliders stay fast; `tests::the_timeline_is_the_simulations`).
fn priced(r: &DitRun, groups: &[KernelGroup], m: &Machine) -> Vec<Parts> {
    let n = block(r).len();
    let mut out: Vec<Parts> = Vec::with_capacity(groups.len());
    for (i, g) in groups.iter().enumerate() {
        let p = match i.checked_sub(n) {
            Some(j) if n > 0 && groups[j] == *g => out[j],
            _ => with_fixed(g, g.parts(m), m),
        };
        out.push(p);
    }
    out
}

/// The fixed GPU time of one flash-attention kernel beyond its roofline time,
/// under achievable roofs: cuDNN's SDPA kernel at DiT-XL/2's 256 tokens, 16
/// heads of 72, took 9.19 µs replayed in a CUDA graph on the lent H100
/// (tests/data/gemm-kernels-h100.json, `small`), where its bytes take 0.81 µs
/// at the achievable bandwidth.
pub const ATTENTION_FIXED_S: f64 = 9.19e-6 - 0.81e-6;
/// The same for a LayerNorm (alone or with the modulate fused in): 3.88 µs at
/// 256 tokens of 1152 on the lent H100, its 1.2 MB 0.40 µs at the achievable
/// bandwidth (a reduction per row before the normalised write).
pub const LAYERNORM_FIXED_S: f64 = 3.88e-6 - 0.40e-6;

/// `p` with the measured fixed cost of `g`'s kind, where it has one, under
/// achievable roofs (datasheet roofs keep the roofline's idealisation).
fn with_fixed(g: &KernelGroup, p: Parts, m: &Machine) -> Parts {
    if m.gemm.is_none() {
        return p;
    }
    let fixed = match g.name {
        "flash attention" => ATTENTION_FIXED_S,
        "LayerNorm" | "LayerNorm + modulate" => LAYERNORM_FIXED_S,
        _ => return p,
    };
    Parts {
        total: p.total.max(p.roof + fixed),
        ..p
    }
}

/// [`run`]'s wall time alone, bit for bit (`tests/llm_props.rs`): for the
/// ratios and sweeps that read nothing else.
pub fn wall(r: &DitRun, setting: &Setting) -> f64 {
    let groups: Vec<KernelGroup> = kernels(r).into_iter().map(|(k, _)| k).collect();
    wall_of(r, &groups, &machine(setting))
}

pub fn run(r: &DitRun, setting: &Setting) -> DitStep {
    let m = machine(setting);
    let ks = kernels(r);
    let groups: Vec<KernelGroup> = ks.iter().map(|(k, _)| k.clone()).collect();
    // each kernel priced once, for the timeline and the classes' shares alike
    let parts = priced(r, &groups, &m);
    let tl = simulate(r, &groups, &parts, &m);
    let halved = DitRun {
        link: r.link.halved(),
        ..*r
    };
    let limit = Limit::decide(tl.wall, tl.shares(), |h| {
        if h == super::limit::Halving::Link {
            let gs: Vec<KernelGroup> = kernels(&halved).into_iter().map(|(k, _)| k).collect();
            wall_of(&halved, &gs, &m)
        } else {
            wall_of(r, &groups, &h.apply(&m))
        }
    });
    let mut by = [(0.0f64, 0.0f64); 3];
    for ((_, class), p) in ks.iter().zip(&parts) {
        let (t, bound) = (p.roof, p.bound);
        let i = *class as usize;
        match bound {
            Bound::Compute => by[i].0 += t,
            Bound::Memory => by[i].1 += t,
        }
    }
    let wall = tl.wall;
    let share = |i: usize| {
        if wall > 0.0 {
            (by[i].0 + by[i].1) / wall
        } else {
            0.0
        }
    };
    let (attention, mlp, pointwise) = (share(0), share(1), share(2));
    let comm = tl.shares().comm;
    let shares = DitShares {
        attention,
        mlp,
        pointwise,
        overhead: (1.0 - attention - mlp - pointwise - comm).max(0.0),
        comm,
    };
    let bound = |i: usize| {
        if by[i].0 > by[i].1 {
            Bound::Compute
        } else {
            Bound::Memory
        }
    };
    DitStep {
        run: *r,
        tokens: r.model.config().tokens(r.res),
        flops: groups.iter().map(|k| k.flops).sum(),
        wall,
        kernel_count: groups.len() as u32,
        shares,
        regime: limit.regime,
        limit,
        class_bound: [
            (Class::Attention, bound(0)),
            (Class::Mlp, bound(1)),
            (Class::Pointwise, bound(2)),
        ],
        timeline: tl,
    }
}

/// The step against the sequence-parallel degree, the rest of the run kept.
#[derive(Clone, Debug, PartialEq)]
pub struct DitScaling {
    /// 1, 2, 4, 8 GPUs and the step on each.
    pub points: Vec<(u32, DitStep)>,
    /// Where a doubling stops buying [`super::parallel::PAYS`]×
    /// (`dit_sp_stops_paying`).
    pub stops_paying: Option<u32>,
    /// At the run's own degree, against one GPU (`dit_scaling_efficiency`).
    pub efficiency: f64,
    /// The speedup behind it.
    pub speedup: f64,
}

/// The same step on 1, 2, 4 and 8 sequence-parallel GPUs over `r`'s link (the
/// scaling chart), where it stops paying, and the efficiency at `r`'s degree.
pub fn scaling(r: &DitRun, setting: &Setting) -> DitScaling {
    let points: Vec<(u32, DitStep)> = super::parallel::DEGREES
        .into_iter()
        .map(|sp| (sp, run(&DitRun { sp, ..*r }, setting)))
        .collect();
    let walls: Vec<(u32, f64)> = points.iter().map(|p| (p.0, p.1.wall)).collect();
    let wall_at = |n: u32| walls.iter().find(|w| w.0 == n).map_or(0.0, |w| w.1);
    let sp = r.sp.max(1);
    DitScaling {
        stops_paying: super::parallel::stops_paying(&walls),
        efficiency: super::parallel::efficiency(1, wall_at(1), sp, wall_at(sp)),
        speedup: super::limit::ratio(wall_at(1), wall_at(sp)),
        points,
    }
}

/// `wall(2·batch) / wall(batch)`.
pub fn double_batch_ratio(r: &DitRun, setting: &Setting) -> f64 {
    double_batch_ratio_of(&run(r, setting), setting)
}

/// [`double_batch_ratio`] for the step `st` already run: one more run.
pub fn double_batch_ratio_of(st: &DitStep, setting: &Setting) -> f64 {
    let twice = DitRun {
        batch: st.run.batch.saturating_mul(2),
        ..st.run
    };
    crate::model::overhead::doubling(st.wall, wall(&twice, setting))
}

/// What the `dit` widget shows for one state: its one model entry point
/// ([`widget`]), computed once per change. The readouts' parts are always
/// there; what is only drawn (`sentences`, `by_resolution`) is empty unless
/// asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct DitView {
    pub step: DitStep,
    /// `wall(2·batch) / wall(batch)` (`dit_double_batch_ratio`).
    pub double_batch: f64,
    /// The step on 1, 2, 4 and 8 sequence-parallel GPUs.
    pub scaling: DitScaling,
    /// The advice list, in the widget's order.
    pub sentences: Vec<String>,
    /// The step at the model's other resolutions (or clip lengths).
    pub by_resolution: Vec<DitStep>,
}

/// Everything the `dit` widget draws and publishes for `r` on `setting`: the
/// step, the double-the-batch ratio, the scaling sweep and, where `drawn` (the
/// widget on the screen), the sentences (each switch's counterfactual run
/// inside) and the by-resolution table.
pub fn widget(r: &DitRun, setting: &Setting, drawn: bool) -> DitView {
    let st = run(r, setting);
    let double_batch = double_batch_ratio_of(&st, setting);
    let scaling = scaling(r, setting);
    if !drawn {
        return DitView {
            step: st,
            double_batch,
            scaling,
            sentences: Vec::new(),
            by_resolution: Vec::new(),
        };
    }
    let mut sentences = vec![
        advice::split(&st),
        advice::double_batch_with(&st, double_batch),
    ];
    sentences.extend(advice::switches(r, setting).into_iter().map(|x| x.2));
    sentences.extend(advice::parallel(&st, &scaling));
    DitView {
        by_resolution: advice::by_resolution(r, setting),
        step: st,
        double_batch,
        scaling,
        sentences,
    }
}

/// One of the three switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Switch {
    Flash,
    Fused,
    Graphs,
}

impl Switch {
    pub const ALL: [Switch; 3] = [Switch::Flash, Switch::Fused, Switch::Graphs];
    pub fn label(self) -> &'static str {
        match self {
            Switch::Flash => "FlashAttention",
            Switch::Fused => "fusing adaLN and the activation",
            Switch::Graphs => "CUDA graphs",
        }
    }
    pub fn is_on(self, r: &DitRun) -> bool {
        match self {
            Switch::Flash => r.flash,
            Switch::Fused => r.fused,
            Switch::Graphs => r.graphs,
        }
    }
    pub fn set(self, r: &DitRun, on: bool) -> DitRun {
        let mut r = *r;
        match self {
            Switch::Flash => r.flash = on,
            Switch::Fused => r.fused = on,
            Switch::Graphs => r.graphs = on,
        }
        r
    }
}

/// What a switch buys: `wall(off) / wall(on)`, the model run both ways with
/// everything else as it is.
pub fn buys(r: &DitRun, s: Switch, setting: &Setting) -> f64 {
    let on = wall(&s.set(r, true), setting);
    let off = wall(&s.set(r, false), setting);
    if on > 0.0 {
        off / on
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;

    fn h100() -> Setting {
        let mut s = State::default();
        if let Some(p) = crate::model::hardware::preset("h100-sxm") {
            s.select_preset(p);
        }
        s.setting
    }

    /// The step's timeline is the simulation's with spans, less the spans,
    /// bit for bit: eager and as a CUDA graph, on one GPU and on four.
    #[test]
    fn the_timeline_is_the_simulations() {
        let s = h100();
        for (res, batch, graphs, sp) in [
            (256, 1, false, 1),
            (512, 8, true, 1),
            (1024, 4, false, 4),
            (512, 2, true, 4),
        ] {
            let r = DitRun {
                graphs,
                sp,
                link: crate::model::parallel::LINKS[0],
                ..DitRun::xl2(res, batch)
            };
            let m = machine(&s);
            let groups: Vec<KernelGroup> = kernels(&r).into_iter().map(|(k, _)| k).collect();
            let parts = timeline::priced(&groups, &m);
            // each block priced once: the same parts as kernel by kernel
            assert!(priced(&r, &groups, &m) == parts, "{r:?}");
            let spans = if graphs {
                crate::model::overhead::simulate_graph_priced(&groups, &parts, m.overhead)
            } else {
                timeline::simulate_priced(&groups, &parts, &m)
            };
            assert!(!spans.spans.is_empty());
            let st = run(&r, &s);
            assert!(st.timeline.spans.is_empty());
            assert!(
                st.timeline
                    == Timeline {
                        spans: Vec::new(),
                        ..spans
                    },
                "{r:?}"
            );
        }
    }

    #[test]
    fn sequence_parallel_video() {
        let s = h100();
        let cog = |sp, link: &str| DitRun {
            model: DitModel::CogVideoX2b,
            res: 49,
            graphs: true,
            sp,
            link: crate::model::parallel::link(link)
                .copied()
                .unwrap_or(crate::model::parallel::Link::NONE),
            ..DitRun::xl2(49, 1)
        };
        // 30 heads: 2 GPUs split them (Ulysses), 4 and 8 do not (ring)
        assert_eq!(SpKind::of(&cog(2, "nvlink4")), SpKind::Ulysses);
        assert_eq!(SpKind::of(&cog(4, "nvlink4")), SpKind::Ring);
        assert_eq!(SpKind::of(&cog(8, "nvlink4")), SpKind::Ring);
        // over NVLink each doubling still pays, while the communication share rises
        let nv: Vec<DitStep> = [1, 2, 4, 8].map(|n| run(&cog(n, "nvlink4"), &s)).into();
        for w in nv.windows(2) {
            assert!(w[1].wall < 0.7 * w[0].wall, "{} {}", w[1].wall, w[0].wall);
            assert!(w[1].shares.comm > w[0].shares.comm);
        }
        assert_eq!(nv[0].shares.comm, 0.0);
        // over PCIe the all-to-all outweighs attention from 2 GPUs: communication-
        // bound, and 8 GPUs barely beat one
        let pc = run(&cog(2, "pcie4"), &s);
        assert!(pc.shares.comm > pc.shares.attention, "{:?}", pc.shares);
        assert_eq!(pc.regime, Regime::Communication);
        assert!(run(&cog(8, "pcie4"), &s).wall > 0.8 * nv[0].wall);
        // scaling: where adding GPUs stops paying
        let pts = scaling(&cog(1, "pcie4"), &s);
        assert_eq!(pts.points.len(), 4);
        assert_eq!(pts.stops_paying, Some(1));
        let pts = scaling(&cog(1, "nvlink4"), &s);
        assert_eq!(pts.stops_paying, None);
    }

    #[test]
    fn xl2_multiply_adds_match_the_paper() {
        let macs = matmul_macs(&DitRun::xl2(256, 1));
        assert!((macs / 118.6e9 - 1.0).abs() < 0.02, "{macs}");
        assert_eq!(DitModel::XL2.config().tokens(256), 256.0);
        assert_eq!(DitModel::XL2.config().tokens(512), 1024.0);
        // 2 FLOPs per multiply-add, plus a little pointwise arithmetic
        let f = flops(&DitRun::xl2(256, 1));
        assert!(f > 2.0 * macs && f < 2.02 * macs, "{f}");
    }

    #[test]
    fn cogvideox_clip_is_tens_of_thousands_of_tokens() {
        let c = DitModel::CogVideoX2b.config();
        assert_eq!(c.tokens(49), 17550.0 + 226.0);
        let s = run(
            &DitRun {
                model: DitModel::CogVideoX2b,
                res: 49,
                ..DitRun::xl2(0, 1)
            },
            &h100(),
        );
        assert_eq!(s.regime, Regime::Compute);
        assert!(s.shares.attention > s.shares.mlp);
    }

    #[test]
    fn small_image_batch1_is_overhead_bound_and_graphs_help() {
        let st = h100();
        let r = DitRun::xl2(256, 1);
        let s = run(&r, &st);
        assert_eq!(s.regime, Regime::Overhead, "{:?}", s.shares);
        let ratio = double_batch_ratio(&r, &st);
        assert!(ratio < 1.2, "{ratio}");
        assert!(buys(&r, Switch::Graphs, &st) > 2.0);
        assert!(buys(&r, Switch::Fused, &st) > 1.5);
        let sum = s.shares.attention + s.shares.mlp + s.shares.pointwise + s.shares.overhead;
        assert!((sum - 1.0).abs() < 1e-9);
        // a large batch scales with the work
        let big = DitRun::xl2(512, 64);
        assert!(double_batch_ratio(&big, &st) > 1.8);
        assert!(buys(&big, Switch::Graphs, &st) < 1.05);
        // flash matters when the sequence is long
        assert!(buys(&DitRun::xl2(1024, 8), Switch::Flash, &st) > 1.1);
    }
}
