//! The renderer patch (vendor/PATCHED.md) must be the tachys the build resolves.
//! When Leptos moves to a newer tachys, cargo only warns "patch not used" and
//! resolves the registry's copy; this fails instead (as does the wasm build: the
//! page reads the patch's mark, `leptos::tachys::BRRR_PATCHED`).

use std::fs;

fn read(path: &str) -> String {
    let p = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Each `[[package]]` of Cargo.lock named `name`, as its lines.
fn packages<'a>(lock: &'a str, name: &str) -> Vec<&'a str> {
    lock.split("\n[[")
        .filter(|b| b.starts_with("package]") && b.contains(&format!("\nname = \"{name}\"\n")))
        .collect()
}

#[test]
fn tachys_is_the_patched_copy_not_the_registrys() {
    let lock = read("Cargo.lock");
    assert!(
        !lock.contains("[[patch.unused]]"),
        "Cargo.lock lists an unused [patch]: the build resolved the registry's tachys \
         and lost vendor/tachys.patch (see vendor/PATCHED.md)"
    );
    let tachys = packages(&lock, "tachys");
    assert_eq!(tachys.len(), 1, "one tachys in Cargo.lock: {tachys:?}");
    assert!(
        !tachys[0].contains("\nsource = "),
        "tachys comes from a registry, not vendor/tachys: {}",
        tachys[0]
    );
    // the version the script patches is the version resolved
    let script = read("scripts/vendor-tachys.sh");
    let version = script
        .lines()
        .find_map(|l| l.strip_prefix("VERSION="))
        .unwrap_or_else(|| panic!("no VERSION= in scripts/vendor-tachys.sh"));
    assert!(
        tachys[0].contains(&format!("\nversion = \"{version}\"")),
        "Cargo.lock's tachys is not the {version} scripts/vendor-tachys.sh patches: {}",
        tachys[0]
    );
}

#[test]
fn the_patch_carries_the_mark_the_page_checks() {
    let patch = read("vendor/tachys.patch");
    assert!(
        patch.contains("+pub const BRRR_PATCHED: &str"),
        "vendor/tachys.patch lost its mark"
    );
    assert!(
        read("src/ui/mod.rs").contains("leptos::tachys::BRRR_PATCHED"),
        "the page no longer checks the mark"
    );
}
