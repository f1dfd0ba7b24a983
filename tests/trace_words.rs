//! The trace widget's words and roofline on the stored traces
//! (tests/data/traces/): what the page shows of a rank is computed natively
//! from the row the worker posts (`trace::words`, `trace::roof`), so it is
//! checked here against the row's own numbers.

#[cfg(test)]
mod words {
    use brrr::model::achievable::Roof;
    use brrr::model::units;
    use brrr::trace::report::{row, Row};
    use brrr::trace::{analyse, roof, words};

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traces");

    /// Every stored trace that analyses, as the row the page reads.
    fn rows() -> Vec<Row> {
        let mut dirs: Vec<_> = std::fs::read_dir(DIR)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        let mut out = Vec::new();
        for dir in dirs {
            for f in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                if !(name.ends_with(".json.gz") || name.ends_with(".json")) {
                    continue;
                }
                let file = std::io::BufReader::new(std::fs::File::open(&f).unwrap());
                let d = if name.ends_with(".gz") {
                    analyse(
                        std::io::BufReader::new(flate2::read::GzDecoder::new(file)),
                        &mut |_| true,
                    )
                } else {
                    analyse(file, &mut |_| true)
                };
                if let Ok(d) = d {
                    out.push(row(&name, &d));
                }
            }
        }
        assert!(out.len() >= 20, "{} traces", out.len());
        out
    }

    /// The sentence beside HTA's "compute" names the cost whose halving saves
    /// most on this rank, with that saving, and no other; a replayed run is
    /// told CUDA graphs are not offered.
    #[test]
    fn the_regime_sentence_names_the_largest_halving() {
        let rows = rows();
        assert!(rows.iter().any(|r| r.graph_replay));
        for r in &rows {
            let (best, saves) = r
                .halving_saves
                .iter()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .unwrap();
            assert_eq!(&r.regime, best, "{}", r.file);
            let s = words::regime_sentence(r);
            let phrase = match best.as_str() {
                "overhead" => "idle",
                "compute" => "compute-bound kernels'",
                "memory" => "memory-bound kernels'",
                _ => "communication",
            };
            let said = format!(
                "halving each cost, {phrase} time saves most ({} of the span)",
                words::pc(Some(*saves))
            );
            assert!(s.contains(&said), "{}: {s}", r.file);
            assert_eq!(
                s.contains("so CUDA graphs are not offered"),
                r.graph_replay,
                "{}",
                r.file
            );
        }
    }

    /// Each remedy reads as helping exactly when its speedup passes the
    /// page's bar, and the best remedy (the readout) is one that does or the
    /// largest there is.
    #[test]
    fn each_remedy_reads_as_its_speedup_says() {
        for r in rows() {
            for m in &r.remedy_list {
                let w = words::remedy_words(&r, m);
                assert_eq!(
                    w.helps,
                    brrr::model::verdict::helps(m.speedup),
                    "{}",
                    r.file
                );
                let x = units::sig3(m.speedup);
                assert!(
                    w.effect.starts_with(&format!("{x}×")),
                    "{}: {}",
                    r.file,
                    w.effect
                );
            }
            assert_eq!(
                words::profiled_note(&r).is_some(),
                words::unprofiled_step(&r).is_some()
            );
        }
    }

    /// The roofline is drawn where the rank has a roof preset, one point per
    /// placed pair with something counted, and at most two lines of words.
    #[test]
    fn the_roofline_is_the_rows_placed_kernels() {
        let rows = rows();
        assert!(rows
            .iter()
            .any(|r| r.roof_preset.is_some() && !r.roofline.is_empty()));
        for r in &rows {
            for roof in Roof::ALL {
                let Some(v) = roof::view(r, roof) else {
                    assert!(r.roof_preset.is_none(), "{}", r.file);
                    continue;
                };
                assert_eq!(Some(v.hw.id), r.roof_preset.as_deref());
                let counted = r
                    .roofline
                    .iter()
                    .filter(|p| p.flops > 0.0 && p.bytes > 0.0 && p.time_s > 0.0 && p.count >= 1)
                    .count();
                assert_eq!(v.points.len(), counted, "{}", r.file);
                assert!(v.summary.len() <= 2, "{}", r.file);
                assert!(v
                    .label
                    .contains(&units::count(counted as u32, "point", "points")));
                for p in &v.points {
                    assert!(
                        p.intensity > 0.0 && p.flops > 0.0 && p.time > 0.0,
                        "{}",
                        p.name
                    );
                }
            }
            let u = words::unplaced(r);
            assert_eq!(u.starts_with("No roofline"), r.roof_preset.is_none(), "{u}");
        }
    }
}
