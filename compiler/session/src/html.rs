//! Results as HTML for notebooks: vectors and matrices of primitives as tables with their
//! shape and type in the caption; everything else as preformatted text.

use futhark_values::Value as Data;

use crate::format::{FormatOptions, elem_text, shape_text};
use crate::outcome::Shown;
use crate::value::ValueView;

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The HTML of a shown value.
pub fn shown_html(shown: &Shown, opts: FormatOptions) -> String {
    if let ValueView::Prim(d) = &shown.value
        && (d.rank() == 1 || d.rank() == 2)
        && !d.is_empty()
    {
        return table(d, &shown.ty, opts);
    }
    format!(
        "<pre class=\"futhark-value\">{}</pre><div class=\"futhark-type\"><code>: {}</code></div>",
        escape(&shown.text.text),
        escape(&shown.ty)
    )
}

/// Row or column indices to show out of `n` (`None` is the gap).
fn keep(n: usize, abbreviate: bool, edge: usize) -> Vec<Option<usize>> {
    if abbreviate && n > 2 * edge {
        (0..edge)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - edge..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

fn table(d: &Data, ty: &str, opts: FormatOptions) -> String {
    let shape = d.shape();
    let (rows, cols) = if shape.len() == 1 {
        (1, shape[0].max(0) as usize)
    } else {
        (shape[0].max(0) as usize, shape[1].max(0) as usize)
    };
    // Tables are for looking at: abbreviate earlier than text does.
    let abbreviate = d.len() > opts.threshold.min(400);
    let edge = opts.edge.max(5);
    let rs = keep(rows, abbreviate, edge);
    let cs = keep(cols, abbreviate, edge);
    let mut out = String::from(
        "<table class=\"futhark-array\" style=\"font-family: monospace; border-collapse: collapse\">",
    );
    out.push_str(&format!(
        "<caption style=\"caption-side: bottom; text-align: left\">{}{} &mdash; type <code>{}</code>{}</caption>",
        shape_text(shape),
        d.elem_type().name(),
        escape(ty),
        if abbreviate { " (abbreviated)" } else { "" }
    ));
    out.push_str("<thead><tr><th></th>");
    for c in &cs {
        match c {
            Some(c) => out.push_str(&format!("<th>{c}</th>")),
            None => out.push_str("<th>&hellip;</th>"),
        }
    }
    out.push_str("</tr></thead><tbody>");
    for r in &rs {
        out.push_str("<tr>");
        match r {
            Some(r) if shape.len() == 2 => out.push_str(&format!("<th>{r}</th>")),
            Some(_) => out.push_str("<th></th>"),
            None => out.push_str("<th>&vellip;</th>"),
        }
        for c in &cs {
            match (r, c) {
                (Some(r), Some(c)) => {
                    let i = r * cols + c;
                    out.push_str(&format!(
                        "<td style=\"text-align: right\">{}</td>",
                        escape(&elem_text(d.data(), i))
                    ));
                }
                _ => out.push_str("<td>&hellip;</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::format_value;

    fn shown(v: Data, ty: &str) -> Shown {
        let value = ValueView::Prim(v);
        let text = format_value(&value, FormatOptions::default());
        Shown {
            value,
            ty: ty.into(),
            text,
        }
    }

    #[test]
    fn matrices_are_tables_with_shape_and_type() {
        let v = Data::from_vec(vec![2, 2], vec![1i32, 2, 3, 4]).ok();
        let html = v
            .map(|v| shown_html(&shown(v, "[2][2]i32"), FormatOptions::default()))
            .unwrap_or_default();
        assert!(html.contains("<table"), "{html}");
        assert!(
            html.contains("[2][2]i32 &mdash; type <code>[2][2]i32</code>"),
            "{html}"
        );
        assert!(
            html.contains("<td style=\"text-align: right\">4</td>"),
            "{html}"
        );
    }

    #[test]
    fn scalars_are_text() {
        let html = shown_html(
            &shown(Data::scalar(1.5f32), "f32"),
            FormatOptions::default(),
        );
        assert!(
            html.starts_with("<pre class=\"futhark-value\">1.5f32</pre>"),
            "{html}"
        );
    }
}
