//! Chart geometry, pure and native-tested: where a roofline's lines run inside its
//! axes, how a log-log box maps data to pixels, and where labels go so that they
//! never overlap. `ui::widgets::roofline` draws what these functions return; nothing here
//! knows about plotters or the DOM.
//!
//! Why the clipping lives here: plotters clamps every point of a line into the
//! plotting area one point at a time, so a line whose end lies outside the axes is
//! drawn to the clamped point, with the wrong slope (the memory roof below 10 GB/s
//! used to start pinned to the bottom-left corner, under the kernels it bounds).
//! Every line is therefore cut to the axes in data coordinates before it is drawn.

/// A point, in data or pixel coordinates.
pub type Pt = (f64, f64);

/// The roofline chart's axes: intensity (FLOP/byte) and attainable FLOP/s.
pub const ROOFLINE_X: (f64, f64) = (1e-2, 1e5);
pub const ROOFLINE_Y: (f64, f64) = (1e8, 1e17);

/// An axis-aligned box in pixels (y grows downwards); `x0 ≤ x1`, `y0 ≤ y1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// The box with top-left corner `(x, y)` and size `w × h`.
    pub fn at(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        }
    }

    pub fn w(&self) -> f64 {
        self.x1 - self.x0
    }

    pub fn h(&self) -> f64 {
        self.y1 - self.y0
    }

    /// Whether the interiors intersect (boxes that only touch do not overlap).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether `self` lies inside `outer` (edges included).
    pub fn within(&self, outer: &Rect) -> bool {
        self.x0 >= outer.x0 && self.x1 <= outer.x1 && self.y0 >= outer.y0 && self.y1 <= outer.y1
    }

    /// The box grown by `d` on every side.
    pub fn grow(&self, d: f64) -> Rect {
        Rect {
            x0: self.x0 - d,
            y0: self.y0 - d,
            x1: self.x1 + d,
            y1: self.y1 + d,
        }
    }

    /// Whether the segment `a`–`b` passes through the box (Liang–Barsky clipping).
    pub fn hits_segment(&self, a: Pt, b: Pt) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, a.0 - self.x0),
            (dx, self.x1 - a.0),
            (-dy, a.1 - self.y0),
            (dy, self.y1 - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// A log-log box: data ranges and the pixel rectangle they fill. The charts use
/// plotters' own mapping (identical up to rounding to whole pixels); this one
/// serves the tests and anything that needs the mapping without a chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogAxes {
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub px: Rect,
}

impl LogAxes {
    pub fn to_px(&self, (x, y): Pt) -> Pt {
        let f = |v: f64, (lo, hi): (f64, f64)| (v.ln() - lo.ln()) / (hi.ln() - lo.ln());
        (
            self.px.x0 + f(x, self.x) * self.px.w(),
            self.px.y1 - f(y, self.y) * self.px.h(),
        )
    }
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

fn range_ok((lo, hi): (f64, f64)) -> bool {
    positive(lo) && positive(hi) && lo < hi
}

/// The memory roof `FLOP/s = bw × intensity`, from the left of the x range up to
/// where it meets `top` (the highest ceiling; `f64::INFINITY` for none), cut to the
/// box `x × y`. Both ends lie on the line and inside the box, left end first;
/// `None` when no part of it is visible (or an input is not a positive number).
pub fn memory_roof(bw: f64, top: f64, x: (f64, f64), y: (f64, f64)) -> Option<[Pt; 2]> {
    if !positive(bw) || top.is_nan() || top <= 0.0 || !range_ok(x) || !range_ok(y) {
        return None;
    }
    let lo = x.0.max(y.0 / bw);
    let hi = x.1.min(y.1 / bw).min(top / bw);
    // `bw * (y.0 / bw)` may miss y.0 by one rounding step: clamp, not a new slope.
    let at = |i: f64| (i, (bw * i).clamp(y.0, y.1));
    (lo < hi).then(|| [at(lo), at(hi)])
}

/// A flat compute ceiling at `value` FLOP/s, from its ridge with the memory roof
/// (`value / bw`) to the right edge, cut to the box; `None` when not visible.
pub fn ceiling_line(value: f64, bw: f64, x: (f64, f64), y: (f64, f64)) -> Option<[Pt; 2]> {
    if !positive(value) || !range_ok(x) || !range_ok(y) || value < y.0 || value > y.1 {
        return None;
    }
    let start = if positive(bw) {
        (value / bw).max(x.0)
    } else {
        x.0
    };
    (start < x.1).then_some([(start, value), (x.1, value)])
}

/// What a label names, and so the line it sits beside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Along {
    /// A flat ceiling of `value` FLOP/s meeting a memory roof of `bw` B/s.
    Ceiling { value: f64, bw: f64 },
    /// A memory roof of `bw` B/s running up to the ceiling `top`.
    Roof { bw: f64, top: f64 },
}

