//! What limits a step: the essay's test, made exact. Change one thing and see what
//! moves. The step is run again three times, each with one cost class halved:
//!
//! - **compute**: 2× FLOP/s (every ceiling, matmul and pointwise);
//! - **memory**: 2× memory bandwidth;
//! - **overhead**: half the CPU's cost per dispatched op (per launch, or per graph
//!   replay).
//!
//! Each re-run gives a speedup, wall time before ÷ after (the readouts
//! `speedup_flops2`, `speedup_bw2`, `speedup_overhead_half` and the `llm_…` /
//! `dit_…` ones). **The regime is the class whose halving shortens the step most**;
//! speedups within [`TIE`] of the best count as a tie, which goes to the class with
//! the larger time share. This is the one rule for every regime word on the page.
//!
//! The time shares ([`Shares`]) still say where the time goes. They can disagree
//! with the limit: a step whose GPU spends most of its busy time on memory traffic
//! can still be paced by the CPU's launches, because the GPU's busy time does not
//! shorten the step while the GPU waits. [`contrast`] says so in one sentence.

use super::timeline::{self, Regime, Shares, Timeline};
use super::units;
use super::workload::{KernelGroup, L2Roof, Level, Machine};

/// Speedups within this factor of the best are a tie (1 %).
pub const TIE: f64 = 1.01;

/// The three counterfactuals, in [`Regime`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Halving {
    /// 2× FLOP/s.
    Flops,
    /// 2× memory bandwidth.
    Bw,
    /// Half the CPU cost per dispatched op.
    Overhead,
    /// 2× the link's bandwidth and half its latency (collectives between GPUs).
    Link,
}

impl Halving {
    pub const ALL: [Halving; 4] = [
        Halving::Flops,
        Halving::Bw,
        Halving::Overhead,
        Halving::Link,
    ];

    /// The regime this halving tests.
    pub fn regime(self) -> Regime {
        match self {
            Halving::Flops => Regime::Compute,
            Halving::Bw => Regime::Memory,
            Halving::Overhead => Regime::Overhead,
            Halving::Link => Regime::Communication,
        }
    }

    /// What is changed, in words ("2× bandwidth").
    pub fn words(self) -> &'static str {
        match self {
            Halving::Flops => "2× FLOP/s",
            Halving::Bw => "2× bandwidth",
            Halving::Overhead => "half the CPU overhead",
            Halving::Link => "2× link bandwidth and half its latency",
        }
    }

    /// `m` with this cost class halved. The machine holds no link (a collective's
    /// time is computed from its link when its kernels are built), so
    /// [`Halving::Link`] leaves it as it is: a caller with collectives re-runs
    /// with a halved link itself ([`Limit::decide`]).
    pub fn apply(self, m: &Machine) -> Machine {
        match self {
            Halving::Flops => Machine {
                matmul_flops: m.matmul_flops * 2.0,
                pointwise_flops: m.pointwise_flops * 2.0,
                ..*m
            },
            // every memory level: HBM and, where the machine has one, L2
            Halving::Bw => Machine {
                bw: m.bw * 2.0,
                l2: m.l2.map(|l| L2Roof {
                    bw: l.bw * 2.0,
                    ..l
                }),
                ..*m
            },
            Halving::Overhead => Machine {
                overhead: m.overhead * 0.5,
                ..*m
            },
            Halving::Link => *m,
        }
    }
}

/// The counterfactual speedups and the regime they decide.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    /// Wall time before ÷ after, for 2× FLOP/s, 2× bandwidth, half the overhead.
    pub flops2: f64,
    pub bw2: f64,
    pub overhead_half: f64,
    /// 2× link bandwidth and half its latency; 1 where nothing crosses a link.
    pub link2: f64,
    /// What limits the step: the largest speedup (ties to the larger share).
    pub regime: Regime,
    /// Where the time goes.
    pub shares: Shares,
}

/// `before / after`, 1 where that is not a finite positive number.
pub fn ratio(before: f64, after: f64) -> f64 {
    let r = before / after;
    if r.is_finite() && r > 0.0 {
        r
    } else {
        1.0
    }
}

