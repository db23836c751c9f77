//! Splitting the rows of an array over G devices.
//!
//! Seed 000 gives device `g` of `G` the rows `[g·⌈n/G⌉, min((g+1)·⌈n/G⌉, n))`; with fewer rows
//! than devices (or `G ≥ 3` and an unlucky `n`) its length `n − g·⌈n/G⌉` goes negative. Here
//! the split is balanced instead: the first `n mod G` devices get `⌊n/G⌋ + 1` rows, the rest
//! `⌊n/G⌋`, so every length is in `{⌊n/G⌋, ⌊n/G⌋ + 1}`, never negative, the ranges are
//! contiguous and in device order (which ordered combines of non-commutative reductions and
//! scans rely on), and they cover `0..n` exactly.

use std::ops::Range;

/// The rows of `n` that device `g` of `devices` owns.
pub fn rows_of(n: u64, devices: usize, g: usize) -> Range<u64> {
    assert!(devices > 0 && g < devices, "device {g} of {devices}");
    let d = devices as u64;
    let g = g as u64;
    let (base, extra) = (n / d, n % d);
    let start = g * base + g.min(extra);
    let len = base + u64::from(g < extra);
    start..start + len
}

/// The row ranges of every device, in device order.
pub fn split_rows(n: u64, devices: usize) -> Vec<Range<u64>> {
    (0..devices).map(|g| rows_of(n, devices, g)).collect()
}

/// The device that owns row `i` of `n` (`i < n`).
pub fn owner_of(i: u64, n: u64, devices: usize) -> usize {
    debug_assert!(i < n);
    let d = devices as u64;
    let (base, extra) = (n / d, n % d);
    // The first `extra` devices hold `base + 1` rows each.
    let big = extra * (base + 1);
    if i < big {
        (i / (base + 1)) as usize
    } else {
        (extra + (i - big) / base.max(1)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every G in 1..=8 and every n in 0..=1000: contiguous, covering, balanced, and
    /// `owner_of` agrees with the ranges.
    #[test]
    fn exhaustive_small() {
        for g in 1..=8usize {
            for n in 0..=1000u64 {
                let parts = split_rows(n, g);
                assert_eq!(parts.len(), g);
                let mut next = 0;
                for (d, r) in parts.iter().enumerate() {
                    assert_eq!(r.start, next, "n={n} G={g} device {d}");
                    assert!(r.end >= r.start);
                    let len = r.end - r.start;
                    assert!(len == n / g as u64 || len == n / g as u64 + 1);
                    for i in r.clone() {
                        assert_eq!(owner_of(i, n, g), d, "row {i} of {n}, G={g}");
                    }
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn fewer_rows_than_devices() {
        assert_eq!(split_rows(2, 4), vec![0..1, 1..2, 2..2, 2..2]);
        assert_eq!(split_rows(0, 3), vec![0..0, 0..0, 0..0]);
    }

    #[test]
    fn large_sizes_do_not_overflow() {
        let n = u64::MAX / 2;
        let parts = split_rows(n, 7);
        assert_eq!(parts.last().map(|r| r.end), Some(n));
        assert_eq!(owner_of(n - 1, n, 7), 6);
    }
}
