#!/usr/bin/env bash
# Builds the JupyterLab extension into prebuilt/ (committed: futhark-jupyter embeds it and
# `futhark-jupyter install` writes it to <Jupyter data dir>/labextensions/jupyterlab-futhark).
# Needs node/npm (the pinned dependencies of package-lock.json) and a Python with the
# jupyterlab package ($JUPYTERLAB_PYTHON, default python3), whose core package description
# (jupyterlab/staging) tells the builder which modules JupyterLab shares. The builder is run
# directly: JupyterLab 4.6's `jupyter labextension build` wrapper looks the core package up
# on npm and GitHub instead.
set -euo pipefail
cd "$(dirname "$0")"
python="${JUPYTERLAB_PYTHON:-python3}"
core="$("$python" -c 'import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), "staging"))')"
npm ci --no-audit --no-fund --loglevel=error
npx tsc -p .
node node_modules/@jupyterlab/builder/lib/build-labextension.js --core-path "$core" .
"$python" source_hash.py > prebuilt/SOURCE_HASH
echo "built editors/jupyterlab/prebuilt ($(ls prebuilt/static | wc -l) files in static/)"
