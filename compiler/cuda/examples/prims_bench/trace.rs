//! Summaries of scan traces (`ScanConfig::trace`): where a tile's lifetime goes, how far
//! back the look-back reads, and how fast the inclusive-prefix frontier advances.

use futhark_cuda::codegen::scan::TRACE_WORDS;

/// Median and 90th percentile.
fn mp90(mut v: Vec<f64>) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[(v.len() * 9 / 10).min(v.len() - 1)])
}

/// The figures printed for one traced kernel.
pub struct TraceSummary {
    pub tiles: usize,
    pub recorded: usize,
    pub span_ms: f64,
    pub ghz: f64,
    pub gt_step_ns: u64,
    pub sms: usize,
    pub tiles_per_sm: (usize, usize),
    pub resident_mean: f64,
    pub dispatch_skew: i64,
    /// Events 1..=6, microseconds since block start (clock64): median, p90.
    pub since_start: Vec<(f64, f64)>,
    /// Inclusive prefix published minus own aggregate published, microseconds.
    pub agg_to_inclusive: (f64, f64),
    pub dist_mean: f64,
    pub dist_p90: f64,
    pub dist_max: u64,
    pub polls_mean: f64,
    /// Own look-back done minus the publish time of the closed prefix it used
    /// (`%globaltimer`), microseconds.
    pub hop: (f64, f64),
    /// Tiles per microsecond by which the frontier (every tile up to it has published its
    /// inclusive prefix) advances over the middle 80% of tiles.
    pub frontier_rate: f64,
    /// Tiles between the frontier and a tile at its block start / once its tile has loaded.
    pub lag_start: (f64, f64),
    pub lag_loaded: (f64, f64),
}

