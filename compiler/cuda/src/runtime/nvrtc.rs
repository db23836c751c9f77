//! NVRTC: CUDA C to a cubin for the device's own architecture.
//!
//! We ask for a cubin (`-arch=sm_XX` of the real device) rather than PTX, so the driver does
//! no JIT compilation at module load. NVRTC is loaded dynamically; `available` checks for it
//! first because cudarc panics when a library is missing.

use std::ffi::{CStr, CString, c_char};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::nvrtc::sys;

use super::error::{CudaError, Result};

/// Whether libnvrtc can be loaded: from the loader path, else from where users have it
/// ([`candidate_dirs`]: a CUDA toolkit, the `nvidia-cuda-nvrtc` wheel of a Python
/// environment). A success is remembered; a failure is probed again, so that
/// `preload_from` can still make it available later.
pub fn available() -> bool {
    static PRESENT: OnceLock<()> = OnceLock::new();
    if PRESENT.get().is_some() {
        return true;
    }
    let ok = available_uncached()
        || candidate_dirs(&|k| std::env::var_os(k).map(PathBuf::from), &existing_globs)
            .iter()
            .any(|d| preload_from(d));
    if ok {
        let _ = PRESENT.set(());
    }
    ok
}

/// Folders that may hold `libnvrtc.so.13` off the loader path, in the order tried: the
/// toolkit named by `CUDA_HOME`/`CUDA_PATH`/`CUDA_ROOT`, the usual toolkit installs
/// (`/usr/local/cuda`, `/usr/local/cuda-13.*`, `/opt/cuda`), and the wheel's
/// `nvidia/cu13/lib` (or `nvidia/cuda_nvrtc/lib`) in the site-packages of the active virtual
/// or conda environment, the user's and the system's Pythons. `var` reads the environment
/// (a system's layout, as the loader's `LD_LIBRARY_PATH` is, not our configuration);
/// `glob` lists the existing folders a pattern with one `*` segment names.
pub fn candidate_dirs(
    var: &dyn Fn(&str) -> Option<PathBuf>,
    glob: &dyn Fn(&str) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for k in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = var(k) {
            out.push(root.join("lib64"));
            out.push(root.join("lib"));
            out.push(root.join("targets/x86_64-linux/lib"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/lib64"));
    out.push(PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib"));
    let mut versioned = glob("/usr/local/cuda-13*/lib64");
    versioned.sort();
    versioned.reverse();
    out.extend(versioned);
    out.push(PathBuf::from("/opt/cuda/lib64"));
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(|k| var(k))
        .collect();
    if let Some(home) = var("HOME") {
        prefixes.push(home.join(".local"));
    }
    prefixes.push(PathBuf::from("/usr/local"));
    prefixes.push(PathBuf::from("/usr"));
    for p in prefixes {
        for site in ["site-packages", "dist-packages"] {
            for sub in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"] {
                let pattern = format!("{}/lib/python3*/{site}/{sub}", p.display());
                out.extend(glob(&pattern));
            }
        }
    }
    out.dedup();
    out
}

/// The existing folders a pattern names whose one `*` stands in a single path segment.
fn existing_globs(pattern: &str) -> Vec<PathBuf> {
    let Some((head, tail)) = pattern.split_once('*') else {
        let p = PathBuf::from(pattern);
        return if p.is_dir() { vec![p] } else { Vec::new() };
    };
    let (dir, prefix) = match head.rsplit_once('/') {
        Some((d, pre)) => (if d.is_empty() { "/" } else { d }, pre),
        None => (".", head),
    };
    let (suffix, rest) = match tail.split_once('/') {
        Some((s, r)) => (s, Some(r)),
        None => (tail, None),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix)
            && name.ends_with(suffix)
            && name.len() >= prefix.len() + suffix.len()
        {
            let p = match rest {
                Some(r) => e.path().join(r),
                None => e.path(),
            };
            if p.is_dir() {
                out.push(p);
            }
        }
    }
    out
}

/// Loads libnvrtc (and its builtins library) from a folder that is not on the loader path,
/// e.g. the `nvidia/cu13/lib` folder of the `nvidia-cuda-nvrtc` wheel. Once an object with
/// the soname `libnvrtc.so.13` is loaded, cudarc's later `dlopen` by that name finds it.
/// The libraries stay loaded for the life of the process.
pub fn preload_from(dir: &Path) -> bool {
    for name in ["libnvrtc-builtins.so.13.0", "libnvrtc.so.13"] {
        let path = dir.join(name);
        if !path.exists() {
            continue;
        }
        // SAFETY: loading NVIDIA's library runs only its own initialisers.
        if let Ok(lib) = unsafe { libloading::Library::new(&path) } {
            std::mem::forget(lib);
        }
    }
    available_uncached()
}

fn available_uncached() -> bool {
    // SAFETY: only probes dlopen with cudarc's candidate names.
    unsafe { sys::is_culib_present() }
}

fn check(what: &str, r: sys::nvrtcResult) -> Result<()> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static string.
    let message = unsafe {
        let p = sys::nvrtcGetErrorString(r);
        if p.is_null() {
            format!("{r:?}")
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    Err(CudaError::Nvrtc {
        what: what.into(),
        message,
    })
}

/// NVRTC's version as (major, minor).
pub fn version() -> Result<(i32, i32)> {
    if !available() {
        return Err(CudaError::NoNvrtc);
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-pointers to live integers.
    check("nvrtcVersion", unsafe {
        sys::nvrtcVersion(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

/// The options every module is compiled with, for architecture `arch` (e.g. `sm_90`).
pub fn options(arch: &str) -> Vec<String> {
    options_with(arch, false)
}

/// [`options`], with fused multiply-add contraction allowed when `fmad` (`CudaOptions::fmad`).
pub fn options_with(arch: &str, fmad: bool) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".into(),
        // Kernels are `extern "C"` and self-contained; no relocatable device code needed.
        "--device-as-default-execution-space".into(),
        // No contraction of `a * b + c` into one fused multiply-add: the interpreter and the
        // CPU executor round each operation, and a program's GPU results should be theirs
        // (mandelbrot's escape counts differed at boundary pixels). `FUTHARK_FMAD=1` allows
        // contraction again, for speed over agreement.
        format!("--fmad={fmad}"),
        // Leaves out what generated kernels never use (texture and surface types, the
        // device runtime's `cuda…` functions and types, launches from device code): the
        // front end parses less for every module.
        "-minimal".into(),
    ]
}

/// A compiled module.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub cubin: Vec<u8>,
    /// Warnings NVRTC printed (empty when there were none).
    pub log: String,
}

/// Compiles `source` with the given options to a cubin.
pub fn compile(source: &str, name: &str, opts: &[String]) -> Result<Compiled> {
    if !available() {
        return Err(CudaError::NoNvrtc);
    }
    let arch = opts
        .iter()
        .find_map(|o| o.strip_prefix("--gpu-architecture="))
        .unwrap_or("?")
        .to_string();
    let src = CString::new(source).map_err(|_| CudaError::Nvrtc {
        what: "source".into(),
        message: "kernel source contains a NUL byte".into(),
    })?;
    let cname = CString::new(format!("{name}.cu")).unwrap_or_default();
    let copts: Vec<CString> = opts
        .iter()
        .map(|o| CString::new(o.as_str()).unwrap_or_default())
        .collect();
    let opt_ptrs: Vec<*const c_char> = copts.iter().map(|c| c.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: all pointers point to live NUL-terminated strings for the calls' duration;
    // the program is destroyed on every path below.
    unsafe {
        check(
            "nvrtcCreateProgram",
            sys::nvrtcCreateProgram(
                &mut prog,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            ),
        )?;
        let res = sys::nvrtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_ptr());
        let log = program_log(prog);
        if res != sys::nvrtcResult::NVRTC_SUCCESS {
            sys::nvrtcDestroyProgram(&mut prog);
            return Err(CudaError::Compile {
                name: name.into(),
                arch,
                log: log.unwrap_or_else(|_| format!("{res:?}")),
            });
        }
        let mut size = 0usize;
        let r = sys::nvrtcGetCUBINSize(prog, &mut size);
        if let Err(e) = check("nvrtcGetCUBINSize", r) {
            sys::nvrtcDestroyProgram(&mut prog);
            return Err(e);
        }
        let mut cubin = vec![0u8; size];
        let r = sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr() as *mut c_char);
        sys::nvrtcDestroyProgram(&mut prog);
        check("nvrtcGetCUBIN", r)?;
        Ok(Compiled {
            cubin,
            log: log.unwrap_or_default(),
        })
    }
}

/// Compiles several `(source, name)` modules with the same options on up to `threads`
/// threads, returning the results in input order. NVRTC compiles distinct programs
/// concurrently, and a program's kernels are independent modules, so a program with a
/// hundred kernels need not wait for a hundred compilations in a row.
pub fn compile_many(
    jobs: &[(&str, &str)],
    opts: &[String],
    threads: usize,
) -> Vec<Result<Compiled>> {
    let threads = threads.clamp(1, jobs.len().max(1));
    if threads == 1 {
        return jobs
            .iter()
            .map(|(src, name)| compile(src, name, opts))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<Compiled>>> = (0..jobs.len()).map(|_| None).collect();
    let done: Vec<Vec<(usize, Result<Compiled>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((src, name)) = jobs.get(i) else {
                            break;
                        };
                        mine.push((i, compile(src, name, opts)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
            })
            .collect()
    });
    for (i, r) in done.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.unwrap_or(Err(CudaError::NoNvrtc)))
        .collect()
}

/// How many threads compile a program's kernels: `requested` (`CudaOptions::nvrtc_threads`,
/// `FUTHARK_NVRTC_THREADS`), else the machine's parallelism (at most 16: beyond it, memory
/// grows faster than the speed-up).
pub fn compile_threads(requested: Option<usize>) -> usize {
    requested.filter(|&n| n > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(16)
    })
}

/// # Safety
/// `prog` must be a live program.
unsafe fn program_log(prog: sys::nvrtcProgram) -> Result<String> {
    let mut size = 0usize;
    // SAFETY: per the function's contract.
    unsafe {
        check(
            "nvrtcGetProgramLogSize",
            sys::nvrtcGetProgramLogSize(prog, &mut size),
        )?;
        let mut buf = vec![0u8; size.max(1)];
        check(
            "nvrtcGetProgramLog",
            sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr() as *mut c_char),
        )?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).trim().to_string())
    }
}

