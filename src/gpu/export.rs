//! Export and import of a run: JSON (the storage and exchange format) and CSV (one
//! row per measurement, for spreadsheets; the run's metadata in leading `#` lines).
//! Both round-trip exactly: import(export(run)) == run.

use super::json::{self, Json};
use super::results::*;
use crate::csv;

/// Schema name and version of the export (and of the localStorage entry).
pub const FORMAT: &str = "brrr-lab";
pub const VERSION: u32 = 1;

fn s(x: &str) -> Json {
    Json::Str(x.to_string())
}
fn n(x: f64) -> Json {
    Json::Num(x)
}
fn list(xs: &[f64]) -> Json {
    Json::Arr(xs.iter().map(|&x| Json::Num(x)).collect())
}

/// The cache sweep's reading (derived from the measurements, so never imported):
/// `bw`, `bytes` and `mem_bw` (`lab_cache_bw`, `lab_cache_bytes`, `lab_mem_bw`;
/// null where there is none) and the words.
fn cache_json(run: &LabRun) -> Json {
    let Some((c, words)) = super::cliff::of_run(run) else {
        return Json::Null;
    };
    let opt = |x: Option<f64>| x.map_or(Json::Null, Json::Num);
    Json::Obj(vec![
        ("bw".into(), n(c.cache_bw)),
        ("bytes".into(), opt(c.cache_bytes)),
        ("mem_bw".into(), opt(c.mem_bw)),
        ("words".into(), s(&words)),
    ])
}

pub fn to_json(run: &LabRun) -> Json {
    let a = &run.adapter;
    let o = &run.overheads;
    Json::Obj(vec![
        ("format".into(), s(FORMAT)),
        ("version".into(), n(f64::from(VERSION))),
        ("outcome".into(), s(run.outcome.id())),
        ("reason".into(), s(&run.reason)),
        ("date".into(), s(&run.date)),
        ("timer".into(), s(run.timer.id())),
        ("small".into(), Json::Bool(run.small)),
        ("elements".into(), n(run.elements as f64)),
        (
            "adapter".into(),
            Json::Obj(vec![
                ("vendor".into(), s(&a.vendor)),
                ("architecture".into(), s(&a.architecture)),
                ("description".into(), s(&a.description)),
                ("device".into(), s(&a.device)),
                ("fallback".into(), Json::Bool(a.fallback)),
                ("timestamps".into(), Json::Bool(a.timestamps)),
                ("f16".into(), Json::Bool(a.f16)),
                ("max_storage_binding".into(), n(a.max_storage_binding)),
                ("max_buffer".into(), n(a.max_buffer)),
                (
                    "max_workgroups_per_dim".into(),
                    n(f64::from(a.max_workgroups_per_dim)),
                ),
                ("max_invocations".into(), n(f64::from(a.max_invocations))),
            ]),
        ),
        (
            "notes".into(),
            Json::Arr(run.notes.iter().map(|x| s(x)).collect()),
        ),
        (
            "overheads".into(),
            Json::Obj(vec![
                ("dispatch_s".into(), list(&o.dispatch)),
                ("encode_s".into(), list(&o.encode)),
                ("submit_s".into(), list(&o.submit)),
                ("roundtrip_s".into(), list(&o.roundtrip)),
            ]),
        ),
        ("cache".into(), cache_json(run)),
        (
            "measurements".into(),
            Json::Arr(run.measurements.iter().map(measurement_json).collect()),
        ),
    ])
}

fn measurement_json(m: &Measurement) -> Json {
    let (check, max_err, samples, detail) = check_fields(&m.check);
    Json::Obj(vec![
        ("kernel".into(), s(m.kernel.id())),
        ("op".into(), s(m.op.map_or("", Op::id))),
        ("dtype".into(), s(m.dt.id())),
        ("repeat".into(), n(f64::from(m.repeat))),
        ("elements".into(), n(m.elements as f64)),
        ("times_s".into(), list(&m.times)),
        ("check".into(), s(check)),
        ("max_err".into(), n(max_err)),
        ("samples".into(), n(samples as f64)),
        ("detail".into(), s(detail)),
        // how often the trials were taken again, and whether they are still
        // spread more than ±10 % (derived from times_s: written, not read back)
        ("remeasured".into(), n(f64::from(m.remeasured))),
        ("noisy".into(), Json::Bool(m.noisy())),
    ])
}

