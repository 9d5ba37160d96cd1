"""qosc diff: config diffs of two policy versions, for CI review (issue 7)."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qosc import diff
from qosc.targets.registry import targets

ROOT = Path(__file__).resolve().parent.parent
GEANT = ROOT / "policies" / "geant-lbe.yaml"

LBE_FINAL = "    queue: {share: 0%, buffer: 0%, priority: low}\n"
LBE_TRIAL = "    queue: {share: 1%, buffer: 0%, priority: low}\n"
NC_FINAL = ("  network-control:\n    kind: network-control\n    description: Routing protocols\n    dscp: [cs6, cs7]\n"
            "    queue: {share: 5%, buffer: 5%, priority: high}\n")
NC_TRIAL = NC_FINAL.replace("share: 5%", "share: 4%")


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qosc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, check=False)


def first_trial_weights(text: str) -> str:
    """The GÉANT first trial's weights (LBE 1%, NC 4%) with the final configuration's priorities and buffers."""
    assert text.count(LBE_FINAL) == 1 and text.count(NC_FINAL) == 1
    return text.replace(LBE_FINAL, LBE_TRIAL).replace(NC_FINAL, NC_TRIAL)


@pytest.fixture
def trial(tmp_path: Path) -> Path:
    path = tmp_path / "geant-lbe.yaml"
    path.write_text(first_trial_weights(GEANT.read_text()))
    return path


def need_junos() -> None:
    assert "junos" in targets(), "the junos target (qosc/targets/junos.py) is not registered"


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines of a line diff, stripped."""
    import difflib
    removed, added = [], []
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:].strip())
        elif line.startswith("+ "):
            added.append(line[2:].strip())
    return removed, added


def enclosing_blocks(text: str, needle_line: int) -> list[str]:
    """The JUNOS braces path ('class-of-service', 'schedulers', 'lbe') around line `needle_line` (0-based)."""
    path: list[str] = []
    for line in text.splitlines()[:needle_line]:
        s = line.strip()
        if s.endswith("{"):
            path.append(s[:-1].strip())
        elif s == "}":
            path.pop()
    return path


# -- the example: GÉANT final configuration against the first trial's weights ------------------------


def test_first_trial_weights_change_exactly_two_schedulers(trial: Path) -> None:
    need_junos()
    result = diff.diff_files(str(GEANT), str(trial))
    assert result.ok and result.changed
    assert {f.path for f in result.files} == {"junos/de1.de.conf", "junos/de1.de.set"}
    assert all(f.status == "changed" and f.device == "de1.de" and f.target == "junos" for f in result.files)

    old, new = result.old.files["junos/de1.de.conf"].text, result.new.files["junos/de1.de.conf"].text
    removed, added = changed_lines(old, new)
    config_removed = [x for x in removed if not x.startswith("#")]
    config_added = [x for x in added if not x.startswith("#")]
    # Exactly two configuration statements change: the transmit rates. Buffers and priorities do not.
    assert config_removed == ["transmit-rate percent 0;", "transmit-rate percent 5;"]
    assert config_added == ["transmit-rate percent 1;", "transmit-rate percent 4;"]
    # ... and they are those of the LBE and network-control schedulers.
    lines = new.splitlines()
    where = [enclosing_blocks(new, i) for i, x in enumerate(lines) if x.strip() in config_added]
    assert where == [["class-of-service", "schedulers", "lbe"], ["class-of-service", "schedulers", "network-control"]]
    # The only comment lines that move are the queue summaries of those two queues.
    comments = [x for x in removed + added if x.startswith("#")]
    assert len(comments) == 4 and all(re.match(r"# queue [23] (lbe|network-control): transmit-rate", x)
                                      for x in comments)

    set_removed, set_added = changed_lines(result.old.files["junos/de1.de.set"].text,
                                           result.new.files["junos/de1.de.set"].text)
    assert [x for x in set_removed if not x.startswith("#")] == [
        "set class-of-service schedulers lbe transmit-rate percent 0",
        "set class-of-service schedulers network-control transmit-rate percent 5"]
    assert [x for x in set_added if not x.startswith("#")] == [
        "set class-of-service schedulers lbe transmit-rate percent 1",
        "set class-of-service schedulers network-control transmit-rate percent 4"]