impl Limit {
    /// Decide from the wall time `wall`, its `shares` and `after(h)`, the wall time
    /// with `h` applied (`after(Halving::Link)` is asked only where some time
    /// goes to collectives).
    pub fn decide(wall: f64, shares: Shares, mut after: impl FnMut(Halving) -> f64) -> Limit {
        let [flops2, bw2, overhead_half, link2] = Halving::ALL.map(|h| {
            if h == Halving::Link && shares.comm <= 0.0 {
                1.0
            } else {
                ratio(wall, after(h))
            }
        });
        let mut l = Limit {
            flops2,
            bw2,
            overhead_half,
            link2,
            regime: Regime::Compute,
            shares,
        };
        let best = Halving::ALL
            .into_iter()
            .map(|h| l.speedup(h))
            .fold(f64::MIN, f64::max);
        l.regime = Halving::ALL
            .into_iter()
            .filter(|h| l.speedup(*h) * TIE >= best)
            .map(Halving::regime)
            .fold(None, |b: Option<Regime>, r| match b {
                Some(b) if share(&shares, b) >= share(&shares, r) => Some(b),
                _ => Some(r),
            })
            .unwrap_or(Regime::Compute);
        l
    }

    /// Run `wall_of` on `m` and on each halving of it.
    pub fn of(m: &Machine, shares: Shares, wall: f64, wall_of: impl Fn(&Machine) -> f64) -> Limit {
        Limit::decide(wall, shares, |h| wall_of(&h.apply(m)))
    }

    pub fn speedup(&self, h: Halving) -> f64 {
        match h {
            Halving::Flops => self.flops2,
            Halving::Bw => self.bw2,
            Halving::Overhead => self.overhead_half,
            Halving::Link => self.link2,
        }
    }

    /// The halving that tests `r`.
    pub fn halving(r: Regime) -> Halving {
        match r {
            Regime::Compute => Halving::Flops,
            Regime::Memory => Halving::Bw,
            Regime::Overhead => Halving::Overhead,
            Regime::Communication => Halving::Link,
        }
    }

    /// Whether the largest time share names the same class as the limit.
    pub fn agrees(&self) -> bool {
        self.shares.largest() == self.regime
    }
}

/// The limit of a kernel list simulated on `m` ([`timeline::simulate`]), given
/// its timeline there.
pub fn of_groups(groups: &[KernelGroup], m: &Machine, tl: &Timeline) -> Limit {
    Limit::of(m, tl.shares(), tl.wall, |h| {
        timeline::simulate(groups, h).wall
    })
}

/// The memory cost split by level, on a machine with an L2 roof: the speedup
/// of 2× L2 bandwidth alone and of 2× HBM bandwidth alone. The level whose
/// doubling buys more is the one that binds ([`Levels::binds`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Levels {
    pub l2_2: f64,
    pub hbm2: f64,
}

/// [`Levels`] of a kernel list on `m` with wall time `wall`; `None` where `m`
/// has no L2 roof (every byte is HBM's).
pub fn levels(groups: &[KernelGroup], m: &Machine, wall: f64) -> Option<Levels> {
    let l2 = m.l2?;
    let run = |x: &Machine| timeline::simulate(groups, x).wall;
    let hbm = Machine {
        bw: m.bw * 2.0,
        ..*m
    };
    let fast_l2 = Machine {
        l2: Some(L2Roof {
            bw: l2.bw * 2.0,
            ..l2
        }),
        ..*m
    };
    Some(Levels {
        l2_2: ratio(wall, run(&fast_l2)),
        hbm2: ratio(wall, run(&hbm)),
    })
}

impl Levels {
    /// The level whose 2× bandwidth buys more (HBM at a tie).
    pub fn binds(&self) -> Level {
        if self.l2_2 > self.hbm2 {
            Level::L2
        } else {
            Level::Hbm
        }
    }

    /// "Its memory traffic is L2's: 2× L2 bandwidth alone buys 1.80×, 2× HBM
    /// bandwidth 1.00×."
    pub fn sentence(&self) -> String {
        let (b, other) = match self.binds() {
            Level::L2 => ((Level::L2, self.l2_2), (Level::Hbm, self.hbm2)),
            Level::Hbm => ((Level::Hbm, self.hbm2), (Level::L2, self.l2_2)),
        };
        if b.1 < NEAR {
            return format!(
                "Neither memory level's bandwidth moves this step: 2× {} or 2× {} bandwidth buys \
                 under {}×.",
                Level::L2.label(),
                Level::Hbm.label(),
                units::sig3(NEAR)
            );
        }
        let (x, y) = two_speedups(b.1, other.1);
        format!(
            "Of the memory levels, {} binds: 2× {} bandwidth alone buys {x}×, 2× {} bandwidth {y}×.",
            b.0.label(),
            b.0.label(),
            other.0.label(),
        )
    }
}

