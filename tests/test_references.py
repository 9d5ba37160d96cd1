"""The bundled reference policies ask for nothing (issue 26).

`scripts/compile-references` printed 60 warnings (30 distinct, each by validate and again by compile), which a
newcomer reads as broken.  What a platform does differently from a policy and the user cannot change (IP
precedence matching on the GSR, one WRED ramp, two loss priorities on M-series, ...) is info; a warning asks
for action, and the bundled policies have none; the script prints each diagnostic once.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from qosc import api

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compile-references"
DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (\w+)\[(QOS\d{3})\]: ")
FACTS = {"QOS115", "QOS122", "QOS137", "QOS143", "QOS180", "QOS181", "QOS183", "QOS184", "QOS190", "QOS236",
         "QOS242", "QOS245", "QOS248", "QOS250", "QOS251"}
"""The platform facts the bundled policies meet: info, said once each."""


def _qosc_commands(out: Path) -> Iterator[list[str]]:
    """The qosc commands the script runs (its own lines, OUTDIR and the policy glob expanded as sh would)."""
    for line in SCRIPT.read_text(encoding="utf-8").splitlines():
        if not line.startswith("qosc "):
            continue
        args: list[str] = []
        for word in shlex.split(line.replace('"$out"', shlex.quote(str(out))))[1:]:
            args += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(word)) if "*" in word else [word]
        yield args


def test_compile_references_says_each_platform_fact_once_and_warns_of_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QOSC_CACHE_DIR": str(tmp_path / "cache")}
    printed: list[str] = []
    commands = list(_qosc_commands(tmp_path / "out"))
    assert commands, "the script runs qosc"
    for args in commands:
        proc = subprocess.run([sys.executable, "-m", "qosc", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        assert proc.returncode == 0, proc.stderr
        printed += [line for line in proc.stderr.splitlines() if DIAGNOSTIC.match(line)]
    twice = [line for line, n in Counter(printed).items() if n > 1]
    assert not twice, f"{len(twice)} diagnostics printed more than once, e.g. {twice[0]}"
    found = {m.groups() for m in map(DIAGNOSTIC.match, printed) if m}
    assert found == {("info", code) for code in FACTS}, sorted(found)


def test_bundled_policies_pass_strict() -> None:
    """--strict fails on warnings, never on info: the bundled policies pass it."""
    for path in sorted((ROOT / "policies").glob("*.yaml")):
        result = api.validate(path)
        assert result.ok, path
        assert [str(d.message) for d in result.diagnostics if d.severity.value != "info"] == [], path.name
