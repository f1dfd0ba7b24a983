//! The factory analogy's storyboard, pure and native-tested: everything the
//! animated factory (`ui::widgets::factory`) draws that depends on the state — the GPU
//! lane's kernel segments and idle gaps of one step of `report.timeline`, time
//! buckets for the stream mode, the timeline strip's rectangles, the still frame's
//! instant, the texts — and, for any instant, what the picture shows ([`Scene`]):
//! which kernel runs, whether it is long enough to show its own truck trip, how
//! busy the factory and the trucks are, how many orders wait at the desk.
//! `ui::widgets::factory` only animates the clock and paints what these functions return.

use crate::model::{units, Bound, Machine, Regime, Report, Setting};

/// One step of the model plays in this many seconds.
pub const PERIOD_S: f64 = 3.6;
/// A kernel shown for at least this long gets its own truck trip; shorter ones
/// blur into a stream of trucks.
pub const DISCRETE_MIN_S: f64 = 0.45;
/// Time buckets for the stream mode and the compressed timeline strip.
pub const BUCKETS: usize = 160;
/// Up to this many GPU segments, the strip draws each one.
pub const EXACT_MAX: usize = 200;
/// Up to this many launches, the desk row shows a tick per order.
pub const TICKS_MAX: usize = 64;

/// What the GPU lane does during a stretch of the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Compute,
    Memory,
    Idle,
}

/// A stretch of the GPU lane: one kernel, or an idle gap.
#[derive(Clone, Copy, Debug)]
pub struct Seg {
    pub start: f64,
    pub end: f64,
    pub kind: Kind,
    pub group: usize,
    /// 1-based index of this kernel within its group, of `count`.
    pub nth: u32,
    pub count: u32,
    /// Share of the kernel's time the arithmetic alone would take (0..1).
    pub c_util: f64,
    /// Share of the kernel's time the memory traffic alone would take (0..1).
    pub m_util: f64,
}

/// Time shares inside one bucket of the step.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bucket {
    pub compute: f64,
    pub memory: f64,
    pub idle: f64,
    /// Average factory utilisation (Σ overlap · c_util / length).
    pub gear: f64,
    /// Average truck utilisation (Σ overlap · m_util / length).
    pub road: f64,
}

/// A rectangle of the timeline strip in fractions of the strip.
#[derive(Clone, Copy, Debug)]
pub struct StripRect {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
    pub kind: Kind,
}

/// Everything a frame of the factory needs, built once per state change: the
/// kernel segments of one step, time buckets, the strip's rectangles and the texts.
pub struct Storyboard {
    pub wall: f64,
    pub segs: Vec<Seg>,
    pub buckets: Vec<Bucket>,
    pub strip: Vec<StripRect>,
    /// Boundaries between kernels, as fractions, when few enough to draw.
    pub seg_marks: Vec<f64>,
    pub cpu_ends: Vec<f64>,
    pub gpu_starts: Vec<f64>,
    pub cpu_end: f64,
    pub cpu_ticks: Vec<f64>,
    pub names: Vec<&'static str>,
    pub fused_ops: u32,
    pub launches: usize,
    pub still_t: f64,
    pub flops_text: String,
    pub overhead_text: String,
    pub wall_text: String,
    pub trips_text: String,
}

