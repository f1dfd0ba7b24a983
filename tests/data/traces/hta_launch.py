"""HTA 0.5.0's get_cuda_kernel_launch_stats (default arguments) per trace folder:
the number of launches matched, the median launch delay, and how many GPU events
ran shorter than their CPU launch call (HTA's "short" kernels: gpu_duration <
cpu_duration). Run with HTA 0.5.0 installed: python3 -O hta_launch.py DIR..."""
import json, logging, sys, warnings
warnings.filterwarnings("ignore"); logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
out = {}
for d in sys.argv[1:]:
    try:
        ta = TraceAnalysis(trace_dir=d)
        ls = ta.get_cuda_kernel_launch_stats(visualize=False)
        out[d] = {str(k): {"n": int(len(v)),
                           "short": int((v["gpu_duration"] < v["cpu_duration"]).sum()),
                           "launch_delay_median_us": float(v["launch_delay"].median()) if len(v) else None}
                  for k, v in ls.items()}
    except Exception as e:
        out[d] = {"error": f"{type(e).__name__}: {e}"[:300]}
print(json.dumps(out, indent=1, sort_keys=True))
