//! Results as HTML for notebooks: vectors and matrices of primitives as tables (values
//! without type suffixes: the caption gives the type once); everything else as
//! preformatted text. [`caption_type`] is the shape and type a face puts in its one caption.

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
        return table(d, opts);
    }
    format!(
        "<pre class=\"futhark-value\">{}</pre>",
        escape(&shown.text.text)
    )
}

/// The shape and type of a value for a caption: an array's actual shape and element type
/// (`[2][3]f32`), anything else its type (without the uniqueness mark).
pub fn caption_type(shown: &Shown) -> String {
    match &shown.value {
        ValueView::Prim(d) if d.rank() >= 1 => {
            format!("{}{}", shape_text(d.shape()), d.elem_type().name())
        }
        _ => shown.ty.trim_start_matches('*').to_string(),
    }
}

/// Whether [`shown_html`] shows a part of the value only.
pub fn table_abbreviated(shown: &Shown, opts: FormatOptions) -> bool {
    match &shown.value {
        ValueView::Prim(d) if d.rank() == 1 || d.rank() == 2 => d.len() > opts.threshold.min(400),
        _ => shown.text.abbreviated,
    }
}

/// A table entry: the value without its type suffix (`2.5`, `nan`, `-inf`).
fn bare(text: String) -> String {
    for t in ["f16", "f32", "f64"] {
        if let Some(rest) = text.strip_prefix(t).and_then(|r| r.strip_prefix('.')) {
            return rest.to_string();
        }
        if let Some(rest) = text.strip_prefix('-').and_then(|r| r.strip_prefix(t)) {
            return format!("-{}", rest.trim_start_matches('.'));
        }
        if let Some(rest) = text.strip_suffix(t) {
            return rest.to_string();
        }
    }
    text
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

fn table(d: &Data, opts: FormatOptions) -> String {
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
                        escape(&bare(elem_text(d.data(), i)))
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
        let s = v.map(|v| shown(v, "*[2][2]i32"));
        let html = s
            .as_ref()
            .map(|s| shown_html(s, FormatOptions::default()))
            .unwrap_or_default();
        assert!(html.contains("<table"), "{html}");
        assert!(
            !html.contains("<caption"),
            "one caption, the face's: {html}"
        );
        assert_eq!(s.map(|s| caption_type(&s)).as_deref(), Some("[2][2]i32"));
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

    #[test]
    fn table_floats_have_no_suffix() {
        let v = Data::from_vec(vec![3], vec![1.5f32, f32::NAN, f32::NEG_INFINITY]).ok();
        let html = v
            .map(|v| shown_html(&shown(v, "[3]f32"), FormatOptions::default()))
            .unwrap_or_default();
        for cell in [">1.5<", ">nan<", ">-inf<"] {
            assert!(html.contains(cell), "{cell} in {html}");
        }
        assert!(!html.contains("f32"), "{html}");
    }
}
