//! The on-disk kernel cache: compiled cubins keyed by a hash of everything that determines
//! them (source, options, architecture, NVRTC version), under
//! `$XDG_CACHE_HOME/futhark-rs/kernels` (or `~/.cache/futhark-rs/kernels`).
//!
//! Each entry is `<hash>.cubin` plus `<hash>.key` holding the full key text; a hit requires
//! the stored key to equal the asked one, so a hash collision is a miss, not a wrong kernel.
//! Entries are written to a temporary file and renamed, so concurrent processes never see a
//! half-written cubin. Any I/O problem makes the cache a no-op, never an error.

use std::path::{Path, PathBuf};

/// A kernel cache in a folder (or disabled).
#[derive(Clone, Debug)]
pub struct KernelCache {
    dir: Option<PathBuf>,
}

/// 128-bit FNV-1a (two 64-bit lanes with different offsets): stable across Rust versions,
/// unlike `DefaultHasher`.
pub fn hash_key(key: &str) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for &byte in key.as_bytes() {
        a = (a ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ byte as u64)
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(5);
    }
    format!("{a:016x}{b:016x}")
}

impl KernelCache {
    /// The cache in `dir` (`CudaOptions::kernel_cache`), or a disabled one.
    pub fn at(dir: Option<&Path>) -> KernelCache {
        KernelCache {
            dir: dir.map(Path::to_path_buf),
        }
    }

    pub fn in_dir(dir: PathBuf) -> KernelCache {
        KernelCache { dir: Some(dir) }
    }

    pub fn disabled() -> KernelCache {
        KernelCache { dir: None }
    }

    /// The key text of a compilation.
    pub fn key(source: &str, options: &[String], arch: &str, nvrtc: (i32, i32)) -> String {
        format!(
            "nvrtc {}.{}\narch {arch}\noptions {}\n{source}",
            nvrtc.0,
            nvrtc.1,
            options.join(" ")
        )
    }

    /// The cached cubin for a key, if present and the stored key matches.
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        let dir = self.dir.as_ref()?;
        let h = hash_key(key);
        let stored = std::fs::read_to_string(dir.join(format!("{h}.key"))).ok()?;
        if stored != key {
            return None;
        }
        std::fs::read(dir.join(format!("{h}.cubin"))).ok()
    }

    /// Stores a cubin (best effort).
    pub fn put(&self, key: &str, cubin: &[u8]) {
        let Some(dir) = &self.dir else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let h = hash_key(key);
        let tmp = format!("{}.{h}", std::process::id());
        for (ext, data) in [("cubin", cubin), ("key", key.as_bytes())] {
            let t = dir.join(format!("{tmp}.{ext}.tmp"));
            if std::fs::write(&t, data).is_err()
                || std::fs::rename(&t, dir.join(format!("{h}.{ext}"))).is_err()
            {
                let _ = std::fs::remove_file(&t);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_key_mismatch() {
        let dir = std::env::temp_dir().join(format!("futhark-cache-test-{}", std::process::id()));
        let cache = KernelCache::in_dir(dir.clone());
        let key = KernelCache::key("src", &["-a".into()], "sm_90", (13, 0));
        assert!(cache.get(&key).is_none());
        cache.put(&key, b"cubin");
        assert_eq!(cache.get(&key).as_deref(), Some(&b"cubin"[..]));
        let other = KernelCache::key("src", &["-a".into()], "sm_80", (13, 0));
        assert!(cache.get(&other).is_none());
        assert_ne!(hash_key(&key), hash_key(&other));
        let _ = std::fs::remove_dir_all(dir);
    }
}
