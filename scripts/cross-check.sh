#!/usr/bin/env bash
# Type-checks and lints the engine and the binding crate for every target the package is
# meant to run on: `cargo clippy --all-targets -D warnings` (which runs `cargo check`,
# test and example code included) per target. Nothing is linked or run, so no C toolchain
# or SDK of the target is needed, only its rust-std (`rustup target add <target>`); a
# target whose rust-std is not installed is skipped, saying so.
#
# Not part of `npm test` nor of .ci/run: CI must never need extra targets.
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
passed=() failed=() skipped=()
for target in "${targets[@]}"; do
  if ! grep -qx "$target" <<<"$installed"; then
    echo "== $target: SKIPPED (rust-std not installed: rustup target add $target)"
    skipped+=("$target")
    continue
  fi
  echo "== $target"
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
[ ${#failed[@]} -eq 0 ]
