//! Drawing one frame of the factory with plain canvas calls: the layout, the
//! palette and fonts, and the picture itself.

use super::*;
use crate::factory::{Kind, Scene, Storyboard};
use crate::ui::chart::palette::*;

pub(super) const F13B: &str = "600 13px system-ui, sans-serif";
pub(super) const F12B: &str = "600 12px system-ui, sans-serif";
pub(super) const F11B: &str = "600 11px system-ui, sans-serif";
pub(super) const F11: &str = "11px system-ui, sans-serif";
pub(super) const F10: &str = "10px system-ui, sans-serif";

// ---------------------------------------------------------------------------
// Drawing

pub(super) struct Lay {
    pub(super) w: f64,
    pub(super) h: f64,
    pub(super) s: f64,
    pub(super) ground: f64,
    pub(super) wh0: f64,
    pub(super) wh1: f64,
    pub(super) wh_top: f64,
    pub(super) fa0: f64,
    pub(super) fa1: f64,
    pub(super) fa_top: f64,
    pub(super) road_top: f64,
    pub(super) lane_in: f64,
    pub(super) lane_out: f64,
    pub(super) strip0: f64,
    pub(super) strip1: f64,
    pub(super) cpu_y: f64,
    pub(super) gpu_y: f64,
}

pub(super) fn layout(w: f64, h: f64) -> Lay {
    let s = (w / 820.0).clamp(0.72, 1.2);
    let ground = h - 66.0;
    let top = 44.0;
    let scene = (ground - top).max(60.0);
    let wh0 = 8.0;
    let wh1 = wh0 + (w * 0.2).max(78.0);
    let fa1 = w - 8.0;
    let fa0 = fa1 - (w * 0.3).max(124.0);
    Lay {
        w,
        h,
        s,
        ground,
        wh0,
        wh1,
        wh_top: ground - scene * 0.7,
        fa0,
        fa1,
        fa_top: ground - scene * 0.6,
        road_top: ground - 40.0 * s,
        lane_in: ground - 22.0 * s,
        lane_out: ground - 3.0 * s,
        strip0: if w < 480.0 { 52.0 } else { 62.0 },
        strip1: w - 10.0,
        cpu_y: h - 48.0,
        gpu_y: h - 34.0,
    }
}

pub(super) struct Vars {
    pub(super) gear: f64,
    pub(super) odo: f64,
    pub(super) pen: f64,
    pub(super) util: f64,
    pub(super) road: f64,
    pub(super) still: bool,
}

thread_local! {
    /// The fill, font and text alignment last set on the canvas in this frame:
    /// a frame sets the same few many times over (a warehouse of crates), and each
    /// set crosses into JavaScript with its string and is parsed there again.
    static SET: std::cell::RefCell<[String; 3]> = Default::default();
}

/// Whether `value` differs from what was last set in `slot` (and note it).
fn changed(slot: usize, value: &str) -> bool {
    SET.with_borrow_mut(|set| {
        let last = &mut set[slot];
        if last == value {
            return false;
        }
        last.clear();
        last.push_str(value);
        true
    })
}

/// Forgets what was set: at the start of each frame (a resize resets the
/// canvas's state, and the frame must not depend on the one before).
fn forget() {
    SET.with_borrow_mut(|set| set.iter_mut().for_each(String::clear));
}

/// Sets the fill colour unless it is set already.
pub(super) fn fill(c: &C2d, colour: &str) {
    if changed(0, colour) {
        c.set_fill_style_str(colour);
    }
}

pub(super) fn rect(c: &C2d, x: f64, y: f64, w: f64, h: f64, colour: &str) {
    fill(c, colour);
    c.fill_rect(x, y, w, h);
}

pub(super) fn circle(c: &C2d, x: f64, y: f64, r: f64, colour: &str) {
    fill(c, colour);
    c.begin_path();
    let _ = c.arc(x, y, r.max(0.1), 0.0, TAU);
    c.fill();
}

