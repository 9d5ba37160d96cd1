"""Publishing under faults and against planted state: real processes, real files, no mocks.

- `python -m qosc compile` is killed (SIGKILL, via QOSC_FAULT_KILL_AT=N) at
  every publication step N, with renameat2(RENAME_EXCHANGE) and with the
  two-rename fallback: the output directory is then entirely the old tree or
  entirely the new one (compared by the digests of both trees), never a mix,
  with nothing else inside it; the next compile publishes the new tree and
  leaves no work directory behind.
- Temporary state planted by another user (chown 65534), with a loose mode, as
  a symbolic link, or naming paths outside the output, is refused (QOS105) and
  never replayed: nothing outside the output changes, and the output neither.
- An output subdirectory that is a symbolic link, and device names that
  differ only by case, get a diagnostic.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_scale import change_one_device, generate  # noqa: E402
from helpers import tree_digests  # noqa: E402

from qosc import emit  # noqa: E402

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


digests = tree_digests


def qosc(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "qosc", *args], capture_output=True, text=True, env=full,
                          cwd=cwd, timeout=300, check=False)


def v2_of(v1: str) -> str:
    v2 = change_one_device(change_one_device(v1, "r00000.example.net"), "r00003.example.net")
    return v2.replace("  r00002.example.net:", "  new1.example.net:\n    platform: linux\n    interfaces:\n"
                      "      eth0: {profile: edge-1g}\n      eth1: {profile: core-10g}\n  r00002.example.net:")


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str], dict[str, str]]:
    """(work dir, policy holding v2, pristine copy of out holding v1, digests of v1's out, digests of v2's)."""
    work = tmp_path / "w"
    work.mkdir()
    v1 = generate(4)
    policy = work / "p.yaml"
    policy.write_text(v1)
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(work / "out"),
                env={"QOSC_CACHE_DIR": str(tmp_path / "cache")}).returncode == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(work / "out", pristine, copy_function=shutil.copy2)
    shutil.copytree(tmp_path / "cache", tmp_path / "cache-v1", copy_function=shutil.copy2)
    old = digests(work / "out")
    policy.write_text(v2_of(v1))
    want = tmp_path / "want"
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(want), "--no-cache").returncode == 0
    new = digests(want)
    assert old and new and old != new and new.keys() - old.keys()
    return work, policy, pristine, old, new


def _reset(tmp_path: Path, work: Path, pristine: Path) -> None:
    shutil.rmtree(work / "out")
    shutil.copytree(pristine, work / "out", copy_function=shutil.copy2)
    shutil.rmtree(tmp_path / "cache")
    shutil.copytree(tmp_path / "cache-v1", tmp_path / "cache", copy_function=shutil.copy2)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["exchange", "two-renames"])
def test_kill_at_every_publication_step_leaves_old_or_new(tmp_path: Path, trees: tuple, mode: str) -> None:
    work, policy, pristine, old, new = trees
    out = work / "out"
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    if mode == "two-renames":
        env["QOSC_PUBLISH_TWO_RENAMES"] = "1"
    seen = {"old": 0, "new": 0, "absent": 0}
    n = 0
    while True:
        n += 1
        _reset(tmp_path, work, pristine)
        proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env={**env, "QOSC_FAULT_KILL_AT": str(n)})
        if proc.returncode == 0:
            assert digests(out) == new
            break
        assert proc.returncode == -9, (n, proc.stderr)
        now = digests(out)
        state = "old" if now == old else "new" if now == new else "absent" if now is None else None
        diff = (sorted(set(now or {}) ^ set(old))[:5], sorted(set(now or {}) ^ set(new))[:5])
        assert state is not None, f"step {n}: neither the old nor the new tree: {diff}"
        assert state != "absent" or mode == "two-renames", n  # only the fallback has a window without OUT
        seen[state] += 1
        repair = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env)
        assert repair.returncode == 0, (n, repair.stderr)
        assert digests(out) == new, f"the compile after a kill at step {n} did not publish the new tree"
        assert sorted(p.name for p in work.iterdir()) == ["out", "p.yaml"], n  # no work directory left
    assert n > 12 and seen["old"] > 8 and seen["new"] >= 2, (n, seen)
    assert (seen["absent"] == 1) == (mode == "two-renames"), seen


def test_unchanged_files_keep_their_identity_and_a_noop_compile_touches_nothing(tmp_path: Path,
                                                                              trees: tuple) -> None:
    work, policy, _, old, new = trees
    out = work / "out"
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    root_ino = out.stat().st_ino
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env).returncode == 0
    after = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    kept = {p for p in before if after.get(p) == before[p]}
    changed = {str(p.relative_to(out)) for p in before if p not in kept}
    assert changed == {k for k in old if k in new and old[k] != new[k]}
    assert out.stat().st_ino != root_ino  # the directory was switched, not edited in place
    switched = out.stat().st_ino
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env).returncode == 0
    assert out.stat().st_ino == switched and digests(out) == new  # nothing changed: nothing published


# --- planted temporary state -----------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _plant(work: Path, kind: str, victim: Path) -> Path:
    """Temporary state of a 'dead transaction' on work/out, planted the way `kind` says; returns the planted path."""
    wd = work / f"{emit.WORK_PREFIX}{os.geteuid()}"
    tag = hashlib.blake2b(b"out", digest_size=8).hexdigest()
    name = f"{tag}-{_dead_pid()}"
    root = os.path.realpath(work / "out")
    honest = f"{emit.JOURNAL_HEADER}\nroot {root}\nstage {name}.stage\nswitch\n"
    if kind == "workdir-file":
        wd.write_text("planted\n")
        return wd
    if kind == "workdir-fifo":
        os.mkfifo(wd)
        return wd
    if kind.startswith("workdir"):
        (wd / f"{name}.stage").mkdir(parents=True)
        shutil.copy2(victim, wd / f"{name}.stage" / "victim.txt")
        (wd / f"{name}.journal").write_text(honest)
        os.chmod(wd / f"{name}.journal", 0o600)
        if kind == "workdir-foreign":
            os.chown(wd, NOBODY, NOBODY)
            os.chmod(wd, 0o700)
        elif kind == "workdir-mode":
            os.chmod(wd, 0o777)
        return wd
    if kind == "workdir-link":
        elsewhere = victim.parent
        wd.symlink_to(elsewhere)
        return wd
    wd.mkdir(mode=0o700)
    journal = wd / f"{name}.journal"
    if kind == "journal-link":
        journal.symlink_to(victim)
        return journal
    text = honest if kind != "journal-names-outside" else honest.replace(f"root {root}", f"root {victim.parent}") \
        + f"T{victim}\n"
    if kind == "journal-sub-outside":  # the switched directory named as one outside OUT
        text = honest.replace("switch\n", f"sub ../{os.path.relpath(victim.parent, work)}\nswitch\n")
        (wd / f"{name}.old").mkdir(mode=0o700)
    journal.write_text(text)
    os.chmod(journal, 0o600)
    if kind == "journal-foreign":
        os.chown(journal, NOBODY, NOBODY)
    elif kind == "journal-mode":
        os.chmod(journal, 0o644)
    elif kind == "stage-foreign":
        stage = wd / f"{name}.stage"
        stage.mkdir()
        (stage / "theirs.txt").write_text("not mine\n")
        os.chown(stage, NOBODY, NOBODY)
        return stage
    return journal


@needs_root
@pytest.mark.parametrize("kind", ["journal-foreign", "journal-mode", "journal-link", "journal-names-outside",
                                  "journal-sub-outside",
                                  "stage-foreign", "workdir-foreign", "workdir-mode", "workdir-link", "workdir-file",
                                  "workdir-fifo"])
def test_planted_temporary_state_is_refused_and_never_replayed(tmp_path: Path, trees: tuple, kind: str) -> None:
    work, policy, _, old, _ = trees
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("root's file, not qosc's\n")
    planted = _plant(work, kind, victim)
    around = {p: digests(p) for p in (outside, tmp_path / "cache")}
    wd = work / f"{emit.WORK_PREFIX}{os.geteuid()}"
    state = digests(wd) if not wd.is_symlink() else os.readlink(wd)
    proc = qosc("compile", "-j", "1", str(policy), "-o", str(work / "out"),
                env={"QOSC_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 1, proc.stderr
    assert "error[QOS105]: planted or foreign temporary state refused" in proc.stderr, proc.stderr
    assert str(planted) in proc.stderr and "Traceback" not in proc.stderr
    if kind in ("workdir-file", "workdir-fifo"):  # the planted entry, named in the message
        assert f"refused: work directory {planted} is not a directory" in proc.stderr, proc.stderr
    assert digests(work / "out") == old  # nothing published
    assert {p: digests(p) for p in around} == around  # nothing outside the output changed
    assert (digests(wd) if not wd.is_symlink() else os.readlink(wd)) == state  # the planted state is left alone
    assert os.path.lexists(planted)


@needs_root
def test_a_journal_in_the_system_temp_directory_is_never_read(tmp_path: Path, trees: tuple) -> None:
    """The old predictable journal name, planted by another user: qosc no longer looks there at all."""
    import tempfile

    work, policy, _, _, new = trees
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    tag = hashlib.blake2b(os.path.abspath(work / "out").encode(), digest_size=8).hexdigest()
    planted = Path(tempfile.gettempdir()) / f"qosc-{os.getuid()}-{tag}-{_dead_pid()}.journal"
    planted.write_bytes(f"T{victim}\0".encode())
    os.chown(planted, NOBODY, NOBODY)
    try:
        proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(work / "out"), "--no-cache")
        assert proc.returncode == 0, proc.stderr
        assert victim.read_text() == "keep\n" and planted.exists() and digests(work / "out") == new
    finally:
        planted.unlink()


def test_an_output_subdirectory_that_is_a_symlink_is_refused(tmp_path: Path, trees: tuple) -> None:
    work, policy, _, _, _ = trees
    out = work / "out"
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(out / "junos"), elsewhere)
    (out / "junos").symlink_to(elsewhere)
    before, there = digests(out), digests(elsewhere)
    proc = qosc("compile", "-j", "1", str(policy), "-o", str(out), "--no-cache")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"cannot write to .*: .*/out/junos is a symbolic link", proc.stderr), proc.stderr
    assert digests(out) == before and digests(elsewhere) == there and (out / "junos").is_symlink()


def test_names_that_differ_only_by_case_are_reported(tmp_path: Path) -> None:
    """Devices differing only by case are refused at validation (QOS026); output files that still would (a Linux
    device's interfaces eth0 and ETH0, distinct to the kernel) are QOS107 at the later one; nothing is written."""
    text = generate(4)
    block = re.search(r"(?ms)^  r00003\.example\.net:.*?(?=^  \S|\Z)", text)
    assert block
    policy = tmp_path / "case.yaml"
    policy.write_text(text.replace(block.group(), block.group() + block.group().replace("r00003", "R00003", 1)))
    proc = qosc("compile", "-j", "1", str(policy), "-o", str(tmp_path / "out"), "--no-cache")
    assert proc.returncode == 1, proc.stderr
    assert "error[QOS026]" in proc.stderr and "R00003" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()

    linux = (ROOT / "policies" / "four-service-linux.yaml").read_text()
    iface = "      eth0:\n        role: core\n        speed: 100M\n"
    assert iface in linux
    policy.write_text(linux.replace(iface, iface + iface.replace("eth0", "ETH0"), 1))
    line = policy.read_text()[:policy.read_text().index("      ETH0:")].count("\n") + 2  # its block's first key
    proc = qosc("compile", "-j", "1", str(policy), "-o", str(tmp_path / "out"), "--no-cache")
    assert proc.returncode == 1, proc.stderr
    assert re.search(rf"case\.yaml:{line}:\d+: error\[QOS107\]: output files '[a-z-]+/lab-router/eth0\.\w+' "
                     rf"and '[a-z-]+/lab-router/ETH0\.\w+' differ only by case", proc.stderr), proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_large_old_tree_is_removed_in_the_background(tmp_path: Path) -> None:
    """With REMOVE_LATER_FROM directories or more, a detached process removes the old tree; the caller does not wait."""
    out = tmp_path / "out"
    dirs = emit.REMOVE_LATER_FROM + 6
    for i in range(dirs):
        (out / f"d{i:03d}").mkdir(parents=True)
        (out / f"d{i:03d}" / "f.txt").write_text("old\n")
    script = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
              "from qosc.emit import Transaction\n"
              f"with Transaction({str(out)!r}) as tx:\n"
              "    tx.add('d000/f.txt', 'new\\n'); tx.commit()\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert (out / "d000" / "f.txt").read_text() == "new\n" and (out / "d069" / "f.txt").read_text() == "old\n"
    assert len(list(out.iterdir())) == dirs
    wd = tmp_path / f"{emit.WORK_PREFIX}{os.geteuid()}"
    for _ in range(200):
        if not wd.exists():
            break
        time.sleep(0.1)
    assert not wd.exists(), list(wd.iterdir())
    # a remover that died leaves `<tag>-<pid>.trash`: the next transaction removes it
    tag = hashlib.blake2b(b"out", digest_size=8).hexdigest()
    trash = wd / f"{tag}-{_dead_pid()}.trash"
    (trash / "d000").mkdir(parents=True, mode=0o700)
    wd.chmod(0o700)
    with emit.Transaction(out) as tx:
        tx.add("d001/f.txt", "new\n")
        tx.commit()
    for _ in range(200):
        if not wd.exists():
            break
        time.sleep(0.1)
    assert not wd.exists() and (out / "d001" / "f.txt").read_text() == "new\n"


# --- missing parents of the output directory -------------------------------------------------------


def test_missing_parents_are_made_and_nothing_is_made_for_a_policy_with_an_error(tmp_path: Path) -> None:
    policy = ROOT / "policies" / "assured-rate.yaml"
    want = tmp_path / "want"
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(want), "--no-cache").returncode == 0
    os.umask(old := os.umask(0o002))  # the mode a new directory gets, as mkdir -p
    out = tmp_path / "build" / "qos" / "out"
    proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), "--no-cache")
    assert proc.returncode == 0, proc.stderr
    assert digests(out) == digests(want)
    assert sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "build").rglob("*") if "out" not in p.parts) \
        == ["build/qos"]  # no work directory left beside out/
    for made in (tmp_path / "build", tmp_path / "build" / "qos"):
        assert made.stat().st_mode & 0o7777 == 0o775 & ~old and made.stat().st_uid == os.geteuid()
    broken = tmp_path / "broken.yaml"
    broken.write_text(policy.read_text().replace("priority: low", "prority: low", 1))
    proc = qosc("compile", "-q", "-j", "1", str(broken), "-o", str(tmp_path / "new" / "er" / "out"), "--no-cache")
    assert proc.returncode == 1 and "QOS010" in proc.stderr, proc.stderr
    assert not (tmp_path / "new").exists()  # nothing at all is written for a policy with an error


