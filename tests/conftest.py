"""Shared test plumbing: golden files and paths.

Golden files live under tests/golden/<target>/; run pytest with
--update-golden to rewrite them after reviewing the change.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from the current output")


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """golden(relpath, text): compare text with tests/golden/relpath (or rewrite it with --update-golden)."""
    update = request.config.getoption("--update-golden")

    def check(relpath: str, text: str) -> None:
        path = GOLDEN / relpath
        if update or not path.exists():
            if not update:
                pytest.fail(f"golden file {path} is missing; run pytest --update-golden and review it")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        expected = path.read_text(encoding="utf-8")
        if expected != text:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                f"golden/{relpath}", "generated"))
            pytest.fail(f"output differs from golden file {relpath}:\n{diff}")

    return check


@pytest.fixture
def root() -> Path:
    return ROOT