/// How a line of the picture's text is drawn: font, colour and alignment.
#[derive(Clone, Copy)]
struct Label {
    font: &'static str,
    fill: &'static str,
    align: &'static str,
}

impl Label {
    const fn left(font: &'static str, fill: &'static str) -> Label {
        Label {
            font,
            fill,
            align: "left",
        }
    }
    const fn center(font: &'static str, fill: &'static str) -> Label {
        Label {
            font,
            fill,
            align: "center",
        }
    }
    const fn right(font: &'static str, fill: &'static str) -> Label {
        Label {
            font,
            fill,
            align: "right",
        }
    }

    /// Draw `s` with its baseline at `y`, anchored at `x` by the alignment, squeezed
    /// into `max_w` pixels (at least 10).
    fn draw(self, c: &C2d, s: &str, x: f64, y: f64, max_w: f64) {
        if changed(1, self.font) {
            c.set_font(self.font);
        }
        fill(c, self.fill);
        if changed(2, self.align) {
            c.set_text_align(self.align);
        }
        let _ = c.fill_text_with_max_width(s, x, y, max_w.max(10.0));
    }
}

/// The building names.
const NAME: Label = Label::left(F12B, INK);
/// The line under a name, and the headline's second line.
const SUB: Label = Label::left(F11, MUTED);
/// Small notes under or beside a part of the picture.
const NOTE: Label = Label::center(F10, MUTED);
/// The strip's lane names and its end time.
const NOTE_RIGHT: Label = Label::right(F10, MUTED);

pub(super) fn gear(c: &C2d, cx: f64, cy: f64, r: f64, teeth: u32, angle: f64, colour: &str) {
    let step = TAU / f64::from(teeth);
    fill(c, colour);
    c.begin_path();
    for j in 0..teeth * 4 {
        let a = angle + f64::from(j) * step / 4.0;
        let rr = if matches!(j % 4, 1 | 2) { r } else { r * 0.78 };
        let (x, y) = (cx + rr * a.cos(), cy + rr * a.sin());
        if j == 0 {
            c.move_to(x, y);
        } else {
            c.line_to(x, y);
        }
    }
    c.close_path();
    c.fill();
    circle(c, cx, cy, r * 0.28, WHITE);
}

/// A truck centred at `x`, wheels on `base`; `dir` +1 faces right. `load` is the
/// crate colour, or None for empty.
pub(super) fn truck(c: &C2d, x: f64, base: f64, dir: f64, load: Option<&str>, s: f64) {
    let (tw, th) = (36.0 * s, 18.0 * s);
    let left = x - tw / 2.0;
    let box_w = tw * 0.66;
    let cab_w = tw * 0.28;
    let (box_x, cab_x) = if dir > 0.0 {
        (left, left + tw - cab_w)
    } else {
        (left + tw - box_w, left)
    };
    let top = base - th;
    rect(c, box_x, top, box_w, th * 0.82, SLATE);
    rect(
        c,
        box_x + 1.5,
        top + 1.5,
        box_w - 3.0,
        th * 0.82 - 3.0,
        load.unwrap_or(WHITE),
    );
    if load.is_some() {
        // crate seams
        rect(
            c,
            box_x + box_w / 2.0 - 0.5,
            top + 1.5,
            1.0,
            th * 0.82 - 3.0,
            SLATE,
        );
    }
    rect(c, cab_x, top + th * 0.3, cab_w, th * 0.52, SLATE_MID);
    let win_x = if dir > 0.0 {
        cab_x + cab_w * 0.45
    } else {
        cab_x + cab_w * 0.1
    };
    rect(c, win_x, top + th * 0.36, cab_w * 0.45, th * 0.18, SKY);
    let r = th * 0.17;
    circle(c, left + tw * 0.2, base - r, r, INK);
    circle(c, left + tw * 0.8, base - r, r, INK);
}

