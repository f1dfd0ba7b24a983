//! The page's colours, named once: the charts' light and dark palettes, the
//! series colours every chart and legend shares (the lab's measured green, cos
//! pink, the overhead lanes), and the factory picture's tints. Each colour is one
//! `#rrggbb` constant; plotters' `RGBColor`s are derived from them at compile time
//! ([`rgb`]), and legend swatches take them as CSS ([`bg`]).

use plotters::style::RGBColor;

// The chart palettes' colours (light theme).
pub const WHITE: &str = "#ffffff";
pub const INK: &str = "#1f2937";
pub const MUTED: &str = "#6b7280";
pub const GRID: &str = "#e5e7eb";
/// Compute: the matmul roof, tensor contractions, the busy factory.
pub const COMPUTE: &str = "#2563eb";
/// Memory: the bandwidth roof, element-wise work, the warehouse.
pub const MEMORY: &str = "#d97706";
/// Vector units: fp32 without tensor cores, normalisations.
pub const VECTOR: &str = "#7c3aed";
/// Communication: collectives between GPUs, the link's roof.
pub const COMM: &str = "#0d9488";

// The same roles in the dark theme.
pub const DARK_BG: &str = "#111827";
pub const DARK_INK: &str = "#e5e7eb";
pub const DARK_MUTED: &str = "#9ca3af";
pub const DARK_GRID: &str = "#374151";
pub const DARK_COMPUTE: &str = "#60a5fa";
pub const DARK_MEMORY: &str = "#fb923c";
pub const DARK_VECTOR: &str = "#a78bfa";
pub const DARK_COMM: &str = "#2dd4bf";

// Series colours, the same in both themes.
/// This GPU, measured (the lab's roofline and its x·m and fma points); the
/// overhead widget's Python lane.
pub const GREEN: &str = "#16a34a";
/// The lab's cos chain.
pub const PINK: &str = "#db2777";
/// The overhead widget's framework-dispatch lane.
pub const YELLOW: &str = "#eab308";
/// The overhead widget's kernel-launch lane.
pub const RED: &str = "#ef4444";

// The factory picture's tints (canvas 2D; dark mode is a CSS filter on it).
pub const COMPUTE_TINT: &str = "#dbeafe";
pub const MEMORY_TINT: &str = "#fef3c7";
pub const CRATE: &str = "#f59e0b";
/// Idle and overhead: the desk, the GPU waiting.
pub const OVERHEAD: &str = "#94a3b8";
pub const SLATE: &str = "#475569";
pub const SLATE_MID: &str = "#64748b";
pub const TRACK: &str = "#f1f5f9";
pub const LIT: &str = "#fde68a";
pub const UNLIT: &str = "#93a3b8";
pub const SMOKE: &str = "#cbd5e1";
pub const SKY: &str = "#e0f2fe";
pub const SHELF: &str = "#bfdbfe";
pub const SHELF_EMPTY: &str = "#93c5fd";
pub const FACE: &str = "#e2e8f0";

/// A `#rrggbb` constant as plotters' colour (compile time: a malformed constant
/// does not build).
pub const fn rgb(hex: &str) -> RGBColor {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("colours are #rrggbb"),
        }
    }
    match hex.as_bytes() {
        [b'#', r1, r0, g1, g0, b1, b0] => RGBColor(
            nibble(*r1) * 16 + nibble(*r0),
            nibble(*g1) * 16 + nibble(*g0),
            nibble(*b1) * 16 + nibble(*b0),
        ),
        _ => panic!("colours are #rrggbb"),
    }
}

/// A legend swatch's style: `background:#rrggbb`.
pub fn bg(hex: &str) -> String {
    format!("background:{hex}")
}

/// Chart colours for one theme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub bg: RGBColor,
    pub ink: RGBColor,
    pub muted: RGBColor,
    pub grid: RGBColor,
    pub compute: RGBColor,
    pub memory: RGBColor,
    pub vector: RGBColor,
    pub comm: RGBColor,
}

pub const LIGHT: Palette = Palette {
    bg: rgb(WHITE),
    ink: rgb(INK),
    muted: rgb(MUTED),
    grid: rgb(GRID),
    compute: rgb(COMPUTE),
    memory: rgb(MEMORY),
    vector: rgb(VECTOR),
    comm: rgb(COMM),
};

pub const DARK: Palette = Palette {
    bg: rgb(DARK_BG),
    ink: rgb(DARK_INK),
    muted: rgb(DARK_MUTED),
    grid: rgb(DARK_GRID),
    compute: rgb(DARK_COMPUTE),
    memory: rgb(DARK_MEMORY),
    vector: rgb(DARK_VECTOR),
    comm: rgb(DARK_COMM),
};

impl Palette {
    /// The palette of the light or dark theme.
    pub fn of(dark: bool) -> Palette {
        if dark {
            DARK
        } else {
            LIGHT
        }
    }
}