@pytest.mark.parametrize("planted", ["link", "foreign"])
def test_a_parent_planted_while_it_is_made_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      planted: str) -> None:
    """Another user wins the race for one of the parents qosc makes: a link to elsewhere, or their directory."""
    if planted == "foreign" and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real = os.mkdir

    def racing(path: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        if path == "qos":
            where = Path(os.readlink(f"/proc/self/fd/{dir_fd}")) / "qos"
            if planted == "link":
                where.symlink_to(elsewhere)
            else:
                where.mkdir()
                os.chown(where, NOBODY, NOBODY)
            raise FileExistsError(17, "File exists", path)
        real(path, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "mkdir", racing)
    out = tmp_path / "build" / "qos" / "out"
    with pytest.raises(OSError, match=rf"{re.escape(str(out.parent))}, which qosc was making, is "
                       + ("a symbolic link" if planted == "link" else f"owned by uid {NOBODY}")):
        emit.Transaction(out)
    monkeypatch.undo()
    assert list(elsewhere.iterdir()) == [] and not out.exists()
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == ["qos"]  # theirs, left alone


# --- a change confined to one folder switches that folder only (issue 25) ---------------------------


CONFINED = ("ios-mqc/r00001.example.net.cfg", "ios-mqc/r00003.example.net.cfg")


@pytest.fixture
def confined(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str], dict[str, str]]:
    """As `trees`, but v2 changes two IOS devices only: every change is inside out/ios-mqc."""
    return _confined(tmp_path, ["r00001.example.net", "r00003.example.net"], set(CONFINED))


