"""qosc import against hostile file names and ambiguous device names, through the command line.

- The `# Imported by qosc from ...` header names the configurations as given; a file name holding a newline
  (or any YAML line break, control character, invalid UTF-8) cannot end the comment: the written policy
  parses to the same policy whatever the file is called.
- Two configurations under one device name are an error located at the later one (QOS187), and nothing is
  written.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from qosc.behaviour.roundtrip import ROOT, load, outputs
from qosc.commands.importing import header

EVIL = "hosts: {evil: {platform: linux, interfaces: {eth0: {speed: 1G}}}}"
NAMES = [
    f"r1\n{EVIL}\n#.conf",  # the issue's: a newline, then YAML
    f"r1\r{EVIL}\r#.conf",
    f"r1\r\n{EVIL}\r\n#.conf",
    f"r1\x85{EVIL}\u2028#\u2029.conf",  # line breaks of YAML 1.1 beyond \r and \n
    "r1\x01\x1b[31m\x7f\x9b.conf",  # control characters a YAML reader refuses anywhere in a stream
    "\ufeffr1\u202egnp.conf\u200b",  # a byte order mark, a bidi override, a zero-width space
    'r1 "quoted", \\ back\tslash #.conf',
    os.fsdecode(b"r1-\xff\xfe-not-utf8.conf"),  # what Python makes of a name that is not UTF-8
]


def qosc(*args: str | bytes) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=env,
                          check=False, cwd=ROOT)


def _config(tmp: Path, device: str, suffix: str) -> str:
    return next(o.text for o in outputs(load("assured-rate.yaml"), device) if o.path.endswith(suffix))


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_a_file_name_cannot_inject_yaml_into_the_imported_policy(tmp_path: Path, name: str) -> None:
    text = _config(tmp_path, "edge-mx", ".conf")
    plain, hostile = tmp_path / "plain", tmp_path / "hostile"
    plain.mkdir()
    hostile.mkdir()
    (plain / "r1.conf").write_text(text)
    (hostile / name).write_text(text)
    want = qosc("import", f"junos-mx:{plain / 'r1.conf'}@edge-mx", "-o", str(plain / "p.yaml"))
    assert want.returncode == 0, want.stderr
    got = qosc("import", os.fsencode(f"junos-mx:{hostile / name}@edge-mx"), "-o", str(hostile / "p.yaml"))
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr
    written = (hostile / "p.yaml").read_text(encoding="utf-8")
    first, rest = written.split("\n", 1)
    assert first.startswith("# Imported by qosc from ") and rest == (plain / "p.yaml").read_text().split("\n", 1)[1]
    assert yaml.safe_load(written) == yaml.safe_load((plain / "p.yaml").read_text())
    assert "evil" not in yaml.safe_load(written).get("hosts", {})
    check = qosc("validate", str(hostile / "p.yaml"))
    assert check.returncode == 0, check.stderr


CHARS = st.one_of(st.characters(exclude_characters="\0"), st.sampled_from("\n\r\x85\u2028\u2029\t\\\"'"),
                  st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF, categories=["Cs"]))
"""Any character a file name can hold, line breaks and the surrogates of bytes that are not UTF-8 often."""


@given(st.lists(st.text(CHARS), min_size=1, max_size=3))
def test_the_header_is_one_comment_line_whatever_the_names(specs: list[str]) -> None:
    line = header(specs)
    assert line.endswith("\n") and line[:-1].isprintable() and line.startswith("# Imported by qosc from ")
    line.encode("utf-8")  # surrogates (names that are not UTF-8) are escaped, not written
    assert yaml.safe_load(line + "x: 1\n") == {"x": 1}
    # every name is there, quoted and escaped as a Python string literal would be, and can be read back
    assert ast.literal_eval("[" + line.removeprefix("# Imported by qosc from ") + "]") == specs


@pytest.mark.parametrize("how", ["named", "file names", "case"])
def test_two_configurations_under_one_device_name_are_an_error(tmp_path: Path, how: str) -> None:
    mx = tmp_path / "a" / "r1.conf"
    xe = tmp_path / "b" / ("r1.cfg" if how != "case" else "R1.cfg")
    for path, device, suffix in ((mx, "edge-mx", ".conf"), (xe, "asr-1", ".cfg")):
        path.parent.mkdir()
        path.write_text(_config(tmp_path, device, suffix))
    specs = [f"junos-mx:{mx}", f"ios-xe:{xe}"]
    if how == "named":
        specs = [f"{specs[0]}@r1", f"{specs[1]}@r1"]
    out = tmp_path / "p.yaml"
    run = qosc("import", *specs, "-o", str(out))
    assert run.returncode == 2, run.stderr
    second = "R1" if how == "case" else "r1"
    said = f"{xe}:1:1: error[QOS187]: import: configurations {specs[0]!r} and {specs[1]!r} are both device {second!r}"
    assert said in run.stderr, run.stderr
    assert ("(names differing only by case)" in run.stderr) == (how == "case")
    assert "hint: give each configuration its own device name" in run.stderr and not out.exists()