impl Along {
    /// The line, in data coordinates, cut to the axes.
    pub fn line(&self, x: (f64, f64), y: (f64, f64)) -> Option<[Pt; 2]> {
        match *self {
            Along::Ceiling { value, bw } => ceiling_line(value, bw, x, y),
            Along::Roof { bw, top } => memory_roof(bw, top, x, y),
        }
    }
}

/// Something a label would rather not cover: a drawn point or a line (pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Obstacle {
    Box(Rect),
    Segment(Pt, Pt),
}

impl Obstacle {
    fn hit(&self, r: &Rect) -> bool {
        match *self {
            Obstacle::Box(b) => b.overlaps(r),
            Obstacle::Segment(a, b) => r.hits_segment(a, b),
        }
    }
}

/// One label to place: its size and the top-left corners it may take, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub size: (f64, f64),
    pub candidates: Vec<Pt>,
}

/// Place labels, in order, inside `bounds`, never overlapping each other (boxes
/// are kept `spacing` apart). A place is *free* when it is inside the bounds and
/// clear of the labels placed before, *clear* when it also touches no obstacle.
/// Each label takes, in this order: its first free and clear candidate; a free
/// and clear place slid vertically from its first candidate by at most two label
/// heights; its first free candidate; the nearest free slid place. `None` only
/// when nothing is free (a label wider than the bounds, or more labels than fit
/// in the height). The returned boxes are pairwise disjoint and inside `bounds`,
/// whatever the input.
pub fn place(
    specs: &[Spec],
    bounds: Rect,
    obstacles: &[Obstacle],
    spacing: f64,
) -> Vec<Option<Rect>> {
    let spacing = if spacing.is_finite() {
        spacing.max(0.0)
    } else {
        0.0
    };
    let mut placed: Vec<Rect> = Vec::with_capacity(specs.len());
    let mut out = Vec::with_capacity(specs.len());
    for s in specs {
        let r = place_one(s, bounds, obstacles, &placed, spacing);
        if let Some(r) = r {
            placed.push(r);
        }
        out.push(r);
    }
    out
}

fn place_one(
    s: &Spec,
    bounds: Rect,
    obstacles: &[Obstacle],
    placed: &[Rect],
    spacing: f64,
) -> Option<Rect> {
    let (w, h) = s.size;
    if !(positive(w) && positive(h)) {
        return None;
    }
    let free = |r: &Rect| {
        r.x0.is_finite()
            && r.y0.is_finite()
            && r.within(&bounds)
            && placed.iter().all(|p| !r.overlaps(&p.grow(spacing)))
    };
    let clear = |r: &Rect| obstacles.iter().all(|o| !o.hit(r));
    let boxes: Vec<Rect> = s
        .candidates
        .iter()
        .map(|&(x, y)| Rect::at(x, y, w, h))
        .collect();
    // Slides: the first candidate's x (moved inside), every y where the box just
    // clears a placed label or an obstacle's end, nearest to the wanted y first.
    let (want_x, want_y) = s
        .candidates
        .first()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .unwrap_or((bounds.x1 - w, bounds.y0));
    let slides: Vec<Rect> = if w > bounds.w() || h > bounds.h() {
        vec![]
    } else {
        let x = want_x.clamp(bounds.x0, bounds.x1 - w);
        let (lo, hi) = (bounds.y0, bounds.y1 - h);
        // a hair beyond each edge so rounding cannot make a touching box overlap
        let eps = 1e-6 * (1.0 + bounds.h().abs());
        let mut ys = vec![want_y.clamp(lo, hi), lo, hi];
        for p in placed {
            let g = p.grow(spacing);
            ys.extend([g.y1 + eps, g.y0 - h - eps]);
        }
        for o in obstacles {
            let (top, bottom) = match *o {
                Obstacle::Box(b) => (b.y0, b.y1),
                Obstacle::Segment(a, b) => (a.1.min(b.1), a.1.max(b.1)),
            };
            ys.extend([bottom + 1.0, top - h - 1.0]);
        }
        ys.retain(|y| (lo..=hi).contains(y));
        ys.into_iter().map(|y| Rect::at(x, y, w, h)).collect()
    };
    // the slide nearest to the wanted y among those that pass
    let nearest = |ok: &dyn Fn(&Rect) -> bool| {
        slides
            .iter()
            .filter(|r| ok(r))
            .min_by(|a, b| (a.y0 - want_y).abs().total_cmp(&(b.y0 - want_y).abs()))
            .copied()
    };
    // near: a slide that keeps the label within two heights of where it wanted to be
    let near = |r: &Rect| (r.y0 - want_y).abs() <= 2.0 * h;
    boxes
        .iter()
        .find(|r| free(r) && clear(r))
        .copied()
        .or_else(|| nearest(&|r| near(r) && free(r) && clear(r)))
        .or_else(|| boxes.iter().find(|r| free(r)).copied())
        .or_else(|| nearest(&|r| free(r)))
}

