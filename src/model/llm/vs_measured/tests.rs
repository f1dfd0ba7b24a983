use super::*;

fn all() -> (Vec<Job>, VsMeasured) {
    let jobs = jobs();
    let mut runs = Runs::default();
    for j in &jobs {
        runs.run(*j);
    }
    (jobs, view(&runs))
}

#[test]
fn every_row_is_run_once_in_the_tables_order() {
    let (jobs, v) = all();
    assert_eq!(jobs.len(), v.rows.len() + v.h100.len());
    assert_eq!((v.rows.len(), v.h100.len()), (24, 2));
    // one GPU first, then tensor parallel
    let first_tp = v.rows.iter().position(|r| r.gpus > 1).unwrap();
    assert!(v.rows[first_tp..].iter().all(|r| r.gpus > 1));
    let mut ids: Vec<&str> = v.rows.iter().map(|r| r.id.as_str()).collect();
    ids.extend(v.h100.iter().map(|r| r.id.as_str()));
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids are unique");
    assert!(ids.contains(&"llama-2-7b-bf16-compiled"), "{ids:?}");
    // nothing run yet: empty tables, no error claimed
    let none = view(&Runs::default());
    assert!(none.rows.is_empty() && none.max_error == 0.0 && none.worst_tp.is_empty());
}

#[test]
fn each_error_is_the_model_against_the_published_figure() {
    let (_, v) = all();
    for r in &v.rows {
        assert!(
            (r.measured * (1.0 + r.error) / r.modelled - 1.0).abs() < 1e-12,
            "{}",
            r.id
        );
        assert_eq!(r.error > 0.0, r.modelled > r.measured, "{}", r.id);
        assert_eq!(r.id.ends_with("eager"), !r.compiled, "{}", r.id);
    }
    for r in &v.h100 {
        // in tokens per second: a model step shorter than measured is fast
        assert_eq!(r.error > 0.0, r.modelled_s < r.measured_s, "{}", r.id);
    }
}

#[test]
fn the_readouts_are_the_largest_errors_their_tables_show() {
    let (jobs, v) = all();
    let readme: Vec<f64> = jobs
        .iter()
        .filter_map(|j| match j {
            Job::Row(p) => Some(p),
            Job::Itl(_) => None,
        })
        .zip(&v.rows)
        .filter(|(p, _)| p.readme && p.gpus == 1)
        .map(|(_, r)| r.error.abs())
        .collect();
    assert!(!readme.is_empty());
    assert!(readme.iter().all(|e| *e <= v.max_error));
    assert!(readme.contains(&v.max_error));
    assert!(v.max_error < 0.2, "{}", v.max_error);
    let tp: Vec<f64> = v
        .rows
        .iter()
        .filter(|r| r.gpus > 1)
        .map(|r| r.error.abs())
        .chain(v.h100.iter().map(|r| r.error.abs()))
        .collect();
    assert!(tp.iter().all(|e| *e <= v.tp_max_error));
    assert!(tp.contains(&v.tp_max_error));
    // the named worst tensor-parallel row is the one furthest off
    let worst = v
        .rows
        .iter()
        .filter(|r| r.gpus > 1)
        .max_by(|a, b| a.error.abs().total_cmp(&b.error.abs()))
        .unwrap();
    let named = format!(" ({} {} on {} GPUs", worst.model, worst.wdtype, worst.gpus);
    assert!(v.worst_tp.starts_with(&named), "{} / {named}", v.worst_tp);
}

#[test]
fn the_notes_say_which_way_the_model_misses() {
    let (_, v) = all();
    let eager = v.rows.iter().find(|r| !r.compiled).unwrap();
    let side = if eager.error > 0.0 {
        "faster"
    } else {
        "slower"
    };
    assert!(
        v.eager_note.contains(&format!(" % {side} than measured")),
        "{}",
        v.eager_note
    );
    assert!(v.eager_note.contains(eager.regime.1), "{}", v.eager_note);
    // the model's line rate is above what NCCL reaches: optimistic, by a positive margin
    let optimistic = parallel::model_h100_ring_busbw() > parallel::NCCL_H100_RING_BUSBW;
    assert!(optimistic);
    let (head, _) = v.link_note.split_once(" % optimistic").unwrap();
    let pct: f64 = head.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(pct > 0.0, "{}", v.link_note);
}