pub(super) fn render(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene, v: &Vars) {
    forget();
    c.set_text_baseline("alphabetic");
    rect(c, 0.0, 0.0, l.w, l.h, WHITE);
    rect(c, 0.0, l.ground, l.w, 1.0, SMOKE); // ground line
    warehouse(c, l);
    road(c, l, p);
    trucks(c, l, sc, v);
    factory(c, l, p, sc, v);
    desk(c, l, p, sc, v);
    headline(c, l, p, sc, v);
    strip(c, l, p, sc);
}

/// Height of the factory's saw-tooth roof, in layout units (times `Lay::s`).
const ROOF_H: f64 = 13.0;

/// The warehouse (DRAM): building, roof, crates, door.
fn warehouse(c: &C2d, l: &Lay) {
    let s = l.s;
    let ww = l.wh1 - l.wh0;
    rect(c, l.wh0, l.wh_top, ww, l.ground - l.wh_top, MEMORY);
    rect(
        c,
        l.wh0 + 1.5,
        l.wh_top + 1.5,
        ww - 3.0,
        l.ground - l.wh_top - 3.0,
        MEMORY_TINT,
    );
    fill(c, MEMORY);
    c.begin_path();
    c.move_to(l.wh0 - 4.0, l.wh_top + 1.0);
    c.line_to(l.wh0 + ww / 2.0, l.wh_top - 18.0 * s);
    c.line_to(l.wh1 + 4.0, l.wh_top + 1.0);
    c.close_path();
    c.fill();
    NAME.draw(c, "Warehouse", l.wh0 + 7.0, l.wh_top + 17.0, ww - 12.0);
    SUB.draw(c, "DRAM", l.wh0 + 7.0, l.wh_top + 31.0, ww - 12.0);
    // crates
    let cs = 9.0 * s;
    let cols = (((ww - 22.0) / (cs + 2.0)).floor() as i32).clamp(1, 14);
    let rows = (((l.ground - l.wh_top - 44.0) / (cs + 2.0)).floor() as i32).clamp(0, 12);
    for rr in 0..rows {
        for cc in 0..cols {
            let x = l.wh0 + 7.0 + f64::from(cc) * (cs + 2.0);
            let y = l.ground - 4.0 - f64::from(rr + 1) * (cs + 2.0);
            rect(c, x, y, cs, cs, CRATE);
        }
    }
    // door
    rect(
        c,
        l.wh1 - 4.0 * s,
        l.ground - 24.0 * s,
        4.0 * s,
        24.0 * s,
        SLATE,
    );
}

/// The road (memory bandwidth) and its labels.
fn road(c: &C2d, l: &Lay, p: &Storyboard) {
    let s = l.s;
    let rw = l.fa0 - l.wh1;
    rect(c, l.wh1, l.road_top, rw, l.ground - l.road_top, GRID);
    let mid = (l.road_top + l.ground) / 2.0 - 1.0;
    let mut x = l.wh1 + 6.0;
    while x + 8.0 * s < l.fa0 - 4.0 {
        rect(c, x, mid, 8.0 * s, 2.0, WHITE);
        x += 16.0 * s;
    }
    let rc = l.wh1 + rw / 2.0;
    let road_title = if rw < 210.0 {
        "Trucks: bandwidth"
    } else {
        "Trucks = memory bandwidth"
    };
    Label::center(F12B, MEMORY).draw(c, road_title, rc, l.road_top - 7.0 * s - 16.0, rw - 8.0);
    Label::center(F11, MUTED).draw(c, &p.trips_text, rc, l.road_top - 7.0 * s, rw - 8.0);
}

