"""Render `screenshots/hero.svg` to `screenshots/hero.png`, the README's hero image.

    uv run python scripts/hero_png.py

The README shows the PNG, not the SVG: the package index renders the README from
the sdist, where a relative image shows only if it is a plain picture that the
index can display, and an SVG of Textual's (web fonts, CSS) is not that. The PNG
is drawn by headless Chromium (Debian's `chromium`, as `.ci/install-browser`
installs) at twice the SVG's size, and carries the SHA-256 of the SVG it was
drawn from in a `tEXt` chunk (`acp-tui-source-sha256`), so that
`tests/test_packaging.py` fails when `hero.svg` is regenerated and the PNG is not.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
SVG: Final = ROOT / "screenshots" / "hero.svg"
PNG: Final = ROOT / "screenshots" / "hero.png"
SOURCE_KEY: Final = b"acp-tui-source-sha256"
_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
_VIEWBOX: Final = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')
BROWSERS: Final = ("chromium", "chromium-browser", "google-chrome")


def svg_digest(svg: bytes) -> str:
    """The SHA-256 of the SVG, as the PNG records it."""
    return hashlib.sha256(svg).hexdigest()


def png_chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """Every chunk of a PNG as (type, data); raises ValueError if it is not one."""
    if not png.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    chunks: list[tuple[bytes, bytes]] = []
    at = len(_SIGNATURE)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        data = png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        if zlib.crc32(kind + data) != crc or len(data) != length:
            raise ValueError(f"bad {kind!r} chunk at byte {at}")
        chunks.append((kind, data))
        at += 12 + length
    return chunks


def recorded_source(png: bytes) -> str | None:
    """The SVG digest recorded in the PNG, if any."""
    for kind, data in png_chunks(png):
        if kind == b"tEXt" and data.startswith(SOURCE_KEY + b"\0"):
            return data[len(SOURCE_KEY) + 1 :].decode("latin-1")
    return None


def with_source(png: bytes, digest: str) -> bytes:
    """The PNG with a `tEXt` chunk recording `digest`, right after its header."""
    data = SOURCE_KEY + b"\0" + digest.encode("latin-1")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"tEXt" + data))
    header_end = len(_SIGNATURE) + 12 + 13  # IHDR is first and 13 bytes long
    return png[:header_end] + chunk + png[header_end:]


def main() -> int:
    """Render the PNG; 1 if no browser is found or it draws nothing."""
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        print("no chromium found (bash .ci/install-browser installs one)")
        return 1
    svg = SVG.read_bytes()
    size = _VIEWBOX.search(svg.decode("utf-8"))
    if size is None:
        print(f"{SVG}: no viewBox")
        return 1
    width, height = (round(float(value)) for value in size.groups())
    with tempfile.TemporaryDirectory() as scratch:
        shot = Path(scratch) / "hero.png"
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--force-device-scale-factor=2",
                f"--window-size={width},{height}",
                f"--screenshot={shot}",
                f"--user-data-dir={Path(scratch) / 'profile'}",
                SVG.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        if not shot.is_file():
            print("chromium wrote no screenshot")
            return 1
        PNG.write_bytes(with_source(shot.read_bytes(), svg_digest(svg)))
    print(f"wrote {PNG.relative_to(ROOT)} ({PNG.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
