//! `run --distributed`: rank processes started on loopback, as a launcher would start them
//! (torchrun-, Slurm- and MPI-style variables, `MASTER_ADDR=127.0.0.1` and an ephemeral
//! `MASTER_PORT`), on the CPU twin (`--backend ir`): every launch, placement and combine is
//! the GPU path's, only NCCL is replaced by the store communicator. Results must be
//! identical to one process with as many devices, and integer results to one device.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;

const PROGRAM: &str = "tests/fixtures/distributed/pipeline.fut";

/// An ephemeral loopback port no other test of this binary was given (the kernel may hand
/// out a released port again at once, and tests run side by side).
fn free_port() -> u16 {
    static GIVEN: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a loopback port")
            .local_addr()
            .expect("its address")
            .port();
        let mut given = GIVEN.lock().expect("port list");
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

fn input(n: usize) -> Vec<u8> {
    let xs: Vec<String> = (0..n)
        .map(|i| format!("{}i64", (i * 7919) % 1013))
        .collect();
    let fs: Vec<String> = (0..n).map(|i| format!("{}f64", (i as f64).sin())).collect();
    format!("{}i64 [{}] [{}]\n", 50 * n, xs.join(", "), fs.join(", ")).into_bytes()
}

/// Every variable a launcher may set: a test's ranks see only the ones it gives them.
const LAUNCHER_VARS: [&str; 16] = [
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "PMI_RANK",
    "PMI_SIZE",
    "MPI_LOCALRANKID",
    "MASTER_ADDR",
    "MASTER_PORT",
    "FUTHARK_GPUS",
    "FUTHARK_SPLIT",
];

fn spawn(args: &[&str], vars: &[(String, String)], stdin: &[u8]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_futhark-rs"));
    for v in LAUNCHER_VARS {
        cmd.env_remove(v);
    }
    let mut child = cmd
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .envs(vars.iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let _ = pipe.write_all(stdin);
    drop(pipe);
    child
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The launcher's variables for `rank` of `world` in the style of `launcher`.
fn vars(launcher: &str, rank: usize, world: usize, port: u16) -> Vec<(String, String)> {
    let names = match launcher {
        "torchrun" => ["RANK", "WORLD_SIZE", "LOCAL_RANK"],
        "slurm" => ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"],
        _ => [
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK",
        ],
    };
    let mut v: Vec<(String, String)> = names
        .iter()
        .zip([rank, world, rank])
        .map(|(k, x)| (k.to_string(), x.to_string()))
        .collect();
    v.push(("MASTER_ADDR".into(), "127.0.0.1".into()));
    v.push(("MASTER_PORT".into(), port.to_string()));
    v
}

/// Runs `world` ranks (each with `extra` arguments) and returns every rank's output.
fn run_ranks(launcher: &str, world: usize, extra: &[&str], stdin: &[u8]) -> Vec<Output> {
    let port = free_port();
    let mut args = vec![
        "run",
        "--backend",
        "ir",
        "--distributed",
        "--dist-timeout",
        "60",
    ];
    args.extend(extra);
    args.push(PROGRAM);
    // Rank 0 last: the others must wait for its store.
    let children: Vec<Child> = (0..world)
        .rev()
        .map(|r| {
            let input: &[u8] = if r == 0 { stdin } else { b"" };
            spawn(&args, &vars(launcher, r, world, port), input)
        })
        .collect();
    let mut outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("a rank runs"))
        .collect();
    outs.reverse();
    outs
}

fn single(extra: &[&str], stdin: &[u8]) -> Output {
    let mut args = vec!["run", "--backend", "ir"];
    args.extend(extra);
    args.push(PROGRAM);
    spawn(&args, &[], stdin).wait_with_output().expect("runs")
}

fn assert_ok(outs: &[Output]) {
    for (r, o) in outs.iter().enumerate() {
        assert!(o.status.success(), "rank {r} failed:\n{}", text(&o.stderr));
    }
    for (r, o) in outs.iter().enumerate().skip(1) {
        assert!(
            o.stdout.is_empty(),
            "rank {r} wrote results: {}",
            text(&o.stdout)
        );
    }
}

/// The integer results (all but the float sum, the fifth line).
fn integer_lines(out: &str) -> Vec<&str> {
    out.lines()
        .enumerate()
        .filter(|(i, _)| *i != 4)
        .map(|(_, l)| l)
        .collect()
}

#[test]
fn two_and_three_ranks_give_the_results_of_one_process() {
    let stdin = input(1000);
    let one = single(&[], &stdin);
    assert!(one.status.success(), "{}", text(&one.stderr));
    let one = text(&one.stdout);
    assert_eq!(one.lines().count(), 7, "{one}");
    for (world, launcher) in [(2, "torchrun"), (3, "slurm")] {
        let outs = run_ranks(launcher, world, &["--split", "always", "--profile"], &stdin);
        assert_ok(&outs);
        let dist = text(&outs[0].stdout);
        // The same devices in one process split and fold alike: every bit equal.
        let g = world.to_string();
        let local = single(&["--gpus", &g, "--split", "always"], &stdin);
        assert_eq!(dist, text(&local.stdout), "{world} ranks vs --gpus {world}");
        assert_eq!(
            integer_lines(&dist),
            integer_lines(&one),
            "{world} ranks vs one device"
        );
        // The kernels really ran split over the ranks' devices, and bytes crossed.
        let profile = text(&outs[0].stderr);
        let split = format!("split over {world} GPUs");
        assert!(
            profile.matches(&split).count() >= 4,
            "{world} ranks:\n{profile}"
        );
    }
}

#[test]
fn ranks_with_two_devices_each_match_one_process_with_four() {
    let stdin = input(301);
    let outs = run_ranks("mpi", 2, &["--gpus", "2", "--split", "always"], &stdin);
    assert_ok(&outs);
    let local = single(&["--gpus", "4", "--split", "always"], &stdin);
    assert!(local.status.success(), "{}", text(&local.stderr));
    assert_eq!(text(&outs[0].stdout), text(&local.stdout));
}

#[test]
fn the_cost_model_decides_alike_on_every_rank() {
    let stdin = input(2000);
    let outs = run_ranks("torchrun", 3, &[], &stdin);
    assert_ok(&outs);
    let local = single(&["--gpus", "3"], &stdin);
    assert_eq!(text(&outs[0].stdout), text(&local.stdout));
}

#[test]
fn a_rank_that_never_comes_is_a_timeout_naming_the_store() {
    let port = free_port();
    let args = [
        "run",
        "--backend",
        "ir",
        "--distributed",
        "--dist-timeout",
        "2",
        PROGRAM,
    ];
    // Rank 1 of 2 without its rank 0: no store to connect to.
    let out = spawn(&args, &vars("torchrun", 1, 2, port), b"")
        .wait_with_output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("127.0.0.1:{port}")) && err.contains("could not connect"),
        "{err}"
    );
    // Rank 0 of 2 without rank 1: it reads its input, runs until the first transfer, and
    // gives up there.
    let port = free_port();
    let out = spawn(
        &[&args[..6], &["--split", "always", PROGRAM]].concat(),
        &vars("torchrun", 0, 2, port),
        &input(100),
    )
    .wait_with_output()
    .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("rank 0") && err.contains(&format!(":{port}")) && err.contains("within 2 s"),
        "{err}"
    );
}

#[test]
fn missing_launcher_variables_are_a_usage_error() {
    let out = spawn(
        &["run", "--backend", "ir", "--distributed", PROGRAM],
        &[],
        b"",
    )
    .wait_with_output()
    .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("RANK and WORLD_SIZE"),
        "{}",
        text(&out.stderr)
    );
}