@pytest.fixture
def one_file(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str], dict[str, str]]:
    """As `trees`, but v2 changes one IOS device, whose configuration is one file."""
    return _confined(tmp_path, ["r00001.example.net"], {CONFINED[0]})


def _confined(tmp_path: Path, devices: list[str], changed: set[str]) -> tuple[Path, Path, Path, dict[str, str],
                                                                                 dict[str, str]]:
    work = tmp_path / "w"
    work.mkdir()
    v1 = generate(6)
    policy = work / "p.yaml"
    policy.write_text(v1)
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(work / "out"), env=env).returncode == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(work / "out", pristine, copy_function=shutil.copy2)
    shutil.copytree(tmp_path / "cache", tmp_path / "cache-v1", copy_function=shutil.copy2)
    old = digests(work / "out")
    v2 = v1
    for name in devices:
        v2 = change_one_device(v2, name)
    policy.write_text(v2)
    want = tmp_path / "want"
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(want), "--no-cache").returncode == 0
    new = digests(want)
    assert old and new and {k for k in new if new[k] != old.get(k)} == changed
    return work, policy, pristine, old, new


def _inodes(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_ino for p in [out, *out.iterdir()]}


def test_a_change_in_one_folder_switches_that_folder_only(tmp_path: Path, confined: tuple) -> None:
    work, policy, _, _, new = confined
    out = work / "out"
    before = _inodes(out)
    files = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env).returncode == 0
    assert digests(out) == new
    after = _inodes(out)
    assert {k for k in before if after[k] != before[k]} == {"ios-mqc"}  # out/ and the other folders are the same
    moved = {str(p.relative_to(out)) for p in files if (p.stat().st_ino, p.stat().st_mtime_ns) != files[p]}
    assert moved == set(CONFINED)  # the others kept their inode, in the new folder
    # a new Linux device alone: its folder is renamed into place, nothing else is switched
    policy.write_text(policy.read_text().replace("  r00001.example.net:", "  new1.example.net:\n    platform: "
                                                 "linux\n    interfaces:\n      eth0: {profile: edge-1g}\n"
                                                 "  r00001.example.net:"))
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env).returncode == 0
    assert _inodes(out) == {**after, "linux-tc": after["linux-tc"]}
    assert sorted(p.name for p in (out / "linux-tc" / "new1.example.net").iterdir()) == ["eth0.tc", "qosc-tc.sh"]
    assert sorted(p.name for p in work.iterdir()) == ["out", "p.yaml"]  # no work directory left


