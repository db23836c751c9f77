//! The kernel's input history for `history_request`: tail, range and glob search.

use jupyter_protocol::{HistoryEntry, HistoryRequest};

/// The session number reported in history entries (one kernel process is one session).
pub const SESSION: usize = 1;

/// Executed cells: execution count, input, text of the output.
#[derive(Default)]
pub struct History {
    entries: Vec<(usize, String, String)>,
}

impl History {
    pub fn push(&mut self, count: usize, input: &str, output: &str) {
        self.entries
            .push((count, input.to_string(), output.to_string()));
    }

    fn entry(e: &(usize, String, String), output: bool) -> HistoryEntry {
        if output {
            HistoryEntry::InputOutput(SESSION, e.0, (e.1.clone(), e.2.clone()))
        } else {
            HistoryEntry::Input(SESSION, e.0, e.1.clone())
        }
    }

    /// Answers a request.
    pub fn answer(&self, req: &HistoryRequest) -> Vec<HistoryEntry> {
        match req {
            HistoryRequest::Tail { n, output, .. } => {
                let n = (*n).max(0) as usize;
                let skip = self.entries.len().saturating_sub(n);
                self.entries[skip..]
                    .iter()
                    .map(|e| Self::entry(e, *output))
                    .collect()
            }
            HistoryRequest::Range {
                start,
                stop,
                output,
                ..
            } => self
                .entries
                .iter()
                .filter(|e| e.0 as i64 >= *start as i64 && (e.0 as i64) < *stop as i64)
                .map(|e| Self::entry(e, *output))
                .collect(),
            HistoryRequest::Search {
                pattern,
                unique,
                output,
                n,
                ..
            } => {
                let mut hits: Vec<&(usize, String, String)> = Vec::new();
                for e in self.entries.iter().rev() {
                    if glob(pattern, &e.1) && !(*unique && hits.iter().any(|h| h.1 == e.1)) {
                        hits.push(e);
                    }
                }
                if *n > 0 {
                    hits.truncate(*n as usize);
                }
                hits.reverse();
                hits.into_iter().map(|e| Self::entry(e, *output)).collect()
            }
        }
    }
}

/// Glob matching with `*` and `?`, as Jupyter's history search uses.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match() {
        assert!(glob("1*", "1 + 2"));
        assert!(glob("*+ ?", "1 + 2"));
        assert!(!glob("2*", "1 + 2"));
    }

    #[test]
    fn tail_and_search() {
        let mut h = History::default();
        for (i, c) in ["a", "b", "a"].iter().enumerate() {
            h.push(i + 1, c, "");
        }
        let tail = h.answer(&HistoryRequest::Tail {
            n: 2,
            output: false,
            raw: true,
        });
        assert_eq!(tail.len(), 2);
        let unique = h.answer(&HistoryRequest::Search {
            pattern: "a".into(),
            unique: true,
            output: false,
            raw: true,
            n: 10,
        });
        assert_eq!(unique.len(), 1);
    }
}
