"""The incremental cache holds data, not code, in a directory only its user can write.

Real `python -m qosc compile` processes, real files: a pickle planted where
the cache is read never runs; a cache directory or file another user owns, or
that others can write, is refused (QOS106, a warning) and the compile goes on
without it, writing nothing there; pruning deletes only stores qosc wrote; a
store whose content does not match its sha256 is an empty cache; an output
file altered with its size and mtime kept is found (by content hash) and
written again.
"""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_scale import generate  # noqa: E402
from helpers import tree_digests  # noqa: E402

from qosc import cache  # noqa: E402

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


class Payload:
    """Unpickling this creates `marker`: proof that a pickle ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def compile_(policy: Path, out: Path, cache_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QOSC_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-m", "qosc", "compile", "-j", "1", str(policy), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(generate(3))
    return path


def store_name(policy: Path, out: Path) -> str:
    return cache.Store(None, str(policy), str(out)).name


def test_a_planted_pickle_never_runs(tmp_path: Path, policy: Path) -> None:
    out, cdir, marker = tmp_path / "out", tmp_path / "cache", tmp_path / "PWNED"
    cdir.mkdir(mode=0o700)
    blob = pickle.dumps(Payload(marker))
    planted = [cdir / store_name(policy, out), cdir / (store_name(policy, out).split(".")[0] + ".pickle")]
    for path in planted:  # where this qosc reads its store, and where qosc 0.x read it
        path.write_bytes(blob)
        path.chmod(0o600)
    first = compile_(policy, out, cdir)
    second = compile_(policy, out, cdir)
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    assert not marker.exists()
    probe = tmp_path / "probe"  # the payload is live: unpickled, it does create its marker
    subprocess.run([sys.executable, "-c", "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"],
                   input=pickle.dumps(Payload(probe)), check=True, timeout=60)
    assert probe.exists()
    assert "from the cache" not in first.stderr and "from the cache" in second.stderr  # a store of its own now
    assert planted[1].read_bytes() == blob  # not ours to delete
    assert planted[0].read_bytes().startswith(b"qosc-cache ")


def test_a_store_whose_content_does_not_match_its_hash_is_not_used(tmp_path: Path, policy: Path) -> None:
    out, cdir = tmp_path / "out", tmp_path / "cache"
    assert compile_(policy, out, cdir).returncode == 0
    store = cdir / store_name(policy, out)
    blob = store.read_bytes()
    header, body = blob.split(b"\n", 1)
    mark = b'"format":%d' % cache.FORMAT
    forged = body.replace(mark, mark + b" ", 1)  # same data once parsed, other bytes
    assert forged != body
    store.write_bytes(header + b"\n" + forged)
    proc = compile_(policy, out, cdir)
    assert proc.returncode == 0 and "from the cache" not in proc.stderr and "QOS106" not in proc.stderr


@needs_root
@pytest.mark.parametrize("how", ["foreign-file", "file-mode", "file-link", "foreign-dir", "shared-dir", "dir-link"])
def test_untrusted_cache_is_ignored_with_a_warning(tmp_path: Path, policy: Path, how: str) -> None:
    out, cdir, marker = tmp_path / "out", tmp_path / "cache", tmp_path / "PWNED"
    want = tmp_path / "want"
    assert compile_(policy, want, tmp_path / "own-cache").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if how == "dir-link":
        cdir.symlink_to(elsewhere)
    else:
        cdir.mkdir(mode=0o700)
    store = cdir / store_name(policy, out)
    if how in ("foreign-file", "file-mode"):
        store.write_bytes(pickle.dumps(Payload(marker)))
        store.chmod(0o644 if how == "file-mode" else 0o600)
        if how == "foreign-file":
            os.chown(store, NOBODY, NOBODY)
    elif how == "file-link":
        (elsewhere / "x").write_text("{}")
        store.symlink_to(elsewhere / "x")
    elif how == "foreign-dir":
        os.chown(cdir, NOBODY, NOBODY)
    elif how == "shared-dir":
        cdir.chmod(0o1777)
    before = {p: tree_digests(p) for p in (cdir, elsewhere)}
    proc = compile_(policy, out, cdir)
    assert proc.returncode == 0, proc.stderr
    assert "warning[QOS106]: cache directory or file not trusted; cache ignored" in proc.stderr, proc.stderr
    assert tree_digests(out) == tree_digests(want)
    assert {p: tree_digests(p) for p in before} == before  # nothing read as code, nothing written, nothing deleted
    assert not marker.exists()


def test_a_private_directory_of_the_user_is_tightened_and_used(tmp_path: Path, policy: Path) -> None:
    out, cdir = tmp_path / "out", tmp_path / "cache"
    cdir.mkdir()
    cdir.chmod(0o755)  # as qosc before 0700 made it: nobody else could write there
    assert compile_(policy, out, cdir).returncode == 0
    assert stat.S_IMODE(cdir.stat().st_mode) == 0o700
    store = cdir / store_name(policy, out)
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    proc = compile_(policy, out, cdir)
    assert "from the cache" in proc.stderr and "QOS106" not in proc.stderr


@needs_root
def test_pruning_deletes_only_stores_qosc_wrote(tmp_path: Path, policy: Path) -> None:
    out, cdir = tmp_path / "out", tmp_path / "cache"
    assert compile_(policy, out, cdir).returncode == 0
    genuine = (cdir / store_name(policy, out)).read_bytes()
    for i in range(cache.KEEP_STORES + 3):  # stores of other (policy, output) pairs, older than this one
        path = cdir / f"{i:032x}.qosc-cache.json"
        path.write_bytes(genuine)
        path.chmod(0o600)
        os.utime(path, ns=(i * 10**9, i * 10**9))
    keep = {
        "notes.pickle": b"not a store",
        "readme.txt": b"hello",
        f"{'f' * 32}.qosc-cache.json": b"no header: not a store",
        f"{'e' * 32}.qosc-cache.json": genuine,  # a store, but another user's
    }
    for name, data in keep.items():
        (cdir / name).write_bytes(data)
        os.utime(cdir / name, ns=(0, 0))
    os.chown(cdir / f"{'e' * 32}.qosc-cache.json", NOBODY, NOBODY)
    assert compile_(policy, out, cdir).returncode == 0
    names = {p.name for p in cdir.iterdir()}
    assert keep.keys() <= names
    stores = names - keep.keys()
    assert len(stores) == cache.KEEP_STORES and store_name(policy, out) in stores
    assert {f"{i:032x}.qosc-cache.json" for i in range(3)}.isdisjoint(stores)  # the oldest of its own went


def test_an_output_altered_with_size_and_mtime_kept_is_repaired(tmp_path: Path, policy: Path) -> None:
    out, cdir = tmp_path / "out", tmp_path / "cache"
    assert compile_(policy, out, cdir).returncode == 0
    want = tree_digests(out)
    victim = min(out.rglob("*.conf"))
    st = victim.stat()
    data = bytearray(victim.read_bytes())
    data[-2] = ord("X") if data[-2] != ord("X") else ord("Y")
    victim.write_bytes(bytes(data))
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (victim.stat().st_size, victim.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    proc = compile_(policy, out, cdir)
    assert proc.returncode == 0 and " 1 changed" in proc.stderr, proc.stderr
    assert tree_digests(out) == want
