//! `textDocument/formatting`: the layout formatter of `futhark-rs fmt`
//! ([`futhark_syntax::format`]) over the document as the editor has it, answered as one edit
//! replacing the whole text (none when it is already formatted).

use futhark_ide::TextRange;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{DocumentFormattingParams, TextEdit};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
    let file = snap.file(&params.text_document.uri)?;
    let text = file.text(&snap.db);
    let formatted = futhark_syntax::format::format(text);
    if formatted == *text {
        return Ok(Some(Vec::new()));
    }
    let whole = TextRange::new(0, text.len() as u32);
    Ok(Some(vec![TextEdit {
        range: snap.range(file, whole),
        new_text: formatted,
    }]))
}