/// The trucks: one trip per kernel when kernels are long enough to see, else a
/// stream of up to three, as many as the bandwidth in use.
fn trucks(c: &C2d, l: &Lay, sc: &Scene, v: &Vars) {
    let s = l.s;
    let tw = 36.0 * s;
    let xa = l.wh1 + tw / 2.0 + 3.0;
    let xb = l.fa0 - tw / 2.0 - 3.0;
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t.clamp(0.0, 1.0);
    match (sc.discrete, sc.seg) {
        (true, Some(seg)) if seg.kind != Kind::Idle => {
            let m = seg.m_util.clamp(0.02, 1.0);
            let q = sc.q;
            if q < m / 2.0 {
                truck(
                    c,
                    lerp(xa, xb, q / (m / 2.0)),
                    l.lane_in,
                    1.0,
                    Some(CRATE),
                    s,
                );
            } else if q < 1.0 - m / 2.0 {
                truck(c, xb, l.lane_in, 1.0, None, s);
                NOTE.draw(c, "waiting…", xb, l.lane_in - 18.0 * s, 80.0);
            } else {
                let t = (q - (1.0 - m / 2.0)) / (m / 2.0);
                truck(c, lerp(xb, xa, t), l.lane_out, -1.0, Some(COMPUTE), s);
            }
        }
        (true, _) => {
            truck(c, xa, l.lane_in, 1.0, None, s);
        }
        (false, _) if v.road < 0.05 => {
            truck(c, xa, l.lane_in, 1.0, None, s);
        }
        (false, _) => {
            // as many trucks on the road as the bandwidth is in use (1 to 3)
            let n = ((v.road * 3.0 - 0.15).ceil() as i32).clamp(1, 3);
            for k in 0..n {
                let u = (v.odo + f64::from(k) / 3.0).rem_euclid(1.0);
                if u < 0.5 {
                    truck(c, lerp(xa, xb, u * 2.0), l.lane_in, 1.0, Some(CRATE), s);
                } else {
                    truck(
                        c,
                        lerp(xb, xa, (u - 0.5) * 2.0),
                        l.lane_out,
                        -1.0,
                        Some(COMPUTE),
                        s,
                    );
                }
            }
        }
    }
}

