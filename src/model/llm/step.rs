//! One LLM step run through the overhead model ([`timeline`]): the kernels of
//! [`super::kernels`] (whose docs give every FLOP and byte) timed on the roofline.
//!
//! Matmuls run at the explorer's preset's bf16 ceiling, or its fp8 ceiling for fp8
//! weights where the preset has one (int4 weights are dequantised to bf16 in the
//! kernel, W4A16). The CPU launches each kernel ([`timeline::simulate`]), or the
//! whole step once with CUDA graphs ([`overhead::simulate_graph`]).
//!
//! **Where the time goes.** Each kernel's time is its roofline time: a
//! compute-bound kernel's time counts as compute; a memory-bound kernel's is split
//! in proportion to its weight, KV-cache and activation bytes. GPU idle time (waiting
//! for launches) is overhead. The five parts sum to the step's wall time.

pub use super::kernels::*;
pub use super::launch::{
    kernels, kernels_with, layer_kernels, layer_kernels_with, layout_with, Layout,
};
use super::{machine_for, LlmRun, Phase, WeightDtype};
use crate::model::hardware::Dtype;
use crate::model::limit::{Halving, Limit};
use crate::model::overhead;
use crate::model::roofline::{self, Bound};
use crate::model::setting::Setting;
use crate::model::timeline::{self, Regime, Timeline};
use crate::model::workload::{KernelGroup, Machine, Parts, Unit};

/// The compute dtype of the matmuls: fp8 for fp8 weights where the preset has fp8
/// tensor cores, else bf16 (the preset's fp32 rate where it has no bf16).
pub fn compute_dtype(r: &LlmRun, setting: &Setting) -> Dtype {
    if r.wdtype == WeightDtype::Fp8 && setting.hw.supports(Dtype::Fp8) {
        Dtype::Fp8
    } else {
        Dtype::Bf16
    }
}

/// Where the step's wall time goes; the parts sum to the wall time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Split {
    pub weights: f64,
    pub kv: f64,
    pub activations: f64,
    pub compute: f64,
    pub overhead: f64,
    /// Waiting on other GPUs: collectives not hidden behind kernels, and a
    /// pipeline's bubble (0 on one GPU).
    pub comm: f64,
}

impl Split {
    pub fn total(&self) -> f64 {
        self.weights + self.kv + self.activations + self.compute + self.overhead + self.comm
    }
    /// Every part scaled by `k`.
    fn scaled(self, k: f64) -> Split {
        Split {
            weights: self.weights * k,
            kv: self.kv * k,
            activations: self.activations * k,
            compute: self.compute * k,
            overhead: self.overhead * k,
            comm: self.comm * k,
        }
    }
    /// The largest part's name (`weights`, `kv`, `activations`, `compute`,
    /// `overhead`, `comm`).
    pub fn largest(&self) -> &'static str {
        [
            ("weights", self.weights),
            ("kv", self.kv),
            ("activations", self.activations),
            ("compute", self.compute),
            ("overhead", self.overhead),
            ("comm", self.comm),
        ]
        .into_iter()
        .fold(("weights", f64::MIN), |b, x| if x.1 > b.1 { x } else { b })
        .0
    }
}

/// Per-layer view: one layer's kernels with their time and bound.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerRow {
    pub name: &'static str,
    pub part: Part,
    pub unit: Unit,
    pub time: f64,
    pub bound: Bound,
    pub intensity: f64,
    pub flops: f64,
    pub bytes: f64,
    /// Ops the CPU dispatches for this kernel (its launch and the views before it).
    pub dispatches: f64,
    /// Most of its time is fixed cost (the GPU's floor, a GEMV's latency), not
    /// the work on its roof.
    pub floored: bool,
}

/// Everything the widget shows for one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmStep {
    pub run: LlmRun,
    pub machine: Machine,
    /// One micro-batch's lanes: wall and busy times. Its `spans` are empty:
    /// the step is walked by its layout, and nothing draws its kernels one by
    /// one (`simulate` gives them, with the same totals).
    pub timeline: Timeline,
    pub split: Split,
    /// Wall time of the step, seconds.
    pub wall: f64,
    /// FLOPs and DRAM bytes one GPU does in the step: with a pipeline, its stage
    /// (1/pp of the layers) of every micro-batch; with tensor parallelism its
    /// shard (the kernels are already per GPU). `flops / wall` is what one GPU
    /// achieves, against its own roof.
    pub flops: f64,
    pub bytes: f64,
    /// Bytes one GPU sends over the link per step (nccl-tests' bus bytes of its
    /// collectives; 0 on one GPU).
    pub link_bytes: f64,
    /// Collectives one GPU takes part in per pass through the model.
    pub collectives: u32,
    /// Seconds of the wall spent in the experts' all-to-alls (DEP's dispatch
    /// and combine, or tensor parallelism's over its experts): the
    /// communication the step waits for, in the all-to-alls' share of the
    /// collectives' time (`llm_dep_a2a_share` is this over the wall).
    pub a2a: f64,
    pub kernel_count: u32,
    /// Tokens produced (decode) or consumed (prefill) per second.
    pub tokens_per_s: f64,
    /// What limits the step ([`crate::model::limit`]).
    pub regime: Regime,
    pub limit: Limit,
    /// One layer's kernels and the layer's regime.
    pub layer: Vec<LayerRow>,
    pub layer_regime: Regime,
    /// Bytes of all weights (every expert), and of the batch's KV cache after the
    /// step.
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    /// The preset's memory (0 = unknown) and whether weights + KV cache fit in it.
    pub capacity: f64,
    pub fits: bool,
    /// The largest batch that fits, whether the critical batch is reachable, and
    /// what would make a state that does not fit fit ([`super::fit`]).
    pub fit: super::fit::Fit,
    /// Batch from which the weight matmuls turn compute-bound.
    pub critical_batch: f64,
    /// Distinct routed experts one MoE layer reads in this step, on average
    /// ([`super::LlmConfig::experts_touched`]; 1 for a dense model).
    pub experts_touched: f64,
}

