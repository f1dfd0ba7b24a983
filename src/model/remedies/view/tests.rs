use crate::model::remedies::tests::{recompute, settings};
use crate::model::remedies::{advice, applied, Change, RemedyId, HELPS_FROM};
use crate::model::{analyse, verdict, Regime};
use crate::state::State;

#[test]
fn the_card_lists_every_remedy_once_by_its_verdict() {
    for s in settings().iter().step_by(11) {
        let a = advice(s);
        assert_eq!(a.items.len(), RemedyId::ALL.len());
        let mut listed: Vec<RemedyId> = [&a.helps, &a.near, &a.useless, &a.na]
            .iter()
            .flat_map(|l| l.iter().map(|o| o.id))
            .collect();
        assert_eq!(listed.len(), a.items.len(), "{s:?}");
        listed.sort_by_key(|id| id.id());
        listed.dedup();
        assert_eq!(listed.len(), a.items.len(), "{s:?}");
        assert!(a.helps.iter().all(|o| o.helps && o.speedup >= HELPS_FROM));
        assert!(a.useless.iter().all(|o| o.applicable && !o.helps));
        assert!(a.na.iter().all(|o| !o.applicable && !o.helps));
        assert!(a.near.iter().all(|o| o.applicable));
        for l in [&a.helps, &a.near, &a.useless] {
            assert!(l.windows(2).all(|w| w[0].speedup >= w[1].speedup));
        }
        assert_eq!(a.none_helps, !a.items.iter().any(|o| o.helps), "{s:?}");
    }
}

#[test]
fn each_item_is_the_model_at_the_state_its_remedy_makes() {
    for s in settings().iter().step_by(13) {
        let now = analyse(&s.shape, &s.cached()).wall_time_s / f64::from(s.shape.batch);
        for o in advice(s).items {
            assert_eq!(o.rows, o.id.essay_rows());
            if !o.applicable {
                assert_eq!(o.speedup, 1.0);
                assert!(o.effect.starts_with("not possible here: "), "{}", o.effect);
                assert_eq!(o.before_after, o.effect);
                assert_eq!(o.apply, None);
                continue;
            }
            // a remedy that changes the explorer's setting is the model there
            if let Some(t) = o.apply {
                let then = recompute(s, &Change::Setting(t));
                let x = now / then;
                assert!((o.speedup / x - 1.0).abs() < 1e-12, "{} {x}", o.speedup);
                assert_eq!(applied(s, o.id), Some(t));
            }
            assert_eq!(o.helps, verdict::helps(o.speedup), "{:?}", o.id);
            assert_eq!(o.effect.ends_with("× faster"), o.helps, "{}", o.effect);
            assert!(o.before_after.contains("per sample"), "{}", o.before_after);
            assert_eq!(o.before_after.contains("under the 5 % bar"), !o.helps);
        }
    }
}

#[test]
fn the_best_is_the_largest_and_the_headline_names_it_only_when_it_helps() {
    for s in settings().iter().step_by(9) {
        let a = advice(s);
        let applicable = a.items.iter().filter(|o| o.applicable);
        let Some(b) = &a.best else {
            assert_eq!(applicable.count(), 0);
            continue;
        };
        assert!(applicable.clone().all(|o| o.speedup <= b.speedup));
        let item = a.items.iter().find(|o| o.id.id() == b.id).unwrap();
        assert_eq!(item.speedup, b.speedup);
        assert!(
            b.text.starts_with(&format!("{} (", item.label)),
            "{}",
            b.text
        );
        let named = a.headline.contains(&format!("“{}”", item.label));
        assert_eq!(named, item.helps, "{}", a.headline);
        if !item.helps {
            assert_eq!(
                a.headline,
                "None of the 9 remedies here makes this step at least 5 % faster per sample."
            );
            assert!(a.none_helps);
        }
    }
}

#[test]
fn the_default_step_shows_fusing_as_its_best_remedy() {
    let s = State::default();
    let a = advice(&s.setting);
    let b = a.best.unwrap();
    assert_eq!(b.id, "fuse");
    assert_eq!(b.text, "Fuse the 8 pointwise ops into one kernel (1.56×)");
    assert!(
        a.headline.starts_with("Biggest win: “Fuse the 8"),
        "{}",
        a.headline
    );
    assert_eq!(a.helps.first().map(|o| o.id), Some(RemedyId::Fuse));
    // fusing it: the step it leaves has its own best remedy, and fusing again is
    // not possible
    let fused = applied(&s.setting, RemedyId::Fuse).unwrap();
    assert!(fused.shape.fused);
    let again = advice(&fused);
    let fuse = again.items.iter().find(|o| o.id == RemedyId::Fuse).unwrap();
    assert!(!fuse.applicable);
    assert!(again.na.iter().any(|o| o.id == RemedyId::Fuse));
    // the regime rows: fusing sits under overhead and memory
    assert_eq!(fuse.rows, &[Regime::Overhead, Regime::Memory]);
}
