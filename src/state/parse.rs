//! Reading numbers and names from URL text, shared by the explorer's keys (`params`) and the
//! widgets' (`widgets`), so neither needs the URL codec (`url`) that reads both.

/// A whole number in `min..=max` from URL text; `Err` is the reason for the user.
/// Shared by the explorer's keys (`params::XParam::read`) and the widgets'
/// (`widgets::WParam::parse`).
pub fn parse_int(v: &str, min: u32, max: u32) -> Result<u32, String> {
    match v.trim().parse::<f64>() {
        Err(_) => Err("not a number".into()),
        Ok(x) if !x.is_finite() => Err("not a finite number".into()),
        Ok(x) if x <= 0.0 && min > 0 => Err("must be greater than zero".into()),
        Ok(x) if x < 0.0 => Err("must not be negative".into()),
        Ok(x) if x.fract() != 0.0 => Err("must be a whole number".into()),
        Ok(x) if x < f64::from(min) || x > f64::from(max) => {
            Err(format!("out of range {min} to {max}"))
        }
        // in range and whole, so the conversion is exact
        Ok(x) => Ok(x as u32),
    }
}

/// Longest adapter name kept from `gpu=`.
pub const GPU_NAME_MAX: usize = 80;

/// An adapter name from the URL: control characters dropped, whitespace collapsed,
/// at most [`GPU_NAME_MAX`] characters.
pub fn gpu_name(v: &str) -> String {
    let clean: String = v
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    clean
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(GPU_NAME_MAX)
        .collect::<String>()
        .trim_end()
        .to_string()
}
