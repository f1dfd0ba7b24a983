//! What the diagnosis card and the remedies table show of the remedies, for one
//! setting: each remedy's label, speedup, verdict and sentences, the card's
//! lists, the best remedy and the headline ([`advice`]). The views only draw
//! these fields.

use super::{evaluate_on, groups, headline, speedup_text, Change, Outcome, RemedyId};
use crate::model::explorer::analyse;
use crate::model::setting::Setting;
use crate::model::timeline::Regime;

/// One remedy as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub id: RemedyId,
    /// What it does, for this setting.
    pub label: String,
    /// Predicted time per sample before ÷ after (1 where it does not apply).
    pub speedup: f64,
    /// The page's verdict ([`Outcome::helps`]).
    pub helps: bool,
    pub applicable: bool,
    /// The card's effect: "1.56× faster", "1.02× (under the 5 % bar)", or
    /// "not possible here: …".
    pub effect: String,
    /// The table's effect: "2.00 µs → 1.28 µs per sample (1.56×)", or the
    /// card's where the remedy does not apply.
    pub before_after: String,
    /// The explorer setting clicking it applies (`None`: a change to how the
    /// CPU issues the step, or not possible here).
    pub apply: Option<Setting>,
    /// The rows of the essay's table it sits in ([`RemedyId::essay_rows`]).
    pub rows: &'static [Regime],
}

/// The best remedy, as the card's "Best remedy" readout shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    pub id: &'static str,
    pub speedup: f64,
    /// "Fuse the 8 pointwise ops into one kernel (1.56×)".
    pub text: String,
}

/// Everything the page shows of the remedies for one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// Every remedy, in [`RemedyId::ALL`] order.
    pub items: Vec<Item>,
    /// The card's lists ([`super::groups`]), each largest speedup first.
    pub helps: Vec<Item>,
    pub near: Vec<Item>,
    pub useless: Vec<Item>,
    pub na: Vec<Item>,
    /// No remedy helps (the card then says so in its "would help" list).
    pub none_helps: bool,
    /// The largest predicted speedup (`None`: no remedy applies).
    pub best: Option<Best>,
    /// One sentence on what to do ([`super::headline`]).
    pub headline: String,
}

fn item(o: &Outcome) -> Item {
    let effect = match &o.effect {
        Err(why) => format!("not possible here: {why}"),
        Ok(_) if o.helps() => format!("{}× faster", speedup_text(o)),
        Ok(_) => format!("{}× (under the 5 % bar)", speedup_text(o)),
    };
    let before_after = match &o.effect {
        Ok(e) => super::before_after(o, e),
        Err(_) => effect.clone(),
    };
    let apply = match o.effect {
        Ok(super::Effect {
            change: Change::Setting(t),
            ..
        }) => Some(t),
        _ => None,
    };
    Item {
        id: o.id,
        label: o.label.clone(),
        speedup: o.speedup(),
        helps: o.helps(),
        applicable: o.applicable(),
        effect,
        before_after,
        apply,
        rows: o.id.essay_rows(),
    }
}

/// Every remedy tried on `s`, as the page shows it.
pub fn advice(s: &Setting) -> Advice {
    let run = analyse(&s.shape, &s.cached());
    let outs = evaluate_on(s, &run);
    let g = groups(&outs);
    let list = |l: &[&Outcome]| l.iter().map(|o| item(o)).collect::<Vec<_>>();
    let best = super::best(&outs).map(|b| Best {
        id: b.id.id(),
        speedup: b.speedup(),
        text: format!("{} ({}×)", b.label, speedup_text(b)),
    });
    Advice {
        helps: list(&g.helps),
        near: list(&g.near),
        useless: list(&g.useless),
        na: list(&g.na),
        none_helps: !outs.iter().any(Outcome::helps),
        best,
        headline: headline(&run.limit, &outs),
        items: outs.iter().map(item).collect(),
    }
}

/// The setting that applying remedy `id` to `s` gives, if it is a change of
/// the explorer's setting.
pub fn applied(s: &Setting, id: RemedyId) -> Option<Setting> {
    advice(s).items.into_iter().find(|o| o.id == id)?.apply
}

#[cfg(test)]
mod tests;
