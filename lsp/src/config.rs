//! Settings a client passes in `initializationOptions` (all optional):
//!
//! - `runTimeoutMs`: the time limit of a `-- >>>` example (default 10 s; the environment
//!   variable `FUTHARK_LSP_RUN_TIMEOUT_MS` sets it for clients that cannot pass options);
//! - `runShowMessage`: whether the server shows a run's result with `window/showMessage`
//!   (default true; the VS Code extension shows results itself and turns it off).

use std::time::Duration;

use serde_json::Value;

const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest time limit accepted (an hour), so a typo cannot disable the guard.
const MAX_RUN_TIMEOUT_MS: u64 = 3_600_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub run_timeout: Duration,
    pub run_show_message: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config::from_options(None, None)
    }
}

impl Config {
    /// The configuration from the initialisation options and the environment's time limit
    /// (`FUTHARK_LSP_RUN_TIMEOUT_MS`, read by `futhark_options::from_env`); anything
    /// missing or malformed keeps its default.
    pub fn from_options(options: Option<&Value>, env_timeout_ms: Option<u64>) -> Config {
        let ms = |v: Option<u64>| {
            v.filter(|&ms| ms > 0)
                .map(|ms| Duration::from_millis(ms.min(MAX_RUN_TIMEOUT_MS)))
        };
        let from_env = ms(env_timeout_ms);
        let from_options = ms(options.and_then(|o| o.get("runTimeoutMs")?.as_u64()));
        Config {
            run_timeout: from_options.or(from_env).unwrap_or(DEFAULT_RUN_TIMEOUT),
            run_show_message: options
                .and_then(|o| o.get("runShowMessage")?.as_bool())
                .unwrap_or(true),
        }
    }

    /// The configuration for a client's options, with this process's environment.
    pub fn from_client(options: Option<&Value>) -> Config {
        let env = futhark_options::from_env().0.face.lsp_run_timeout_ms;
        Config::from_options(options, env)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_override_the_environment_which_overrides_the_default() {
        assert_eq!(
            Config::from_options(None, None).run_timeout,
            DEFAULT_RUN_TIMEOUT
        );
        let env = Config::from_options(None, Some(1500));
        assert_eq!(env.run_timeout, Duration::from_millis(1500));
        let opts = json!({"runTimeoutMs": 250, "runShowMessage": false});
        let both = Config::from_options(Some(&opts), Some(1500));
        assert_eq!(both.run_timeout, Duration::from_millis(250));
        assert!(!both.run_show_message);
    }

    #[test]
    fn malformed_values_keep_the_defaults() {
        let opts = json!({"runTimeoutMs": "soon", "runShowMessage": 3});
        assert_eq!(Config::from_options(Some(&opts), None), Config::default());
        let zero = json!({"runTimeoutMs": 0});
        assert_eq!(
            Config::from_options(Some(&zero), None).run_timeout,
            DEFAULT_RUN_TIMEOUT
        );
        let huge = json!({"runTimeoutMs": u64::MAX});
        assert_eq!(
            Config::from_options(Some(&huge), None).run_timeout,
            Duration::from_millis(MAX_RUN_TIMEOUT_MS)
        );
    }
}
