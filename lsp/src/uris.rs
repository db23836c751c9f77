//! Mapping between the client's URIs and the database's paths. Files on disk map to their
//! paths; the prelude's virtual `/prelude/…` files map to copies written once into a
//! cache directory (so any editor can open them); other schemes (`untitled:`) get a
//! virtual path of their own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::Uri;

use futhark_ide::{PRELUDE_DIR, PRELUDE_FILES, is_prelude_path};

#[derive(Clone, Debug, Default)]
pub struct UriMap {
    /// Where the prelude's copies live, if they could be written.
    prelude_dir: Option<PathBuf>,
    virtual_paths: HashMap<Uri, PathBuf>,
    virtual_uris: HashMap<PathBuf, Uri>,
}

impl UriMap {
    pub fn new(prelude_dir: Option<PathBuf>) -> UriMap {
        UriMap {
            prelude_dir,
            ..UriMap::default()
        }
    }

    /// The database path of `uri`, registering a virtual path for a non-file URI.
    pub fn path_of_or_register(&mut self, uri: &Uri) -> PathBuf {
        if let Some(path) = self.path_of(uri) {
            return path;
        }
        let name: String = uri
            .as_str()
            .rsplit(['/', ':'])
            .next()
            .unwrap_or("buffer")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = PathBuf::from(format!("/untitled/{}/{name}", self.virtual_paths.len()));
        self.virtual_paths.insert(uri.clone(), path.clone());
        self.virtual_uris.insert(path.clone(), uri.clone());
        path
    }

    /// The database path of `uri`, if it has one.
    pub fn path_of(&self, uri: &Uri) -> Option<PathBuf> {
        if let Some(path) = self.virtual_paths.get(uri) {
            return Some(path.clone());
        }
        if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
            return None;
        }
        let path = uri.to_file_path()?.into_owned();
        if let Some(dir) = &self.prelude_dir
            && let Ok(rest) = path.strip_prefix(dir)
        {
            return Some(Path::new(PRELUDE_DIR).join(rest));
        }
        Some(path)
    }

    /// The URI to show the client for a database path.
    pub fn uri_of(&self, path: &Path) -> Option<Uri> {
        if let Some(uri) = self.virtual_uris.get(path) {
            return Some(uri.clone());
        }
        if is_prelude_path(path)
            && let Some(dir) = &self.prelude_dir
            && let Ok(rest) = path.strip_prefix(PRELUDE_DIR)
        {
            return Uri::from_file_path(dir.join(rest));
        }
        Uri::from_file_path(path)
    }
}

/// Writes the prelude's files into a per-version cache directory (read-only), returning
/// the directory, or `None` if it cannot be written.
pub fn materialize_prelude() -> Option<PathBuf> {
    let dir = std::env::temp_dir()
        .join(format!("futhark-lsp-{}", env!("CARGO_PKG_VERSION")))
        .join("prelude");
    std::fs::create_dir_all(&dir).ok()?;
    for (path, text) in PRELUDE_FILES {
        let name = Path::new(path).file_name()?;
        let target = dir.join(name);
        if std::fs::read_to_string(&target).is_ok_and(|old| old == text) {
            continue;
        }
        if let Ok(meta) = std::fs::metadata(&target) {
            let mut perms = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            let _ = std::fs::set_permissions(&target, perms);
        }
        std::fs::write(&target, text).ok()?;
        if let Ok(meta) = std::fs::metadata(&target) {
            let mut perms = meta.permissions();
            perms.set_readonly(true);
            let _ = std::fs::set_permissions(&target, perms);
        }
    }
    Some(dir)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::str::FromStr;

    use tower_lsp_server::ls_types::Uri;

    use super::UriMap;

    #[test]
    fn file_uris_round_trip() {
        let map = UriMap::new(None);
        let uri = Uri::from_file_path("/work/a b/main.fut").expect("uri");
        let path = map.path_of(&uri).expect("path");
        assert_eq!(path, PathBuf::from("/work/a b/main.fut"));
        assert_eq!(map.uri_of(&path), Some(uri));
    }

    #[test]
    fn prelude_maps_to_its_copy() {
        let map = UriMap::new(Some(PathBuf::from("/cache/prelude")));
        let uri = map.uri_of(Path::new("/prelude/soacs.fut")).expect("uri");
        assert_eq!(uri.as_str(), "file:///cache/prelude/soacs.fut");
        assert_eq!(map.path_of(&uri), Some(PathBuf::from("/prelude/soacs.fut")));
    }

    #[test]
    fn untitled_buffers_get_virtual_paths() {
        let mut map = UriMap::new(None);
        let uri = Uri::from_str("untitled:Untitled-1").expect("uri");
        let path = map.path_of_or_register(&uri);
        assert_eq!(map.path_of(&uri), Some(path.clone()));
        assert_eq!(map.uri_of(&path), Some(uri));
    }
}
