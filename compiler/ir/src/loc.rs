//! Source locations of run-time errors, with the call stack that led there.
//!
//! A location is text: the failing expression's `path:line:col-col`, then, one per line,
//! the call sites it was reached through, innermost first — the interpreter's backtrace.
//! Lowering writes the calls it inlines (a higher-order function, a lambda applied in the
//! source, the entry point itself), the `inline` pass appends each call site to the
//! statements it copies, and the host appends the site of a call that stays a call
//! (recursion). Keeping it one string lets every pass that already carries a statement's
//! location carry its backtrace, and the GPU's failure table needs nothing new.

/// The interpreter keeps this many innermost frames of a backtrace.
pub const MAX_FRAMES: usize = 32;

/// `loc` reached through the call at `site` (itself a location with its own frames).
pub fn called_from(loc: &str, site: &str) -> String {
    if site.is_empty() {
        return loc.to_string();
    }
    // Deep recursion would grow the text without bound; the frames past the interpreter's
    // limit are never shown.
    if loc.matches('\n').count() > MAX_FRAMES {
        return loc.to_string();
    }
    format!("{loc}\n{site}")
}

/// The failing expression's position (the first line).
pub fn position(loc: &str) -> &str {
    loc.split('\n').next().unwrap_or(loc)
}

/// The call sites, innermost first.
pub fn frames(loc: &str) -> impl Iterator<Item = &str> {
    loc.split('\n').skip(1).take(MAX_FRAMES)
}

/// A run-time error as the interpreter renders it: `Error at P:`, the message, and the
/// backtrace when there are frames.
pub fn render_error(msg: &str, loc: &str) -> String {
    let mut out = format!("Error at {}:\n{msg}", position(loc));
    let mut frames = frames(loc).peekable();
    if frames.peek().is_some() {
        out.push_str("\n\nBacktrace:");
        for (i, f) in frames.enumerate() {
            out.push_str(&format!("\n-> #{i} {f}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_rendered_innermost_first() {
        let inner = called_from("a.fut:1:2-3", "a.fut:4:5-6\na.fut:9:1-20");
        assert_eq!(position(&inner), "a.fut:1:2-3");
        assert_eq!(
            render_error("boom", &inner),
            "Error at a.fut:1:2-3:\nboom\n\nBacktrace:\n-> #0 a.fut:4:5-6\n-> #1 a.fut:9:1-20"
        );
        assert_eq!(
            render_error("boom", "a.fut:1:2-3"),
            "Error at a.fut:1:2-3:\nboom"
        );
    }

    #[test]
    fn deep_chains_stop_growing() {
        let mut loc = "a.fut:1:1-2".to_string();
        for i in 0..100 {
            loc = called_from(&loc, &format!("a.fut:{i}:1-2"));
        }
        assert_eq!(frames(&loc).count(), MAX_FRAMES);
        assert_eq!(frames(&loc).next(), Some("a.fut:0:1-2"));
    }
}
