//! `futhark-rs literate`: the fixtures under `tests/fixtures/literate` are run in a scratch
//! directory and their Markdown compared with the expected files written beside them (the
//! format of the reference tool: comments as text, code in `futhark` blocks, each directive
//! in a plain block followed by its result); pictures are decoded and their pixels checked;
//! failing directives are located and shown as **FAILED** (or stop the run with
//! `--stop-on-error`); malformed directives and missing files are errors at their place.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/literate")
}

/// A scratch directory holding copies of the fixtures `names`.
fn scratch(test: &str, names: &[&str]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("futhark-literate-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory");
    for n in names {
        std::fs::copy(fixtures().join(n), d.join(n)).expect("fixture copied");
    }
    d
}

fn literate(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .arg("literate")
        .args(args)
        .output()
        .expect("futhark-rs runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes a PNG: width, height, colour type and pixels.
fn png_pixels(path: &Path) -> (u32, u32, png::ColorType, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    (info.width, info.height, info.color_type, buf)
}

/// The picture names the Markdown links to, in order.
fn links(md: &str, dir: &str) -> Vec<String> {
    md.lines()
        .filter_map(|l| l.strip_prefix(&format!("![]({dir}/")))
        .filter_map(|l| l.strip_suffix(')'))
        .map(str::to_string)
        .collect()
}

#[test]
fn values_tuples_records_and_multi_line_directives() {
    let d = scratch("values", &["values.fut"]);
    let out = literate(&d, &["values.fut"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        read(&d.join("values.md")),
        read(&fixtures().join("values.md"))
    );
    // Nothing was drawn, so there is no picture directory.
    assert!(!d.join("values-img").exists());
}

#[test]
fn brief_and_covert_directives() {
    let d = scratch("brief", &["brief.fut"]);
    let out = literate(&d, &["brief.fut"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        read(&d.join("brief.md")),
        read(&fixtures().join("brief.md"))
    );
    // `file:` names the picture: [[0, 1], [1, 0]] as grey.
    let (w, h, colour, px) = png_pixels(&d.join("brief-img/grid.png"));
    assert_eq!((w, h, colour), (2, 2, png::ColorType::Grayscale));
    assert_eq!(px, vec![0, 255, 255, 0]);
}

#[test]
fn images_and_plots_are_written_and_linked() {
    let d = scratch("pictures", &["pictures.fut"]);
    let out = literate(&d, &["pictures.fut"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = read(&d.join("pictures.md"));
    let names = links(&md, "pictures-img");
    assert_eq!(names.len(), 4, "{md}");
    let hashed = |n: &str, kind: &str| {
        n.strip_suffix(&format!("-{kind}.png"))
            .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    assert!(hashed(&names[0], "img"), "{}", names[0]);
    assert_eq!(names[1], "colours.png");
    assert!(
        hashed(&names[2], "plot") && hashed(&names[3], "plot"),
        "{names:?}"
    );
    assert_ne!(names[2], names[3]);
    let img = d.join("pictures-img");
    // [3][4]bool: true is white, false black.
    let (w, h, _, px) = png_pixels(&img.join(&names[0]));
    assert_eq!((w, h), (4, 3));
    assert_eq!(&px[..4], &[255, 0, 255, 0]);
    assert_eq!(&px[4..8], &[0, 255, 0, 255]);
    // [2][2]u32 as RGB.
    let (_, _, colour, px) = png_pixels(&img.join("colours.png"));
    assert_eq!(colour, png::ColorType::Rgb);
    assert_eq!(px, vec![255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]);
    // Plots: the default size, and the size asked for.
    let (w, h, _, _) = png_pixels(&img.join(&names[2]));
    assert_eq!((w, h), (500, 500));
    let (w, h, _, _) = png_pixels(&img.join(&names[3]));
    assert_eq!((w, h), (300, 200));
    // The directive and comment text are there too.
    assert!(md.starts_with("Pictures of arrays.\n"), "{md}");
    assert!(
        md.contains("```\n> :plot2d {up = rising, down = falling};\nsize: (300,200)\n```\n"),
        "{md}"
    );

    // A second run names the pictures the same, and removes pictures no directive made.
    std::fs::write(img.join("stale.png"), b"old").expect("written");
    let again = literate(&d, &["pictures.fut"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(read(&d.join("pictures.md")), md);
    assert!(!img.join("stale.png").exists());
}

#[test]
fn builtins_load_images_and_data_relative_to_the_program() {
    let d = scratch(
        "load",
        &[
            "pictures.fut",
            "load.fut",
            "numbers.in",
            "numbers_and_offset.in",
        ],
    );
    // The picture `load.fut` reads is drawn by `pictures.fut`; both run from elsewhere.
    let sub = d.join("elsewhere");
    std::fs::create_dir_all(&sub).expect("directory");
    let out = literate(&sub, &["../pictures.fut"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = literate(&sub, &["../load.fut"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = read(&d.join("load.md"));
    let results: Vec<&str> = md
        .split("```\n")
        .filter(|b| !b.starts_with('>') && !b.trim().is_empty() && !b.starts_with("```futhark"))
        .map(str::trim)
        .collect();
    assert_eq!(
        results,
        [
            "(2i64, 2i64, 16711680u32, 16777215u32)",
            "[1i32, 2i32, 3i32]",
            "[11i32, 12i32, 13i32]"
        ],
        "{md}"
    );
}

#[test]
fn failing_directives_are_located_and_shown_as_failed() {
    let d = scratch("errors", &["errors.fut"]);
    let out = literate(&d, &["errors.fut"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let md = read(&d.join("errors.md"));
    let failed: Vec<&str> = md.split("**FAILED**\n```\n").skip(1).collect();
    assert_eq!(failed.len(), 5, "{md}");
    // A type error at the argument, in the program's coordinates.
    assert!(failed[0].starts_with("errors.fut:5:"), "{}", failed[0]);
    // A run-time error where it happened, in `pick`.
    assert!(failed[1].starts_with("errors.fut:3:"), "{}", failed[1]);
    assert!(
        failed[2].contains(":video") && failed[2].contains("ffmpeg"),
        "{}",
        failed[2]
    );
    assert!(
        failed[3].starts_with("errors.fut:12:6") && failed[3].contains("missing.in"),
        "{}",
        failed[3]
    );
    // A value that is no picture.
    assert!(
        failed[4].starts_with(":img needs a [][]u32"),
        "{}",
        failed[4]
    );
    assert!(failed[4].contains("got i32"), "{}", failed[4]);
    // The directives after the failures still ran.
    assert!(
        md.ends_with("```\n> inc 1\n```\n\n```\n2i32\n```\n"),
        "{md}"
    );
    // Standard error says which directives failed, where.
    assert!(
        stderr.contains("errors.fut:5:1: directive `> inc 2f32` failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("errors.fut:9:1: directive `> :video inc;` failed"),
        "{stderr}"
    );
}

#[test]
fn stop_on_error_writes_nothing() {
    let d = scratch("stop", &["errors.fut"]);
    let out = literate(&d, &["--stop-on-error", "errors.fut"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("errors.fut:5:1: directive `> inc 2f32` failed"),
        "{stderr}"
    );
    assert!(stderr.contains("--stop-on-error"), "{stderr}");
    // It stopped at the first failure.
    assert!(!stderr.contains("> pick"), "{stderr}");
    assert!(!d.join("errors.md").exists());
}

#[test]
fn output_names_the_markdown_and_the_picture_directory() {
    let d = scratch("output", &["brief.fut"]);
    // The directory `docs` is made.
    let out = literate(&d, &["brief.fut", "-o", "docs/page.md"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = read(&d.join("docs/page.md"));
    assert!(md.contains("![](page-img/grid.png)"), "{md}");
    assert!(d.join("docs/page-img/grid.png").is_file());
    assert!(!d.join("brief.md").exists());
}

#[test]
fn malformed_directives_and_missing_files_are_errors() {
    let d = scratch("malformed", &[]);
    std::fs::write(
        d.join("bad.fut"),
        "def x = 1\n\n-- > :img x;\n-- colour: red\n",
    )
    .expect("written");
    let out = literate(&d, &["bad.fut"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.fut:4:4: malformed directive"),
        "{stderr}"
    );
    assert!(stderr.contains("file"), "{stderr}");
    assert!(!d.join("bad.md").exists());

    std::fs::write(d.join("unknown.fut"), "-- > :sound x\n").expect("written");
    let out = literate(&d, &["unknown.fut"]);
    assert!(text(&out.stderr).contains("unknown directive `:sound`"));

    let out = literate(&d, &["absent.fut"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot read absent.fut"),
        "{}",
        text(&out.stderr)
    );

    // A program with a type error is reported as such, before any directive runs.
    std::fs::write(d.join("ill.fut"), "def x : i32 = true\n\n-- > x\n").expect("written");
    let out = literate(&d, &["ill.fut"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("ill.fut"),
        "{}",
        text(&out.stderr)
    );
    assert!(!d.join("ill.md").exists());
}