/// The factory (compute + SRAM): roof windows lit by utilisation, chimney smoke,
/// gears, the SRAM shelf, dimming while idle, and the status tag.
fn factory(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene, v: &Vars) {
    let s = l.s;
    let narrow = l.w < 560.0;
    let fw = l.fa1 - l.fa0;
    let fh = l.ground - l.fa_top;
    rect(c, l.fa0, l.fa_top, fw, fh, COMPUTE);
    rect(
        c,
        l.fa0 + 1.5,
        l.fa_top + 1.5,
        fw - 3.0,
        fh - 3.0,
        COMPUTE_TINT,
    );
    // saw-tooth roof with a window per tooth; lit ones show utilisation
    let teeth = 5u32;
    let tooth = fw / f64::from(teeth);
    let lit = if v.util > 0.02 {
        ((v.util * f64::from(teeth)).round() as u32).max(1)
    } else {
        0
    };
    let rh = ROOF_H * s;
    for i in 0..teeth {
        let x0 = l.fa0 + f64::from(i) * tooth;
        fill(c, COMPUTE);
        c.begin_path();
        c.move_to(x0, l.fa_top + 1.0);
        c.line_to(x0, l.fa_top - rh);
        c.line_to(x0 + tooth, l.fa_top + 1.0);
        c.close_path();
        c.fill();
        let pane = if i < lit { LIT } else { UNLIT };
        rect(
            c,
            x0 + 2.0,
            l.fa_top - rh + 4.0,
            (tooth * 0.22).max(3.0),
            rh - 6.0,
            pane,
        );
    }
    // chimney and smoke
    let chx = l.fa1 - 20.0 * s;
    let ch_top = l.fa_top - rh - 12.0 * s;
    rect(c, chx, ch_top, 8.0 * s, l.fa_top - ch_top, SLATE);
    if v.util > 0.05 {
        for k in 0..3 {
            let ph = (v.gear / TAU * 0.8 + f64::from(k) / 3.0).rem_euclid(1.0);
            c.set_global_alpha(((1.0 - ph) * 0.8 * v.util.min(1.0)).clamp(0.0, 1.0));
            circle(
                c,
                chx + 4.0 * s + ph * 6.0 * s,
                ch_top - 4.0 - ph * 20.0 * s,
                (3.0 + ph * 4.0) * s,
                SMOKE,
            );
        }
        c.set_global_alpha(1.0);
    }
    NAME.draw(c, "Factory", l.fa0 + 8.0, l.fa_top + 17.0, fw - 16.0);
    let sub = if narrow {
        p.flops_text.clone()
    } else {
        format!("compute + SRAM · {}", p.flops_text)
    };
    SUB.draw(c, &sub, l.fa0 + 8.0, l.fa_top + 31.0, fw - 16.0);
    // interior: gears on the left, SRAM shelf on the right
    let in_top = l.fa_top + 38.0;
    let in_bot = l.ground - 16.0;
    let ih = (in_bot - in_top).max(16.0);
    let gr = (ih * 0.46).min(22.0 * s).max(7.0);
    let gcx = l.fa0 + 12.0 + gr;
    let gcy = in_top + ih / 2.0;
    let gear_col = if v.util > 0.02 { COMPUTE } else { OVERHEAD };
    gear(c, gcx, gcy, gr, 10, v.gear, gear_col);
    let sr = gr * 0.7;
    gear(
        c,
        gcx + gr + sr * 0.92,
        gcy + gr * 0.35,
        sr,
        7,
        -v.gear * 10.0 / 7.0 + 0.2,
        gear_col,
    );
    let sx = gcx + gr + sr * 2.0 + 10.0;
    let sw = (l.fa1 - 10.0 - sx).min(fw * 0.4).min(110.0 * s);
    if sw > 24.0 {
        let cell = ((sw - 8.0) / 3.0).min(ih * 0.3);
        let shelf_h = cell * 2.0 + 8.0;
        let sy = gcy - shelf_h / 2.0;
        rect(c, sx, sy, sw, shelf_h, SHELF);
        for rr in 0..2 {
            for cc in 0..3 {
                let filled = sc.kind != Kind::Idle || v.util > 0.0;
                rect(
                    c,
                    sx + 3.0 + f64::from(cc) * ((sw - 6.0) / 3.0),
                    sy + 3.0 + f64::from(rr) * (cell + 2.0),
                    (sw - 6.0) / 3.0 - 2.0,
                    cell,
                    if filled { COMPUTE } else { SHELF_EMPTY },
                );
            }
        }
        NOTE.draw(c, "SRAM", sx + sw / 2.0, sy + shelf_h + 11.0, sw);
    }
    // door (the dock)
    rect(c, l.fa0, l.ground - 24.0 * s, 4.0 * s, 24.0 * s, SLATE);
    // idle: dim the whole building
    if v.still || sc.dark > 0.0 {
        c.set_global_alpha((sc.dark * 0.45).clamp(0.0, 0.45));
        rect(c, l.fa0, l.fa_top - rh - 1.0, fw, fh + rh + 1.0, SLATE);
        c.set_global_alpha(1.0);
    }
    status_tag(c, l, p, sc);
}

/// The tag in the factory's corner: busy, waiting for trucks, or dark; inside a
/// fused kernel, which of its ops is running.
fn status_tag(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene) {
    let narrow = l.w < 560.0;
    let fw = l.fa1 - l.fa0;
    let (tag, tag_col) = match sc.kind {
        Kind::Compute => ("busy", COMPUTE),
        Kind::Memory => ("waiting for trucks", MEMORY),
        Kind::Idle => ("dark: no order", SLATE),
    };
    let op = match sc.seg {
        Some(seg)
            if sc.discrete
                && p.fused_ops > 1
                && seg.kind != Kind::Idle
                && seg.count == 1
                && p.names
                    .get(seg.group)
                    .is_some_and(|n| n.starts_with("fused")) =>
        {
            let k = ((sc.q * f64::from(p.fused_ops)).floor() as u32 + 1).min(p.fused_ops);
            if narrow {
                format!("op {k}/{} on chip", p.fused_ops)
            } else {
                format!("{tag} · op {k}/{} on chip", p.fused_ops)
            }
        }
        _ => tag.to_string(),
    };
    Label::right(F11B, tag_col).draw(c, &op, l.fa1 - 8.0, l.ground - 5.0, fw - 16.0);
}

