//! Properties of the trace analyser (`brrr::trace`): shares sum to 1, a trace
//! with its gaps removed has no idle time, the counterfactual warp behaves, and
//! no input — malformed, truncated, mutated — makes it panic.

#[cfg(test)]
mod props {
    use brrr::trace::classify::CostClass;
    use brrr::trace::counterfactual::{warped_span, Scale};
    use brrr::trace::shapes::OpShape;
    use brrr::trace::{analyse, parse, shapes, TraceError};
    use proptest::prelude::*;

    const NAMES: [&str; 8] = [
        "ampere_sgemm_128x64_nn",
        "void at::native::vectorized_elementwise_kernel<4>",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        "Memcpy DtoD (Device -> Device)",
        "flash_fwd_kernel",
        "void at::native::reduce_kernel<512, 1>",
        "Event Sync",
        "my_Sync_kernel",
    ];

    /// Every op name `shapes` prices, and one it does not.
    const SHAPED: [&str; 16] = [
        "aten::mm",
        "aten::addmm",
        "aten::linear",
        "aten::bmm",
        "aten::conv2d",
        "aten::convolution",
        "aten::cudnn_convolution",
        "aten::conv1d",
        "aten::scaled_dot_product_attention",
        "aten::_scaled_dot_product_flash_attention",
        "aten::add_",
        "aten::copy_",
        "aten::native_layer_norm",
        "aten::_softmax",
        "aten::max",
        "aten::embedding",
    ];

    /// (gap before, duration, stream, name) per kernel.
    fn kernels() -> impl Strategy<Value = Vec<(u32, u32, u8, usize)>> {
        prop::collection::vec((0u32..200, 0u32..300, 0u8..3, 0usize..NAMES.len()), 1..60)
    }

