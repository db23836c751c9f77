//! The futhark-rs command line.
fn main() {}
