//! Large traces stream: a generated Kineto-like trace (cpu_op with shapes, the
//! cudaLaunchKernel call, its kernel, the flow events, ProfilerSteps) of any
//! size, produced lazily by a `Read` so no file or document is ever held.
//!
//! `cargo test --test trace_big` runs a 20 MB one. The 300 MB run is ignored by
//! default (`cargo test --release --test trace_big -- --ignored --nocapture`);
//! it checks the peak RSS stays far below the input size. Set `BRRR_TRACE_FILE`
//! to also write the generated trace to a file (for timing `brrr-trace` on it
//! with `/usr/bin/time -v`); `BRRR_TRACE_MB` sets the size.

#[cfg(test)]
mod big {
    use brrr::trace::{diagnose, parse};
    use std::io::{Read, Write};
    use std::time::Instant;

    const KERNELS: [&str; 6] = [
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4::Params)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
        "Memcpy DtoD (Device -> Device)",
    ];

    /// A lazily generated trace of about `target` bytes.
    pub struct Generator {
        target: u64,
        written: u64,
        i: u64,
        buf: Vec<u8>,
        pos: usize,
        state: u8, // 0 header, 1 events, 2 done
    }

    impl Generator {
        pub fn new(target: u64) -> Generator {
            Generator {
                target,
                written: 0,
                i: 0,
                buf: Vec::new(),
                pos: 0,
                state: 0,
            }
        }

        fn refill(&mut self) {
            self.buf.clear();
            self.pos = 0;
            match self.state {
                0 => {
                    self.buf.extend_from_slice(
                        br#"{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85000000000}], "distributedInfo": {"rank": 0}, "traceEvents": ["#,
                    );
                    self.state = 1;
                }
                1 if self.written < self.target => {
                    // 1000 kernels per ProfilerStep
                    for _ in 0..100 {
                        let i = self.i;
                        self.i += 1;
                        let t = 1_700_000_000_000.0 + i as f64 * 20.0;
                        let mut sep = if i == 0 { "" } else { "," };
                        if i.is_multiple_of(1000) {
                            let _ = write!(
                                self.buf,
                                r#"{sep}{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 1, "tid": 1, "ts": {:.3}, "dur": 20000, "args": {{"External id": {}}}}}"#,
                                i / 1000,
                                t,
                                3 * i
                            );
                            sep = ",";
                        }
                        let name = KERNELS[(i % KERNELS.len() as u64) as usize];
                        let cat = if name.starts_with("Memcpy") {
                            "gpu_memcpy"
                        } else {
                            "kernel"
                        };
                        let _ = write!(
                            self.buf,
                            r#"{sep}{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": {t:.3}, "dur": 6.5, "args": {{"External id": {e}, "Record function id": 0, "Sequence number": {i}, "Fwd thread id": 0, "Input Dims": [[512, 1024], [1024, 256]], "Input type": ["float", "float"], "Input Strides": [[1024, 1], [256, 1]], "Ev Idx": {i}}}}},
{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {l:.3}, "dur": 4.25, "args": {{"External id": {e}, "cbid": 211, "correlation": {i}}}}},
{{"ph": "s", "id": {i}, "pid": 1, "tid": 1, "ts": {l:.3}, "cat": "ac2g", "name": "ac2g"}},
{{"ph": "X", "cat": "{cat}", "name": "{name}", "pid": 0, "tid": 7, "ts": {k:.3}, "dur": {d:.3}, "args": {{"External id": {e}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {i}, "registers per thread": 128, "shared memory": 0, "blocks per SM": 1.2, "warps per SM": 4.8, "grid": [120, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 50}}}},
{{"ph": "f", "id": {i}, "pid": 0, "tid": 7, "ts": {k:.3}, "cat": "ac2g", "name": "ac2g", "bp": "e"}}"#,
                            e = 3 * i + 1,
                            l = t + 1.0,
                            k = t + 5.5,
                            d = 3.0 + (i % 17) as f64,
                        );
                    }
                }
                1 => {
                    self.buf.extend_from_slice(b"]}\n");
                    self.state = 2;
                }
                _ => {}
            }
        }
    }

    impl Read for Generator {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.pos >= self.buf.len() {
                self.refill();
                if self.buf.is_empty() {
                    return Ok(0);
                }
            }
            let n = out.len().min(self.buf.len() - self.pos);
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            self.written += n as u64;
            Ok(n)
        }
    }

    fn peak_rss_kib() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn run(mb: u64) -> (f64, u64) {
        let before = peak_rss_kib();
        let t0 = Instant::now();
        let mut bytes = 0;
        let t = parse(Generator::new(mb << 20), &mut |b| {
            bytes = b;
            true
        })
        .unwrap();
        let parsed = t0.elapsed().as_secs_f64();
        let d = diagnose(&t).unwrap();
        let secs = t0.elapsed().as_secs_f64();
        let after = peak_rss_kib();
        println!(
            "{mb} MB generated trace: {bytes} bytes, {} GPU activities, parsed in {parsed:.2} s and diagnosed in {:.2} s more ({:.0} MB/s); peak RSS {:?} KiB → {:?} KiB",
            d.activities,
            secs - parsed,
            bytes as f64 / secs / 1e6,
            before,
            after
        );
        assert!(bytes >= mb << 20);
        // ProfilerStep rule: the last step's kernels are dropped
        assert!(d.activities > 0);
        assert_eq!(d.preset, Some("h100-sxm"));
        assert!(d.placed_kernels > 0);
        assert!(!d.roofline.is_empty());
        assert!(d.timeline.is_some());
        (secs, after.unwrap_or(0).saturating_sub(before.unwrap_or(0)))
    }

    #[test]
    fn streams_a_20_mb_trace() {
        run(20);
    }

    #[test]
    #[ignore = "300 MB: minutes in a debug build; run with --release -- --ignored"]
    fn streams_a_300_mb_trace_in_bounded_memory() {
        let mb = std::env::var("BRRR_TRACE_MB")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300);
        if let Ok(path) = std::env::var("BRRR_TRACE_FILE") {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            std::io::copy(&mut Generator::new(mb << 20), &mut f).unwrap();
            f.flush().unwrap();
        }
        let (_, grew_kib) = run(mb);
        // memory grows with what is kept per kernel (the GPU event, its launch
        // call, its aten op with shapes) and the analysis's working vectors: ~480
        // bytes per kernel, 120 MB for this 300 MB text (~1.3 kB of JSON per
        // kernel), never with the text itself
        assert!(
            grew_kib * 1024 < (mb << 20) / 2,
            "peak RSS grew {grew_kib} KiB for {mb} MB"
        );
    }
}