/// Summarises `words` (`TRACE_WORDS` per tile, `tiles` tiles).
pub fn summarize(words: &[u64], tiles: usize) -> TraceSummary {
    let tw = TRACE_WORDS;
    let tiles = tiles.min(words.len() / tw);
    let rec = |i: usize| &words[i * tw..(i + 1) * tw];
    let valid: Vec<bool> = (0..tiles)
        .map(|i| {
            let r = rec(i);
            (0..7).all(|e| r[e] != 0 && r[7 + e] != 0)
        })
        .collect();
    let ok: Vec<usize> = (0..tiles).filter(|&i| valid[i]).collect();
    let g = |i: usize, e: usize| rec(i)[e];
    let c = |i: usize, e: usize| rec(i)[7 + e];
    let (mut cyc, mut ns) = (0f64, 0f64);
    for &i in &ok {
        cyc += c(i, 6).saturating_sub(c(i, 0)) as f64;
        ns += g(i, 6).saturating_sub(g(i, 0)) as f64;
    }
    let ghz = if ns > 0.0 { cyc / ns } else { f64::NAN };
    let us = |cycles: f64| cycles / ghz / 1000.0;
    let since_start: Vec<(f64, f64)> = (1..7)
        .map(|e| {
            mp90(
                ok.iter()
                    .map(|&i| us(c(i, e) as f64 - c(i, 0) as f64))
                    .collect(),
            )
        })
        .collect();
    let agg_to_inclusive = mp90(
        ok.iter()
            .map(|&i| us(c(i, 5) as f64 - c(i, 3) as f64))
            .collect(),
    );
    let mut all_g: Vec<u64> = ok
        .iter()
        .flat_map(|&i| (0..7).map(move |e| (i, e)))
        .map(|(i, e)| g(i, e))
        .collect();
    all_g.sort_unstable();
    all_g.dedup();
    let gt_step_ns = all_g.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
    let t0 = ok.iter().map(|&i| g(i, 0)).min().unwrap_or(0);
    let t1 = ok.iter().map(|&i| g(i, 6)).max().unwrap_or(0);
    let span_ns = t1.saturating_sub(t0).max(1) as f64;
    // Little's law over the middle 80% of tiles: start rate times mean lifetime.
    let life_ns: f64 = ok
        .iter()
        .map(|&i| (c(i, 6) as f64 - c(i, 0) as f64) / ghz)
        .sum::<f64>()
        / ok.len().max(1) as f64;
    let (lo, hi) = (
        ok.len() / 10,
        (ok.len() * 9 / 10).min(ok.len().saturating_sub(1)),
    );
    let start_rate = if hi > lo {
        let (a, b) = (g(ok[lo], 0), g(ok[hi], 0));
        (hi - lo) as f64 / (b.saturating_sub(a).max(1) as f64)
    } else {
        f64::NAN
    };
    let mut per_sm = std::collections::HashMap::<u64, usize>::new();
    for &i in &ok {
        *per_sm.entry(rec(i)[14] & 0xffff_ffff).or_default() += 1;
    }
    let dispatch_skew = ok
        .iter()
        .map(|&i| ((rec(i)[14] >> 32) as i64 - i as i64).abs())
        .max()
        .unwrap_or(0);
    let dist: Vec<f64> = ok
        .iter()
        .map(|&i| (rec(i)[15] & 0xffff_ffff) as f64)
        .collect();
    let dist_mean = dist.iter().sum::<f64>() / dist.len().max(1) as f64;
    let dist_p90 = mp90(dist.clone()).1;
    let dist_max = dist.iter().fold(0f64, |a, b| a.max(*b)) as u64;
    let polls_mean =
        ok.iter().map(|&i| (rec(i)[15] >> 32) as f64).sum::<f64>() / ok.len().max(1) as f64;
    let hop = mp90(
        ok.iter()
            .filter_map(|&i| {
                let d = (rec(i)[15] & 0xffff_ffff) as usize;
                (d >= 1 && d <= i && valid[i - d])
                    .then(|| (g(i, 4) as f64 - g(i - d, 5) as f64) / 1000.0)
            })
            .collect(),
    );
    // The frontier: after tile k, the latest inclusive-prefix publish time of tiles <= k.
    let mut front = Vec::with_capacity(tiles);
    let mut m = 0u64;
    for (i, ok) in valid.iter().enumerate() {
        if *ok {
            m = m.max(g(i, 5));
        }
        front.push(m);
    }
    let (lo, hi) = (tiles / 10, (tiles * 9 / 10).min(tiles.saturating_sub(1)));
    let frontier_rate = if hi > lo && front[hi] > front[lo] {
        (hi - lo) as f64 / ((front[hi] - front[lo]) as f64 / 1000.0)
    } else {
        f64::NAN
    };
    let lag = |e: usize| {
        mp90(
            ok.iter()
                .map(|&i| {
                    let f = front.partition_point(|&t| t <= g(i, e));
                    i.saturating_sub(f) as f64
                })
                .collect(),
        )
    };
    TraceSummary {
        tiles,
        recorded: ok.len(),
        span_ms: span_ns / 1e6,
        ghz,
        gt_step_ns,
        sms: per_sm.len(),
        tiles_per_sm: (
            per_sm.values().copied().min().unwrap_or(0),
            per_sm.values().copied().max().unwrap_or(0),
        ),
        resident_mean: start_rate * life_ns,
        dispatch_skew,
        since_start,
        agg_to_inclusive,
        dist_mean,
        dist_p90,
        dist_max,
        polls_mean,
        hop,
        frontier_rate,
        lag_start: lag(0),
        lag_loaded: lag(2),
    }
}

impl TraceSummary {
    /// The printed lines; `copy_ms` is the copy kernel's time for the same bytes (the
    /// frontier rate it would take to scan at copy speed is `tiles / copy_ms`).
    pub fn lines(
        &self,
        variant: &str,
        traced_ms: f64,
        untraced_ms: f64,
        copy_ms: f64,
        blocks: (u32, u32),
    ) -> String {
        let f = |p: (f64, f64)| format!("{:.2}/{:.2}", p.0, p.1);
        let labels = [
            "tile id",
            "loaded",
            "aggregate out",
            "look-back done",
            "inclusive out",
            "stores issued",
        ];
        let phases: Vec<String> = labels
            .iter()
            .zip(&self.since_start)
            .map(|(l, p)| format!("{l} {}", f(*p)))
            .collect();
        let need = self.tiles as f64 / (copy_ms * 1000.0);
        let lag = |p: (f64, f64)| format!("{:.0}/{:.0}", p.0, p.1);
        format!(
            "trace {variant}: {} tiles ({} recorded), {traced_ms:.3} ms traced vs {untraced_ms:.3} untraced, span {:.3} ms, {} SMs ({}-{} tiles each), clock {:.2} GHz, globaltimer step {} ns, {:.0} tiles resident (mean; blocks/SM by ptxas {} untraced, {} traced), max |blockIdx - tile| {}\n  us since block start, median/p90: {}\n  look-back: closed prefix {:.1} tiles back (p90 {:.0}, max {}), {:.1} polls/tile; own aggregate out -> inclusive out {} us; used prefix's publish -> own look-back done {} us\n  frontier: {:.1} tiles/us (copy speed needs {:.1}); it trails a tile by {} tiles at block start and {} once loaded (median/p90)",
            self.tiles,
            self.recorded,
            self.span_ms,
            self.sms,
            self.tiles_per_sm.0,
            self.tiles_per_sm.1,
            self.ghz,
            self.gt_step_ns,
            self.resident_mean,
            blocks.0,
            blocks.1,
            self.dispatch_skew,
            phases.join(" | "),
            self.dist_mean,
            self.dist_p90,
            self.dist_max,
            self.polls_mean,
            f(self.agg_to_inclusive),
            f(self.hop),
            self.frontier_rate,
            need,
            lag(self.lag_start),
            lag(self.lag_loaded),
        )
    }