/// The critical batch of decode: the weight matmuls of a batch of `B` tokens do
/// `2·B` FLOPs per weight read (`w` bytes), so they turn compute-bound once
/// `2·B/w` passes the ridge `P/W`: `B* = P/W · w/2`. A mixture of experts gives each
/// expert `B·k/E` of the tokens (once all are touched), so `B* · E/k`.
pub fn critical_batch(r: &LlmRun, m: &Machine) -> f64 {
    let c = &r.config;
    let moe = if c.experts > 1 {
        f64::from(c.experts) / f64::from(c.top_k.clamp(1, c.experts))
    } else {
        1.0
    };
    roofline::ridge(m.matmul_flops, m.bw) * r.wdtype.bytes() / 2.0 * moe
}

/// The machine one step runs on: the explorer's preset in the matmuls' dtype, with
/// the CPU cost of one dispatched op of an eager PyTorch model on its host
/// ([`super::eager_op_s`]) as its overhead.
pub fn machine(r: &LlmRun, setting: &Setting) -> Machine {
    Machine {
        overhead: super::eager_op_s(setting.hw).0,
        ..machine_for(setting, compute_dtype(r, setting))
    }
}

/// The timeline of `groups` on `m`, each group's parts on `m` given
/// (`parts[i]` is `groups[i].parts(m)`, [`timeline::priced`]): every op
/// dispatched by the CPU (eager), or the compiled step replayed as one CUDA
/// graph.
pub fn timeline(r: &LlmRun, groups: &[KernelGroup], parts: &[Parts], m: &Machine) -> Timeline {
    if r.graphs {
        overhead::simulate_graph_priced(groups, parts, m.overhead)
    } else {
        timeline::simulate_priced(groups, parts, m)
    }
}

/// Where the wall time of the timeline `tl` of kernels `ks` (timed as `gs`,
/// `parts[i]` being `gs[i].parts(m)`) goes: a compute-bound kernel's roofline
/// time is compute, a memory-bound one's is split by its weight, KV-cache and
/// activation bytes; the timeline's overhead and communication are their own
/// parts.
pub fn split(ks: &[LlmKernel], gs: &[KernelGroup], parts: &[Parts], tl: &Timeline) -> Split {
    let mut split = Split::default();
    for ((kern, g), p) in ks.iter().zip(gs).zip(parts) {
        split.add(kern, g, p);
    }
    split.with_lanes(tl)
}

impl Split {
    /// Kernel `kern` (timed as `g`, priced `p`) added to the kernels' parts: a
    /// compute-bound kernel's roofline time to compute, a memory-bound one's
    /// split by its weight, KV-cache and activation bytes.
    fn add(&mut self, kern: &LlmKernel, g: &KernelGroup, p: &Parts) {
        let t = p.roof;
        match p.bound {
            Bound::Compute => self.compute += t,
            Bound::Memory => {
                let b = g.bytes.max(f64::MIN_POSITIVE);
                self.weights += t * kern.weight_bytes / b;
                self.kv += t * kern.kv_bytes / b;
                self.activations += t * (b - kern.weight_bytes - kern.kv_bytes).max(0.0) / b;
            }
        }
    }
    /// The kernels' parts with the timeline's overhead and communication.
    fn with_lanes(self, tl: &Timeline) -> Split {
        Split {
            overhead: tl.overhead(),
            comm: tl.busy_comm,
            ..self
        }
    }
}

/// One layer's kernels of `r` on `m`, each with its time and bound
/// ([`LlmStep::layer`]).
fn layer_rows(r: &LlmRun, m: &Machine, read: KvRead) -> Vec<LayerRow> {
    layer_kernels_with(r, read)
        .iter()
        .map(|k| {
            let g = &k.group;
            let (time, bound) = g.time(m);
            LayerRow {
                name: g.name,
                part: k.part,
                unit: g.unit,
                time,
                bound,
                intensity: g.flops / g.bytes.max(f64::MIN_POSITIVE),
                flops: g.flops,
                bytes: g.bytes,
                dispatches: g.dispatches(),
                floored: time > 2.0 * g.roof_time(m).0,
            }
        })
        .collect()
}

