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
# even for a check: a target other than the host needs a C compiler for it. `zig cc` (PyPI's
# `ziglang`, when installed: `python3 -m pip install ziglang`) is one for every target here.
zig_target() {
  case "$1" in
    aarch64-unknown-linux-gnu) echo aarch64-linux-gnu ;;
    x86_64-unknown-linux-musl) echo x86_64-linux-musl ;;
    aarch64-unknown-linux-musl) echo aarch64-linux-musl ;;
    x86_64-apple-darwin) echo x86_64-macos ;;
    aarch64-apple-darwin) echo aarch64-macos ;;
    x86_64-unknown-freebsd) echo x86_64-freebsd ;;
    *) echo "" ;;
  esac
}
wrappers=$(mktemp -d)
trap 'rm -rf "$wrappers"' EXIT
with_c_compiler() {
  local target=$1 zig
  zig=$(zig_target "$target")
  if [ "$target" = "$host" ] || [ -z "$zig" ] || ! python3 -m ziglang version >/dev/null 2>&1; then
    return
  fi
  local var=${target//-/_}
  # cc-rs adds `--target=<rust triple>`, which zig does not know: its own target stands.
  printf '#!/bin/sh\nfor a in "$@"; do shift; case "$a" in --target=*) ;; *) set -- "$@" "$a" ;; esac; done\nexec python3 -m ziglang cc -target %s "$@"\n' "$zig" >"$wrappers/cc-$target"
  printf '#!/bin/sh\nexec python3 -m ziglang ar "$@"\n' >"$wrappers/ar-$target"
  chmod +x "$wrappers/cc-$target" "$wrappers/ar-$target"
  export "CC_$var=$wrappers/cc-$target" "AR_$var=$wrappers/ar-$target"
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
