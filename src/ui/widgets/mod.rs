//! The widget registry: every essay widget, its stable id (URL anchor `#id`, embed
//! id, test hook), its title and the height an embed of it needs. One file per
//! widget; this table is the only list of them.

pub mod advice;
pub mod bert;
pub mod calculator;
pub mod compare;
pub mod controls;
pub mod diagnosis;
pub mod dit;
pub mod explorer;
pub mod factory;
pub mod fusion;
pub mod generations;
pub mod hardware_table;
pub mod lab;
pub mod lab_datasheet;
pub mod lab_host;
pub mod lab_view;
pub mod llm;
pub mod llm_measured;
pub mod microbench;
pub mod overhead;
pub mod readout;
pub mod readouts;
pub mod remedies;
pub mod roofline;
pub mod scaling;
pub mod tensor_cores;
pub mod trace;
pub mod trace_charts;
pub mod trace_compare;
pub mod trace_host;
pub mod trace_row;

use super::Ctx;
use leptos::prelude::*;

pub struct WidgetDef {
    pub id: &'static str,
    pub title: &'static str,
    /// The copied iframe snippet's height in CSS pixels: the embed's content
    /// height at 720 px wide in its default state, measured in Chromium, plus
    /// about 5 % (tests/e2e/embed.test.mjs fails when a widget outgrows it). An
    /// embed also posts its real height to the host page
    /// (`shell::embed::HEIGHT_MESSAGE`).
    pub embed_height: u32,
    /// Hold the widget's view of the state while it is off-screen (see
    /// `shell::frame::gate`). Off for the explorer and the diagnosis card: their
    /// readouts are the page's primary contract and must always be current.
    pub gate: bool,
    pub render: fn(Ctx) -> AnyView,
}

pub const WIDGETS: &[WidgetDef] = &[
    WidgetDef {
        id: "roofline-explorer",
        title: "The roofline explorer",
        // 2102 px at 720 px wide in the default state, with the advice lists (embed.test.mjs)
        embed_height: 2210,
        gate: false,
        render: |ctx| view! { <explorer::Explorer ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "diagnosis",
        title: "Which regime am I in?",
        // 616 px at 720 px wide by default (the halvings and the contrast sentence)
        embed_height: 640,
        gate: false,
        render: |ctx| view! { <diagnosis::Diagnosis ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "generations",
        title: "Compute grows faster than bandwidth",
        embed_height: 1300,
        gate: true,
        render: |ctx| view! { <generations::Generations ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "tensor-cores",
        title: "Tensor cores vs everything else",
        // 452 px at 720 px wide by default, its GPU select included
        embed_height: 475,
        gate: true,
        render: |ctx| view! { <tensor_cores::TensorCores ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "bert",
        title: "BERT: FLOPs are not time",
        embed_height: 870,
        gate: true,
        render: |ctx| view! { <bert::Bert ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "factory",
        title: "Factory, warehouse, trucks",
        embed_height: 720,
        gate: true,
        render: |ctx| view! { <factory::Factory ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "fusion",
        title: "Operator fusion: count the trips",
        embed_height: 760,
        gate: true,
        render: |ctx| view! { <fusion::Fusion ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "microbench",
        title: "The repeat microbenchmark",
        // its own controls (the GPU select among them), the regions' legend, three
        // panels and the sentences: 1149 px at 720 px wide in its tallest state,
        // 1008 by default (tests/e2e/microbench.test.mjs)
        embed_height: 1195,
        gate: true,
        render: |ctx| view! { <microbench::Microbench ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "overhead",
        title: "Overhead: the CPU lane and the GPU lane",
        // 1160 px at 720 px wide by default
        embed_height: 1190,
        gate: true,
        render: |ctx| view! { <overhead::Overhead ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "remedies",
        title: "Regime → remedies",
        embed_height: 890,
        gate: true,
        render: |ctx| view! { <remedies::Remedies ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "lab",
        title: "Measure my GPU",
        embed_height: 1380,
        gate: true,
        render: |ctx| view! { <lab_host::LabHost ctx=ctx/> }.into_any(),
    },
    // chapter "Diagnose your own run"
    WidgetDef {
        id: "trace",
        title: "Diagnose your own run",
        // 3266 px at 720 px wide showing its example with its roofline and
        // timeline (embed.test.mjs waits for it)
        embed_height: 3380,
        gate: true,
        render: |ctx| view! { <trace_host::TraceHost ctx=ctx/> }.into_any(),
    },
    // chapter "Beyond the essay"
    WidgetDef {
        id: "llm",
        title: "LLM inference: decode and prefill",
        // 4456 px at 720 px wide by default (eager: the layer's kernel list folded;
        // the GPU picker, the fit and parallel readouts, the scaling chart, the
        // closed "compare GPUs" and tensor-parallel rows);
        // the custom shape adds three rows of sliders and the hypothetical note
        // (4814), a compiled step opens its kernel list (4902), Llama-3-70B on
        // 8 × 2 GPUs adds the parallel sentences and the link's roof (5271; 5396
        // with the link's bandwidth and latency boxes); tests/e2e/llm.test.mjs
        // measures them
        embed_height: 5470,
        gate: true,
        render: |ctx| view! { <llm::Llm ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "dit",
        title: "Diffusion transformers: one denoising step",
        // 1843 px at 720 px wide by default (its GPU select, the folded
        // "compare GPUs" and the scaling chart included); 2020 on 4 GPUs with
        // the parallel sentences (2126 with the link's bandwidth and latency boxes)
        embed_height: 2170,
        gate: true,
        render: |ctx| view! { <dit::Dit ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "calculator",
        title: "Op calculator",
        embed_height: 1120,
        gate: true,
        render: |ctx| view! { <calculator::Calculator ctx=ctx/> }.into_any(),
    },
    WidgetDef {
        id: "hardware",
        title: "Hardware presets",
        embed_height: 1340,
        gate: true,
        render: |ctx| view! { <hardware_table::HardwareTable ctx=ctx/> }.into_any(),
    },
];

pub fn widget(id: &str) -> Option<&'static WidgetDef> {
    WIDGETS.iter().find(|w| w.id == id)
}
