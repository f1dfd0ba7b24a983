//! Test helpers shared by the trace modules' unit tests: a trace from events
//! written as JSON, and the events they use most.

use super::parse::{parse, Trace};

/// The trace of `events` (each a JSON object).
pub fn trace(events: &[String]) -> Trace {
    let body = format!(r#"{{"traceEvents": [{}]}}"#, events.join(","));
    parse(body.as_bytes(), &mut |_| true).unwrap()
}

/// A kernel on `stream` of device 0.
pub fn kernel(name: &str, ts: f64, dur: f64, corr: i64, stream: i64) -> String {
    format!(
        r#"{{"ph":"X","cat":"kernel","name":"{name}","ts":{ts},"dur":{dur},"args":{{"stream":{stream},"correlation":{corr},"device":0}}}}"#
    )
}

/// A CUDA runtime call (`cudaLaunchKernel`, `cudaDeviceSynchronize`, …).
pub fn call(name: &str, ts: f64, dur: f64, corr: i64) -> String {
    format!(
        r#"{{"ph":"X","cat":"cuda_runtime","name":"{name}","ts":{ts},"dur":{dur},"args":{{"correlation":{corr}}}}}"#
    )
}
