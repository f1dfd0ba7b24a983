//! The page's one rule for whether a change helps, used by every
//! widget that lists remedies.
//!
//! Each widget states its **objective** (the explorer and the `llm` and DiT
//! widgets: time per sample or per step; the serving widget: throughput per GPU
//! at the reader's TTFT and ITL, or cost) and its **headline figures** (the
//! readouts a reader looks at first). A change:
//! - **helps** when it makes the objective at least [`HELPS_FROM`] (5 %) better
//!   and no headline figure more than [`WORSE_FROM`] (10 %) worse;
//! - is a **trade-off** when it makes the objective that much better but some
//!   headline figure more than 10 % worse: it is listed apart with both numbers,
//!   never as helping;
//! - otherwise **does not help**.
//!
//! So: helps ⇔ gain ≥ 1.05 and not a trade-off. [`verdict`] decides it; no
//! other code compares a gain with 1.05.

/// Gain (before ÷ after for a time, after ÷ before for a rate) from which a
/// change is better on a widget's objective.
pub const HELPS_FROM: f64 = 1.05;

/// A headline figure made worse by more than this factor (after ÷ before for a
/// time or a cost, before ÷ after for a rate) makes a change a trade-off.
pub const WORSE_FROM: f64 = 1.10;

/// Which way a headline figure improves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// A time or a cost.
    Lower,
    /// A rate.
    Higher,
}

/// One headline figure before and after a change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// Its name in a sentence ("TTFT", "ITL").
    pub name: &'static str,
    pub before: f64,
    pub after: f64,
    pub better: Better,
}

impl Figure {
    /// A time or a cost: lower is better.
    pub fn lower(name: &'static str, before: f64, after: f64) -> Figure {
        Figure {
            name,
            before,
            after,
            better: Better::Lower,
        }
    }

    /// A rate: higher is better.
    pub fn higher(name: &'static str, before: f64, after: f64) -> Figure {
        Figure {
            name,
            before,
            after,
            better: Better::Higher,
        }
    }

    /// How many times better it is after the change (below 1: worse); 1 where
    /// either value is not a positive finite number.
    pub fn gain(&self) -> f64 {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        if !ok(self.before) || !ok(self.after) {
            return 1.0;
        }
        match self.better {
            Better::Lower => self.before / self.after,
            Better::Higher => self.after / self.before,
        }
    }

    /// It is more than [`WORSE_FROM`] worse after the change.
    pub fn much_worse(&self) -> bool {
        self.gain() * WORSE_FROM < 1.0
    }
}

/// What a change does, by the page's one rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The objective ≥ [`HELPS_FROM`] better, no headline figure much worse.
    Helps,
    /// The objective ≥ [`HELPS_FROM`] better, but `worse` (the headline
    /// figure it worsens most) more than [`WORSE_FROM`] worse.
    TradeOff { worse: Figure },
    /// The objective less than [`HELPS_FROM`] better.
    NoHelp,
}

impl Verdict {
    pub fn helps(&self) -> bool {
        *self == Verdict::Helps
    }
    pub fn trade_off(&self) -> Option<Figure> {
        match self {
            Verdict::TradeOff { worse } => Some(*worse),
            _ => None,
        }
    }
}

/// THE RULE: a change whose objective improves `gain`× (before ÷ after for a
/// time) with `figures` the widget's headline figures before and after.
pub fn verdict(gain: f64, figures: &[Figure]) -> Verdict {
    // a NaN gain does not help either
    if gain.is_nan() || gain < HELPS_FROM {
        return Verdict::NoHelp;
    }
    let worst = figures
        .iter()
        .filter(|f| f.much_worse())
        .min_by(|a, b| a.gain().total_cmp(&b.gain()));
    match worst {
        Some(w) => Verdict::TradeOff { worse: *w },
        None => Verdict::Helps,
    }
}

/// [`verdict`] for a widget whose only headline figure is its objective (a
/// time per sample or per step): the gain is at least [`HELPS_FROM`].
pub fn helps(gain: f64) -> bool {
    verdict(gain, &[]).helps()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helps_from_five_percent() {
        assert!(helps(1.05) && helps(3.0));
        assert!(!helps(1.0499) && !helps(1.0) && !helps(0.5) && !helps(f64::NAN));
        assert_eq!(verdict(1.04, &[]), Verdict::NoHelp);
    }

    #[test]
    fn a_much_worse_figure_makes_a_trade_off() {
        let ttft = Figure::lower("TTFT", 0.432, 14.6);
        let itl = Figure::lower("ITL", 0.0348, 0.0256);
        let tok = Figure::higher("tok/s per GPU", 701.0, 455.0);
        let v = verdict(1.36, &[itl, ttft, tok]);
        // the worst of the two much worse figures is named
        assert_eq!(v, Verdict::TradeOff { worse: ttft });
        assert!(!v.helps() && v.trade_off() == Some(ttft));
        // 10 % worse is the edge: beyond it, a trade-off
        let edge = Figure::lower("TTFT", 1.0, 1.099);
        assert_eq!(verdict(1.2, &[edge]), Verdict::Helps);
        let past = Figure::lower("TTFT", 1.0, 1.11);
        assert!(verdict(1.2, &[past]).trade_off().is_some());
        // a rate is worse by before ÷ after: 100 → 91 is 1.099×, 100 → 90 1.11×
        let rate = Figure::higher("tok/s", 100.0, 91.0);
        assert_eq!(verdict(1.2, &[rate]), Verdict::Helps);
        let rate = Figure::higher("tok/s", 100.0, 90.0);
        assert!(verdict(1.2, &[rate]).trade_off().is_some());
        // under the bar nothing is a trade-off: it does not help
        assert_eq!(verdict(1.04, &[past]), Verdict::NoHelp);
    }

    #[test]
    fn figures_without_numbers_are_not_worse() {
        for (b, a) in [(0.0, 1.0), (1.0, f64::NAN), (f64::INFINITY, 2.0)] {
            let f = Figure::lower("x", b, a);
            assert_eq!(f.gain(), 1.0);
            assert!(!f.much_worse());
        }
        assert_eq!(Figure::higher("r", 2.0, 3.0).gain(), 1.5);
        assert_eq!(Figure::lower("t", 3.0, 2.0).gain(), 1.5);
    }
}
