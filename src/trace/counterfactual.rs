//! Counterfactual runs of a GPU timeline: what the span would be if one cost
//! class took a different time, and the regime verdict that follows.
//!
//! The model is a monotone time warp of the recorded timeline. Every instant
//! between the first start and the last end is either idle (no activity on any
//! stream) or covered by activities of some cost classes; scaling a class by `f`
//! makes each instant it covers last `f` times as long, an instant covered by
//! several classes lasts as long as the slowest-scaled of them (work that runs
//! beside other work only shortens the run where it is alone), and idle instants
//! scale by the idle factor. Order on every stream is kept (the warp is monotone),
//! a lone kernel's duration scales exactly by its class's factor, and scaling
//! everything by `f` scales the span by `f`. It does not model what a real change
//! would also move (a shorter kernel that lets the CPU fall further behind, a
//! dependency on another stream), which is why the verdict compares halvings —
//! a small change — rather than predicting a large one.
//!
//! Idle time comes in two kinds: gaps where the GPU waited for a launch (marked
//! by spans of class [`CostClass::Overhead`], scaled by [`Scale::launch_wait`])
//! and all other idle instants (scaled by [`Scale::idle`]).

use super::classify::{CostClass, KernelClass};

/// Factors by which each cost class's time (and idle time) is multiplied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// Idle instants outside launch-wait gaps.
    pub idle: f64,
    /// Instants in launch-wait gaps (spans of class Overhead).
    pub launch_wait: f64,
    pub compute: f64,
    pub memory: f64,
    pub communication: f64,
}

impl Scale {
    pub const ONE: Scale = Scale {
        idle: 1.0,
        launch_wait: 1.0,
        compute: 1.0,
        memory: 1.0,
        communication: 1.0,
    };

    /// Every factor 1 except `class`'s, which is `f`.
    pub fn only(class: CostClass, f: f64) -> Scale {
        let mut s = Scale::ONE;
        match class {
            CostClass::Overhead => {
                s.idle = f;
                s.launch_wait = f;
            }
            CostClass::Compute => s.compute = f,
            CostClass::Memory => s.memory = f,
            CostClass::Communication => s.communication = f,
        }
        s
    }

    pub fn factor(&self, class: CostClass) -> f64 {
        match class {
            CostClass::Overhead => self.idle,
            CostClass::Compute => self.compute,
            CostClass::Memory => self.memory,
            CostClass::Communication => self.communication,
        }
    }
}

/// One activity for the warp: start, end (µs) and cost class. Intervals with
/// `end <= start` cover no instant and are ignored.
pub type Span = (f64, f64, CostClass);

fn class_index(c: CostClass) -> usize {
    match c {
        CostClass::Overhead => 0,
        CostClass::Compute => 1,
        CostClass::Memory => 2,
        CostClass::Communication => 3,
    }
}

/// The recorded timeline reduced to what the warp needs: how long each set of
/// active classes (a 4-bit mask: Overhead marker, compute, memory,
/// communication; 0 = idle) lasted. One sweep; every scenario is then 16 terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub time_by_mask: [f64; 16],
}

