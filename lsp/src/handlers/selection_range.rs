//! `textDocument/selectionRange`: for each position, the chain of ranges an editor's
//! "expand selection" walks (see `futhark_ide::selection_ranges`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{SelectionRange, SelectionRangeParams};

use crate::snapshot::Snapshot;

pub fn handle(
    snap: &Snapshot,
    params: SelectionRangeParams,
) -> Result<Option<Vec<SelectionRange>>> {
    let uri = &params.text_document.uri;
    let mut out = Vec::new();
    for p in params.positions {
        let pos = snap.file_position(uri, p)?;
        let ranges = futhark_ide::selection_ranges(&snap.db, pos);
        // Built outermost first, each the parent of the next.
        let mut chain: Option<SelectionRange> = None;
        for r in ranges.into_iter().rev() {
            chain = Some(SelectionRange {
                range: snap.range(pos.file, r),
                parent: chain.map(Box::new),
            });
        }
        out.push(chain.unwrap_or(SelectionRange {
            range: tower_lsp_server::ls_types::Range::new(p, p),
            parent: None,
        }));
    }
    Ok(Some(out))
}
