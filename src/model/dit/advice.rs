//! The `dit` widget's sentences, each from the model run for the current state and
//! its counterfactuals (the same step with one switch flipped, or the batch doubled).

use super::{buys, double_batch_ratio, run, Class, DitRun, DitStep, Switch};
use crate::model::limit;
use crate::model::roofline::Bound;
use crate::model::setting::Setting;
use crate::model::units;

use crate::model::verdict::helps;
/// Speedup from which a switch is said to help (the page's one rule,
/// [`crate::model::verdict`]).
pub use crate::model::verdict::HELPS_FROM;

/// The widget's opening line: the model's shape, what its resolution means,
/// and the step's kernels on `hw` (the GPU's name) `on_roofs` (which roofs,
/// in words).
pub fn about(m: super::DitModel, kernels: u32, hw: &str, on_roofs: &str) -> String {
    let c = m.config();
    format!(
        "{}: {} blocks, hidden {}, {}; resolution means {}. One denoising step (one forward) is {} on {} in bf16, {}.",
        m.label(),
        c.layers,
        c.hidden,
        units::count(c.heads, "head", "heads"),
        m.res_meaning().0,
        units::count(kernels, "kernel", "kernels"),
        hw,
        on_roofs
    )
}

/// The overhead section's test applied to this step, read against what limits it
/// ([`limit::doubling`]).
pub fn double_batch(r: &DitRun, s: &Setting) -> String {
    double_batch_with(&run(r, s), double_batch_ratio(r, s))
}

/// [`double_batch`] for the step `st` already run, with its ratio.
pub fn double_batch_with(st: &DitStep, ratio: f64) -> String {
    limit::doubling(
        st.run.batch.saturating_mul(2),
        ratio,
        &st.limit,
        "the modulation weights and launches do not grow with the batch",
    )
}

/// Each class's share and the roof its kernels sit on, then what limits the step
/// (and the contrast sentence when the largest share says otherwise).
pub fn split(st: &DitStep) -> String {
    let sh = st.shares;
    let roof = |c: Class| {
        st.class_bound
            .iter()
            .find(|x| x.0 == c)
            .map(|x| match x.1 {
                Bound::Compute => "on the compute roof",
                Bound::Memory => "on the memory roof",
            })
            .unwrap_or("")
    };
    format!(
        "{} per sample; attention {} ({}), MLP {} ({}), pointwise {} ({}), fixed costs per kernel (launch waits, kernel floors) {}{}. {}",
        units::amount(st.tokens, "token", "tokens"),
        units::percent(sh.attention),
        roof(Class::Attention),
        units::percent(sh.mlp),
        roof(Class::Mlp),
        units::percent(sh.pointwise),
        roof(Class::Pointwise),
        units::percent(sh.overhead),
        if st.run.sp > 1 {
            format!(", waiting on the other GPUs {}", units::percent(sh.comm))
        } else {
            String::new()
        },
        limit::verdict(&st.limit)
    )
}

/// Sequence parallelism in words: how attention is spread, the
/// collectives' share and whether it has overtaken attention's, the scaling
/// efficiency against one GPU and where adding GPUs stops paying.
pub fn parallel(st: &DitStep, sc: &super::DitScaling) -> Vec<String> {
    let r = &st.run;
    let mut out = Vec::new();
    let sh = st.shares;
    if r.sp > 1 {
        let kind = super::SpKind::of(r);
        out.push(format!(
            "On {} over {}, attention is spread by {}{}: {} of the step waits on the other GPUs, {} attention.",
            units::count(r.sp, "GPU", "GPUs"),
            r.link.name,
            kind.words(),
            if kind == super::SpKind::Ring {
                format!(
                    " ({} do not split {} ways)",
                    units::count(r.model.config().heads, "head", "heads"),
                    r.sp
                )
            } else {
                String::new()
            },
            units::percent(sh.comm),
            if sh.comm > sh.attention {
                format!("more than the {} spent in", units::percent(sh.attention))
            } else {
                format!("less than the {} spent in", units::percent(sh.attention))
            },
        ));
        out.push(format!(
            "Scaling efficiency on {}: {} ({}× the speed of one GPU).",
            units::count(r.sp, "GPU", "GPUs"),
            units::percent(sc.efficiency),
            units::sig3(sc.speedup)
        ));
    }
    // where communication first outweighs attention as GPUs are added
    if let Some((n, _)) = sc
        .points
        .iter()
        .find(|p| p.1.shares.comm > p.1.shares.attention)
    {
        out.push(format!(
            "Over {}, waiting on the other GPUs outweighs attention from {} on.",
            r.link.name,
            units::count(*n, "GPU", "GPUs")
        ));
    }
    out.push(match sc.stops_paying {
        Some(at) => format!(
            "Over {}, adding GPUs stops paying {}: the next doubling buys less than {}×.",
            r.link.name,
            crate::model::parallel::stops_words(Some(at)),
            crate::model::parallel::PAYS
        ),
        None => format!(
            "Over {}, every doubling of the GPUs up to 8 still buys at least {}×.",
            r.link.name,
            crate::model::parallel::PAYS
        ),
    });
    out
}

