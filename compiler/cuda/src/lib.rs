//! Kernel IR to CUDA C and the cudarc runtime. (Issue 5; not yet built.)
