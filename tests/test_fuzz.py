"""Fuzzing: plausible but wrong policies end in diagnostics or in a compile, never in an exception.

Hypothesis starts from valid policies (the reference policies and the
injection suite's all-target policy) and breaks them the ways people and
tools do: keys deleted, misspelt, added or duplicated; values of the wrong
type, out of range, huge, negative, empty, unicode; references to names that
do not exist; units mangled; the YAML text itself cut and garbled; includes
that loop; and (issue 18) non-finite numbers, Unicode digits, IPv6 zone ids,
huge links and RTTs put exactly where each is read, where not even a known
QOS199 passes.  Every example must end in diagnostics (validate) or, when clean,
in a compile for every target, within a bounded time, and every diagnostic
must format in every output format.  About 5,000 examples per run in CI,
sized to keep to its share of scripts/test (QOSC_FUZZ_SCALE=0.1 for a quick
local run).

The examples are derandomized: every run (CI included) draws the same ones, so
a red CI names a change, not a lucky draw.  To explore, draw new ones, ten
times as many (the Hypothesis profile "deep", conftest.py):
QOSC_FUZZ=deep python3 -m pytest -n auto tests/test_fuzz.py
(QOSC_FUZZ_SCALE multiplies further; what that finds goes into
tests/regressions/, which every run replays).

A crasher found here is kept as tests/regressions/<name>.yaml and runs every
time (test_regressions below); a first line `# xfail: <reason>` marks one
that waits for a fix in code this suite does not own.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import fuzz_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosc import api
from qosc.cli import main
from qosc.diagnostics import Diagnostic, format_github, format_json, format_text

ROOT = Path(__file__).resolve().parent.parent
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
SECONDS = 5.0  # bound on one example (validate + compile for every target), generous for a loaded CI runner


ALL_TARGETS = """\
qosc: 1
name: fuzz
description: every target
defaults: {mtu: 1500B, rtt: 20ms}
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, buffer: 40%, priority: high}, drop-profile: be}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    queue: {share: 40%, buffer: 40%, priority: high}
    drop-profile: {low: af-low, medium: af-low, high: af-high}
    policer: ar-in
  ip-premium: {kind: premium, queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}, policer: premium-in}
  lbe: {kind: lbe, queue: {share: 1%, buffer: 1%, priority: low}}
  network-control: {kind: network-control, queue: {share: 5%, buffer: 5%, priority: high}}
drop-profiles:
  be: {points: [[50, 10], [90, 100]], interpolate: true}
  af-low: {min: 60, max: 95, max-probability: 5%}
  af-high: {min: 20, max: 60, max-probability: 20%}
policers:
  ar-in: {cir: 50M, cbs: 2.5MB, pir: 100M, pbs: 5MB, conform: af21, exceed: af22, violate: af23}
  premium-in: {cir: 10M, cbs: 64KB}
classifiers:
  site-in:
    rules:
      - {name: video, match: {source: [198.18.20.0/24], protocol: [udp], destination-port: [5004-5006]},
         service: ip-premium}
      - {name: bulk, match: {source: [198.18.20.0/24, "2001:db8::/48"], protocol: [tcp]}, service: assured}
profiles:
  edge-1g: {role: edge, speed: 1G, classifier: site-in, port-type: 1p7q8t}
  core-10g: {role: core, speed: 10G, port-type: 1p7q8t}
devices:
  mx1: {platform: junos-mx, interfaces: {xe-0/0/0: {profile: edge-1g}, xe-0/0/1: {profile: core-10g}}}
  gsr1: {platform: ios-gsr, interfaces: {POS0/0: {profile: core-10g}}}
  xe1: {platform: ios-xe, interfaces: {GigabitEthernet0/0/0: {profile: edge-1g}}}
  cat1: {platform: catalyst6500, interfaces: {GigabitEthernet3/1: {profile: edge-1g}}}
  lx1: {platform: linux, interfaces: {eth0: {profile: edge-1g}, eth1: {profile: core-10g}}}
hosts:
  se1:
    platform: linux
    interfaces: {eth0: {speed: 1G}}
    paths: [{peer: se9, rtt: 15ms, rate: 200M, service: assured}]
