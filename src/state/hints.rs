//! The help's "Try this" hints. Each is a change to the state plus a sentence that
//! says what the model predicts for it, computed from the model for the current
//! state (never a fixed claim); the page shows the sentence beside a button that
//! makes the change, so the claim can be checked on the spot (and is, in tests).

use crate::model::achievable::Roof;
use crate::model::remedies::{self, RemedyId};
use crate::model::setting::limits;
use crate::model::{hardware, microbench, units, Dtype, Report, Workload};
use crate::state::data::State;

/// One hint: stable id (`data-hint`), its sentence, and the state it sets up.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    pub id: &'static str,
    pub text: String,
    pub target: State,
}

/// The essay's microbenchmark setting: an A100 in fp32 with datasheet roofs, a
/// fused chain on 2^28 elements (batch 65 536 × hidden 4 096).
pub fn essay_setting(from: &State, ops: u32) -> State {
    let mut t = from.clone();
    t.select_preset(hardware::default_preset());
    t.select_dtype(Dtype::Fp32);
    let sh = &mut t.setting.shape;
    sh.workload = Workload::Chain;
    sh.batch = limits::BATCH.1;
    sh.hidden = 4096;
    sh.fused = true;
    sh.ops = ops;
    t.setting.roof = Roof::Datasheet; // the essay's idealisation
    t
}

fn shares(r: &Report) -> String {
    format!(
        "{} compute, {} memory, {} overhead",
        units::percent(r.shares.compute),
        units::percent(r.shares.memory),
        units::percent(r.shares.overhead)
    )
}

/// The longest kernel group of a step and the roof it sits on ("the matmul (on the
/// memory roof)"): a kernel's roof, not the step's regime.
fn longest(r: &Report) -> String {
    r.groups
        .iter()
        .max_by(|a, b| {
            (a.time * f64::from(a.group.count)).total_cmp(&(b.time * f64::from(b.group.count)))
        })
        .map(|g| format!("the {} (on the {} roof)", g.group.name, g.bound.id()))
        .unwrap_or_default()
}

/// What the step's limit rests on: "half the CPU overhead alone buys 1.50×".
fn limit_words(r: &Report) -> String {
    let h = crate::model::limit::Limit::halving(r.regime);
    format!(
        "{} alone buys {}×",
        h.words(),
        units::sig3(r.limit.speedup(h))
    )
}