/// [`headline`], naming the memory level that binds where the step is
/// memory-bound on a machine with an L2 roof: "The step is
/// memory-bandwidth-bound (L2): 3.10 µs per step".
pub fn headline_at(l: &Limit, wall_s: f64, levels: Option<Levels>) -> String {
    let h = headline(l, wall_s);
    match levels {
        Some(v) if l.regime == Regime::Memory => {
            let label = l.regime.label();
            h.replacen(label, &format!("{label} ({})", v.binds().label()), 1)
        }
        _ => h,
    }
}

/// The share of `r` in `s`.
pub fn share(s: &Shares, r: Regime) -> f64 {
    match r {
        Regime::Compute => s.compute,
        Regime::Memory => s.memory,
        Regime::Overhead => s.overhead,
        Regime::Communication => s.comm,
    }
}

/// What a share of the time is, in words that name no regime.
pub fn time_words(r: Regime) -> &'static str {
    match r {
        Regime::Compute => "arithmetic",
        Regime::Memory => "memory traffic",
        Regime::Overhead => {
            "fixed cost per kernel (the GPU waiting for launches or at its kernel floor)"
        }
        Regime::Communication => "waiting on collectives between GPUs",
    }
}

/// What sets the pace, in words.
pub fn pace_words(r: Regime) -> &'static str {
    match r {
        Regime::Compute => "the arithmetic sets the pace",
        Regime::Memory => "memory traffic sets the pace",
        Regime::Overhead => "the fixed costs per kernel set the pace",
        Regime::Communication => "the collectives between GPUs set the pace",
    }
}

/// Two speedups written so that the larger never reads as smaller or equal (three
/// significant digits, more where three would print them alike).
pub fn two_speedups(a: f64, b: f64) -> (String, String) {
    for digits in [2usize, 3, 4, 5, 6] {
        let (x, y) = (format!("{a:.digits$}"), format!("{b:.digits$}"));
        if x != y || digits == 6 {
            return (x, y);
        }
    }
    (format!("{a}"), format!("{b}"))
}

/// The sentence the page shows when the largest share and the limit disagree:
/// "64.0 % of the time is memory traffic, but the fixed costs per kernel set the
/// pace: 2× bandwidth buys 1.02×, half the CPU overhead 1.50×." `None` when they
/// agree.
pub fn contrast(l: &Limit) -> Option<String> {
    if l.agrees() {
        return None;
    }
    let big = l.shares.largest();
    let (a, b) = two_speedups(
        l.speedup(Limit::halving(big)),
        l.speedup(Limit::halving(l.regime)),
    );
    Some(format!(
        "{} of the time is {}, but {}: {} buys {a}×, {} {b}×.",
        units::percent(share(&l.shares, big)),
        time_words(big),
        pace_words(l.regime),
        Limit::halving(big).words(),
        Limit::halving(l.regime).words(),
    ))
}

/// "The step is memory-bandwidth-bound: 2× bandwidth alone buys 1.96×.", then the
/// [`contrast`] sentence when the largest share says otherwise.
pub fn verdict(l: &Limit) -> String {
    let test = Limit::halving(l.regime);
    let mut s = format!(
        "The step is {}: {} alone buys {}×.",
        l.regime.label(),
        test.words(),
        units::sig3(l.speedup(test))
    );
    if let Some(c) = contrast(l) {
        s.push(' ');
        s.push_str(&c);
    }
    s
}

/// Two halving speedups closer than this factor are a near-tie (5 %): the
/// regime word then rests on a margin the model cannot vouch for.
pub const NEAR: f64 = 1.05;

/// The speedup halving a cost class with time share `s` would buy if nothing
/// else paced the step: `1 / (1 − s/2)`.
pub fn suggested(s: f64) -> f64 {
    ratio(1.0, 1.0 - s.clamp(0.0, 1.0) / 2.0)
}

/// Two costs that nearly balance: halving either alone moves the step little,
/// because the other then sets the pace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    /// The halving that tests the limit's regime, and the one nearest it (or,
    /// where no halving pays, the one of the largest time share).
    pub first: Halving,
    pub second: Halving,
    /// No halving buys even half the gain the largest time share suggests
    /// ([`suggested`]): halving either alone buys little.
    pub little: bool,
}