impl Profile {
    pub fn new(iv: &[Span]) -> Profile {
        let mut points: Vec<(f64, i32, usize)> = Vec::with_capacity(iv.len() * 2);
        for &(ts, end, c) in iv {
            if end > ts {
                points.push((ts, 1, class_index(c)));
                points.push((end, -1, class_index(c)));
            }
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut time_by_mask = [0.0; 16];
        let mut active = [0i64; 4];
        let mut prev = points.first().map_or(0.0, |p| p.0);
        for (t, delta, c) in points {
            let seg = t - prev;
            if seg > 0.0 {
                let mask = (0..4)
                    .filter(|i| active.get(*i).is_some_and(|n| *n > 0))
                    .fold(0usize, |m, i| m | 1 << i);
                if let Some(x) = time_by_mask.get_mut(mask) {
                    *x += seg;
                }
            }
            if let Some(n) = active.get_mut(c) {
                *n += i64::from(delta);
            }
            prev = t;
        }
        Profile { time_by_mask }
    }

    /// The span (first start to last end) after the warp.
    pub fn span(&self, s: Scale) -> f64 {
        let factors = [s.compute, s.memory, s.communication];
        self.time_by_mask
            .iter()
            .enumerate()
            .map(|(mask, len)| {
                let rate = if mask >> 1 != 0 {
                    // the slowest-scaled kernel class running then
                    (0..3)
                        .filter(|i| mask >> (i + 1) & 1 == 1)
                        .map(|i| factors.get(i).copied().unwrap_or(1.0))
                        .fold(0.0, f64::max)
                } else if mask & 1 == 1 {
                    s.launch_wait
                } else {
                    s.idle
                };
                len * rate
            })
            .sum::<f64>()
            + 0.0
    }
}

/// The span (first start to last end) after the warp.
pub fn warped_span(iv: &[Span], s: Scale) -> f64 {
    Profile::new(iv).span(s)
}

/// What halving one class would save, as a share of the recorded span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halving {
    pub class: CostClass,
    pub saving: f64,
}

/// The regime: the class whose halving shortens the run most (ties go to the
/// earlier class in [`CostClass::ALL`]), with every class's saving.
pub fn regime(iv: &[Span]) -> (CostClass, Vec<Halving>) {
    let profile = Profile::new(iv);
    let span0 = profile.span(Scale::ONE);
    let halvings: Vec<Halving> = CostClass::ALL
        .iter()
        .map(|&class| {
            let saving = if span0 > 0.0 {
                (span0 - profile.span(Scale::only(class, 0.5))) / span0
            } else {
                0.0
            };
            Halving { class, saving }
        })
        .collect();
    let best = halvings
        .iter()
        .fold(None, |best: Option<Halving>, h| match best {
            Some(b) if b.saving >= h.saving => Some(b),
            _ => Some(*h),
        });
    (best.map_or(CostClass::Overhead, |h| h.class), halvings)
}

/// A remedy the trace can price: its id, what it stands for, its scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RemedyPlan {
    pub id: &'static str,
    pub label: &'static str,
    pub scale: Scale,
}

/// The remedies whose scale is fixed.
pub const NO_IDLE: RemedyPlan = RemedyPlan {
    id: "no_idle",
    label: "no idle GPU time at all (CUDA graphs, no host syncs, input pipeline and collectives never waited on): the span becomes the busy time",
    scale: Scale { idle: 0.0, launch_wait: 0.0, ..Scale::ONE },
};
pub const CUDA_GRAPHS: RemedyPlan = RemedyPlan {
    id: "cuda_graphs",
    label: "CUDA graphs (torch.compile mode=\"reduce-overhead\"): the gaps where the GPU waited for a launch disappear (an upper bound where the CPU was doing other work than launching between kernels)",
    scale: Scale { launch_wait: 0.0, ..Scale::ONE },
};
pub const OVERLAP_COMMUNICATION: RemedyPlan = RemedyPlan {
    id: "overlap_communication",
    label: "communication fully overlapped with compute: collectives cost nothing alone",
    scale: Scale {
        communication: 0.0,
        ..Scale::ONE
    },
};
pub const FUSE_MEMORY_BOUND: &str = "fuse_memory_bound";
pub const FUSE_LABEL: &str = "fuse memory-bound kernels (torch.compile): each run of back-to-back pointwise/norm/reduction kernels on a stream, with no host sync between them, costs its longest kernel (one pass over the data instead of one per kernel; an estimate)";
pub const MATMULS_AT_ROOF: &str = "matmuls_at_roof";
pub const ROOF_LABEL: &str = "matmuls at the roof: each matmul/conv/attention kernel placed by shape takes max(FLOPs ÷ achievable peak, bytes ÷ achievable bandwidth) on the preset; unplaced ones keep their time";

