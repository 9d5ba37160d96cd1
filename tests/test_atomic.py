"""A compile interrupted at any filesystem step leaves the output directory exactly as it was.

Every mutating step of qosc.emit (mkdir, temporary file, write, hard link,
rename, the renameat2 exchange) is counted during a recompile that changes
files, adds files and creates a directory; then the recompile is repeated
with the n-th step failing, for every n, and the directory must be
byte-for-byte what it was before: old files intact, no new file, no temporary
file, no new directory, and no work directory left beside it.  (Killing the
process at every step, and planted temporary state, are in test_publish.py.)
"""

from __future__ import annotations

import errno
import hashlib
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qosc import emit
from qosc.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_scale import change_one_device, generate  # noqa: E402
from helpers import tree_digests  # noqa: E402

STEPS = ("_mkdir", "_open", "_write", "_link", "_rename", "_exchange")


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QOSC_CACHE_DIR", str(tmp_path / "cache"))


def snapshot(root: Path) -> dict[str, Any]:
    """Every entry under root, hidden ones included: files by content digest and mode, directories as such."""
    return tree_digests(root) or {}


class Injector:
    """Wraps every emit step; the `fail_at`-th call (1-based) raises `error` instead of doing the step."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail_at: int | None = None,
                 error: Callable[[], BaseException] = lambda: OSError(errno.ENOSPC, "No space left on device"),
                 when: Callable[[str, tuple[Any, ...]], bool] | None = None) -> None:
        self.calls: list[str] = []
        self.fail_at, self.error, self.when = fail_at, error, when
        for name in STEPS:
            monkeypatch.setattr(emit, name, self._wrap(name, getattr(emit, name)))

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if (self.fail_at is not None and len(self.calls) == self.fail_at) or (self.when and self.when(name, args)):
                raise self.error()
            return real(*args, **kwargs)
        return step


def compile_(capsys: pytest.CaptureFixture[str], policy: Path, out: Path, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["compile", "-q", "-j", "1", str(policy), "-o", str(out), *extra])
    return code, capsys.readouterr().err


@pytest.fixture
def setup(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path, dict[str, Any], dict[str, Any]]:
    """(policy path holding version 2, output dir holding version 1's output, snapshot of v1, full output of v2)."""
    policy = tmp_path / "p.yaml"
    v1 = generate(7)
    policy.write_text(v1)
    out = tmp_path / "out"
    assert compile_(capsys, policy, out)[0] == 0
    before = snapshot(out)
    v2 = change_one_device(change_one_device(v1, "r00000.example.net"), "r00005.example.net")
    v2 = v2.replace("  r00003.example.net:", "  new1.example.net:\n    platform: linux\n    interfaces:\n"
                    "      eth0: {profile: edge-1g}\n      eth1: {profile: core-10g}\n  r00003.example.net:")
    policy.write_text(v2)
    want = tmp_path / "want"
    assert compile_(capsys, policy, want, "--no-cache")[0] == 0
    return policy, out, before, snapshot(want)


def _restore(out: Path, before: dict[str, Any], pristine: Path) -> None:
    shutil.rmtree(out)
    shutil.copytree(pristine, out, copy_function=shutil.copy2)
    assert snapshot(out) == before


@pytest.mark.slow
@pytest.mark.parametrize("cache, fallback", [(True, False), (False, False), (True, True)],
                         ids=["cache", "no-cache", "two-renames"])
def test_failing_any_write_leaves_the_directory_as_it_was(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, setup: Any,
                                                          cache: bool, fallback: bool) -> None:
    policy, out, before, want = setup
    extra = () if cache else ("--no-cache",)
    if fallback:  # without renameat2: a failure between the two renames puts the old tree back
        monkeypatch.setenv("QOSC_PUBLISH_TWO_RENAMES", "1")
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine, copy_function=shutil.copy2)
    with monkeypatch.context() as m:  # count the steps of the successful recompile
        counter = Injector(m)
        assert compile_(capsys, policy, out, *extra)[0] == 0
    steps = len(counter.calls)
    assert snapshot(out) == want
    assert {"_mkdir", "_open", "_write", "_link", "_exchange"} <= set(counter.calls), counter.calls
    for n in range(1, steps + 1):
        _restore(out, before, pristine)
        with monkeypatch.context() as m:
            injector = Injector(m, fail_at=n)
            code, err = compile_(capsys, policy, out, *extra)
        assert (code, len(injector.calls) >= n) == (2, True), (n, err)
        assert "cannot write" in err and "Traceback" not in err
        assert snapshot(out) == before, f"step {n} ({injector.calls[n - 1]}) left the directory changed"
        assert not list(tmp_path.glob(".qosc-work-*")), n
    _restore(out, before, pristine)
    assert compile_(capsys, policy, out, *extra)[0] == 0
    assert snapshot(out) == want


def test_interrupt_at_any_step_leaves_the_directory_as_it_was(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, setup: Any) -> None:
    policy, out, before, _want = setup
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine, copy_function=shutil.copy2)
    with monkeypatch.context() as m:
        counter = Injector(m)
        assert compile_(capsys, policy, out, "--no-cache")[0] == 0
    for n in range(1, len(counter.calls) + 1, 3):
        _restore(out, before, pristine)
        with monkeypatch.context() as m:
            Injector(m, fail_at=n, error=KeyboardInterrupt)
            code, err = compile_(capsys, policy, out, "--no-cache")
        assert code == 130 and "interrupted" in err
        assert snapshot(out) == before, n


def test_failure_in_a_worker_process_leaves_the_directory_as_it_was(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    setup: Any) -> None:
    """With --jobs 2 the files are staged by the workers; a failure there is cleaned up all the same."""
    policy, out, before, _ = setup
    Injector(monkeypatch, when=lambda name, args: name == "_open" and "new1" in str(args))
    capsys.readouterr()
    code = main(["compile", "-q", "-j", "2", str(policy), "-o", str(out), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write" in err, err
    assert snapshot(out) == before


def test_nothing_is_written_when_the_policy_has_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                         setup: Any) -> None:
    policy, out, before, _ = setup
    policy.write_text(re.sub(r"edge-1g\}", "edge-1g, speed: fast}", policy.read_text(), count=1))
    code, err = compile_(capsys, policy, out)
    assert code == 1 and "QOS014" in err
    assert snapshot(out) == before
    fresh = tmp_path / "fresh"
    assert compile_(capsys, policy, fresh)[0] == 1 and not fresh.exists()


def test_transaction_api_is_all_or_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old\n")
    with pytest.raises(OSError), emit.Transaction(out) as tx:
        tx.add("keep.txt", "new\n")
        tx.add("sub/dir/new.txt", "x\n")
        Injector(monkeypatch, when=lambda name, args: name == "_exchange")
        tx.commit()
    old = hashlib.sha256(b"old\n").hexdigest()
    assert snapshot(out) == {"keep.txt": f"{old} {(out / 'keep.txt').stat().st_mode:o}"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    for escape in ("../escape.txt", "/etc/passwd", "a/../../escape.txt"):
        with pytest.raises(ValueError), emit.Transaction(out) as tx:
            tx.add(escape, "x")
    assert not (tmp_path / "escape.txt").exists()
