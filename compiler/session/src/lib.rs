//! Incremental evaluation session shared by the REPL and Jupyter kernel. (Issue 7; not yet built.)
