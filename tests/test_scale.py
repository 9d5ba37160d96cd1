"""Compiling large networks: --jobs gives the same bytes, and the incremental cache gives the same answers.

The synthetic network is benchmarks/compile_scale.py's (every platform, shared
profiles), small enough for a test.  No compile here asks for --verify (tc's
netns check is the linux-tc tests' subject), so none depends on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qosc import api, cache, emit, pipeline
from qosc.cli import main
from qosc.errors import InputError
from qosc.load import load_text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_scale import change_one_device, generate  # noqa: E402

N = 30  # devices: five of each slot of the platform mix, enough to fill two workers' chunks
POLICIES = sorted((ROOT / "policies").glob("*.yaml"))


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QOSC_CACHE_DIR", str(tmp_path / "cache"))


def compile_(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run `qosc compile` in this process; (exit status, stderr without the output directory's name)."""
    capsys.readouterr()
    code = main(["compile", *args])
    err = capsys.readouterr().err
    return code, re.sub(r", in \S+$", "", err.strip(), flags=re.MULTILINE)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def network(tmp_path: Path) -> Path:
    path = tmp_path / "net.yaml"
    path.write_text(generate(N))
    return path


@pytest.fixture
def fast_spy(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each PolicyCache.validate() took the incremental path."""
    seen: list[bool] = []
    original = cache.PolicyCache.validate

    def spy(self: cache.PolicyCache) -> tuple[object, bool]:
        out = original(self)
        seen.append(self.fast)
        return out

    monkeypatch.setattr(cache.PolicyCache, "validate", spy)
    return seen


# --- parallelism ---------------------------------------------------------------


def _tc_counts(policies: list[str]) -> list[int]:
    """The number of linux-tc batches of each policy that has any (one QOS104 note per policy)."""
    counts = []
    for path in policies:
        policy = api.validate(path, with_targets=False).policy
        assert policy is not None
        n = sum(len(d.interfaces) for d in policy.devices if d.platform == "linux")
        counts += [n] if n else []
    return counts


def test_jobs_and_cache_give_byte_identical_output(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    network: Path) -> None:
    policies = [str(network), *map(str, POLICIES)]
    runs = {}
    for name, args in (("serial", ["-j", "1", "--no-cache"]), ("two", ["-j", "2", "--no-cache"]),
                       ("auto", []), ("auto-again", [])):
        out = tmp_path / ("auto" if name.startswith("auto") else name)
        code, err = compile_(capsys, *policies, "-o", str(out), *args)
        assert code == 0, err
        runs[name] = (tree(out), re.sub(r"\d+ changed( \(\d+ pairs unchanged, from the cache\))?", "", err))
        # without --verify nothing is asked of this machine: no notes, rendered now or cached
        assert not [ln for ln in err.splitlines() if "info[QOS104]" in ln]
        assert sum(1 for p in runs[name][0] if p.endswith(".tc")) == sum(_tc_counts(policies))
    assert runs["serial"][0] and not [p for p in runs["serial"][0] if p.endswith(".tmp")]
    for name in ("two", "auto", "auto-again"):
        assert runs[name] == runs["serial"], name
    assert "changed (" in compile_(capsys, *policies, "-o", str(tmp_path / "auto"))[1]  # served from the cache


def test_render_outputs_with_jobs_equals_serial(network: Path) -> None:
    result = api.validate(network)
    pairs = api.select(result.policy)  # type: ignore[arg-type]
    assert api.render_outputs(result.policy, pairs, jobs=2) == api.render_outputs(result.policy, pairs, jobs=1)


def test_parallel_error_in_a_worker_reaches_the_caller(network: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = api.validate(network)
    pairs = api.select(result.policy)  # type: ignore[arg-type]
    target = pairs[-1][0]

    def broken(lowered: object) -> list[object]:
        raise ZeroDivisionError("deliberate")

    monkeypatch.setattr(target, "render", broken)
    with pytest.raises(ZeroDivisionError):
        api.render_outputs(result.policy, pairs, jobs=2)


# --- the cache's assumptions, checked on the real targets -------------------------


@pytest.mark.parametrize("bad", ["    platform: {vendor: x}\n    interfaces:\n      eth0: {profile: edge-1g}\n",
                                 "    platform: linux\n    interfaces: 7\n"])
def test_schema_in_parallel_with_build_reports_like_serial(tmp_path: Path, bad: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With jobs the schema check runs beside the build; a tree it refuses is never built into a model."""
    text = generate(1100, interfaces=1)  # enough devices for the parallel path
    text, count = re.subn(r"(  r00550\.example\.net:\n)(    [^\n]*\n)+", lambda m: m[1] + bad, text)
    assert count == 1
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    serial, _, ok1 = api.validate_stages(path, jobs=1)
    both, _, ok2 = api.validate_stages(path, jobs=2)
    assert serial.policy is None and both.policy is None and not ok1 and not ok2
    assert serial.diagnostics == both.diagnostics
    assert all(d.code.startswith("QOS01") for d in both.diagnostics), both.diagnostics
    assert any(d.location and d.location.line > 1000 for d in both.diagnostics)

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a build that chokes on a tree the schema refuses")

    monkeypatch.setattr(pipeline.validation, "build", crash)
    again, _, _ = api.validate_stages(path, jobs=2)
    assert again.diagnostics == both.diagnostics  # what the build raised is not the user's problem
    path.write_text(generate(1100, interfaces=1))
    with pytest.raises(RuntimeError, match="chokes"):  # on a valid tree it is a bug, and it surfaces
        api.validate_stages(path, jobs=2)


def test_outputs_do_not_depend_on_source_positions(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   network: Path) -> None:
    """Cached outputs are keyed by content, not line numbers: moving a device must not change its files."""
    assert compile_(capsys, str(network), "-o", str(tmp_path / "a"), "--no-cache")[0] == 0
    text = network.read_text().replace("devices:\n", "# a comment\n\ndevices:\n\n")
    network.write_text("# header\n# more\n" + text.replace("\n  r0001", "\n\n  # gap\n  r0001"))
    assert compile_(capsys, str(network), "-o", str(tmp_path / "b"), "--no-cache")[0] == 0
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_device_outputs_depend_only_on_its_own_block(network: Path, tmp_path: Path) -> None:
    """A device's files depend on its block and the shared sections, never on other devices (the cache key)."""
    full = {o.path: o.text for o in api.compile_policy(api.validate(network))}
    text = network.read_text()
    head, devices = text.split("devices:\n")
    blocks = re.split(r"(?m)^(?=  \S)", devices)[1:]
    for block in blocks[:6] + blocks[-6:]:
        network.write_text(head + "devices:\n" + block)  # same path: linux-tc names its source file
        outs = api.compile_policy(api.validate(network))
        assert outs and all(full[o.path] == o.text for o in outs)


# --- incremental compile ---------------------------------------------------------


def test_second_compile_rewrites_only_the_changed_device(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       network: Path, fast_spy: list[bool],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    assert compile_(capsys, str(network), "-o", str(out))[0] == 0
    before = stamps(out)
    network.write_text(change_one_device(network.read_text(), "r00007.example.net"))
    large = emit.REMOVE_LATER_FILES
    monkeypatch.setattr(emit, "REMOVE_LATER_FILES", 1)  # the old folder removed in the background, as a large one
    code, err = compile_(capsys, str(network), "-o", str(out))
    monkeypatch.setattr(emit, "REMOVE_LATER_FILES", large)
    for _ in range(100):  # (wait for the remover)
        if not list(tmp_path.glob(".qosc-work-*")):
            break
        time.sleep(0.1)
    assert code == 0 and fast_spy == [False, True]
    after = stamps(out)
    assert after.keys() == before.keys()
    rewritten = sorted(p for p in after if after[p] != before[p])
    assert rewritten and all("/r00007.example.net" in p for p in rewritten), rewritten
    assert f"{len(rewritten)} changed ({N - 1} pairs unchanged, from the cache)" in err
    assert compile_(capsys, str(network), "-o", str(tmp_path / "full"), "--no-cache")[0] == 0
    assert tree(out) == tree(tmp_path / "full")
    # that publish switched the device's folder: the files linked into the new one and unlinked from the old
    # one have a new ctime, but the same content: the next compile takes them all from the cache
    code, err = compile_(capsys, str(network), "-o", str(out))
    assert code == 0 and f"0 changed ({N} pairs unchanged, from the cache)" in err, err


EDITS = [
    ("one value", lambda t: change_one_device(t, "r00013.example.net")),
    ("a new interface (lines shift below)", lambda t: t.replace(
        "  r00002.example.net:\n    platform: junos-m-series\n    interfaces:\n",
        "  r00002.example.net:\n    platform: junos-m-series\n    interfaces:\n"
        "      so-7/0/0: {profile: m-core-10g}\n")),
    ("a device removed", lambda t: re.sub(r"(?ms)^  r00004\.example\.net:.*?(?=^  r00005)", "", t)),
    ("a device renamed", lambda t: t.replace("  r00006.example.net:", "  r00006-renamed.example.net:")),
    ("a device added in the middle", lambda t: t.replace(
        "  r00010.example.net:", "  new1.example.net:\n    platform: linux\n    interfaces:\n"
        "      eth0: {profile: edge-1g}\n  r00010.example.net:")),
    ("a device with target warnings", lambda t: t.replace("  r00012.example.net:\n", _block(t, "r00002.example.net")
                                                          .replace("r00002", "m2", 1) + "  r00012.example.net:\n")),
    ("an error in one device", lambda t: t.replace("      eth0: {profile: edge-1g}\n  r00010",
                                                   "      eth0: {profile: edge-1g, speed: fast}\n  r00010")),
    ("the error fixed", lambda t: t.replace(", speed: fast}", "}")),
    # what the checks across devices read (qosc.checks.network) changes with one device
    ("an edge that trusts nothing: a device rule's warning (QOS081), replayed while the device is unchanged",
     lambda t: t.replace("  r00008.example.net:", "  w1.example.net:\n    platform: junos-mx\n    interfaces:\n"
                         "      xe-0/0/0: {role: edge, speed: 1G, trust: none}\n  r00008.example.net:")),
    ("a VLAN edge that classifies on PCP: a claim (QOS097 at the first device)", lambda t: t.replace(
        "  r00010.example.net:", _vlan("v1") + "  r00010.example.net:")),
    ("a second one above it: the claim moves", lambda t: t.replace("  r00003.example.net:",
                                                                   _vlan("v0") + "  r00003.example.net:")),
    ("the first one's interface no longer classifies on PCP: the claim moves back", lambda t: t.replace(
        _vlan("v0"), _vlan("v0").replace("trust: [dscp, pcp]", "trust: [dscp]"))),
    ("a speed new to the network", lambda t: t.replace(_vlan("v1"), _vlan("v1").replace("speed: 1G", "speed: 40G"))),
    ("an MTU above every other", lambda t: t.replace("speed: 40G", "speed: 40G, mtu: 9000B")),
    ("an MPLS core: the context of every device changes", lambda t: t.replace(
        "  r00015.example.net:", "  m1.example.net:\n    platform: junos-mx\n    interfaces:\n"
        "      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls, trust: [dscp, exp], rewrite: [dscp],"
        " services: [best-effort, assured]}\n  r00015.example.net:")),
    ("the MPLS core's description", lambda t: t.replace("services: [best-effort, assured]}\n  r00015",
                                                        "services: [best-effort, assured], description: c}\n  r00015")),
    ("a shared profile", lambda t: t.replace("core-10g: {role: core, speed: 10G", "core-10g: {role: core, speed: 20G")),
    ("a service", lambda t: t.replace("lbe: {kind: lbe, queue: {share: 1%", "lbe: {kind: lbe, queue: {share: 2%")),
    ("lines inserted above everything", lambda t: "# moved\n\n" + t),
    ("two devices swapped", lambda t: _swap(t, "r00020.example.net", "r00021.example.net")),
    ("a description with quotes", lambda t: change_one_device(t, "r00022.example.net").replace(
        "changed by the benchmark", "'quoted' \\\"x\\\" ; { } # !")),
]
FAST = {"one value", "a new interface (lines shift below)", "a device removed", "a device renamed",
        "a device added in the middle", "a device with target warnings", "the error fixed", "two devices swapped",
        "an edge that trusts nothing: a device rule's warning (QOS081), replayed while the device is unchanged",
        "a VLAN edge that classifies on PCP: a claim (QOS097 at the first device)",
        "a second one above it: the claim moves",
        "the first one's interface no longer classifies on PCP: the claim moves back", "a speed new to the network",
        "an MTU above every other", "the MPLS core's description"}
"""The edits that only devices changed (no error, the same MPLS cores): validated incrementally."""


def _vlan(name: str) -> str:
    return (f"  {name}.example.net:\n    platform: junos-mx\n    interfaces:\n      xe-0/0/0: {{role: edge, speed: 1G, "
            "encapsulation: vlan, trust: [dscp, pcp], services: [best-effort, assured]}\n")


def _block(text: str, name: str) -> str:
    found = re.search(rf"(?ms)^  {re.escape(name)}:.*?(?=^  \S|\Z)", text)
    assert found
    return found.group()


def _swap(text: str, a: str, b: str) -> str:
    pa = re.search(rf"(?ms)^  {re.escape(a)}:.*?(?=^  \S)", text)
    pb = re.search(rf"(?ms)^  {re.escape(b)}:.*?(?=^  \S)", text)
    assert pa and pb and pa.end() == pb.start()
    return text[:pa.start()] + pb.group() + pa.group() + text[pb.end():]


@pytest.mark.slow
def test_incremental_compiles_equal_full_compiles(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  network: Path, fast_spy: list[bool]) -> None:
    """After every edit, the cached compile reports and writes exactly what a full compile does."""
    inc, full = tmp_path / "inc", tmp_path / "full"
    assert compile_(capsys, str(network), "-o", str(inc))[0] == 0
    assert compile_(capsys, str(network), "-o", str(full), "--no-cache")[0] == 0
    text = network.read_text()
    for label, edit in EDITS:
        new = edit(text)
        assert new != text, label
        text = new
        network.write_text(text)
        seen = len(fast_spy)
        got = compile_(capsys, str(network), "-o", str(inc))
        want = compile_(capsys, str(network), "-o", str(full), "--no-cache")
        assert (got[0], re.sub(r" \(\d+ pairs unchanged, from the cache\)", "", got[1])) == want, label
        assert tree(inc) == tree(full), label
        # device-only edits took the incremental path; shared sections, errors and new MPLS cores did not
        assert fast_spy[seen] is (label in FAST), label
        if "\n  w1.example.net:" in text and got[0] == 0:  # a device rule's finding, replayed or found again
            assert "warning[QOS081]: edge interface w1.example.net:xe-0/0/0 trusts nothing" in got[1], label
        claims = re.findall(r"QOS097\]: service 'assured' has no PCP value: (\w+)\.example\.net", got[1])
        assert claims == {"a VLAN edge that classifies on PCP: a claim (QOS097 at the first device)": ["v1"],
                          "a second one above it: the claim moves": ["v0"]}.get(label, claims), (label, claims)
        assert claims in ([], ["v1"], ["v0"]), (label, claims)  # once in the network, at the first that makes it
    assert fast_spy[0] is False


def test_deleted_or_edited_outputs_are_written_again(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     network: Path) -> None:
    out = tmp_path / "out"
    assert compile_(capsys, str(network), "-o", str(out))[0] == 0
    want = tree(out)
    files = sorted(out.rglob("*.conf"))
    files[0].unlink()
    files[1].write_text("edited by hand\n")
    os.utime(files[2], ns=(0, 0))  # same content, other mtime: re-rendered, found equal, not rewritten
    code, err = compile_(capsys, str(network), "-o", str(out))
    assert code == 0 and " 2 changed" in err
    assert tree(out) == want


def test_policy_with_includes_is_cached_by_tree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = generate(8)
    head, devices = text.split("devices:\n")
    (tmp_path / "devices.yaml").write_text("devices:\n" + devices)
    main_ = tmp_path / "main.yaml"
    main_.write_text(head + "include: [devices.yaml]\n")
    out = tmp_path / "out"
    assert compile_(capsys, str(main_), "-o", str(out))[0] == 0
    code, err = compile_(capsys, str(main_), "-o", str(out))
    assert code == 0 and "0 changed (8 pairs unchanged, from the cache)" in err
    (tmp_path / "devices.yaml").write_text(change_one_device("devices:\n" + devices, "r00001.example.net"))
    code, err = compile_(capsys, str(main_), "-o", str(out))
    assert code == 0 and "(7 pairs unchanged, from the cache)" in err
    assert compile_(capsys, str(main_), "-o", str(tmp_path / "full"), "--no-cache")[0] == 0
    assert tree(out) == tree(tmp_path / "full")


def test_no_cache_leaves_no_cache(capsys: pytest.CaptureFixture[str], tmp_path: Path, network: Path) -> None:
    assert compile_(capsys, str(network), "-o", str(tmp_path / "out"), "--no-cache")[0] == 0
    assert not (tmp_path / "cache").exists()
    assert compile_(capsys, str(network), "-o", str(tmp_path / "out"))[0] == 0
    assert [p.name.endswith(".qosc-cache.json") for p in (tmp_path / "cache").iterdir()] == [True]
    assert not any((tmp_path / "out").rglob(".qosc*"))  # the cache never lives among the configs


def test_a_damaged_cache_is_an_empty_cache(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           network: Path) -> None:
    out = tmp_path / "out"
    assert compile_(capsys, str(network), "-o", str(out))[0] == 0
    want = tree(out)
    for store in (tmp_path / "cache").iterdir():
        store.write_bytes(store.read_bytes()[:100])
    code, err = compile_(capsys, str(network), "-o", str(out))
    assert code == 0 and "from the cache" not in err and tree(out) == want


# --- invalidation when qosc itself changes -----------------------------------------


def _copy_qosc(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "qosc", dest / "qosc", ignore=ignore)
    shutil.copytree(ROOT / "templates", dest / "templates", ignore=ignore)
    return dest


def _run_copy(src: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run([sys.executable, "-m", "qosc", "compile", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=src, check=False)  # not the checkout: its qosc would come first on sys.path
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@pytest.mark.slow
def test_cache_invalidated_when_a_template_or_qosc_changes(tmp_path: Path, network: Path) -> None:
    src = _copy_qosc(tmp_path / "src")
    out = tmp_path / "out"
    _run_copy(src, str(network), "-o", str(out))
    assert "from the cache" in _run_copy(src, str(network), "-o", str(out))
    # a serializer (the JUNOS .conf one; it replaced the template): its outputs change, and match a full compile
    serializer = src / "qosc" / "targets" / "junos" / "serialize.py"
    text = serializer.read_text()
    anchor = "    out = Writer()\n    _header(out, doc)\n\n    def emit("
    assert anchor in text
    changed = anchor.replace("Writer()\n", "Writer()\n    out.line(\"# template revision 2\")\n")
    serializer.write_text(text.replace(anchor, changed))
    err = _run_copy(src, str(network), "-o", str(out))
    assert "from the cache" not in err
    confs = sorted(out.rglob("*.conf"))
    assert confs and all(p.read_text().startswith("# template revision 2\n") for p in confs)
    _run_copy(src, str(network), "-o", str(tmp_path / "full"), "--no-cache")
    assert tree(out) == tree(tmp_path / "full")
    # qosc's own code (a comment is enough: the fingerprint cannot know what a change means)
    module = src / "qosc" / "targets" / "linux_tc" / "__init__.py"
    module.write_text(module.read_text() + "\n# revision 2\n")
    assert "from the cache" not in _run_copy(src, str(network), "-o", str(out))
    # platform data
    assert "from the cache" in _run_copy(src, str(network), "-o", str(out))
    data = src / "qosc" / "targets" / "linux_tc" / "platforms" / "linux.json"
    data.write_text(data.read_text() + "\n")
    assert "from the cache" not in _run_copy(src, str(network), "-o", str(out))


def test_fingerprint_covers_sources_templates_and_environment(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    src = _copy_qosc(tmp_path / "src")
    roots = (src / "qosc", src / "templates")
    first = cache.code_fingerprint(roots)
    (src / "templates" / "sls" / "sls.md.j2").write_text("!\n")
    cache._files_fingerprint.cache_clear()
    second = cache.code_fingerprint(roots)
    assert second != first
    monkeypatch.setenv("QOSC_TC_SELFCHECK", "1")
    assert cache.code_fingerprint(roots) != second
    monkeypatch.setenv("QOSC_CACHE_DIR", str(tmp_path / "elsewhere"))  # where the cache lives is no input
    monkeypatch.delenv("QOSC_TC_SELFCHECK")
    assert cache.code_fingerprint(roots) == second


# --- segmentation -----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "qosc: 1\nname: x\nservices: {a: {default: true}}\ndevices:\n  r1: &a {platform: linux}\n  r2: *a\n",
    "qosc: 1\nname: \"multi\nline: x\"\ndevices:\n  r1: {platform: linux}\n",
    "qosc: 1\ndevices: {r1: {platform: linux}}\n",
    "qosc: 1\ninclude: [x.yaml]\ndevices:\n  r1: {platform: linux}\n",
    "qosc: 1\ndevices:\n  r1: {platform: linux}\n  r1: {platform: linux}\n",
    "qosc: 1\ndevices:\n  'quoted': {platform: linux}\n",
    "qosc: 1\ndevices:\n  yes: {platform: linux}\n",
    "qosc: 1\ndevices:\n    r1: {platform: linux}\n  r2: {}\n",
    "qosc: 1\n---\ndevices:\n  r1: {platform: linux}\n",
    "qosc: 1\r\ndevices:\r\n  r1: {platform: linux}\r\n",
])
def test_segmentation_refuses_what_it_cannot_cut_safely(text: str) -> None:
    """Either the cut refuses the text, or the parsed tree disagrees with the cut (so the cut is not used)."""
    segs = cache.segment(text)
    if segs is not None:
        try:
            tree = load_text(text, "p.yaml")
        except InputError:
            return
        assert not cache._agrees(tree, segs)


def test_segmentation_cuts_devices_and_profiles() -> None:
    text = generate(3)
    segs = cache.segment(text)
    assert segs is not None
    sids = [s.sid for s in segs]
    assert [s for s in sids if s.startswith("d:")] == ["d:r00000.example.net", "d:r00001.example.net",
                                                       "d:r00002.example.net"]
    assert "p:core-10g" in sids and "g:services" in sids and "g:devices" in sids
    assert "".join(text[s.start:s.end] for s in segs) == text
    for s in segs:
        assert text.count("\n", 0, s.start) + 1 == s.line


def test_a_profile_change_rerenders_only_the_devices_using_it(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              network: Path, fast_spy: list[bool]) -> None:
    out = tmp_path / "out"
    assert compile_(capsys, str(network), "-o", str(out))[0] == 0
    before = stamps(out)
    users = {m.group(1) for m in re.finditer(r"(?m)^  (\S+):\n(?:    .*\n)*?      \S+: \{profile: m-core-10g\}",
                                             network.read_text())}
    assert users == {"r00002.example.net"}
    network.write_text(network.read_text().replace("m-core-10g: {role: core, speed: 10G",
                                                    "m-core-10g: {role: core, speed: 40G"))
    code, err = compile_(capsys, str(network), "-o", str(out))
    assert code == 0 and fast_spy == [False, False]  # a shared section changed: validated in full
    assert f"({N - 1} pairs unchanged, from the cache)" in err
    after = stamps(out)
    assert {p for p in after if after[p] != before[p]} == {"junos/r00002.example.net.conf",
                                                           "junos/r00002.example.net.set"}
    assert compile_(capsys, str(network), "-o", str(tmp_path / "full"), "--no-cache")[0] == 0
    assert tree(out) == tree(tmp_path / "full")


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize("script, args, pattern", [
    ("compile_scale.py", ["-n", "60", "--no-aerleon", "--incremental"],
     r"^compile_scale: 60 devices x 16 interfaces, \d+ files, [\d.]+ MB of configuration \([\d.]+ MB in all\) in "
     r"[\d.]+ s = [\d.]+ MB/s, peak RSS \d+ MiB, jobs auto, verify (on|off) \| one device changed: [\d.-]+ s with "
     r"the compile server \(qosc serve; its first compile [\d.]+ s\), [\d.]+ s in a process of its own, peak "
     r"RSS \d+ MiB \(\d+ files for \d+ device/target pairs, 1 changed \(\d+ pairs unchanged, from the cache\)\)$"),
    ("validate_scale.py", ["-n", "60"], r"^validate_scale: .*60 devices"),
    ("read_scale.py", ["--mb", "0.4", "--filters", "500"],
     r"^read_scale: junos curly [\d.]+ MB in [\d.]+ s = [\d.]+ MB/s, peak RSS \d+ MiB \(baseline split \d+ MB/s, "
     r"ratio [\d.]+x\); linear: .* \| tc -j 500 filters [\d.]+ MB in [\d.]+ s = [\d.]+ MB/s, peak RSS \d+ MiB "
     r"\(baseline json.loads \d+ MB/s, ratio [\d.]+x\)$"),
    ("publish.py", ["-n", "40", "--runs", "1"],
     r"^publish: 40 files, median of 1: exchange \(now\) [\d.]+ ms all changed / [\d.]+ ms one changed; "
     r"(per-file \(before\) [\d.]+ ms all changed / [\d.]+ ms one changed; )?plain writes [\d.]+ ms all changed"),
])
def test_benchmark_scripts_run_and_print_one_line(script: str, args: list[str], pattern: str) -> None:
    """The benchmarks are code too: a small run of each must work and print its one summary line."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 and re.match(pattern, lines[0]), proc.stdout
