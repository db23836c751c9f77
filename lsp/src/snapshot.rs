//! A read-only view of the server state for one request: a clone of the salsa database
//! (cheap; an edit cancels it) plus the URI map, with the position conversions every
//! handler needs.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use futhark_db::{Database, Db, File};
use futhark_ide::{FilePosition, TextRange};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{Location, Position, Range, Uri};

use crate::line_index::LineIndex;
use crate::uris::UriMap;

pub struct Snapshot {
    pub db: Database,
    pub uris: Arc<UriMap>,
    /// True when the type checker's results for this revision are already computed, so
    /// asking for types does not wait for a check.
    pub types_ready: bool,
    /// Line indices computed during this request.
    lines: RefCell<HashMap<File, Arc<LineIndex>>>,
}

impl Snapshot {
    pub fn new(db: Database, uris: Arc<UriMap>) -> Snapshot {
        Snapshot {
            db,
            uris,
            types_ready: true,
            lines: RefCell::default(),
        }
    }

    /// The file behind `uri` (read from disk if the server has not seen it yet).
    pub fn file(&self, uri: &Uri) -> Result<File> {
        self.uris
            .path_of(uri)
            .and_then(|path| self.db.load_file(&path))
            .ok_or_else(|| Error::invalid_params(format!("unknown document {}", uri.as_str())))
    }

    pub fn uri(&self, file: File) -> Option<Uri> {
        self.uris.uri_of(file.path(&self.db))
    }

    fn line_index(&self, file: File) -> Arc<LineIndex> {
        self.lines
            .borrow_mut()
            .entry(file)
            .or_insert_with(|| Arc::new(LineIndex::new(file.text(&self.db))))
            .clone()
    }

    pub fn offset(&self, file: File, pos: Position) -> u32 {
        self.line_index(file).offset(file.text(&self.db), pos)
    }

    pub fn position(&self, file: File, offset: u32) -> Position {
        self.line_index(file).position(file.text(&self.db), offset)
    }

    pub fn range(&self, file: File, range: TextRange) -> Range {
        self.line_index(file).range(file.text(&self.db), range)
    }

    pub fn text_range(&self, file: File, range: Range) -> TextRange {
        self.line_index(file).text_range(file.text(&self.db), range)
    }

    /// The cursor `pos` in the document `uri`.
    pub fn file_position(&self, uri: &Uri, pos: Position) -> Result<FilePosition> {
        let file = self.file(uri)?;
        Ok(FilePosition {
            file,
            offset: self.offset(file, pos),
        })
    }

    pub fn location(&self, file: File, range: TextRange) -> Option<Location> {
        Some(Location::new(self.uri(file)?, self.range(file, range)))
    }

    /// Every file the database knows: the workspace, open buffers and the prelude.
    pub fn workspace(&self) -> Vec<File> {
        self.db.files()
    }
}
