//! `textDocument/foldingRange`.

use futhark_ide::FoldKind;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeKind, FoldingRangeParams};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    let file = snap.file(&params.text_document.uri)?;
    let folds = futhark_ide::folding_ranges(&snap.db, file);
    Ok(Some(
        folds
            .into_iter()
            .map(|f| {
                let range = snap.range(file, f.range);
                FoldingRange {
                    start_line: range.start.line,
                    start_character: None,
                    end_line: range.end.line,
                    end_character: None,
                    kind: Some(match f.kind {
                        FoldKind::Region => FoldingRangeKind::Region,
                        FoldKind::Comment => FoldingRangeKind::Comment,
                        FoldKind::Imports => FoldingRangeKind::Imports,
                    }),
                    collapsed_text: None,
                }
            })
            .collect(),
    ))
}
