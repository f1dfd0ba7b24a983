//! Property tests of the chart geometry (`brrr::geom`): over the controls' whole
//! range, every kernel the roofline draws sits on a drawn roof, and labels never
//! overlap, whatever the ceilings, the bandwidth, the chart's size or the input.

use brrr::geom::{self, Along, LogAxes, Obstacle, Rect, Spec, ROOFLINE_X as X, ROOFLINE_Y as Y};
use brrr::model::{units, Bound, Dtype, Workload};
use brrr::state::{limits, State};
use proptest::prelude::*;

fn log_range((lo, hi): (f64, f64)) -> impl Strategy<Value = f64> {
    (lo.log10()..=hi.log10()).prop_map(move |e| 10f64.powf(e).clamp(lo, hi))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

fn disjoint(boxes: &[Rect]) -> Result<(), TestCaseError> {
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            prop_assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Whatever the state, a kernel inside the axes lies on the line the chart
    /// draws for its bound (the memory roof up to the highest ceiling, or its
    /// unit's ceiling from its ridge), or below it by exactly the share of its
    /// time the GPU's kernel floor adds (a kernel shorter than the floor).
    #[test]
    fn kernels_sit_on_drawn_roofs(
        hw in 0..brrr::model::hardware::PRESETS.len(),
        dt in 0usize..4,
        flops in log_range(limits::FLOPS),
        bw in log_range(limits::BW),
        batch in limits::BATCH.0..=limits::BATCH.1,
        hidden in limits::HIDDEN.0..=limits::HIDDEN.1,
        mlp in any::<bool>(),
        ops in limits::OPS.0..=limits::OPS.1,
        fused in any::<bool>(),
    ) {
        let mut s = State::for_preset(&brrr::model::hardware::PRESETS[hw]);
        s.select_dtype(Dtype::ALL[dt]);
        (s.setting.flops, s.setting.bw, s.setting.shape.batch, s.setting.shape.hidden, s.setting.shape.ops, s.setting.shape.fused) = (flops, bw, batch, hidden, ops, fused);
        s.setting.shape.workload = if mlp { Workload::Mlp } else { Workload::Chain };
        // the explorer's machine: its L2 roof where the preset has one
        let m = s.cached();
        let top = m.matmul_flops.max(m.pointwise_flops);
        for g in s.report().groups {
            // the memory roof of the kernel's level; ceilings from the fastest
            let bw = m.level_bw(g.level);
            let (x, y) = (g.group.intensity(), g.achieved_flops);
            if !((X.0..=X.1).contains(&x) && (Y.0..=Y.1).contains(&y)) {
                continue;
            }
            // the roof over this intensity; above the axes the chart draws no line
            // there (a kernel under it only shows because the floor slowed it)
            let roof = match g.bound {
                Bound::Memory => (bw * x).min(top),
                Bound::Compute => m.ceiling(g.group.unit),
            };
            if roof > Y.1 {
                continue;
            }
            let line = match g.bound {
                Bound::Memory => geom::memory_roof(bw, top, X, Y),
                Bound::Compute => geom::ceiling_line(m.ceiling(g.group.unit), m.fastest_bw(), X, Y),
            };
            prop_assert!(line.is_some(), "{} at ({x}, {y}) without its roof", g.group.name);
            if let Some([a, b]) = line {
                prop_assert!(a.0 * (1.0 - 1e-9) <= x && x <= b.0 * (1.0 + 1e-9), "({x}, {y}) beside {a:?}–{b:?}");
                let (roof_t, _) = g.group.roof_time(&m);
                let on = if g.bound == Bound::Memory { bw * x } else { a.1 } * (roof_t / g.time);
                prop_assert!(close(y, on), "({x}, {y}) off its roof");
            }
        }
    }

    /// The roofline's labels (two ceilings, the roof, and a measured roof) at any
    /// values, chart size and pixel ratio: each line on the chart gets its label,
    /// inside the plot, and no two labels overlap.
    #[test]
    fn roofline_labels_never_overlap(
        bw in log_range(limits::BW),
        matmul in log_range(limits::FLOPS),
        pointwise_ratio in log_range((1e-3, 2.0)),
        measured in proptest::option::of((log_range(limits::BW), proptest::option::of(log_range(limits::FLOPS)))),
        w in 300.0f64..1300.0,
        h in 260.0f64..520.0,
        dpr in prop_oneof![Just(1.0), Just(1.5), Just(2.0), Just(3.0)],
    ) {
        let pointwise = (matmul * pointwise_ratio).max(1.0);
        let size = |t: String| (geom::text_width(&t, 11.0 * dpr), (11.0 * dpr * 1.2f64).ceil());
        let mut labels = vec![
            (Along::Ceiling { value: matmul, bw }, size(format!("matmul {}", units::si(matmul, "FLOP/s")))),
            (Along::Ceiling { value: pointwise, bw }, size(format!("pointwise {}", units::si(pointwise, "FLOP/s")))),
            (Along::Roof { bw, top: matmul.max(pointwise) }, size(units::si(bw, "B/s"))),
        ];
        if let Some((mbw, peak)) = measured {
            let along = match peak {
                Some(value) => Along::Ceiling { value, bw: mbw },
                None => Along::Roof { bw: mbw, top: f64::INFINITY },
            };
            labels.push((along, size(format!("measured: {}, {}", units::si(mbw, "B/s"), units::si(peak.unwrap_or(0.0), "FLOP/s")))));
        }
        let ax = LogAxes { x: X, y: Y, px: Rect { x0: 64.0 * dpr, y0: 12.0 * dpr, x1: (w - 12.0) * dpr, y1: (h - 52.0) * dpr } };
        let map = |p| ax.to_px(p);
        let out = geom::roofline_labels(&labels, X, Y, &map, ax.px, &[], dpr);
        prop_assert_eq!(out.len(), labels.len());
        for (r, (along, _)) in out.iter().zip(&labels) {
            let visible = along.line(X, Y).is_some();
            prop_assert_eq!(r.is_some(), visible, "{:?}: {:?}", along, r);
            if let Some(r) = r {
                prop_assert!(r.within(&ax.px), "{r:?} outside {:?}", ax.px);
            }
        }
        let boxes: Vec<Rect> = out.into_iter().flatten().collect();
        disjoint(&boxes)?;
    }

    /// `place` on arbitrary input: whatever it returns is inside the bounds and
    /// pairwise apart.
    #[test]
    fn place_never_overlaps(
        specs in proptest::collection::vec(
            ((1.0f64..200.0, 1.0f64..40.0), proptest::collection::vec((-50.0f64..450.0, -50.0f64..350.0), 0..5)),
            0..12,
        ),
        segs in proptest::collection::vec(((0.0f64..400.0, 0.0f64..300.0), (0.0f64..400.0, 0.0f64..300.0)), 0..6),
        spacing in 0.0f64..4.0,
    ) {
        let bounds = Rect::at(0.0, 0.0, 400.0, 300.0);
        let specs: Vec<Spec> = specs.into_iter().map(|(size, candidates)| Spec { size, candidates }).collect();
        let obstacles: Vec<Obstacle> = segs.into_iter().map(|(a, b)| Obstacle::Segment(a, b)).collect();
        let out = geom::place(&specs, bounds, &obstacles, spacing);
        prop_assert_eq!(out.len(), specs.len());
        let boxes: Vec<Rect> = out.iter().flatten().copied().collect();
        for (b, s) in out.iter().zip(&specs) {
            if let Some(b) = b {
                prop_assert!(b.within(&bounds));
                prop_assert!(close(b.w(), s.size.0) && close(b.h(), s.size.1));
            }
        }
        disjoint(&boxes)?;
    }

    /// The llm sweep's marker labels (the critical batch, the out-of-memory line)
    /// over a tokens/s curve at any chart size: inside the plot, apart, and clear
    /// of the curve, its dots and the marker lines whenever one of the places
    /// beside the line is.
    #[test]
    fn marker_labels_clear_the_curve(
        steps in proptest::collection::vec(0.0f64..=std::f64::consts::LOG10_2, 12),
        start in -1.0f64..4.0,
        critical in 0.0f64..4.0,
        oom in proptest::option::of(0.0f64..3.62),
        w in 300.0f64..1300.0,
        h in 160.0f64..360.0,
        dpr in prop_oneof![Just(1.0), Just(2.0)],
    ) {
        // tokens/s at batches 1, 2 … 4096: never falling, at most doubling per
        // doubling of the batch (the step never gets faster with more work)
        let mut ys = vec![start];
        for d in &steps {
            ys.push(ys[ys.len() - 1] + d);
        }
        let y = (10f64.powf(start.floor()), 10f64.powf(ys[12].ceil().max(start.floor() + 1.0)));
        let ax = LogAxes { x: (1.0, 1e4), y, px: Rect { x0: 60.0 * dpr, y0: 8.0 * dpr, x1: (w - 10.0) * dpr, y1: (h - 40.0) * dpr } };
        let pts: Vec<(f64, f64)> = ys.iter().enumerate().map(|(i, v)| ax.to_px((2f64.powi(i as i32), 10f64.powf(*v)))).collect();
        let curve: Vec<[(f64, f64); 2]> = pts.windows(2).map(|p| [p[0], p[1]]).collect();
        let r = 3.0 * dpr;
        let dots: Vec<Rect> = pts.iter().map(|&(x, y)| Rect::at(x - r, y - r, 2.0 * r, 2.0 * r)).collect();
        let size = |t: &str| (geom::text_width(t, 11.0 * dpr), (11.0 * dpr * 1.2f64).ceil());
        let mut markers = vec![(ax.to_px((10f64.powf(critical), y.0)).0, size("critical batch ≈ 295"), true)];
        if let Some(o) = oom {
            markers.push((ax.to_px((10f64.powf(o), y.0)).0, size("out of memory"), true));
        }
        let gap = 3.0 * dpr;
        let out = geom::marker_labels(&markers, &curve, &dots, ax.px, gap);
        prop_assert_eq!(out.len(), markers.len());
        let boxes: Vec<Rect> = out.iter().flatten().copied().collect();
        for b in &boxes {
            prop_assert!(b.within(&ax.px), "{b:?} outside {:?}", ax.px);
        }
        disjoint(&boxes)?;
        let lines: Vec<[(f64, f64); 2]> = markers.iter().map(|m| [(m.0, ax.px.y0), (m.0, ax.px.y1)]).collect();
        let clear = |b: &Rect| {
            curve.iter().chain(&lines).all(|s| !b.hits_segment(s[0], s[1])) && dots.iter().all(|d| !b.overlaps(d))
        };
        // the first label: clear whenever a place beside its line is
        let (x, (lw, lh), _) = markers[0];
        let places = [
            Rect::at(x + gap, ax.px.y1 - lh - gap, lw, lh),
            Rect::at(x + gap, ax.px.y0 + gap, lw, lh),
            Rect::at(x - lw - gap, ax.px.y1 - lh - gap, lw, lh),
            Rect::at(x - lw - gap, ax.px.y0 + gap, lw, lh),
        ];
        if places.iter().any(|p| p.within(&ax.px) && clear(p)) {
            let got = out[0];
            prop_assert!(got.is_some_and(|b| clear(&b)), "{got:?} on the data though one of {places:?} is clear");
        }
    }
}
