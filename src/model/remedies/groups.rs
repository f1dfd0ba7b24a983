//! The remedies as the diagnosis card lists them: what helps, what does not,
//! and, between them, those too close to the [`HELPS_FROM`] bar to split. Two
//! remedies whose predicted speedups differ by less than [`limit::NEAR`] (5 %)
//! never sit one under "would help" and the other under "would not help": both
//! go to [`Groups::near`]. Each keeps its own verdict ([`Outcome::helps`], the
//! page's one rule); only where it is listed changes.

use super::{Outcome, HELPS_FROM};
use crate::model::limit;

/// The card's lists, each sorted by predicted speedup, largest first.
#[derive(Debug, Default)]
pub struct Groups<'a> {
    /// At or over the bar, and at least 5 % faster than every remedy under it.
    pub helps: Vec<&'a Outcome>,
    /// Within 5 % of a remedy on the other side of the bar.
    pub near: Vec<&'a Outcome>,
    /// Under the bar, and at least 5 % slower than every remedy over it.
    pub useless: Vec<&'a Outcome>,
    /// Not possible here (in the order given).
    pub na: Vec<&'a Outcome>,
}

/// Whether `a` and `b` differ by less than [`limit::NEAR`].
fn close(a: f64, b: f64) -> bool {
    a.max(b) < limit::NEAR * a.min(b)
}

/// Sort `outs` into the card's lists.
pub fn groups(outs: &[Outcome]) -> Groups<'_> {
    let mut g = Groups::default();
    let mut ok: Vec<&Outcome> = outs.iter().filter(|o| o.applicable()).collect();
    crate::model::order::sort_largest_first(&mut ok, |o| o.speedup());
    let over: Vec<f64> = ok
        .iter()
        .filter(|o| o.helps())
        .map(|o| o.speedup())
        .collect();
    let under: Vec<f64> = ok
        .iter()
        .filter(|o| !o.helps())
        .map(|o| o.speedup())
        .collect();
    for o in ok {
        let other = if o.helps() { &under } else { &over };
        if other.iter().any(|x| close(*x, o.speedup())) {
            g.near.push(o);
        } else if o.helps() {
            g.helps.push(o);
        } else {
            g.useless.push(o);
        }
    }
    g.na = outs.iter().filter(|o| !o.applicable()).collect();
    debug_assert!(g.helps.iter().all(|o| o.speedup() >= HELPS_FROM));
    g
}