fn ratio(a: f64, b: f64) -> f64 {
    let v = a / b;
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn finite_pos(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// The GPU lane of one step: each kernel of `r.timeline` as a segment (its
/// group's arithmetic and memory shares of its time on `m`), idle gaps between.
fn segments(r: &Report, m: &Machine) -> Vec<Seg> {
    let utils: Vec<(f64, f64)> = r
        .groups
        .iter()
        .map(|g| {
            let t = g.time;
            let tc = g.group.flops / m.ceiling(g.group.unit);
            let tm = g.group.bytes / m.bw;
            (ratio(tc, t), ratio(tm, t))
        })
        .collect();
    let counts: Vec<u32> = r.groups.iter().map(|g| g.group.count).collect();
    let spans = &r.timeline.spans;
    let mut segs = Vec::with_capacity(spans.len() * 2 + 1);
    let mut nth = vec![0u32; r.groups.len()];
    let mut prev = 0.0f64;
    for sp in spans {
        if sp.gpu_start > prev {
            segs.push(Seg {
                start: prev,
                end: sp.gpu_start,
                kind: Kind::Idle,
                group: 0,
                nth: 0,
                count: 0,
                c_util: 0.0,
                m_util: 0.0,
            });
        }
        let n = match nth.get_mut(sp.group) {
            Some(n) => {
                *n += 1;
                *n
            }
            None => 1,
        };
        let (c_util, m_util) = utils.get(sp.group).copied().unwrap_or((0.0, 0.0));
        segs.push(Seg {
            start: sp.gpu_start,
            end: sp.gpu_end.max(sp.gpu_start),
            kind: match sp.bound {
                Bound::Compute => Kind::Compute,
                Bound::Memory => Kind::Memory,
            },
            group: sp.group,
            nth: n,
            count: counts.get(sp.group).copied().unwrap_or(1),
            c_util,
            m_util,
        });
        prev = sp.gpu_end.max(prev);
    }
    segs
}

/// [`BUCKETS`] equal stretches of a step of `wall` seconds: the shares of each
/// kind of segment in each, and the factory's and trucks' average utilisation.
fn buckets_of(segs: &[Seg], wall: f64) -> Vec<Bucket> {
    let mut buckets = vec![Bucket::default(); BUCKETS];
    if wall > 0.0 {
        let len = wall / BUCKETS as f64;
        for seg in segs {
            let b0 = ((seg.start / len) as usize).min(BUCKETS - 1);
            let b1 = ((seg.end / len) as usize).min(BUCKETS - 1);
            for (i, b) in buckets.iter_mut().enumerate().take(b1 + 1).skip(b0) {
                let lo = i as f64 * len;
                let ov = ((seg.end.min(lo + len) - seg.start.max(lo)) / len).max(0.0);
                match seg.kind {
                    Kind::Compute => b.compute += ov,
                    Kind::Memory => b.memory += ov,
                    Kind::Idle => b.idle += ov,
                }
                b.gear += ov * seg.c_util;
                b.road += ov * seg.m_util;
            }
        }
    }
    buckets
}

/// The strip's rectangles, one per segment (`frac`: seconds → fraction of the
/// step), and the boundaries between back-to-back kernels.
fn exact_strip(segs: &[Seg], frac: impl Fn(f64) -> f64) -> (Vec<StripRect>, Vec<f64>) {
    let strip = segs
        .iter()
        .map(|seg| StripRect {
            x0: frac(seg.start),
            x1: frac(seg.end),
            y0: 0.0,
            y1: 1.0,
            kind: seg.kind,
        })
        .collect();
    let mut seg_marks = Vec::new();
    for w in segs.windows(2) {
        if let [a, b] = w {
            if a.kind != Kind::Idle && b.kind != Kind::Idle {
                seg_marks.push(frac(b.start));
            }
        }
    }
    (strip, seg_marks)
}

/// Too many kernels to draw one by one: stacked shares per bucket, with runs of
/// similar buckets merged.
fn stacked_strip(buckets: &[Bucket]) -> Vec<StripRect> {
    let mut strip = Vec::new();
    let n = buckets.len() as f64;
    let mut i = 0;
    while i < buckets.len() {
        let first = buckets[i];
        let mut j = i + 1;
        while j < buckets.len() {
            let b = buckets[j];
            if (b.compute - first.compute).abs() > 0.02
                || (b.memory - first.memory).abs() > 0.02
                || (b.idle - first.idle).abs() > 0.02
            {
                break;
            }
            j += 1;
        }
        let (x0, x1) = (i as f64 / n, j as f64 / n);
        let tot = (first.compute + first.memory + first.idle).max(1e-12);
        let mut y = 0.0;
        for (share, kind) in [
            (first.compute, Kind::Compute),
            (first.memory, Kind::Memory),
            (first.idle, Kind::Idle),
        ] {
            let h = share / tot;
            if h > 0.0 {
                strip.push(StripRect {
                    x0,
                    x1,
                    y0: y,
                    y1: y + h,
                    kind,
                });
                y += h;
            }
        }
        i = j;
    }
    strip
}

/// The still frame (reduced motion): a quarter into the longest stretch of the
/// regime's kind, so the picture shows what dominates the step.
fn still_instant(segs: &[Seg], regime: Regime) -> f64 {
    let want = match regime {
        Regime::Compute => Kind::Compute,
        Regime::Memory => Kind::Memory,
        // the explorer's workloads run on one GPU
        Regime::Overhead | Regime::Communication => Kind::Idle,
    };
    let longest = |k: Option<Kind>| {
        segs.iter()
            .filter(|s| k.is_none_or(|k| s.kind == k))
            .max_by(|a, b| (a.end - a.start).total_cmp(&(b.end - b.start)))
            .copied()
    };
    longest(Some(want))
        .or_else(|| longest(None))
        .map(|s| s.start + 0.25 * (s.end - s.start))
        .unwrap_or(0.0)
}

impl Storyboard {
    pub fn build(r: &Report, s: &Setting) -> Storyboard {
        let wall = finite_pos(r.timeline.wall);
        let names: Vec<&'static str> = r.groups.iter().map(|g| g.group.name).collect();
        let segs = segments(r, &s.machine());
        let buckets = buckets_of(&segs, wall);
        let frac = |t: f64| {
            if wall > 0.0 {
                (t / wall).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let (strip, seg_marks) = if segs.len() <= EXACT_MAX {
            exact_strip(&segs, frac)
        } else {
            (stacked_strip(&buckets), Vec::new())
        };

        let spans = &r.timeline.spans;
        let cpu_ends: Vec<f64> = spans.iter().map(|s| s.cpu_end).collect();
        let gpu_starts: Vec<f64> = spans.iter().map(|s| s.gpu_start).collect();
        let cpu_end = cpu_ends.last().copied().unwrap_or(0.0);
        let cpu_ticks = if cpu_ends.len() <= TICKS_MAX {
            cpu_ends.iter().map(|t| frac(*t)).collect()
        } else {
            Vec::new()
        };
        let still_t = still_instant(&segs, r.regime);

        let launches = spans.len();
        let fused_ops = if s.shape.fused { s.shape.ops.max(1) } else { 0 };
        let trips_text = format!(
            "{} · {launches} round trip{} per step",
            units::si(s.bw, "B/s"),
            if launches == 1 { "" } else { "s" }
        );

        Storyboard {
            wall,
            segs,
            buckets,
            strip,
            seg_marks,
            cpu_ends,
            gpu_starts,
            cpu_end,
            cpu_ticks,
            names,
            fused_ops,
            launches,
            still_t,
            flops_text: units::si(s.flops, "FLOP/s"),
            overhead_text: units::si(s.overhead, "s"),
            wall_text: units::si(wall, "s"),
            trips_text,
        }
    }

    pub fn bucket_at(&self, ts: f64) -> Bucket {
        let n = self.buckets.len();
        if n == 0 || self.wall <= 0.0 {
            return Bucket {
                idle: 1.0,
                ..Bucket::default()
            };
        }
        let x = (ts / self.wall * n as f64 - 0.5).clamp(0.0, (n - 1) as f64);
        let i = (x.floor() as usize).min(n - 1);
        let j = (i + 1).min(n - 1);
        let f = x - i as f64;
        let (a, b) = (self.buckets[i], self.buckets[j]);
        let l = |p: f64, q: f64| p + (q - p) * f;
        Bucket {
            compute: l(a.compute, b.compute),
            memory: l(a.memory, b.memory),
            idle: l(a.idle, b.idle),
            gear: l(a.gear, b.gear),
            road: l(a.road, b.road),
        }
    }

    /// What the picture shows at model time `ts`.
    pub fn scene(&self, ts: f64) -> Scene {
        let idx = self
            .segs
            .partition_point(|s| s.end <= ts)
            .min(self.segs.len().saturating_sub(1));
        let seg = self.segs.get(idx).copied();
        let launched = self.cpu_ends.partition_point(|t| *t <= ts);
        let started = self.gpu_starts.partition_point(|t| *t <= ts);
        let mut sc = Scene {
            ts,
            seg,
            label: seg,
            discrete: false,
            q: 0.0,
            kind: Kind::Idle,
            util: 0.0,
            road: 0.0,
            dark: 1.0,
            launched,
            queued: launched.saturating_sub(started),
            cpu_busy: ts < self.cpu_end,
        };
        let Some(seg) = seg else { return sc };
        let len = seg.end - seg.start;
        sc.q = if len > 0.0 {
            ((ts - seg.start) / len).clamp(0.0, 1.0)
        } else {
            0.0
        };
        sc.discrete = self.wall > 0.0 && len / self.wall * PERIOD_S >= DISCRETE_MIN_S;
        if sc.discrete {
            sc.kind = seg.kind;
            sc.util = seg.c_util;
            sc.road = seg.m_util;
            sc.dark = if seg.kind == Kind::Idle { 1.0 } else { 0.0 };
        } else {
            let b = self.bucket_at(ts);
            sc.kind = if b.compute >= b.memory && b.compute >= b.idle {
                Kind::Compute
            } else if b.memory >= b.idle {
                Kind::Memory
            } else {
                Kind::Idle
            };
            if seg.kind == Kind::Idle {
                // name the kernels around the gap, not the gap
                sc.label = self
                    .segs
                    .get(idx + 1)
                    .or(self.segs.get(idx.wrapping_sub(1)))
                    .copied();
            }
            sc.util = b.gear.clamp(0.0, 1.0);
            sc.road = b.road.clamp(0.0, 1.0);
            sc.dark = b.idle.clamp(0.0, 1.0);
        }
        sc
    }

    /// "matmul", "pointwise op 3 of 8", "fused chain (8 ops)", "pointwise op ×1024".
    pub fn what(&self, sc: &Scene) -> String {
        let Some(seg) = sc.label else {
            return String::new();
        };
        let name = self.names.get(seg.group).copied().unwrap_or("kernel");
        if seg.kind == Kind::Idle && sc.discrete {
            return String::new();
        }
        if !sc.discrete && seg.count > 1 {
            format!("{name} ×{}", seg.count)
        } else if seg.count > 1 {
            format!("{name} {} of {}", seg.nth, seg.count)
        } else if self.fused_ops > 0 && name.starts_with("fused") {
            format!("{name} ({})", units::count(self.fused_ops, "op", "ops"))
        } else {
            name.to_string()
        }
    }
}

/// What the picture shows at one instant of the step ([`Storyboard::scene`]).
#[derive(Clone, Copy, Debug)]
pub struct Scene {
    pub ts: f64,
    pub seg: Option<Seg>,
    /// The kernel the headline names (in stream mode, a gap's neighbour).
    pub label: Option<Seg>,
    /// One kernel long enough to show its own truck trip.
    pub discrete: bool,
    /// Progress through `seg` (0..1).
    pub q: f64,
    pub kind: Kind,
    /// Factory utilisation (gear speed, lit windows).
    pub util: f64,
    /// Truck activity.
    pub road: f64,
    /// How dark the factory is (share of idle time).
    pub dark: f64,
    pub launched: usize,
    pub queued: usize,
    pub cpu_busy: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Workload;
    use crate::state::State;

    fn board(edit: impl FnOnce(&mut State)) -> (State, Report, Storyboard) {
        let mut s = State::default();
        edit(&mut s);
        let r = s.report();
        let b = Storyboard::build(&r, &s.setting);
        (s, r, b)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-30)
    }

    /// A short pointwise chain: two kernels of equal length, each long enough for
    /// its own truck trip.
    fn chain(ops: u32, fused: bool) -> impl FnOnce(&mut State) {
        move |s: &mut State| {
            s.setting.shape.workload = Workload::Chain;
            s.setting.shape.ops = ops;
            s.setting.shape.fused = fused;
            s.setting.overhead = 1e-8;
        }
    }

    /// Every regime, few and many kernels, fused and eager.
    fn boards() -> Vec<(State, Report, Storyboard)> {
        vec![
            board(|_| {}),
            board(|s| s.setting.shape.fused = true),
            board(|s| s.setting.overhead = 1e-3),
            board(|s| s.setting.overhead = 1e-2),
            board(chain(2, false)),
            board(chain(64, false)),
            board(chain(1024, false)),
        ]
    }

    #[test]
    fn segments_tile_the_step_in_order() {
        for (_, r, b) in boards() {
            assert!(b.wall > 0.0 && close(b.wall, r.timeline.wall));
            assert_eq!(b.segs.first().map(|s| s.start), Some(0.0));
            assert!(close(b.segs.last().map_or(0.0, |s| s.end), b.wall));
            for w in b.segs.windows(2) {
                assert!(close(w[0].end, w[1].start), "{:?} then {:?}", w[0], w[1]);
            }
            // one kernel segment per launch, numbered within its group
            let kernels: Vec<&Seg> = b.segs.iter().filter(|s| s.kind != Kind::Idle).collect();
            assert_eq!(kernels.len(), r.timeline.spans.len());
            assert_eq!(b.launches, r.timeline.spans.len());
            for k in kernels {
                assert!(k.nth >= 1 && k.nth <= k.count, "{k:?}");
                assert!((0.0..=1.0).contains(&k.c_util) && (0.0..=1.0).contains(&k.m_util));
            }
        }
    }

    #[test]
    fn buckets_hold_the_models_shares() {
        for (_, r, b) in boards() {
            assert_eq!(b.buckets.len(), BUCKETS);
            for k in &b.buckets {
                assert!((k.compute + k.memory + k.idle - 1.0).abs() < 1e-6, "{k:?}");
            }
            let n = BUCKETS as f64;
            let sum = |f: fn(&Bucket) -> f64| b.buckets.iter().map(f).sum::<f64>() / n;
            let sh = r.timeline.shares();
            assert!((sum(|k| k.compute) - sh.compute).abs() < 1e-6);
            assert!((sum(|k| k.memory) - sh.memory).abs() < 1e-6);
            assert!((sum(|k| k.idle) - sh.overhead).abs() < 1e-6);
        }
    }

    #[test]
    fn the_strip_draws_each_kernel_until_there_are_too_many() {
        let (_, _, few) = board(|_| {});
        assert!(few.segs.len() <= EXACT_MAX);
        assert_eq!(few.strip.len(), few.segs.len());
        assert!(few.strip.iter().all(|r| r.y0 == 0.0 && r.y1 == 1.0));
        // marks only between two kernels, never at a gap
        let touching = few
            .segs
            .windows(2)
            .filter(|w| w[0].kind != Kind::Idle && w[1].kind != Kind::Idle)
            .count();
        assert_eq!(few.seg_marks.len(), touching);

        let (_, _, many) = board(chain(1024, false));
        assert!(many.segs.len() > EXACT_MAX);
        assert!(many.seg_marks.is_empty());
        // stacked shares: every column is full height, the columns cover the strip
        let mut x = 0.0;
        let mut y = 0.0;
        for r in &many.strip {
            assert!(r.x0 < r.x1 && r.y0 < r.y1, "{r:?}");
            if r.y0 == 0.0 {
                assert!(close(y, 1.0) || x == 0.0, "column before {r:?} ends at {y}");
                assert!(close(r.x0, x) || x == 0.0 && r.x0 == 0.0);
                x = r.x1;
            } else {
                assert!(close(r.y0, y));
            }
            y = r.y1;
        }
        assert!(close(x, 1.0) && close(y, 1.0));
        // too many orders for a tick each
        assert!(many.cpu_ticks.is_empty());
        assert_eq!(few.cpu_ticks.len(), few.launches);
    }

    #[test]
    fn long_kernels_are_shown_one_by_one_and_named() {
        let (_, _, b) = board(chain(2, false));
        let kernels: Vec<Seg> = b
            .segs
            .iter()
            .copied()
            .filter(|s| s.kind != Kind::Idle)
            .collect();
        assert_eq!(kernels.len(), 2);
        for (i, k) in kernels.iter().enumerate() {
            let sc = b.scene((k.start + k.end) / 2.0);
            assert!(sc.discrete);
            assert_eq!(sc.kind, k.kind);
            assert!((sc.q - 0.5).abs() < 1e-9);
            assert_eq!(b.what(&sc), format!("pointwise op {} of 2", i + 1));
        }
        let (_, _, f) = board(chain(8, true));
        let sc = f.scene(f.wall / 2.0);
        assert!(sc.discrete);
        assert_eq!(f.what(&sc), "fused chain (8 ops)");
    }

    #[test]
    fn short_kernels_blur_into_a_stream() {
        let (_, _, b) = board(chain(1024, false));
        let sc = b.scene(b.wall / 2.0);
        assert!(!sc.discrete);
        assert_eq!(b.what(&sc), "pointwise op ×1024");
        // the stream's activity comes from the buckets
        assert!((0.0..=1.0).contains(&sc.util) && (0.0..=1.0).contains(&sc.road));
        assert!((sc.dark - b.bucket_at(sc.ts).idle).abs() < 1e-12);
    }

    #[test]
    fn a_gap_is_dark_and_counts_the_orders_waiting() {
        // launches much slower than the kernels: the GPU waits between them
        let (_, r, b) = board(|s| {
            s.setting.shape.workload = Workload::Chain;
            s.setting.shape.ops = 2;
            s.setting.overhead = 1e-2;
        });
        assert_eq!(r.regime, Regime::Overhead);
        let gap = b
            .segs
            .iter()
            .find(|s| s.kind == Kind::Idle)
            .copied()
            .unwrap_or_else(|| panic!("no idle gap in {:?}", b.segs));
        let sc = b.scene((gap.start + gap.end) / 2.0);
        assert!(sc.discrete);
        assert_eq!(sc.kind, Kind::Idle);
        assert_eq!(sc.dark, 1.0);
        assert_eq!(b.what(&sc), "");
        assert!(sc.cpu_busy);
        assert_eq!(
            sc.launched,
            r.timeline
                .spans
                .iter()
                .filter(|p| p.cpu_end <= sc.ts)
                .count()
        );
        assert_eq!(sc.queued, 0, "the desk is the bottleneck: nothing waits");
    }

    #[test]
    fn the_still_frame_shows_what_dominates() {
        for (_, r, b) in boards() {
            let want = match r.regime {
                Regime::Compute => Kind::Compute,
                Regime::Memory => Kind::Memory,
                Regime::Overhead | Regime::Communication => Kind::Idle,
            };
            let seg = b.scene(b.still_t).seg.map(|s| s.kind);
            assert_eq!(seg, Some(want), "{:?}", r.regime);
        }
    }

    #[test]
    fn an_empty_step_is_dark() {
        let b = Storyboard {
            wall: 0.0,
            segs: vec![],
            buckets: vec![],
            strip: vec![],
            seg_marks: vec![],
            cpu_ends: vec![],
            gpu_starts: vec![],
            cpu_end: 0.0,
            cpu_ticks: vec![],
            names: vec![],
            fused_ops: 0,
            launches: 0,
            still_t: 0.0,
            flops_text: String::new(),
            overhead_text: String::new(),
            wall_text: String::new(),
            trips_text: String::new(),
        };
        assert_eq!(b.bucket_at(1.0).idle, 1.0);
        let sc = b.scene(0.0);
        assert!(sc.seg.is_none() && sc.kind == Kind::Idle && sc.dark == 1.0);
        assert_eq!(b.what(&sc), "");
    }

    #[test]
    fn texts_describe_the_state() {
        let (s, _, b) = board(chain(2, false));
        assert_eq!(b.flops_text, units::si(s.setting.flops, "FLOP/s"));
        assert!(
            b.trips_text.ends_with("2 round trips per step"),
            "{}",
            b.trips_text
        );
        let (_, _, one) = board(chain(8, true));
        assert!(
            one.trips_text.ends_with("1 round trip per step"),
            "{}",
            one.trips_text
        );
        assert_eq!(one.fused_ops, 8);
    }
}
