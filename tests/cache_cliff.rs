//! The cache sweep's plateau finder (`gpu::cliff`) on the stored gpu-benches curves
//! (tests/data/l2-cache.json: H200, H100 PCIe, A100 80GB, L40; working set →
//! bandwidth of a read kernel): it recovers each GPU's L2 size within 20 % of the
//! vendor's figure in that file, and the plateaus the file's own summary reads off
//! the curve.

// in a cfg(test) module: clippy allows unwrap there (clippy.toml)
#[cfg(test)]
mod stored {
    use brrr::gpu::cliff;
    use brrr::json::{self, Json};

    fn data() -> Json {
        let text = std::fs::read_to_string("tests/data/l2-cache.json").unwrap();
        json::parse(&text).unwrap()
    }

    fn curve(m: &Json) -> Vec<(f64, f64)> {
        m.get("curve")
            .and_then(Json::as_arr)
            .unwrap()
            .iter()
            .map(|p| {
                let kib = p.get("working_set_kib").and_then(Json::as_f64).unwrap();
                let gbs = p.get("gb_s").and_then(Json::as_f64).unwrap();
                (kib * 1024.0, gbs * 1e9)
            })
            .collect()
    }

    fn summary(m: &Json, key: &str) -> f64 {
        m.get("summary_derived_here")
            .and_then(|s| s.get(key))
            .and_then(Json::as_f64)
            .unwrap()
    }

    #[test]
    fn the_finder_recovers_each_stored_gpus_l2_size() {
        let d = data();
        let vendor = d.get("vendor_l2").and_then(Json::as_arr).unwrap();
        let measured = d.get("measured").and_then(Json::as_arr).unwrap();
        let mut checked = 0;
        for m in measured {
            let preset = m.get("preset").and_then(Json::as_str).unwrap();
            let c = cliff::find(&curve(m)).unwrap();
            let at = c
                .cache_bytes
                .unwrap_or_else(|| panic!("{preset}: no cliff {c:?}"));
            // the plateaus agree with the file's own reading of the curve
            let l2 = summary(m, "l2_plateau_gb_s_median") * 1e9;
            let hbm = summary(m, "beyond_l2_gb_s_median_200mb_up") * 1e9;
            assert!(
                (c.cache_bw / l2 - 1.0).abs() < 0.1,
                "{preset}: {} vs {l2}",
                c.cache_bw
            );
            let mem = c.mem_bw.unwrap();
            assert!((mem / hbm - 1.0).abs() < 0.1, "{preset}: {mem} vs {hbm}");
            // and the cliff lies where the curve falls
            let last = summary(m, "last_size_within_10pct_of_plateau_mb") * 1e6;
            assert!(at > last, "{preset}: {at} ≤ {last}");
            let size = vendor
                .iter()
                .find(|v| v.get("preset").and_then(Json::as_str) == Some(preset))
                .and_then(|v| v.get("l2_mb"))
                .and_then(Json::as_f64);
            if let Some(mb) = size {
                let vendor_bytes = mb * 1e6;
                assert!(
                    (at / vendor_bytes - 1.0).abs() <= 0.2,
                    "{preset}: cliff at {:.1} MB, vendor {mb} MB",
                    at / 1e6
                );
                checked += 1;
            }
            eprintln!(
                "{preset}: {}",
                cliff::words(&c, m.get("gpu").and_then(Json::as_str).unwrap(), false)
            );
        }
        // H100 PCIe and A100 80GB have a vendor size in the file (H200's is unknown)
        assert_eq!(checked, 2);
    }

    #[test]
    fn the_h200_words_read_as_the_issue_quotes_them() {
        let d = data();
        let m = d
            .get("measured")
            .and_then(Json::as_arr)
            .unwrap()
            .iter()
            .find(|m| m.get("preset").and_then(Json::as_str) == Some("h200"))
            .unwrap();
        let c = cliff::find(&curve(m)).unwrap();
        let w = cliff::words(&c, "NVIDIA H200", false);
        // ~10 TB/s up to ~50 MB, then 3.89 TB/s
        assert!(w.starts_with("About 9."), "{w}");
        assert!(w.contains("then 3.89 TB/s"), "{w}");
        let at = c.cache_bytes.unwrap();
        assert!(at > 44e6 && at < 60e6, "{at}");
    }
}
