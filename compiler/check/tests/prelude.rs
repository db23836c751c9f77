//! The embedded prelude must check without errors.

use futhark_check::CheckContext;
use futhark_check::render::render;

#[test]
fn prelude_checks_cleanly() {
    let ctx = CheckContext::new();
    let mut shown = Vec::new();
    for d in ctx.prelude_diagnostics() {
        let f = ctx.prelude_files().iter().find(|f| f.file == d.span.file);
        let (path, text) = f.map(|f| (f.path, f.source)).unwrap_or(("?", ""));
        shown.push(render(d, path, text));
    }
    for s in &shown {
        eprintln!("{s}\n");
    }
    let errors = ctx
        .prelude_diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .count();
    assert_eq!(errors, 0, "{} prelude diagnostics", shown.len());
}
