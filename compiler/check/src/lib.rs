//! Type checker: imports, modules, name resolution, type inference with sizes, uniqueness, and the embedded prelude. (Issue 3; not yet built.)