@pytest.mark.parametrize("mode", ["exchange", "two-renames"])
def test_kill_at_every_step_of_a_folder_switch_leaves_old_or_new(tmp_path: Path, confined: tuple,
                                                                 mode: str) -> None:
    work, policy, pristine, old, new = confined
    out = work / "out"
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    if mode == "two-renames":
        env["QOSC_PUBLISH_TWO_RENAMES"] = "1"
    gone = {k: v for k, v in old.items() if not k.startswith("ios-mqc/")}  # the window: out/ios-mqc absent
    seen = {"old": 0, "new": 0, "absent": 0}
    n = 0
    while True:
        n += 1
        _reset(tmp_path, work, pristine)
        root = out.stat().st_ino
        proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env={**env, "QOSC_FAULT_KILL_AT": str(n)})
        if proc.returncode == 0:
            assert digests(out) == new
            break
        assert proc.returncode == -9, (n, proc.stderr)
        now = digests(out)
        state = "old" if now == old else "new" if now == new else "absent" if now == gone else None
        assert state is not None, f"step {n}: neither the old nor the new tree"
        assert state != "absent" or mode == "two-renames", n
        assert out.stat().st_ino == root  # only out/ios-mqc is ever switched
        seen[state] += 1
        repair = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env)
        assert repair.returncode == 0, (n, repair.stderr)
        assert digests(out) == new, f"the compile after a kill at step {n} did not publish the new tree"
        assert sorted(p.name for p in work.iterdir()) == ["out", "p.yaml"], n
    assert seen["old"] >= 3 and seen["new"] >= 2, (n, seen)  # (journal, staging, link; switched, cleanup)
    assert (seen["absent"] == 1) == (mode == "two-renames"), seen