fn check_fields(c: &Check) -> (&'static str, f64, u64, &str) {
    match c {
        Check::Passed { max_err, samples } => ("passed", *max_err, *samples, ""),
        Check::Failed { detail } => ("failed", 0.0, 0, detail.as_str()),
    }
}

fn check_from(check: &str, max_err: f64, samples: u64, detail: &str) -> Result<Check, String> {
    match check {
        "passed" => Ok(Check::Passed { max_err, samples }),
        "failed" => Ok(Check::Failed {
            detail: detail.to_string(),
        }),
        other => Err(format!("unknown check {other:?}")),
    }
}

pub fn to_json_text(run: &LabRun) -> String {
    to_json(run).to_text()
}

fn bad(k: &str) -> String {
    format!("\"{k}\" is missing or malformed")
}
fn field<'a>(j: &'a Json, k: &str) -> Result<&'a Json, String> {
    j.get(k).ok_or_else(|| bad(k))
}
fn str_of(j: &Json, k: &str) -> Result<String, String> {
    field(j, k)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| bad(k))
}
fn num_of(j: &Json, k: &str) -> Result<f64, String> {
    field(j, k)?.as_f64().ok_or_else(|| bad(k))
}
fn bool_of(j: &Json, k: &str) -> Result<bool, String> {
    field(j, k)?.as_bool().ok_or_else(|| bad(k))
}
/// A non-negative integer that fits `max`.
fn int_of(j: &Json, k: &str, max: f64) -> Result<f64, String> {
    let x = num_of(j, k)?;
    if x >= 0.0 && x <= max && x.fract() == 0.0 {
        Ok(x)
    } else {
        Err(bad(k))
    }
}
fn arr_of<'a>(j: &'a Json, k: &str) -> Result<&'a [Json], String> {
    field(j, k)?.as_arr().ok_or_else(|| bad(k))
}
fn list_of(j: &Json, k: &str) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    for x in arr_of(j, k)? {
        v.push(x.as_f64().ok_or_else(|| bad(k))?);
    }
    Ok(v)
}

pub fn from_json(j: &Json) -> Result<LabRun, String> {
    if j.get("format").and_then(Json::as_str) != Some(FORMAT) {
        return Err(format!("not a {FORMAT} export"));
    }
    let v = num_of(j, "version")?;
    if v != f64::from(VERSION) {
        return Err(format!("version {v} is not supported (expected {VERSION})"));
    }
    let a = field(j, "adapter")?;
    let o = field(j, "overheads")?;
    let mut measurements = Vec::new();
    for (i, m) in arr_of(j, "measurements")?.iter().enumerate() {
        measurements.push(measurement_from(m).map_err(|e| format!("measurement {i}: {e}"))?);
    }
    let mut notes = Vec::new();
    for n in arr_of(j, "notes")? {
        notes.push(n.as_str().ok_or_else(|| bad("notes"))?.to_string());
    }
    Ok(LabRun {
        outcome: Outcome::from_id(&str_of(j, "outcome")?).ok_or("unknown outcome")?,
        reason: str_of(j, "reason")?,
        date: str_of(j, "date")?,
        timer: Timer::from_id(&str_of(j, "timer")?).ok_or("unknown timer")?,
        small: bool_of(j, "small")?,
        elements: int_of(j, "elements", 9e15)? as u64,
        adapter: AdapterInfo {
            vendor: str_of(a, "vendor")?,
            architecture: str_of(a, "architecture")?,
            description: str_of(a, "description")?,
            device: str_of(a, "device")?,
            fallback: bool_of(a, "fallback")?,
            timestamps: bool_of(a, "timestamps")?,
            f16: bool_of(a, "f16")?,
            max_storage_binding: num_of(a, "max_storage_binding")?,
            max_buffer: num_of(a, "max_buffer")?,
            max_workgroups_per_dim: int_of(a, "max_workgroups_per_dim", f64::from(u32::MAX))?
                as u32,
            max_invocations: int_of(a, "max_invocations", f64::from(u32::MAX))? as u32,
        },
        notes,
        overheads: Overheads {
            dispatch: list_of(o, "dispatch_s")?,
            encode: list_of(o, "encode_s")?,
            submit: list_of(o, "submit_s")?,
            roundtrip: list_of(o, "roundtrip_s")?,
        },
        measurements,
    })
}

