//! Parses the files given on the command line and prints their syntax errors, or with
//! `--tree` the S-expression rendering of each file (a debugging aid).

use futhark_syntax::{FileId, LineIndex, debug_tree, parse};

fn main() {
    let mut show_tree = false;
    for (i, arg) in std::env::args().skip(1).enumerate() {
        if arg == "--tree" {
            show_tree = true;
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&arg) else {
            eprintln!("{arg}: cannot read");
            continue;
        };
        let parsed = parse(FileId(i as u32), &text);
        let index = LineIndex::new(&text);
        for err in &parsed.errors {
            let (line, col) = index.line_col(err.span.start);
            println!("{arg}:{line}:{col}: {} [{}]", err.message, err.code);
        }
        if show_tree {
            print!("{}", debug_tree(&parsed.file));
        }
    }
}
