// The trace widget's worker (src/ui/widgets/trace.rs starts it when the widget first
// needs it): wasm-bindgen's no-modules glue for src/bin/brrr-trace-worker.rs,
// then its .wasm, whose main() sets the message handler and posts "ready". A
// .wasm that cannot be fetched or compiled is reported to the page as "fatal".
importScripts('./brrr-trace-worker.js');
wasm_bindgen({ module_or_path: './brrr-trace-worker_bg.wasm' }).catch((e) =>
  postMessage({ type: 'fatal', message: String((e && e.message) || e) }),
);
