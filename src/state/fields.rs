//! The numeric controls: their ranges, display units, slider mapping and the
//! validation of what a user types. Pure, so it is tested natively. Each
//! widget's state file declares its fields (the explorer's by hand, a widget's
//! own from its `params!` rows).

use crate::model::units::{self, ParseError};
use crate::state::data::State;

/// One numeric control (a log-scale slider with a typed number box beside it).
#[derive(Clone, Copy)]
pub struct Field {
    /// DOM id prefix (`{id}-slider`, `{id}-box`, `{id}-error`) and URL key.
    pub id: &'static str,
    pub label: &'static str,
    /// Unit shown beside the number box.
    pub box_unit: &'static str,
    /// Base unit, for error messages.
    pub base_unit: &'static str,
    /// Box value × scale = value in SI base units.
    pub scale: f64,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
    pub get: fn(&State) -> f64,
    pub set: fn(&mut State, f64),
}

// Conversions below only ever see values already validated to lie in range.
pub(crate) fn to_u32(v: f64) -> u32 {
    v.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

impl Field {
    /// The slider's position for a value (sliders are log10 scaled; in a range
    /// that starts at 0, 0 sits one decade below 1, [`ZERO_AT`]).
    pub fn to_slider(&self, v: f64) -> f64 {
        if self.min <= 0.0 && v <= 0.0 {
            ZERO_AT
        } else {
            v.log10()
        }
    }

    /// The value for a slider position: rounded to a whole number or three
    /// significant digits, clamped to the range. Never NaN.
    pub fn from_slider(&self, x: f64) -> f64 {
        // a range from 0: the lower half-decade of the notch, and NaN, are 0
        if self.min <= 0.0 && (x.is_nan() || x < ZERO_AT / 2.0) {
            return 0.0;
        }
        let x = if x.is_finite() { x } else { self.min.log10() };
        let v = 10f64.powf(x);
        let v = if self.integer {
            v.round()
        } else {
            round_sig(v, 3)
        };
        v.clamp(self.min, self.max)
    }

    /// The number box text for a value, in the box unit.
    pub fn format_box(&self, v: f64) -> String {
        if self.integer {
            format!("{}", v.round())
        } else {
            let b = round_sig(v / self.scale, 4);
            format!("{b}")
        }
    }

    /// The value as a screen reader should hear it (`aria-valuetext`): the box's
    /// text in its unit ("312 TFLOP/s", "3.571 µs"); a count takes the unit its
    /// label names in brackets ("Context (tokens)" → "4096 tokens", "1 token").
    pub fn value_text(&self, v: f64) -> String {
        let n = self.format_box(v);
        let unit = if self.box_unit.is_empty() {
            let l = self.label;
            match (l.rfind('('), l.strip_suffix(')')) {
                (Some(i), Some(head)) => {
                    let u = head.get(i + 1..).unwrap_or("");
                    if n == "1" {
                        u.strip_suffix('s').unwrap_or(u)
                    } else {
                        u
                    }
                }
                _ => "",
            }
        } else {
            self.box_unit
        };
        if unit.is_empty() {
            n
        } else {
            format!("{n} {unit}")
        }
    }

    /// The value one key press away from `v` (`up` or down; `big` for Page
    /// Up/Down): a count steps to the next power of two (×2; ×8 for a big step),
    /// a continuous value to the next of 1, 2, 5 × 10ⁿ (a big step: a decade).
    /// Clamped to the range.
    pub fn key_step(&self, v: f64, up: bool, big: bool) -> f64 {
        // a range from 0: one step from 0 is 1, one step down from 1 is 0
        if self.min <= 0.0 && (v.is_nan() || v < 1.0 || (v == 1.0 && !up)) {
            return if up { 1f64.min(self.max) } else { 0.0 };
        }
        let (ladder, per_big): (&[f64], i32) = if self.integer {
            (&[1.0], 3)
        } else {
            (&[1.0, 2.0, 5.0], 3)
        };
        let base = if self.integer { 2f64 } else { 10f64 };
        let rungs = if big { per_big } else { 1 };
        // the rungs 1,2,5 × base^k (or base^k) around v, found by walking from v's
        // magnitude
        let rung = |i: i64| {
            let n = ladder.len() as i64;
            let (k, j) = (i.div_euclid(n), i.rem_euclid(n) as usize);
            ladder.get(j).copied().unwrap_or(1.0) * base.powi(k as i32)
        };
        let v = if v.is_finite() && v > 0.0 {
            v
        } else {
            self.min
        };
        let n = ladder.len() as i64;
        let mut i = (v.log(base).floor() as i64).saturating_mul(n);
        // the first rung above v (up) or below v (down), with a relative tolerance
        // so a value on a rung counts as on it
        let tol = 1e-9;
        if up {
            while rung(i) <= v * (1.0 + tol) {
                i += 1;
            }
            i += i64::from(rungs - 1);
        } else {
            while rung(i + 1) < v * (1.0 - tol) {
                i += 1;
            }
            while rung(i) >= v * (1.0 - tol) {
                i -= 1;
            }
            i -= i64::from(rungs - 1);
        }
        let next = rung(i);
        let next = if self.integer {
            next.round()
        } else {
            round_sig(next, 3)
        };
        next.clamp(self.min, self.max)
    }

    /// Validate typed text (in the box unit). Errors are sentences for the user.
    pub fn parse_box(&self, text: &str) -> Result<f64, String> {
        let v = units::parse_number(text).map_err(|e| e.to_string())? * self.scale;
        if v == 0.0 && self.min <= 0.0 {
            return Ok(0.0);
        }
        if self.integer && v.fract() != 0.0 {
            return Err(ParseError::NotInteger.to_string());
        }
        units::check_range(v, self.min, self.max, self.base_unit).map_err(|e| match e {
            ParseError::OutOfRange { .. } => format!(
                "must be between {} and {}{}",
                self.format_box(self.min),
                self.format_box(self.max),
                if self.box_unit.is_empty() {
                    String::new()
                } else {
                    format!(" {}", self.box_unit)
                }
            ),
            other => other.to_string(),
        })
    }
}

/// The slider position of 0 in a range that starts at 0 (`serve_engine_us`): one
/// decade below 1, as a log slider cannot reach 0 itself.
pub const ZERO_AT: f64 = -1.0;

/// Round to `digits` significant digits.
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = v.abs().log10().floor() as i32;
    let p = 10f64.powi(digits - 1 - mag);
    let r = (v * p).round() / p;
    // `r` may carry binary noise (0.30000000000000004); reparse its short form.
    format!("{r:.*}", (digits - 1 - mag).max(0) as usize)
        .parse()
        .unwrap_or(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::widgets::explorer::{BATCH, BW, FLOPS, HIDDEN, OPS, OVERHEAD};

    #[test]
    fn slider_round_trip_and_clamp() {
        for f in [FLOPS, BW, OVERHEAD, BATCH, HIDDEN, OPS] {
            assert_eq!(f.from_slider(f.to_slider(f.min)), f.min, "{}", f.id);
            assert_eq!(f.from_slider(f.to_slider(f.max)), f.max, "{}", f.id);
            assert_eq!(f.from_slider(f64::NAN), f.min);
            assert_eq!(f.from_slider(99.0), f.max);
        }
        assert_eq!(FLOPS.from_slider(312e12f64.log10()), 312e12);
        assert_eq!(BATCH.from_slider(2.0), 100.0);
    }

    #[test]
    fn boxes() {
        assert_eq!(FLOPS.format_box(312e12), "312");
        assert_eq!(BW.format_box(1.555e12), "1.555");
        assert_eq!(OVERHEAD.format_box(1.0 / 280_000.0), "3.571");
        assert_eq!(BATCH.format_box(64.0), "64");
        assert_eq!(FLOPS.parse_box("312"), Ok(312e12));
        assert_eq!(OVERHEAD.parse_box("3.5"), Ok(3.5e-6));
        assert_eq!(BATCH.parse_box("128"), Ok(128.0));
        assert!(BATCH.parse_box("abc").is_err());
        assert!(BATCH.parse_box("1.5").unwrap_err().contains("whole"));
        assert!(BATCH
            .parse_box("0")
            .unwrap_err()
            .contains("greater than zero"));
        assert_eq!(
            BATCH.parse_box("70000").unwrap_err(),
            "must be between 1 and 65536"
        );
        assert!(FLOPS.parse_box("-5").is_err());
        assert!(FLOPS.parse_box("1e400").is_err());
        assert!(FLOPS.parse_box("2e6").unwrap_err().contains("TFLOP/s"));
    }

    #[test]
    fn spoken_values_and_key_steps() {
        assert_eq!(FLOPS.value_text(312e12), "312 TFLOP/s");
        assert_eq!(OVERHEAD.value_text(1.0 / 280_000.0), "3.571 µs");
        assert_eq!(BATCH.value_text(256.0), "256");
        let ctx = crate::state::widgets::llm::field::context;
        let seqs = crate::state::widgets::llm::field::batch;
        // counts: powers of two, ×8 for a big step, clamped
        assert_eq!(BATCH.key_step(256.0, true, false), 512.0);
        assert_eq!(BATCH.key_step(256.0, false, false), 128.0);
        assert_eq!(BATCH.key_step(100.0, true, false), 128.0);
        assert_eq!(BATCH.key_step(100.0, false, false), 64.0);
        assert_eq!(BATCH.key_step(1.0, false, false), 1.0);
        assert_eq!(BATCH.key_step(65536.0, true, false), 65536.0);
        assert_eq!(BATCH.key_step(256.0, true, true), 2048.0);
        assert_eq!(BATCH.key_step(256.0, false, true), 32.0);
        // continuous values: 1-2-5, a decade for a big step
        assert_eq!(FLOPS.key_step(312e12, true, false), 500e12);
        assert_eq!(FLOPS.key_step(312e12, false, false), 200e12);
        assert_eq!(FLOPS.key_step(500e12, true, false), 1e15);
        assert_eq!(FLOPS.key_step(500e12, false, false), 200e12);
        assert_eq!(FLOPS.key_step(200e12, true, true), 2e15);
        assert_eq!(BW.key_step(1.555e12, true, false), 2e12);
        assert_eq!(OVERHEAD.key_step(1.0 / 280_000.0, false, false), 2e-6);
        // every field: a step moves strictly within the range, and up then down
        // from a rung comes back
        for f in [FLOPS, BW, OVERHEAD, BATCH, HIDDEN, OPS, ctx, seqs] {
            for x in [f.min, f.max, (f.min * f.max).sqrt()] {
                for big in [false, true] {
                    let u = f.key_step(x, true, big);
                    let d = f.key_step(x, false, big);
                    assert!(
                        u >= x && u <= f.max && (u > x || x == f.max),
                        "{} {x} {u}",
                        f.id
                    );
                    assert!(
                        d <= x && d >= f.min && (d < x || x == f.min),
                        "{} {x} {d}",
                        f.id
                    );
                }
            }
            let r = f.key_step(f.min, true, false);
            if r < f.max {
                assert_eq!(
                    f.key_step(f.key_step(r, true, false), false, false),
                    r,
                    "{}",
                    f.id
                );
            }
        }
    }

    #[test]
    fn rounding() {
        assert_eq!(round_sig(0.1 + 0.2, 3), 0.3);
        assert_eq!(round_sig(312.4e12, 3), 312e12);
        assert_eq!(round_sig(3.5714285e-6, 4), 3.571e-6);
    }

    #[test]
    fn a_range_from_zero_keeps_a_notch_for_zero() {
        let f = Field {
            min: 0.0,
            max: 100_000.0,
            ..BATCH
        };
        assert_eq!(f.to_slider(0.0), ZERO_AT);
        assert_eq!(f.to_slider(f.min), ZERO_AT);
        assert_eq!(f.from_slider(ZERO_AT), 0.0);
        assert_eq!(f.from_slider(f64::NAN), 0.0);
        assert_eq!(f.from_slider(0.0), 1.0);
        assert_eq!(f.from_slider(f.to_slider(580.0)), 580.0);
        assert_eq!(f.key_step(0.0, true, false), 1.0);
        assert_eq!(f.key_step(1.0, false, false), 0.0);
        assert_eq!(f.key_step(0.0, false, false), 0.0);
        assert_eq!(f.key_step(1.0, true, false), 2.0);
        assert_eq!(f.parse_box("0"), Ok(0.0));
        assert!(f.parse_box("-1").is_err());
        // a range from 1 is unchanged: 0 is refused, its slider starts at 1
        assert!(BATCH.parse_box("0").is_err());
        assert_eq!(BATCH.to_slider(BATCH.min), 0.0);
        assert_eq!(crate::state::parse::parse_int("0", 0, 10), Ok(0));
        assert!(crate::state::parse::parse_int("0", 1, 10).is_err());
        assert!(crate::state::parse::parse_int("-1", 0, 10).is_err());
    }
}
