//! `textDocument/completion`.

use futhark_ide::CompletionKind;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    Documentation, InsertTextFormat, MarkupContent, MarkupKind, TextEdit,
};

use crate::snapshot::Snapshot;

pub fn handle(snap: &Snapshot, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let p = params.text_document_position;
    let pos = snap.file_position(&p.text_document.uri, p.position)?;
    let items = futhark_ide::completions(&snap.db, pos);
    let items = items
        .into_iter()
        .map(|item| {
            let range = snap.range(pos.file, item.replace);
            let new_text = item
                .insert_text
                .clone()
                .unwrap_or_else(|| item.label.clone());
            CompletionItem {
                kind: Some(kind(item.kind)),
                detail: item.detail,
                documentation: item.doc.map(|value| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    })
                }),
                sort_text: Some(format!("{}{}", item.sort_group, item.label)),
                insert_text_format: Some(if item.is_snippet {
                    InsertTextFormat::SNIPPET
                } else {
                    InsertTextFormat::PLAIN_TEXT
                }),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text))),
                label: item.label,
                ..CompletionItem::default()
            }
        })
        .collect();
    Ok(Some(CompletionResponse::Array(items)))
}

fn kind(kind: CompletionKind) -> CompletionItemKind {
    match kind {
        CompletionKind::Local => CompletionItemKind::VARIABLE,
        CompletionKind::Param => CompletionItemKind::VARIABLE,
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Value => CompletionItemKind::CONSTANT,
        CompletionKind::Type => CompletionItemKind::STRUCT,
        CompletionKind::TypeParam => CompletionItemKind::TYPE_PARAMETER,
        CompletionKind::Module => CompletionItemKind::MODULE,
        CompletionKind::ModuleType => CompletionItemKind::INTERFACE,
        CompletionKind::Field => CompletionItemKind::FIELD,
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
        CompletionKind::File => CompletionItemKind::FILE,
    }
}
