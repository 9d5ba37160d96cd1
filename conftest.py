"""Shared test plumbing for tests/ and the tests of each target package: golden files, paths, Hypothesis.

Golden files live in a `golden/` folder beside the test module that checks
them (tests/golden/, qosc/targets/<target>/tests/golden/).  A test whose
output differs writes what it got next to the golden file as `<name>.actual`
(git ignores those) and fails with the diff; run pytest with
--update-golden to rewrite the golden files after reviewing the change.

Every property test draws the same examples on every run (derandomized, no
example database), so a red CI names a change and not a lucky draw: the
Hypothesis profile "ci", sized so the fuzz keeps to its share of scripts/test.
The profile "deep" explores: new examples every run, ten times as many, failures
kept in .hypothesis/ and replayed first (QOSC_FUZZ=deep, or pytest
--hypothesis-profile=deep; README "Tests").  QOSC_FUZZ_RANDOM=1 draws new
examples at the ci size, QOSC_FUZZ_SCALE=x multiplies any profile's numbers.

scripts/test runs the suite on parallel workers (pytest-xdist, `-n auto
--dist loadgroup`): auto is more workers than cores here, the suite waits on
timers, peers and real traffic as much as it computes (pytest_xdist_auto_num_workers);
tests marked `slow` are handed out first so no long one starts last; tests
that must not overlap share an xdist_group (the lab's rate measurements, one
after the other on one worker), as do the tests of a module with a
module-scoped fixture (made once, not once per worker that meets the module).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent
settings.register_profile("ci", derandomize=os.environ.get("QOSC_FUZZ_RANDOM", "") in ("", "0"), database=None)
settings.register_profile("deep", derandomize=False, max_examples=1000)  # 10x: helpers.fuzz_examples scales by it
settings.load_profile(os.environ.get("QOSC_FUZZ") or "ci")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: three workers more than cores (at least 5): much of the suite waits (the lab's iperf3 runs of fixed
    length on one worker for 7 minutes, push peers' confirm timers and deadlines, subprocesses), so a worker per
    core alone would leave the cores idle much of the time.  PYTEST_XDIST_AUTO_NUM_WORKERS=N says otherwise."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return max(5, (os.cpu_count() or 1) + 3)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist: the tests of a module with a module-scoped fixture (a compile, a 100 MB file, a peer) run on one
    worker, so the fixture is made once and not again each time a worker comes back to the module; and the `slow`
    tests come first (a stable sort, the same on every worker): a long test handed out last would keep one worker
    busy after the others are done."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        if any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None,
                                 item.get_closest_marker("xdist_group") is None))


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # xdist: hand work out in the order above, not biggest group first
        config.option.loadscopereorder = False


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {settings.get_current_profile_name()} (QOSC_FUZZ=deep explores; conftest.py)"


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