/// The halvings that can move this step (the link only where some time goes
/// to collectives), the largest speedup first.
fn ranked(l: &Limit) -> Vec<Halving> {
    let mut hs: Vec<Halving> = Halving::ALL
        .into_iter()
        .filter(|h| *h != Halving::Link || l.shares.comm > 0.0)
        .collect();
    crate::model::order::sort_largest_first(&mut hs, |h| l.speedup(*h));
    hs
}

/// Whether the step is a near-tie, and between which two costs. It is one
/// where the limit's speedup and the next differ by less than [`NEAR`], or
/// where no halving buys even half the gain the largest time share suggests
/// (90 % of the time on memory traffic suggests 1.82× from 2× bandwidth; a
/// step that gets 1.12× from it and less from anything else is paced by two
/// costs at once). A step that one halving speeds up well is not a tie, even
/// where the largest share buys little ([`contrast`] says why).
pub fn balance(l: &Limit) -> Option<Balance> {
    let first = Limit::halving(l.regime);
    let others: Vec<Halving> = ranked(l).into_iter().filter(|h| *h != first).collect();
    let next = *others.first()?;
    let (a, b) = (l.speedup(first), l.speedup(next));
    let near = a.max(b) < NEAR * a.min(b);
    let big = Limit::halving(l.shares.largest());
    let best = a.max(b);
    let little = best - 1.0 < 0.5 * (suggested(share(&l.shares, l.shares.largest())) - 1.0);
    if !near && !little {
        return None;
    }
    let second = if near || big == first { next } else { big };
    Some(Balance {
        first,
        second,
        little,
    })
}

impl Balance {
    /// The two costs, short ("CPU launches ≈ GPU time") and in full ("the
    /// CPU's launch pace and the GPU's time").
    fn names(&self) -> (&'static str, &'static str) {
        use Regime::*;
        let (a, b) = (self.first.regime(), self.second.regime());
        let has = |r: Regime| a == r || b == r;
        if has(Overhead) && has(Communication) {
            (
                "CPU launches ≈ collectives",
                "the CPU's launch pace and the collectives between GPUs",
            )
        } else if has(Overhead) {
            (
                "CPU launches ≈ GPU time",
                "the CPU's launch pace and the GPU's time",
            )
        } else if has(Communication) {
            (
                "collectives ≈ GPU work",
                "the collectives between GPUs and the GPU's own work",
            )
        } else {
            (
                "arithmetic ≈ memory traffic",
                "the arithmetic and the memory traffic",
            )
        }
    }

    fn buys(&self) -> &'static str {
        if self.little {
            "halving either alone buys little"
        } else {
            "halving either buys about as much"
        }
    }

    /// The short form, for the one-line answer: "CPU launches ≈ GPU time:
    /// halving either alone buys little".
    pub fn short(&self) -> String {
        format!("{}: {}", self.names().0, self.buys())
    }
}

/// The explorer's one-line answer: "The step is memory-bandwidth-bound: 12.3 µs
/// per step", or at a near-tie ([`balance`]) "The step is overhead-bound,
/// barely (CPU launches ≈ GPU time: halving either alone buys little): 33.1 µs
/// per step".
pub fn headline(l: &Limit, wall_s: f64) -> String {
    let t = units::si(wall_s, "s");
    match balance(l) {
        Some(b) => format!(
            "The step is {}, barely ({}): {t} per step",
            l.regime.label(),
            b.short()
        ),
        None => format!("The step is {}: {t} per step", l.regime.label()),
    }
}

/// The sentence the diagnosis card shows at a near-tie: which two costs
/// balance, what halving each buys, and, where the largest time share buys
/// less than half what it suggests, that share. `None` where no tie.
pub fn balance_sentence(l: &Limit) -> Option<String> {
    let b = balance(l)?;
    let (x, y) = two_speedups(l.speedup(b.first), l.speedup(b.second));
    let big = l.shares.largest();
    let s = share(&l.shares, big);
    let though = if l.speedup(Limit::halving(big)) - 1.0 < 0.5 * (suggested(s) - 1.0) {
        format!(
            ", though {} of the time is {} ({} could buy up to {}× if nothing else set the pace)",
            units::percent(s),
            time_words(big),
            Limit::halving(big).words(),
            units::sig3(suggested(s))
        )
    } else {
        String::new()
    };
    Some(format!(
        "A near-tie: {} nearly balance, so {}: {} buys {x}×, {} {y}×{though}.",
        b.names().1,
        b.buys(),
        b.first.words(),
        b.second.words(),
    ))
}

