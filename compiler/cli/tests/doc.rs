//! `futhark-rs doc`: a library and a program that imports it become one page per file and
//! an index; exported names appear with their signatures and doc comments (markup rendered,
//! HTML escaped), `local` ones do not, members of module types and sealed modules are
//! nested (a sealed member documented by its spec), and a file with a type error stops the
//! command before anything is written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VEC: &str = "-- | Small vectors in three dimensions.
--
-- Everything here is `f32`.

-- | A point or a direction.
type vec = {x: f32, y: f32, z: f32}

-- | The dot product of `a` and `b`; **commutative**.
def dot (a: vec) (b: vec) : f32 = a.x*b.x + a.y*b.y + a.z*b.z

-- | Not exported.
local def helper (x: f32) = x

-- | Operations on things with a size.
module type sized = {
  -- | The thing.
  type t
  -- | How big it is (< 10).
  val size : t -> i64
}

-- | Counts as sized things.
module count : sized with t = i64 = {
  type t = i64
  def size (n: t) = n
}
";

const MAIN: &str = "import \"lib/vec\"
-- | The norm of a vector.
entry norm (x: f32) (y: f32) (z: f32) = f32.sqrt (dot {x,y,z} {x,y,z})
";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("futhark-doc-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("lib")).unwrap();
    d
}

fn doc(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_futhark-rs"))
        .current_dir(cwd)
        .arg("doc")
        .args(args)
        .output()
        .expect("futhark-rs runs")
}

#[test]
fn pages_and_index_from_doc_comments() {
    let d = dir("pages");
    std::fs::write(d.join("lib/vec.fut"), VEC).unwrap();
    std::fs::write(d.join("main.fut"), MAIN).unwrap();
    let out = doc(&d, &["-o", "html", "lib", "main.fut"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(d.join("html/lib/vec.html")).unwrap();
    let main = std::fs::read_to_string(d.join("html/main.html")).unwrap();
    let index = std::fs::read_to_string(d.join("html/index.html")).unwrap();
    for want in [
        "<p>Small vectors in three dimensions.</p>",
        "<p>Everything here is <code>f32</code>.</p>",
        "<pre><code>def dot (a: vec) (b: vec) : f32</code></pre>",
        "<p>The dot product of <code>a</code> and <code>b</code>; <strong>commutative</strong>.</p>",
        "id=\"sized.size\"",
        "<pre><code>val size : t -&gt; i64</code></pre>",
        "<p>How big it is (&lt; 10).</p>",
        "<a href=\"../index.html\">Index</a>",
    ] {
        assert!(page.contains(want), "missing {want:?} in\n{page}");
    }
    assert!(
        !page.contains("helper") && !page.contains("Not exported"),
        "{page}"
    );
    // The sealed module's member has no comment of its own: the spec's documents it.
    let count_size = &page[page.find("id=\"count.size\"").expect("count.size")..];
    assert!(count_size.contains("How big it is"), "{count_size}");
    // Sections come in source order.
    let order: Vec<usize> = ["id=\"vec\"", "id=\"dot\"", "id=\"sized\"", "id=\"count\""]
        .iter()
        .map(|a| page.find(a).unwrap_or_else(|| panic!("{a}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(main.contains("<p>The norm of a vector.</p>"), "{main}");
    for want in [
        "<a href=\"lib/vec.html\"><code>lib/vec.fut</code></a></dt><dd>Small vectors in three dimensions.</dd>",
        "<a href=\"lib/vec.html#dot\"><code>dot</code></a> <span class=\"kind\">function</span></dt><dd>The dot product of a and b; commutative.</dd>",
        "<a href=\"main.html#norm\"><code>norm</code></a> <span class=\"kind\">entry point</span>",
        "<a href=\"lib/vec.html#count.size\"><code>count.size</code></a>",
    ] {
        assert!(index.contains(want), "missing {want:?} in\n{index}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_type_error_writes_nothing() {
    let d = dir("error");
    std::fs::write(d.join("bad.fut"), "-- | Bad.\ndef f (x: i32) : bool = x\n").unwrap();
    let out = doc(&d, &["-o", "html", "bad.fut"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.fut:2"), "{err}");
    assert!(err.contains("no documentation written"), "{err}");
    assert!(!d.join("html").exists());
    let _ = std::fs::remove_dir_all(&d);
}