/// The remedy ids, in the order they are priced (the list is sorted by speedup).
pub const REMEDY_IDS: [&str; 5] = [
    "no_idle",
    "cuda_graphs",
    FUSE_MEMORY_BOUND,
    MATMULS_AT_ROOF,
    "overlap_communication",
];

/// The factors the trace-specific remedies scale a cost class by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Priced {
    /// The memory class after fusion ÷ before ([`fuse_factor`]).
    pub fuse_memory: f64,
    /// The compute class at the roof ÷ as recorded ([`roof_factor`]); `None`
    /// without a hardware preset (then `matmuls_at_roof` is not offered).
    pub matmuls_at_roof: Option<f64>,
}

impl Priced {
    /// Nothing changes (factors 1, no roof).
    pub const NONE: Priced = Priced {
        fuse_memory: 1.0,
        matmuls_at_roof: None,
    };
}

/// The remedies priced on a trace with these factors.
pub fn plans(p: &Priced) -> Vec<RemedyPlan> {
    let mut v = vec![
        NO_IDLE,
        CUDA_GRAPHS,
        RemedyPlan {
            id: FUSE_MEMORY_BOUND,
            label: FUSE_LABEL,
            scale: Scale {
                memory: p.fuse_memory,
                ..Scale::ONE
            },
        },
    ];
    if let Some(f) = p.matmuls_at_roof {
        v.push(RemedyPlan {
            id: MATMULS_AT_ROOF,
            label: ROOF_LABEL,
            scale: Scale {
                compute: f,
                ..Scale::ONE
            },
        });
    }
    v.push(OVERLAP_COMMUNICATION);
    v
}

/// A priced remedy: predicted speedup (recorded span / counterfactual span).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Remedy {
    pub id: &'static str,
    pub label: &'static str,
    pub speedup: f64,
}

/// Every remedy with its speedup, best first.
pub fn remedies(iv: &[Span], p: &Priced) -> Vec<Remedy> {
    let profile = Profile::new(iv);
    let span0 = profile.span(Scale::ONE);
    let mut out: Vec<Remedy> = plans(p)
        .iter()
        .map(|r| {
            let s = profile.span(r.scale);
            let speedup = if s > 0.0 { span0 / s } else { 1.0 };
            Remedy {
                id: r.id,
                label: r.label,
                speedup,
            }
        })
        .collect();
    out.sort_by(|a, b| b.speedup.total_cmp(&a.speedup));
    out
}

/// Whether fusion merges a kernel of this class with its neighbours: pointwise,
/// normalisation and reduction kernels (not copies, not collectives, not matmuls).
pub fn fusible(c: KernelClass) -> bool {
    matches!(
        c,
        KernelClass::Pointwise | KernelClass::Normalisation | KernelClass::Reduction
    )
}

/// The memory class's time after fusion ÷ before, from each stream's
/// activities in start order: `Some((class, duration))` for a kernel, memcpy or
/// memset, `None` for any other activity on the stream. Every maximal run of
/// [`fusible`] kernels with nothing else between them on a stream becomes one
/// kernel costing as long as its longest member: a fused kernel reads its inputs
/// and writes its outputs once, and the longest member approximates that one
/// pass (the intermediate tensors the others wrote and read are gone; extra
/// FLOPs, extra inputs and the launch gaps between them are not modelled). The
/// factor is (Σ memory-class time − what the runs save) ÷ Σ memory-class time,
/// copies included in both sums; 1 with no memory-class time.
pub fn fuse_factor(streams: &[Vec<Option<(KernelClass, f64)>>]) -> f64 {
    let (mut total, mut saved) = (0.0, 0.0);
    for s in streams {
        let (mut run_sum, mut run_max) = (0.0, 0.0f64);
        for item in s.iter().chain([&None]) {
            match item {
                Some((c, d)) if fusible(*c) => {
                    run_sum += d;
                    run_max = run_max.max(*d);
                }
                _ => {
                    saved += run_sum - run_max;
                    run_sum = 0.0;
                    run_max = 0.0;
                }
            }
            if let Some((c, d)) = item {
                if c.cost() == CostClass::Memory {
                    total += d;
                }
            }
        }
    }
    if total > 0.0 {
        (total - saved) / total
    } else {
        1.0
    }
}

