//! A step of the llm model as the roofline draws it: one layer's kernels as
//! points, the whole step as a cross, and on several GPUs the link's roof.

use crate::model::llm::step::LlmStep;
use crate::model::timeline::{LinkRoof, RoofStep};
use crate::model::workload::RoofPoint;

/// The step `st` on the roofline: its layer's kernels (each as many times as
/// the model has layers), the whole step, and the link where bytes cross it.
pub fn of(st: &LlmStep) -> (Vec<RoofPoint>, RoofStep, Option<LinkRoof>) {
    let kernels = st
        .layer
        .iter()
        .map(|row| RoofPoint {
            name: row.name.into(),
            intensity: row.intensity,
            flops: row.flops / row.time.max(f64::MIN_POSITIVE),
            time: row.time,
            count: st.run.config.layers,
            unit: row.unit,
            bound: row.bound,
        })
        .collect();
    let step = RoofStep {
        intensity: st.flops / st.bytes.max(f64::MIN_POSITIVE),
        flops: st.flops / st.wall.max(f64::MIN_POSITIVE),
        time: st.wall,
        regime: st.regime,
    };
    let link = (st.link_bytes > 0.0).then(|| LinkRoof {
        bw: st.run.par.link.bw,
        intensity: st.flops / st.link_bytes,
        flops: st.flops / st.wall.max(f64::MIN_POSITIVE),
    });
    (kernels, step, link)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::achievable::Roof;
    use crate::model::hardware::{preset, Dtype, PRESETS};
    use crate::model::llm::{step, KvDtype, LlmModel, LlmRun, Phase, WeightDtype};
    use crate::model::parallel::link;
    use crate::model::setting::Setting;

    /// Each point is a layer kernel at its own rate, the cross is the whole
    /// step's FLOPs over its wall time, and the link's roof shows only where
    /// bytes cross a link, at the step's FLOPs per link byte.
    #[test]
    fn the_points_are_the_steps_own_figures() {
        let hw = preset("h100-sxm").unwrap_or(&PRESETS[0]);
        let setting = Setting::on(hw, Dtype::Bf16, Roof::Achievable);
        let mut run = LlmRun {
            config: LlmModel::Llama3_8b.config_or_toy(),
            phase: Phase::Decode,
            batch: 8,
            context: 1024,
            wdtype: WeightDtype::Bf16,
            kvdtype: KvDtype::Bf16,
            graphs: true,
            flash: true,
            par: crate::model::parallel::Parallel::ONE,
        };
        for tp in [1, 4] {
            run.par.tp = tp;
            if let Some(l) = link("nvlink4") {
                run.par.link = *l;
            }
            let st = step::full(&run, &setting);
            let (points, cross, link) = of(&st);
            assert_eq!(points.len(), st.layer.len());
            for (p, row) in points.iter().zip(&st.layer) {
                let ok = if row.flops > 0.0 {
                    (p.flops * p.time / row.flops - 1.0).abs() < 1e-12
                } else {
                    p.flops == 0.0
                };
                assert!(ok, "{}", row.name);
                assert_eq!(p.count, st.run.config.layers);
            }
            assert!((cross.flops * cross.time / st.flops - 1.0).abs() < 1e-12);
            assert!((cross.intensity * st.bytes / st.flops - 1.0).abs() < 1e-12);
            assert_eq!(link.is_some(), tp > 1, "tp {tp}");
            if let Some(l) = link {
                assert!((l.intensity * st.link_bytes / st.flops - 1.0).abs() < 1e-12);
                assert_eq!(l.flops, cross.flops);
            }
        }
    }
}
