//! README's URL contract and the codec agree both ways (issue 25, item 2): every
//! key README's two tables name is one the page reads, and every key the page
//! reads (the explorer's `state::url::KEYS`, the widgets' `state::widgets::PARAMS`)
//! has its row. A key added to the code without its row, or a row left behind by
//! a removed key, fails here.

use std::collections::BTreeSet;

/// The backticked keys in the first column of the table that follows `heading`.
fn first_column_keys(readme: &str, heading: &str) -> BTreeSet<String> {
    let after = readme.split(heading).nth(1).unwrap_or_default();
    let mut keys = BTreeSet::new();
    let mut started = false;
    for line in after.lines() {
        if line.starts_with('|') {
            started = true;
            let first = line.split('|').nth(1).unwrap_or_default();
            for k in first.split('`').skip(1).step_by(2) {
                keys.insert(k.to_string());
            }
        } else if started {
            break;
        }
    }
    keys.remove("key");
    keys
}

#[test]
fn readme_tables_and_the_codec_name_the_same_keys() {
    let readme = include_str!("../README.md");
    let explorer = first_column_keys(readme, "## URL contract");
    let code: BTreeSet<String> = brrr::state::url::KEYS
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert!(
        explorer.len() >= 10,
        "the URL table was not found: {explorer:?}"
    );
    assert_eq!(explorer, code, "README's URL table vs state::url::KEYS");

    let widgets = first_column_keys(readme, "Widget parameters (");
    let code: BTreeSet<String> = brrr::state::widgets::PARAMS
        .iter()
        .map(|p| p.key.to_string())
        .collect();
    assert!(
        widgets.len() >= 20,
        "the widget table was not found: {widgets:?}"
    );
    let missing: Vec<&String> = code.difference(&widgets).collect();
    let extra: Vec<&String> = widgets.difference(&code).collect();
    assert!(
        missing.is_empty(),
        "declared but not in README's widget table: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "in README's widget table but not declared: {extra:?}"
    );
}
