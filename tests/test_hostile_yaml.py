"""Hostile YAML: each document is refused in under a second, with bounded memory and a diagnostic.

Through the library (time, and memory by tracemalloc) and through the command
line (exit status 1, the diagnostic, never a traceback).  The bounds
themselves live in qosc.yamlsafe.Limits; tests/test_load.py checks each code
and position, this file checks the promises against the classic attacks.
"""

from __future__ import annotations

import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from qosc import api
from qosc.load import Limits

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
READ_BUFFER = Limits().max_bytes


def billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
    return "qosc: 1\nname: lol\n" + "\n".join(lines) + "\nservices: *i\n"


def quadratic_blowup() -> str:
    """Few aliases of one big anchor: linear text, quadratic expansion."""
    big = "[" + ",".join(["x"] * 50_000) + "]"
    return f"qosc: 1\nname: q\nbig: &b {big}\nservices: [" + ",".join(["*b"] * 5_000) + "]\n"


def deep_flow(depth: int = 10_000) -> str:
    return "qosc: 1\nname: deep\nservices: " + "[" * depth + "]" * depth + "\n"


def deep_map(depth: int = 10_000) -> str:
    return "qosc: 1\nname: deep\nservices: " + "{a: " * depth + "1" + "}" * depth + "\n"


def deep_block(depth: int = 10_000) -> str:
    """Block-style nesting, 10,000 levels, as compact nested sequences ('- - - x') on one line."""
    return "qosc: 1\nname: deep\nservices:\n  " + "- " * depth + "x\n"


def big_int() -> str:
    return "qosc: 1\nname: big\ndefaults: {mtu: 1" + "0" * 400 + "}\nservices: {}\n"


def big_float() -> str:
    return "qosc: 1\nname: big\ndefaults: {mtu: 1e400}\nservices: {}\n"


def big_hex() -> str:
    return "qosc: 1\nname: big\ndefaults: {mtu: 0x" + "f" * 400 + "}\nservices: {}\n"


def duplicate_top() -> str:
    return "qosc: 1\nname: a\nservices: {be: {default: true}}\nname: b\n"


def duplicate_nested() -> str:
    return "qosc: 1\nname: a\nservices:\n  be: {default: true}\n  be: {default: false}\n"


def python_tag() -> str:
    return "qosc: 1\nname: !!python/object/apply:os.system ['echo pwned']\nservices: {}\n"


def recursive_alias() -> str:
    return "qosc: 1\nname: r\nservices: &s {x: *s}\n"


def many_aliases() -> str:
    return "qosc: 1\nname: m\na: &a x\nservices: [" + ",".join(["*a"] * 20_000) + "]\n"


def bad_utf8() -> bytes:
    return b"qosc: 1\nname: \xff\xfe\nservices: {}\n"


def nul_bytes() -> bytes:
    return b"qosc: 1\nname: a\x00b\nservices: {}\n"


CASES: dict[str, tuple[Callable[[], str | bytes], str]] = {
    "billion-laughs": (billion_laughs, "QOS003"),
    "quadratic-blowup": (quadratic_blowup, "QOS003"),
    "deep-flow-sequences": (deep_flow, "QOS004"),
    "deep-flow-mappings": (deep_map, "QOS004"),
    "deep-block-sequences": (deep_block, "QOS004"),
    "10^400-integer": (big_int, "QOS009"),
    "10^400-float": (big_float, "QOS009"),
    "huge-hex": (big_hex, "QOS009"),
    "duplicate-top-level-key": (duplicate_top, "QOS005"),
    "duplicate-nested-key": (duplicate_nested, "QOS005"),
    "python-tag": (python_tag, "QOS002"),
    "recursive-alias": (recursive_alias, "QOS003"),
    "too-many-aliases": (many_aliases, "QOS003"),
    "invalid-utf8": (bad_utf8, "QOS008"),
    "nul-byte": (nul_bytes, "QOS00"),
}


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


