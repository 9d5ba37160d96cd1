"""ruff and mypy, as configured in pyproject.toml, find nothing: the code stays as clean as it was left.

The versions are pinned in the test extras, so a new release with new rules
cannot turn CI red by itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None and subprocess.run([sys.executable, "-m", name, "--version"], capture_output=True,
                                                    check=False).returncode != 0:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return [sys.executable, "-m", name]


def test_ruff_finds_nothing() -> None:
    proc = subprocess.run([*_tool("ruff"), "check", "qosc", "tests", "benchmarks", "scripts"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    proc = subprocess.run([*_tool("mypy"), "qosc"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
