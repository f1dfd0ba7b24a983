#!/usr/bin/env bash
# Quick start, command 1: build brrr and serve it at http://127.0.0.1:8080/
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
exec trunk serve --release --offline "$@"
