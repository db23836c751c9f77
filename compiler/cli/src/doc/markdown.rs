//! The Markdown of doc comments, as HTML: paragraphs (blank-line separated), fenced code
//! blocks (```` ``` ````), indented code blocks (four spaces), bulleted lists (`-` or `*`),
//! and inline `code`, *emphasis* and **strong** text. Everything else is text, escaped.

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Text without inline markup (for one-line summaries).
pub fn plain(s: &str) -> String {
    s.chars().filter(|c| *c != '`' && *c != '*').collect()
}

/// Inline markup of one run of text: `code` first (its content is literal), then `**…**`
/// and `*…*` in what is left.
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('`') {
        let Some(j) = rest[i + 1..].find('`') else {
            break;
        };
        out.push_str(&emphasis(&rest[..i]));
        out.push_str("<code>");
        out.push_str(&escape(&rest[i + 1..i + 1 + j]));
        out.push_str("</code>");
        rest = &rest[i + 2 + j..];
    }
    out.push_str(&emphasis(rest));
    out
}

fn emphasis(s: &str) -> String {
    let e = escape(s);
    let e = pairs(&e, "**", "strong");
    pairs(&e, "*", "em")
}

/// Replaces `mark…mark` pairs (with text between) by `<tag>…</tag>`.
fn pairs(s: &str, mark: &str, tag: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(mark) {
        let after = &rest[i + mark.len()..];
        match after.find(mark) {
            Some(j) if j > 0 => {
                out.push_str(&rest[..i]);
                out.push_str(&format!("<{tag}>{}</{tag}>", &after[..j]));
                rest = &after[j + mark.len()..];
            }
            _ => {
                out.push_str(&rest[..i + mark.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn to_html(doc: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = doc.lines().collect();
    let mut i = 0;
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            out.push_str(&format!("<p>{}</p>\n", inline(&para.join(" "))));
            para.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        if t.starts_with("```") {
            flush(&mut para, &mut out);
            let mut code = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                code.push(lines[i]);
                i += 1;
            }
            out.push_str(&format!(
                "<pre><code>{}</code></pre>\n",
                escape(&code.join("\n"))
            ));
            i += 1;
        } else if line.starts_with("    ") && para.is_empty() {
            let mut code = Vec::new();
            while i < lines.len() && (lines[i].starts_with("    ") || lines[i].trim().is_empty()) {
                code.push(lines[i].get(4..).unwrap_or(""));
                i += 1;
            }
            while code.last().is_some_and(|l| l.trim().is_empty()) {
                code.pop();
            }
            out.push_str(&format!(
                "<pre><code>{}</code></pre>\n",
                escape(&code.join("\n"))
            ));
        } else if t.starts_with("- ") || t.starts_with("* ") {
            flush(&mut para, &mut out);
            out.push_str("<ul>\n");
            while i < lines.len() {
                let t = lines[i].trim_start();
                if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
                    out.push_str(&format!("<li>{}</li>\n", inline(item)));
                } else if !t.is_empty() && lines[i].starts_with(' ') {
                    // A continuation line of the item before.
                    if out.ends_with("</li>\n") {
                        out.truncate(out.len() - "</li>\n".len());
                        out.push_str(&format!(" {}</li>\n", inline(t)));
                    }
                } else {
                    break;
                }
                i += 1;
            }
            out.push_str("</ul>\n");
        } else if t.is_empty() {
            flush(&mut para, &mut out);
            i += 1;
        } else {
            para.push(t);
            i += 1;
        }
    }
    flush(&mut para, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_code_lists_and_inline_markup() {
        let doc = "Sums `xs` *fast*.\nReally **fast**.\n\n```\nlet y = x < 2\n```\n\n- one\n- two `t`\n\n    indented <code>\n\nEnd & done.";
        assert_eq!(
            to_html(doc),
            "<p>Sums <code>xs</code> <em>fast</em>. Really <strong>fast</strong>.</p>\n\
             <pre><code>let y = x &lt; 2</code></pre>\n\
             <ul>\n<li>one</li>\n<li>two <code>t</code></li>\n</ul>\n\
             <pre><code>indented &lt;code&gt;</code></pre>\n\
             <p>End &amp; done.</p>\n"
        );
    }

    #[test]
    fn unmatched_marks_stay_text() {
        assert_eq!(to_html("a * b and `c"), "<p>a * b and `c</p>\n");
        assert_eq!(to_html("x ** y"), "<p>x ** y</p>\n");
    }
}
