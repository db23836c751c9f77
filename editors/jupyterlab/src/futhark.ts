// A CodeMirror stream parser for Futhark, following the lexer of futhark-rs
// (compiler/syntax/src/lexer): comments (`--`, doc comments `-- |`), keywords, primitive
// types, numbers with type suffixes, characters and strings with escapes, constructors
// (`#c`), attributes (`#[…]`), type parameters (`'a`, `'^a`, `'~a`), operators and
// qualified names. Token names are CodeMirror's legacy names, which `StreamLanguage` maps to
// highlighting tags (`keyword`, `typeName`, `number`, …).

import { StreamParser, StringStream } from '@codemirror/language';

const KEYWORDS = new Set([
  'if', 'then', 'else', 'def', 'let', 'loop', 'in', 'val', 'for', 'do', 'with', 'local',
  'open', 'include', 'import', 'type', 'entry', 'module', 'while', 'assert', 'match', 'case'
]);

const PRIMITIVE_TYPES = new Set([
  'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f16', 'f32', 'f64', 'bool'
]);

const ATOMS = new Set(['true', 'false']);

const SUFFIX = /^(?:[iu](?:8|16|32|64)|f(?:16|32|64))/;
const OPERATOR_CHARS = /[+\-*/%=!<>&|^.:@`?~\\]/;

interface State {
  /// Inside an attribute `#[…]`: how many brackets are open.
  attrDepth: number;
}

function number(stream: StringStream): string {
  if (stream.match(/^0[xX][0-9a-fA-F_]+(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?/) ||
      stream.match(/^0[bB][01_]+/) ||
      stream.match(/^[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9_]+)?/)) {
    stream.match(SUFFIX);
    return 'number';
  }
  stream.next();
  return 'number';
}

function quoted(stream: StringStream, close: string): boolean {
  let escaped = false;
  let ch: string | void;
  while ((ch = stream.next()) != null) {
    if (ch === close && !escaped) {
      return true;
    }
    escaped = !escaped && ch === '\\';
  }
  return false;
}

function token(stream: StringStream, state: State): string | null {
  if (stream.eatSpace()) {
    return null;
  }
  if (state.attrDepth > 0) {
    if (stream.eat('[')) {
      state.attrDepth++;
    } else if (stream.eat(']')) {
      state.attrDepth--;
    } else {
      stream.next();
    }
    return 'meta';
  }
  if (stream.match('--')) {
    const doc = stream.match(/^\s*\|/, false);
    stream.skipToEnd();
    return doc ? 'docString' : 'comment';
  }
  if (stream.match('#[')) {
    state.attrDepth = 1;
    return 'meta';
  }
  if (stream.match(/^#[A-Za-z_][A-Za-z0-9_']*/)) {
    return 'atom';
  }
  const ch = stream.peek() as string;
  if (/[0-9]/.test(ch)) {
    return number(stream);
  }
  if (ch === '"') {
    stream.next();
    quoted(stream, '"');
    return 'string';
  }
  if (ch === "'") {
    // A type parameter (`'a`, `'^a`, `'~a`) or a character literal (`'x'`, `'\n'`).
    if (stream.match(/^'[~^]?[A-Za-z_][A-Za-z0-9_']*/) && !stream.match("'", false)) {
      return 'typeName';
    }
    stream.backUp(stream.current().length);
    stream.next();
    return quoted(stream, "'") ? 'string' : 'operator';
  }
  if (stream.match(/^[A-Za-z_][A-Za-z0-9_']*/)) {
    const word = stream.current();
    // A qualifier `M.`: the module name, not the member.
    if (stream.match(/^\.(?=[A-Za-z_(])/, false)) {
      return 'namespace';
    }
    if (KEYWORDS.has(word)) {
      return 'keyword';
    }
    if (PRIMITIVE_TYPES.has(word)) {
      // `builtin` (CodeMirror's standard names): JupyterLab's theme colours it, and the
      // primitive types are Futhark's built-in names.
      return 'builtin';
    }
    if (ATOMS.has(word)) {
      return 'atom';
    }
    return 'variableName';
  }
  if (OPERATOR_CHARS.test(ch)) {
    stream.eatWhile(OPERATOR_CHARS);
    return 'operator';
  }
  stream.next();
  return /[()[\]{},]/.test(ch) ? 'punctuation' : null;
}

export const futhark: StreamParser<State> = {
  name: 'futhark',
  startState: () => ({ attrDepth: 0 }),
  copyState: (s: State) => ({ attrDepth: s.attrDepth }),
  token,
  languageData: {
    commentTokens: { line: '--' },
    closeBrackets: { brackets: ['(', '[', '{', '"'] }
  }
};