/// What each of FlashAttention, fusion and CUDA graphs buys here.
pub fn switches(r: &DitRun, s: &Setting) -> Vec<(Switch, f64, String)> {
    Switch::ALL
        .into_iter()
        .map(|sw| {
            let x = buys(r, sw, s);
            // "CUDA graphs are", "FlashAttention is", "fusing … is"
            let is = if sw == Switch::Graphs { "are" } else { "is" };
            let text = if sw.is_on(r) && helps(x) {
                format!(
                    "{} {is} on: without it the step would take {}× as long.",
                    capital(sw.label()),
                    units::sig3(x)
                )
            } else if sw.is_on(r) {
                format!(
                    "{} {is} on, but here it changes the step by less than 5 % ({}×).",
                    capital(sw.label()),
                    units::sig3(x)
                )
            } else if helps(x) {
                format!(
                    "{} would make the step {}× faster.",
                    capital(sw.label()),
                    units::sig3(x)
                )
            } else {
                format!(
                    "{} would change the step by less than 5 % ({}×).",
                    capital(sw.label()),
                    units::sig3(x)
                )
            };
            (sw, x, text)
        })
        .collect()
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The step at other resolutions (or clip lengths), everything else as `r`.
pub fn by_resolution(r: &DitRun, s: &Setting) -> Vec<DitStep> {
    let list: &[u32] = if r.model.config().video {
        &[1, 9, 25, 49, 97]
    } else {
        &[128, 256, 512, 1024]
    };
    list.iter()
        .map(|&res| run(&DitRun { res, ..*r }, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dit::DitModel;
    use crate::state::State;

    #[test]
    fn sentences_follow_the_state() {
        let mut st = State::default();
        if let Some(p) = crate::model::hardware::preset("h100-sxm") {
            st.select_preset(p);
        }
        let s = st.setting;
        let r = DitRun::xl2(256, 1);
        assert!(double_batch(&r, &s).contains("overhead-bound"));
        let sw = switches(&r, &s);
        assert!(sw[0].2.starts_with("FlashAttention is on"));
        assert!(
            sw[2].2.starts_with("CUDA graphs would make the step"),
            "{}",
            sw[2].2
        );
        assert!(split(&run(&r, &s)).contains("overhead-bound"));
        let big = DitRun {
            res: 512,
            batch: 64,
            graphs: true,
            ..r
        };
        assert!(
            double_batch(&big, &s).contains("the time grows with the work"),
            "{}",
            double_batch(&big, &s)
        );
        assert!(
            switches(&big, &s)[1].2.contains("less than 5 %")
                || switches(&big, &s)[1].1 >= HELPS_FROM
        );
        assert_eq!(by_resolution(&r, &s).len(), 4);
        // a switch that is on but changes nothing says so, never "1× as long"
        let g = switches(&big, &s)[2].clone();
        assert!(g.2.starts_with("CUDA graphs are on"), "{}", g.2);
        if g.1 < HELPS_FROM {
            assert!(g.2.contains("less than 5 %"), "{}", g.2);
        } else {
            assert!(g.2.contains("as long"), "{}", g.2);
        }
        for (_, x, text) in switches(&big, &s) {
            assert!(
                !(text.contains(" 1× as long") || (x < HELPS_FROM && text.contains("as long"))),
                "{text}"
            );
        }
    }

    /// The opening line names the model's own shape and the step's kernel
    /// count, GPU and roofs, for each model.
    #[test]
    fn the_opening_line_is_the_models_shape_and_the_steps() {
        for m in DitModel::ALL {
            let c = m.config();
            let t = about(m, 7, "NVIDIA H100 SXM", "on the datasheet peaks");
            assert!(
                t.starts_with(&format!(
                    "{}: {} blocks, hidden {}, ",
                    m.label(),
                    c.layers,
                    c.hidden
                )),
                "{t}"
            );
            assert!(
                t.contains(&format!("resolution means {}.", m.res_meaning().0)),
                "{t}"
            );
            assert!(
                t.ends_with("is 7 kernels on NVIDIA H100 SXM in bf16, on the datasheet peaks."),
                "{t}"
            );
        }
        assert!(about(DitModel::XL2, 1, "x", "y").contains("is 1 kernel on x"));
    }

    /// The measured DiT steps are DiT-XL/2's: the note is said under that
    /// model only, and its worst errors are the comparison's.
    #[test]
    fn the_measured_note_is_dit_xl2s_alone() {
        use crate::model::shapes::measured::{dit_lent, dit_note, dit_summary};
        for m in DitModel::ALL {
            assert_eq!(dit_note(m).is_some(), m == DitModel::XL2, "{m:?}");
        }
        let note = dit_note(DitModel::XL2).unwrap();
        assert_eq!(note, dit_summary(&dit_lent()));
        let worst = dit_lent()
            .iter()
            .filter(|r| r.case.compiled)
            .map(|r| r.error().abs())
            .fold(0.0, f64::max);
        assert!(
            note.contains(&format!(
                "compiled (torch.compile, reduce-overhead) within {:.0} %",
                worst * 100.0
            )),
            "{note}"
        );
    }
}
