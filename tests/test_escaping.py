"""Issue 18: diagnostics escape control characters and cap echoed values, in every output format.

A key holding a newline used to forge a complete extra diagnostic line, ESC sequences reached the terminal and a
30 MB value was echoed whole.  Each case goes through the real command line (`python -m qosc validate`) and the
output is checked line by line: one diagnostic per line (text: plus its hint line), nothing raw.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BASE

from qosc.diagnostics import ECHO_LIMIT, Location, clean, error, format_github, format_json, format_text, shown

ROOT = Path(__file__).resolve().parent.parent
FORGED = "qosc: 1\nx.yaml:1:1: error[QOS999]: forged"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def validate(path: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "qosc", "validate", "--format", fmt, str(path)], capture_output=True,
                          text=True, env=env, check=False, timeout=120)


def lines_of(done: subprocess.CompletedProcess[str], fmt: str) -> list[str]:
    """The diagnostic lines (text goes to stderr, json and github to stdout), checked for shape; json decoded."""
    lines = (done.stderr if fmt == "text" else done.stdout).splitlines()
    assert not any(RAW.search(line) for line in lines), lines
    if fmt == "text":
        assert all(re.match(r"\S+:\d+:\d+: (error|warning|info)\[QOS\d{3}\]: |  hint: ", line) for line in lines), lines
    elif fmt == "json":
        objects = [json.loads(line) for line in lines]
        assert all(isinstance(o, dict) for o in objects), lines
        lines = [f"{o['file']}:{o['line']}: {o['code']}: {o['message']}" for o in objects]
        assert not any(RAW.search(line) or "\n" in line for line in lines), lines
    else:
        assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines), lines
    return lines


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_key_with_a_newline_cannot_forge_a_diagnostic(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(BASE + json.dumps(FORGED + "\x1b[2J\u202e") + ": 1\n", encoding="utf-8")
    done = validate(path, fmt)
    assert done.returncode == 1, done.stderr
    lines = lines_of(done, fmt)
    assert not any(line.startswith(("x.yaml", "::error file=x.yaml")) for line in lines)
    diag = [line for line in lines if "QOS010" in line]
    assert len(diag) == 1 and "\\nx.yaml:1:1" in diag[0] and "\\x1b[2J" in diag[0] and "\\u202e" in diag[0]


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_huge_value_is_echoed_capped(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(BASE.replace("kind: lbe", "kind: " + "x\u202e" * 1_000_000), encoding="utf-8")
    done = validate(path, fmt)
    assert done.returncode == 1, done.stderr
    lines = lines_of(done, fmt)
    assert len(done.stdout + done.stderr) < 2000 and any("\u2026" in line for line in lines)
    assert any("QOS013" in line for line in lines)


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "a\nb.yaml:1:1: error[QOS999]: forged.yaml"
    path.write_text(BASE + "unknown: 1\n", encoding="utf-8")
    done = validate(path, fmt)
    lines = lines_of(done, fmt)
    assert len([line for line in lines if "QOS010" in line]) == 1


def test_clean_and_shown() -> None:
    assert clean("a\nb\rc\td\x1be\x85f\u202eg\u2028h") == "a\\nb\\rc\\td\\x1be\\x85f\\u202eg\\u2028h"
    assert shown("k" * 1000) == "'" + "k" * ECHO_LIMIT + "\u2026'"
    assert shown("a\nb") == "'a\\nb'" and shown(7) == "7" and shown(1e308) == "1e+308"
    d = error("QOS010", "unknown key 'a\nb'", Location("p\n.yaml", 1, 2), "hint\x1b[0m")
    assert "\n" not in format_json(d) and "\x1b" not in format_json(d)
    assert format_text(d) == "p\\n.yaml:1:2: error[QOS010]: unknown key 'a\\nb'\n  hint: hint\\x1b[0m"
    assert "\n" not in format_github(d) and "\x1b" not in format_github(d)