def test_cli_reports_the_two_changes_and_exits_1(trial: Path) -> None:
    need_junos()
    proc = run("diff", "policies/geant-lbe.yaml", str(trial))
    assert proc.returncode == 1, proc.stderr
    body = [x for x in proc.stdout.splitlines() if x[:1] in "+-" and not x.startswith(("+++", "---"))]
    config = [x for x in body if not x[1:].lstrip().startswith("#")]
    assert config == [
        "-            transmit-rate percent 0;", "+            transmit-rate percent 1;",
        "-            transmit-rate percent 5;", "+            transmit-rate percent 4;",
        "-set class-of-service schedulers lbe transmit-rate percent 0",
        "+set class-of-service schedulers lbe transmit-rate percent 1",
        "-set class-of-service schedulers network-control transmit-rate percent 5",
        "+set class-of-service schedulers network-control transmit-rate percent 4",
    ]
    assert "# junos/de1.de.conf: changed (device de1.de, target junos)" in proc.stdout
    assert "--- a/junos/de1.de.conf\n+++ b/junos/de1.de.conf\n@@ " in proc.stdout
    assert "\033[" not in proc.stdout  # not a terminal: no colour
    assert "2 files changed, 0 added, 0 removed (+8 -8 lines)" in proc.stderr


def test_same_file_exits_0_and_prints_no_diff() -> None:
    need_junos()
    proc = run("diff", "policies/geant-lbe.yaml", "policies/geant-lbe.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "no change in 2 generated files" in proc.stderr


def test_every_reference_policy_against_itself_is_unchanged() -> None:
    for policy in sorted((ROOT / "policies").glob("*.yaml")):
        result = diff.diff_files(str(policy), str(policy))
        assert result.ok, [str(d) for d in result.old.diagnostics if d.is_error]
        assert not result.changed and result.unchanged == len(result.new.files)


# -- formats --------------------------------------------------------------------------------------------------


def test_json_format(trial: Path) -> None:
    need_junos()
    proc = run("diff", "--format", "json", "policies/geant-lbe.yaml", str(trial))
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["changed"] is True and doc["devices"] == {"added": [], "removed": [], "changed": ["de1.de"]}
    files = {f["path"]: f for f in doc["files"]}
    assert set(files) == {"junos/de1.de.conf", "junos/de1.de.set"}
    conf = files["junos/de1.de.conf"]
    assert (conf["status"], conf["added_lines"], conf["removed_lines"]) == ("changed", 4, 4)
    assert "+            transmit-rate percent 1;" in conf["diff"]
    proc = run("diff", "--format", "json", "policies/geant-lbe.yaml", "policies/geant-lbe.yaml")
    assert proc.returncode == 0 and json.loads(proc.stdout)["changed"] is False


def test_github_format_fences_the_diff_against_workflow_commands(trial: Path) -> None:
    need_junos()
    proc = run("diff", "--format", "github", "policies/geant-lbe.yaml", str(trial))
    assert proc.returncode == 1
    out = proc.stdout.splitlines()
    assert out[0].startswith(f"::notice file={trial},title=qosc diff junos/de1.de.conf::junos/de1.de.conf: changed")
    assert "(+4 -4 lines)" in out[0]
    assert "::group::junos/de1.de.conf: changed (device de1.de, target junos)" in out
    stop = [x for x in out if x.startswith("::stop-commands::")]
    assert len(stop) == 2
    token = stop[0].split("::")[2]
    assert re.fullmatch(r"[0-9a-f]{32}", token) and f"::{token}::" in out
    # every diff line sits between stop-commands and its token, so config text is never a workflow command
    inside = False
    for line in out:
        if line.startswith("::stop-commands::"):
            inside = True
        elif line == f"::{token}::":
            inside = False
        elif not inside:
            assert line.startswith("::"), line


def test_colour_only_on_a_terminal(trial: Path) -> None:
    need_junos()

    def on_tty(env: dict[str, str]) -> str:
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "qosc", "diff", "policies/geant-lbe.yaml", str(trial)],
                                cwd=ROOT, stdout=slave, stderr=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", **env})
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(timeout=120) == 1
        os.close(master)
        return b"".join(chunks).decode()

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = on_tty({"NO_COLOR": ""} if "NO_COLOR" in env else {})
    assert "\033[32m+            transmit-rate percent 1;\033[0m" in coloured
    assert "\033[31m-            transmit-rate percent 0;\033[0m" in coloured
    plain = on_tty({"NO_COLOR": "1"})
    assert "\033[" not in plain and "+            transmit-rate percent 1;" in plain
    assert "\033[" not in run("diff", "policies/geant-lbe.yaml", str(trial)).stdout
    assert "\033[32m" in run("diff", "--color", "always", "policies/geant-lbe.yaml", str(trial)).stdout


