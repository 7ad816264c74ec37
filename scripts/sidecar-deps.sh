#!/usr/bin/env bash
# What the sidecar's end-to-end test needs besides Rust, Java and Maven:
# Prometheus with promtool, headless Chromium (Debian packages) and playwright-core
# (npm, driving the system Chromium; no browser download). Installs only
# what is missing; `apt-get update` runs at most once.
#   scripts/sidecar-deps.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

missing=()
# Debian's prometheus package also ships promtool (the rules' tests).
{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || missing+=(prometheus)
command -v chromium >/dev/null 2>&1 || missing+=(chromium chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing ${missing[*]} (Debian packages)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v node >/dev/null 2>&1 || { echo "shepherd: node and npm are required for the status-page check" >&2; exit 1; }
if [ ! -d "$ROOT/integration/page-check/node_modules/playwright-core" ]; then
  echo "==> installing playwright-core (npm) for the status-page check"
  (cd "$ROOT/integration/page-check" && npm ci --no-audit --no-fund --silent)
fi
echo "==> sidecar test tools: $(prometheus --version 2>&1 | head -1); $(chromium --version 2>/dev/null)"
