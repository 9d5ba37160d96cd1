"""Several compiles into one output directory at once: the output is always one compile's whole tree.

Real processes, real files: two policies that differ in one share are
compiled into the same out/ by processes started together, round after round
(with the cache, whose "this file is intact" judgement is also made against
out/, and without it).  After every round out/ must be exactly one policy's
full compile, never b's JUNOS files beside a's IOS and Linux files, and every
compile must have succeeded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import tree_digests

from qosc import emit

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 6
WRITERS = 4
"""Compiles started together in each round, alternating between the two policies."""


def _start(policy: Path, out: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "qosc", "compile", "-q", "-j", "1", str(policy), "-o", str(out),
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **env})


@pytest.mark.slow
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_concurrent_compiles_publish_one_whole_tree(tmp_path: Path, cache: bool) -> None:
    text = (ROOT / "policies" / "assured-rate.yaml").read_text()
    share = "queue: {share: 40%, buffer: 40%, priority: high}"
    assert text.count(share) == 2
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(text)
    b.write_text(text.replace(share, share.replace("40%,", "39%,", 1), 1))
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    extra = () if cache else ("--no-cache",)
    want = {}
    for policy in (a, b):
        alone = _start(policy, tmp_path / f"want-{policy.stem}", env, "--no-cache")
        assert alone.wait(timeout=300) == 0, alone.communicate()[1]
        want[policy.stem] = tree_digests(tmp_path / f"want-{policy.stem}")
    differ = {k for k in want["a"] if want["a"][k] != want["b"].get(k)}
    assert {k.split("/")[0] for k in differ} >= {"junos", "ios-mqc", "linux-tc"}, differ  # one share, every target
    out = tmp_path / "out"
    for n in range(ROUNDS):
        procs = [_start((a, b)[i % 2], out, env, *extra) for i in range(WRITERS)]
        for proc in procs:
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, (n, err)
        now = tree_digests(out)
        assert now in (want["a"], want["b"]), (
            f"round {n}: a tree neither compile produced; from a: "
            f"{sorted(k for k in differ if now and now.get(k) == want['a'][k])}, "
            f"from b: {sorted(k for k in differ if now and now.get(k) == want['b'].get(k))}")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".qosc-work")) == []


def test_a_compile_waits_for_the_lock_and_judges_the_output_after_the_switch(tmp_path: Path) -> None:
    """Deterministic: a transaction holds out/'s lock; a compile started meanwhile says it waits, and only once
    the transaction has published does it judge what out/ holds: the result is exactly its own full compile."""
    policy = ROOT / "policies" / "assured-rate.yaml"
    want = tmp_path / "want"
    alone = _start(policy, want, {}, "--no-cache")
    assert alone.wait(timeout=300) == 0
    out = tmp_path / "out"
    shutil.copytree(want, out)
    with emit.Transaction(out) as tx:
        compile_ = subprocess.Popen([sys.executable, "-m", "qosc", "compile", "-j", "1", str(policy), "-o", str(out),
                                     "--no-cache"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert compile_.stderr is not None
        line = compile_.stderr.readline()
        assert line == f"qosc: waiting for another compile into {out} to finish\n", line
        tx.add("junos/edge-mx.conf", "edited by someone else\n")
        tx.add("junos/stray.conf", "a file the compile does not make\n")
        assert tx.commit()
    _, err = compile_.communicate(timeout=300)
    assert compile_.returncode == 0, err
    now = tree_digests(out)
    assert now and now.pop("junos/stray.conf") and now == tree_digests(want)  # (stray files are kept, as always)


@pytest.mark.parametrize("how", ["replaced", "removed"])
def test_an_output_replaced_behind_the_lock_is_not_switched(tmp_path: Path, how: str) -> None:
    """A writer that does not take the lock (another user's qosc, a hand) replaces or removes out/ while a
    transaction stages: the transaction publishes nothing rather than a tree judged against the old out/."""
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "one.txt").write_text("1\n")
    (out / "a" / "two.txt").write_text("2\n")
    with emit.Transaction(out) as tx:
        tx.add("a/one.txt", "1\n")  # unchanged: not staged, linked from out/ at the switch
        tx.add("a/two.txt", "2 new\n")
        shutil.move(out, tmp_path / "theirs-old")
        if how == "replaced":
            (out / "a").mkdir(parents=True)
            (out / "a" / "one.txt").write_text("theirs\n")
        with pytest.raises(OSError, match="replaced or removed by another process during this compile"):
            tx.commit()
    if how == "replaced":  # theirs, as they left it
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == ["a", "a/one.txt"]
        assert (out / "a" / "one.txt").read_text() == "theirs\n"
    else:
        assert not out.exists()
    assert not (tmp_path / f"{emit.WORK_PREFIX}{os.geteuid()}").exists()
