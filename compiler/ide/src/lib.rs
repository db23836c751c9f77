//! The analysis API every face shares: hover, definition, completion, symbols. (Issue 8; not yet built.)
