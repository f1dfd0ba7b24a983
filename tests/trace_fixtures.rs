//! brrr's trace analyser against HTA 0.5.0 on real traces (tests/data/traces/:
//! the traces come from HolisticTraceAnalysis's tests/data, HTA's numbers were
//! computed once by `shared/tools/hta-breakdown` and stored in hta-0.5.0.json,
//! so this test needs no Python), and the `brrr-trace` CLI end to end.

// in a cfg(test) module: clippy allows unwrap in the helpers too (clippy.toml)
#[cfg(test)]
mod fixtures {
    use brrr::trace::{analyse, TraceError};
    use std::path::{Path, PathBuf};
    use std::process::Command;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traces");

    fn trace_file(name: &str) -> PathBuf {
        let dir = Path::new(DIR).join(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "gz" || e == "json"))
            .collect();
        files.sort();
        assert_eq!(files.len(), 1, "{dir:?}");
        files.remove(0)
    }

    fn run(path: &Path) -> Result<brrr::trace::Diagnosis, TraceError> {
        let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        if path.extension().is_some_and(|e| e == "gz") {
            analyse(
                std::io::BufReader::new(flate2::read::GzDecoder::new(f)),
                &mut |_| true,
            )
        } else {
            analyse(f, &mut |_| true)
        }
    }

    fn hta() -> serde_json::Map<String, serde_json::Value> {
        let text = std::fs::read_to_string(Path::new(DIR).join("hta-0.5.0.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text)
            .unwrap()
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn shares_agree_with_hta_on_every_fixture() {
        let reference = hta();
        assert!(reference.len() >= 8);
        let mut table = String::from(
            "fixture | HTA idle/compute/non-compute % | brrr idle/compute/non-compute %\n",
        );
        for (name, rows) in &reference {
            let got = run(&trace_file(name));
            let Some(rows) = rows.as_array() else {
                let error = rows["error"].as_str().unwrap_or_default();
                if error.starts_with("AssertionError") {
                    // HTA's own check failed (`non_compute_time >= 0`: its
                    // rounding left a negative sliver, h200_matmul_bf16): brrr
                    // answers, with three shares ≥ 0 that sum to 1
                    let d = got.unwrap_or_else(|e| panic!("{name}: {e}"));
                    let parts = [d.hta.idle, d.hta.compute, d.hta.noncompute];
                    assert!(parts.iter().all(|p| *p >= 0.0), "{name}: {parts:?}");
                    assert!(
                        (parts.iter().sum::<f64>() - d.hta.span).abs() < 1e-6,
                        "{name}"
                    );
                    table += &format!(
                        "{name} | HTA: {error} | {:.2} / {:.2} / {:.2}\n",
                        100.0 * d.hta.idle_share(),
                        100.0 * d.hta.compute_share(),
                        100.0 * d.hta.noncompute_share()
                    );
                    continue;
                }
                // HTA failed on it (a CPU-only trace): brrr says why
                assert_eq!(got, Err(TraceError::NoGpuEvents), "{name}: {error}");
                continue;
            };
            let d = got.unwrap_or_else(|e| panic!("{name}: {e}"));
            let r = &rows[0];
            let f = |k: &str| r[k].as_f64().unwrap();
            let span = f("kernel_time(us)");
            let (idle, compute, non) = (
                f("idle_time(us)") / span,
                f("compute_time(us)") / span,
                f("non_compute_time(us)") / span,
            );
            table += &format!(
                "{name} | {:.2} / {:.2} / {:.2} | {:.2} / {:.2} / {:.2}\n",
                100.0 * idle,
                100.0 * compute,
                100.0 * non,
                100.0 * d.hta.idle_share(),
                100.0 * d.hta.compute_share(),
                100.0 * d.hta.noncompute_share()
            );
            for (what, ours, theirs) in [
                ("idle", d.hta.idle_share(), idle),
                ("compute", d.hta.compute_share(), compute),
                ("non-compute", d.hta.noncompute_share(), non),
            ] {
                assert!(
                    (ours - theirs).abs() <= 0.01,
                    "{name} {what}: brrr {ours} vs HTA {theirs}"
                );
            }
            // beyond the 1-point tolerance: every time agrees to the microsecond
            for (what, ours, theirs) in [
                ("span", d.hta.span, span),
                ("idle", d.hta.idle, f("idle_time(us)")),
                ("compute", d.hta.compute, f("compute_time(us)")),
                ("non-compute", d.hta.noncompute, f("non_compute_time(us)")),
            ] {
                assert!(
                    (ours - theirs).abs() <= 1.0,
                    "{name} {what}: {ours} µs vs HTA {theirs} µs"
                );
            }
            assert_eq!(d.rank.unwrap_or(0), r["rank"].as_i64().unwrap(), "{name}");
            let sum = d.hta.idle_share() + d.hta.compute_share() + d.hta.noncompute_share();
            assert!((sum - 1.0).abs() < 1e-9, "{name}: {sum}");
        }
        println!("{table}");
    }

    #[test]
    fn fixture_details() {
        let d = run(&trace_file("a100_80gb")).unwrap();
        assert_eq!(d.device.as_deref(), Some("NVIDIA A100-SXM4-80GB"));
        assert_eq!(d.preset, Some("a100-80gb"));
        assert_eq!(d.regime.id(), "overhead");
        let d = run(&trace_file("ns_resolution_v100")).unwrap();
        assert_eq!(d.preset, Some("v100"));
        // conv training in fp32 on a V100: cuDNN's convolutions (scudnn, xmma,
        // dgrad/wgrad) take 63 % of kernel time, batch norm + pointwise the rest
        assert_eq!(d.regime.id(), "compute");
        assert!(d
            .classes
            .iter()
            .any(|c| c.class.id() == "matmul" && c.share > 0.5));
        let d = run(&trace_file("mi250_rocm")).unwrap();
        assert_eq!(d.preset, None);
        assert!(d.kernels > 0);
        let d = run(&trace_file("nccl")).unwrap();
        assert!(d.comm_share > 0.0);
        assert!(d.classes.iter().any(|c| c.class.id() == "communication"));
    }

    /// The `h200_*` traces (tests/data/traces/record_gpu.py, PyTorch 2.11 on an
    /// H200, 2026-11-26): each workload lands in its own regime, and the fusion
    /// estimate is checked against the compiled run measured beside it
    /// (h200-meta.json: CUDA events, unprofiled).
    #[test]
    fn h200_workloads_land_in_their_regimes() {
        let meta: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(DIR).join("h200-meta.json")).unwrap(),
        )
        .unwrap();
        let step_ms = |w: &str| meta["workloads"][w]["step_ms"].as_f64().unwrap();
        let diag = |w: &str| run(&trace_file(&format!("h200_{w}"))).unwrap();
        let remedy = |d: &brrr::trace::Diagnosis, id: &str| {
            d.remedies.iter().find(|r| r.id == id).unwrap().speedup
        };
        for (w, regime) in [
            ("chain_eager", "memory"),
            ("chain_compiled", "memory"),
            ("mlp_eager", "overhead"),
            ("mlp_graph", "overhead"),
            ("matmul_bf16", "compute"),
            ("llama8b_decode_eager", "overhead"),
        ] {
            let d = diag(w);
            assert_eq!(d.preset, Some("h200"), "{w}");
            assert_eq!(d.regime.id(), regime, "{w}");
        }
        // cuBLAS's nvjet kernels are matmuls, at a rate the H200 can reach
        let mm = diag("matmul_bf16");
        assert!(mm
            .classes
            .iter()
            .any(|c| c.class.id() == "matmul" && c.share > 0.99));
        let rate = mm.matmul_flops / (mm.matmul_time * 1e-6);
        assert!((600e12..800e12).contains(&rate), "{rate}");
        // an eager LLM decode step: GEMVs on cuBLAS's nvjet kernels, attention
        let d = diag("llama8b_decode_eager");
        for class in ["matmul", "attention", "pointwise"] {
            assert!(d.classes.iter().any(|c| c.class.id() == class), "{class}");
        }
        // fusing the eager chain: the estimate against torch.compile's measured
        // speedup (eager step ÷ compiled step), within 10 %; the host sync after
        // every step keeps the runs of two steps apart (without that rule the
        // estimate was ×8.95)
        let predicted = remedy(&diag("chain_eager"), "fuse_memory_bound");
        let measured = step_ms("chain_eager") / step_ms("chain_compiled");
        assert!(
            (predicted / measured - 1.0).abs() < 0.10,
            "{predicted} vs {measured}"
        );
        // an already fused kernel has nothing left to fuse
        assert_eq!(remedy(&diag("chain_compiled"), "fuse_memory_bound"), 1.0);
        // CUDA graphs: the remedy is an upper bound (every launch-wait gap gone);
        // the graph replay measured beside it gets part of the way
        let bound = remedy(&diag("mlp_eager"), "cuda_graphs");
        let measured = step_ms("mlp_eager") / step_ms("mlp_graph");
        assert!(measured > 2.0 && bound >= measured, "{bound} vs {measured}");
        // kernels already replayed from a CUDA graph: waiting on the graph's own
        // launch is not a gap CUDA graphs remove
        let g = diag("mlp_graph");
        assert_eq!(g.launch_wait, 0.0);
        assert_eq!(remedy(&g, "cuda_graphs"), 1.0);
        // the Triton launcher's cpu_op (HTA counts its "stream": 0) is no device
        let c = diag("chain_compiled");
        assert_eq!(
            c.per_device.iter().map(|d| d.0).collect::<Vec<_>>(),
            vec![0]
        );
    }

    fn cli() -> Command {
        Command::new(env!("CARGO_BIN_EXE_brrr-trace"))
    }

    /// tests/e2e/data/trace-cli.json (what the page's readouts are compared with,
    /// exactly) is what the CLI writes today, field for field: a model change
    /// that moves a number must regenerate it (its `how` says how).
    #[test]
    fn the_stored_cli_json_is_current() {
        fn same(stored: &serde_json::Value, now: &serde_json::Value, at: &str) {
            match stored {
                serde_json::Value::Object(m) => {
                    for (k, v) in m {
                        same(v, &now[k.as_str()], &format!("{at}.{k}"));
                    }
                }
                serde_json::Value::Array(a) => {
                    let b = now
                        .as_array()
                        .unwrap_or_else(|| panic!("{at}: not a list now"));
                    assert_eq!(a.len(), b.len(), "{at}");
                    for (i, (x, y)) in a.iter().zip(b).enumerate() {
                        same(x, y, &format!("{at}[{i}]"));
                    }
                }
                // the file names differ (the path it ran on)
                _ if at.ends_with(".file") => {}
                _ => assert_eq!(
                    stored, now,
                    "{at}: regenerate tests/e2e/data/trace-cli.json"
                ),
            }
        }
        let root = env!("CARGO_MANIFEST_DIR");
        let stored: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{root}/tests/e2e/data/trace-cli.json")).unwrap(),
        )
        .unwrap();
        let out =
            std::env::temp_dir().join(format!("brrr-trace-stored-{}.json", std::process::id()));
        let status = cli()
            .arg(trace_file("a100_80gb"))
            .arg(trace_file("alexnet"))
            .arg(trace_file("synthetic_overlap"))
            .arg("--json")
            .arg(&out)
            .output()
            .unwrap();
        assert!(status.status.success());
        let now: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        std::fs::remove_file(&out).ok();
        same(&stored["ranks"], &now["ranks"], "ranks");
    }

    #[test]
    fn cli_writes_the_json() {
        let out = std::env::temp_dir().join(format!("brrr-trace-test-{}.json", std::process::id()));
        let a = trace_file("a100_80gb");
        let b = trace_file("nccl");
        let status = cli()
            .arg(&a)
            .arg(&b)
            .arg("--json")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let stdout = String::from_utf8_lossy(&status.stdout);
        assert!(
            stdout.contains("rank 0: NVIDIA A100-SXM4-80GB (preset a100-80gb)"),
            "{stdout}"
        );
        assert!(stdout.contains("regime"), "{stdout}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        std::fs::remove_file(&out).ok();
        let ranks = v["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 2);
        let r = &ranks[0];
        for key in [
            "file",
            "rank",
            "device",
            "preset",
            "kernels",
            "span_s",
            "idle_share",
            "compute_share",
            "noncompute_share",
            "comm_share",
            "memory_share",
            "launch_wait_share",
            "short_kernel_share",
            "placed_kernels",
            "regime",
            "best_remedy",
            "best_speedup",
        ] {
            assert!(r.get(key).is_some(), "missing {key}");
        }
        assert_eq!(r["file"], a.to_string_lossy().as_ref());
        assert_eq!(r["preset"], "a100-80gb");
        assert_eq!(r["rank"], 0);
        // HTA: 705853 / 1016554 idle, raw (unrounded) fractions
        assert!((r["idle_share"].as_f64().unwrap() - 705853.0 / 1016554.0).abs() < 1e-3);
        assert!((r["span_s"].as_f64().unwrap() - 1.016554).abs() < 1e-6);
        let sum: f64 = ["idle_share", "compute_share", "noncompute_share"]
            .iter()
            .map(|k| r[*k].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-9);
        assert!(r["best_speedup"].as_f64().unwrap() >= 1.0);
        assert!(["overhead", "compute", "memory", "communication"]
            .contains(&r["regime"].as_str().unwrap()));
        assert!(ranks[1]["comm_share"].as_f64().unwrap() > 0.0);
        // beyond the readouts: the roof preset, the roofline's points, the timeline
        assert_eq!(r["roof_preset"], "a100-80gb");
        let points = r["roofline"].as_array().unwrap();
        assert!(!points.is_empty() && points.len() <= 300);
        let placed: u64 = points.iter().map(|p| p["count"].as_u64().unwrap()).sum();
        assert_eq!(placed, r["placed_kernels"].as_u64().unwrap());
        let t = &r["timeline"];
        let (a, b) = (t["start_s"].as_f64().unwrap(), t["end_s"].as_f64().unwrap());
        assert!((b - a - 1.0).abs() < 1e-9 && a >= 0.0 && b <= 1.016554 + 1e-9);
        assert!(t["lanes"].as_array().unwrap().len() >= 2);
        assert!(r["remedies"].get("matmuls_at_roof").is_some());
    }

    #[test]
    fn cli_gpu_picks_the_roof() {
        // the MI250 is no preset: --gpu mi300x places its kernels on the MI300X
        let out = std::env::temp_dir().join(format!("brrr-trace-gpu-{}.json", std::process::id()));
        let f = trace_file("mi250_rocm");
        let o = cli()
            .arg(&f)
            .arg("--gpu")
            .arg("mi300x")
            .arg("--json")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("roofline of   mi300x (--gpu)"));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        std::fs::remove_file(&out).ok();
        let r = &v["ranks"][0];
        assert_eq!(r["preset"], serde_json::Value::Null);
        assert_eq!(r["roof_preset"], "mi300x");
        assert!(r["remedies"].get("matmuls_at_roof").is_some());
        // without it: no roof, no roof remedy
        let o = cli().arg(&f).arg("--json").arg("-").output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["ranks"][0]["roof_preset"], serde_json::Value::Null);
        assert!(v["ranks"][0]["remedies"].get("matmuls_at_roof").is_none());
        // an unknown id: exit 2, one line naming the known ones
        let o = cli().arg(&f).arg("--gpu").arg("z80").output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("\"z80\"") && err.contains("h100-sxm"), "{err}");
        let o = cli().arg(&f).arg("--gpu").output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let help = cli().arg("--help").output().unwrap();
        assert!(String::from_utf8_lossy(&help.stdout).contains("a100-80gb, "));
    }

    #[test]
    fn cli_bad_input_exits_2_with_one_line() {
        let dir = std::env::temp_dir().join(format!("brrr-trace-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            ("empty.json", &b""[..], "empty"),
            ("text.json", b"hello world", "not JSON"),
            ("cut.json", br#"{"traceEvents": [{"ph": "X", "#, "truncated"),
            ("other.json", br#"{"foo": 1}"#, "traceEvents"),
            (
                "cpu.json",
                br#"{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":1}]}"#,
                "CPU-only",
            ),
            ("bad.json.gz", b"\x1f\x8b\x08\x00garbage", "read error"),
        ];
        for (name, body, says) in cases {
            let p = dir.join(name);
            std::fs::write(&p, body).unwrap();
            let o = cli().arg(&p).output().unwrap();
            assert_eq!(o.status.code(), Some(2), "{name}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
            assert!(err.contains(says), "{name}: {err}");
        }
        // a bad file among good ones: the good one is still reported, exit 2
        let good = trace_file("triton");
        let out = dir.join("out.json");
        let o = cli()
            .arg(dir.join("text.json"))
            .arg(&good)
            .arg("--json")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["ranks"].as_array().unwrap().len(), 1);
        let o = cli().arg(dir.join("missing.json")).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let o = cli().output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let o = cli().arg("--bogus").output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        std::fs::remove_dir_all(&dir).ok();
    }
}