/// The instruction desk (CPU overhead) above the factory: the clerk writing the
/// current order, the out-tray of queued orders, and its labels.
fn desk(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene, v: &Vars) {
    let s = l.s;
    let fw = l.fa1 - l.fa0;
    let rh = ROOF_H * s;
    let dx = l.fa0 + fw * 0.58;
    let dy = l.fa_top - rh - 16.0 * s;
    // clerk
    circle(c, dx - 12.0 * s, dy - 21.0 * s, 6.0 * s, FACE);
    c.set_stroke_style_str(SLATE);
    c.set_line_width(1.2);
    c.begin_path();
    let _ = c.arc(dx - 12.0 * s, dy - 21.0 * s, 6.0 * s, 0.0, TAU);
    c.stroke();
    rect(
        c,
        dx - 19.0 * s,
        dy - 14.0 * s,
        14.0 * s,
        12.0 * s,
        OVERHEAD,
    );
    // arm + pen
    let (px, py) = if sc.cpu_busy {
        (
            dx + 2.0 * s + 5.0 * s * v.pen.sin(),
            dy - 6.0 * s + 1.5 * s * (2.0 * v.pen).cos(),
        )
    } else {
        (dx - 2.0 * s, dy - 4.0 * s)
    };
    c.set_stroke_style_str(SLATE);
    c.set_line_width(2.0 * s);
    c.begin_path();
    c.move_to(dx - 8.0 * s, dy - 11.0 * s);
    c.line_to(px, py);
    c.stroke();
    // table
    rect(c, dx - 30.0 * s, dy - 3.0 * s, 62.0 * s, 4.0 * s, OVERHEAD);
    rect(c, dx - 27.0 * s, dy + 1.0 * s, 3.0 * s, 9.0 * s, SMOKE);
    rect(c, dx + 26.0 * s, dy + 1.0 * s, 3.0 * s, 9.0 * s, SMOKE);
    // the order being written
    if sc.cpu_busy {
        rect(c, dx - 3.0 * s, dy - 6.0 * s, 14.0 * s, 3.0 * s, WHITE);
        c.set_stroke_style_str(OVERHEAD);
        c.set_line_width(1.0);
        c.stroke_rect(dx - 3.0 * s, dy - 6.0 * s, 14.0 * s, 3.0 * s);
    }
    // out-tray: orders written but not yet started by the factory
    let shown = sc.queued.min(6);
    for k in 0..shown {
        let y = dy - 6.0 * s - k as f64 * 3.0 * s;
        rect(c, dx + 16.0 * s, y, 13.0 * s, 2.5 * s, WHITE);
        c.set_stroke_style_str(COMPUTE);
        c.set_line_width(0.8);
        c.stroke_rect(dx + 16.0 * s, y, 13.0 * s, 2.5 * s);
    }
    if sc.queued > 0 {
        let label = if sc.queued > 6 {
            format!("{} queued", sc.queued)
        } else {
            "queued".to_string()
        };
        Label::center(F10, COMPUTE).draw(
            c,
            &label,
            dx + 22.0 * s,
            dy - 12.0 * s - shown as f64 * 3.0 * s,
            70.0,
        );
    }
    let label_x = dx - 30.0 * s - 6.0;
    let label_w = (label_x - l.wh1 - 4.0).max(40.0);
    Label::right(F12B, SLATE).draw(c, "Instruction desk (CPU)", label_x, dy - 16.0 * s, label_w);
    let desk_line = if sc.cpu_busy {
        format!(
            "writing order {} of {} · {} each",
            (sc.launched + 1).min(p.launches),
            p.launches,
            p.overhead_text
        )
    } else if p.launches == 1 {
        "the step's one order is handed out".to_string()
    } else {
        format!("all {} orders handed out", p.launches)
    };
    Label::right(F11, MUTED).draw(c, &desk_line, label_x, dy - 3.0 * s, label_w);
}

