//! Everything the page starts from, decoded from its query string in one place:
//! the state and its notices ([`url::decode`]), the page mode (`embed`, `theme`)
//! and the test knobs. Pure, so the whole address is covered by native tests and
//! the URL fuzz test; the shell (`ui::shell::store`) only reads `location.search`.
//!
//! | key        | meaning                                   | bad value                      |
//! |------------|-------------------------------------------|--------------------------------|
//! | `embed`    | a widget id: show that widget alone       | notice, the whole page         |
//! | `theme`    | `light` or `dark`, over saved and system  | notice, saved or system theme  |
//! | `lab_size` | test knob: `small` runs the lab at 1 MiB  | ignored (not part of contract) |
//! | `lab_timer`| test knob: `wall` times with the wall clock | ignored                      |
//! | `debug_panic` | test knob: `1` panics after mount (banner test) | ignored              |

use super::url::{self, shown, Notice};
use crate::state::data::State;

/// The page's colour theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn is_dark(self) -> bool {
        self == Theme::Dark
    }
}

/// Test knobs (docs/lab.md, "Test knobs"): not part of the URL contract, never written
/// back to the address bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Knobs {
    /// `lab_size=small`: the lab at its 1 MiB test size.
    pub lab_small: bool,
    /// `lab_timer=wall`: the lab times with `performance.now()`.
    pub lab_wall_clock: bool,
    /// `debug_panic=1`: panic after mount (the panic banner's test).
    pub debug_panic: bool,
}

/// The host page's script that sizes each brrr iframe to the height its embed
/// posts (`{type: "brrr:height", height}`, `ui::shell::embed`): the copied
/// embed code ends with it, and docs/contract.md shows it (tests/docs.rs).
pub const EMBED_RESIZE: &str = r#"<script>addEventListener("message",e=>{var d=e.data;if(d&&d.type=="brrr:height"&&d.height>0)document.querySelectorAll("iframe").forEach(f=>{if(f.contentWindow==e.source)f.style.height=Math.ceil(d.height)+"px"})})</script>"#;

/// What the page starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub state: State,
    /// Every parameter that was ignored, and why, in the order of the checks.
    pub notices: Vec<Notice>,
    /// `Some(id)` in embed mode: render only that widget.
    pub embed: Option<&'static str>,
    /// `Some(theme)` when the URL fixes the theme.
    pub theme: Option<Theme>,
    pub knobs: Knobs,
}

/// Decode a query string (with or without `?`). `widget` maps an id to the
/// registry's own `'static` id, or `None` for an unknown one (the registry lives
/// in the shell). Never panics.
pub fn decode(query: &str, widget: impl Fn(&str) -> Option<&'static str>) -> Start {
    let (state, mut notices) = url::decode(query);
    let q = query.strip_prefix('?').unwrap_or(query);
    let param = |key: &str| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    let theme = param("theme").and_then(|v| match v.as_str() {
        "light" => Some(Theme::Light),
        "dark" => Some(Theme::Dark),
        _ => {
            notices.push(Notice {
                param: "theme".into(),
                value: shown(&v),
                reason: "the theme is light or dark, so the saved or system theme is used".into(),
            });
            None
        }
    });
    let embed = param("embed").and_then(|id| {
        let found = widget(&id);
        if found.is_none() {
            notices.push(Notice {
                param: "embed".into(),
                value: shown(&id),
                reason: "no widget has this id, so the whole page is shown".into(),
            });
        }
        found
    });
    let is = |key: &str, want: &str| param(key).as_deref() == Some(want);
    let knobs = Knobs {
        lab_small: is("lab_size", "small"),
        lab_wall_clock: is("lab_timer", "wall"),
        debug_panic: is("debug_panic", "1"),
    };
    Start {
        state,
        notices,
        embed,
        theme,
        knobs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(id: &str) -> Option<&'static str> {
        ["fusion", "lab"].into_iter().find(|w| *w == id)
    }

    #[test]
    fn the_page_mode_and_knobs() {
        let s = decode(
            "?embed=fusion&theme=dark&lab_size=small&fusion_n=8",
            registry,
        );
        assert!(s.notices.is_empty(), "{:?}", s.notices);
        assert_eq!(s.embed, Some("fusion"));
        assert_eq!(s.theme, Some(Theme::Dark));
        assert!(s.knobs.lab_small && !s.knobs.lab_wall_clock && !s.knobs.debug_panic);
        assert_eq!(s.state.widgets.fusion.n, 8);
        let s = decode("lab_timer=wall&debug_panic=1&theme=light", registry);
        assert_eq!(s.theme, Some(Theme::Light));
        assert!(s.knobs.lab_wall_clock && s.knobs.debug_panic && !s.knobs.lab_small);
        assert_eq!(decode("", registry).knobs, Knobs::default());
    }

    #[test]
    fn bad_mode_values_are_notices_with_the_shared_truncation() {
        let long = "x".repeat(100);
        let s = decode(&format!("embed={long}&theme=sepia&fusion_n=0"), registry);
        assert_eq!(s.embed, None);
        assert_eq!(s.theme, None);
        let params: Vec<&str> = s.notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(params, ["fusion_n", "theme", "embed"]);
        // the same rule as every other notice: 40 characters and an ellipsis
        assert_eq!(s.notices[2].value, shown(&long));
        assert!(s.notices[2].value.ends_with('…'));
        // knobs are exact words, never notices
        let s = decode("lab_size=big&debug_panic=yes", registry);
        assert!(s.notices.is_empty());
        assert_eq!(s.knobs, Knobs::default());
    }
}
