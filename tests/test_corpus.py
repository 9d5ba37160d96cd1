"""The corpus of public configurations (tests/corpus, issue 22): what qosc's import does with real networks.

Each file of tests/corpus/manifest.json is imported, the written policy
validated, compiled for the same platform and compared with the original by
`equiv` (scripts/corpus-report, in this process).  The targets of issue 22:
no import ends in a traceback, import never writes a policy qosc's own
validate refuses, and at least 90% of the files round-trip clean per class.
A file that applies no QoS qosc reads is clean when import says so: nothing
to lift (QOS201, exit 3, no policy written).
What fails today is marked per file with a strict xfail naming why, so this
suite is green now and a reader fix makes its case pass: strict, that is a
failure until the marker below is removed (move the file out of the table).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
_loader = SourceFileLoader("corpus_report", str(ROOT / "scripts" / "corpus-report"))
_spec = importlib.util.spec_from_loader("corpus_report", _loader)
assert _spec is not None
report: Any = importlib.util.module_from_spec(_spec)
sys.modules["corpus_report"] = report
_loader.exec_module(report)

ENTRIES = report.load_manifest()
FILES = [e["file"] for e in ENTRIES]
LICENCES = {"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "CC-BY-4.0", "CC0-1.0", "public domain"}


EMULATION = ("a link emulator's HTB (root classes without a parent, netem leaves this kernel cannot load): no speed to "
             "put the classes against, QOS141; named, nothing written (exit 1)")
QFX = ("QFX fabric CoS imported as junos-mx (off_platform: qosc has no QFX platform): shares that are no whole "
       "percentage once read as what the strict-high queue leaves are lifted as the whole percentage below (QOS207; "
       "fc1's 1.52 % as 1 %, beyond equiv's rounding), the DSCP rewrite rules differ after the round trip, shared "
       "and dedicated buffers are not read (named)")
AIML = ("lossless RoCEv2 fabric (off_platform: QFX5240): its CoS is bound on the wildcard `et-*` / `unit *` "
        "(named: no interface to lift), with PFC congestion-notification profiles and shared buffers (named): nothing "
        "written")
QFX_FIXED = ("a grammar test of QFX forwarding classes (off_platform), imported as junos-mx: ae1 fixes every packet "
             "it receives into {fc}, a QFX class that an MX port queued by Junos's default map does not schedule: "
             "the port is named, not lifted, and nothing is written")


TRACEBACK: dict[str, str] = {}
"""Files whose import, validate, compile or equiv ends in a traceback: none any more (issue 22)."""
INVALID: dict[str, str] = {}
"""Files whose import writes a policy qosc's own validate refuses: none any more (issue 22)."""
# jvd-llq-an1 and an4 are clean by equiv, the implicit discard at the end of their fronthaul filter included (lifted
# as the classifier's unmatched: drop: tests/test_import_discard.py)
# jvd-ewan-fin-wanedge1-mx304.conf is clean by equiv, its IRB units' unmatched traffic included (a filter's
# catch-all without a class leaves it to Junos's implicit classifier: tests/test_import_classify_only.py)
UNCLEAN = {
    "junos/batfish-class-of-service-comprehensive.set":
        "grammar test: ae1 classifies every family on one unit into classes its scheduler map does not schedule and "
        "rewrites EXP for them: Junos queues those in their classes' own queues with the minimal buffer and WRR "
        "credit of an unconfigured class (Junos CoS guide, Configuring Forwarding Classes), which a policy cannot "
        "say (a service an interface does not carry is queued and marked as the default: QOS116), so ae1 is left "
        "out (QOS087) and equiv finds it missing (QOS171); ae2, fixed into FC-CLASS2 (a service without code "
        "points, classified into without marking; FC-CLASS1 of queue 0 the default service), differs only where "
        "FC-CLASS1 leaves it with EXP 1 at high loss priority, a value the policy gives FC-CLASS3 (named at its line, "
        "QOS172)",
    "junos/batfish-class-of-service-qfx-mcast-fc.set": QFX_FIXED.format(fc="mcast (queue 8)"),
    "junos/batfish-class-of-service-qfx-short-aliases.set": QFX_FIXED.format(fc="be1"),
    "linux/tcconfig-advanced-usage.dump": EMULATION,
    "linux/tcconfig-tc-command-loss.dump": EMULATION,
    "linux/comcast-packet-loss.dump": EMULATION + "; its classification is iptables CLASSIFY, not tc",
    "linux/comcast-all-traffic.dump": EMULATION + "; its classification is iptables CLASSIFY, not tc",
    "linux/kubernetes-tcshaper.dump":
        "per-pod-CIDR shaping: u32 filters on addresses (named: qosc classifies Linux traffic by DSCP) into root "
        "classes without a parent (QOS141): nothing written",
    "junos/jvd-dc5-compute-spine1-qfx5210.conf": QFX,
    "junos/jvd-dc5-superspine1-qfx5230.conf": QFX,
    "junos/jvd-dc5-compute-leaf1-qfx5120.conf": QFX,
    "junos/jvd-aiml-spine1-qfx5240.conf": AIML,
    "junos/jvd-aiml-leaf1-qfx5240.conf": AIML,
}


