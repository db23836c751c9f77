//! Developer aid: `FUT_FILE=path cargo test -p futhark-check --test one -- --nocapture`
//! checks one file and prints its diagnostics (and, with `FUT_TYPES=1`, its definitions).

mod common;

use common::Loader;
use futhark_check::CheckContext;

#[test]
fn check_one_file() {
    let Ok(path) = std::env::var("FUT_FILE") else {
        return;
    };
    let ctx = CheckContext::new();
    let mut loader = Loader::new(&ctx);
    let c = loader.check_path(std::path::Path::new(&path));
    for (p, errs) in &loader.import_errors {
        eprintln!("import {}: {} errors", p.display(), errs.len());
    }
    for r in c.rendered() {
        eprintln!("{r}\n");
    }
    if std::env::var("FUT_TYPES").is_ok()
        && let Some(res) = &c.result
    {
        let mut defs: Vec<_> = res.info.defs.iter().collect();
        defs.sort_by_key(|(s, _)| s.start);
        for (_, d) in defs {
            eprintln!(
                "{} : {}{}",
                d.vname.name(),
                futhark_check::pretty::tparams_prefix(&d.tparams),
                d.ty
            );
        }
    }
}