/// [`plain`]'s `layer` alone, the same rows (`tests/llm_props.rs`): for
/// advice that asks only where one layer's kernels sit, not for the step.
pub fn layer(r: &LlmRun, setting: &Setting) -> Vec<LayerRow> {
    layer_rows(r, &machine(r, setting), KvRead::AsWritten)
}

/// The full step: the model run for one step, with what limits it ([`Limit`]:
/// three more runs).
pub fn full(r: &LlmRun, setting: &Setting) -> LlmStep {
    run_with(r, setting, true, KvRead::AsWritten)
}

/// The plain step: [`full`] without the three counterfactual runs (its `limit`
/// then holds no speedups and names the largest share), for sweeps and ratios
/// that only need the wall time and its parts; its attention reads the K/V as
/// `read` says ([`KvRead::InPlace`]: the step without the copies
/// [`repeats_kv`] says it makes, the same step where it makes none).
pub fn plain(r: &LlmRun, setting: &Setting, read: KvRead) -> LlmStep {
    run_with(r, setting, false, read)
}

/// The wall time alone of [`plain`]`(r, setting, read)`, bit for bit
/// (`tests/llm_props.rs` `the_wall_alone_is_the_steps`): the same kernels timed
/// the same way, the repeated layer priced once and no spans, parts or rows
/// kept. For models that only read the time (the serving model runs dozens of
/// steps per answer).
pub fn wall(r: &LlmRun, setting: &Setting, read: KvRead) -> f64 {
    let m = machine(r, setting);
    let micro = micro_run(r);
    let lay = layout_with(&micro, read);
    pipeline_wall(
        layout_wall(&micro, &lay, &m),
        micro_batches(r),
        r.par.pp.max(1),
    )
}

/// The wall time of [`timeline`] on `lay`'s kernels, bit for bit, each distinct
/// kernel priced once ([`timeline::WallOnly`], walked with the layout's loops).
pub fn layout_wall(r: &LlmRun, lay: &Layout<LlmKernel>, m: &Machine) -> f64 {
    layout_lanes(r, lay, m).wall()
}

/// `lay`'s kernels run on `m` without spans, each distinct kernel priced once.
fn layout_lanes(r: &LlmRun, lay: &Layout<LlmKernel>, m: &Machine) -> timeline::WallOnly {
    layout_lanes_priced(r, lay, &lay.map(|k| k.group.parts(m)), m)
}

/// [`layout_lanes`] with each distinct kernel's parts given.
fn layout_lanes_priced(
    r: &LlmRun,
    lay: &Layout<LlmKernel>,
    parts: &Layout<Parts>,
    m: &Machine,
) -> timeline::WallOnly {
    let mut w = timeline::WallOnly::new(m, r.graphs);
    lay.zip_each(parts, |k, p| w.push(&k.group, p));
    w
}

/// Micro-batches a pipeline runs one step as: a prefill's sequences go through
/// the stages one behind the other; a decode step is one micro-batch (each new
/// token needs the last).
pub fn micro_batches(r: &LlmRun) -> u32 {
    if r.par.pp > 1 && r.phase == Phase::Prefill {
        r.batch.max(1)
    } else {
        1
    }
}

/// A pipeline's wall time for `m` micro-batches that each take `t_micro` through
/// all `pp` stages in turn: the first micro-batch fills the pipeline, the others
/// follow one stage apart, `(m + pp − 1) · t_micro / pp` (GPipe's schedule with
/// balanced stages; on one stage, `t_micro`).
pub fn pipeline_wall(t_micro: f64, m: u32, pp: u32) -> f64 {
    if pp <= 1 {
        return t_micro;
    }
    t_micro * f64::from(m.max(1) + pp - 1) / f64::from(pp)
}

/// [`full`]'s wall time and limit alone, bit for bit
/// (`tests/llm_props.rs` `the_limit_alone_is_the_steps`): the step's lanes run
/// without keeping spans, splits or rows. For models that only read what limits
/// a step (the serving model asks it of several steps per answer).
pub fn limit(r: &LlmRun, setting: &Setting) -> (f64, Limit) {
    let m = machine(r, setting);
    let micro = micro_run(r);
    let lay = layout_with(&micro, KvRead::AsWritten);
    let tl = layout_lanes(&micro, &lay, &m).finish();
    let d = decided(r, &micro, &lay, &m, &tl, true, &|h| {
        layout_with(h, KvRead::AsWritten)
    });
    (d.wall, d.limit)
}

/// The layout of a decode step of `r` in which every sequence brings `q`
/// tokens (speculative decoding's verify step: `q − 1` drafts and the bonus
/// position), with the run it is laid out for: the weights, projections, MLP
/// and LM head see `q·B` tokens, as a decode step of batch `q·B` (its
/// intensity `q` times the step's), while the attention reads each
/// sequence's cache once for its `q` query rows, not `q` times (its KV bytes
/// `1/q` of batch `q·B`'s; its FLOPs are `q·B` rows' either way). `q = 1` is
/// the decode step itself.
pub fn verify_layout(r: &LlmRun, q: u32) -> (LlmRun, Layout<LlmKernel>) {
    let wide = LlmRun {
        batch: r.batch.max(1).saturating_mul(q.max(1)),
        phase: Phase::Decode,
        ..micro_run(r)
    };
    let lay = verify_relayout(&wide, q);
    (wide, lay)
}

