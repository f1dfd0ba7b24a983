//! The factory's plan: everything that depends on the state, built once per
//! change: the kernel segments of one step, buckets and strip rectangles.

use super::*;

// ---------------------------------------------------------------------------
// The plan: everything a frame needs, rebuilt once per state change.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Compute,
    Memory,
    Idle,
}

/// A stretch of the GPU lane: one kernel, or an idle gap.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seg {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) kind: Kind,
    pub(super) group: usize,
    /// 1-based index of this kernel within its group, of `count`.
    pub(super) nth: u32,
    pub(super) count: u32,
    /// Share of the kernel's time the arithmetic alone would take (0..1).
    pub(super) c_util: f64,
    /// Share of the kernel's time the memory traffic alone would take (0..1).
    pub(super) m_util: f64,
}

/// Time shares inside one bucket of the step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Bucket {
    pub(super) compute: f64,
    pub(super) memory: f64,
    pub(super) idle: f64,
    /// Average factory utilisation (Σ overlap · c_util / length).
    pub(super) gear: f64,
    /// Average truck utilisation (Σ overlap · m_util / length).
    pub(super) road: f64,
}

/// A rectangle of the timeline strip in fractions of the strip.
#[derive(Clone, Copy, Debug)]
pub(super) struct StripRect {
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) y0: f64,
    pub(super) y1: f64,
    pub(super) kind: Kind,
}

pub(super) struct Plan {
    pub(super) wall: f64,
    pub(super) segs: Vec<Seg>,
    pub(super) buckets: Vec<Bucket>,
    pub(super) strip: Vec<StripRect>,
    /// Boundaries between kernels, as fractions, when few enough to draw.
    pub(super) seg_marks: Vec<f64>,
    pub(super) cpu_ends: Vec<f64>,
    pub(super) gpu_starts: Vec<f64>,
    pub(super) cpu_end: f64,
    pub(super) cpu_ticks: Vec<f64>,
    pub(super) names: Vec<&'static str>,
    pub(super) fused_ops: u32,
    pub(super) launches: usize,
    pub(super) still_t: f64,
    pub(super) flops_text: String,
    pub(super) overhead_text: String,
    pub(super) wall_text: String,
    pub(super) trips_text: String,
}

pub(super) fn ratio(a: f64, b: f64) -> f64 {
    let v = a / b;
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

pub(super) fn finite_pos(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

impl Plan {
    pub(super) fn build(r: &Report, s: &State) -> Plan {
        let m = s.machine();
        let wall = finite_pos(r.timeline.wall);
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
        let names: Vec<&'static str> = r.groups.iter().map(|g| g.group.name).collect();

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

        let mut buckets = vec![Bucket::default(); BUCKETS];
        if wall > 0.0 {
            let len = wall / BUCKETS as f64;
            for seg in &segs {
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

        let frac = |t: f64| {
            if wall > 0.0 {
                (t / wall).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let mut strip = Vec::new();
        let mut seg_marks = Vec::new();
        if segs.len() <= EXACT_MAX {
            for seg in &segs {
                strip.push(StripRect {
                    x0: frac(seg.start),
                    x1: frac(seg.end),
                    y0: 0.0,
                    y1: 1.0,
                    kind: seg.kind,
                });
            }
            for w in segs.windows(2) {
                if let [a, b] = w {
                    if a.kind != Kind::Idle && b.kind != Kind::Idle {
                        seg_marks.push(frac(b.start));
                    }
                }
            }
        } else {
            // Too many kernels to draw one by one: stacked shares per bucket, with
            // runs of similar buckets merged.
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
        }

        let cpu_ends: Vec<f64> = spans.iter().map(|s| s.cpu_end).collect();
        let gpu_starts: Vec<f64> = spans.iter().map(|s| s.gpu_start).collect();
        let cpu_end = cpu_ends.last().copied().unwrap_or(0.0);
        let cpu_ticks = if cpu_ends.len() <= TICKS_MAX {
            cpu_ends.iter().map(|t| frac(*t)).collect()
        } else {
            Vec::new()
        };

        // The still frame (reduced motion): a quarter into the longest stretch of
        // the regime's kind, so the picture shows what dominates the step.
        let want = match r.regime {
            Regime::Compute => Kind::Compute,
            Regime::Memory => Kind::Memory,
            Regime::Overhead => Kind::Idle,
        };
        let longest = |k: Option<Kind>| {
            segs.iter()
                .filter(|s| k.is_none_or(|k| s.kind == k))
                .max_by(|a, b| (a.end - a.start).total_cmp(&(b.end - b.start)))
                .copied()
        };
        let still_t = longest(Some(want))
            .or_else(|| longest(None))
            .map(|s| s.start + 0.25 * (s.end - s.start))
            .unwrap_or(0.0);

        let launches = spans.len();
        let fused_ops = if s.fused { s.ops.max(1) } else { 0 };
        let trips_text = format!(
            "{} · {launches} round trip{} per step",
            units::si(s.bw, "B/s"),
            if launches == 1 { "" } else { "s" }
        );

        Plan {
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

    pub(super) fn bucket_at(&self, ts: f64) -> Bucket {
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
    pub(super) fn scene(&self, ts: f64) -> Scene {
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
    pub(super) fn what(&self, sc: &Scene) -> String {
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
