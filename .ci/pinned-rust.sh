# Sourced by setup.sh and .ci/run: makes the toolchain rust-toolchain.toml pins available.
# rustup does not install a pinned toolchain by itself (since 1.28), so: installed already →
# nothing; else rustup installs it; failing that (no network), an installed `stable` of the
# same version is linked under the pinned name; failing that too, the build says so and runs
# on `stable`. Without rustup, whatever cargo is on PATH is used (rust-version says ≥ 1.89).
if command -v rustup >/dev/null 2>&1 && [ -f rust-toolchain.toml ]; then
  pin="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)"
  if ! RUSTUP_AUTO_INSTALL=0 rustup run "$pin" rustc --version >/dev/null 2>&1; then
    echo "installing Rust $pin (pinned by rust-toolchain.toml)"
    if ! timeout 900 rustup toolchain install "$pin" --profile minimal -c rustfmt -c clippy; then
      stable_version="$(RUSTUP_AUTO_INSTALL=0 rustup run stable rustc --version 2>/dev/null | awk '{print $2}')"
      if [ "$stable_version" = "$pin" ]; then
        # `rustup toolchain link` refuses version-like names, so the link is made by hand.
        host="$(RUSTUP_AUTO_INSTALL=0 rustup run stable rustc -vV | sed -n 's/^host: //p')"
        ln -sfn "$(RUSTUP_AUTO_INSTALL=0 rustup run stable rustc --print sysroot)" \
          "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$pin-$host"
        echo "linked Rust $pin to the installed stable toolchain of that version"
      else
        echo "warning: Rust $pin could not be installed; building with stable ($stable_version)"
        export RUSTUP_TOOLCHAIN=stable
      fi
    fi
  fi
fi
