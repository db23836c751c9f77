//! The reference interpreter over the type-checked program. (Issue 4; not yet built.)
