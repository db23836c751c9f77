#!/usr/bin/env bash
# Builds the futhark-rs tools in release mode and installs them into cargo's bin directory
# (~/.cargo/bin, on PATH with a standard rustup install; FUTHARK_BINDIR=DIR installs into DIR
# instead). Then, where their tools are present, the optional parts: the Jupyter kernelspec
# (needs `jupyter`) and the VS Code extension (needs `npm`; installed into VS Code when
# `code` is on PATH). An optional part that is skipped or fails says so and never fails the
# setup.
set -euo pipefail
cd "$(dirname "$0")"
# The pinned toolchain (rust-toolchain.toml), installed when missing.
source .ci/pinned-rust.sh
cargo build --release --locked -p futhark-rs -p futhark-repl -p futhark-jupyter -p futhark-lsp
bindir="${FUTHARK_BINDIR:-${CARGO_HOME:-$HOME/.cargo}/bin}"
mkdir -p "$bindir"
for tool in futhark-rs futhark-repl futhark-jupyter futhark-lsp; do
  install -m 755 "target/release/$tool" "$bindir/$tool"
done
echo "installed futhark-rs, futhark-repl, futhark-jupyter and futhark-lsp into $bindir"

# The Jupyter kernelspec, for the current user (the kernel starts with --backend auto).
if command -v jupyter >/dev/null 2>&1; then
  if "$bindir/futhark-jupyter" install --user; then
    echo "installed the Futhark Jupyter kernel: run \`jupyter lab\` and choose the Futhark kernel"
  else
    echo "warning: could not install the Jupyter kernelspec (see above); skipped"
  fi
else
  echo "skipped the Jupyter kernelspec: no \`jupyter\` on PATH (install Jupyter, then run \`futhark-jupyter install\`)"
fi

# The VS Code extension: npm ci, tsc, grammar tests, futhark-<version>.vsix.
if command -v npm >/dev/null 2>&1; then
  if editors/vscode/build.sh; then
    vsix="$(ls -t editors/vscode/futhark-*.vsix | head -n 1)"
    if command -v code >/dev/null 2>&1; then
      code --install-extension "$vsix" \
        || echo "warning: \`code --install-extension $vsix\` failed; skipped"
    else
      echo "no \`code\` on PATH: install the extension with \`code --install-extension $vsix\`"
    fi
  else
    echo "warning: building the VS Code extension failed (see above); skipped"
  fi
else
  echo "skipped the VS Code extension: no \`npm\` on PATH (install Node.js and npm, then run editors/vscode/build.sh)"
fi
