#!/bin/sh
# The C compiler or archiver for one Rust target, named by this file's link:
# `<rust target>-cc` or `<rust target>-ar` (`.cargo/config.toml` points cc-rs at them). The
# tree-sitter grammars are C, which their build scripts compile even for `cargo check`.
# For the machine's own OS and CPU, the system's (`$CC`/`$AR`, else cc/ar; on macOS for
# either Apple CPU); for any other target, `zig cc`/`zig ar` from PyPI's ziglang.
name=$(basename "$0")
tool=${name##*-}
target=${name%-*}
case "$target" in
  x86_64-unknown-linux-gnu) os=Linux arch=x86_64 zig=x86_64-linux-gnu ;;
  aarch64-unknown-linux-gnu) os=Linux arch=aarch64 zig=aarch64-linux-gnu ;;
  x86_64-unknown-linux-musl) os=Linux arch=x86_64 zig=x86_64-linux-musl ;;
  aarch64-unknown-linux-musl) os=Linux arch=aarch64 zig=aarch64-linux-musl ;;
  x86_64-apple-darwin) os=Darwin arch=any zig=x86_64-macos ;;
  aarch64-apple-darwin) os=Darwin arch=any zig=aarch64-macos ;;
  x86_64-unknown-freebsd) os=FreeBSD arch=x86_64 zig=x86_64-freebsd ;;
  *) echo "$name: no C toolchain known for $target" >&2; exit 1 ;;
esac
machine=$(uname -m)
[ "$machine" = arm64 ] && machine=aarch64
[ "$machine" = amd64 ] && machine=x86_64
if [ "$(uname -s)" = "$os" ] && { [ "$arch" = any ] || [ "$arch" = "$machine" ]; }; then
  case "$tool" in
    cc) exec ${CC:-cc} "$@" ;;
    *) exec ${AR:-ar} "$@" ;;
  esac
fi
if ! python3 -m ziglang version >/dev/null 2>&1; then
  echo "$name: compiling C for $target needs zig: python3 -m pip install ziglang" >&2
  exit 1
fi
if [ "$tool" = ar ]; then
  exec python3 -m ziglang ar "$@"
fi
# cc-rs adds `--target=<rust target>`, which zig does not know: its own -target stands.
for arg in "$@"; do
  shift
  case "$arg" in
    --target=*) ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec python3 -m ziglang cc -target "$zig" "$@"
