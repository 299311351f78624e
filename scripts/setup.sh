# Installs what the README commands need, only where it is missing: sourced by scripts/serve and
# scripts/test. Every step is idempotent and silent when there is nothing to do.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The wasm-bindgen version in Cargo.lock: crate and CLI must match exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_wasm_target() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown >&2
  fi
}

ensure_wasm_bindgen_cli() {
  local want have
  if [ ! -f "$ROOT/Cargo.lock" ]; then (cd "$ROOT" && cargo generate-lockfile -q); fi
  want="$(wasm_bindgen_version)"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"  # absent on a fresh machine
  if [ "$have" != "$want" ]; then
    say "installing wasm-bindgen-cli $want (a few minutes, once)"
    # Not --locked: one of its pinned dependencies is missing from the registry.
    cargo install -q wasm-bindgen-cli --version "$want" >&2
  fi
}

ensure_apt_packages() {
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
  command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]} from Debian (once)"
    as_root apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

GECKODRIVER_VERSION=0.37.1
ensure_geckodriver() {
  if ! geckodriver --version 2>/dev/null | grep -q "geckodriver $GECKODRIVER_VERSION"; then
    say "building geckodriver $GECKODRIVER_VERSION from crates.io (a few minutes, once)"
    cargo install -q geckodriver --version "$GECKODRIVER_VERSION" >&2
  fi
}

ensure_node_modules() {
  if ! command -v node >/dev/null 2>&1; then
    say "installing Node.js from Debian (once)"
    as_root apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  # Reinstall only when the lock file changed since the last install.
  local stamp="$ROOT/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$ROOT/package-lock.json" -nt "$stamp" ]; then
    say "installing npm packages"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

# Builds the optimised wasm and the JS glue into www/pkg (cargo and wasm-bindgen skip what is fresh).
build_pkg() {
  ensure_wasm_target
  ensure_wasm_bindgen_cli
  # The bindings' crate (crates/wasm, lib dp_wasm); `--out-name dp_playground` keeps www/pkg's names.
  (cd "$ROOT" && cargo build -q --release -p dp-playground-wasm --lib --target wasm32-unknown-unknown)
  local wasm="$ROOT/target/wasm32-unknown-unknown/release/dp_wasm.wasm"
  if [ ! -f "$ROOT/www/pkg/dp_playground_bg.wasm" ] || [ "$wasm" -nt "$ROOT/www/pkg/dp_playground_bg.wasm" ]; then
    # Without the function names (a panic still prints its message): 8 % of the gzipped module
    # (docs/benchmarks.md, "Keeping the wasm small").
    wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
      --out-dir "$ROOT/www/pkg" --out-name dp_playground "$wasm"
  fi
  # The cards' prose, which the wasm leaves out (docs/benchmarks.md, "Keeping the wasm small"), from the native
  # binary in the dev profile (the one the tests build); replaced whole, never left half-written.
  (cd "$ROOT" && cargo run -q --bin dp-playground -- cards > www/pkg/cards.json.tmp) \
    && mv "$ROOT/www/pkg/cards.json.tmp" "$ROOT/www/pkg/cards.json"
}
