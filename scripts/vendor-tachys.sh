#!/usr/bin/env bash
# Rebuild vendor/tachys/ (git-ignored): tachys, Leptos's renderer, as released on
# crates.io, with vendor/tachys.patch applied. Cargo.toml's [patch.crates-io]
# points at it. Idempotent and offline once the crate is in cargo's cache: the
# tree is rebuilt only when the patch, the version or the script changed (a stamp
# records their hash). vendor/PATCHED.md says what the patch does and why.
#
# Run by scripts/bootstrap.sh and before every Trunk build (Trunk.toml's
# pre_build hook); run it by hand after a fresh clone before `cargo test`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION=0.2.19
# sha256 of tachys-$VERSION.crate, as the crates.io index records it
SHA256=e47e2220bb9d2a3be976a22a0fb7685a0b84499bb11ea5cb3bbc82907675ac68
DEST="$ROOT/vendor/tachys"
PATCH="$ROOT/vendor/tachys.patch"
STAMP="$DEST/.brrr-stamp"

want="$VERSION $SHA256 $(cat "$PATCH" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  exit 0
fi

CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
find_crate() { ls "$CARGO_HOME"/registry/cache/*/"tachys-$VERSION.crate" 2>/dev/null | head -1; }
crate="$(find_crate || true)"
if [ -z "$crate" ]; then
  # cargo itself downloads it: a throwaway manifest that depends on it alone
  # (the project's own manifest cannot: its [patch] hides the registry copy)
  tmp="$ROOT/target/vendor-tachys-fetch"
  mkdir -p "$tmp/src"
  printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\ntachys = "=%s"\n' "$VERSION" > "$tmp/Cargo.toml"
  : > "$tmp/src/lib.rs"
  cargo fetch --quiet --manifest-path "$tmp/Cargo.toml"
  crate="$(find_crate || true)"
fi
if [ -z "$crate" ]; then
  echo "vendor-tachys: tachys-$VERSION.crate is not in $CARGO_HOME/registry/cache" >&2
  exit 1
fi
if [ "$(sha256sum "$crate" | cut -d' ' -f1)" != "$SHA256" ]; then
  echo "vendor-tachys: $crate does not have the sha256 crates.io publishes ($SHA256)" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$crate" -C "$tmp"
patch --quiet --forward -p1 -d "$tmp/tachys-$VERSION" < "$PATCH"
rm -rf "$DEST"
mv "$tmp/tachys-$VERSION" "$DEST"
echo "$want" > "$STAMP"
echo "vendor-tachys: vendor/tachys is tachys $VERSION + vendor/tachys.patch"