/// The diagnosis card's sentence under the regime: at a near-tie, which two
/// costs balance ([`balance_sentence`]); else, where the largest share and the
/// limit disagree, the [`contrast`]; `None` where the step is clearly limited
/// by its largest share.
pub fn card_sentence(l: &Limit) -> Option<String> {
    balance_sentence(l).or_else(|| contrast(l))
}

/// The essay's quick test, doubling the batch, in words and read against the
/// limit. The test is one-way: a step the launches pace barely slows down when
/// the batch doubles, but a step that barely slows down need not be paced by
/// launches (weights read once for the whole batch give the same signature);
/// `cause` says what makes the batch nearly free in that case, and the sentence
/// says the quick test misleads there.
pub fn doubling(new_batch: u32, ratio: f64, l: &Limit, cause: &str) -> String {
    use super::double_batch::{verdict, BatchVerdict};
    let head = format!(
        "Doubling the batch to {new_batch} costs {:+.0} % time per step",
        (ratio - 1.0) * 100.0
    );
    let test = Limit::halving(l.regime);
    let (mine, oh) = two_speedups(l.speedup(test), l.overhead_half);
    let buys = format!("{} buys {mine}×", test.words());
    let why = match (l.regime, verdict(ratio)) {
        (Regime::Overhead, BatchVerdict::OverheadBound) => format!(
            "the CPU's launches set the pace, so the step is {} and a bigger batch is nearly free",
            Regime::Overhead.label()
        ),
        (Regime::Overhead, _) => format!(
            "the added work shows, yet the launches still set the pace: {buys}, more than any other halving"
        ),
        (r, BatchVerdict::OverheadBound) => format!(
            "the essay's quick test would blame overhead, but here it misleads: {cause}, so the step is {} ({buys}, half the CPU overhead only {oh}×)",
            r.label()
        ),
        (r, BatchVerdict::Partly) => format!(
            "batching still pays, but less than at small batch; the step is {} ({buys})",
            r.label()
        ),
        (r, BatchVerdict::ScalesWithWork) => format!(
            "the time grows with the work, so batching no longer pays; the step is {} ({buys})",
            r.label()
        ),
    };
    format!("{head}: {why}.")
}

/// The regime words the page uses ("compute-bound", "memory-bound",
/// "memory-bandwidth-bound", "overhead-bound"), for tests that check no sentence
/// names a regime other than the limit.
pub const REGIME_WORDS: [(&str, Regime); 5] = [
    ("compute-bound", Regime::Compute),
    ("memory-bandwidth-bound", Regime::Memory),
    ("memory-bound", Regime::Memory),
    ("overhead-bound", Regime::Overhead),
    ("communication-bound", Regime::Communication),
];

