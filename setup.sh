#!/usr/bin/env bash
# Builds the futhark-rs tools in release mode and installs them into cargo's bin directory
# (~/.cargo/bin, on PATH with a standard rustup install).
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --locked -p futhark-rs -p futhark-repl -p futhark-jupyter -p futhark-lsp
bindir="${CARGO_HOME:-$HOME/.cargo}/bin"
mkdir -p "$bindir"
for tool in futhark-rs futhark-repl futhark-jupyter futhark-lsp; do
  install -m 755 "target/release/$tool" "$bindir/$tool"
done
echo "installed futhark-rs, futhark-repl, futhark-jupyter and futhark-lsp into $bindir"