@pytest.fixture(scope="module")
def hundred_mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 100 MB policy: a valid header and 100 MB of plausible YAML."""
    path = tmp_path_factory.mktemp("big") / "big.yaml"
    line = b"  r%06d: {platform: linux, interfaces: {eth0: {profile: core}}}\n"
    with open(path, "wb") as fh:
        fh.write(b"qosc: 1\nname: big\nservices: {be: {default: true}}\ndevices:\n")
        chunk = b"".join(line % i for i in range(16_384))
        while fh.tell() < 100 * MB:
            fh.write(chunk)
    return path


def _check_refused(path: Path, code: str) -> None:
    start = time.perf_counter()
    result = api.validate(path)
    seconds = time.perf_counter() - start
    assert result.policy is None and result.diagnostics, path
    assert any(d.code.startswith(code) and d.is_error for d in result.diagnostics), result.diagnostics
    assert seconds < 1.0, f"{path.name}: {seconds:.2f} s"
    tracemalloc.start()
    try:
        api.validate(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The loader reads with a buffer of Limits.max_bytes + 1 (32 MiB, mostly never touched, so not resident:
    # see the RSS test below); beyond that buffer, a hostile document may cost little more than its own size.
    limit = READ_BUFFER + 2 * min(path.stat().st_size, READ_BUFFER) + 8 * MB
    assert peak < limit, f"{path.name}: peak {peak / MB:.1f} MiB"


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_quickly_with_bounded_memory(tmp_path: Path, name: str) -> None:
    make, code = CASES[name]
    _check_refused(write(tmp_path / f"{name}.yaml", make()), code)


def test_hundred_megabyte_file_refused_without_reading_it(hundred_mb: Path) -> None:
    assert hundred_mb.stat().st_size >= 100 * MB
    _check_refused(hundred_mb, "QOS008")


def test_hundred_megabyte_include_refused(tmp_path: Path, hundred_mb: Path) -> None:
    main = write(tmp_path / "main.yaml", f"qosc: 1\nname: m\nservices: {{}}\ninclude: [{hundred_mb}]\n")
    _check_refused(main, "QOS00")


def test_include_cycle_and_include_chain_refused(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "include: [b.yaml]\n")
    write(tmp_path / "b.yaml", "include: [a.yaml]\n")
    _check_refused(write(tmp_path / "main.yaml", "qosc: 1\nname: c\nservices: {}\ninclude: [a.yaml]\n"), "QOS007")
    for i in range(40):
        write(tmp_path / f"chain{i}.yaml", f"include: [chain{i + 1}.yaml]\n")
    write(tmp_path / "chain40.yaml", "name: end\n")
    _check_refused(write(tmp_path / "long.yaml", "qosc: 1\nname: c\nservices: {}\ninclude: [chain0.yaml]\n"),
                   "QOS007")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qosc", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.mark.parametrize("name", ["billion-laughs", "deep-flow-sequences", "deep-block-sequences", "10^400-integer",
                                  "duplicate-top-level-key", "python-tag", "invalid-utf8"])
def test_command_line_reports_a_diagnostic_not_a_traceback(tmp_path: Path, name: str) -> None:
    make, code = CASES[name]
    path = write(tmp_path / "hostile.yaml", make())
    for command in (["validate"], ["compile", "-o", str(tmp_path / "out")], ["validate", "--format", "json"]):
        start = time.perf_counter()
        proc = _cli(*command, str(path))
        seconds = time.perf_counter() - start
        assert proc.returncode == 1, (command, proc.stderr)
        assert code in proc.stderr + proc.stdout and "Traceback" not in proc.stderr, (command, proc.stderr)
        assert seconds < 10  # start-up included; the refusal itself is timed above
    assert not (tmp_path / "out").exists()


def test_peak_rss_stays_bounded(hundred_mb: Path, tmp_path: Path) -> None:
    """Peak RSS of `qosc validate` on each attack, against a small clean policy's: under 32 MiB more."""
    probe = ("import resource, sys; from qosc.cli import main; code = main(sys.argv[1:]); "
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, file=sys.stderr); sys.exit(code)")
    small = write(tmp_path / "small.yaml", "qosc: 1\nname: s\nservices: {be: {default: true}}\n")
    attacks = [hundred_mb] + [write(tmp_path / f"{n}.yaml", CASES[n][0]()) for n in
                              ("billion-laughs", "quadratic-blowup", "deep-flow-mappings", "too-many-aliases")]
    runs = {}
    for path in [small, *attacks]:
        proc = subprocess.run([sys.executable, "-c", probe, "validate", str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, check=False)
        assert "Traceback" not in proc.stderr
        runs[path] = (proc.returncode, proc.stderr, int(proc.stderr.strip().splitlines()[-1]))
    assert runs[small][0] == 0
    for path in attacks:
        assert runs[path][0] == 1 and "error[QOS00" in runs[path][1], path.name
        grew = runs[path][2] - runs[small][2]
        assert grew < 32, f"{path.name}: peak RSS grew by {grew} MiB"
