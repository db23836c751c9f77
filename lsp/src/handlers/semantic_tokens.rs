//! `textDocument/semanticTokens/full` and `/range`: the legend, and the encoding of the
//! analysis's byte ranges as the protocol's relative UTF-16 tuples (multi-line tokens are
//! split per line).

use futhark_ide::{Modifiers, TextRange, TokenClass};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensLegend,
    SemanticTokensParams, SemanticTokensRangeParams, SemanticTokensRangeResult,
    SemanticTokensResult,
};

use crate::snapshot::Snapshot;

/// Token types, in the order of their indices.
const TYPES: [(TokenClass, SemanticTokenType); 15] = [
    (TokenClass::Keyword, SemanticTokenType::KEYWORD),
    (TokenClass::Function, SemanticTokenType::FUNCTION),
    (TokenClass::Variable, SemanticTokenType::VARIABLE),
    (TokenClass::Parameter, SemanticTokenType::PARAMETER),
    (TokenClass::Type, SemanticTokenType::TYPE),
    (TokenClass::TypeParameter, SemanticTokenType::TYPE_PARAMETER),
    (TokenClass::Module, SemanticTokenType::NAMESPACE),
    (TokenClass::ModuleType, SemanticTokenType::INTERFACE),
    (TokenClass::Operator, SemanticTokenType::OPERATOR),
    (TokenClass::Constructor, SemanticTokenType::ENUM_MEMBER),
    (TokenClass::Field, SemanticTokenType::PROPERTY),
    (TokenClass::Number, SemanticTokenType::NUMBER),
    (TokenClass::String, SemanticTokenType::STRING),
    (TokenClass::Comment, SemanticTokenType::COMMENT),
    (TokenClass::Attribute, SemanticTokenType::DECORATOR),
];

/// Modifiers, bit i for entry i.
const MODIFIERS: [(Modifiers, SemanticTokenModifier); 3] = [
    (Modifiers::DEFINITION, SemanticTokenModifier::DEFINITION),
    (Modifiers::LIBRARY, SemanticTokenModifier::DEFAULT_LIBRARY),
    (
        Modifiers::DOCUMENTATION,
        SemanticTokenModifier::DOCUMENTATION,
    ),
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.iter().map(|(_, t)| t.clone()).collect(),
        token_modifiers: MODIFIERS.iter().map(|(_, m)| m.clone()).collect(),
    }
}

pub fn full(snap: &Snapshot, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
    let file = snap.file(&params.text_document.uri)?;
    let data = encode(snap, file, None);
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

pub fn range(
    snap: &Snapshot,
    params: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let file = snap.file(&params.text_document.uri)?;
    let range = snap.text_range(file, params.range);
    let data = encode(snap, file, Some(range));
    Ok(Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

fn encode(snap: &Snapshot, file: futhark_db::File, range: Option<TextRange>) -> Vec<SemanticToken> {
    let text = file.text(&snap.db);
    let tokens = futhark_ide::semantic_tokens(&snap.db, file, range);
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for token in tokens {
        let Some(ty) = TYPES.iter().position(|(c, _)| *c == token.class) else {
            continue;
        };
        let mods = MODIFIERS
            .iter()
            .enumerate()
            .filter(|(_, (m, _))| token.modifiers.contains(*m))
            .fold(0u32, |acc, (i, _)| acc | (1 << i));
        // Split at newlines: one protocol token per line.
        let mut start = token.range.start;
        while start < token.range.end {
            let line_end = text
                .get(start as usize..token.range.end as usize)
                .and_then(|s| s.find('\n'))
                .map_or(token.range.end, |i| start + i as u32);
            let piece = text
                .get(start as usize..line_end as usize)
                .unwrap_or("")
                .trim_end_matches('\r');
            let length: u32 = piece.chars().map(|c| c.len_utf16() as u32).sum();
            if length > 0 {
                let pos = snap.position(file, start);
                let delta_line = pos.line - prev_line;
                let delta_start = if delta_line == 0 {
                    pos.character - prev_col
                } else {
                    pos.character
                };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: ty as u32,
                    token_modifiers_bitset: mods,
                });
                prev_line = pos.line;
                prev_col = pos.character;
            }
            start = line_end + 1;
        }
    }
    out
}
