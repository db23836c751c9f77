//! Work-balanced row splits: a split launch whose row boundaries are free to choose gets
//! them from the per-device times measured at the previous launch of the same kernel.
//!
//! The even split (`split_rows`) is right when every row costs the same. When rows differ
//! (mandelbrot: the interior of the set, on the middle rows, costs the most), the devices
//! with cheap rows wait for the others. So each device's piece is timed with stamps in its
//! queue ([`PeerBackend::stamp`]), read later without waiting; at the next launch of the
//! same kernel over the same number of rows, the cost of a row is taken as constant within
//! each measured range (that piece's time over its rows), and the new boundaries cut the
//! cumulative cost into equal parts ([`cut`]). Boundaries change only when the slowest piece
//! took more than [`TOLERANCE`] longer than the fastest, and by at least [`MIN_GAIN_MS`],
//! and when the new rows are expected to shorten the slowest piece: once balanced, the split
//! stays put instead of following timing noise or rounding. Times not yet
//! available keep the boundaries (and the measurement, read at a later launch).
//!
//! The caller balances only launches without aligned inputs: those are partitioned by the
//! even split, and uneven rows would have to move them between devices. Results are
//! partitioned by the chosen rows; a later launch that wants them elsewhere copies what
//! differs (`place::partition`).
//!
//! `FUTHARK_BALANCE=0` turns balancing off (every split even), for comparisons.

use std::collections::HashMap;
use std::ops::Range;

use crate::partition::split_rows;

use crate::backend::{PeerBackend, Stamp};
use crate::error::Result;

/// How much longer than the fastest piece the slowest may take before boundaries move.
pub(crate) const TOLERANCE: f64 = 0.05;

/// The least difference between the slowest and fastest piece worth moving boundaries for:
/// below it launch overheads, waits between devices and timer resolution dominate, and
/// moved boundaries cost later launches copies for nothing (LocVolCalib's 60 µs kernels
/// without inputs were rebalanced on such noise on 4 GPUs, and their consumers then moved
/// the uneven rows back).
pub(crate) const MIN_GAIN_MS: f64 = 0.25;

/// Per device, the stamps before and after its piece (`None` for a device without rows).
pub(crate) type Stamps = Vec<Option<(Stamp, Stamp)>>;

/// What is known of one kernel's split launches.
#[derive(Debug)]
struct Entry {
    /// The extent split.
    n: u64,
    /// The rows of each device at the next launch.
    rows: Vec<Range<u64>>,
    /// The stamps of a launch over `rows` whose times have not been read yet.
    pending: Option<Stamps>,
}

/// The row boundaries of each balanced kernel, by kernel name.
#[derive(Debug)]
pub(crate) struct Balancer {
    enabled: bool,
    kernels: HashMap<String, Entry>,
}