/// A roofline's labels, one per line (`Along`) with its size in pixels: beside
/// its own line, clear of the other labels, inside the plotting area `bounds`,
/// avoiding every line and the drawn points where possible. `to_px` is the
/// chart's data → pixel mapping; `dots` are the points' boxes in pixels; `scale`
/// is the pixel ratio (gaps are in CSS pixels). Returns one box per label, `None`
/// where its line is off the chart or no free place exists.
pub fn roofline_labels(
    labels: &[(Along, (f64, f64))],
    x: (f64, f64),
    y: (f64, f64),
    to_px: &dyn Fn(Pt) -> Pt,
    bounds: Rect,
    dots: &[Rect],
    scale: f64,
) -> Vec<Option<Rect>> {
    let (gap, pad) = (3.0 * scale, 6.0 * scale);
    let lines: Vec<Option<(Pt, Pt)>> = labels
        .iter()
        .map(|(along, _)| along.line(x, y).map(|[a, b]| (to_px(a), to_px(b))))
        .collect();
    let mut obstacles: Vec<Obstacle> = lines
        .iter()
        .flatten()
        .map(|&(a, b)| Obstacle::Segment(a, b))
        .collect();
    obstacles.extend(dots.iter().map(|&d| Obstacle::Box(d)));

    let mut specs = Vec::with_capacity(labels.len());
    let mut visible = Vec::with_capacity(labels.len());
    for ((along, (w, h)), line) in labels.iter().zip(&lines) {
        let Some((a, b)) = *line else {
            visible.push(false);
            continue;
        };
        let (w, h) = (*w, *h);
        let candidates = match along {
            Along::Ceiling { .. } => {
                // at the right end, then at the ridge (after it, then before it:
                // there the memory roof is below the ceiling)
                let yl = a.1;
                let (above, below) = (yl - gap - h, yl + gap);
                let right = b.0 - pad - w;
                let after = a.0 + pad;
                let before = a.0 - pad - w;
                vec![
                    (right, above),
                    (right, below),
                    (after, above),
                    (after, below),
                    (before, above),
                    (before, below),
                ]
            }
            Along::Roof { .. } => {
                // a: lower left, b: upper right (pixels, y down); below-right of the
                // line first, then above-left
                let at = |t: f64| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
                let ts = [0.25, 0.45, 0.65, 0.1, 0.85];
                let mut c: Vec<Pt> = ts
                    .iter()
                    .map(|&t| {
                        let p = at(t);
                        (p.0 + gap, p.1 + gap)
                    })
                    .collect();
                c.extend(ts.iter().map(|&t| {
                    let p = at(t);
                    (p.0 - gap - w, p.1 - gap - h)
                }));
                c
            }
        };
        specs.push(Spec {
            size: (w, h),
            candidates,
        });
        visible.push(true);
    }
    let mut placed = place(&specs, bounds, &obstacles, 2.0 * scale).into_iter();
    visible
        .into_iter()
        .map(|v| if v { placed.next().flatten() } else { None })
        .collect()
}