def test_one_changed_file_is_renamed_over_its_old_version(tmp_path: Path, one_file: tuple) -> None:
    """A device of one file (IOS) changed alone: no folder is switched, the new file is renamed over the old."""
    work, policy, _, _, new = one_file
    out = work / "out"
    before = _inodes(out)
    files = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    assert qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env).returncode == 0
    assert digests(out) == new
    assert _inodes(out) == before  # out/ and every folder, out/ios-mqc included, are the same directories
    moved = {str(p.relative_to(out)) for p in files if (p.stat().st_ino, p.stat().st_mtime_ns) != files[p]}
    assert moved == {CONFINED[0]}
    assert sorted(p.name for p in work.iterdir()) == ["out", "p.yaml"]  # no work directory left


@pytest.mark.parametrize("mode", ["exchange", "two-renames"])
def test_kill_at_every_step_of_a_file_switch_leaves_old_or_new(tmp_path: Path, one_file: tuple, mode: str) -> None:
    """rename(2) replaces the file in one step, with renameat2 or without: never a window without it."""
    work, policy, pristine, old, new = one_file
    out = work / "out"
    env = {"QOSC_CACHE_DIR": str(tmp_path / "cache")}
    if mode == "two-renames":
        env["QOSC_PUBLISH_TWO_RENAMES"] = "1"
    seen = {"old": 0, "new": 0}
    n = 0
    while True:
        n += 1
        _reset(tmp_path, work, pristine)
        folder = (out / "ios-mqc").stat().st_ino
        proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env={**env, "QOSC_FAULT_KILL_AT": str(n)})
        if proc.returncode == 0:
            assert digests(out) == new
            break
        assert proc.returncode == -9, (n, proc.stderr)
        now = digests(out)
        state = "old" if now == old else "new" if now == new else None
        assert state is not None, f"step {n}: neither the old nor the new tree"
        assert (out / "ios-mqc").stat().st_ino == folder  # no folder is ever switched
        seen[state] += 1
        repair = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out), env=env)
        assert repair.returncode == 0, (n, repair.stderr)
        assert digests(out) == new, f"the compile after a kill at step {n} did not publish the new tree"
        assert sorted(p.name for p in work.iterdir()) == ["out", "p.yaml"], n
    assert seen["old"] >= 2 and seen["new"] >= 2, (n, seen)  # (journal, staged; switched, cleanup)