fn measurement_from(m: &Json) -> Result<Measurement, String> {
    let op = str_of(m, "op")?;
    let op = if op.is_empty() {
        None
    } else {
        Some(Op::from_id(&op).ok_or("unknown op")?)
    };
    valid(Measurement {
        kernel: Kernel::from_id(&str_of(m, "kernel")?).ok_or("unknown kernel")?,
        op,
        dt: Dt::from_id(&str_of(m, "dtype")?).ok_or("unknown dtype")?,
        repeat: int_of(m, "repeat", 1e6)? as u32,
        elements: int_of(m, "elements", 9e15)? as u64,
        times: list_of(m, "times_s")?,
        check: check_from(
            &str_of(m, "check")?,
            num_of(m, "max_err")?,
            int_of(m, "samples", 9e15)? as u64,
            &str_of(m, "detail")?,
        )?,
        // absent from exports written before re-measuring existed
        remeasured: match m.get("remeasured") {
            None => 0,
            Some(_) => int_of(m, "remeasured", 1e3)? as u32,
        },
    })
}

/// A measurement that makes sense: non-negative times, an op unless it is the copy
/// or the cache sweep's read kernel.
fn valid(m: Measurement) -> Result<Measurement, String> {
    if m.times.iter().any(|t| !(t.is_finite() && *t >= 0.0)) {
        return Err("a time is negative".into());
    }
    if matches!(m.kernel, Kernel::Copy | Kernel::Read) != m.op.is_none() {
        return Err("only the copy and read kernels have no op".into());
    }
    Ok(m)
}

/// Parse an export: JSON or CSV, told apart by the first character.
pub fn import(text: &str) -> Result<LabRun, String> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') {
        from_json(&json::parse(t)?)
    } else if t.starts_with('#') {
        from_csv(t)
    } else {
        Err("neither a JSON nor a CSV lab export".into())
    }
}

// --- CSV ------------------------------------------------------------------------
//
// Line 1 names the format; line 2 is `# ` + the run's JSON without measurements
// (adapter, overheads, notes: everything a spreadsheet does not need as columns);
// then a header and one row per measurement. Import turns the rows back into the
// JSON form, so both formats share one validator.

/// Columns of the measurement rows. `median_s` … `gbps` and `noisy` (1 when the
/// trials spread more than ±10 %) are derived (written for spreadsheets, ignored
/// on import); `times_s` holds every trial, space-separated; `remeasured` counts
/// how often the trials were taken again.
pub const CSV_COLUMNS: &str =
    "kernel,op,dtype,repeat,elements,median_s,spread,gflops,gbps,check,max_err,samples,detail,times_s,noisy,remeasured";
/// The header of exports written before `noisy` and `remeasured` (still read).
const CSV_COLUMNS_V1_0: &str =
    "kernel,op,dtype,repeat,elements,median_s,spread,gflops,gbps,check,max_err,samples,detail,times_s";

fn opt(x: Option<f64>) -> String {
    x.map(json::num).unwrap_or_default()
}