/// Labels beside vertical markers (the llm sweep's critical batch and its
/// out-of-memory line): each to the right of its line, at the bottom or the top
/// of the plotting area (`bottom` first when asked), else to its left; clear of
/// the data (`segments`, `dots`, pixels), of every marker line and of each
/// other; inside `bounds` ([`place`] does the rest). `markers`: the line's x in
/// pixels, the label's size, bottom first. `gap`: pixels between a label and
/// its line.
pub fn marker_labels(
    markers: &[(f64, (f64, f64), bool)],
    segments: &[[Pt; 2]],
    dots: &[Rect],
    bounds: Rect,
    gap: f64,
) -> Vec<Option<Rect>> {
    let mut obstacles: Vec<Obstacle> = segments
        .iter()
        .map(|s| Obstacle::Segment(s[0], s[1]))
        .collect();
    obstacles.extend(dots.iter().map(|d| Obstacle::Box(*d)));
    obstacles.extend(
        markers
            .iter()
            .map(|m| Obstacle::Segment((m.0, bounds.y0), (m.0, bounds.y1))),
    );
    let specs: Vec<Spec> = markers
        .iter()
        .map(|&(x, (w, h), bottom)| {
            let (top, low) = (bounds.y0 + gap, bounds.y1 - h - gap);
            let (right, left) = (x + gap, x - w - gap);
            let ys = if bottom { [low, top] } else { [top, low] };
            Spec {
                size: (w, h),
                candidates: vec![(right, ys[0]), (right, ys[1]), (left, ys[0]), (left, ys[1])],
            }
        })
        .collect();
    place(&specs, bounds, &obstacles, gap)
}

/// A generous estimate of a label's width in a system sans-serif at `px` pixels
/// (used where the real text cannot be measured, and by the tests).
pub fn text_width(text: &str, px: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | '.' | ',' | ':' | ';' | '!' | '|' | '\'' => 0.3,
            'i' | 'j' | 'l' | 'f' | 't' | 'r' | 'I' | '/' | '(' | ')' => 0.4,
            'm' | 'w' | 'M' | 'W' | '×' | '—' => 0.95,
            '0'..='9' => 0.6,
            'A'..='Z' => 0.75,
            _ => 0.62,
        })
        .sum();
    em * px
}

/// Label for a power-of-ten tick: 0.01, 1, 100, 10k, 1M, 1G, 1T, 1P.
pub fn decade_label(v: f64) -> String {
    let e = v.log10().round() as i32;
    match e {
        i32::MIN..=-3 => format!("1e{e}"),
        -2 => "0.01".into(),
        -1 => "0.1".into(),
        _ => {
            let prefixes = ["", "k", "M", "G", "T", "P", "E"];
            let idx = (e / 3) as usize;
            match prefixes.get(idx) {
                Some(p) => format!("{}{p}", 10i64.pow((e % 3) as u32)),
                None => format!("1e{e}"),
            }
        }
    }
}

/// Years on a log axis, so that the generations chart uses the log-log chart type
/// the other charts already use (a second plotters coordinate type costs ~10 KB of
/// wasm): x = 10^((year − 2015) / 5), so the decade ticks fall on 2015, 2020, 2025.
pub fn year_x(year: f64) -> f64 {
    10f64.powf((year - 2015.0) / 5.0)
}

/// The year a [`year_x`] position stands for, as an axis label ("2020").
pub fn year_label(x: f64) -> String {
    format!("{:.0}", 2015.0 + 5.0 * x.log10())
}