# --- a shell sitting in out/ ---------------------------------------------------------------------------

SHELL_IN_OUT = ("a shell sitting in it is left in the old directory, which qosc empties and removes right after "
                "the switch (a large one in the background): it sees an empty directory until it changes "
                "directory again (`cd \"$PWD\"` shows the new tree); files a program holds open stay readable")


def test_a_shell_sitting_in_out_sees_what_the_readme_says(tmp_path: Path, trees: tuple) -> None:
    work, policy, _, old, new = trees
    out = work / "out"
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert SHELL_IN_OUT in readme
    held = (out / "junos" / "r00000.example.net.conf").open()
    before = held.name and Path(held.name).read_text()
    shell = subprocess.Popen(["sh", "-c", 'cd "$1" && read go && echo "old: [$(ls -A)]" && cd "$PWD" && '
                              'echo "new: [$(ls -A | tr "\\n" " ")]"', "sh", str(out)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc = qosc("compile", "-q", "-j", "1", str(policy), "-o", str(out),
                    env={"QOSC_CACHE_DIR": str(tmp_path / "cache")})
        assert proc.returncode == 0, proc.stderr
        said, _ = shell.communicate("\n", timeout=60)
    finally:
        shell.kill()
    assert digests(out) == new != old
    assert said.splitlines() == ["old: []", f"new: [{' '.join(sorted(p.name for p in out.iterdir()))} ]"], said
    assert held.read() == before  # changed since, and still readable as it was
    held.close()