/// [`verify_layout`]'s kernels for `wide` (its batch already `q·B`).
fn verify_relayout(wide: &LlmRun, q: u32) -> Layout<LlmKernel> {
    let lay = layout_with(wide, KvRead::AsWritten);
    if q <= 1 {
        return lay;
    }
    let keep = 1.0 / f64::from(q);
    lay.map(|k| {
        let mut k = k.clone();
        if k.part == Part::Attention && k.kv_bytes > 0.0 {
            let cut = k.kv_bytes * (1.0 - keep);
            k.kv_bytes -= cut;
            k.group.bytes -= cut;
        }
        k
    })
}

/// The wall time of [`verify_layout`]'s step on `setting` (`q = 1`: [`wall`],
/// bit for bit).
pub fn verify_wall(r: &LlmRun, setting: &Setting, q: u32) -> f64 {
    let (wide, lay) = verify_layout(r, q);
    layout_wall(&wide, &lay, &machine(&wide, setting))
}

/// [`verify_layout`]'s step's wall time and what limits it, by the page's one
/// regime rule ([`Limit::decide`]: each cost halved in turn).
pub fn verify_limit(r: &LlmRun, setting: &Setting, q: u32) -> (f64, Limit) {
    let (wide, lay) = verify_layout(r, q);
    let m = machine(&wide, setting);
    let tl = layout_lanes(&wide, &lay, &m).finish();
    let d = decided(&wide, &wide, &lay, &m, &tl, true, &|h| {
        verify_relayout(h, q)
    });
    (d.wall, d.limit)
}

/// One micro-batch of `r` ([`micro_batches`]).
fn micro_run(r: &LlmRun) -> LlmRun {
    LlmRun {
        batch: (r.batch.max(1) / micro_batches(r)).max(1),
        ..*r
    }
}

/// A step's wall time, its pipeline's bubble and what limits it, from the
/// timeline `tl` of one micro-batch (`micro`, laid out as `lay`).
struct Decided {
    wall: f64,
    busy: f64,
    bubble: f64,
    limit: Limit,
}

fn decided(
    r: &LlmRun,
    micro: &LlmRun,
    lay: &Layout<LlmKernel>,
    m: &Machine,
    tl: &Timeline,
    with_limit: bool,
    relayout: &dyn Fn(&LlmRun) -> Layout<LlmKernel>,
) -> Decided {
    // a pipeline runs its micro-batches one behind the other; each is simulated
    // once through every stage, on one GPU of each
    let mb = micro_batches(r);
    let pp = r.par.pp.max(1);
    let wall = pipeline_wall(tl.wall, mb, pp);
    // what one GPU does: its stage of each micro-batch; the rest is the bubble
    let busy = f64::from(mb) / f64::from(pp);
    let bubble = if pp > 1 {
        (wall - busy * tl.wall).max(0.0)
    } else {
        0.0
    };
    let shares = {
        let s = tl.shares();
        let k = 1.0 - bubble / wall.max(f64::MIN_POSITIVE);
        crate::model::timeline::Shares {
            compute: s.compute * k,
            memory: s.memory * k,
            overhead: s.overhead * k,
            comm: s.comm * k + (1.0 - k),
        }
    };
    let halved = LlmRun {
        par: micro.par.halved(),
        ..*micro
    };
    let limit = if with_limit {
        // the counterfactual steps' wall times alone ([`layout_wall`]: the
        // same as simulating them, bit for bit)
        Limit::decide(wall, shares, |h| {
            let t = if h == Halving::Link {
                layout_wall(&halved, &relayout(&halved), m)
            } else {
                layout_wall(micro, lay, &h.apply(m))
            };
            pipeline_wall(t, mb, pp)
        })
    } else {
        Limit::decide(wall, shares, |_| wall)
    };
    Decided {
        wall,
        busy,
        bubble,
        limit,
    }
}