    /// The figures as a JSON object.
    pub fn json(&self, variant: &str, traced_ms: f64, untraced_ms: f64) -> String {
        let num = |x: f64| -> String {
            if x.is_finite() {
                format!("{x:.4}")
            } else {
                "null".into()
            }
        };
        let p = |x: (f64, f64)| format!("[{}, {}]", num(x.0), num(x.1));
        format!(
            "{{\"variant\": {variant:?}, \"tiles\": {}, \"recorded\": {}, \"traced_ms\": {traced_ms:.5}, \"untraced_ms\": {untraced_ms:.5}, \"span_ms\": {}, \"clock_ghz\": {}, \"globaltimer_step_ns\": {}, \"sms\": {}, \"resident_mean\": {}, \"since_start_us\": [{}], \"agg_to_inclusive_us\": {}, \"lookback_dist_mean\": {}, \"lookback_dist_p90\": {}, \"lookback_dist_max\": {}, \"polls_mean\": {}, \"hop_us\": {}, \"frontier_tiles_per_us\": {}, \"lag_start_tiles\": {}, \"lag_loaded_tiles\": {}}}",
            self.tiles,
            self.recorded,
            num(self.span_ms),
            num(self.ghz),
            self.gt_step_ns,
            self.sms,
            num(self.resident_mean),
            self.since_start
                .iter()
                .map(|x| p(*x))
                .collect::<Vec<_>>()
                .join(", "),
            p(self.agg_to_inclusive),
            num(self.dist_mean),
            num(self.dist_p90),
            self.dist_max,
            num(self.polls_mean),
            p(self.hop),
            num(self.frontier_rate),
            p(self.lag_start),
            p(self.lag_loaded),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A steady stream: a tile starts every 10 ns, loads in 300 ns, publishes its inclusive
    /// prefix 1900 ns after its start (one tile back), and ends at 2000 ns; 2 GHz clock.
    #[test]
    fn steady_stream() {
        let tiles = 1000;
        let mut w = vec![0u64; tiles * TRACE_WORDS];
        for i in 0..tiles {
            let t0 = 1_000_000 + 10 * i as u64;
            let ev = [0u64, 20, 300, 320, 1880, 1900, 2000];
            let r = &mut w[i * TRACE_WORDS..(i + 1) * TRACE_WORDS];
            for e in 0..7 {
                r[e] = t0 + ev[e];
                r[7 + e] = 5_000_000 + 2 * (t0 + ev[e]);
            }
            r[14] = (i as u64 % 4) | ((i as u64) << 32);
            r[15] = (i.min(1) as u64) | (7 << 32);
        }
        let s = summarize(&w, tiles);
        assert_eq!(s.recorded, tiles);
        assert!((s.ghz - 2.0).abs() < 1e-9);
        assert_eq!(s.gt_step_ns, 10);
        assert_eq!(s.sms, 4);
        assert!((s.since_start[1].0 - 0.3).abs() < 1e-9);
        assert!((s.since_start[4].0 - 1.9).abs() < 1e-9);
        assert!((s.agg_to_inclusive.0 - 1.58).abs() < 1e-9);
        assert!((s.frontier_rate - 100.0).abs() < 1e-6);
        // Used prefix (tile i-1) published at t0 - 10 + 1900; look-back done at t0 + 1880.
        assert!((s.hop.0 - (-0.01)).abs() < 1e-9);
        assert!((s.resident_mean - 200.0).abs() < 1.0);
        assert!((s.lag_start.0 - 190.0).abs() <= 1.0, "{:?}", s.lag_start);
        assert!((s.polls_mean - 7.0).abs() < 1e-9);
        let text = s.lines("x", 1.0, 1.0, 0.5, (4, 4));
        assert_eq!(text.lines().count(), 4);
    }
}
