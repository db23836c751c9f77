//! Simplification, fusion, flattening and multi-GPU distribution. (Issues 5 and 6; not yet built.)
