//! Engineering notation: formatting numbers with SI prefixes and parsing what a
//! user types into a number box.

const PREFIXES: [(f64, &str); 11] = [
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
    (1e-12, "p"),
];

/// `3.12e14, "FLOP/s"` -> `"312 TFLOP/s"`. Three significant digits.
pub fn si(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return format!("– {unit}");
    }
    if value == 0.0 {
        return format!("0 {unit}");
    }
    let abs = value.abs();
    let (scale, prefix) = PREFIXES
        .iter()
        .copied()
        .find(|(s, _)| abs >= *s * 0.9995)
        .unwrap_or((1e-12, "p"));
    format!("{} {prefix}{unit}", sig3(value / scale))
}

/// A byte count (or rate) in whole GB (1 GB = 1e9 bytes) with thousands
/// separators, as datasheets print it: `1.555e12` -> `"1,555"`, `4e10` -> `"40"`;
/// below 100 GB one decimal where it is not zero (`1.5e9` -> `"1.5"`).
/// Two byte counts in GB (1e9) with as many decimals as it takes (up to three)
/// for unequal values never to print alike: "141.1" and "141.0", not "141" twice.
pub fn gb_apart(a: f64, b: f64) -> (String, String) {
    let (x, y) = (gb(a), gb(b));
    if x != y || a == b {
        return (x, y);
    }
    for d in 1..=3usize {
        let (x, y) = (format!("{:.d$}", a / 1e9), format!("{:.d$}", b / 1e9));
        if x != y {
            return (x, y);
        }
    }
    (x, y)
}

pub fn gb(bytes: f64) -> String {
    let v = bytes / 1e9;
    if !v.is_finite() {
        return "–".into();
    }
    if v.abs() < 99.95 {
        let s = format!("{v:.1}");
        return s.strip_suffix(".0").map(str::to_string).unwrap_or(s);
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// A whole number with its thousands grouped by commas, as prose writes it:
/// `280e3` -> `"280,000"` (rounded to a whole number first).
pub fn grouped(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if value < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// A large count in words, three significant digits: `3.89e11` -> `"389 billion"`,
/// `1.95e13` -> `"19.5 trillion"`; below a million, the plain number.
pub fn words(value: f64) -> String {
    const SCALES: [(f64, &str); 5] = [
        (1e18, "quintillion"),
        (1e15, "quadrillion"),
        (1e12, "trillion"),
        (1e9, "billion"),
        (1e6, "million"),
    ];
    match SCALES.iter().find(|(s, _)| value.abs() >= *s * 0.9995) {
        Some((scale, name)) if value.is_finite() => format!("{} {name}", sig3(value / scale)),
        _ => sig3(value),
    }
}

/// Three significant digits without trailing zeros: 312, 19.5, 9.75, 1.56.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 99.95 {
        0
    } else if a >= 9.995 {
        1
    } else {
        2
    };
    // Nudge by one part in 1e12 so decimal halves like 1.555 (stored as
    // 1.55499999...) round up the way a reader expects.
    let nudged = v * (1.0 + 1e-12);
    let s = format!("{nudged:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Percent with one decimal: `0.615` -> `"61.5 %"`.
pub fn percent(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}

/// A figure before and after a change as the page writes it: `"432 ms → 14.6 s"`,
/// or `"unchanged at 432 ms"` where the two print alike (no sentence says
/// "X → X").
pub fn arrow(before: &str, after: &str) -> String {
    if before == after {
        format!("unchanged at {before}")
    } else {
        format!("{before} → {after}")
    }
}

/// A count with its noun in the right number: `(1, "kernel", "kernels")` ->
/// `"1 kernel"`, `(9, "kernel", "kernels")` -> `"9 kernels"`. THE plural rule:
/// every count the page writes beside its noun goes through here (or
/// [`amount`], [`noun`]).
pub fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", noun(f64::from(n), one, many))
}

/// A quantity that need not be whole (three significant digits, [`sig3`]) with
/// its noun: `(1.0, "token", "tokens")` -> `"1 token"`, `(2.5e3, …)` ->
/// `"2500 tokens"`.
pub fn amount(v: f64, one: &'static str, many: &'static str) -> String {
    let text = sig3(v);
    let noun = if text == "1" { one } else { many };
    format!("{text} {noun}")
}

/// The noun for `n` of it: singular for exactly one, plural otherwise (zero
/// included: "0 kernels").
pub fn noun<'a>(n: f64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1.0 {
        one
    } else {
        many
    }
}

/// Why a typed number was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Empty,
    NotANumber,
    NotFinite,
    NotPositive,
    OutOfRange { min: String, max: String },
    NotInteger,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Empty => write!(f, "enter a number"),
            ParseError::NotANumber => write!(f, "not a number"),
            ParseError::NotFinite => write!(f, "must be a finite number"),
            ParseError::NotPositive => write!(f, "must be greater than zero"),
            ParseError::OutOfRange { min, max } => write!(f, "must be between {min} and {max}"),
            ParseError::NotInteger => write!(f, "must be a whole number"),
        }
    }
}

