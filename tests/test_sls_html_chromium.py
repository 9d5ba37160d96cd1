"""The SLS HTML opened in a real browser: headless Chromium parses the tables and renders the SVG charts.

Needs Debian's chromium (scripts/system-packages installs it).  Under CI=true a missing Chromium fails
the run; on a developer machine the tests skip with the reason.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio",
         "--host-resolver-rules=MAP * ~NOTFOUND")


def chromium() -> str:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed, so the SLS HTML cannot be checked in a browser "
                    "(scripts/test installs the Debian package 'chromium' from scripts/system-packages)")
    pytest.skip("chromium is not installed (apt-get install chromium, or run scripts/test as root)")


def browse(html: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    proc = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args, html.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sls-html")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for policy in ("policies/assured-rate.yaml", "policies/geant-lbe.yaml"):
        proc = subprocess.run([sys.executable, "-m", "qosc", "sls", policy, "--format", "html", "-o",
                               str(out / Path(policy).stem)], cwd=ROOT, capture_output=True, text=True,
                              timeout=120, env=env, check=False)
        assert proc.returncode == 0, proc.stderr
    return out


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Dom(HTMLParser):
    """The elements of a DOM dump with their attributes, and the text inside each table and svg."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        self.stack: list[str] = []
        self.text: dict[str, list[str]] = {}
        self.current: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.elements.append((tag, values, tuple(self.stack)))
        if tag not in VOID:
            self.stack.append(tag)
        if tag in ("table", "svg"):
            key = f"{tag}#{values.get('id') or values.get('class', '')}#{len(self.text)}"
            self.text[key] = []
            self.current.append(key)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        if tag in ("table", "svg") and self.current:
            self.current.pop()

    def handle_data(self, data: str) -> None:
        for key in self.current:
            self.text[key].append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a, _ in self.elements if t == tag and all(a.get(k) == v for k, v in attrs.items())]

    def inside(self, tag: str, parent: str) -> list[dict[str, str]]:
        return [a for t, a, stack in self.elements if t == tag and parent in stack]

    def table_text(self, table_id: str) -> str:
        return " ".join(" ".join(v) for k, v in self.text.items() if k.startswith(f"table#{table_id}#"))


def dump(html: Path, tmp_path: Path) -> Dom:
    dom = Dom()
    dom.feed(browse(html, tmp_path, "--dump-dom").stdout)
    return dom


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Width, height, bytes per pixel and rows of an 8-bit RGB/RGBA PNG (no external imaging library)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if ctype == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    assert header is not None
    w, h, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        kind = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev, strict=False))
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def pixels(rows: list[bytes], bpp: int, colour: str) -> int:
    rgb = bytes.fromhex(colour.lstrip("#"))
    return sum(1 for row in rows for x in range(0, len(row), bpp) if row[x:x + 3] == rgb)


def test_premium_sls_tables_and_charts_in_chromium(documents: Path, tmp_path: Path) -> None:
    page = documents / "assured-rate" / "ip-premium.html"
    dom = dump(page, tmp_path)
    assert [a.get("id") for a in dom.find("table") if a.get("id")] == [
        "identity", "rules", "declared", "path", "interfaces", "verdicts", "reliability"]
    # the path table: a header and the three declared hops
    assert len(dom.inside("tr", "table")) >= 4
    path = dom.table_text("path")
    # every hop is sized by its target (issue 17): the JUNOS shaper's and the IOS policer's numbers
    assert "junos: sigma / C = 64000 B x 8 / 1 Gbit/s + F / C = 512 µs + 1500 B x 8 / 1 Gbit/s = 524 µs" in path
    assert "junos: sigma / C = 64000 B x 8 / 10 Gbit/s + F / C = 51.2 µs + 1500 B x 8 / 10 Gbit/s = 52.4 µs" in path
    assert ("ios-mqc: sigma / C = 64000 B x 8 / 2.5 Gbit/s + F / C = 204.8 µs + 1500 B x 8 / 2.5 Gbit/s = "
            "209.6 µs") in path
    assert "not scheduled" not in path  # premium's path avoids core-m, which has no Premium queue
    assert "524 µs + 52.4 µs + 209.6 µs = 786 µs" in dom.table_text("verdicts")
    # one SVG chart per distinct interface allocation on the path, parsed by the browser as SVG
    charts = dom.find("svg", **{"class": "allocation"})
    assert len(charts) == 3 and all(c.get("role") == "img" for c in charts)
    shares = [a for a in dom.find("rect") if a.get("class", "").startswith("share")]
    assert [a["data-service"] for a in shares if a["class"] == "share current"] == ["ip-premium"] * 3
    assert sorted({a["data-service"] for a in shares}) == ["assured", "best-effort", "ip-premium", "lbe",
                                                           "network-control"]
    edge = shares[:5]
    assert [(a["data-service"], a["data-share"]) for a in edge] == [
        ("best-effort", "40.0"), ("assured", "40.0"), ("ip-premium", "10.0"), ("lbe", "1.0"),
        ("network-control", "5.0")]
    assert not dom.find("script") and not dom.find("img") and not dom.find("link")

    # and it is drawn: a screenshot holds the colours of the stacked bars
    shot = tmp_path / "premium.png"
    # tall enough for the whole page: the per-hop formulas of sized hops (junos, ios-mqc, linux-tc) wrap over lines
    browse(page, tmp_path, "--window-size=900,6400", "--force-device-scale-factor=0.5", "--hide-scrollbars",
           f"--screenshot={shot}")
    w, h, bpp, rows = decode_png(shot.read_bytes())
    assert (w, h) == (450, 3200)
    premium = pixels(rows, bpp, "#59a14f")   # ip-premium's colour: three 10% segments and the legend swatches
    best_effort = pixels(rows, bpp, "#4e79a7")  # best effort: three 40% segments
    assert premium > 200, premium
    assert best_effort > 4 * premium, (best_effort, premium)


def test_lbe_sls_in_chromium(documents: Path, tmp_path: Path) -> None:
    dom = dump(documents / "geant-lbe" / "lbe.html", tmp_path)
    assert [a.get("id") for a in dom.find("table") if a.get("id")] == ["identity", "interfaces"]
    assert "0% × 2.5 Gbit/s = 0 bit/s" in dom.table_text("interfaces")
    assert len(dom.find("svg", **{"class": "allocation"})) == 1
    current = [a for a in dom.find("rect") if a.get("class") == "share current"]
    assert [(a["data-service"], a["data-share"]) for a in current] == [("lbe", "0.0")]
    assert float(current[0]["width"]) >= 2  # a zero share is still drawn as a visible marker
    assert dom.find("ul", id="transparency")