    /// A trace: each stream runs its kernels back to back after the given gaps;
    /// `float` writes times with a fraction (HTA's rounding then applies).
    fn trace(ks: &[(u32, u32, u8, usize)], gaps: bool, float: bool) -> String {
        let mut clock = [0.0f64; 3];
        let mut events = Vec::new();
        for (i, (gap, dur, stream, name)) in ks.iter().enumerate() {
            let s = usize::from(*stream);
            let ts = clock[s] + if gaps { f64::from(*gap) } else { 0.0 };
            let frac = if float { 0.25 } else { 0.0 };
            let dur = f64::from(*dur) + 1.0;
            clock[s] = ts + dur;
            let cat = if NAMES[*name].starts_with("Memcpy") {
                "gpu_memcpy"
            } else {
                "kernel"
            };
            events.push(format!(
                r#"{{"ph":"X","cat":"{cat}","name":"{}","pid":0,"tid":{stream},"ts":{},"dur":{},"args":{{"stream":{},"correlation":{i},"device":0}}}}"#,
                NAMES[*name],
                ts + frac,
                dur,
                7 + stream
            ));
        }
        format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))
    }

    proptest! {
        #[test]
        fn shares_sum_to_one(ks in kernels(), float in any::<bool>()) {
            let d = analyse(trace(&ks, true, float).as_bytes(), &mut |_| true).unwrap();
            let b = d.hta;
            // HTA's rounding can leave a span of 0 (one 1 µs kernel at .25 µs)
            prop_assert!(b.span >= 0.0);
            let sum = b.idle_share() + b.compute_share() + b.noncompute_share();
            prop_assert!((sum - 1.0).abs() < 1e-9 || b.span == 0.0, "{sum}");
            for s in [b.idle_share(), b.compute_share(), b.noncompute_share(), d.launch_wait_share(),
                      d.comm_share, d.memory_class_share, d.compute_class_share, d.short_kernel_share()] {
                prop_assert!((-1e-12..=1.0 + 1e-12).contains(&s), "{s}");
            }
            prop_assert!(d.launch_wait <= b.idle + 1e-9);
            let class_sum: f64 = d.classes.iter().map(|c| c.share).sum();
            // (all 0 when HTA's rounding left every kernel 0 µs long)
            prop_assert!((class_sum - 1.0).abs() < 1e-9 || d.classes.iter().all(|c| c.time == 0.0));
            for r in &d.remedies {
                prop_assert!(r.speedup >= 1.0 - 1e-12, "{r:?}");
            }
        }

        #[test]
        fn sub_microsecond_kernels(ks in prop::collection::vec((0u32..50, 0u32..3000, 0usize..NAMES.len()), 1..60)) {
            // ns-resolution times: HTA's rounding gives sub-µs kernels negative
            // durations; HTA's shares still sum to 1, brrr's own stay in [0, 1]
            let mut t = 1_000.0;
            let events: Vec<String> = ks.iter().enumerate().map(|(i, (gap, dur, name))| {
                t += f64::from(*gap) / 7.0;
                let d = f64::from(*dur) / 1000.0;
                let e = format!(
                    r#"{{"cat":"kernel","name":"{}","ts":{:.3},"dur":{:.3},"args":{{"stream":7,"correlation":{i}}}}}"#,
                    NAMES[*name], t, d
                );
                t += d;
                e
            }).collect();
            let doc = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
            let Ok(d) = analyse(doc.as_bytes(), &mut |_| true) else { return Ok(()) };
            let b = d.hta;
            if b.span > 0.0 {
                let sum = b.idle_share() + b.compute_share() + b.noncompute_share();
                prop_assert!((sum - 1.0).abs() < 1e-9, "{sum}");
            }
            for c in &d.classes {
                prop_assert!((0.0..=1.0 + 1e-12).contains(&c.share), "{c:?}");
            }
            for s in [d.comm_share, d.memory_class_share, d.compute_class_share, d.short_kernel_share(), d.short_kernel_time_share] {
                prop_assert!(s >= 0.0 && s.is_finite(), "{s}");
            }
            for r in &d.remedies {
                prop_assert!(r.speedup.is_finite() && r.speedup >= 1.0 - 1e-12, "{r:?}");
            }
        }

        #[test]
        fn no_gaps_no_idle(ks in kernels()) {
            // one stream, kernels back to back: nothing idle, the span is Σ durations
            let one: Vec<_> = ks.iter().map(|(g, d, _, n)| (*g, *d, 0u8, *n)).collect();
            let d = analyse(trace(&one, false, false).as_bytes(), &mut |_| true).unwrap();
            prop_assert_eq!(d.hta.idle, 0.0);
            let total: f64 = one.iter().map(|(_, d, _, _)| f64::from(*d) + 1.0).sum();
            prop_assert!((d.hta.span - total).abs() < 1e-6);
            // and the "no idle" remedy is worth nothing there
            let graphs = d.remedies.iter().find(|r| r.id == "no_idle").unwrap();
            prop_assert!((graphs.speedup - 1.0).abs() < 1e-9);
        }

        #[test]
        fn the_warp(iv in prop::collection::vec((0u32..1000, 0u32..200, 0usize..4), 1..40),
                    f in 0.0f64..2.0, class in 0usize..4) {
            let classes = CostClass::ALL;
            let iv: Vec<_> = iv.iter()
                .map(|(ts, d, c)| (f64::from(*ts), f64::from(*ts + *d), classes[*c % 3 + 1]))
                .collect();
            let span0 = warped_span(&iv, Scale::ONE);
            let lo = iv.iter().filter(|s| s.1 > s.0).map(|s| s.0).fold(f64::INFINITY, f64::min);
            let hi = iv.iter().filter(|s| s.1 > s.0).map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
            if hi > lo {
                prop_assert!((span0 - (hi - lo)).abs() < 1e-6);
            }
            // scaling everything by f scales the span by f
            let all = Scale { idle: f, launch_wait: f, compute: f, memory: f, communication: f };
            prop_assert!((warped_span(&iv, all) - f * span0).abs() < 1e-6);
            // faster never makes it longer, slower never shorter
            let c = classes[class];
            let s = warped_span(&iv, Scale::only(c, f));
            if f <= 1.0 { prop_assert!(s <= span0 + 1e-9); } else { prop_assert!(s >= span0 - 1e-9); }
            // no idle: the busy time (the union's length)
            let busy = brrr::trace::breakdown::covered(&brrr::trace::breakdown::merge(
                iv.iter().filter(|s| s.1 > s.0).map(|s| (s.0, s.1)).collect()));
            prop_assert!((warped_span(&iv, Scale::only(CostClass::Overhead, 0.0)) - busy).abs() < 1e-6);
        }

        #[test]
        fn mutated_traces_never_panic(ks in kernels(), edits in prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..8)) {
            let mut bytes = trace(&ks, true, true).into_bytes();
            for (at, b, op) in edits {
                if bytes.is_empty() { break; }
                let i = at % bytes.len();
                match op {
                    0 => bytes[i] = b,
                    1 => { bytes.remove(i); }
                    _ => bytes.insert(i, b),
                }
            }
            let _ = analyse(bytes.as_slice(), &mut |_| true);
        }

        #[test]
        fn shapes_never_panic_and_cost_is_finite(
            name in prop::sample::select(SHAPED.to_vec()),
            dims in prop::collection::vec(prop::collection::vec(prop_oneof![-2i64..70, Just(i64::MAX), Just(i64::MIN)], 0..5), 0..7),
            types in prop::collection::vec(prop::sample::select(vec!["float", "c10::BFloat16", "c10::Half", "Scalar", "ScalarList", "", "long int"]), 0..7),
            concrete in prop::collection::vec(prop_oneof![
                Just(String::new()),
                (-3i64..5).prop_map(|x| x.to_string()),
                prop::collection::vec(prop_oneof![-3i64..5, Just(i64::MAX), Just(i64::MIN)], 0..4)
                    .prop_map(|v| format!("[{}]", v.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))),
                prop::sample::select(vec!["True", "False", "same", "valid", "[1,", "x"]).prop_map(str::to_string),
            ], 0..10),
        ) {
            let op = OpShape { name: name.to_string(), dims, types: types.iter().map(|t| t.to_string()).collect(), concrete };
            if let Some(c) = shapes::cost(&op) {
                prop_assert!(c.flops.is_finite() && c.flops >= 0.0, "{op:?} {c:?}");
                prop_assert!(c.bytes.is_finite() && c.bytes >= 0.0, "{op:?} {c:?}");
                prop_assert_eq!(shapes::op_kind(&op.name), Some(c.kind));
            }
        }

        #[test]
        fn the_timeline_holds_its_window(ks in kernels(), float in any::<bool>()) {
            let d = analyse(trace(&ks, true, float).as_bytes(), &mut |_| true).unwrap();
            let Some(t) = d.timeline else { return Ok(()) };
            // shorter than a second: the window is the whole span
            prop_assert_eq!(t.start_s, 0.0);
            prop_assert!((t.end_s - d.hta.span * 1e-6).abs() < 1e-12);
            let mut n = 0;
            for l in &t.lanes {
                prop_assert!(l.kind == "gpu" || l.kind == "cpu");
                prop_assert!(l.spans.windows(2).all(|w| w[0][0] <= w[1][0]));
                for s in &l.spans {
                    prop_assert!(s[1] >= 0.0 && s[0] + s[1] >= t.start_s - 1e-12 && s[0] <= t.end_s + 1e-12);
                    prop_assert!((s[2] as usize) < t.classes.len() && (s[3] as usize) < t.names.len());
                    n += 1;
                }
            }
            prop_assert!(n <= brrr::trace::timeline::MAX_SPANS);
            prop_assert!(!t.merged);
        }

        #[test]
        fn arbitrary_json_never_panics(v in json_value()) {
            let doc = format!(r#"{{"traceEvents": [{v}, {{"cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {v}}}], "deviceProperties": {v}, "distributedInfo": {v}}}"#);
            match analyse(doc.as_bytes(), &mut |_| true) {
                Ok(d) => prop_assert!(d.hta.span.is_finite()),
                Err(e) => prop_assert!(!e.to_string().contains('\n')),
            }
            let _ = analyse(v.as_bytes(), &mut |_| true);
        }
    }

    /// Random JSON text: scalars of every type, arrays, objects with the keys the
    /// parser looks at.
    fn json_value() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|i| i.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
            "[a-z0-9 _#x\"\\\\]{0,8}".prop_map(|s| serde_json::Value::String(s).to_string()),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            let key = prop_oneof![
                Just("ts"),
                Just("dur"),
                Just("cat"),
                Just("name"),
                Just("args"),
                Just("stream"),
                Just("correlation"),
                Just("device"),
                Just("External id"),
                Just("Input Dims"),
                Just("Input type"),
                Just("Concrete Inputs"),
                Just("rank"),
                Just("id"),
                Just("traceEvents"),
                Just("x"),
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((key, inner), 0..6).prop_map(|kv| {
                    let body: Vec<String> =
                        kv.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", body.join(","))
                }),
            ]
        })
    }

    #[test]
    fn every_prefix_of_a_real_trace_is_an_error_not_a_panic() {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/traces/synthetic_overlap/trace.json"
        ))
        .unwrap();
        let end = text.iter().rposition(|c| !c.is_ascii_whitespace()).unwrap();
        for n in 0..=end {
            match parse(&text[..n], &mut |_| true) {
                Err(TraceError::Empty) => assert_eq!(n, 0),
                Err(TraceError::Truncated { .. }) | Err(TraceError::NotJson { .. }) => {}
                other => panic!("prefix {n}: {other:?}"),
            }
        }
        assert!(parse(&text[..], &mut |_| true).is_ok());
    }

    #[test]
    fn cancel_at_any_point() {
        let t = trace(&vec![(5, 5, 0, 0); 30_000], true, false);
        assert!(t.len() > 3 << 20);
        for stop_after in [0u64, 1, 2] {
            let mut calls = 0;
            let r = parse(t.as_bytes(), &mut |_| {
                calls += 1;
                calls <= stop_after
            });
            assert_eq!(r.err(), Some(TraceError::Cancelled), "{stop_after}");
        }
    }
}
