//! First-order monomorphic SOAC IR and the segmented kernel IR. (Issue 5; not yet built.)