/// Parse a plain or exponent-notation number, optionally followed by one SI prefix
/// letter (`k M G T P`, case-sensitive for m/M): `"312"`, `"3.12e14"`, `"1.5 T"`.
/// Returns the number times the prefix; never panics.
pub fn parse_number(text: &str) -> Result<f64, ParseError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ParseError::Empty);
    }
    let (num, mult) = match t.char_indices().last() {
        Some((i, c))
            if c.is_ascii_alphabetic()
                && !t.eq_ignore_ascii_case("inf")
                && !t.eq_ignore_ascii_case("nan") =>
        {
            let m = match c {
                'k' | 'K' => 1e3,
                'M' => 1e6,
                'G' | 'g' => 1e9,
                'T' | 't' => 1e12,
                'P' | 'p' => 1e15,
                _ => return Err(ParseError::NotANumber),
            };
            (t[..i].trim_end(), m)
        }
        _ => (t, 1.0),
    };
    // Rust's float grammar accepts "inf"/"NaN"; we reject them explicitly below.
    let v: f64 = num.parse().map_err(|_| ParseError::NotANumber)?;
    let v = v * mult;
    if !v.is_finite() {
        return Err(ParseError::NotFinite);
    }
    Ok(v)
}

/// Parse and check `min <= v <= max` (both positive), reporting the range in `unit`.
pub fn parse_in_range(text: &str, min: f64, max: f64, unit: &str) -> Result<f64, ParseError> {
    let v = parse_number(text)?;
    check_range(v, min, max, unit)
}

pub fn check_range(v: f64, min: f64, max: f64, unit: &str) -> Result<f64, ParseError> {
    if !v.is_finite() {
        return Err(ParseError::NotFinite);
    }
    if v <= 0.0 {
        return Err(ParseError::NotPositive);
    }
    if v < min || v > max {
        return Err(ParseError::OutOfRange {
            min: si(min, unit),
            max: si(max, unit),
        });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_puts_a_comma_every_three_digits() {
        assert_eq!(grouped(280e3), "280,000");
        assert_eq!(grouped(999.6), "1,000");
        assert_eq!(grouped(12.0), "12");
        assert_eq!(grouped(1_234_567.0), "1,234,567");
        assert_eq!(grouped(-4096.0), "-4,096");
    }

    #[test]
    fn an_arrow_never_joins_equal_figures() {
        assert_eq!(arrow("432 ms", "14.6 s"), "432 ms → 14.6 s");
        assert_eq!(arrow("34.8 ms", "34.8 ms"), "unchanged at 34.8 ms");
    }

    #[test]
    fn words_for_big_counts() {
        assert_eq!(words(3.8875e11), "389 billion");
        assert_eq!(words(1.95e13), "19.5 trillion");
        assert_eq!(words(999_950.0), "1 million");
        assert_eq!(words(250.0), "250");
    }

    #[test]
    fn counts() {
        assert_eq!(count(0, "kernel", "kernels"), "0 kernels");
        assert_eq!(count(1, "kernel", "kernels"), "1 kernel");
        assert_eq!(count(9, "launch", "launches"), "9 launches");
        assert_eq!(amount(1.0, "token", "tokens"), "1 token");
        assert_eq!(amount(0.9999, "token", "tokens"), "1 token");
        assert_eq!(amount(2.5e3, "token", "tokens"), "2500 tokens");
        assert_eq!(amount(0.5, "token", "tokens"), "0.5 tokens");
        assert_eq!(noun(1.0, "GPU", "GPUs"), "GPU");
        assert_eq!(noun(0.0, "GPU", "GPUs"), "GPUs");
    }

    #[test]
    fn formats() {
        assert_eq!(si(312e12, "FLOP/s"), "312 TFLOP/s");
        assert_eq!(si(1.555e12, "B/s"), "1.56 TB/s");
        assert_eq!(si(9.75e12, "FLOP/s"), "9.75 TFLOP/s");
        assert_eq!(si(3.5714e-6, "s"), "3.57 µs");
        assert_eq!(si(1e-3, "s"), "1 ms");
        assert_eq!(si(999.9, "B"), "1 kB");
        assert_eq!(si(0.0, "s"), "0 s");
        assert_eq!(si(f64::NAN, "s"), "– s");
        assert_eq!(percent(0.615), "61.5 %");
        assert_eq!(gb(1.555e12), "1,555");
        assert_eq!(gb(8e12), "8,000");
        assert_eq!(gb(40e9), "40");
        assert_eq!(gb(141e9), "141");
        assert_eq!(gb(1.5e9), "1.5");
        assert_eq!(gb(1.2345e15), "1,234,500");
        assert_eq!(gb(f64::NAN), "–");
    }

    #[test]
    fn parses() {
        assert_eq!(parse_number("312e12"), Ok(312e12));
        assert_eq!(parse_number(" 1.5 T "), Ok(1.5e12));
        assert_eq!(parse_number("4k"), Ok(4000.0));
        assert_eq!(parse_number(""), Err(ParseError::Empty));
        assert_eq!(parse_number("abc"), Err(ParseError::NotANumber));
        assert_eq!(parse_number("12x"), Err(ParseError::NotANumber));
        assert_eq!(parse_number("NaN"), Err(ParseError::NotFinite));
        assert_eq!(parse_number("inf"), Err(ParseError::NotFinite));
        assert_eq!(parse_number("1e400"), Err(ParseError::NotFinite));
        assert_eq!(
            parse_in_range("-3", 1.0, 10.0, ""),
            Err(ParseError::NotPositive)
        );
        assert!(matches!(
            parse_in_range("11", 1.0, 10.0, ""),
            Err(ParseError::OutOfRange { .. })
        ));
    }
}