fn run_with(r: &LlmRun, setting: &Setting, with_limit: bool, read: KvRead) -> LlmStep {
    let m = machine(r, setting);
    let micro = micro_run(r);
    let lay = layout_with(&micro, read);
    // the repeated layer priced once and walked with the layout's loops, as
    // `layout_wall` does: the parts, lanes and sums `timeline` and `split`
    // give kernel by kernel, in the same order, so the same bits
    // (`tests/llm_props.rs`), without a list of the step's ~1,600 kernels
    // or their spans, which nothing draws (the llm widget's sliders stay fast)
    let parts = lay.map(|k| k.group.parts(&m));
    let tl = layout_lanes_priced(&micro, &lay, &parts, &m).finish();
    let Decided {
        wall,
        busy,
        bubble,
        limit,
    } = decided(r, &micro, &lay, &m, &tl, with_limit, &|h| {
        layout_with(h, read)
    });
    let pp = r.par.pp.max(1);
    let mut split = Split::default();
    lay.zip_each(&parts, |k, p| split.add(k, &k.group, p));
    let mut split = split.with_lanes(&tl);
    if pp > 1 {
        split = split.scaled(busy);
        split.comm += bubble;
    }
    let layer = layer_rows(r, &m, read);
    let (lc, lm) = layer
        .iter()
        .fold((0.0, 0.0), |(c, mm), row| match row.bound {
            Bound::Compute => (c + row.time, mm),
            Bound::Memory => (c, mm + row.time),
        });
    let launches = if r.graphs {
        m.overhead / f64::from(r.config.layers.max(1))
    } else {
        m.overhead * layer.iter().map(|row| row.dispatches).sum::<f64>()
    };
    let layer_regime = if launches > lc + lm {
        Regime::Overhead
    } else if lc >= lm {
        Regime::Compute
    } else {
        Regime::Memory
    };
    let b = f64::from(r.batch.max(1));
    let capacity = setting.hw.mem_bytes;
    let critical = critical_batch(r, &m);
    let fit = super::fit::fit(r, capacity, critical, setting.hw.supports(Dtype::Fp8));
    let toks = match r.phase {
        Phase::Decode => b,
        Phase::Prefill => tokens(r),
    };
    // DRAM bytes of the kernels; bytes over the link and the count of the
    // collectives (nccl-tests' bus bytes)
    let (mut flops, mut bytes, mut link_bytes, mut collectives) = (0.0, 0.0, 0.0, 0u32);
    // the collectives' time and the all-to-alls' part of it
    let (mut coll_s, mut a2a_s) = (0.0, 0.0);
    lay.zip_each(&lay, |k, _| {
        let g = &k.group;
        if let crate::model::workload::Unit::Collective { .. } = g.unit {
            link_bytes += g.bytes;
            collectives += g.count;
            coll_s += g.latency;
            if g.name.starts_with("all-to-all") {
                a2a_s += g.latency;
            }
        } else {
            bytes += g.bytes;
        }
        flops += g.flops;
    });
    LlmStep {
        run: *r,
        // `gs` is one micro-batch through every stage; one GPU runs its stage
        // of each (`busy` = micro-batches ÷ stages)
        flops: flops * busy,
        bytes: bytes * busy,
        link_bytes,
        collectives,
        kernel_count: lay.len() as u32,
        tokens_per_s: if wall > 0.0 { toks / wall } else { 0.0 },
        // the wall's communication less a pipeline's bubble, the all-to-alls'
        // share of it
        a2a: if coll_s > 0.0 {
            (split.comm - bubble) * a2a_s / coll_s
        } else {
            0.0
        },
        regime: limit.regime,
        limit,
        critical_batch: critical,
        experts_touched: r.config.experts_touched(super::kernels::tokens(&micro)),
        machine: m,
        timeline: tl,
        split,
        wall,
        layer,
        layer_regime,
        weight_bytes: fit.weights,
        kv_bytes: fit.kv,
        capacity,
        fits: fit.fits,
        fit,
    }
}

impl LlmStep {
    /// Sum of FLOPs of the kernels of one part.
    pub fn flops_of(&self, part: Part) -> f64 {
        kernels(&self.run)
            .iter()
            .filter(|k| k.part == part)
            .map(|k| k.group.flops)
            .sum()
    }
}

/// One point of the batch sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub batch: u32,
    pub wall: f64,
    pub tokens_per_s: f64,
    pub split: Split,
    pub fits: bool,
}

/// Batches 1, 2, 4 … 4096 (and the current one) with everything else as `r`.
pub fn sweep(r: &LlmRun, setting: &Setting) -> Vec<SweepPoint> {
    let mut batches: Vec<u32> = (0..=12).map(|i| 1u32 << i).collect();
    batches.push(
        r.batch
            .clamp(super::limits::BATCH.0, super::limits::BATCH.1),
    );
    batches.sort_unstable();
    batches.dedup();
    batches
        .into_iter()
        .map(|batch| {
            let s = plain(&LlmRun { batch, ..*r }, setting, KvRead::AsWritten);
            SweepPoint {
                batch,
                wall: s.wall,
                tokens_per_s: s.tokens_per_s,
                split: s.split,
                fits: s.fits,
            }
        })
        .collect()
}

/// One point of the scaling chart: the step on `tp` tensor-parallel GPUs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalePoint {
    pub tp: u32,
    /// GPUs the point runs on (with DEP asked, tensor parallel 1 is DEP's).
    pub gpus: u32,
    pub wall: f64,
    pub tokens_per_s: f64,
    pub split: Split,
    pub fits: bool,
}

/// Speedup over `base` tensor-parallel GPUs, and that per added GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiency {
    /// The fewest GPUs that fit (1 where nothing fits or the memory is unknown).
    pub base: u32,
    pub speedup: f64,
    /// `speedup ÷ (tp / base)` (`llm_scaling_efficiency`).
    pub value: f64,
}

/// The step against the tensor-parallel degree, the rest of `r` kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// 1, 2, 4, 8: those that split the heads.
    pub points: Vec<ScalePoint>,
    /// Where a doubling stops buying [`crate::model::parallel::PAYS`]×.
    pub stops_paying: Option<u32>,
    /// At `r`'s own degree.
    pub efficiency: Efficiency,
}

