//! Test fixtures in the style of rust-analyzer: one or more files in a string, with `$0`
//! marking the cursor.
//!
//! ```text
//! //- /main.fut
//! import "lib"
//! def y = lib$0.x
//! //- /lib.fut
//! def x = 1
//! ```
//!
//! Without `//-` headers the text is one file, `/main.fut`. The prelude is registered in
//! every fixture database, as in the language server.

use futhark_db::{Database, File};

use crate::FilePosition;

pub(crate) struct Fixture {
    pub db: Database,
    pub files: Vec<File>,
    pub cursor: Option<FilePosition>,
}

impl Fixture {
    pub fn new(fixture: &str) -> Fixture {
        let mut db = Database::new();
        crate::register_prelude(&mut db);
        let mut files = Vec::new();
        let mut cursor = None;
        for (path, text) in split(fixture) {
            let (text, offset) = match text.find("$0") {
                Some(i) => (text.replacen("$0", "", 1), Some(i as u32)),
                None => (text, None),
            };
            let file = db.set_file(&path, text);
            if let Some(offset) = offset {
                cursor = Some(FilePosition { file, offset });
            }
            files.push(file);
        }
        Fixture { db, files, cursor }
    }

    /// The first file of the fixture.
    pub fn file(&self) -> File {
        self.files[0]
    }

    pub fn text(&self) -> String {
        self.file().text(&self.db).clone()
    }

    pub fn position(&self) -> FilePosition {
        self.cursor.expect("the fixture has no $0 cursor")
    }

    /// `path:start..end` with the text of the range, for expectations.
    pub fn show_range(&self, file: File, range: crate::TextRange) -> String {
        let text = file.text(&self.db);
        let path = file.path(&self.db).display().to_string();
        let shown = text
            .get(range.start as usize..range.end as usize)
            .unwrap_or("<out of range>");
        format!("{path}:{}..{} {shown:?}", range.start, range.end)
    }
}

fn split(fixture: &str) -> Vec<(String, String)> {
    let fixture = fixture.strip_prefix('\n').unwrap_or(fixture);
    if !fixture.starts_with("//- ") {
        return vec![("/main.fut".to_string(), fixture.to_string())];
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for line in fixture.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("//- ") {
            out.push((path.trim().to_string(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
        }
    }
    out
}
