//! The trace widget's Web Worker (wasm32 only; Trunk builds it as a worker with
//! its own .wasm, `index.html`'s `data-type="worker"` link): the page's own
//! .wasm never links the parser or serde_json, and a trace of any size is parsed
//! off the main thread.
//!
//! Protocol (structured-clone messages, see `src/ui/widgets/trace.rs`):
//! - worker → page `{type: "ready"}` once its handler is set (a message posted
//!   before then would be lost, so the page waits for it);
//! - page → worker `{items: [File | Blob | url string, …], slow: bool, preset?:
//!   string}`: a url is fetched from the page's origin (the bundled example);
//!   `preset`, a hardware preset id, places the kernels on that preset's roofline
//!   instead of the one matched from the GPU's name (the row's `roof_preset`; an
//!   unknown id is an error for every item);
//! - worker → page, per item: `{type: "progress", index, bytes, total}` about
//!   every MiB, `{type: "phase", index, phase: "decompressing"}`, then
//!   `{type: "result", index, name, json}` (one `trace::report::Row` as JSON) or
//!   `{type: "error", index, name, message}`; finally `{type: "done"}`.
//!
//! Design: the parser reads from `std::io::Read`, synchronously. A dedicated
//! worker may block, so `BlobRead` reads the file in 4 MiB slices with
//! `FileReaderSync` (no copy of the whole file in wasm memory, no async
//! adapter). Gzip goes through the browser's `DecompressionStream` first (async:
//! the decompressed Blob is collected by `Response.blob()`, which the browser may
//! keep outside the JS heap), then the same reader. Cancel: the page terminates
//! the worker. `slow` (a test hook, `window.__brrrTraceSlow`) waits 50 ms at
//! every progress report so a test can press Cancel mid-parse.

#[cfg(not(target_arch = "wasm32"))]
fn main() {}

#[cfg(target_arch = "wasm32")]
fn main() {
    worker::start();
}