/// The step on 1, 2, 4 and 8 tensor-parallel GPUs over `r`'s link (the scaling
/// chart), where it stops paying, and the scaling efficiency at `r`'s degree
/// against the fewest GPUs that fit.
pub fn scaling(r: &LlmRun, setting: &Setting) -> Scaling {
    let points: Vec<ScalePoint> = crate::model::parallel::DEGREES
        .into_iter()
        .filter(|&tp| r.config.splits_over(tp))
        .map(|tp| {
            // the spread the state with this degree runs (with DEP asked,
            // tensor parallel above 1 runs without it)
            let par = super::spread(&r.config, super::Parallel { tp, ..r.par }).0;
            let s = plain(&LlmRun { par, ..*r }, setting, KvRead::AsWritten);
            ScalePoint {
                tp,
                gpus: par.gpus(),
                wall: s.wall,
                tokens_per_s: s.tokens_per_s,
                split: s.split,
                fits: s.fits,
            }
        })
        .collect();
    let walls: Vec<(u32, f64)> = points.iter().map(|p| (p.tp, p.wall)).collect();
    let base = points
        .iter()
        .find(|p| p.fits)
        .map_or(1, |p| p.tp)
        .min(r.par.tp.max(1));
    let wall_at = |tp: u32| walls.iter().find(|w| w.0 == tp).map_or(0.0, |w| w.1);
    let (tb, tn) = (wall_at(base), wall_at(r.par.tp.max(1)));
    let speedup = crate::model::limit::ratio(tb, tn);
    Scaling {
        stops_paying: crate::model::parallel::stops_paying(&walls),
        efficiency: Efficiency {
            base,
            speedup,
            value: crate::model::parallel::efficiency(base, tb, r.par.tp.max(1), tn),
        },
        points,
    }
}

/// The same run on another preset at its datasheet numbers, as choosing it in the
/// hardware select would (the dtype kept where it has it, the roofs and overhead
/// kept): one row of the widget's "compare GPUs" table.
pub fn on_preset(
    r: &LlmRun,
    base: &Setting,
    hw: &'static crate::model::hardware::Preset,
) -> LlmStep {
    full(r, &base.on_preset(hw))
}

