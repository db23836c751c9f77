//! Reading data files from disk, gunzipping those whose name ends in `.gz`.

use std::io::Read;
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::DataError;
use crate::text_read::read_values;
use crate::value::Value;

/// The contents of a file, decompressed when its name ends in `.gz`.
pub fn read_file_bytes(path: &Path) -> Result<Vec<u8>, DataError> {
    let io_err = |source| DataError::Io {
        path: Some(path.to_path_buf()),
        source,
    };
    let raw = std::fs::read(path).map_err(io_err)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        MultiGzDecoder::new(raw.as_slice())
            .read_to_end(&mut out)
            .map_err(io_err)?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// Every value in the file at `path` (text and binary may be mixed; `.gz` files are gunzipped).
/// Errors in the contents name the file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<Value>, DataError> {
    let path = path.as_ref();
    let bytes = read_file_bytes(path)?;
    read_values(&bytes).map_err(|e| DataError::InFile {
        path: path.to_path_buf(),
        source: Box::new(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("futhark-values-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir.join(name)
    }

    #[test]
    fn plain_and_gzipped() {
        let plain = temp("a.in");
        std::fs::write(&plain, b"1 [2i64, 3i64]").unwrap();
        let vs = read_file(&plain).unwrap();
        assert_eq!(vs.len(), 2);

        let gz = temp("a.in.gz");
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(b"true\n[1.5f32]").unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let vs = read_file(&gz).unwrap();
        assert_eq!(vs, vec![Value::scalar(true), Value::from(vec![1.5f32])]);
    }

    #[test]
    fn errors_name_the_file() {
        let bad = temp("bad.in");
        std::fs::write(&bad, b"1\n[2, x]").unwrap();
        let e = read_file(&bad).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("bad.in: line 2, column 5"), "{msg}");
        assert_eq!(e.innermost().offset(), Some(6));

        let missing = read_file(temp("missing.in")).unwrap_err();
        assert!(matches!(missing, DataError::Io { .. }));

        let not_gz = temp("notgz.in.gz");
        std::fs::write(&not_gz, b"1 2 3").unwrap();
        assert!(matches!(read_file(&not_gz), Err(DataError::Io { .. })));
    }
}
