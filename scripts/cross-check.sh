#!/usr/bin/env bash
# Type-checks and lints the engine and the binding crate for every target the package is
# meant to run on: `cargo clippy --all-targets -D warnings` (which runs `cargo check`,
# test and example code included) per target. Nothing is linked or run, so no SDK of the
# target is needed, only its rust-std (`rustup target add <target>`) and, for the grammars'
# C, `zig cc` (below); a target whose rust-std is not installed is skipped, saying so.
#
# Run by scripts/check-tools.sh (so by .ci/run), never by `npm test`: CI uses the targets
# already on its machine and never downloads one. A skipped target is reported in a banner;
# with AGENT_READ_FILE_REQUIRE_ALL_TARGETS=1 it fails the check instead.
# Usage: scripts/cross-check.sh [target...]
set -uo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    x86_64-unknown-linux-gnu
    aarch64-unknown-linux-gnu
    x86_64-unknown-linux-musl
    aarch64-unknown-linux-musl
    x86_64-apple-darwin
    aarch64-apple-darwin
    x86_64-unknown-freebsd
  )
fi

installed=$(rustup target list --installed 2>/dev/null)
host=$(rustc -vV | sed -n 's/^host: //p')

# The grammars of code outlines (tree-sitter's crates) are C, compiled by their build scripts
# even for a check: `.cargo/config.toml` gives each target a C compiler
# (scripts/target-c/tool.sh), the system's for the host and `zig cc` for the others. zig is
# PyPI's `ziglang`: installed here when a target other than the host is to be checked.
with_c_compiler() {
  if [ "$1" != "$host" ] && ! python3 -m ziglang version >/dev/null 2>&1; then
    echo "== installing zig (PyPI's ziglang) for the grammars' C"
    python3 -m pip install --quiet --disable-pip-version-check ziglang
  fi
}

passed=() failed=() skipped=()
for target in "${targets[@]}"; do
  if ! grep -qx "$target" <<<"$installed"; then
    echo "== $target: SKIPPED (rust-std not installed: rustup target add $target)"
    skipped+=("$target")
    continue
  fi
  echo "== $target"
  with_c_compiler "$target"
  if cargo clippy --quiet --workspace --all-targets --target "$target" -- -D warnings; then
    passed+=("$target")
  else
    failed+=("$target")
  fi
done

echo
echo "passed:  ${passed[*]:-none}"
echo "skipped: ${skipped[*]:-none}"
echo "failed:  ${failed[*]:-none}"
if [ ${#skipped[@]} -ne 0 ]; then
  echo
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  echo "!! cross-check: ${#skipped[@]} target(s) NOT CHECKED (no rust-std on this machine):"
  echo "!!   ${skipped[*]}"
  echo "!! Their code may not compile. Add them with: rustup target add ${skipped[*]}"
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  if [ "${AGENT_READ_FILE_REQUIRE_ALL_TARGETS:-}" = 1 ]; then
    exit 1
  fi
fi
[ ${#failed[@]} -eq 0 ]
