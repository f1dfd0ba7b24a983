#!/usr/bin/env bash
# Install what brrr's build and tests need, idempotently. Fast when all is there.
# Sourced by scripts/serve.sh and scripts/test.sh (exports PATH).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130

say() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"

# 1. The wasm32 target.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The two tools are compiled from source once. Their own release profiles ask for
# fat LTO in one codegen unit (Trunk's alone took ~12 min on 2 cores); they run
# for seconds per build, so they are built without it, and Trunk without TLS
# (no default features: it never downloads anything here, Trunk.toml pins the
# tools and the build is --offline).
quick_install() {
  CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    cargo install --quiet "$@"
}

# 2. Pinned Trunk.
if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (one-off, a few minutes)"
  quick_install trunk --version "$TRUNK_VERSION" --locked --no-default-features
fi

# 3. wasm-bindgen-cli matching the wasm-bindgen pinned in Cargo.toml (not --locked:
#    one of its locked dependencies is missing from the registry).
if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  quick_install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# 4. npm packages: binaryen (wasm-opt), terser (JS glue minifier, a Trunk hook),
#    lighthouse (the benchmark's page audit, tests/e2e/bench.mjs --lighthouse),
#    playwright-core (e2e tests, bench) and axe-core (the accessibility audit).
if [ ! -x "$ROOT/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/node_modules/playwright-core" ] || [ ! -d "$ROOT/node_modules/terser" ] \
   || [ ! -d "$ROOT/node_modules/axe-core" ] || [ ! -d "$ROOT/node_modules/lighthouse" ] \
   || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
  say "installing npm packages"
  (cd "$ROOT" && npm ci --no-audit --no-fund)
fi

# 5. Chromium + ChromeDriver from Debian (tests drive the system browser; nothing
#    is downloaded by the test tools themselves).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "installing chromium and chromium-driver (apt)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver
fi

# 6. A software Vulkan driver (Mesa's lavapipe, and the Vulkan loader) from Debian:
#    `brrr-lab`, the native lab, runs its kernels on it in the tests, with no GPU.
if ! dpkg -s mesa-vulkan-drivers >/dev/null 2>&1 || ! dpkg -s libvulkan1 >/dev/null 2>&1; then
  say "installing mesa-vulkan-drivers and libvulkan1 (apt)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mesa-vulkan-drivers libvulkan1
fi

# 7. vendor/tachys: Leptos's renderer with brrr's patch (vendor/PATCHED.md), rebuilt
#    from the crates.io release + vendor/tachys.patch when the patch changed. Every
#    cargo command needs it (Cargo.toml's [patch.crates-io] points at it).
bash "$ROOT/scripts/vendor-tachys.sh"
