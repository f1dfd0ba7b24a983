//! `brrr-lab`: the page's "Measure my GPU" lab outside the browser. Runs the same
//! kernels, plan, verification and analysis (`brrr::gpu`) through wgpu's native
//! backends and writes the page's JSON export, which the page's lab imports.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(native::main());
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use brrr::gpu::{analysis, datasheet, export, native, table};
    use brrr::model::units;
    use std::io::{IsTerminal, Write};

    const HELP: &str = "\
brrr-lab: measure this machine's GPU natively, as brrr's page does in the browser.

Runs the lab's kernels through wgpu (Vulkan, Metal or DX12): a copy kernel for the
bandwidth, x·m and cos chains of 1 to 1024 ops per element fused and eager, and the
fused fma chain for the compute ceiling (FMA = 2 FLOP). Every kernel's output is
verified against the same chain computed on the CPU. Prints the figures, as
percentages of the datasheet of the GPU the adapter looks like; the JSON file is
the page's export format (the lab's Import… button reads it).

Usage: brrr-lab [--small] [--wall-clock] [--json [PATH]]

  --small        small buffers (1 MiB) and few trials: seconds, even on a
                 software Vulkan driver; the figures then describe caches
  --wall-clock   time with the wall clock even where timestamp queries exist
  --json [PATH]  write the run as the page's JSON export to PATH (to standard
                 output without PATH or with -, the summary then goes to stderr)
  -h, --help     this text

Exit status: 0 when the run completed and every variant verified, 1 otherwise
(no adapter, a failed variant, a lost device).";

    struct Args {
        small: bool,
        wall_clock: bool,
        json: Option<String>,
    }

    fn parse(args: &[String]) -> Result<Option<Args>, String> {
        let mut a = Args {
            small: false,
            wall_clock: false,
            json: None,
        };
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "-h" | "--help" => return Ok(None),
                "--small" => a.small = true,
                "--wall-clock" => a.wall_clock = true,
                "--json" => {
                    let next = args.get(i + 1).filter(|n| !n.starts_with("--"));
                    a.json = Some(next.cloned().unwrap_or_else(|| "-".into()));
                    if next.is_some() {
                        i += 1;
                    }
                }
                other => return Err(format!("unknown argument {other:?} (see --help)")),
            }
            i += 1;
        }
        Ok(Some(a))
    }

    pub fn main() -> i32 {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let a = match parse(&args) {
            Ok(Some(a)) => a,
            Ok(None) => {
                println!("{HELP}");
                return 0;
            }
            Err(e) => {
                eprintln!("brrr-lab: {e}");
                return 2;
            }
        };
        let to_stdout = a.json.as_deref() == Some("-");
        // on a terminal one line rewritten in place; in a log one line per step
        let tty = std::io::stderr().is_terminal();
        let last = std::cell::RefCell::new(String::new());
        let progress = |f: f64, what: &str| {
            if tty {
                eprint!("\r\x1b[K{:3.0} % {what}", f * 100.0);
                let _ = std::io::stderr().flush();
            } else if *last.borrow() != what && what != native::OPENING {
                eprintln!("{:3.0} % {what}", f * 100.0);
                *last.borrow_mut() = what.to_string();
            }
        };
        let run = match native::run(&native::Options {
            small: a.small,
            wall_clock: a.wall_clock,
            progress: &progress,
        }) {
            Ok(r) => r,
            Err(e) => {
                if tty {
                    eprint!("\r\x1b[K");
                }
                eprintln!("brrr-lab: {e}");
                return 1;
            }
        };
        if tty {
            eprintln!();
        }
        let mut out: Box<dyn Write> = if to_stdout {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::stdout())
        };
        let _ = report(&mut out, &run);
        if let Some(path) = &a.json {
            let text = export::to_json_text(&run);
            if to_stdout {
                println!("{text}");
            } else if let Err(e) = std::fs::write(path, text + "\n") {
                eprintln!("brrr-lab: could not write {path}: {e}");
                return 1;
            } else {
                let _ = writeln!(out, "Wrote {path} (the page's lab imports it: Import…).");
            }
        }
        let failed = table::failures(&run);
        if run.outcome != brrr::gpu::results::Outcome::Complete || !failed.is_empty() {
            return 1;
        }
        0
    }

    fn report(out: &mut dyn Write, run: &brrr::gpu::results::LabRun) -> std::io::Result<()> {
        for n in table::notes(run, false) {
            writeln!(out, "- {n}")?;
        }
        let s = analysis::summary(run);
        let line = |label: &str, v: Option<f64>, unit: &str| match v {
            Some(x) => format!("{label}: {}", units::si(x, unit)),
            None => format!("{label}: —"),
        };
        writeln!(
            out,
            "{}",
            line("Copy bandwidth (read + write)", s.copy_bw, "B/s")
        )?;
        writeln!(
            out,
            "{}",
            line(
                "Compute ceiling (fma chain, FMA = 2 FLOP)",
                s.peak_flops.map(|p| p.0),
                "FLOP/s"
            )
        )?;
        writeln!(
            out,
            "{}",
            line(
                "x · m chain, at best",
                s.mul_rate.map(|p| p.0),
                " multiplies/s"
            )
        )?;
        let (cross, note) = table::cross_text(&s);
        writeln!(out, "Crossover repeat: {cross}")?;
        if let Some(note) = note {
            writeln!(out, "  {note}")?;
        }
        writeln!(
            out,
            "{}",
            line("Per dispatch (empty kernel)", s.dispatch, "s")
        )?;
        writeln!(out, "{}", line("Per queue.submit", s.submit, "s"))?;
        for f in analysis::findings(run) {
            writeln!(out, "{f}")?;
        }
        if let Some((_, words)) = brrr::gpu::cliff::of_run(run) {
            writeln!(out, "Cache cliff: {words}")?;
        }
        match datasheet::guess(&run.adapter) {
            Some(p) => {
                writeln!(out, "Against the {} datasheet (guessed from the adapter's name):", p.name)?;
                for c in datasheet::compare(&s, p) {
                    writeln!(out, "  {}: {} = {} of the {}", c.label, c.measured, c.percent(), c.datasheet)?;
                }
                writeln!(out, "{}", datasheet::CONVENTION)?;
            }
            None => writeln!(
                out,
                "brrr does not recognise this adapter as one of its presets: no datasheet comparison \
                 (the page's lab lets you pick one after importing the JSON)."
            )?,
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn args(s: &[&str]) -> Vec<String> {
            s.iter().map(|x| x.to_string()).collect()
        }

        #[test]
        fn flags() {
            let a = parse(&args(&["--small", "--json", "out.json"]))
                .unwrap()
                .unwrap();
            assert!(a.small && !a.wall_clock);
            assert_eq!(a.json.as_deref(), Some("out.json"));
            let a = parse(&args(&["--json", "--small"])).unwrap().unwrap();
            assert_eq!(a.json.as_deref(), Some("-"));
            assert!(a.small);
            let a = parse(&args(&["--json"])).unwrap().unwrap();
            assert_eq!(a.json.as_deref(), Some("-"));
            assert!(parse(&args(&["--help"])).unwrap().is_none());
            assert!(parse(&args(&["--bogus"])).is_err());
        }
    }
}
