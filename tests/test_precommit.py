"""CI integration: the pre-commit hook (with the real pre-commit) and the GitHub Actions example workflow.

The hook is tested the way another repository uses it: pre-commit builds its own Python environment from
a snapshot of this repository (pip install of the package, as on a user's machine) and runs `qosc
validate` on the policy files of a scratch repository.  The workflow's shell step is run for real in a
scratch clone (origin/main as the base branch), and its github-script step is run by node against a mock
GitHub API.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from qosc.cli import parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "ci" / "qosc.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def git_env() -> dict[str, str]:
    return {**os.environ, "GIT_AUTHOR_NAME": "qosc test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "qosc test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=git_env()).stdout


def need(tool: str, why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{tool} is missing: {why}")
    pytest.skip(f"{tool} is not installed: {why}")


# -- the hook manifest ------------------------------------------------------------------------------------


def test_hook_manifest() -> None:
    [hook] = yaml.safe_load(HOOKS.read_text())
    assert hook["id"] == "qosc-validate" and hook["language"] == "python"
    assert hook["entry"] == "qosc validate"
    assert parser().parse_args(shlex.split(hook["entry"])[1:] + ["p.yaml"]).command == "validate"
    files = re.compile(hook["files"])
    for path in ("policies/geant-lbe.yaml", "net/policies/x.yml", "qos/core.yaml", "site.qosc.yaml"):
        assert files.search(path), path
    for path in ("README.md", ".github/workflows/ci.yaml", "policies/notes.txt", "docs/geant.yaml"):
        assert not files.search(path), path


# -- the real pre-commit ----------------------------------------------------------------------------------


def pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        need("pre-commit", "pip install pre-commit (a test extra of qosc)")
    return [sys.executable, "-m", "pre_commit"]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed snapshot of this working tree (tracked and new files), as another repository would fetch."""
    if shutil.which("git") is None:
        need("git", "pre-commit needs git")
    snap = tmp_path_factory.mktemp("qosc-hook-repo")
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    for name in listing.decode().split("\0"):
        src = ROOT / name
        if not name or not src.is_file():
            continue
        dst = snap / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    git(snap, "init", "-q", "-b", "main")
    git(snap, "add", "-A")
    git(snap, "commit", "-q", "-m", "snapshot")
    return snap


@pytest.fixture(scope="module")
def pc_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def scratch(tmp_path: Path) -> Path:
    work = tmp_path / "network"
    (work / "policies").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    shutil.copy(ROOT / "policies" / "geant-lbe.yaml", work / "policies" / "good.yaml")
    shutil.copy(ROOT / "examples" / "geant-lbe-first-trial.yaml", work / "policies" / "bad.yaml")
    (work / "README.md").write_text("not a policy\n")
    return work


