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
    use brrr::trace::compare::{compare, file_label, CompareOut};
    use brrr::trace::report::{row, Out, Row};
    use brrr::trace::{analyse_with, Diagnosis, Options, TraceError};
    use std::fs::File;
    use std::io::{BufRead, BufReader, IsTerminal, Read, Write};

    const HELP: &str = "\
brrr-trace: where a PyTorch-profiler trace's GPU time went, and which regime
(overhead, compute, memory bandwidth, communication) the run is in.

Usage: brrr-trace FILE... [--json OUT] [--gpu PRESET]
       brrr-trace BEFORE --compare AFTER [--json OUT] [--gpu PRESET]

  FILE          a torch.profiler / Kineto trace (.json or .json.gz), one rank each
  --json OUT    also write the diagnosis as JSON to OUT (- for standard output;
                the tables then go to standard error)
  --compare AFTER  two traces of the same model, before and after a change:
                what changed per step (step time, each class's time, the regime,
                kernels that appeared or vanished) and whether the change
                delivered what brrr predicted from BEFORE; the speedup is of
                the steps as unprofiled runs would take them (each less the
                profiler's cost its trace shows), the profiled one beside it;
                --json writes
                {\"compare\": {...}, \"ranks\": [BEFORE, AFTER]}
  --gpu PRESET  place the kernels on this hardware preset's roofline and price
                matmuls_at_roof on it, instead of the preset matched from the
                trace's GPU name (needed for a GPU brrr does not know); one of
                PRESETS
  -h, --help    this text

The idle / compute / non-compute shares are HTA 0.5.0's temporal breakdown
(span = first GPU activity's start to the last one's end); the idle time by
cause, the communication overlap and the launch delay are HTA's too. The regime
is the cost class whose halving shortens the run most, each kernel in the class
of its real limit on the GPU's roof. Remedies are priced per ProfilerStep: the
step after each fix, as a trace of the fixed run would show it.

Exit status: 0 on success; 2 on bad usage or when any FILE is not a usable
trace (one line on standard error per such file; the other files are still
analysed and written to --json); 1 when OUT cannot be written.";

    /// Opens `path`, decompressing gzip (by its magic bytes, whatever the name),
    /// and says whether it is gzip.
    fn open(path: &str) -> Result<(Box<dyn Read>, bool), TraceError> {
        let file = File::open(path).map_err(|e| TraceError::Io(e.to_string()))?;
        let mut r = BufReader::with_capacity(1 << 16, file);
        let gz = r
            .fill_buf()
            .map_err(|e| TraceError::Io(e.to_string()))?
            .starts_with(&[0x1f, 0x8b]);
        let r: Box<dyn Read> = if gz {
            Box::new(flate2::read::MultiGzDecoder::new(r))
        } else {
            Box::new(r)
        };
        Ok((r, gz))
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

    /// `label`: in compare mode, "before" or "after" in place of the rank.
    fn table(file: &str, d: &Diagnosis, label: Option<&str>) -> String {
        let mut s = header(file, d, label);
        s += &breakdown_lines(d);
        s += &classes_lines(d);
        s += &remedy_lines(d);
        s += &shape_lines(d);
        s
    }

    fn header(file: &str, d: &Diagnosis, label: Option<&str>) -> String {
        let mut s = String::new();
        let rank = d.rank.map_or("?".to_string(), |r| r.to_string());
        let rank = label.map_or(format!("rank {rank}"), str::to_string);
        let device = d.device.as_deref().unwrap_or("unknown GPU");
        let preset = d.preset.map_or(String::new(), |p| format!(" (preset {p})"));
        s += &format!("{rank}: {device}{preset}\n  file          {file}\n");
        if d.roof_preset != d.preset {
            if let Some(p) = d.roof_preset {
                s += &format!("  roofline of   {p} (--gpu)\n");
            }
        }
        s += &format!(
            "  span          {:.6} s  ({} GPU activities, {} kernels, {:.0} kernels/s){}\n",
            d.span_s(),
            d.activities,
            d.kernels,
            d.launches_per_s,
            if d.steps.in_span < d.steps.count {
                format!(
                    "; HTA's span: the work of {} of the {} ProfilerSteps (HTA leaves out what the last one launched)",
                    d.steps.in_span, d.steps.count
                )
            } else {
                String::new()
            }
        );
        let st = &d.steps;
        s += &match st.basis {
            "trace" => format!(
                "  step          no ProfilerStep markers: the whole trace is one step, {:.6} s{}\n",
                st.mean * 1e-6,
                st.unprofiled.map_or(String::new(), |u| format!(
                    "; unprofiled, about {:.6} s (less {:.2} µs a profiler record)",
                    u * 1e-6,
                    st.per_record.unwrap_or(0.0)
                ))
            ),
            basis => format!(
                "  step          {:.6} s, mean of {} ProfilerSteps (the {} side was the longer){}\n",
                st.mean * 1e-6,
                st.count,
                basis,
                st.unprofiled.map_or(String::new(), |u| format!(
                    "; unprofiled, about {:.6} s (less {:.2} µs a profiler record)",
                    u * 1e-6,
                    st.per_record.unwrap_or(0.0)
                ))
            ),
        };
        if d.graphs.replay() {
            s += &format!(
                "  CUDA graphs   replayed: {} graph launches, {} activities replayed\n",
                d.graphs.launches, d.graphs.replayed
            );
        }
        s
    }

    fn breakdown_lines(d: &Diagnosis) -> String {
        let mut s = String::new();
        s += &format!(
            "  idle          {}  (waiting for launches {}, other {})\n",
            pct(d.hta.idle_share()),
            pct(d.launch_wait_share()).trim(),
            pct(d.hta.idle_share() - d.launch_wait_share()).trim()
        );
        if let Some((h, k, o)) = d.idle.shares() {
            s += &format!(
                "  idle by cause HTA: host wait {}, kernel wait {}, other {} (of idle time)\n",
                pct(h).trim(),
                pct(k).trim(),
                pct(o).trim()
            );
        }
        s += &format!(
            "  kernels busy  {}  (HTA's \"compute\")\n",
            pct(d.hta.compute_share())
        );
        s += &format!(
            "  non-compute   {}  (HTA's split; by real limit: communication {}, memory-bound {}, compute-bound {} of span)\n",
            pct(d.hta.noncompute_share()),
            pct(d.comm_share).trim(),
            pct(d.memory_class_share).trim(),
            pct(d.compute_class_share).trim()
        );
        if let Some(o) = d.comm_overlap {
            s += &format!(
                "  comm overlap  {} of communication time beside computation (HTA)\n",
                pct(o).trim()
            );
        }
        if let Some(m) = d.launch.delay_median {
            s += &format!(
                "  launches      median launch delay {m} µs over {} launches; {} ran shorter than their launch call (HTA); {} waited in the stream behind earlier work{}\n",
                d.launch.count,
                d.launch.short,
                d.launch.queued,
                if d.graphs.launches > 0 {
                    format!(
                        " (HTA pairs kernel, memcpy and memset launches, not the {} graph launches: these are the launches outside the graphs)",
                        d.graphs.launches
                    )
                } else {
                    String::new()
                }
            );
        }
        s += &format!(
            "  short kernels {} of {} under {} µs ({} of kernel time)\n",
            d.short_kernels,
            d.kernels,
            brrr::trace::SHORT_KERNEL_US,
            pct(d.short_kernel_time_share).trim()
        );
        s
    }

    fn classes_lines(d: &Diagnosis) -> String {
        let mut s = String::new();
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
        s
    }

    fn remedy_lines(d: &Diagnosis) -> String {
        let halvings: Vec<String> = d
            .halvings
            .iter()
            .map(|h| format!("{} {}", h.class.id(), pct(h.saving).trim()))
            .collect();
        let mut s = format!(
            "  regime        {} (halving saves: {})\n",
            d.regime.id(),
            halvings.join(", ")
        );
        for (i, r) in d.remedies.iter().enumerate() {
            s += &format!(
                "  {} {:<21} ×{:<6.2} step after {:.6} s{}\n      {}\n",
                if i == 0 { "best remedy" } else { "           " },
                r.id,
                r.speedup,
                r.step_after * 1e-6,
                r.speedup_unprofiled.map_or(String::new(), |u| {
                    brrr::trace::words::unprofiled_bracket(u, &format!("×{u:.2}"))
                }),
                r.label
            );
        }
        s
    }

    fn shape_lines(d: &Diagnosis) -> String {
        let mut s = String::new();
        if d.placed_kernels > 0 {
            s += &format!(
                "  by shape      {} of {} kernels placed on their aten ops ({} op/kernel pairs)\n",
                d.placed_kernels,
                d.kernels,
                d.roofline.len()
            );
        }
        if !d.unplaced.is_empty() {
            s += &format!(
                "  not placed    {:.6} s of kernel time: {:.6} s memory-bound by its tile and launch grid, {:.6} s classed by name\n",
                (d.launch_time + d.unplaced_time) * 1e-6,
                d.launch_time * 1e-6,
                d.unplaced_time * 1e-6
            );
            for u in d.unplaced.iter().take(4) {
                s += &format!(
                    "    {:>9.6} s {:>7}×  {:<8} {}\n      {}\n",
                    u.time * 1e-6,
                    u.count,
                    u.cost.id(),
                    short(&u.name, 60),
                    u.why
                );
            }
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
                p.dtype.as_deref().unwrap_or("?"),
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

    /// What the command line asked for.
    struct Args {
        files: Vec<String>,
        json: Option<String>,
        compare: Option<String>,
        options: Options,
    }

    /// The command line, or the exit status to return at once.
    fn args() -> Result<Args, i32> {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let mut a = Args {
            files: Vec::new(),
            json: None,
            compare: None,
            options: Options::default(),
        };
        let mut i = 0;
        while let Some(x) = argv.get(i) {
            let value = |what: &str| {
                argv.get(i + 1).cloned().ok_or_else(|| {
                    eprintln!("brrr-trace: {x} needs {what} (see --help)");
                    2
                })
            };
            match x.as_str() {
                "-h" | "--help" => {
                    let ids: Vec<&str> = brrr::model::hardware::PRESETS
                        .iter()
                        .map(|p| p.id)
                        .collect();
                    println!("{}", HELP.replace("PRESETS", &ids.join(", ")));
                    return Err(0);
                }
                "--json" => a.json = Some(value("a file name")?),
                "--compare" => a.compare = Some(value("a second trace")?),
                "--gpu" => {
                    a.options = Options::with_preset(&value("a preset id")?).map_err(|e| {
                        eprintln!("brrr-trace: --gpu: {e}");
                        2
                    })?
                }
                s if s.starts_with("--") => {
                    eprintln!("brrr-trace: unknown option {s:?} (see --help)");
                    return Err(2);
                }
                _ => {
                    a.files.push(x.clone());
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        if a.files.is_empty() {
            eprintln!("brrr-trace: no trace file given (usage: brrr-trace FILE... [--json OUT] [--gpu PRESET])");
            return Err(2);
        }
        if a.compare.is_some() && a.files.len() != 1 {
            eprintln!("brrr-trace: --compare takes one trace before it (BEFORE --compare AFTER)");
            return Err(2);
        }
        Ok(a)
    }

    /// One file analysed, with progress on a terminal; one line on standard
    /// error if it is not a usable trace.
    fn analyse_file(f: &str, options: &Options) -> Option<Diagnosis> {
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
        // a read that fails inside gzip data is the data's fault (corrupt or cut
        // short), as the page says of it, not the disk's
        let result = open(f).and_then(|(r, gz)| match analyse_with(r, &mut progress, options) {
            Err(TraceError::Io(_)) if gz => Err(TraceError::BadGzip),
            other => other,
        });
        if tty && next > 16 << 20 {
            eprint!("\r\x1b[K");
        }
        result.map_err(|e| eprintln!("brrr-trace: {f}: {e}")).ok()
    }

    /// Writes `value` as JSON to `out` (`-`: standard output); 1 on failure.
    fn write_json<T: serde::Serialize>(out: &str, value: &T) -> i32 {
        let text = match serde_json::to_string_pretty(value) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("brrr-trace: JSON: {e}");
                return 1;
            }
        };
        let written = if out == "-" {
            writeln!(std::io::stdout(), "{text}")
        } else {
            std::fs::write(out, text + "\n")
        };
        match written {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("brrr-trace: {out}: {e}");
                1
            }
        }
    }

    pub fn main() -> i32 {
        let a = match args() {
            Ok(a) => a,
            Err(code) => return code,
        };
        let to_stdout = a.json.as_deref() == Some("-");
        let say = |t: &str| {
            if to_stdout {
                eprint!("{t}");
            } else {
                print!("{t}");
            }
        };
        let files: Vec<String> = a.files.iter().chain(&a.compare).cloned().collect();
        let mut rows: Vec<Row> = Vec::new();
        let mut bad = false;
        for (i, f) in files.iter().enumerate() {
            match analyse_file(f, &a.options) {
                Some(d) => {
                    let label = a.compare.is_some().then(|| file_label(i));
                    say(&table(f, &d, label));
                    rows.push(row(f, &d));
                }
                None => bad = true,
            }
        }
        if a.compare.is_some() {
            let (Some(before), Some(after)) = (rows.first(), rows.get(1)) else {
                return 2;
            };
            let c = compare(before, after);
            say(&format!("compare       {}\n", c.sentence));
            if let Some(out) = &a.json {
                let code = write_json(
                    out,
                    &CompareOut {
                        compare: c,
                        ranks: rows,
                    },
                );
                if code != 0 {
                    return code;
                }
            }
        } else if let Some(out) = &a.json {
            let code = write_json(out, &Out { ranks: rows });
            if code != 0 {
                return code;
            }
        }
        if bad {
            2
        } else {
            0
        }
    }
}
