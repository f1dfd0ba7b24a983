//! The essay's quick test for overhead: double the batch and read how the time per
//! step moves. The ratio `wall(2·batch) / wall(batch)` is classified here; the
//! overhead widget computes it ([`super::overhead::double_batch_ratio`]) and the
//! limit reads it against the regime ([`super::limit::doubling`]).

/// What doubling the batch says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchVerdict {
    /// Runtime barely moved: the GPU mostly waits for the CPU.
    OverheadBound,
    /// In between.
    Partly,
    /// Runtime roughly doubled with the work.
    ScalesWithWork,
}

impl BatchVerdict {
    pub fn label(self) -> &'static str {
        match self {
            BatchVerdict::OverheadBound => "time barely moves (the quick test's sign of overhead)",
            BatchVerdict::Partly => "time grows, but less than the work",
            BatchVerdict::ScalesWithWork => "time grows with the work",
        }
    }
}

/// Double-batch ratio below which the step is called overhead-bound.
pub const OVERHEAD_BOUND_BELOW: f64 = 1.2;
/// Double-batch ratio from which the runtime is said to scale with the work.
pub const SCALES_FROM: f64 = 1.8;

/// Classify a double-batch ratio (see [`OVERHEAD_BOUND_BELOW`], [`SCALES_FROM`]).
pub fn verdict(ratio: f64) -> BatchVerdict {
    if ratio < OVERHEAD_BOUND_BELOW {
        BatchVerdict::OverheadBound
    } else if ratio < SCALES_FROM {
        BatchVerdict::Partly
    } else {
        BatchVerdict::ScalesWithWork
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_thresholds() {
        assert_eq!(verdict(1.0), BatchVerdict::OverheadBound);
        assert_eq!(verdict(1.1), BatchVerdict::OverheadBound);
        assert_eq!(verdict(1.5), BatchVerdict::Partly);
        assert_eq!(verdict(2.0), BatchVerdict::ScalesWithWork);
    }
}
