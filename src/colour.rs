//! Colour contrast (WCAG 2.x), pure and native-tested: the relative luminance
//! of an sRGB colour, the contrast ratio of two, and [`legible`], the nearest
//! colour of the same hue that reaches a ratio on a background. The charts draw
//! every text through [`legible`] (`ui::chart::Look::font`), so a series colour
//! too light for text on white (the memory roof's orange) is darkened for its
//! label, and the page's stylesheet is checked against the same ratio (tests
//! below read static/style.css).

/// An sRGB colour, 8 bits a channel.
pub type Rgb = (u8, u8, u8);

/// The ratio every text on the page reaches against its background (WCAG AA
/// for normal text).
pub const TEXT_CONTRAST: f64 = 4.5;

/// `#rrggbb` (or `#rgb`) as a colour; `None` for anything else.
pub fn parse_hex(hex: &str) -> Option<Rgb> {
    let h = hex.trim().strip_prefix('#')?;
    let byte = |s: &str| u8::from_str_radix(s, 16).ok();
    match h.len() {
        6 => Some((byte(&h[0..2])?, byte(&h[2..4])?, byte(&h[4..6])?)),
        3 => {
            let d = |i: usize| byte(&h[i..=i]).map(|v| v * 17);
            Some((d(0)?, d(1)?, d(2)?))
        }
        _ => None,
    }
}

