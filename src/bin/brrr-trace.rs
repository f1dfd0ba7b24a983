//! `brrr-trace`: a PyTorch-profiler (Kineto) trace → where the GPU's time went
//! (HTA 0.5.0's temporal breakdown, reproduced), launch-bound gaps, kernel
//! classes, and the regime by counterfactuals (`brrr::trace`).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use brrr::trace::report::{row, Out};
    use brrr::trace::{analyse_with, Diagnosis, Options, TraceError};
    use std::fs::File;
    use std::io::{BufRead, BufReader, IsTerminal, Read, Write};

    const HELP: &str = "\
brrr-trace: where a PyTorch-profiler trace's GPU time went, and which regime
(overhead, compute, memory bandwidth, communication) the run is in.

Usage: brrr-trace FILE... [--json OUT] [--gpu PRESET]

  FILE          a torch.profiler / Kineto trace (.json or .json.gz), one rank each
  --json OUT    also write the diagnosis as JSON to OUT (- for standard output;
                the tables then go to standard error)
  --gpu PRESET  place the kernels on this hardware preset's roofline and price
                matmuls_at_roof on it, instead of the preset matched from the
                trace's GPU name (needed for a GPU brrr does not know); one of
                PRESETS
  -h, --help    this text

The idle / compute / non-compute shares are HTA 0.5.0's temporal breakdown
(span = first GPU activity's start to the last one's end). The regime is the
cost class whose halving shortens the run most.

