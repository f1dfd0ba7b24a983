//! Widget `trace`: a torch.profiler trace diagnosed. Its UI, its
//! parser and their model (`trace/`) are separate .wasm modules loaded on
//! demand (`ui/apps/trace/`), so it has no model call in the page; its one key
//! says what it opens on (only the bundled example has a URL: a file of the
//! reader's own never leaves the page, nor goes into the URL).

use crate::state::params::{choice_enum, params};
use crate::state::spec::{NativeOnly, Spec};

choice_enum! {
    /// What the widget opens on.
    pub enum TraceSource {
        Example = "example" "the bundled example (an A100 run)",
    }
}

params! {
    in trace;
    /// What the widget opens on; a reader's own file never goes into the URL.
    source: Choice<TraceSource> = TraceSource::Example, "trace", "Trace";
}

pub const SPEC: Spec = Spec {
    id: "trace",
    title: "Diagnose your own run",
    // 3266 px at 720 px wide showing its example with its roofline and
    // timeline (embed.test.mjs waits for it)
    embed_height: 3840,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(None),
    on_gpu: None,
    reads: None,
};
