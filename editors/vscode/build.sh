#!/usr/bin/env bash
# Builds the VS Code extension for CI: installs the pinned dependencies (package-lock.json),
# compiles the TypeScript, runs the grammar tests and packages futhark-<version>.vsix.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npx tsc -p .
npx vscode-tmgrammar-test "tests/grammar/*.fut"
version=$(node -p "require('./package.json').version")
npx vsce package --allow-missing-repository --out "futhark-$version.vsix"
echo "built editors/vscode/futhark-$version.vsix"
