//! The compile units of a generated module: one per entry point.
//!
//! A generated module holds every code version of its kernel (a reduction's block, warp and
//! thread entries, its tiled entries, a scan's look-back and small-segment entries), and a
//! launch uses one of them. With `CudaOptions::split_entries` (`FUTHARK_SPLIT_ENTRIES=1`)
//! each entry is compiled as a module of its own — the module's shared text (types,
//! helpers, globals) with that one entry — and the units compile side by side, so that a
//! cell would wait for its slowest entry rather than for all of them in a row. Measured on
//! an H100 it did not pay: each unit parses the shared text again, and units compiled side
//! by side overlapped poorly (a warm compile of a small reduction: 13–22 ms whole,
//! 38–60 ms split; `ad/scan9.fut`: 26.5 s whole, 37.3 s split;
//! `bench/results/compile-latency.md`). It is off by default and kept for such comparisons.
//!
//! The split reads the text the code generator writes: an entry starts at a line beginning
//! `extern "C" __global__` that names it, and ends at the next line that is a lone `}`.
//! When the text does not have that shape (an entry not found, or found twice, braces that
//! do not balance), the module stays whole.

/// Entries compiled together from one source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub entries: Vec<String>,
    pub source: String,
}

/// The module with `source` defining `entries` as one unit.
pub fn whole(source: &str, entries: &[&str]) -> Vec<Unit> {
    vec![Unit {
        entries: entries.iter().map(|e| e.to_string()).collect(),
        source: source.to_string(),
    }]
}

/// The units of a module with `source` defining `entries`: one per entry, or the whole
/// module as one unit when it has one entry or its text is not of the generated shape.
pub fn split(source: &str, entries: &[&str]) -> Vec<Unit> {
    if entries.len() < 2 {
        return whole(source, entries);
    }
    let Some(spans) = entry_spans(source, entries) else {
        return whole(source, entries);
    };
    spans
        .iter()
        .enumerate()
        .map(|(i, (entry, own))| {
            let mut text = String::with_capacity(source.len());
            let mut at = 0;
            for (j, (_, span)) in spans.iter().enumerate() {
                text.push_str(&source[at..span.start]);
                if j == i {
                    text.push_str(&source[own.clone()]);
                }
                at = span.end;
            }
            text.push_str(&source[at..]);
            Unit {
                entries: vec![entry.to_string()],
                source: text,
            }
        })
        .collect()
}

/// Each entry's text (from its `extern "C" __global__` line to its closing `}` line, both
/// included), in the order of the source; `None` unless every entry is found exactly once
/// and no other `__global__` function is there.
fn entry_spans<'e>(
    source: &str,
    entries: &[&'e str],
) -> Option<Vec<(&'e str, std::ops::Range<usize>)>> {
    let mut spans: Vec<(&'e str, std::ops::Range<usize>)> = Vec::new();
    let mut open: Option<(&'e str, usize)> = None;
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let start = at;
        at += line.len();
        match open {
            None if line.starts_with("extern \"C\" __global__") => {
                let named: Vec<&'e str> = entries
                    .iter()
                    .copied()
                    .filter(|e| line.contains(&format!(" {e}(")))
                    .collect();
                let [entry] = named[..] else { return None };
                let opened = line.matches('{').count();
                if opened > 0 && opened == line.matches('}').count() {
                    // The whole entry on its line.
                    spans.push((entry, start..at));
                } else {
                    open = Some((entry, start));
                }
            }
            Some((entry, begin)) if line.trim_end() == "}" => {
                let text = &source[begin..at];
                if text.matches('{').count() != text.matches('}').count() {
                    return None;
                }
                spans.push((entry, begin..at));
                open = None;
            }
            _ => {}
        }
    }
    let each_once = spans.len() == entries.len()
        && entries
            .iter()
            .all(|e| spans.iter().filter(|(s, _)| s == e).count() == 1);
    (open.is_none() && each_once).then_some(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "typedef float f32;\n\
        static __device__ f32 op(f32 a, f32 b) { return a + b; }\n\
        extern \"C\" __global__ void __launch_bounds__(256) k_block(const f32* x) {\n  \
          if (x) {\n    op(1, 2);\n  }\n\
        }\n\
        static __device__ f32 helper() { return 0; }\n\
        extern \"C\" __global__ void k_warp(const f32* x) {\n  op(1, 2);\n}\n\
        extern \"C\" __global__ void k_block2(const f32* x) {\n}\n\
        extern \"C\" __global__ void k_empty() {}\n";

    #[test]
    fn each_entry_gets_the_shared_text_and_itself() {
        let units = split(MODULE, &["k_block", "k_warp", "k_block2", "k_empty"]);
        assert_eq!(units.len(), 4);
        assert!(units[3].source.ends_with("k_empty() {}\n"));
        assert!(!units[2].source.contains("k_empty"));
        for (u, own, others) in [
            (&units[0], "k_block(", ["k_warp(", "k_block2("]),
            (&units[1], "k_warp(", ["k_block(", "k_block2("]),
            (&units[2], "k_block2(", ["k_block(", "k_warp("]),
            (&units[3], "k_empty(", ["k_block(", "k_warp("]),
        ] {
            assert!(u.source.contains(own), "{}", u.source);
            for o in others {
                assert!(!u.source.contains(o), "{o} in {}", u.source);
            }
            // The shared text, before and between the entries, is in every unit.
            assert!(u.source.starts_with("typedef float f32;\n"));
            assert!(u.source.contains("helper()"));
            assert_eq!(u.source.matches('{').count(), u.source.matches('}').count());
        }
        assert_eq!(units[1].entries, vec!["k_warp".to_string()]);
        // Removing the other entries is all that changes.
        let lines = |s: &str| s.lines().count();
        let total: usize = units.iter().map(|u| lines(&u.source)).sum();
        assert_eq!(total, 4 * lines(MODULE) - 3 * (5 + 3 + 2 + 1));
    }

    #[test]
    fn other_shapes_stay_whole() {
        let whole = |src: &str, entries: &[&str]| {
            let units = split(src, entries);
            units.len() == 1 && units[0].source == src && units[0].entries.len() == entries.len()
        };
        // One entry: nothing to split.
        assert!(whole(MODULE, &["k_warp"]));
        // An entry the text does not define.
        let all = ["k_block", "k_warp", "k_block2", "k_empty"];
        assert!(whole(MODULE, &[&all[..], &["k_thread"]].concat()));
        // A `__global__` function that is not an entry.
        assert!(whole(MODULE, &all[..3]));
        // An entry whose closing line is missing.
        let open = MODULE.replace(
            "k_block2(const f32* x) {\n}\n",
            "k_block2(const f32* x) {\n",
        );
        assert!(whole(&open, &all));
        // Braces that do not balance within an entry.
        let odd = MODULE.replace("  if (x) {\n", "  if (x) {{\n");
        assert!(whole(&odd, &all));
    }
}
