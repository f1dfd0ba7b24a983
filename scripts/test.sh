#!/usr/bin/env bash
# Quick start, command 2: run every test (lint, native model tests, release build,
# the native lab on a software Vulkan driver, end-to-end tests in headless Chromium
# against the built dist/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
step() { printf '\n\033[1m==> [%s] %s\033[0m\n' "$(date +%T)" "$*"; }

step "rustfmt"
cargo fmt --all -- --check
# The release build (four wasm binaries, each linked with fat LTO in one codegen
# unit: long single-threaded phases) runs in the background while the native
# checks below use the other core; the end-to-end tests wait for it.
step "release build (trunk, offline): started in the background, log in target/trunk-build.log"
mkdir -p target
trunk_log="$ROOT/target/trunk-build.log"
trunk build --release --offline >"$trunk_log" 2>&1 &
trunk_pid=$!
stop_trunk() { pkill -P "$trunk_pid" 2>/dev/null || true; kill "$trunk_pid" 2>/dev/null || true; }
trap stop_trunk EXIT

step "clippy (native + wasm32, warnings are errors)"
cargo clippy --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown -- -D warnings
step "native tests (model, URL codec, properties, the lab's chains on the Vulkan adapter)"
# bootstrap.sh installed Mesa's software Vulkan driver: a missing adapter is a failure
BRRR_REQUIRE_ADAPTER=1 cargo test --quiet
step "release build (trunk, offline): waiting for it"
if ! wait "$trunk_pid"; then
  cat "$trunk_log"
  echo "the release build failed (its log is above)" >&2
  exit 1
fi
trap - EXIT
tail -n 3 "$trunk_log"
step "brrr-lab: the native lab on a software Vulkan driver (small size)"
# Every variant must verify (exit status 1 otherwise): this stops the tests before
# the page imports the file it writes (tests/e2e/native-lab.test.mjs).
mkdir -p tests/e2e/out
rm -f tests/e2e/out/brrr-lab.json
# The dev profile: `cargo test` already built it (the lab profile would compile wgpu
# a second time, ~8 minutes here); this run checks the kernels, not the timings.
cargo run --quiet --bin brrr-lab -- --small --json tests/e2e/out/brrr-lab.json
step "end-to-end tests (headless Chromium)"
npm run --silent test:e2e
step "all tests passed"