"""

SEEDS = [yaml.safe_load(ALL_TARGETS)] + [yaml.safe_load(p.read_text())
                                         for p in sorted((ROOT / "policies").glob("*.yaml"))]

WRONG = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -1, 1, 2**63 - 1, 2**63, 10**30, -10**30, 1e308, -1e-308, 0.5, 100, 101, 65536, 4294967296]),
    st.text(max_size=20), st.text(alphabet=st.characters(codec="utf-8"), min_size=200, max_size=2000),
    st.sampled_from(["", " ", "10G", "10 G", "10g", "1e400", "-5%", "500%", "5%%", "0x10", "0b1", "1_000", ".inf",
                     "af21", "af99", "cs8", "ef", "64", "-1", "10ms", "-10ms", "10h", "1KB", "1KiB", "NaN", "~",
                     "null", "yes", "no", "0%", "100%", "100.0001%", "2.5G", "1T", "1P", "1E", "99999999999999G",
                     "198.18.0.0/33", "198.18.0.1/24", "::/129", "fe80::1%eth0", "tcp", "udp", "65536", "1-0",
                     "transmit", "drop", "edge", "core", "transparent", "linux", "junos-mx", "nonexistent"]),
    st.sampled_from(["Infinity", "-Infinity", "nan", "1e308", "-1e308", float("inf"), float("nan"), 1e308,  # issue 18
                     "\u00b2", "\u0661\u0667", "\uff11\uff17", "\u0665\u0660\u0660\u0664",
                     "5004-\u0665\u0660\u0660\u0666", "fe80::1%eth0/128", "fe80::%1/64", "120G", "999T", "1000T",
                     "65535ms", "3600s"]),
    st.lists(st.integers(-5, 200), max_size=5), st.lists(st.text(max_size=5), max_size=5),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=3), st.just([[15, 30], [10, 50]]),
    st.just([[1, 2, 3]]), st.just({"low": "nope"}), st.just([]), st.just({}),
)
KEYS = st.one_of(st.sampled_from(["name", "description", "queue", "share", "priority", "strict", "rate-cap",
                                  "dscp", "default", "kind", "policer", "drop-profile", "points", "min", "max",
                                  "cir", "cbs", "pir", "pbs", "ebs", "role", "speed", "profile", "services",
                                  "classifier", "rules", "match", "platform", "interfaces", "include", "hosts",
                                  "paths", "sls", "shared-with", "ceiling", "aqm", "ecn", "trust", "shape",
                                  "unit", "mtu", "port-type", "set-dscp", "violate", "color-aware"]),
                 st.text(max_size=12))


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            found += paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += paths(v, prefix + (i,))
    return found


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def mutate(draw: Any, doc: Any) -> None:
    """One structural mutation somewhere in `doc` (in place)."""
    where = draw(st.sampled_from(paths(doc)))
    node = get(doc, where)
    parent = get(doc, where[:-1]) if where else None
    op = draw(st.sampled_from(["delete", "wrong", "wrong", "add", "rename", "duplicate", "undefined", "scale",
                               "mangle", "nest", "empty", "swap", "retune", "retune", "retune"]))
    if op == "delete" and parent is not None:
        del parent[where[-1]]
    elif op == "wrong" and parent is not None:
        parent[where[-1]] = copy.deepcopy(draw(WRONG))  # st.just() values are shared: never mutate them
    elif op == "add" and isinstance(node, dict):
        node[draw(KEYS)] = copy.deepcopy(draw(WRONG))
    elif op == "rename" and isinstance(parent, dict):
        value = parent.pop(where[-1])
        parent[draw(KEYS)] = value
    elif op == "duplicate" and isinstance(parent, dict):
        parent[str(where[-1]) + draw(st.sampled_from(["", "-2", ".x", "_"]))] = copy.deepcopy(node)
    elif op == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(node))
    elif op == "undefined" and isinstance(node, str) and parent is not None:
        parent[where[-1]] = draw(st.sampled_from(["nope", "best-effort", "lbe", "edge-1g", "site-in", "ar-in",
                                                  node + "x", node.upper()]))
    elif op == "scale" and isinstance(node, (int, float)) and not isinstance(node, bool) and parent is not None:
        parent[where[-1]] = node * draw(st.sampled_from([0, -1, 10, 1000, 10**9, 10**20, 0.001]))
    elif op == "mangle" and isinstance(node, str) and parent is not None:
        parent[where[-1]] = draw(st.sampled_from([node * 50, node[::-1], node + "%", node.replace("%", ""),
                                                  "-" + node, node + " ", node.replace("G", "X"), node[:1]]))
    elif op == "nest" and parent is not None:
        parent[where[-1]] = draw(st.sampled_from([[node], {"x": node}, [[[[[node]]]]]]))
    elif op == "empty" and parent is not None:
        parent[where[-1]] = type(node)() if isinstance(node, (dict, list, str)) else None
    elif op == "retune" and parent is not None and not isinstance(node, bool):
        # a value of the right kind, at an extreme: the schema passes it, the checks and targets must cope
        if isinstance(node, str) and re.fullmatch(r"[0-9.]+ *[A-Za-z%]*", node):
            number = draw(st.sampled_from(["0", "0.0001", "0.5", "1", "7", "33.3", "99.99", "100", "100.5", "101",
                                           "1000", "65535", "65536", "4294967296", "1e3", "00", "1.5.5"]))
            parent[where[-1]] = re.sub(r"^[0-9.]+", number, node)
        elif isinstance(node, int):
            parent[where[-1]] = draw(st.one_of(st.integers(-10, 300), st.integers(0, 10**13)))
        elif isinstance(node, list) and all(isinstance(x, str) for x in node):
            parent[where[-1]] = draw(st.lists(st.sampled_from(["be", "ef", "cs1", "cs6", "cs7", "af11", "af21",
                                                               "af22", "af23", "le", "0", "63", "tcp", "udp"]),
                                              max_size=8))
    elif op == "swap" and parent is not None:
        other = draw(st.sampled_from(paths(doc)))
        if other and not (where[:len(other)] == other or other[:len(where)] == where):
            a, b = get(doc, other), node
            get(doc, other[:-1])[other[-1]] = copy.deepcopy(b)
            parent[where[-1]] = copy.deepcopy(a)


@st.composite
def broken_policies(draw: Any) -> str:
    doc = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        mutate(draw, doc)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)


@st.composite
def garbled_texts(draw: Any) -> str:
    """The YAML text itself damaged: cut, spliced, characters inserted or deleted."""
    text = yaml.safe_dump(draw(st.sampled_from(SEEDS)), sort_keys=False)
    for _ in range(draw(st.integers(1, 5))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        piece = draw(st.sampled_from(["", ":", "- ", "{", "}", "[", "]", "\n", "\t", "  ", "'", '"', "&a ", "*a",
                                     "!!str ", "<<: ", "? ", "|\n", "#", "\x00", "\ufeff", "\u2028", "é"]))
        text = text[:i] + piece + text[j:]
    return text


# Issue 18: values of the right key but hostile (non-finite, Unicode digits, zone ids, huge links and RTTs) put
# exactly where each is read, so every target meets them: diagnostics or a compile, never a traceback or QOS199.
NON_FINITE = ["Infinity", "-Infinity", "nan", "NaN", "1e308", "-1e308", float("inf"), float("-inf"), float("nan"),
              1e308, -1e308, 999, 100.000001, "100.5%", "\u0665\u0660", "\uff15\uff10%"]
HUGE_RATES = ["120G", "121G", "999T", "1000T", "1P", "4294967296", "99999999999999G", "1", "0.001k"]
HOSTILE: dict[tuple[Any, ...], list[Any]] = {
    ("classifiers", "site-in", "rules", 0, "match", "protocol", 0):
        ["\u00b2", "\u0661\u0667", "\uff11\uff17", "\u0968", "256", "017", "47", " 17", "+17"],
    ("classifiers", "site-in", "rules", 0, "match", "destination-port", 0):
        ["\u0665\u0660\u0660\u0664", "5004-\u0665\u0660\u0660\u0666", "\uff15\uff10\uff10\uff14", "65535",
         "0-65535", "65536", " 5004", "5_004", "\u00b2"],
    ("classifiers", "site-in", "rules", 1, "match", "source", 1):
        ["fe80::1%eth0/128", "fe80::%1/64", "2001:db8::%x/48", "fe80::1%25eth0/128", "::/0", "fe80::1/128"],
    ("classifiers", "site-in", "rules", 0, "match", "source", 0): ["198.18.20.0%eth0/24", "0.0.0.0/0"],
    ("drop-profiles", "be", "points", 0, 0): NON_FINITE,
    ("drop-profiles", "be", "points", 1, 1): NON_FINITE,
    ("drop-profiles", "af-low", "min"): NON_FINITE,
    ("drop-profiles", "af-high", "max"): NON_FINITE,
    ("drop-profiles", "af-high", "max-probability"): NON_FINITE,
    ("profiles", "core-10g", "speed"): HUGE_RATES,
    ("profiles", "edge-1g", "speed"): HUGE_RATES,
    ("policers", "ar-in", "cir"): HUGE_RATES,
    ("services", "ip-premium", "queue", "rate-cap"): HUGE_RATES,
    ("hosts", "se1", "interfaces", "eth0", "speed"): HUGE_RATES,
    ("hosts", "se1", "paths", 0, "rate"): HUGE_RATES,
    ("hosts", "se1", "paths", 0, "rtt"): ["65535ms", "3600s", "3600000ms", "1us", "0ms", "\u0661\u0660ms"],
}


@st.composite
def hostile_numbers(draw: Any) -> str:
    doc = copy.deepcopy(SEEDS[0])
    for where in draw(st.lists(st.sampled_from(sorted(HOSTILE, key=repr)), min_size=1, max_size=3, unique=True)):
        get(doc, where[:-1])[where[-1]] = draw(st.sampled_from(HOSTILE[where]))
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)


def check(text: str, directory: Path, cli: bool = False, known: bool = True) -> None:
    """Diagnostics or a full compile, in bounded time, every diagnostic printable; raises on anything else.

    known=False: a QOS199 fails even when it is one of the KNOWN_BUGS."""
    path = directory / "p.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    start = time.perf_counter()
    result = api.validate(path)
    diags = list(result.diagnostics)
    if result.ok:
        api.compile_policy(result)
        diags = result.diagnostics
        internal = [d for d in diags if d.code == "QOS199" and not (known and known_bug(d))]
        assert not internal, internal
    else:
        assert any(d.is_error for d in diags), "rejected without an error"
    if cli:
        code = main(["compile", "-q", "-j", "1", "--no-cache", str(path), "-o", str(directory / "out")])
        assert code in (0, 1), code
    seconds = time.perf_counter() - start
    assert seconds < SECONDS, f"{seconds:.1f} s"
    for d in diags:
        assert isinstance(d, Diagnostic) and d.code.startswith("QOS")
        format_text(d), format_json(d), format_github(d)


KNOWN_BUGS: list[re.Pattern[str]] = [
    # None open. A QOS199 the fuzz finds and that cannot be fixed at once gets a pattern here (matched against the
    # message) and a tests/regressions/<name>.yaml with `# xfail: <reason>`; the ones listed before are fixed
    # (ios-gsr-police-below-range, ios-mqc-dscp-le, catalyst6500-remark-le).
]


def known_bug(d: Diagnostic) -> bool:
    return any(p.search(d.message) for p in KNOWN_BUGS)


@pytest.fixture
def workdir() -> Any:
    """One per test (not per module): the property tests run on different xdist workers."""
    with tempfile.TemporaryDirectory(prefix="qosc-fuzz-") as name:
        yield Path(name)


def _settings(examples: int) -> settings:
    # derandomized in the ci profile, sized by the loaded profile (conftest.py, helpers.fuzz_examples)
    return settings(max_examples=fuzz_examples(examples), deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@_settings(3_000)
@given(text=broken_policies())
def test_structurally_broken_policies(workdir: Path, text: str) -> None:
    check(text, workdir)


@pytest.mark.slow
@_settings(700)
@given(text=hostile_numbers())
def test_hostile_numbers_on_every_target(workdir: Path, text: str) -> None:
    check(text, workdir, known=False)  # no QOS199 at all, not even a known bug


@pytest.mark.slow
@_settings(1_200)
@given(text=garbled_texts())
def test_garbled_yaml(workdir: Path, text: str) -> None:
    check(text, workdir)


@pytest.mark.slow
@_settings(250)
@given(text=broken_policies())
def test_broken_policies_through_the_command_line(workdir: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    check(text, workdir, cli=True)
    err = capsys.readouterr().err
    assert "Traceback" not in err


@_settings(200)
@given(cycle=st.integers(1, 6), extra=st.sampled_from(["", "name: other\n", "services: {}\n", "include: 7\n",
                                                       "include: [missing.yaml]\n", "include: ['']\n"]))
def test_include_graphs(workdir: Path, cycle: int, extra: str) -> None:
    """Includes that loop back (1..6 files), or are broken: refused with QOS005/6/7, never a hang."""
    sub = workdir / f"inc{cycle}"
    sub.mkdir(exist_ok=True)
    for i in range(cycle):
        (sub / f"f{i}.yaml").write_text(f"include: [f{(i + 1) % cycle}.yaml]\n" + (extra if i == 0 else ""))
    main_text = ALL_TARGETS + "include: [f0.yaml]\n"
    check(main_text, sub)
    result = api.validate(sub / "p.yaml")
    assert {d.code for d in result.diagnostics if d.is_error} & {"QOS005", "QOS006", "QOS007", "QOS010", "QOS011"}


def test_seeds_are_valid(workdir: Path) -> None:
    """The fuzzer starts from policies that compile, so its mutations are near misses, not noise."""
    for seed in SEEDS:
        (workdir / "seed.yaml").write_text(yaml.safe_dump(seed, sort_keys=False))
        result = api.validate(workdir / "seed.yaml")
        assert result.ok, [str(d) for d in result.diagnostics if d.is_error]


def _headers(path: Path) -> dict[str, str]:
    """The `# key: value` lines at the top of a regression file (fixed, xfail, env, needs, expect, verify)."""
    found = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"# (fixed|xfail|env|needs|expect|verify): (.*)", line)
        if not m:
            break
        found[m.group(1)] = m.group(2).strip()
    return found


def _regressions() -> list[Any]:
    cases = []
    for path in sorted(REGRESSIONS.glob("*.yaml")):
        reason = _headers(path).get("xfail")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        cases.append(pytest.param(path, marks=marks, id=path.stem))
    return cases


def _netns() -> bool:
    import shutil
    import subprocess

    if not all(shutil.which(t) for t in ("unshare", "ip", "tc")):
        return False
    probe = ["unshare", "--net", "true"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--net",
                                                                      "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


@pytest.mark.parametrize("path", _regressions())
def test_regressions(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every crasher found so far: diagnostics or a compile, no exception, no internal error (QOS199)."""
    headers = _headers(path)
    if headers.get("needs") == "netns" and not _netns() and os.environ.get("CI", "") in ("", "0", "false"):
        pytest.skip("needs network namespaces (compile --verify)")
    if "env" in headers:
        name, _, value = headers["env"].partition("=")
        monkeypatch.setenv(name, value)
    text = path.read_bytes().decode("utf-8", "surrogatepass")
    check(text, tmp_path, cli=True)
    result = api.validate(tmp_path / "p.yaml")
    if "expect" in headers:
        assert headers["expect"] in {d.code for d in result.diagnostics if d.is_error}
    if result.ok:
        api.compile_policy(result)
    assert not [d for d in result.diagnostics if d.code == "QOS199"]
    if "verify" in headers:  # what this machine's kernel says of the output (tc loading each batch) too
        verified = api.compile([tmp_path / "p.yaml"], verify=True)
        assert verified.outputs and not [d for d in verified.diagnostics if d.code == "QOS199"]