def pc(work: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**git_env(), "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)  # the hook must run the qosc pre-commit installed, not this checkout
    return subprocess.run([*pre_commit(), *args], cwd=work, capture_output=True, text=True, timeout=900, env=env,
                          check=False)


@pytest.mark.slow
def test_try_repo_passes_a_good_policy_and_fails_a_bad_one(hook_repo: Path, pc_home: Path, tmp_path: Path) -> None:
    work = scratch(tmp_path)
    proc = pc(work, pc_home, "try-repo", str(hook_repo), "qosc-validate", "--files", "policies/good.yaml",
              "README.md")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^qosc validate\.+Passed$", proc.stdout, re.MULTILINE), proc.stdout
    proc = pc(work, pc_home, "try-repo", str(hook_repo), "qosc-validate", "--files", "policies/good.yaml",
              "policies/bad.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"^qosc validate\.+Failed$", proc.stdout, re.MULTILINE)
    assert "policies/bad.yaml:25:46: error[QOS050]: LBE service 'lbe' has priority 'low'" in proc.stdout
    assert "good.yaml" not in proc.stdout.split("Failed", 1)[1]


@pytest.mark.slow
def test_installed_hook_blocks_the_commit_of_a_bad_policy(hook_repo: Path, pc_home: Path, tmp_path: Path) -> None:
    work = scratch(tmp_path)
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n      - id: qosc-validate\n")
    git(work, "add", ".pre-commit-config.yaml", "README.md")
    git(work, "commit", "-q", "-m", "config")
    proc = pc(work, pc_home, "install")
    assert proc.returncode == 0, proc.stderr
    env = {**git_env(), "PRE_COMMIT_HOME": str(pc_home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)
    git(work, "add", "policies/bad.yaml")
    commit = subprocess.run(["git", "commit", "-m", "first trial"], cwd=work, capture_output=True, text=True,
                            env=env, timeout=900, check=False)
    assert commit.returncode != 0, commit.stdout
    assert "error[QOS050]" in commit.stdout + commit.stderr
    git(work, "reset", "-q", "policies/bad.yaml")
    git(work, "add", "policies/good.yaml")
    commit = subprocess.run(["git", "commit", "-m", "final configuration"], cwd=work, capture_output=True,
                            text=True, env=env, timeout=900, check=False)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert "Passed" in commit.stdout + commit.stderr
    assert git(work, "log", "--format=%s").splitlines() == ["final configuration", "config"]


# -- the GitHub Actions example --------------------------------------------------------------------------------


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def steps() -> list[dict]:
    [job] = workflow()["jobs"].values()
    return job["steps"]


def step(name_part: str) -> dict:
    [found] = [s for s in steps() if name_part in s.get("name", "")]
    return found


def qosc_invocations(script: str) -> list[list[str]]:
    """Every `qosc ...` command line of a shell script, shell variables replaced by sample values."""
    found = []
    for line in script.splitlines():
        line = line.strip()
        if not line.startswith("qosc "):
            continue
        line = line.split(">", 1)[0]
        words = shlex.split(line.replace("$policy", "policies/x.yaml").replace("$BASE", "origin/main"))
        found.append([w.replace("*", "x") for w in words[1:]])
    return found


def test_workflow_structure_and_commands() -> None:
    flow = workflow()
    on = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert "pull_request" in on
    assert flow["permissions"] == {"contents": "read", "pull-requests": "write"}
    uses = [s.get("uses", "").split("@")[0] for s in steps()]
    assert {"actions/checkout", "actions/setup-python", "actions/github-script"} <= set(uses)
    assert step("Check out")["with"]["fetch-depth"] == 0  # --base needs the base branch's history
    calls = [c for s in steps() for c in qosc_invocations(s.get("run", ""))]
    assert [c[0] for c in calls] == ["validate", "diff", "diff"]
    assert calls[0] == ["validate", "--format", "github", "policies/x.yaml"]
    assert "--base" in calls[1] and calls[1][calls[1].index("--base") + 1] == "origin/main"
    for call in calls:
        args = parser().parse_args(call)  # every invocation is a real qosc command line
        assert args.command in ("validate", "diff")
    diff_step = step("Diff the generated configuration")
    assert diff_step["env"]["BASE"] == "origin/${{ github.base_ref }}"
    for s in steps():  # untrusted pull-request data never reaches a shell through ${{ }} interpolation
        assert "${{" not in s.get("run", ""), s["name"]


def qosc_shim(tmp_path: Path) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "qosc"
    shim.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} "
                    f"exec {shlex.quote(sys.executable)} -m qosc \"$@\"\n")
    shim.chmod(0o755)
    return bindir


def test_workflow_diff_step_runs_on_a_pull_request_clone(tmp_path: Path) -> None:
    if shutil.which("bash") is None or shutil.which("git") is None:
        need("bash and git", "the workflow step is a bash script over git")
    upstream = tmp_path / "upstream"
    (upstream / "policies").mkdir(parents=True)
    shutil.copy(ROOT / "policies" / "geant-lbe.yaml", upstream / "policies" / "geant-lbe.yaml")
    shutil.copy(ROOT / "policies" / "qbss-linux.yaml", upstream / "policies" / "qbss-linux.yaml")
    shutil.copy(ROOT / "policies" / "datagrid-gsr.yaml", upstream / "policies" / "datagrid-gsr.yaml")
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "policies")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(upstream), str(work))
    git(work, "checkout", "-q", "-b", "lbe-weights")
    policy = work / "policies" / "geant-lbe.yaml"
    final = policy.read_text()
    policy.write_text(final.replace("{share: 0%, buffer: 0%, priority: low}", "{share: 1%, buffer: 0%, priority: low}")
                      .replace("    queue: {share: 5%, buffer: 5%, priority: high}\n\ndrop-profiles",
                               "    queue: {share: 4%, buffer: 5%, priority: high}\n\ndrop-profiles"))
    git(work, "rm", "-q", "policies/datagrid-gsr.yaml")
    git(work, "commit", "-q", "-am", "LBE 1%, drop the GSR policy")

    summary = tmp_path / "summary.md"
    env = {**git_env(), "PATH": f"{qosc_shim(tmp_path)}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_STEP_SUMMARY": str(summary), **{k: v.replace("${{ github.base_ref }}", "main")
                                                  for k, v in step("Diff the generated")["env"].items()}}
    proc = subprocess.run(["bash", "-e", "-c", step("Diff the generated")["run"]], cwd=work, capture_output=True,
                          text=True, env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    body = (work / "qosc-diff.md").read_text()
    assert body.startswith("<!-- qosc-config-diff -->\n### Generated configuration changes (qosc diff against "
                           "origin/main)")
    assert "- `policies/qbss-linux.yaml`: no change" in body
    assert "<details open><summary><code>policies/geant-lbe.yaml</code>: qosc: 2 files changed" in body
    assert "`````diff\n# junos/de1.de.conf: changed (device de1.de, target junos)\n" in body
    assert "-            transmit-rate percent 0;\n+            transmit-rate percent 1;" in body
    assert "<details><summary><code>policies/datagrid-gsr.yaml</code> deleted</summary>" in body
    assert re.search(r"# [a-z0-9-]+/[^\n]+: removed \(removed device", body)
    assert "\033[" not in body
    assert summary.read_text() == body

    # A pull request that breaks a policy: the diff step reports qosc's diagnostics and fails the job.
    policy.write_text(final.replace("{share: 0%, buffer: 0%, priority: low}", "{share: 1%, buffer: 0%, priority: low}"))
    git(work, "commit", "-q", "-am", "LBE 1% without taking it from NC")
    proc = subprocess.run(["bash", "-e", "-c", step("Diff the generated")["run"]], cwd=work, capture_output=True,
                          text=True, env=env, timeout=600, check=False)
    assert proc.returncode == 1
    body = (work / "qosc-diff.md").read_text()
    assert "- `policies/geant-lbe.yaml`: **qosc diff failed** (exit 2)" in body
    assert "error[QOS040]: interface de1.de:so-1/2/0: guaranteed shares and strict-priority caps add up to 101%" \
        in body


def test_workflow_comment_script_creates_then_updates(tmp_path: Path) -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        need("node", "the github-script step is JavaScript")
    script = step("Post the diff")["with"]["script"]
    (tmp_path / "qosc-diff.md").write_text("<!-- qosc-config-diff -->\nbody v1\n")
    harness = tmp_path / "harness.js"
    harness.write_text("""
const fs = require('fs');
const state = JSON.parse(fs.readFileSync('state.json', 'utf8'));
const calls = [];
const github = {
  paginate: async (fn, args) => fn(args),
  rest: { issues: {
    listComments: async (args) => { calls.push(['list', args]); return state.comments; },
    createComment: async (args) => { calls.push(['create', args]); },
    updateComment: async (args) => { calls.push(['update', args]); },
  } },
};
const context = { repo: { owner: 'geant', repo: 'qos' }, issue: { number: 7 } };
const run = new (Object.getPrototypeOf(async function () {}).constructor)(
  'github', 'context', 'require', fs.readFileSync('script.js', 'utf8'));
run(github, context, require).then(() => console.log(JSON.stringify(calls)));
""")
    (tmp_path / "script.js").write_text(script)

    def calls(comments: list[dict]) -> list:
        (tmp_path / "state.json").write_text(json.dumps({"comments": comments}))
        proc = subprocess.run([node, str(harness)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    first = calls([{"id": 1, "user": {"type": "User"}, "body": "LGTM"}])
    assert [c[0] for c in first] == ["list", "create"]
    assert first[1][1] == {"owner": "geant", "repo": "qos", "issue_number": 7,
                           "body": "<!-- qosc-config-diff -->\nbody v1\n"}
    again = calls([{"id": 1, "user": {"type": "User"}, "body": "LGTM"},
                   {"id": 42, "user": {"type": "Bot"}, "body": "<!-- qosc-config-diff -->\nold"}])
    assert [c[0] for c in again] == ["list", "update"]
    assert again[1][1]["comment_id"] == 42
