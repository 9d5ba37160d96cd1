"""The CLI end to end: exit codes, formats, compile output, determinism, atomicity."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BASE

from qosc import __version__
from qosc.cli import main

ROOT = Path(__file__).resolve().parent.parent
POLICIES = sorted((ROOT / "policies").glob("*.yaml"))


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qosc", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def test_version() -> None:
    assert run("--version").stdout.strip() == f"qosc {__version__}"


def test_validate_reference_policies_clean() -> None:
    proc = run("validate", *[str(p.relative_to(ROOT)) for p in POLICIES])
    assert proc.returncode == 0, proc.stderr


def test_first_trial_rejected_with_lbe_code_at_its_line() -> None:
    proc = run("validate", "examples/geant-lbe-first-trial.yaml")
    assert proc.returncode == 1
    assert proc.stderr.startswith("examples/geant-lbe-first-trial.yaml:25:46: error[QOS050]: LBE service 'lbe'")
    assert "hint: set lbe.queue.priority: low and best-effort.queue.priority: high" in proc.stderr


def test_gsr_source_shares_rejected() -> None:
    proc = run("validate", "examples/datagrid-gsr-source-shares.yaml")
    assert proc.returncode == 1 and "error[QOS040]" in proc.stderr and "103%" in proc.stderr


def test_formats(tmp_path: Path) -> None:
    proc = run("validate", "--format", "json", "examples/geant-lbe-first-trial.yaml")
    [obj] = [json.loads(line) for line in proc.stdout.splitlines()]
    assert obj["code"] == "QOS050" and obj["line"] == 25 and obj["severity"] == "error"
    proc = run("validate", "--format", "github", "examples/geant-lbe-first-trial.yaml")
    assert proc.stdout.startswith("::error file=examples/geant-lbe-first-trial.yaml,line=25,col=46,title=qosc QOS050::")


def test_warnings_fail_only_with_strict(tmp_path: Path) -> None:
    policy = tmp_path / "w.yaml"
    policy.write_text(BASE.replace("{share: 1%, priority: low}", "{share: 8%, priority: low}"))
    assert main(["validate", str(policy)]) == 0
    assert main(["validate", "--strict", str(policy)]) == 1


def test_usage_and_io_errors_exit_2(tmp_path: Path) -> None:
    assert run("frobnicate").returncode == 2
    assert run().returncode == 2
    for command in (["validate"], ["compile", "-o", str(tmp_path / "out")], ["sls", "-o", str(tmp_path / "sls")],
                    ["push"], ["diff", str(tmp_path / "missing-too.yaml")]):
        for policy in (tmp_path / "missing.yaml", tmp_path):  # missing, and a directory
            proc = run(*command, str(policy))
            assert proc.returncode == 2, (command, proc.stderr)
            assert "QOS006" in proc.stderr and "cannot read policy file" in proc.stderr
            assert "Traceback" not in proc.stderr


def test_schema_command_prints_the_schema() -> None:
    assert json.loads(run("schema").stdout)["title"] == "qosc policy"


def test_compile_writes_nothing_on_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run("compile", "examples/geant-lbe-first-trial.yaml", "-o", str(out))
    assert proc.returncode == 1 and not out.exists()


def test_compile_unknown_target_and_device(tmp_path: Path) -> None:
    assert run("compile", "policies/qbss-linux.yaml", "-o", str(tmp_path), "--target", "nope").returncode == 1
    proc = run("compile", "policies/qbss-linux.yaml", "-o", str(tmp_path), "--device", "nope")
    assert proc.returncode == 1 and "QOS102" in proc.stderr


@pytest.mark.slow
def test_compile_all_reference_policies_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        proc = run("compile", *[str(p) for p in POLICIES], "-o", str(out))
        assert proc.returncode == 0, proc.stderr
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b and files_a
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    assert not list(a.rglob("*.tmp"))