pub fn hints(s: &State) -> Vec<Hint> {
    let mut out = Vec::with_capacity(4);

    // 1. The essay's crossover, on the essay's machine.
    let one = essay_setting(s, 1);
    let m = one.machine();
    let cross = microbench::crossover_repeat(&m, m.elem_bytes);
    out.push(Hint {
        id: "essay-crossover",
        text: format!(
            "The essay's setting (A100, fp32, pointwise chain only, 2^28 elements, fused): the model \
             says memory-bound up to about {} ops and compute-bound beyond; at 1 op the step attains {}.",
            units::sig3(cross),
            units::si(one.report().achieved_flops, "FLOP/s")
        ),
        target: one,
    });

    // 2. Batch 1, on the current state.
    let mut b1 = s.clone();
    b1.setting.shape.batch = 1;
    let r1 = b1.report();
    let waits = if r1.shares.overhead >= 0.5 {
        ": the GPU waits on the CPU most of the time"
    } else {
        ""
    };
    out.push(Hint {
        id: "batch-1",
        text: format!(
            "Set the batch to 1: the step becomes {}{} ({}; time: {}); its longest kernel is {}.",
            r1.regime.label(),
            waits,
            limit_words(&r1),
            shares(&r1),
            longest(&r1)
        ),
        target: b1,
    });

    // 3. Flip fusion.
    let mut f = s.clone();
    f.setting.shape.fused = !s.setting.shape.fused;
    let (w0, w1) = (s.report().wall_time_s, f.report().wall_time_s);
    let verb = if f.setting.shape.fused {
        "Tick"
    } else {
        "Untick"
    };
    let change = if (w0 / w1 - 1.0).abs() < 0.005 {
        "the step time does not change".to_string()
    } else if w1 < w0 {
        format!("{}× faster", units::sig3(w0 / w1))
    } else {
        format!("{}× slower", units::sig3(w1 / w0))
    };
    out.push(Hint {
        id: "fuse",
        text: format!(
            "{verb} “fuse”: the step goes from {} to {}, {change}.",
            units::si(w0, "s"),
            units::si(w1, "s")
        ),
        target: f,
    });

    // 4. Double the peak FLOP/s: the flops remedy, explained by the shares.
    let outs = remedies::evaluate(&s.setting);
    if let Some(Ok(e)) = outs
        .iter()
        .find(|o| o.id == RemedyId::Flops)
        .map(|o| o.effect.as_ref())
    {
        if let remedies::Change::Setting(t) = e.change {
            let mut d = s.clone();
            d.set_setting(&t);
            let (a, b) = (
                units::si(s.report().wall_time_s, "s"),
                units::si(d.report().wall_time_s, "s"),
            );
            let why = remedies::why_more_flops(s.report().shares, e.speedup());
            out.push(Hint {
                id: "double-flops",
                text: if a == b {
                    format!("Double the peak FLOP/s: the step stays close to {a} — {why}")
                } else {
                    format!(
                        "Double the peak FLOP/s: {a} → {b} per step, {}× — {why}",
                        units::sig3(e.speedup())
                    )
                },
                target: d,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Regime;

    #[test]
    fn the_essay_hint_holds_at_32_and_64_ops() {
        let s = State::default();
        let h = &hints(&s)[0];
        assert!(h.text.contains("about 50.2 ops"), "{}", h.text);
        assert_eq!(essay_setting(&s, 32).report().regime, Regime::Memory);
        assert_eq!(essay_setting(&s, 64).report().regime, Regime::Compute);
        // the essay's ~0.19 TFLOP/s
        assert!(h.text.contains("attains 194 GFLOP/s"), "{}", h.text);
    }

    #[test]
    fn the_batch_hint_says_what_batch_1_does() {
        // the default MLP at batch 1: loading W is most of the GPU's time, but the
        // launches set the pace (halving them pays more than 2× bandwidth)
        let s = State::default();
        let h = hints(&s).into_iter().find(|h| h.id == "batch-1").unwrap();
        assert_eq!(h.target.setting.shape.batch, 1);
        let r = h.target.report();
        assert!(h.text.contains(r.regime.label()), "{}", h.text);
        assert_eq!(r.regime, Regime::Overhead);
        assert!(r.limit.overhead_half > r.limit.bw2, "{:?}", r.limit);
        assert!(
            h.text.contains("half the CPU overhead alone buys"),
            "{}",
            h.text
        );
        assert!(
            h.text.contains("the matmul (on the memory roof)"),
            "{}",
            h.text
        );
        assert_eq!(
            crate::model::limit::named_regimes(&h.text),
            vec![Regime::Overhead],
            "{}",
            h.text
        );
        // the chain at batch 1: overhead-bound, and it says so
        let mut c = State::default();
        c.setting.shape.workload = Workload::Chain;
        let h = hints(&c).into_iter().find(|h| h.id == "batch-1").unwrap();
        assert_eq!(h.target.report().regime, Regime::Overhead);
        assert!(h.text.contains("waits on the CPU"), "{}", h.text);
    }

    #[test]
    fn the_fuse_and_flops_hints_quote_the_model() {
        let s = State::default();
        let hs = hints(&s);
        let fuse = hs.iter().find(|h| h.id == "fuse").unwrap();
        assert!(fuse.target.setting.shape.fused && fuse.text.starts_with("Tick"));
        assert!(fuse.text.contains("1.56× faster"), "{}", fuse.text);
        let d = hs.iter().find(|h| h.id == "double-flops").unwrap();
        assert_eq!(d.target.setting.flops, 2.0 * s.setting.flops);
        // one op: fusing changes nothing, and the hint says so
        let mut one = State::default();
        one.setting.shape.ops = 1;
        let f = hints(&one).into_iter().find(|h| h.id == "fuse").unwrap();
        assert!(f.text.contains("does not change"), "{}", f.text);
    }
}