@functools.cache
def measured(name: str) -> Any:
    entry = next(e for e in ENTRIES if e["file"] == name)
    return report.measure(entry)


def _cases(known: dict[str, str]) -> list[Any]:
    return [pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=known[f])) if f in known else f
            for f in FILES]


def test_the_corpus_is_what_issue_22_asks_for() -> None:
    """At least 40 files from at least six independent public sources, every kind, each file present, under a
    licence that allows redistribution here, and listed in SOURCES.md with its commit."""
    assert len(ENTRIES) >= 60
    assert len({e["repository"] for e in ENTRIES}) >= 6
    assert {e["kind"] for e in ENTRIES} == {"junos", "ios", "catalyst", "linux"}
    assert {e["format"] for e in ENTRIES if e["kind"] == "junos"} >= {"junos set", "junos curly", "junos xml"}
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for e in ENTRIES:
        assert (CORPUS / e["file"]).is_file(), e["file"]
        assert e["licence"] in LICENCES, e
        assert len(e["commit"]) == 40 and e["commit"] in sources, e["file"]
        assert e["file"] in sources, f"{e['file']} is not in SOURCES.md"
        assert e["platform"] in {"junos-mx", "junos-m-series", "junos-acx", "ios-xe", "ios-gsr", "catalyst6500",
                                 "linux"}
        if e["kind"] == "linux":
            assert (CORPUS / e["script"]).is_file(), e["script"]
    assert len(set(FILES)) == len(FILES)
    for table in (TRACEBACK, INVALID, UNCLEAN):
        assert set(table) <= set(FILES), set(table) - set(FILES)


@pytest.mark.parametrize("name", _cases(TRACEBACK))
def test_import_validate_compile_equiv_end_without_a_traceback(name: str) -> None:
    row = measured(name)
    assert not row.tracebacks, row.tracebacks


@pytest.mark.parametrize("name", _cases(INVALID))
def test_import_never_writes_a_policy_qosc_refuses(name: str) -> None:
    row = measured(name)
    assert not row.invalid_written, row.invalid_messages


@pytest.mark.parametrize("name", _cases(UNCLEAN))
def test_round_trip_is_clean_per_class(name: str) -> None:
    row = measured(name)
    if row.clean is None and row.note.startswith("compiled configuration not shown"):
        pytest.skip(row.note)
    assert row.clean, (row.note, row.compile_codes, row.differences, row.equiv_codes, row.not_lifted)


def test_at_least_90_percent_of_the_files_on_qoscs_platforms_round_trip_clean() -> None:
    """Issue 22: at least 90% of the files on qosc's platforms round-trip clean per class.  QFX and EX switch
    configurations (the manifest's off_platform) are not on them: qosc has no platform for those switches."""
    rows = [measured(f) for f in FILES if not next(e for e in ENTRIES if e["file"] == f).get("off_platform")]
    assert sum(bool(r.clean) for r in rows) >= 0.9 * len(rows), report.summary(rows)


def test_the_unclean_table_is_exactly_the_files_that_are_not_clean() -> None:
    """UNCLEAN names every file that does not round-trip clean, and no other: a fix shows as a strict xfail
    passing, a regression as a file missing from the table."""
    rows = {f: measured(f) for f in FILES}
    assert {f for f, r in rows.items() if not r.clean} == set(UNCLEAN), report.summary(list(rows.values()))


def test_most_of_the_corpus_applies_qos_and_nothing_is_dropped_silently() -> None:
    """At least half the files (rounded down) apply QoS (an object the reader saw is applied to an interface):
    38 of 70 since a unit bound only to an undefined traffic-control profile binds nothing
    (batfish-ignored-class-of-service.set applies no QoS); for every file the reconciliation holds: QoS objects
    seen = lifted + named as not lifted."""
    rows = [measured(f) for f in FILES]
    assert sum(r.applies_qos for r in rows) >= len(rows) // 2, report.summary(rows)
    for r in rows:
        assert r.seen is not None, r.file
        assert r.seen == (r.lifted or 0) + (r.named or 0), r.file


def test_the_harness_catches_a_traceback_instead_of_assuming_there_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception escaping a reader is reported as a traceback of the import step, with the reader's frame;
    the import, which never finishes, writes no policy."""
    import qosc.targets.ios.read as ios_read

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ValueError("boom in the reader")

    monkeypatch.setattr(ios_read, "interpret", broken)
    row = report.measure(next(e for e in ENTRIES if e["file"] == "ios/genie-show-run-interface-autoqos.cfg"))
    assert len(row.tracebacks) == 1
    assert row.tracebacks[0].startswith("import: ValueError: boom in the reader @ ")
    assert " @ ?" not in row.tracebacks[0], "the qosc frame the exception came through is named"
    assert not row.written and row.clean is None


def test_the_report_prints_the_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.main(["--only", "genie-show-run-interface-autoqos", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert json.loads(out[0])["clean"] is True
    assert out[-1] == ("files 1, imported exit 0 1, tracebacks 0, invalid policies written 0, round trips clean "
                       "per class 1 (of them nothing to lift 0); files applying QoS 1, of them clean 1; on qosc's "
                       "platforms 1, of them clean 1 (applying QoS 1, of them clean 1)")
