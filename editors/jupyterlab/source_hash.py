"""The hash of the extension's sources (package.json, package-lock.json, tsconfig.json,
src/*.ts), which build.sh records in prebuilt/SOURCE_HASH: the Jupyter tests compare it
with the sources, so a change to them without a rebuild of the committed prebuilt/ fails."""

import hashlib
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def source_hash() -> str:
    files = [HERE / "package.json", HERE / "package-lock.json", HERE / "tsconfig.json"]
    files += sorted((HERE / "src").glob("*.ts"))
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(HERE).as_posix().encode() + b"\0")
        h.update(f.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()


if __name__ == "__main__":
    sys.stdout.write(source_hash() + "\n")