pub fn to_csv(run: &LabRun) -> String {
    let mut meta = to_json(&LabRun {
        measurements: Vec::new(),
        ..run.clone()
    });
    // the cache sweep's reading is derived from the rows below: of the whole run
    if let Json::Obj(kv) = &mut meta {
        for (k, v) in kv.iter_mut() {
            if k == "cache" {
                *v = cache_json(run);
            }
        }
    }
    let meta = meta.to_text(); // one line: JSON escapes line breaks inside strings
    let mut out = format!("# {FORMAT} v{VERSION}\n# {meta}\n{CSV_COLUMNS}\n");
    for m in &run.measurements {
        let (check, max_err, samples, detail) = check_fields(&m.check);
        let times: Vec<String> = m.times.iter().map(|&t| json::num(t)).collect();
        let row = [
            m.kernel.id().to_string(),
            m.op.map_or("", Op::id).to_string(),
            m.dt.id().to_string(),
            m.repeat.to_string(),
            json::num(m.elements as f64),
            opt(m.time()),
            opt(spread(&m.times)),
            opt(m.achieved_flops().map(|f| f / 1e9)),
            opt(m.achieved_bw().map(|b| b / 1e9)),
            check.to_string(),
            json::num(max_err),
            samples.to_string(),
            detail.to_string(),
            times.join(" "),
            u8::from(m.noisy()).to_string(),
            m.remeasured.to_string(),
        ];
        out.push_str(&csv::record(&row));
        out.push('\n');
    }
    out
}

/// The next line of `rest` (without its `\n` or `\r\n`), and `rest` moves past it.
fn take_line<'a>(rest: &mut &'a str) -> Option<&'a str> {
    if rest.is_empty() {
        return None;
    }
    let (line, tail) = rest.split_once('\n').unwrap_or((rest, ""));
    *rest = tail;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