/// A time window `win` zoomed by `factor` (< 1 zooms in) about `centre`, kept
/// inside `[lo, hi]` and at least 1 µs wide (the trace timeline's zoom): the
/// instant under `centre` stays where it was on screen unless an edge stops it.
pub fn zoom(win: (f64, f64), factor: f64, centre: f64, lo: f64, hi: f64) -> (f64, f64) {
    let full = (hi - lo).max(1e-9);
    let factor = if factor.is_finite() && factor > 0.0 {
        factor
    } else {
        1.0
    };
    let w = ((win.1 - win.0) * factor).clamp(full.min(1e-6), full);
    let f = if win.1 > win.0 && centre.is_finite() {
        ((centre - win.0) / (win.1 - win.0)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let centre = if centre.is_finite() {
        centre
    } else {
        (win.0 + win.1) / 2.0
    };
    clamp_window(centre - f * w, w, lo, hi)
}

/// A time window moved by `by` seconds, kept inside `[lo, hi]` (its width kept).
pub fn pan(win: (f64, f64), by: f64, lo: f64, hi: f64) -> (f64, f64) {
    let by = if by.is_finite() { by } else { 0.0 };
    clamp_window(
        win.0 + by,
        (win.1 - win.0).clamp(0.0, (hi - lo).max(0.0)),
        lo,
        hi,
    )
}

fn clamp_window(start: f64, w: f64, lo: f64, hi: f64) -> (f64, f64) {
    let start = start.clamp(lo, (hi - w).max(lo));
    (start, (start + w).min(hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{analyse, hardware, Bound, Dtype};
    use crate::state::State;

    const X: (f64, f64) = ROOFLINE_X;
    const Y: (f64, f64) = ROOFLINE_Y;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    fn inside(p: Pt) -> bool {
        (X.0..=X.1).contains(&p.0) && (Y.0..=Y.1).contains(&p.1)
    }

    /// log-spaced values from `lo` to `hi`, `per` per decade
    fn sweep(lo: f64, hi: f64, per: u32) -> Vec<f64> {
        let n = ((hi / lo).log10() * f64::from(per)).round() as i32;
        (0..=n)
            .map(|k| lo * 10f64.powf(f64::from(k) / f64::from(per)))
            .collect()
    }

    #[test]
    fn memory_roof_at_1_gb_per_s_starts_where_it_enters_the_axes() {
        // The old chart started the roof at (X.0, bw·X.0) = (0.01, 1e7), below
        // the axes, and plotters pinned that end to the bottom-left corner.
        let bw = 1e9;
        let [a, b] = memory_roof(bw, 312e12, X, Y).expect("visible");
        assert!(close(a.0, 0.1) && close(a.1, 1e8), "{a:?}");
        assert!(close(b.0, X.1) && close(b.1, 1e14), "{b:?}");
        assert!(
            a.0 > X.0,
            "the roof enters through the bottom edge, not the corner"
        );
    }

    #[test]
    fn memory_roof_lies_on_its_line_inside_the_axes_for_every_bandwidth() {
        for bw in sweep(1e9, 1e15, 8) {
            for top in sweep(1e9, 1e18, 4).into_iter().chain([f64::INFINITY]) {
                let Some([a, b]) = memory_roof(bw, top, X, Y) else {
                    // invisible only when the line y = bw·x up to `top` misses the box
                    let lo = X.0.max(Y.0 / bw);
                    assert!(lo >= X.1.min(Y.1 / bw).min(top / bw), "bw {bw} top {top}");
                    continue;
                };
                for p in [a, b] {
                    assert!(inside(p), "bw {bw} top {top}: {p:?}");
                    assert!(
                        close(p.1, bw * p.0),
                        "bw {bw} top {top}: {p:?} off the line"
                    );
                    assert!(
                        p.1 <= top * (1.0 + 1e-12),
                        "bw {bw}: {p:?} above the ceiling {top}"
                    );
                }
                assert!(a.0 < b.0);
                // the visible part is all of it: it starts on the left or bottom
                // edge and ends on the right or top edge or at the ridge
                assert!(close(a.0, X.0) || close(a.1, Y.0), "{a:?}");
                assert!(
                    close(b.0, X.1) || close(b.1, Y.1) || close(b.1, top),
                    "{b:?}"
                );
            }
        }
    }

    #[test]
    fn ceilings_start_at_their_ridge_and_vanish_off_the_axes() {
        let [a, b] = ceiling_line(19.5e12, 1.555e12, X, Y).expect("visible");
        assert!(close(a.0, 19.5e12 / 1.555e12) && b.0 == X.1 && a.1 == 19.5e12);
        assert_eq!(ceiling_line(1e18, 1e12, X, Y), None);
        assert_eq!(ceiling_line(1e7, 1e12, X, Y), None);
        // ridge right of the axes: nothing of the ceiling to draw
        assert_eq!(ceiling_line(1e15, 1e9, X, Y), None);
        // ridge left of the axes: from the left edge
        assert_eq!(ceiling_line(1e10, 1e15, X, Y).map(|l| l[0].0), Some(X.0));
        assert_eq!(memory_roof(f64::NAN, 1e12, X, Y), None);
        assert_eq!(memory_roof(1e12, 0.0, X, Y), None);
    }

    /// Every kernel of the model sits on the roof the chart draws: memory-bound
    /// kernels on the memory roof's visible segment, compute-bound ones on their
    /// ceiling's — at every preset, dtype and bandwidth down to 1 GB/s.
    #[test]
    fn kernels_sit_on_the_drawn_roofs_at_every_bandwidth() {
        let mut checked = 0;
        for hw in hardware::PRESETS {
            for dtype in Dtype::ALL.into_iter().filter(|d| hw.supports(*d)) {
                for bw in sweep(1e9, 1e15, 2) {
                    for batch in [1, 256, 65536] {
                        let mut s = State::for_preset(hw);
                        s.select_dtype(dtype);
                        s.setting.bw = bw;
                        s.setting.shape.batch = batch;
                        let m = s.machine();
                        let top = m.matmul_flops.max(m.pointwise_flops);
                        for g in analyse(&s.setting.shape, &m).groups {
                            let p = (g.group.intensity(), g.achieved_flops);
                            if !inside(p) {
                                continue;
                            }
                            let line = match g.bound {
                                Bound::Memory => memory_roof(m.bw, top, X, Y),
                                Bound::Compute => ceiling_line(m.ceiling(g.group.unit), m.bw, X, Y),
                            };
                            let [a, b] = line.unwrap_or_else(|| {
                                panic!("{} {bw}: {p:?} drawn but its roof is not", hw.id)
                            });
                            assert!(
                                a.0 * (1.0 - 1e-9) <= p.0 && p.0 <= b.0 * (1.0 + 1e-9),
                                "{} {:?} bw {bw}: {} at {p:?} beside its roof {a:?}–{b:?}",
                                hw.id,
                                dtype,
                                g.group.name
                            );
                            // on its roof, or below it by exactly the kernel floor's
                            // share of its time (a kernel shorter than the floor)
                            let (roof_t, _) = g.group.roof_time(&m);
                            let on = match g.bound {
                                Bound::Memory => m.bw * p.0,
                                Bound::Compute => a.1,
                            } * (roof_t / g.time);
                            assert!(close(p.1, on), "{} bw {bw}: {p:?} not on its roof", hw.id);
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn hits_segment() {
        let r = Rect::at(0.0, 0.0, 10.0, 10.0);
        assert!(r.hits_segment((-5.0, 5.0), (15.0, 5.0)));
        assert!(r.hits_segment((5.0, 5.0), (6.0, 6.0)));
        assert!(!r.hits_segment((-5.0, 11.0), (15.0, 11.0)));
        assert!(!r.hits_segment((11.0, -5.0), (20.0, 30.0)));
        assert!(r.hits_segment((-1.0, 11.0), (11.0, -1.0)));
    }

    /// The roofline's three labels as `ui::widgets::roofline` builds them.
    fn labels_for(bw: f64, matmul: f64, pointwise: f64, px: f64) -> Vec<(Along, (f64, f64))> {
        let size = |t: String| (text_width(&t, 11.0 * px), 11.0 * px * 1.2);
        let top = matmul.max(pointwise);
        vec![
            (
                Along::Ceiling { value: matmul, bw },
                size(format!(
                    "matmul {}",
                    crate::model::units::si(matmul, "FLOP/s")
                )),
            ),
            (
                Along::Ceiling {
                    value: pointwise,
                    bw,
                },
                size(format!(
                    "pointwise {}",
                    crate::model::units::si(pointwise, "FLOP/s")
                )),
            ),
            (
                Along::Roof { bw, top },
                size(crate::model::units::si(bw, "B/s")),
            ),
        ]
    }

    /// The plotting area of a `w × h` chart (roughly what plotters leaves inside
    /// the margins and the axis-label areas).
    fn axes(w: f64, h: f64) -> LogAxes {
        LogAxes {
            x: X,
            y: Y,
            px: Rect {
                x0: 64.0,
                y0: 12.0,
                x1: w - 12.0,
                y1: h - 52.0,
            },
        }
    }

    /// Placed boxes, the labels asked for, the axes.
    type Checked = (Vec<Option<Rect>>, Vec<(Along, (f64, f64))>, LogAxes);

    fn check(bw: f64, matmul: f64, pointwise: f64, w: f64, h: f64, px: f64) -> Checked {
        let ax = axes(w * px, h * px);
        let labels = labels_for(bw, matmul, pointwise, px);
        let map = |p: Pt| ax.to_px(p);
        let out = roofline_labels(&labels, X, Y, &map, ax.px, &[], px);
        assert_eq!(out.len(), labels.len());
        for (i, (r, (along, _))) in out.iter().zip(&labels).enumerate() {
            match r {
                Some(r) => assert!(r.within(&ax.px), "label {i} outside: {r:?}"),
                None => assert!(
                    along.line(X, Y).is_none(),
                    "bw {bw} mm {matmul} pw {pointwise} {w}×{h}: label {i} dropped though its line shows"
                ),
            }
            if along.line(X, Y).is_none() {
                assert_eq!(*r, None, "label {i} for a line off the chart");
            }
        }
        let boxes: Vec<Rect> = out.iter().flatten().copied().collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(
                    !a.overlaps(b),
                    "bw {bw} mm {matmul} pw {pointwise} {w}×{h}: {a:?} overlaps {b:?}"
                );
            }
        }
        (out, labels, ax)
    }

    /// The essay's own case: fp32 on an A100, ceilings 19.5 and 9.75 TFLOP/s only
    /// 0.3 decades apart. Both labels show, apart, and cross no line.
    #[test]
    fn a100_fp32_labels_apart_and_off_the_lines() {
        let hw = hardware::preset("a100-40gb").expect("preset");
        let mut s = State::for_preset(hw);
        s.select_dtype(Dtype::Fp32);
        let m = s.machine();
        assert_eq!((m.matmul_flops, m.pointwise_flops), (19.5e12, 9.75e12));
        for (w, h, px) in [
            (900.0, 520.0, 1.0),
            (640.0, 400.0, 2.0),
            (340.0, 306.0, 3.0),
        ] {
            let (out, labels, ax) = check(m.bw, m.matmul_flops, m.pointwise_flops, w, h, px);
            assert!(out.iter().all(Option::is_some), "{w}×{h}: {out:?}");
            for r in out.iter().flatten() {
                for (along, _) in &labels {
                    let [a, b] = along.line(X, Y).expect("visible");
                    assert!(
                        !r.hits_segment(ax.to_px(a), ax.to_px(b)),
                        "{w}×{h}: label {r:?} crosses {along:?}"
                    );
                }
            }
            // the two ceiling labels: one above its line, one below (they would
            // collide if both sat above, as they used to)
            let (mm, pw) = (out[0].expect("mm"), out[1].expect("pw"));
            let y_mm = ax.to_px((1.0, m.matmul_flops)).1;
            let y_pw = ax.to_px((1.0, m.pointwise_flops)).1;
            assert!(mm.y1 <= y_mm, "matmul label above its line");
            assert!(
                pw.y0 >= y_pw || pw.y1 <= y_pw,
                "pointwise label beside its line"
            );
        }
    }

    /// At 1 GB/s the memory roof runs through the whole chart and crosses the
    /// pointwise ceiling near the right edge: its label still finds a clear place.
    #[test]
    fn labels_clear_of_the_lines_at_1_gb_per_s() {
        for (dtype, w, h, px) in [
            (Dtype::Bf16, 838.0, 520.0, 1.0),
            (Dtype::Fp32, 838.0, 520.0, 1.0),
            (Dtype::Bf16, 640.0, 400.0, 2.0),
        ] {
            let hw = hardware::preset("a100-40gb").expect("preset");
            let mut s = State::for_preset(hw);
            s.select_dtype(dtype);
            s.setting.bw = 1e9;
            let m = s.machine();
            let (out, labels, ax) = check(m.bw, m.matmul_flops, m.pointwise_flops, w, h, px);
            for (r, (along, _)) in out.iter().zip(&labels) {
                let Some(r) = r else {
                    assert!(along.line(X, Y).is_none());
                    continue;
                };
                for (other, _) in &labels {
                    if let Some([a, b]) = other.line(X, Y) {
                        assert!(
                            !r.hits_segment(ax.to_px(a), ax.to_px(b)),
                            "{dtype:?} {w}×{h}: {r:?} crosses {other:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn labels_never_overlap_over_the_controls_range() {
        let mut n = 0;
        for bw in sweep(1e9, 1e15, 3) {
            for matmul in sweep(1e9, 1e18, 3) {
                for ratio in [1.0, 0.5, 0.2, 0.062, 0.01, 2.0] {
                    for (w, h, px) in [(900.0, 520.0, 1.0), (320.0, 288.0, 2.0)] {
                        check(bw, matmul, matmul * ratio, w, h, px);
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 1000);
    }

    #[test]
    fn place_keeps_boxes_apart_even_with_one_wanted_spot() {
        let bounds = Rect::at(0.0, 0.0, 300.0, 200.0);
        let specs: Vec<Spec> = (0..6)
            .map(|_| Spec {
                size: (120.0, 14.0),
                candidates: vec![(100.0, 90.0)],
            })
            .collect();
        let out = place(&specs, bounds, &[], 2.0);
        let boxes: Vec<Rect> = out.iter().map(|r| r.expect("fits")).collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.within(&bounds));
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(&b.grow(2.0 - 1e-9)), "{a:?} {b:?}");
            }
        }
        // too many to fit: the rest are dropped, never stacked on each other
        let many: Vec<Spec> = (0..40).map(|_| specs[0].clone()).collect();
        let out = place(&many, bounds, &[], 2.0);
        let boxes: Vec<Rect> = out.iter().flatten().copied().collect();
        assert!(boxes.len() >= 10 && boxes.len() < 40, "{}", boxes.len());
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b));
            }
        }
        // wider than the chart: dropped
        let wide = Spec {
            size: (400.0, 10.0),
            candidates: vec![(0.0, 0.0)],
        };
        assert_eq!(place(&[wide], bounds, &[], 0.0), vec![None]);
    }

    #[test]
    fn place_prefers_spots_clear_of_obstacles() {
        let bounds = Rect::at(0.0, 0.0, 300.0, 200.0);
        let spec = Spec {
            size: (50.0, 10.0),
            candidates: vec![(10.0, 10.0), (10.0, 100.0)],
        };
        let line = Obstacle::Segment((0.0, 15.0), (300.0, 15.0));
        assert_eq!(
            place(std::slice::from_ref(&spec), bounds, &[line], 0.0),
            vec![Some(Rect::at(10.0, 100.0, 50.0, 10.0))]
        );
        // no candidate clear: slid just below the line it crossed
        let line2 = Obstacle::Segment((0.0, 105.0), (300.0, 105.0));
        assert_eq!(
            place(std::slice::from_ref(&spec), bounds, &[line, line2], 0.0),
            vec![Some(Rect::at(10.0, 16.0, 50.0, 10.0))]
        );
        // nothing clear within two heights: the first free candidate still shows
        let bounds = Rect::at(0.0, 5.0, 300.0, 195.0);
        let band = Obstacle::Box(Rect::at(0.0, 12.0, 300.0, 33.0));
        assert_eq!(
            place(&[spec], bounds, &[band, line2], 0.0),
            vec![Some(Rect::at(10.0, 10.0, 50.0, 10.0))]
        );
    }

    #[test]
    fn log_axes_map_corners() {
        let ax = axes(640.0, 400.0);
        let (x0, y0) = ax.to_px((X.0, Y.0));
        let (x1, y1) = ax.to_px((X.1, Y.1));
        assert!(close(x0, ax.px.x0) && close(y0, ax.px.y1));
        assert!(close(x1, ax.px.x1) && close(y1, ax.px.y0));
    }

    #[test]
    fn decade_labels() {
        assert_eq!(decade_label(1e-3), "1e-3");
        assert_eq!(decade_label(0.01), "0.01");
        assert_eq!(decade_label(0.1), "0.1");
        assert_eq!(decade_label(1.0), "1");
        assert_eq!(decade_label(100.0), "100");
        assert_eq!(decade_label(1e4), "10k");
        assert_eq!(decade_label(1e12), "1T");
        assert_eq!(decade_label(1e17), "100P");
        assert_eq!(decade_label(1e21), "1e21");
        // a tick's float noise does not change its label
        assert_eq!(decade_label(999.999_999), "1k");
    }

    #[test]
    fn year_axis_ticks_fall_on_whole_years() {
        assert_eq!(year_x(2015.0), 1.0);
        assert!((year_x(2020.0) - 10.0).abs() < 1e-12);
        assert!((year_x(2025.0) - 100.0).abs() < 1e-12);
        // plotters puts the decade ticks at 1, 10, 100
        let ticks: Vec<String> = [1.0, 10.0, 100.0].map(year_label).to_vec();
        assert_eq!(ticks, ["2015", "2020", "2025"]);
        for y in 2010..=2030 {
            assert_eq!(year_label(year_x(f64::from(y))), y.to_string());
        }
        // later years lie further right
        assert!(year_x(2017.0) < year_x(2018.0));
    }

    #[test]
    fn timeline_zoom_and_pan_stay_inside() {
        let (lo, hi) = (0.0, 1.0);
        // zoom in about the middle halves the window around it
        assert_eq!(zoom((0.0, 1.0), 0.5, 0.5, lo, hi), (0.25, 0.75));
        // about the left edge: the edge stays
        assert_eq!(zoom((0.0, 1.0), 0.5, 0.0, lo, hi), (0.0, 0.5));
        // zooming out never passes the trace
        assert_eq!(zoom((0.25, 0.75), 4.0, 0.5, lo, hi), (0.0, 1.0));
        // nor below a microsecond
        let w = zoom((0.0, 1.0), 1e-12, 0.3, lo, hi);
        assert!(((w.1 - w.0) - 1e-6).abs() < 1e-12, "{w:?}");
        // pan keeps the width and stops at the ends
        assert_eq!(pan((0.25, 0.75), 0.1, lo, hi), (0.35, 0.85));
        assert_eq!(pan((0.25, 0.75), 10.0, lo, hi), (0.5, 1.0));
        assert_eq!(pan((0.25, 0.75), -10.0, lo, hi), (0.0, 0.5));
        // bad numbers change nothing
        assert_eq!(pan((0.25, 0.75), f64::NAN, lo, hi), (0.25, 0.75));
        assert_eq!(zoom((0.25, 0.75), f64::NAN, 0.5, lo, hi), (0.25, 0.75));
    }
}