#[cfg(target_arch = "wasm32")]
mod worker {
    use brrr::trace::{analyse_with, report::row, Options, TraceError};
    use js_sys::{Array, Object, Reflect, Uint8Array};
    use std::io::{self, Read};
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        Blob, CompressionFormat, DecompressionStream, DedicatedWorkerGlobalScope, File,
        FileReaderSync, MessageEvent, ReadableWritablePair, Response,
    };

    const CHUNK: f64 = (4u32 << 20) as f64;

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    fn post(fields: &[(&str, JsValue)]) {
        let o = Object::new();
        for (k, v) in fields {
            let _ = Reflect::set(&o, &JsValue::from_str(k), v);
        }
        let _ = scope().post_message(&o);
    }

    /// A JS exception or rejection as text.
    fn text(e: JsValue) -> String {
        if let Some(s) = e.as_string() {
            return s;
        }
        Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "unknown error".into())
    }

    pub fn start() {
        let cb = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
            wasm_bindgen_futures::spawn_local(run(e.data()));
        });
        scope().set_onmessage(Some(cb.as_ref().unchecked_ref()));
        cb.forget();
        post(&[("type", "ready".into())]);
    }

    async fn run(data: JsValue) {
        let items: Array = Reflect::get(&data, &"items".into())
            .ok()
            .and_then(|v| v.dyn_into().ok())
            .unwrap_or_default();
        let slow = Reflect::get(&data, &"slow".into())
            .ok()
            .and_then(|v| v.as_bool())
            == Some(true);
        let options = match Reflect::get(&data, &"preset".into())
            .ok()
            .and_then(|v| v.as_string())
        {
            Some(id) => Options::with_preset(&id),
            None => Ok(Options::default()),
        };
        for (i, item) in items.iter().enumerate() {
            let index = JsValue::from(i as u32);
            let name = name_of(&item);
            let result = match &options {
                Ok(o) => one(i, &item, &name, slow, o).await,
                Err(e) => Err(e.clone()),
            };
            match result {
                Ok(json) => post(&[
                    ("type", "result".into()),
                    ("index", index),
                    ("name", name.as_str().into()),
                    ("json", json.into()),
                ]),
                Err(message) => post(&[
                    ("type", "error".into()),
                    ("index", index),
                    ("name", name.as_str().into()),
                    ("message", message.into()),
                ]),
            }
        }
        post(&[("type", "done".into())]);
    }

    fn name_of(item: &JsValue) -> String {
        if let Some(url) = item.as_string() {
            return url.rsplit('/').next().unwrap_or_default().to_string();
        }
        item.dyn_ref::<File>()
            .map(|f| f.name())
            .unwrap_or_else(|| "trace".into())
    }

    async fn blob_of(item: &JsValue) -> Result<Blob, String> {
        if let Some(url) = item.as_string() {
            let resp: Response = JsFuture::from(scope().fetch_with_str(&url))
                .await
                .map_err(|e| format!("could not load {url}: {}", text(e)))?
                .unchecked_into();
            if !resp.ok() {
                return Err(format!("could not load {url}: HTTP {}", resp.status()));
            }
            let p = resp.blob().map_err(text)?;
            return Ok(JsFuture::from(p).await.map_err(text)?.unchecked_into());
        }
        item.clone()
            .dyn_into::<Blob>()
            .map_err(|_| "not a file".to_string())
    }

    async fn one(
        index: usize,
        item: &JsValue,
        name: &str,
        slow: bool,
        options: &Options,
    ) -> Result<String, String> {
        let mut blob = blob_of(item).await?;
        let reader = FileReaderSync::new().map_err(text)?;
        let head = blob.slice_with_f64_and_f64(0.0, 2.0).map_err(text)?;
        let head =
            Uint8Array::new(&reader.read_as_array_buffer(&head).map_err(text)?.into()).to_vec();
        let gz = head == [0x1f, 0x8b];
        if gz {
            post(&[
                ("type", "phase".into()),
                ("index", (index as u32).into()),
                ("phase", "decompressing".into()),
            ]);
            let ds = DecompressionStream::new(CompressionFormat::Gzip).map_err(text)?;
            let pair = ReadableWritablePair::new(&ds.readable(), &ds.writable());
            let stream = blob.stream().pipe_through(&pair);
            let resp = Response::new_with_opt_readable_stream(Some(&stream)).map_err(text)?;
            let p = resp.blob().map_err(text)?;
            // the browser's error here reads "Failed to fetch" though nothing
            // was fetched: say what is wrong with the file instead
            blob = JsFuture::from(p)
                .await
                .map_err(|_| TraceError::BadGzip.to_string())?
                .unchecked_into();
        }
        let total = blob.size();
        let mut progress = |bytes: u64| {
            post(&[
                ("type", "progress".into()),
                ("index", (index as u32).into()),
                ("bytes", (bytes as f64).into()),
                ("total", total.into()),
            ]);
            if slow {
                let until = js_sys::Date::now() + 50.0;
                while js_sys::Date::now() < until {}
            }
            true
        };
        let src = BlobRead {
            blob,
            reader,
            pos: 0.0,
            size: total,
            buf: Vec::new(),
            at: 0,
        };
        let named_gz = name.to_ascii_lowercase().ends_with(".gz");
        let d = analyse_with(src, &mut progress, options).map_err(|e| match e {
            // a .gz that is not gzip and not a trace either: say both
            e @ (TraceError::NotJson { .. } | TraceError::Empty | TraceError::Truncated { .. })
                if named_gz && !gz =>
            {
                TraceError::NotGzip(e.to_string()).to_string()
            }
            e => e.to_string(),
        })?;
        serde_json::to_string(&row(name, &d)).map_err(|e| e.to_string())
    }

    /// A Blob read synchronously in [`CHUNK`]-byte slices.
    struct BlobRead {
        blob: Blob,
        reader: FileReaderSync,
        pos: f64,
        size: f64,
        buf: Vec<u8>,
        at: usize,
    }

    impl Read for BlobRead {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.at >= self.buf.len() {
                if self.pos >= self.size {
                    return Ok(0);
                }
                let end = (self.pos + CHUNK).min(self.size);
                let err = |e: JsValue| io::Error::other(text(e));
                let part = self
                    .blob
                    .slice_with_f64_and_f64(self.pos, end)
                    .map_err(err)?;
                let ab = self.reader.read_as_array_buffer(&part).map_err(err)?;
                self.buf = Uint8Array::new(&ab).to_vec();
                self.at = 0;
                self.pos = end;
            }
            let rest = self.buf.get(self.at..).unwrap_or_default();
            let n = out.len().min(rest.len());
            if let (Some(dst), Some(src)) = (out.get_mut(..n), rest.get(..n)) {
                dst.copy_from_slice(src);
            }
            self.at += n;
            Ok(n)
        }
    }
}
