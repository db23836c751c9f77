//! The futhark-jupyter binary. Not yet built (see the project's issues); it says so and exits.

fn main() {
    eprintln!("futhark-jupyter: not implemented yet in this build of futhark-rs");
    std::process::exit(2);
}