/// The regimes a text names with [`REGIME_WORDS`].
pub fn named_regimes(text: &str) -> Vec<Regime> {
    REGIME_WORDS
        .iter()
        .filter(|(w, _)| text.contains(w))
        .map(|(_, r)| *r)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(c: f64, m: f64) -> Shares {
        Shares::three(c, m, 1.0 - c - m)
    }

    #[test]
    fn the_largest_speedup_decides() {
        // memory holds most of the time, but halving the overhead pays more
        let l = Limit::decide(1.0, shares(0.1, 0.64), |h| match h {
            Halving::Flops => 1.0,
            Halving::Bw => 1.0 / 1.02,
            Halving::Overhead => 1.0 / 1.5,
            Halving::Link => 1.0,
        });
        assert_eq!(l.regime, Regime::Overhead);
        assert_eq!(l.shares.largest(), Regime::Memory);
        let s = contrast(&l).unwrap_or_default();
        assert_eq!(
            s,
            "64.0 % of the time is memory traffic, but the fixed costs per kernel set the pace: 2× bandwidth buys 1.02×, half the CPU overhead 1.50×."
        );
        assert!(named_regimes(&s).is_empty());
        // no near-tie: the card says where the share and the limit disagree
        assert!(balance(&l).is_none());
        assert_eq!(card_sentence(&l), Some(s));
    }

    #[test]
    fn a_tie_goes_to_the_larger_share() {
        let l = Limit::decide(1.0, shares(0.2, 0.5), |h| match h {
            Halving::Flops => 1.0 / 1.300,
            Halving::Bw => 1.0 / 1.295,
            Halving::Overhead | Halving::Link => 1.0,
        });
        assert_eq!(l.regime, Regime::Memory);
        assert!(contrast(&l).is_none());
        // outside the tie, the speedup wins
        let l = Limit::decide(1.0, shares(0.2, 0.5), |h| match h {
            Halving::Flops => 1.0 / 1.4,
            Halving::Bw => 1.0 / 1.3,
            Halving::Overhead | Halving::Link => 1.0,
        });
        assert_eq!(l.regime, Regime::Compute);
    }

    #[test]
    fn speedups_never_print_alike_when_they_differ() {
        assert_eq!(two_speedups(1.004, 1.001), ("1.004".into(), "1.001".into()));
        assert_eq!(two_speedups(1.5, 1.02), ("1.50".into(), "1.02".into()));
    }

    #[test]
    fn bad_reruns_read_as_no_change() {
        assert_eq!(ratio(1.0, 0.0), 1.0);
        assert_eq!(ratio(1.0, f64::NAN), 1.0);
        assert_eq!(ratio(2.0, 1.0), 2.0);
    }

    fn limit(c: f64, m: f64, f: f64, b: f64, o: f64) -> Limit {
        Limit::decide(1.0, shares(c, m), |h| match h {
            Halving::Flops => 1.0 / f,
            Halving::Bw => 1.0 / b,
            Halving::Overhead => 1.0 / o,
            Halving::Link => 1.0,
        })
    }

    #[test]
    fn a_near_tie_names_the_two_costs() {
        // ?batch=128: 90.4 % memory traffic, yet 2× bandwidth buys 1.12×
        let l = limit(0.0, 0.904, 1.0, 1.124, 1.05);
        assert_eq!(l.regime, Regime::Memory);
        let b = balance(&l).unwrap();
        assert_eq!(
            (b.first, b.second, b.little),
            (Halving::Bw, Halving::Overhead, true)
        );
        assert_eq!(
            headline(&l, 20e-6),
            "The step is memory-bandwidth-bound, barely (CPU launches ≈ GPU time: halving either alone buys little): 20 µs per step"
        );
        let s = balance_sentence(&l).unwrap();
        assert_eq!(card_sentence(&l).as_deref(), Some(s.as_str()));
        assert!(s.starts_with("A near-tie: the CPU's launch pace and the GPU's time nearly balance, so halving either alone buys little: 2× bandwidth buys 1.12×, half the CPU overhead 1.05×, though 90.4 % of the time is memory traffic"), "{s}");
        assert!(named_regimes(&s).is_empty(), "{s}");
        // ?batch=1: overhead-bound on 1.06× against 1.01×
        let l = limit(0.0, 0.65, 1.0, 1.006, 1.057);
        let b = balance(&l).unwrap();
        assert_eq!((b.first, b.second), (Halving::Overhead, Halving::Bw));
        assert!(headline(&l, 1e-6)
            .starts_with("The step is overhead-bound, barely (CPU launches ≈ GPU time"));
        // two halvings within 5 % that both pay: about as much, not little
        let l = limit(0.5, 0.5, 1.33, 1.32, 1.0);
        let b = balance(&l).unwrap();
        assert!(!b.little);
        assert_eq!(
            b.short(),
            "arithmetic ≈ memory traffic: halving either buys about as much"
        );
    }

    #[test]
    fn a_clear_limit_is_no_tie() {
        // the default state: compute the largest share, 2× bandwidth clearly ahead
        let l = limit(0.523, 0.41, 1.066, 1.258, 1.035);
        assert!(balance(&l).is_none());
        assert_eq!(
            headline(&l, 1e-3),
            "The step is memory-bandwidth-bound: 1 ms per step"
        );
        // the largest share buys little, but one halving pays well: a contrast, no tie
        let l = limit(0.1, 0.64, 1.0, 1.02, 1.5);
        assert!(balance(&l).is_none());
        assert_eq!(suggested(0.5), 1.0 / 0.75);
        // the largest share is the limit, clearly: the card adds no sentence
        let l = limit(0.2, 0.7, 1.05, 1.5, 1.0);
        assert_eq!(l.regime, Regime::Memory);
        assert_eq!(card_sentence(&l), None);
    }
}
