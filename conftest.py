"""Shared test plumbing for tests/ and the tests of each target package: golden files, paths, Hypothesis.

Golden files live in a `golden/` folder beside the test module that checks
them (tests/golden/, qosc/targets/<target>/tests/golden/).  A test whose
output differs writes what it got next to the golden file as `<name>.actual`
(git ignores those) and fails with the diff; run pytest with
--update-golden to rewrite the golden files after reviewing the change.

Every property test draws the same examples on every run (derandomized, no
example database), so a red CI names a change and not a lucky draw;
QOSC_FUZZ_RANDOM=1 draws new ones to explore (tests/test_fuzz.py says how).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent
settings.register_profile("qosc", derandomize=os.environ.get("QOSC_FUZZ_RANDOM", "") in ("", "0"), database=None)
settings.load_profile("qosc")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from the current output")


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """golden(relpath, text): compare text with golden/relpath beside the test (or rewrite it with --update-golden)."""
    update = request.config.getoption("--update-golden")
    folder = request.path.parent / "golden"

    def check(relpath: str, text: str) -> None:
        path = folder / relpath
        actual = path.with_name(path.name + ".actual")
        if update or not path.exists():
            if not update:
                pytest.fail(f"golden file {path} is missing; run pytest --update-golden and review it")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            actual.unlink(missing_ok=True)
            return
        expected = path.read_text(encoding="utf-8")
        if expected == text:
            actual.unlink(missing_ok=True)
            return
        actual.write_text(text, encoding="utf-8")
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"golden/{relpath}", "generated"))
        pytest.fail(f"output differs from golden file {relpath} (what it got is in {actual}):\n{diff}")

    return check


@pytest.fixture
def root() -> Path:
    return ROOT