/// `wall(2·batch) / wall(batch)`, the overhead section's test applied to this step.
pub fn double_batch_ratio(r: &LlmRun, setting: &Setting) -> f64 {
    let twice = LlmRun {
        batch: r.batch.saturating_mul(2),
        ..*r
    };
    crate::model::overhead::doubling(
        wall(r, setting, KvRead::AsWritten),
        wall(&twice, setting, KvRead::AsWritten),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::llm::{KvDtype, LlmModel};
    use crate::state::State;

    fn setting(hw: &str) -> Setting {
        let mut s = State::default();
        if let Some(p) = hardware::preset(hw) {
            s.select_preset(p);
        }
        s.setting
    }

    pub(crate) fn llama8b(phase: Phase, batch: u32, context: u32) -> LlmRun {
        LlmRun {
            config: LlmModel::Llama3_8b.config_or_toy(),
            phase,
            batch,
            context,
            wdtype: WeightDtype::Bf16,
            kvdtype: KvDtype::Bf16,
            graphs: true,
            flash: true,
            par: crate::model::parallel::Parallel::ONE,
        }
    }

    #[test]
    fn decode_batch1_is_weight_bytes_over_bandwidth() {
        let s = setting("h100-sxm");
        let r = llama8b(Phase::Decode, 1, 1024);
        let st = full(&r, &s);
        let floor = st.weight_bytes / s.bw;
        assert!(
            (st.wall / floor - 1.0).abs() < 0.10,
            "{} vs {}",
            st.wall,
            floor
        );
        assert_eq!(st.regime, Regime::Memory);
        assert!(st.split.weights > 0.8 * st.wall);
        assert!((st.split.total() - st.wall).abs() < 1e-9 * st.wall);
        // the H100's bf16 ridge, ~295
        assert!(
            (st.critical_batch - 295.0).abs() < 1.0,
            "{}",
            st.critical_batch
        );
    }

    #[test]
    fn large_batch_decode_and_prefill_are_compute_bound() {
        let s = setting("h100-sxm");
        let p = full(&llama8b(Phase::Prefill, 1, 4096), &s);
        assert_eq!(p.regime, Regime::Compute);
        let d = full(&llama8b(Phase::Decode, 4096, 1), &s);
        assert_eq!(d.layer_regime, Regime::Compute);
        // a long context makes decode KV-bound
        let kv = full(&llama8b(Phase::Decode, 8, 32768), &s);
        assert_eq!(kv.split.largest(), "kv");
        assert!(!full(&llama8b(Phase::Decode, 4096, 131072), &s).fits);
        assert!(kv.fits);
    }

    #[test]
    fn graphs_remove_overhead_flash_removes_scores() {
        let s = setting("h100-sxm");
        // eager decode at batch 1: ~88 ops per layer at 9.7 µs of CPU each outlast
        // the GPU's 4.5 ms of weight reads; the CPU's launches set the pace
        let eager = full(
            &LlmRun {
                graphs: false,
                ..llama8b(Phase::Decode, 1, 128)
            },
            &s,
        );
        assert_eq!(eager.regime, Regime::Overhead, "{:?}", eager.limit);
        assert!(eager.limit.overhead_half > 1.5, "{:?}", eager.limit);
        let g = full(&llama8b(Phase::Decode, 1, 128), &s);
        assert!(eager.wall > g.wall * 2.0, "{} {}", eager.wall, g.wall);
        assert!(eager.split.overhead > 0.5 * eager.wall);
        assert!(g.split.overhead < 0.1 * g.wall, "{:?}", g.split);
        // the compiled step is memory-bound: the weights set the pace
        assert_eq!(g.regime, Regime::Memory);
        // the eager step dispatches many more ops than the compiled one launches
        let dispatched: f64 = kernels(&eager.run)
            .iter()
            .map(|k| k.group.dispatches())
            .sum();
        assert!(
            dispatched > 2500.0 && f64::from(g.kernel_count) < 400.0,
            "{dispatched} {}",
            g.kernel_count
        );
        let naive = full(
            &LlmRun {
                flash: false,
                ..llama8b(Phase::Prefill, 1, 8192)
            },
            &s,
        );
        let flash = full(&llama8b(Phase::Prefill, 1, 8192), &s);
        assert!(naive.wall > flash.wall);
        assert!(naive.bytes > 2.0 * flash.bytes);
    }

    #[test]
    fn on_preset_is_choosing_the_preset() {
        let r = llama8b(Phase::Decode, 8, 4096);
        let base = setting("a100-40gb");
        for p in hardware::PRESETS {
            let mut st = State::default();
            st.select_preset(p);
            let direct = full(&r, &st.setting);
            assert_eq!(on_preset(&r, &base, p), direct, "{}", p.id);
        }
        // Llama-3-70B in bf16 fits on an MI300X (192 GB) and not on an H100
        let r70 = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            ..r
        };
        let on = |id: &str| hardware::preset(id).map(|p| on_preset(&r70, &base, p));
        assert_eq!(on("mi300x").map(|s| s.fits), Some(true));
        assert_eq!(on("h100-sxm").map(|s| s.fits), Some(false));
    }

    fn tp(r: LlmRun, n: u32, link: &str) -> LlmRun {
        let l = crate::model::parallel::link(link).copied();
        LlmRun {
            par: crate::model::parallel::Parallel {
                tp: n,
                pp: 1,
                dep: 1,
                link: l.unwrap_or(crate::model::parallel::Link::NONE),
                overlap: false,
                rank_tokens: 0,
            },
            ..r
        }
    }

    #[test]
    fn one_gpu_is_unchanged_by_the_link() {
        // TP = PP = 1: whatever the link, the step is the one-GPU step
        let s = setting("h100-sxm");
        let r = llama8b(Phase::Decode, 8, 4096);
        let one = full(&r, &s);
        for l in crate::model::parallel::LINKS {
            let (par, _) = crate::model::llm::spread(
                &r.config,
                crate::model::parallel::Parallel {
                    link: *l,
                    ..crate::model::parallel::Parallel::ONE
                },
            );
            let st = full(&LlmRun { par, ..r }, &s);
            assert!(
                st.wall == one.wall && st.split == one.split && st.limit == one.limit,
                "{}",
                l.id
            );
        }
        assert_eq!(one.split.comm, 0.0);
        assert_eq!(one.limit.link2, 1.0);
    }

    #[test]
    fn tensor_parallel_splits_weights_and_adds_all_reduces() {
        let s = setting("h100-sxm");
        let r70 = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            ..llama8b(Phase::Decode, 1, 4096)
        };
        // doubling TP halves the layers' weight bytes per GPU; the LM head and
        // embedding stay whole on each
        let per_gpu = |n| full(&tp(r70, n, "nvlink4"), &s).weight_bytes;
        let whole = 2.0 * r70.config.embedding_params() * 2.0;
        for n in [1, 2, 4] {
            let (a, b) = (per_gpu(n) - whole, per_gpu(2 * n) - whole);
            assert!((a / b - 2.0).abs() < 0.01, "{n}: {a} {b}");
        }
        // 70B needs two H100s; every TP from 2 fits
        assert!(!full(&r70, &s).fits);
        assert_eq!(full(&r70, &s).fit.min_tp, Some(2));
        assert!(full(&tp(r70, 2, "nvlink4"), &s).fits);
        // two all-reduces per layer
        let ks = kernels(&tp(r70, 4, "nvlink4"));
        let n = ks.iter().filter(|k| k.part == Part::Communication).count();
        assert_eq!(n, 2 * 80);
        // with CUDA graphs at batch 1 the step time falls as TP grows while the
        // communication share rises
        let mut last = (f64::INFINITY, 0.0);
        for n in [2, 4, 8] {
            let st = full(&tp(r70, n, "nvlink4"), &s);
            let share = st.split.comm / st.wall;
            assert!(
                st.wall < last.0 && share > last.1,
                "{n}: {} {share}",
                st.wall
            );
            last = (st.wall, share);
        }
        // at batch 64 the all-reduces carry 1 MB each: over PCIe, 8 GPUs are
        // communication-bound, and going from 4 to 8 pays less than over NVLink
        let b64 = |n, l| {
            full(
                &LlmRun {
                    batch: 64,
                    ..tp(r70, n, l)
                },
                &s,
            )
        };
        let p8 = b64(8, "pcie4");
        assert_eq!(p8.regime, Regime::Communication, "{:?}", p8.limit);
        let gain = |l| b64(4, l).wall / b64(8, l).wall;
        assert!(
            gain("pcie4") < gain("nvlink4") && gain("pcie4") < 1.5,
            "{} {}",
            gain("pcie4"),
            gain("nvlink4")
        );
        // overlap hides collectives behind kernels: never slower
        let mut o = LlmRun {
            batch: 64,
            ..tp(r70, 8, "pcie4")
        };
        o.par.overlap = true;
        assert!(full(&o, &s).wall < p8.wall);
        // eager decode stays overhead-bound: each GPU's CPU still launches every op
        let eager = full(
            &LlmRun {
                graphs: false,
                ..tp(r70, 8, "nvlink4")
            },
            &s,
        );
        assert_eq!(eager.regime, Regime::Overhead);
    }

    #[test]
    fn experts_move_by_all_to_all() {
        let mx = LlmRun {
            config: LlmModel::Mixtral8x7b.config_or_toy(),
            ..tp(llama8b(Phase::Decode, 16, 1024), 2, "nvlink4")
        };
        let ks = layer_kernels(&mx);
        let names: Vec<&str> = ks
            .iter()
            .filter(|k| k.part == Part::Communication)
            .map(|k| k.group.name)
            .collect();
        assert_eq!(
            names,
            [
                "all-reduce (tensor parallel)",
                "all-to-all (experts, dispatch)",
                "all-to-all (experts, combine)"
            ]
        );
        // the eager layer too
        let eager = layer_kernels(&LlmRun {
            graphs: false,
            ..mx
        });
        assert_eq!(
            eager
                .iter()
                .filter(|k| k.part == Part::Communication)
                .count(),
            3
        );
        let st = full(&mx, &setting("h100-sxm"));
        assert!(st.split.comm > 0.0 && (st.split.total() - st.wall).abs() < 1e-9 * st.wall);
    }

    #[test]
    fn a_pipeline_fits_and_pays_only_with_micro_batches() {
        let s = setting("h100-sxm");
        let r70 = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            ..llama8b(Phase::Decode, 1, 4096)
        };
        let pp = |phase, batch, n| {
            let mut r = LlmRun {
                phase,
                batch,
                ..tp(r70, 1, "nvlink4")
            };
            r.par.pp = n;
            full(&r, &s)
        };
        // two stages hold half the layers each: it fits, but decode goes through
        // both in turn, so a GPU idles half the step
        let d2 = pp(Phase::Decode, 1, 2);
        assert!(d2.fits);
        assert!(
            (d2.split.comm / d2.wall - 0.5).abs() < 0.05,
            "{:?}",
            d2.split
        );
        assert!((d2.split.total() - d2.wall).abs() < 1e-9 * d2.wall);
        // a prefill of 8 sequences through 4 stages: (8 + 3) / 4 of one sequence
        let p4 = pp(Phase::Prefill, 8, 4);
        let one = pp(Phase::Prefill, 1, 4);
        assert!(
            (p4.wall / one.wall - 11.0 / 4.0).abs() < 1e-9,
            "{} {}",
            p4.wall,
            one.wall
        );
        // what one GPU does: its quarter of the layers, for all 8 sequences (the
        // step's FLOPs once counted one micro-batch through every stage)
        let all = pp(Phase::Prefill, 8, 1);
        assert!(
            (p4.flops * 4.0 / all.flops - 1.0).abs() < 1e-9,
            "{} {}",
            p4.flops,
            all.flops
        );
        // and each micro-batch reads the stage's weights again
        assert!(p4.bytes * 4.0 > all.bytes, "{} {}", p4.bytes, all.bytes);
        assert!((d2.flops * 2.0 / pp(Phase::Decode, 1, 1).flops - 1.0).abs() < 1e-9);
    }

    #[test]
    fn moe_touches_more_experts_with_batch() {
        let s = setting("h100-sxm");
        let mx = LlmRun {
            config: LlmModel::Mixtral8x7b
                .config()
                .map(|c| c.0)
                .unwrap_or(llama8b(Phase::Decode, 1, 1).config),
            ..llama8b(Phase::Decode, 1, 128)
        };
        let one = full(&mx, &s);
        let many = full(&LlmRun { batch: 64, ..mx }, &s);
        // batch 1 reads 2 experts' weights, batch 64 all 8: more weight time
        assert!(many.split.weights > 2.5 * one.split.weights);
        assert!(one.weight_bytes > 90e9); // every expert is stored
        assert!(
            (one.critical_batch / full(&llama8b(Phase::Decode, 1, 128), &s).critical_batch - 4.0)
                .abs()
                < 1e-9
        );
    }
}