# -- devices and files appearing and disappearing ---------------------------------------------------------


def test_new_and_removed_devices(tmp_path: Path) -> None:
    need_junos()
    two = tmp_path / "two.yaml"
    two.write_text(GEANT.read_text() + "  uk1.uk:\n    platform: junos-m-series\n    interfaces:\n"
                   "      so-0/0/0: {profile: backbone-stm16}\n")
    proc = run("diff", "policies/geant-lbe.yaml", str(two))
    assert proc.returncode == 1
    assert "# junos/uk1.uk.conf: added (new device uk1.uk, target junos)" in proc.stdout
    assert "--- /dev/null\n+++ b/junos/uk1.uk.conf\n@@ -0,0 +1," in proc.stdout
    assert "de1.de" not in "".join(x for x in proc.stdout.splitlines() if x.startswith("#"))
    assert "new devices: uk1.uk" in proc.stderr
    proc = run("diff", str(two), "policies/geant-lbe.yaml")
    assert proc.returncode == 1
    assert "# junos/uk1.uk.conf: removed (removed device uk1.uk, target junos)" in proc.stdout
    assert "--- a/junos/uk1.uk.conf\n+++ /dev/null\n" in proc.stdout
    assert "removed devices: uk1.uk" in proc.stderr
    proc = run("diff", "--device", "de1.de", "policies/geant-lbe.yaml", str(two))
    assert proc.returncode == 0, proc.stdout


def test_invalid_side_prints_its_diagnostics_and_exits_2(trial: Path) -> None:
    proc = run("diff", "examples/geant-lbe-first-trial.yaml", "policies/geant-lbe.yaml")
    assert proc.returncode == 2
    assert proc.stderr.startswith("examples/geant-lbe-first-trial.yaml:25:46: error[QOS050]")
    assert proc.stdout == ""
    proc = run("diff", "--format", "json", "policies/geant-lbe.yaml", "examples/geant-lbe-first-trial.yaml")
    assert proc.returncode == 2 and json.loads(proc.stdout.splitlines()[0])["code"] == "QOS050"
    assert run("diff", "policies/geant-lbe.yaml", "no-such.yaml").returncode == 2
    assert run("diff", "policies/geant-lbe.yaml").returncode == 2
    assert run("diff", "policies/geant-lbe.yaml", str(trial), "--target", "nope").returncode == 2


def test_unified_helper() -> None:
    assert diff.unified("a\n", "a\n", "x") == ("", 0, 0)
    text, plus, minus = diff.unified("a\nb\n", "a\nc\n", "t/x")
    assert text.startswith("--- a/t/x\n+++ b/t/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n") and (plus, minus) == (1, 1)
    text, plus, minus = diff.unified(None, "a\nb\n", "t/x")
    assert text.startswith("--- /dev/null\n+++ b/t/x\n") and (plus, minus) == (2, 0)
    assert "final newline" in diff.unified("a", "a\n", "t/x")[0]


# -- --base: the same path at another git revision ---------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "qosc test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
           "GIT_COMMITTER_NAME": "qosc test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