/// The headline (what runs now and what bounds it) and, under it, where the replay
/// is in the step.
fn headline(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene, v: &Vars) {
    let what = p.what(sc);
    let head = match sc.kind {
        Kind::Compute => format!("{what}: compute-bound, the factory sets the pace"),
        Kind::Memory => format!("{what}: memory-bound, the factory waits for trucks"),
        Kind::Idle => "GPU idle: the factory waits for the desk's next order".to_string(),
    };
    let head_col = match sc.kind {
        Kind::Compute => COMPUTE,
        Kind::Memory => MEMORY,
        Kind::Idle => SLATE,
    };
    Label::left(F13B, head_col).draw(c, &head, 8.0, 17.0, l.w - 16.0);
    let sub = if v.still {
        format!(
            "still picture at {} of a {} step",
            units::si(sc.ts, "s"),
            p.wall_text
        )
    } else {
        format!(
            "t = {} of a {} step, replayed every {} s",
            units::si(sc.ts, "s"),
            p.wall_text,
            PERIOD_S
        )
    };
    SUB.draw(c, &sub, 8.0, 33.0, l.w - 16.0);
}

/// The timeline strip: the desk's and the factory's lanes over one step, with the
/// playhead.
fn strip(c: &C2d, l: &Lay, p: &Storyboard, sc: &Scene) {
    let (x0, x1) = (l.strip0, l.strip1);
    let sw = (x1 - x0).max(1.0);
    NOTE_RIGHT.draw(c, "desk", x0 - 6.0, l.cpu_y + 8.0, x0);
    NOTE_RIGHT.draw(c, "factory", x0 - 6.0, l.gpu_y + 11.0, x0);
    let (ch, gh) = (9.0, 14.0);
    rect(c, x0, l.cpu_y, sw, ch, TRACK);
    if p.wall > 0.0 {
        rect(
            c,
            x0,
            l.cpu_y,
            sw * (p.cpu_end / p.wall).clamp(0.0, 1.0),
            ch,
            OVERHEAD,
        );
    }
    for t in &p.cpu_ticks {
        rect(c, x0 + sw * t - 0.5, l.cpu_y, 1.0, ch, WHITE);
    }
    rect(c, x0, l.gpu_y, sw, gh, TRACK);
    for r in &p.strip {
        let col = match r.kind {
            Kind::Compute => COMPUTE,
            Kind::Memory => MEMORY,
            Kind::Idle => OVERHEAD,
        };
        let rx = x0 + sw * r.x0;
        let rw = (sw * (r.x1 - r.x0)).max(0.75);
        rect(c, rx, l.gpu_y + gh * r.y0, rw, gh * (r.y1 - r.y0), col);
    }
    if p.seg_marks.len() as f64 * 3.0 < sw {
        for m in &p.seg_marks {
            rect(c, x0 + sw * m - 0.5, l.gpu_y, 1.0, gh, WHITE);
        }
    }
    // playhead
    let ph = if p.wall > 0.0 {
        x0 + sw * (sc.ts / p.wall).clamp(0.0, 1.0)
    } else {
        x0
    };
    rect(
        c,
        ph - 1.0,
        l.cpu_y - 4.0,
        2.0,
        gh + (l.gpu_y - l.cpu_y) + 8.0,
        INK,
    );
    fill(c, INK);
    c.begin_path();
    c.move_to(ph - 4.0, l.cpu_y - 7.0);
    c.line_to(ph + 4.0, l.cpu_y - 7.0);
    c.line_to(ph, l.cpu_y - 2.0);
    c.close_path();
    c.fill();
    Label::left(F10, MUTED).draw(c, "0", x0, l.h - 6.0, 20.0);
    NOTE_RIGHT.draw(c, &p.wall_text, x1, l.h - 6.0, 80.0);
    let legend = if sw < 480.0 {
        "blue compute · orange memory · grey idle"
    } else {
        "blue: compute-bound · orange: memory-bound · grey: waiting on the CPU"
    };
    NOTE.draw(c, legend, x0 + sw / 2.0, l.h - 6.0, (sw - 110.0).max(40.0));
}

// ---------------------------------------------------------------------------
// The component
