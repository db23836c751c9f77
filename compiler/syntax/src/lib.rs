//! Lexer, error-tolerant parser and AST with spans.