impl Balancer {
    /// On when `enabled` (`ExecOptions::balance`; `FUTHARK_BALANCE=0` turns it off).
    pub(crate) fn new(enabled: bool) -> Balancer {
        Balancer {
            enabled,
            kernels: HashMap::new(),
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Turns balancing on or off; what was measured is forgotten.
    pub(crate) fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
        self.kernels.clear();
    }

    /// The rows of each device for kernel `name`'s launch over `n` rows, and whether to
    /// time it (then pass its stamps to [`Balancer::measured`]).
    pub(crate) fn rows<D: PeerBackend>(
        &mut self,
        name: &str,
        n: u64,
        devs: &mut [D],
    ) -> Result<(Vec<Range<u64>>, bool)> {
        let g = devs.len();
        if !self.kernels.contains_key(name) {
            self.kernels.insert(name.to_string(), Entry::even(n, g));
        }
        let Some(e) = self.kernels.get_mut(name) else {
            return Ok((split_rows(n, g), false));
        };
        if e.n != n || e.rows.len() != g {
            // Times over another extent say little about this one: start again, evenly.
            *e = Entry::even(n, g);
        }
        if let Some(stamps) = &e.pending {
            let mut times = Vec::with_capacity(g);
            for ((d, s), r) in devs.iter_mut().zip(stamps).zip(&e.rows) {
                times.push(match s {
                    Some((a, b)) => d.elapsed_ms(a, b)?,
                    None if r.is_empty() => Some(0.0),
                    None => None,
                });
            }
            if let Some(times) = times.into_iter().collect::<Option<Vec<f64>>>() {
                if let Some(next) = rebalance(&e.rows, &times) {
                    e.rows = next;
                }
                e.pending = None;
            }
        }
        Ok((e.rows.clone(), e.pending.is_none()))
    }

    /// The stamps of the launch of kernel `name` over `rows` (what [`Balancer::rows`] gave),
    /// one pair per device with rows.
    pub(crate) fn measured(&mut self, name: &str, rows: &[Range<u64>], stamps: Stamps) {
        if let Some(e) = self.kernels.get_mut(name)
            && e.rows == rows
            && e.pending.is_none()
            && stamps.len() == rows.len()
            && rows
                .iter()
                .zip(&stamps)
                .all(|(r, s)| r.is_empty() || s.is_some())
        {
            e.pending = Some(stamps);
        }
    }

    /// Kernel `name`'s rows at its next launch, when they differ from the even split.
    pub(crate) fn balanced(&self, name: &str) -> Option<&[Range<u64>]> {
        let e = self.kernels.get(name)?;
        (e.rows != split_rows(e.n, e.rows.len())).then_some(e.rows.as_slice())
    }

    /// Every kernel's rows at its next launch, by name.
    pub(crate) fn all(&self) -> Vec<(String, Vec<Range<u64>>)> {
        let mut out: Vec<_> = self
            .kernels
            .iter()
            .map(|(k, e)| (k.clone(), e.rows.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl Entry {
    fn even(n: u64, g: usize) -> Entry {
        Entry {
            n,
            rows: split_rows(n, g),
            pending: None,
        }
    }
}

/// New rows from the times (`ms`, per device) of a launch over `rows`, or `None` to keep
/// `rows`: the pieces took about as long as each other, too few rows to move, or times
/// that make no sense.
pub(crate) fn rebalance(rows: &[Range<u64>], ms: &[f64]) -> Option<Vec<Range<u64>>> {
    let g = rows.len();
    let n = rows.last()?.end;
    if n < g as u64 || ms.len() != g || !contiguous(rows) {
        return None;
    }
    if ms.iter().any(|t| !t.is_finite() || *t < 0.0) {
        return None;
    }
    let busy: Vec<f64> = rows
        .iter()
        .zip(ms)
        .filter(|(r, _)| !r.is_empty())
        .map(|(_, &t)| t)
        .collect();
    let slowest = busy.iter().copied().fold(0.0, f64::max);
    let fastest = busy.iter().copied().fold(f64::INFINITY, f64::min);
    if slowest <= fastest * (1.0 + TOLERANCE) || slowest - fastest < MIN_GAIN_MS {
        return None;
    }
    let next = cut(rows, ms);
    // Whole rows may not allow better (a few rows of equal cost): moving them would only
    // move the slowest piece elsewhere, launch after launch.
    let expected = predict(rows, ms, &next).into_iter().fold(0.0, f64::max);
    (next != rows && expected < slowest / (1.0 + TOLERANCE / 2.0)).then_some(next)
}

/// The time each of `next` would take, the cost of a row taken as constant within each
/// measured range (`ms[g]` over the rows of `rows[g]`).
fn predict(rows: &[Range<u64>], ms: &[f64], next: &[Range<u64>]) -> Vec<f64> {
    next.iter()
        .map(|q| {
            rows.iter()
                .zip(ms)
                .filter(|(r, _)| !r.is_empty())
                .map(|(r, &t)| {
                    let (lo, hi) = (q.start.max(r.start), q.end.min(r.end));
                    if lo < hi {
                        t * (hi - lo) as f64 / (r.end - r.start) as f64
                    } else {
                        0.0
                    }
                })
                .sum()
        })
        .collect()
}

/// Rows that give every device an equal share of the measured cost, the cost of a row taken
/// as constant within each measured range (`ms[g]` over the rows of `rows[g]`): the
/// cumulative cost over rows, cut at `k/G` of the total for `k = 1..G`, rounded to whole
/// rows. Contiguous, in device order, covering `0..n` exactly; every device gets at least
/// one row when `n ≥ G`. Without a usable measurement (no cost, `n < G`, ranges that do not
/// tile `0..n`) the even split.
pub(crate) fn cut(rows: &[Range<u64>], ms: &[f64]) -> Vec<Range<u64>> {
    let g = rows.len();
    let n = rows.last().map_or(0, |r| r.end);
    // The cost of each range: empty ranges cost nothing whatever their time says.
    let cost: Vec<f64> = rows
        .iter()
        .zip(ms)
        .map(|(r, &t)| if r.is_empty() { 0.0 } else { t })
        .collect();
    let total: f64 = cost.iter().sum();
    let usable = cost.len() == g && cost.iter().all(|t| t.is_finite() && *t >= 0.0);
    if g == 0 || n < g as u64 || !contiguous(rows) || !usable || total <= 0.0 {
        return split_rows(n, g);
    }
    let mut bounds = Vec::with_capacity(g + 1);
    bounds.push(0u64);
    // The range holding the current target, and the cost of the ranges before it.
    let (mut seg, mut before) = (0usize, 0.0f64);
    for k in 1..g {
        let target = total * k as f64 / g as f64;
        while seg < g && before + cost[seg] < target {
            before += cost[seg];
            seg += 1;
        }
        let x = match rows.get(seg) {
            Some(r) if cost[seg] > 0.0 => {
                let within = ((target - before) / cost[seg]).clamp(0.0, 1.0);
                r.start as f64 + within * (r.end - r.start) as f64
            }
            Some(r) => r.start as f64,
            None => n as f64,
        };
        // At least one row for this device and for each one after it.
        let lo = bounds[k - 1] + 1;
        let hi = n - (g - k) as u64;
        bounds.push((x.round().max(0.0) as u64).clamp(lo, hi));
    }
    bounds.push(n);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Whether `rows` are contiguous, in order and start at 0.
fn contiguous(rows: &[Range<u64>]) -> bool {
    let mut next = 0;
    for r in rows {
        if r.start != next || r.end < r.start {
            return false;
        }
        next = r.end;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contiguous, in device order, covering `0..n`, and a row for every device when
    /// `n ≥ G`.
    fn check(rows: &[Range<u64>], n: u64, g: usize, what: &str) {
        assert_eq!(rows.len(), g, "{what}");
        assert!(contiguous(rows), "{what}: {rows:?}");
        assert_eq!(rows.last().map_or(0, |r| r.end), n, "{what}: {rows:?}");
        if n >= g as u64 {
            assert!(rows.iter().all(|r| r.end > r.start), "{what}: {rows:?}");
        }
    }

    /// A few deterministic time patterns for `g` devices.
    fn patterns(g: usize) -> Vec<Vec<f64>> {
        vec![
            vec![1.0; g],
            (0..g).map(|i| (i + 1) as f64).collect(),
            (0..g).map(|i| (g - i) as f64 * 10.0).collect(),
            (0..g)
                .map(|i| if i == g / 2 { 1000.0 } else { 0.5 })
                .collect(),
            (0..g).map(|i| if i == 0 { 7.0 } else { 0.0 }).collect(),
            (0..g).map(|i| ((i * 37 + 11) % 13) as f64 + 0.1).collect(),
            vec![0.0; g],
        ]
    }

    #[test]
    fn cuts_are_valid_splits_for_every_device_count_and_size() {
        for g in 1..=8usize {
            for n in [0u64, 1, 2, 3, 5, 7, 8, 9, 16, 100, 1001, 16000] {
                let even = split_rows(n, g);
                // Uneven starting rows too: the previous cut of each pattern.
                let mut starts = vec![even.clone()];
                for ms in patterns(g) {
                    starts.push(cut(&even, &ms));
                }
                for rows in &starts {
                    check(rows, n, g, &format!("start, G={g} n={n}"));
                    for ms in patterns(g) {
                        let what = format!("G={g} n={n} rows={rows:?} ms={ms:?}");
                        check(&cut(rows, &ms), n, g, &what);
                        if let Some(next) = rebalance(rows, &ms) {
                            check(&next, n, g, &what);
                            assert!(n >= g as u64, "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fewer_rows_than_devices_and_no_rows_keep_the_even_split() {
        for g in 2..=8usize {
            for n in 0..g as u64 {
                let even = split_rows(n, g);
                let ms: Vec<f64> = (0..g).map(|i| i as f64 * 3.0).collect();
                assert_eq!(cut(&even, &ms), even);
                assert_eq!(rebalance(&even, &ms), None);
            }
        }
        assert_eq!(cut(&[], &[]), Vec::<Range<u64>>::new());
        assert_eq!(rebalance(&[], &[]), None);
    }

    #[test]
    fn uniform_cost_keeps_an_even_split() {
        for g in 1..=8usize {
            for n in [8u64, 100, 1001] {
                let even = split_rows(n, g);
                let ms: Vec<f64> = even.iter().map(|r| (r.end - r.start) as f64).collect();
                let got = cut(&even, &ms);
                // Equal shares up to rounding.
                let (lo, hi) = (n / g as u64, n.div_ceil(g as u64));
                for r in &got {
                    assert!(
                        (lo..=hi).contains(&(r.end - r.start)),
                        "G={g} n={n}: {got:?}"
                    );
                }
                // Pieces within the tolerance: boundaries stay.
                assert_eq!(rebalance(&even, &ms), None, "G={g} n={n}");
            }
        }
    }

    #[test]
    fn small_or_unusable_differences_keep_the_rows() {
        let rows = split_rows(100, 4);
        assert_eq!(rebalance(&rows, &[10.0, 10.2, 10.4, 10.0]), None);
        assert_eq!(rebalance(&rows, &[0.01, 0.02, 0.03, 0.01]), None);
        assert_eq!(rebalance(&rows, &[1.0, f64::NAN, 1.0, 9.0]), None);
        assert_eq!(rebalance(&rows, &[1.0, -1.0, 1.0, 9.0]), None);
        assert_eq!(rebalance(&rows, &[1.0, 1.0, 1.0]), None);
        assert_eq!(rebalance(&[0..10, 20..30], &[1.0, 9.0]), None);
        assert!(rebalance(&rows, &[1.0, 1.0, 1.0, 9.0]).is_some());
    }

    #[test]
    fn one_expensive_device_sheds_rows() {
        let rows = split_rows(400, 4);
        let next = rebalance(&rows, &[1.0, 1.0, 1.0, 9.0]).unwrap();
        // Total 12: 3 per device; the first three ranges cost 3 together, so device 0 takes
        // them all, and the last range (9) splits into thirds.
        assert_eq!(next, vec![0..300, 300..333, 333..367, 367..400]);
    }

    /// The time of rows `r` when row `i` costs `i + 1`.
    fn triangular(r: &Range<u64>) -> f64 {
        let s = |x: u64| (x as f64) * (x as f64 + 1.0) / 2.0;
        s(r.end) - s(r.start)
    }

    #[test]
    fn triangular_cost_converges_towards_the_ideal_cut() {
        for g in 2..=8usize {
            let n = 10_000u64;
            let mut rows = split_rows(n, g);
            let mut steps = 0;
            loop {
                let ms: Vec<f64> = rows.iter().map(triangular).collect();
                match rebalance(&rows, &ms) {
                    Some(next) => rows = next,
                    None => break,
                }
                steps += 1;
                assert!(steps <= 12, "G={g}: no convergence: {rows:?}");
            }
            // Stopped because balanced: within the tolerance.
            let ms: Vec<f64> = rows.iter().map(triangular).collect();
            let (lo, hi) = ms
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(l, h), &t| (l.min(t), h.max(t)));
            assert!(hi <= lo * (1.0 + TOLERANCE), "G={g}: {rows:?} {ms:?}");
            // Cumulative cost ~ x²: the ideal boundary k is n·√(k/G).
            for (k, r) in rows.iter().enumerate().skip(1) {
                let ideal = n as f64 * (k as f64 / g as f64).sqrt();
                assert!(
                    (r.start as f64 - ideal).abs() <= 0.02 * n as f64,
                    "G={g}: boundary {k} at {} instead of ~{ideal:.0}",
                    r.start
                );
            }
            // Device 0 gets the most rows, the last the fewest.
            let len = |r: &Range<u64>| r.end - r.start;
            assert!(
                rows.windows(2).all(|w| len(&w[0]) >= len(&w[1])),
                "{rows:?}"
            );
        }
    }
}
