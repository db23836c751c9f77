//! `textDocument/signatureHelp`.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    Documentation, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, SignatureHelp,
    SignatureHelpParams, SignatureInformation,
};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
    let p = params.text_document_position_params;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let Some(help) = futhark_ide::signature_help(&snap.db, pos) else {
        return Ok(None);
    };
    // Parameter labels are offsets into the label, in UTF-16 code units.
    let utf16 = |byte: u32| -> u32 {
        help.label
            .get(..byte as usize)
            .map_or(0, |s| s.encode_utf16().count() as u32)
    };
    let parameters = help
        .params
        .iter()
        .map(|r| ParameterInformation {
            label: ParameterLabel::LabelOffsets([utf16(r.start), utf16(r.end)]),
            documentation: None,
        })
        .collect();
    Ok(Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label: help.label.clone(),
            documentation: help.doc.clone().map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            parameters: Some(parameters),
            active_parameter: help.active_param,
        }],
        active_signature: Some(0),
        active_parameter: help.active_param,
    }))
}
