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

use super::classify::CostClass;

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
        assert_eq!(50.0 / warped_span(&iv, Scale::only(Memory, 0.5)), 1.25);
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
    fn roof_factors() {
        // 10 µs at the roof in 2; 10 µs unplaced; "at the roof" slower than recorded: kept
        assert_eq!(
            roof_factor(&[(10.0, Some(2.0)), (10.0, None), (5.0, Some(8.0))]),
            17.0 / 25.0
        );
        assert_eq!(roof_factor(&[]), 1.0);
    }
}
