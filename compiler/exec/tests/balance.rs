//! Work-balanced row splits (`futhark_exec::Multi`, `multi/balance.rs`) on simulated CPU
//! devices: a map whose rows cost more the later they come (row `i` loops `i²` times) is
//! launched again and again; every launch must give the right values, and after a few the
//! first device must own more rows than the last. Timing on a loaded machine is noisy, so
//! the costs differ by a large factor and only the direction is asserted.

use std::ops::Range;

use futhark_exec::{Backend, CpuBackend, ExecOptions, Executor, Multi};
use futhark_ir::soacs::Program;
use futhark_values::{Value, compare_values};

mod support;
use support::{compile, open_cpu, split_always, values};

/// Row `i` costs `i²` loop iterations: with an even split the last device does most of the
/// work (on 2 devices, 7/8 of it).
const TRIANGLE: &str = "
def row (i: i64) : i64 = loop acc = i for j < i * i do (acc * 31 + j) % 1000003

entry map_rows (n: i64) : []i64 = map row (iota n)

entry scan_rows (n: i64) : []i64 = scan (+) 0 (map row (iota n))

entry sum_rows (n: i64) : i64 = reduce (+) 0 (map row (iota n))

entry shift_rows (n: i64) : []i64 =
  let xs = map row (iota n)
  let s = reduce (+) 0 xs
  in map (\\x -> x * 2 + s) xs
";

/// The rows, as the program computes them.
fn rows(n: i64) -> Vec<i64> {
    (0..n)
        .map(|i| {
            let mut acc = i;
            for j in 0..i * i {
                acc = (acc * 31 + j) % 1000003;
            }
            acc
        })
        .collect()
}

fn prefix_sums(xs: &[i64]) -> Vec<i64> {
    xs.iter()
        .scan(0, |s, x| {
            *s += x;
            Some(*s)
        })
        .collect()
}

fn executor(prog: &Program, devices: usize, balance: bool) -> Executor<Multi<CpuBackend>> {
    let options = ExecOptions {
        balance,
        ..split_always()
    };
    Executor::new(prog.clone(), open_cpu(devices, &options)).unwrap()
}

/// The rows of the one balanced kernel at its next launch.
fn next_rows(exec: &mut Executor<Multi<CpuBackend>>) -> Vec<Range<u64>> {
    let splits = exec.backend().row_splits();
    assert_eq!(splits.len(), 1, "one kernel is balanced: {splits:?}");
    splits[0].1.clone()
}

fn husk_lines(exec: &mut Executor<Multi<CpuBackend>>) -> Vec<String> {
    exec.backend()
        .profile()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .filter(|n| n.starts_with("(husk)"))
        .collect()
}

/// Launches `entry` `launches` times over `n` rows on `devices` devices, checking each
/// result against `want`; returns the executor for a look at the rows.
fn launch_repeatedly(
    prog: &Program,
    entry: &str,
    n: i64,
    devices: usize,
    launches: usize,
    balance: bool,
    want: &Value,
) -> Executor<Multi<CpuBackend>> {
    let mut exec = executor(prog, devices, balance);
    for launch in 0..launches {
        let got = exec.call_entry(entry, values(&format!("{n}i64"))).unwrap();
        compare_values(std::slice::from_ref(want), &got)
            .unwrap_or_else(|e| panic!("{entry} over {devices} devices, launch {launch}: {e}"));
    }
    exec
}

fn len(r: &Range<u64>) -> u64 {
    r.end - r.start
}

#[test]
fn a_map_with_growing_row_costs_moves_rows_to_the_first_device() {
    let prog = compile("balance_map", TRIANGLE);
    let n = 100;
    let want = Value::from_vec1(rows(n));
    for devices in [2, 4] {
        let mut exec = launch_repeatedly(&prog, "map_rows", n, devices, 4, true, &want);
        let split = next_rows(&mut exec);
        assert_eq!(split.len(), devices);
        assert_eq!(split.first().map(|r| r.start), Some(0));
        assert_eq!(split.last().map(|r| r.end), Some(n as u64));
        assert!(
            len(&split[0]) > len(&split[devices - 1]),
            "{devices} devices: {split:?}"
        );
        let lines = husk_lines(&mut exec);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("rows balanced by measured time: 0..")),
            "{lines:?}"
        );
    }
}

#[test]
fn balanced_scans_and_reductions_keep_their_values() {
    let prog = compile("balance_combine", TRIANGLE);
    let n = 80;
    let xs = rows(n);
    let scanned = Value::from_vec1(prefix_sums(&xs));
    let sum = Value::scalar(xs.iter().sum::<i64>());
    for devices in [2, 3, 4] {
        for (entry, want) in [("scan_rows", &scanned), ("sum_rows", &sum)] {
            let mut exec = launch_repeatedly(&prog, entry, n, devices, 3, true, want);
            let split = next_rows(&mut exec);
            assert!(
                len(&split[0]) > len(&split[devices - 1]),
                "{entry} over {devices} devices: {split:?}"
            );
        }
    }
}

#[test]
fn without_balancing_the_split_stays_even() {
    let prog = compile("balance_off", TRIANGLE);
    let n = 60;
    let want = Value::from_vec1(rows(n));
    let mut exec = launch_repeatedly(&prog, "map_rows", n, 2, 3, false, &want);
    assert!(exec.backend().row_splits().is_empty());
    let lines = husk_lines(&mut exec);
    assert!(lines.iter().all(|l| !l.contains("balanced")), "{lines:?}");
}

#[test]
fn a_different_size_starts_again_from_the_even_split() {
    let prog = compile("balance_sizes", TRIANGLE);
    let mut exec = executor(&prog, 2, true);
    for n in [80i64, 80, 80, 60] {
        let got = exec.call_entry("map_rows", vec![Value::scalar(n)]).unwrap();
        compare_values(&[Value::from_vec1(rows(n))], &got).unwrap();
    }
    // Times over 80 rows say nothing about 60: that launch was split evenly, and its own
    // times are read only at the next launch.
    assert_eq!(next_rows(&mut exec), vec![0..30, 30..60]);
}

#[test]
fn consumers_of_balanced_rows_take_them_where_they_are() {
    let prog = compile("balance_follow", TRIANGLE);
    let n = 100;
    let xs = rows(n);
    let s: i64 = xs.iter().sum();
    let want = Value::from_vec1(xs.iter().map(|x| x * 2 + s).collect::<Vec<_>>());
    let mut exec = launch_repeatedly(&prog, "shift_rows", n, 2, 4, true, &want);
    let split = next_rows(&mut exec);
    assert!(len(&split[0]) > len(&split[1]), "{split:?}");
    // The reduction and the map read the balanced rows in place: what crosses between the
    // devices is the sum, not rows of `xs` (8 bytes each).
    let profile = exec.backend().profile().unwrap();
    let moved: u64 = profile
        .iter()
        .filter(|p| p.name.starts_with("(husk)") && !p.name.contains("balanced"))
        .map(|p| p.bytes)
        .sum();
    assert!(moved < 4 * 8 * 4, "{moved} bytes moved: {profile:?}");
}