SPLIT_SERVICES = GEANT.read_text().split("services:\n", 1)[1].split("\ndrop-profiles:", 1)[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A scratch repository: net/geant.yaml includes common/services.yaml (a path that leaves its folder)."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for qosc diff --base")
    root = tmp_path / "repo"
    (root / "net").mkdir(parents=True)
    (root / "common").mkdir()
    head, rest = GEANT.read_text().split("services:\n", 1)
    tail = "drop-profiles:" + rest.split("\ndrop-profiles:", 1)[1]
    (root / "net" / "geant.yaml").write_text(head.replace("defaults:", "include: [../common/services.yaml]\n"
                                                                       "defaults:") + tail)
    (root / "common" / "services.yaml").write_text("services:\n" + SPLIT_SERVICES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "final GEANT configuration")
    return root


def test_base_resolves_includes_at_the_revision(repo: Path) -> None:
    need_junos()
    assert run("validate", "net/geant.yaml", cwd=repo).returncode == 0
    assert run("diff", "net/geant.yaml", "--base", "HEAD", cwd=repo).returncode == 0
    # Change only the included file in the working tree: the base side must still read the committed one.
    services = repo / "common" / "services.yaml"
    services.write_text(first_trial_weights("services:\n" + SPLIT_SERVICES + "\n").rstrip("\n") + "\n")
    proc = run("diff", "net/geant.yaml", "--base", "HEAD", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    assert "+            transmit-rate percent 1;" in proc.stdout
    assert "-            transmit-rate percent 0;" in proc.stdout
    assert "(HEAD:net/geant.yaml -> net/geant.yaml)" in proc.stderr
    # Commit it: HEAD~1 has the old include, HEAD the new one; also from another directory.
    git(repo, "commit", "-q", "-am", "first trial weights")
    assert run("diff", "net/geant.yaml", "--base", "HEAD", cwd=repo).returncode == 0
    proc = run("diff", str(repo / "net" / "geant.yaml"), "--base", "HEAD~1", cwd=ROOT)
    assert proc.returncode == 1 and "+set class-of-service schedulers network-control transmit-rate percent 4" \
        in proc.stdout
    assert run("diff", "geant.yaml", "--base", "main~1", cwd=repo / "net").returncode == 1


def test_base_side_errors_point_at_the_revision(repo: Path) -> None:
    policy = repo / "net" / "geant.yaml"
    good = policy.read_text()
    policy.write_text(good.replace("name: geant-lbe", "name: geant-lbe\nbogus: 1"))
    git(repo, "commit", "-q", "-am", "broken")
    policy.write_text(good)
    proc = run("diff", "net/geant.yaml", "--base", "HEAD", cwd=repo)
    assert proc.returncode == 2
    assert re.search(r"^HEAD:net/geant\.yaml:\d+:\d+: error\[QOS010\]: unknown key 'bogus'", proc.stderr,
                     re.MULTILINE), proc.stderr
    assert "qosc-diff-" not in proc.stderr  # no temporary paths leak into diagnostics


def test_base_new_policy_is_all_added_and_git_errors_exit_2(repo: Path, tmp_path: Path) -> None:
    need_junos()
    shutil.copy(GEANT, repo / "net" / "new.yaml")
    proc = run("diff", "net/new.yaml", "--base", "HEAD", cwd=repo)
    assert proc.returncode == 1
    assert "# junos/de1.de.conf: added (new device de1.de, target junos)" in proc.stdout
    assert "does not exist at HEAD" in proc.stderr
    proc = run("diff", "net/geant.yaml", "--base", "no-such-rev", cwd=repo)
    assert proc.returncode == 2 and "unknown revision 'no-such-rev'" in proc.stderr
    outside = tmp_path / "outside.yaml"
    shutil.copy(GEANT, outside)
    proc = run("diff", str(outside), "--base", "HEAD", cwd=tmp_path)
    assert proc.returncode == 2 and "not inside a git repository" in proc.stderr
    assert run("diff", "a.yaml", "b.yaml", "--base", "HEAD", cwd=repo).returncode == 2
    # a policy deleted in the working tree: every output is removed
    (repo / "net" / "geant.yaml").unlink()
    proc = run("diff", "net/geant.yaml", "--base", "HEAD", cwd=repo)
    assert proc.returncode == 1 and "# junos/de1.de.conf: removed (removed device de1.de" in proc.stdout