#[cfg(test)]
mod search_tests {
    use super::*;

    #[test]
    fn toolkits_then_wheels_in_order() {
        let var = |k: &str| match k {
            "CUDA_HOME" => Some(PathBuf::from("/opt/cuda-x")),
            "VIRTUAL_ENV" => Some(PathBuf::from("/work/venv")),
            "HOME" => Some(PathBuf::from("/home/u")),
            _ => None,
        };
        // A stand-in file system: what each pattern finds.
        let glob = |p: &str| match p {
            "/usr/local/cuda-13*/lib64" => vec![
                PathBuf::from("/usr/local/cuda-13.0/lib64"),
                PathBuf::from("/usr/local/cuda-13.1/lib64"),
            ],
            "/work/venv/lib/python3*/site-packages/nvidia/cu13/lib" => {
                vec![PathBuf::from(
                    "/work/venv/lib/python3.11/site-packages/nvidia/cu13/lib",
                )]
            }
            _ => Vec::new(),
        };
        let dirs: Vec<String> = candidate_dirs(&var, &glob)
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        assert_eq!(
            dirs,
            [
                "/opt/cuda-x/lib64",
                "/opt/cuda-x/lib",
                "/opt/cuda-x/targets/x86_64-linux/lib",
                "/usr/local/cuda/lib64",
                "/usr/local/cuda/targets/x86_64-linux/lib",
                "/usr/local/cuda-13.1/lib64",
                "/usr/local/cuda-13.0/lib64",
                "/opt/cuda/lib64",
                "/work/venv/lib/python3.11/site-packages/nvidia/cu13/lib",
            ]
        );
    }

    #[test]
    fn globs_match_one_segment() {
        let root = std::env::temp_dir().join(format!("nvrtc-glob-{}", std::process::id()));
        for d in [
            "python3.11/x/lib",
            "python3.12/x/lib",
            "python2.7/x/lib",
            "python3.13/y",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let mut found = existing_globs(&format!("{}/python3*/x/lib", root.display()));
        found.sort();
        assert_eq!(
            found,
            vec![root.join("python3.11/x/lib"), root.join("python3.12/x/lib")]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