/// WCAG relative luminance, 0 (black) to 1 (white).
pub fn luminance((r, g, b): Rgb) -> f64 {
    let lin = |c: u8| {
        let s = f64::from(c) / 255.0;
        if s <= 0.04045 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG contrast ratio of two colours, 1 to 21, in either order.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// `fg` itself where it reaches `min` on `bg`, else the first colour on the
/// way from `fg` to black (on a light background) or to white (on a dark one)
/// that does: the same hue, as little darker or lighter as it takes.
pub fn legible(fg: Rgb, bg: Rgb, min: f64) -> Rgb {
    if contrast(fg, bg) >= min {
        return fg;
    }
    let to: f64 = if luminance(bg) > 0.18 { 0.0 } else { 255.0 };
    let mix = |c: u8, t: f64| (f64::from(c) + (to - f64::from(c)) * t).round() as u8;
    for i in 1..=100 {
        let t = f64::from(i) / 100.0;
        let c = (mix(fg.0, t), mix(fg.1, t), mix(fg.2, t));
        if contrast(c, bg) >= min {
            return c;
        }
    }
    if to == 0.0 {
        (0, 0, 0)
    } else {
        (255, 255, 255)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_is_wcags() {
        assert_eq!(parse_hex("#ffffff"), Some((255, 255, 255)));
        assert_eq!(parse_hex("#fff"), Some((255, 255, 255)));
        assert_eq!(parse_hex("fff"), None);
        assert_eq!(parse_hex("#12345g"), None);
        assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
        assert!((contrast((255, 255, 255), (255, 255, 255)) - 1.0).abs() < 1e-9);
        // the dark theme's old overhead headline, which failed: #475569 on #111827
        let c = contrast((0x47, 0x55, 0x69), (0x11, 0x18, 0x27));
        assert!((c - 2.34).abs() < 0.01, "{c}");
    }

    #[test]
    fn legible_darkens_on_light_and_lightens_on_dark() {
        let white = (255, 255, 255);
        let dark = (0x11, 0x18, 0x27);
        // the memory roof's orange is 3.2:1 on white: darkened for text
        let orange = (0xd9, 0x77, 0x06);
        assert!(contrast(orange, white) < TEXT_CONTRAST);
        let o = legible(orange, white, TEXT_CONTRAST);
        assert!(contrast(o, white) >= TEXT_CONTRAST);
        assert!(o.0 < orange.0 && o.1 < orange.1);
        // already legible: unchanged
        assert_eq!(
            legible((0x1f, 0x29, 0x37), white, TEXT_CONTRAST),
            (0x1f, 0x29, 0x37)
        );
        // slate on the dark panel: lightened
        let s = legible((0x47, 0x55, 0x69), dark, TEXT_CONTRAST);
        assert!(contrast(s, dark) >= TEXT_CONTRAST && s.0 > 0x47);
    }

    /// The stylesheet without its comments.
    fn uncommented(css: &str) -> String {
        let mut plain = String::new();
        let mut rest = css;
        while let Some(at) = rest.find("/*") {
            plain.push_str(&rest[..at]);
            rest = rest[at..].find("*/").map_or("", |e| &rest[at + e + 2..]);
        }
        plain.push_str(rest);
        plain
    }

    /// The stylesheet's custom properties of one theme block (`:root {` or
    /// `html[data-theme=dark] {`): name → colour.
    fn vars(css: &str, block: &str) -> Vec<(String, Rgb)> {
        let Some(at) = css.find(block) else {
            return Vec::new();
        };
        let body = &css[at + block.len()..];
        let body = &body[..body.find('}').unwrap_or(body.len())];
        body.split(';')
            .filter_map(|d| {
                let (k, v) = d.split_once(':')?;
                let k = k.trim();
                Some((k.strip_prefix("--")?.to_string(), parse_hex(v)?))
            })
            .collect()
    }

    /// Every colour the stylesheet gives text reaches 4.5:1 on
    /// the page's background and on a panel, in both themes (axe checks the
    /// rendered page; this checks the roles a state the audit did not reach
    /// would use).
    #[test]
    fn the_stylesheets_text_colours_are_legible_in_both_themes() {
        let css = &uncommented(include_str!("../static/style.css"));
        let light = vars(css, ":root {");
        let mut dark = light.clone();
        for (k, v) in vars(css, "html[data-theme=dark] {") {
            match dark.iter_mut().find(|x| x.0 == k) {
                Some(x) => x.1 = v,
                None => dark.push((k, v)),
            }
        }
        assert!(light.len() > 10 && dark.len() > 10);
        // the roles the stylesheet uses as a text `color:`
        let text: Vec<String> = css
            .match_indices("color: var(--")
            .filter(|(i, _)| !css[..*i].ends_with('-'))
            .filter_map(|(i, m)| {
                let rest = &css[i + m.len()..];
                rest.find(')').map(|e| rest[..e].to_string())
            })
            .collect();
        for role in [
            "ink",
            "muted",
            "compute",
            "error",
            "memory-ink",
            "overhead-ink",
            "ok",
        ] {
            assert!(text.iter().any(|t| t == role), "{role} is no text colour");
        }
        for (theme, v) in [("light", &light), ("dark", &dark)] {
            let get = |k: &str| v.iter().find(|x| x.0 == k).map(|x| x.1);
            for role in &text {
                let fg = get(role).unwrap_or_else(|| panic!("{theme}: no --{role}"));
                for bg in ["bg", "panel"] {
                    let Some(b) = get(bg) else { continue };
                    let c = contrast(fg, b);
                    assert!(
                        c >= TEXT_CONTRAST,
                        "{theme}: --{role} on --{bg} is {c:.2}:1"
                    );
                }
            }
        }
    }

    /// The stylesheet without its `@media print` blocks (paper is white: print
    /// sets its own colours).
    fn screen_css(css: &str) -> String {
        let plain = uncommented(css);
        let mut out = String::new();
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("@media print {") {
            out.push_str(&rest[..at]);
            let mut depth = 0;
            let mut end = rest.len();
            for (i, c) in rest[at..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = at + i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// Every literal text colour in the stylesheet (outside print) is one the
    /// table below knows, on the background its rule puts it on, and reaches
    /// 4.5:1 there: a literal colour that holds in one theme only (the old
    /// `#475569` overhead headline on the dark panel) fails.
    #[test]
    fn literal_text_colours_are_legible_where_they_sit() {
        let css = screen_css(include_str!("../static/style.css"));
        // selector (as written) → the background its text sits on
        let known: [(&str, &str); 4] = [
            (".remedies tr.current .effect, .hw-table tr.current td.source", "#eff6ff"),
            ("html[data-theme=dark] .factory-btn:not(.secondary), html[data-theme=dark] .lab-button.primary", "#60a5fa"),
            (".factory-btn", "#2563eb"),
            (".lab-button.primary", "#2563eb"),
        ];
        let mut seen = 0;
        for (i, m) in css.match_indices("color: #") {
            if css[..i].ends_with('-') {
                continue; // background-color, border-color
            }
            let open = css[..i].rfind('{').unwrap_or(0);
            let start = css[..open].rfind('}').map_or(0, |e| e + 1);
            let selector = css[start..open].trim();
            let hex: String = css[i + m.len() - 1..]
                .chars()
                .take_while(|c| *c == '#' || c.is_ascii_hexdigit())
                .collect();
            let fg = parse_hex(&hex).unwrap_or((0, 0, 0));
            let bg = known
                .iter()
                .find(|k| k.0 == selector)
                .and_then(|k| parse_hex(k.1));
            let Some(bg) = bg else {
                panic!("a literal text colour {hex} in `{selector}`: use a theme variable, or add the rule's background to this table");
            };
            let c = contrast(fg, bg);
            assert!(
                c >= TEXT_CONTRAST,
                "`{selector}`: {hex} is {c:.2}:1 on its background"
            );
            seen += 1;
        }
        assert!(seen >= 3);
    }
}
