//! Semantic version numbers `X.Y.Z[-PRE][+META]` as `futhark pkg` uses them: all three
//! numbers are required, pre-releases order before their release, build metadata does not
//! take part in the order.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Option<String>,
    pub meta: Option<String>,
}

impl Version {
    /// Parses `X.Y.Z[-PRE][+META]`; `None` for anything else (`1.0` is not a version).
    pub fn parse(s: &str) -> Option<Version> {
        let (rest, meta) = match s.split_once('+') {
            Some((r, m)) => (r, Some(m)),
            None => (s, None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (rest, None),
        };
        let ident_ok = |x: &str| {
            !x.is_empty()
                && x.split('.').all(|p| {
                    !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
        };
        if pre.is_some_and(|p| !ident_ok(p)) || meta.is_some_and(|m| !ident_ok(m)) {
            return None;
        }
        let nums: Vec<&str> = core.split('.').collect();
        if nums.len() != 3 {
            return None;
        }
        let num = |t: &str| {
            (!t.is_empty()
                && t.chars().all(|c| c.is_ascii_digit())
                && (t == "0" || !t.starts_with('0')))
            .then(|| t.parse::<u64>().ok())
            .flatten()
        };
        Some(Version {
            major: num(nums[0])?,
            minor: num(nums[1])?,
            patch: num(nums[2])?,
            pre: pre.map(str::to_string),
            meta: meta.map(str::to_string),
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some(p) = &self.pre {
            write!(f, "-{p}")?;
        }
        if let Some(m) = &self.meta {
            write!(f, "+{m}")?;
        }
        Ok(())
    }
}

/// Pre-release identifiers: numeric ones by value and before alphanumeric ones, the
/// latter in ASCII order; a shorter list of equal prefix first.
fn cmp_pre(a: &str, b: &str) -> Ordering {
    let mut xs = a.split('.');
    let mut ys = b.split('.');
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(m), Ok(n)) => m.cmp(&n),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (&self.pre, &other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(a), Some(b)) => cmp_pre(a, b),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn versions_need_three_numbers_without_leading_zeros() {
        for bad in [
            "1.0", "1", "1.0.0.0", "01.0.0", "a.b.c", "1.0.0-", "1.0.0+", "", "1..0",
        ] {
            assert!(Version::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(v("1.2.3-rc.1+abc").to_string(), "1.2.3-rc.1+abc");
    }

    #[test]
    fn order_is_semver_precedence() {
        let ordered = [
            "0.9.9",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.10.0",
            "2.0.0",
        ];
        for w in ordered.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
        assert_eq!(v("1.0.0+a").cmp(&v("1.0.0+b")), Ordering::Equal);
    }
}