pub fn from_csv(text: &str) -> Result<LabRun, String> {
    let mut rest = text;
    if take_line(&mut rest).map(str::trim) != Some(&format!("# {FORMAT} v{VERSION}")) {
        return Err(format!("not a {FORMAT} v{VERSION} CSV export"));
    }
    let meta = take_line(&mut rest)
        .and_then(|l| l.strip_prefix("# "))
        .ok_or("line 2 should hold the run as JSON")?;
    let mut j = json::parse(meta)?;
    let fields = match take_line(&mut rest) {
        Some(CSV_COLUMNS) => 16,
        Some(CSV_COLUMNS_V1_0) => 14,
        _ => return Err("line 3 should be the column header".into()),
    };
    let mut rows = Vec::new();
    // a record may span lines (a quoted detail with line breaks): `start` is the
    // line of the file it starts on
    for (start, mut f) in csv::records(rest) {
        let line = start + 3;
        if f.len() != fields {
            return Err(format!("line {line}: expected {fields} fields"));
        }
        // the 14 columns every version has, then `noisy` (derived) and `remeasured`
        let remeasured = if fields == 16 { f.pop() } else { None };
        f.truncate(14);
        let [kernel, op, dtype, repeat, elements, _, _, _, _, check, max_err, samples, detail, times] =
            <[String; 14]>::try_from(f)
                .map_err(|_| format!("line {line}: expected {fields} fields"))?;
        let num = |x: &str| -> Result<Json, String> {
            x.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Json::Num)
                .ok_or_else(|| format!("line {line}: bad number {x:?}"))
        };
        rows.push(Json::Obj(vec![
            ("kernel".into(), Json::Str(kernel)),
            ("op".into(), Json::Str(op)),
            ("dtype".into(), Json::Str(dtype)),
            ("repeat".into(), num(&repeat)?),
            ("elements".into(), num(&elements)?),
            (
                "times_s".into(),
                Json::Arr(
                    times
                        .split_whitespace()
                        .map(num)
                        .collect::<Result<_, _>>()?,
                ),
            ),
            ("check".into(), Json::Str(check)),
            ("max_err".into(), num(&max_err)?),
            ("samples".into(), num(&samples)?),
            ("detail".into(), Json::Str(detail)),
            (
                "remeasured".into(),
                num(remeasured.as_deref().unwrap_or("0"))?,
            ),
        ]));
    }
    if let Json::Obj(kv) = &mut j {
        kv.retain(|(k, _)| k != "measurements");
        kv.push(("measurements".into(), Json::Arr(rows)));
    }
    from_json(&j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::analysis::tests::synthetic;

    fn rich() -> LabRun {
        let mut run = synthetic();
        run.outcome = Outcome::Partial;
        run.reason = "The GPU device was lost: \"destroyed\", sorry\nline two".into();
        run.adapter.vendor = "google".into();
        run.adapter.description = "Swift, \"Shader\"".into();
        run.adapter.max_storage_binding = 1073741824.0;
        run.adapter.max_workgroups_per_dim = 65535;
        run.notes = vec!["#not a comment, really".into(), "plain".into()];
        run.measurements[3].check = Check::Failed {
            detail: "element 7: GPU 1e0, CPU 2e0 (tolerance exact)".into(),
        };
        run.measurements[4].times = vec![0.1, 1.0 / 3.0, 2.5e-7];
        run.measurements[4].remeasured = 2;
        run.measurements[5].dt = Dt::F16;
        run
    }

    /// `rich()` with a cache sweep: 400 GB/s up to 1 MiB, 100 GB/s beyond.
    fn with_sweep() -> LabRun {
        let mut run = rich();
        for k in 0..8u32 {
            let ws = 65536u64 << k;
            let bw = if ws <= 1 << 20 { 4e11 } else { 1e11 };
            run.measurements.push(Measurement {
                kernel: Kernel::Read,
                op: None,
                dt: Dt::F32,
                repeat: 4,
                elements: ws / 4,
                times: vec![4.0 * ws as f64 / bw; 3],
                check: Check::Passed {
                    max_err: 1e-6,
                    samples: 2048,
                },
                remeasured: 0,
            });
        }
        run
    }

    #[test]
    fn a_cache_sweep_round_trips_and_carries_its_reading() {
        let run = with_sweep();
        let text = to_json_text(&run);
        assert_eq!(import(&text).as_ref(), Ok(&run));
        assert_eq!(import(&to_csv(&run)).as_ref(), Ok(&run));
        let csv_meta = to_csv(&run).lines().nth(1).unwrap_or("")[2..].to_string();
        for t in [text.clone(), csv_meta] {
            let j = json::parse(&t).unwrap();
            let c = j.get("cache").unwrap();
            assert_eq!(c.get("bw").and_then(Json::as_f64), Some(4e11), "{t}");
            assert_eq!(c.get("mem_bw").and_then(Json::as_f64), Some(1e11), "{t}");
            let at = c.get("bytes").and_then(Json::as_f64).unwrap();
            assert!(at > 1048576.0 && at < 2097152.0, "{at}");
        }
        // without a sweep: null; a read row with an op is refused
        assert!(to_json_text(&rich()).contains("\"cache\":null"));
        let bad = text.replacen(
            "\"kernel\":\"read\",\"op\":\"\"",
            "\"kernel\":\"read\",\"op\":\"mul\"",
            1,
        );
        assert_ne!(bad, text);
        assert!(import(&bad).is_err());
    }

    #[test]
    fn json_round_trip_is_exact() {
        let run = rich();
        let text = to_json_text(&run);
        let back = import(&text);
        assert_eq!(back.as_ref(), Ok(&run));
        assert_eq!(back.map(|b| to_json_text(&b)), Ok(text));
    }

    #[test]
    fn csv_round_trip_is_exact() {
        let run = rich();
        let text = to_csv(&run);
        let back = import(&text);
        assert_eq!(back.as_ref(), Ok(&run), "{text}");
        assert_eq!(back.map(|b| to_csv(&b)), Ok(text));
    }

    #[test]
    fn csv_round_trip_keeps_multi_line_details() {
        // a variant whose WGSL did not compile: the browser's message spans lines
        // and holds commas and quotes
        let mut run = rich();
        let detail = "shader did not compile: error: expected ';', found \"v\"\n  \
                      ┌─ wgsl:7:13\n  │\n7 │     v = v * m\r\n  │             ^ expected ';'\n";
        run.measurements[2].check = Check::Failed {
            detail: detail.into(),
        };
        run.measurements[6].check = Check::Failed {
            detail: "\"quoted\", then\n\nan empty line".into(),
        };
        let text = to_csv(&run);
        let back = import(&text);
        assert_eq!(back.as_ref(), Ok(&run), "{text}");
        assert_eq!(back.map(|b| to_csv(&b)), Ok(text.clone()));
        // the same file saved by a spreadsheet with CRLF line ends
        assert_eq!(
            import(&text.replace('\n', "\r\n")).map(|b| b.measurements.len()),
            Ok(run.measurements.len())
        );
        // a broken row after the multi-line ones is reported at its own line
        let cut = text.trim_end().rsplit_once(',').map(|(a, _)| a.to_string());
        let lines = text.trim_end().lines().count();
        assert_eq!(
            cut.map(|t| import(&t)),
            Some(Err(format!("line {lines}: expected 16 fields")))
        );
    }

    #[test]
    fn csv_has_derived_columns() {
        let text = to_csv(&synthetic());
        let row = text
            .lines()
            .find(|l| l.starts_with("fused,mul,f32,1024,"))
            .unwrap_or_default();
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f.len(), 16);
        let gflops: f64 = f[7].parse().unwrap_or(0.0);
        assert!((gflops - 1000.0).abs() < 1e-6, "{row}");
        assert_eq!((f[14], f[15]), ("0", "0"), "quiet, measured once: {row}");
    }

    #[test]
    fn noisy_and_remeasured_are_in_both_exports() {
        let mut run = synthetic();
        run.measurements[2].times = vec![0.8, 1.0, 1.25];
        run.measurements[2].remeasured = 2;
        let json = to_json_text(&run);
        assert!(json.contains("\"remeasured\":2,\"noisy\":true"), "{json}");
        assert_eq!(json.matches("\"noisy\":true").count(), 1);
        let csv = to_csv(&run);
        let noisy: Vec<&str> = csv.lines().filter(|l| l.ends_with(",1,2")).collect();
        assert_eq!(noisy.len(), 1, "{csv}");
        assert_eq!(import(&csv), Ok(run.clone()));
        assert_eq!(import(&json), Ok(run));
    }

    #[test]
    fn exports_from_before_remeasuring_still_import() {
        let run = synthetic();
        // JSON without the two fields
        let old = to_json_text(&run).replace(",\"remeasured\":0,\"noisy\":false", "");
        assert!(!old.contains("remeasured"));
        assert_eq!(import(&old), Ok(run.clone()));
        // CSV with the 14-column header
        let old: String = to_csv(&run)
            .lines()
            .map(|l| {
                let l = l.strip_suffix(",noisy,remeasured").unwrap_or(l);
                let l = l.strip_suffix(",0,0").unwrap_or(l);
                format!("{l}\n")
            })
            .collect();
        assert!(old.contains(CSV_COLUMNS_V1_0) && !old.contains("remeasured"));
        assert_eq!(import(&old), Ok(run));
    }

    #[test]
    fn bad_imports_are_errors() {
        for bad in [
            "",
            "hello",
            "{}",
            "{\"format\":\"brrr-lab\",\"version\":2}",
            "{\"format\":\"brrr-lab\",\"version\":1}",
            "# brrr-lab v1\n",
            "# brrr-lab v1\nkernel,op\n",
            "{\"format\":\"brrr-lab\"",
        ] {
            assert!(import(bad).is_err(), "{bad:?}");
        }
        // a corrupted field names itself
        let text = to_json_text(&synthetic()).replace("\"fused\"", "\"fuzed\"");
        let err = import(&text).err().unwrap_or_default();
        assert!(err.contains("unknown kernel"), "{err}");
        let text = to_csv(&synthetic()).replace("fused,mul", "fused,div");
        assert!(import(&text).is_err());
        let text = to_csv(&synthetic()).replacen(",passed,", ",passed,x,", 1);
        assert!(import(&text).is_err());
        let text = to_json_text(&synthetic()).replacen("\"times_s\":[", "\"times_s\":[-1,", 1);
        assert!(import(&text).is_err());
    }
}
