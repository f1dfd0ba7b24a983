# Writes the hand-made traces synthetic_*/trace.json (run from this folder);
# their HTA 0.5.0 numbers are in hta-0.5.0.json like the real ones.
import json, os
def k(name, ts, dur, stream=7, corr=None, cat="kernel", **extra):
    a = {"device": 0, "stream": stream}
    if corr is not None: a["correlation"] = corr
    a.update(extra)
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream if isinstance(stream,int) else 0, "ts": ts, "dur": dur, "args": a}
def c(name, ts, dur, corr=None, cat="cpu_op", **args):
    a = dict(args)
    if corr is not None: a["correlation"] = corr
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": a}
meta = lambda: [{"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python"}},
                {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 5, "cat": "ac2g", "name": "ac2g"},
                {"ph": "X", "cat": "Trace", "ts": 0, "dur": 100000, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {}}]
cases = {}
# 1. the ProfilerStep rule: step 3 is the last; kernels launched in it are dropped; an orphan
cases["synthetic_steps"] = meta() + [
    c("ProfilerStep#1", 0, 1000), c("ProfilerStep#2", 1000, 1000), c("ProfilerStep#3", 2000, 1000),
    c("cudaLaunchKernel", 10, 5, 1, "cuda_runtime"), k("ampere_sgemm_64x64", 20, 100, corr=1),
    c("cudaLaunchKernel", 1010, 5, 2, "cuda_runtime"), k("elementwise_kernel", 1500, 50, corr=2),
    c("cudaLaunchKernel", 1990, 5, 3, "cuda_runtime"), k("ncclDevKernel_AllReduce", 2100, 300, stream=9, corr=3),
    c("cudaLaunchKernel", 2010, 5, 4, "cuda_runtime"), k("late_kernel", 2500, 100, corr=4),
    k("orphan_kernel", 2900, 10, corr=99),
    k("gpu_annotation_no_corr", 900, 20, stream=8),  # stream, no correlation: filtered like a CPU event (ts < last step)
    k("gpu_annotation_late", 2950, 20, stream=8),
    c("Memcpy HtoD", 1800, 10, 5, "cuda_runtime"), k("Memcpy HtoD (Pageable -> Device)", 1810, 40, corr=5, cat="gpu_memcpy"),
]
# 2. float timestamps: HTA rounds starts up and ends down, sub-µs kernels go negative
cases["synthetic_float_ts"] = meta() + [
    k("a_kernel", 10.5, 0.3, corr=1), k("b_kernel", 10.7, 5.0, corr=2), k("c_kernel", 20.25, 0.5, corr=3),
    k("d_kernel", 30.9, 10.2, stream=8, corr=4), k("e_Sync_kernel", 35.1, 2.0, corr=5),
    k("Memset (Device)", 50.5, 1.7, corr=6, cat="gpu_memset"), k("ncclKernel_x", 60.0, 3.3, corr=7),
]
# 3. overlapping streams, zero durations, loose types, Event Sync, a cpu op that records a stream
cases["synthetic_overlap"] = meta() + [
    k("sm80_xmma_gemm_f16", 0, 100, stream=7, corr=1), k("flash_fwd_kernel", 50, 100, stream=8, corr=2),
    k("zero_kernel", 160, 0, corr=3), k("ncclDevKernel_Broadcast", 170, 30, stream="9", corr=4),
    k("Memcpy DtoD (Device -> Device)", 180, 40, stream=7, corr=5, cat="gpu_memcpy"),
    k("hex_stream_kernel", 300, 10, stream="0x7", corr=6),
    k("float_stream_kernel", 320, 10, stream=7.0, corr=7),
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 330, "dur": 5, "args": {"stream": 7, "correlation": -1, "device": 0}},
    c("triton_op", 340, 20, None, "cpu_op", stream=0),
    k("after_gap_kernel", 400, 25, corr=8), k("no_dur_kernel", 450, None, corr=9),
]
for name, ev in cases.items():
    os.makedirs(name, exist_ok=True)
    ev = [e if e.get("dur", 0) is not None else {x: y for x, y in e.items() if x != "dur"} for e in ev]
    json.dump({"schemaVersion": 1, "distributedInfo": {"rank": 0}, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85000000000}], "traceEvents": ev}, open(f"{name}/trace.json", "w"), indent=0)