Exit status: 0 on success; 2 on bad usage or when any FILE is not a usable
trace (one line on standard error per such file; the other files are still
analysed and written to --json); 1 when OUT cannot be written.";

    /// Opens `path`, decompressing gzip (by its magic bytes, whatever the name).
    fn open(path: &str) -> Result<Box<dyn Read>, TraceError> {
        let file = File::open(path).map_err(|e| TraceError::Io(e.to_string()))?;
        let mut r = BufReader::with_capacity(1 << 16, file);
        let gz = r
            .fill_buf()
            .map_err(|e| TraceError::Io(e.to_string()))?
            .starts_with(&[0x1f, 0x8b]);
        Ok(if gz {
            Box::new(flate2::read::MultiGzDecoder::new(r))
        } else {
            Box::new(r)
        })
    }

    fn pct(x: f64) -> String {
        format!("{:6.2} %", 100.0 * x)
    }

    fn short(name: &str, n: usize) -> String {
        if name.chars().count() <= n {
            name.to_string()
        } else {
            let s: String = name.chars().take(n.saturating_sub(1)).collect();
            format!("{s}…")
        }
    }

    fn table(file: &str, d: &Diagnosis) -> String {
        let mut s = String::new();
        let rank = d.rank.map_or("?".to_string(), |r| r.to_string());
        let device = d.device.as_deref().unwrap_or("unknown GPU");
        let preset = d.preset.map_or(String::new(), |p| format!(" (preset {p})"));
        s += &format!("rank {rank}: {device}{preset}\n  file          {file}\n");
        if d.roof_preset != d.preset {
            if let Some(p) = d.roof_preset {
                s += &format!("  roofline of   {p} (--gpu)\n");
            }
        }
        s += &format!(
            "  span          {:.6} s  ({} GPU activities, {} kernels, {:.0} kernels/s)\n",
            d.span_s(),
            d.activities,
            d.kernels,
            d.launches_per_s
        );
        s += &format!(
            "  idle          {}  (waiting for launches {}, other {})\n",
            pct(d.hta.idle_share()),
            pct(d.launch_wait_share()).trim(),
            pct(d.hta.idle_share() - d.launch_wait_share()).trim()
        );
        s += &format!("  compute       {}\n", pct(d.hta.compute_share()));
        s += &format!(
            "  non-compute   {}  (HTA's split; by class: communication {}, memory-bound {}, matmul {} of span)\n",
            pct(d.hta.noncompute_share()),
            pct(d.comm_share).trim(),
            pct(d.memory_class_share).trim(),
            pct(d.compute_class_share).trim()
        );
        s += &format!(
            "  short kernels {} of {} under {} µs ({} of kernel time)\n",
            d.short_kernels,
            d.kernels,
            brrr::trace::SHORT_KERNEL_US,
            pct(d.short_kernel_time_share).trim()
        );
        let classes: Vec<String> = d
            .classes
            .iter()
            .map(|c| format!("{} {}", c.class.id(), pct(c.share).trim()))
            .collect();
        s += &format!("  time by class {}\n", classes.join(", "));
        s += "  top kernels\n";
        let total: f64 = d.classes.iter().map(|c| c.time).sum();
        for k in d.top_kernels.iter().take(5) {
            s += &format!(
                "    {} {:>7}×  {:<13} {}\n",
                pct(brrr::trace::breakdown::share(k.time, total)),
                k.count,
                k.class.id(),
                short(&k.name, 70)
            );
        }
        let halvings: Vec<String> = d
            .halvings
            .iter()
            .map(|h| format!("{} {}", h.class.id(), pct(h.saving).trim()))
            .collect();
        s += &format!(
            "  regime        {} (halving saves: {})\n",
            d.regime.id(),
            halvings.join(", ")
        );
        if let Some(r) = d.best_remedy() {
            s += &format!("  best remedy   {} ×{:.2}: {}\n", r.id, r.speedup, r.label);
        }
        if d.placed_kernels > 0 {
            s += &format!(
                "  by shape      {} of {} kernels placed on their aten ops ({} op/kernel pairs)\n",
                d.placed_kernels,
                d.kernels,
                d.roofline.len()
            );
        }
        if d.matmul_time > 0.0 {
            s += &format!(
                "  matmuls       {:.3} TFLOP in {:.6} s ({:.1} TFLOP/s)\n",
                d.matmul_flops * 1e-12,
                d.matmul_time * 1e-6,
                brrr::trace::breakdown::share(d.matmul_flops, d.matmul_time * 1e-6) * 1e-12
            );
        }
        for p in d.roofline.iter().take(3) {
            let rate = brrr::trace::breakdown::share(p.flops, p.time_s);
            s += &format!(
                "    {:>9.6} s {:>7}×  {:>8.1} TFLOP/s  {:>8.1} FLOP/B  {} {}  {}\n",
                p.time_s,
                p.count,
                rate * 1e-12,
                brrr::trace::breakdown::share(p.flops, p.bytes),
                p.op,
                p.dtype.unwrap_or("?"),
                short(&p.kernel, 50)
            );
        }
        if let Some(tl) = &d.timeline {
            let spans: usize = tl.lanes.iter().map(|l| l.spans.len()).sum();
            s += &format!(
                "  busiest       {:.6} s to {:.6} s: {}, {}{}\n",
                tl.start_s,
                tl.end_s,
                brrr::model::units::count(tl.lanes.len() as u32, "lane", "lanes"),
                brrr::model::units::count(spans as u32, "span", "spans"),
                if tl.merged {
                    " (neighbours merged)"
                } else {
                    ""
                }
            );
        }
        if d.per_device.len() > 1 {
            for (dev, b) in &d.per_device {
                s += &format!(
                    "  device {dev:<6} span {:.6} s, idle {}, compute {}, non-compute {}\n",
                    b.span * 1e-6,
                    pct(b.idle_share()).trim(),
                    pct(b.compute_share()).trim(),
                    pct(b.noncompute_share()).trim()
                );
            }
        }
        s
    }

    pub fn main() -> i32 {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut files = Vec::new();
        let mut json: Option<String> = None;
        let mut options = Options::default();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-h" | "--help" => {
                    let ids: Vec<&str> = brrr::model::hardware::PRESETS
                        .iter()
                        .map(|p| p.id)
                        .collect();
                    println!("{}", HELP.replace("PRESETS", &ids.join(", ")));
                    return 0;
                }
                "--json" => match args.get(i + 1) {
                    Some(out) => {
                        json = Some(out.clone());
                        i += 1;
                    }
                    None => {
                        eprintln!("brrr-trace: --json needs a file name (see --help)");
                        return 2;
                    }
                },
                "--gpu" => match args.get(i + 1).map(|id| Options::with_preset(id)) {
                    Some(Ok(o)) => {
                        options = o;
                        i += 1;
                    }
                    Some(Err(e)) => {
                        eprintln!("brrr-trace: --gpu: {e}");
                        return 2;
                    }
                    None => {
                        eprintln!("brrr-trace: --gpu needs a preset id (see --help)");
                        return 2;
                    }
                },
                s if s.starts_with("--") => {
                    eprintln!("brrr-trace: unknown option {s:?} (see --help)");
                    return 2;
                }
                _ => files.push(a.clone()),
            }
            i += 1;
        }
        if files.is_empty() {
            eprintln!(
                "brrr-trace: no trace file given (usage: brrr-trace FILE... [--json OUT] [--gpu PRESET])"
            );
            return 2;
        }
        let to_stdout = json.as_deref() == Some("-");
        let mut rows = Vec::new();
        let mut bad = false;
        for f in &files {
            // progress on a terminal: MB read (decompressed), every 16 MiB
            let tty = std::io::stderr().is_terminal();
            let mut next = 16u64 << 20;
            let mut progress = |bytes: u64| {
                if tty && bytes >= next {
                    next = bytes + (16 << 20);
                    eprint!("\rbrrr-trace: {f}: {} MB read", bytes >> 20);
                }
                true
            };
            let result = open(f).and_then(|r| analyse_with(r, &mut progress, &options));
            if tty && next > 16 << 20 {
                eprint!("\r\x1b[K");
            }
            let d = match result {
                Ok(d) => d,
                Err(e) => {
                    // one line per bad file; the others are still analysed
                    eprintln!("brrr-trace: {f}: {e}");
                    bad = true;
                    continue;
                }
            };
            let t = table(f, &d);
            if to_stdout {
                eprint!("{t}");
            } else {
                print!("{t}");
            }
            rows.push(row(f, &d));
        }
        if let Some(out) = json {
            let text = match serde_json::to_string_pretty(&Out { ranks: rows }) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("brrr-trace: JSON: {e}");
                    return 1;
                }
            };
            let written = if to_stdout {
                writeln!(std::io::stdout(), "{text}")
            } else {
                std::fs::write(&out, text + "\n")
            };
            if let Err(e) = written {
                eprintln!("brrr-trace: {out}: {e}");
                return 1;
            }
        }
        if bad {
            2
        } else {
            0
        }
    }
}
