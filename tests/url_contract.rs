//! The URL contract (docs/contract.md) and the codec agree both ways: every key
//! its two tables name is one the page reads, and every key the page reads (the
//! explorer's `state::url::KEYS`, every registered widget's own `params`) has its
//! row. A key added to the code without its row, or a row left behind by a
//! removed key, fails here. The page-mode keys (`embed`, `theme`) are named in
//! its prose, and each widget key's default there is its declared one. The
//! tables are generated (`BRRR_BLESS=1 cargo test --test docs` rewrites them);
//! these tests read the committed file, so a stale one fails here too.

use std::collections::BTreeSet;

/// The contract, as committed.
fn contract() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/contract.md"))
        .unwrap_or_default()
}

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
fn the_contracts_tables_and_the_codec_name_the_same_keys() {
    let readme = &contract();
    let explorer = first_column_keys(readme, "## URL contract");
    let code: BTreeSet<String> = brrr::state::widgets::explorer::ROWS
        .iter()
        .map(|p| p.key)
        .map(|k| k.to_string())
        .collect();
    assert!(
        explorer.len() >= 10,
        "the URL table was not found: {explorer:?}"
    );
    assert_eq!(
        explorer, code,
        "the contract's URL table vs state::widgets::explorer::ROWS"
    );
    assert_eq!(brrr::state::url::KEYS.len(), code.len());
    let contract = readme.split("## URL contract").nth(1).unwrap_or_default();
    for key in ["embed", "theme"] {
        assert!(
            contract.contains(&format!("`{key}=")),
            "the URL contract does not name {key}="
        );
    }

    let widgets = first_column_keys(readme, "Widget parameters (");
    let code: BTreeSet<String> = brrr::state::registry::params()
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
        "declared but not in the contract's widget table: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "in the contract's widget table but not declared: {extra:?}"
    );
}

/// A default as the contract writes it (`2^26`, `` `1` ``, `1/280000 ≈ …`) as the
/// codec writes it.
fn plain(d: &str) -> String {
    let d = d.trim().trim_matches('`');
    let d = d.split(" (").next().unwrap_or(d).trim().trim_matches('`');
    match d.split_once("^") {
        Some(("2", e)) => e
            .parse::<u32>()
            .map_or(d.to_string(), |e| (1u64 << e).to_string()),
        _ => d.to_string(),
    }
}

#[test]
fn the_contract_gives_each_widget_key_its_declared_default() {
    let readme = &contract();
    let table = readme
        .split("Widget parameters (")
        .nth(1)
        .unwrap_or_default();
    let mut checked = 0;
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    // the column headed `default`
    let column = rows
        .first()
        .and_then(|h| h.split('|').map(str::trim).position(|c| c == "default"));
    let Some(column) = column else {
        panic!("the widget table has no `default` column");
    };
    for line in rows {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(keys), Some(defaults)) = (cells.get(1), cells.get(column)) else {
            continue;
        };
        let keys: Vec<&str> = keys.split('`').skip(1).step_by(2).collect();
        if keys.is_empty() || keys == ["key"] {
            continue;
        }
        let defaults: Vec<String> = defaults.split(", ").map(plain).collect();
        for (i, key) in keys.iter().enumerate() {
            let Some(p) = brrr::state::registry::param(key) else {
                continue;
            };
            // one default for several keys is every key's
            let readme_default = if defaults.len() == keys.len() {
                &defaults[i]
            } else {
                &defaults[0]
            };
            // a default that is no value (a figure not typed) is written `—`
            let declared = Some(p.format(p.kind.default()))
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| "—".into());
            assert_eq!(
                readme_default, &declared,
                "the contract's default for {key}"
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        brrr::state::registry::params().count(),
        "defaults checked"
    );
}
