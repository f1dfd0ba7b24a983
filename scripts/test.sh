#!/usr/bin/env bash
# Quick start, command 2: run every test (lint, native model tests, release build,
# end-to-end tests in headless Chromium against the built dist/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check
step "clippy (native + wasm32, warnings are errors)"
cargo clippy --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown -- -D warnings
step "native tests (model, URL codec, properties)"
cargo test --quiet
step "release build (trunk, offline)"
trunk build --release --offline
step "end-to-end tests (headless Chromium)"
npm run --silent test:e2e