/// The compute class's time at the roof ÷ as recorded, from each compute-class
/// kernel's recorded duration and its time at the roof (`None` where it was not
/// placed, or the preset has no peak for its dtype: it keeps its time). A time at
/// the roof is never taken above the recorded one. 1 with no compute time.
pub fn roof_factor(kernels: &[(f64, Option<f64>)]) -> f64 {
    let (old, new) = kernels.iter().fold((0.0, 0.0), |(o, n), (d, at)| {
        (o + d, n + at.map_or(*d, |a| a.clamp(0.0, *d)))
    });
    if old > 0.0 {
        new / old
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CostClass::*;

    #[test]
    fn warp_of_one_stream_is_the_sum() {
        // compute 10, gap 5, memory 20, gap 5, comm 10
        let iv = [
            (0.0, 10.0, Compute),
            (15.0, 35.0, Memory),
            (40.0, 50.0, Communication),
        ];
        assert_eq!(warped_span(&iv, Scale::ONE), 50.0);
        assert_eq!(warped_span(&iv, Scale::only(Overhead, 0.0)), 40.0);
        assert_eq!(warped_span(&iv, Scale::only(Compute, 0.5)), 45.0);
        assert_eq!(warped_span(&iv, Scale::only(Memory, 0.5)), 40.0);
        assert_eq!(warped_span(&iv, Scale::only(Communication, 0.0)), 40.0);
        let (r, h) = regime(&iv);
        assert_eq!(r, Memory);
        assert_eq!(h.len(), 4);
        let best = remedies(&iv, &Priced::NONE);
        assert_eq!(best[0].speedup, 50.0 / 40.0);
    }

    #[test]
    fn overlap_hides_the_faster_class() {
        // comm 0..100 beside compute 0..100: halving compute alone saves nothing
        let iv = [(0.0, 100.0, Communication), (0.0, 100.0, Compute)];
        assert_eq!(warped_span(&iv, Scale::only(Compute, 0.5)), 100.0);
        assert_eq!(
            warped_span(
                &iv,
                Scale {
                    compute: 0.5,
                    communication: 0.5,
                    ..Scale::ONE
                }
            ),
            50.0
        );
        assert_eq!(warped_span(&iv, Scale::only(Communication, 0.0)), 100.0);
    }

    #[test]
    fn idle_dominated() {
        let iv = [(0.0, 1.0, Compute), (100.0, 101.0, Memory)];
        assert_eq!(regime(&iv).0, Overhead);
        assert_eq!(warped_span(&iv, Scale::only(Overhead, 0.0)), 2.0);
        assert_eq!(remedies(&iv, &Priced::NONE)[0].id, "no_idle");
    }

    #[test]
    fn launch_gaps_scale_apart_from_other_idle() {
        // a launch-wait gap 1..50 (marked Overhead), an unmarked gap 51..100
        let iv = [
            (0.0, 1.0, Compute),
            (1.0, 50.0, Overhead),
            (50.0, 51.0, Memory),
            (100.0, 101.0, Compute),
        ];
        assert_eq!(warped_span(&iv, Scale::ONE), 101.0);
        assert_eq!(
            warped_span(
                &iv,
                Scale {
                    launch_wait: 0.0,
                    ..Scale::ONE
                }
            ),
            52.0
        );
        assert_eq!(
            warped_span(
                &iv,
                Scale {
                    idle: 0.0,
                    ..Scale::ONE
                }
            ),
            52.0
        );
        assert_eq!(warped_span(&iv, Scale::only(Overhead, 0.0)), 3.0);
        assert_eq!(warped_span(&iv, Scale::only(Overhead, 0.5)), 52.0);
        let r = remedies(&iv, &Priced::NONE);
        assert_eq!(r[0].id, "no_idle");
        let graphs = r.iter().find(|r| r.id == "cuda_graphs").unwrap();
        assert_eq!(graphs.speedup, 101.0 / 52.0);
    }

    #[test]
    fn empty_and_degenerate() {
        assert_eq!(warped_span(&[], Scale::ONE), 0.0);
        assert_eq!(
            warped_span(&[(5.0, 5.0, Compute), (6.0, 4.0, Memory)], Scale::ONE),
            0.0
        );
        let (r, h) = regime(&[]);
        assert_eq!(r, Overhead);
        assert!(h.iter().all(|h| h.saving == 0.0));
    }

    #[test]
    fn remedies_priced_from_the_trace() {
        // memory 15..35 halved by fusion: 50 → 40; compute at the roof ×0.2: 0..10 → 0..2
        let iv = [
            (0.0, 10.0, Compute),
            (15.0, 35.0, Memory),
            (40.0, 50.0, Communication),
        ];
        let p = Priced {
            fuse_memory: 0.5,
            matmuls_at_roof: Some(0.2),
        };
        let r = remedies(&iv, &p);
        let get = |id: &str| r.iter().find(|x| x.id == id).map(|x| x.speedup);
        assert_eq!(get("fuse_memory_bound"), Some(50.0 / 40.0));
        assert_eq!(get("matmuls_at_roof"), Some(50.0 / 42.0));
        assert_eq!(r.len(), 5);
        // without a preset the roof remedy is absent
        let r = remedies(
            &iv,
            &Priced {
                matmuls_at_roof: None,
                ..p
            },
        );
        assert_eq!(r.len(), 4);
        assert!(r.iter().all(|x| x.id != "matmuls_at_roof"));
        assert!(r
            .iter()
            .all(|x| REMEDY_IDS.contains(&x.id) && !x.label.is_empty()));
    }

    #[test]
    fn fusion_runs() {
        use KernelClass::*;
        let k = |c: KernelClass, d: f64| Some((c, d));
        // stream 1: [pw 4, norm 6, red 2] | matmul 10 | [pw 3] | copy 5 | [pw 1, pw 1]
        // stream 2: [pw 2, (a sync event), pw 2]
        let s1 = vec![
            k(Pointwise, 4.0),
            k(Normalisation, 6.0),
            k(Reduction, 2.0),
            k(Matmul, 10.0),
            k(Pointwise, 3.0),
            k(Copy, 5.0),
            k(Pointwise, 1.0),
            k(Pointwise, 1.0),
        ];
        let s2 = vec![k(Pointwise, 2.0), None, k(Pointwise, 2.0)];
        // memory time 4+6+2+3+5+1+1 + 2+2 = 26; runs save (12−6) + (2−1) = 7
        assert_eq!(fuse_factor(&[s1, s2]), 19.0 / 26.0);
        // lone kernels and copies save nothing; nothing memory-bound: 1
        assert_eq!(
            fuse_factor(&[vec![k(Pointwise, 3.0), k(Copy, 1.0), k(Pointwise, 3.0)]]),
            1.0
        );
        assert_eq!(fuse_factor(&[vec![k(Matmul, 3.0)]]), 1.0);
        assert_eq!(fuse_factor(&[]), 1.0);
        // communication breaks a run and is not memory time
        assert_eq!(
            fuse_factor(&[vec![
                k(Pointwise, 2.0),
                k(Communication, 9.0),
                k(Pointwise, 2.0)
            ]]),
            1.0
        );
    }

    #[test]
    fn roof_factors() {
        // 10 µs at the roof in 2; 10 µs unplaced; "at the roof" slower than recorded: kept
        assert_eq!(
            roof_factor(&[(10.0, Some(2.0)), (10.0, None), (5.0, Some(8.0))]),
            17.0 / 25.0
        );
        assert_eq!(roof_factor(&[]), 1.0);
    }
}
