"""The corpus of public configurations (tests/corpus, issue 22): what qosc's import does with real networks.

Each file of tests/corpus/manifest.json is imported, the written policy
validated, compiled for the same platform and compared with the original by
`equiv` (scripts/corpus-report, in this process).  The targets of issue 22:
no import ends in a traceback, import never writes a policy qosc's own
validate refuses, and at least 90% of the files round-trip clean per class.
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

EMPTY_SERVICES = "import writes `services: {}` (nothing lifted), which qosc's own schema refuses (QOS013)"
EMPTY_ALL = ("import writes `services: {}` and `interfaces: {}` (nothing lifted), which qosc's own schema refuses "
             "(QOS013)")
NOT_READ = ("the JUNOS reader does not take a NETCONF <rpc-reply>/<configuration-information> reply for XML (QOS179 "
            "at its last line): nothing imported")
CRASHED = "no round trip: import ends in a traceback (see TRACEBACK)"
NO_POLICY = "no round trip: the imported policy does not validate, so nothing compiles"

TRACEBACK = {
    "junos/batfish-class-of-service-comprehensive.set":
        "DscpError: a dscp-ipv6 code-point alias in a classifier (unknown DSCP 'ALIAS2') escapes the JUNOS reader",
    "catalyst/batfish-cisco_eigrp.cfg":
        "AddressValueError: an object-group name where an address is expected escapes the IOS ACL reader",
}
INVALID = {
    "junos/batfish-class-of-service-builtin-forwarding-classes.set": EMPTY_ALL,
    "junos/batfish-class-of-service-code-point-aliases.set": EMPTY_ALL,
    "junos/batfish-class-of-service-default-classifier.set": EMPTY_SERVICES,
    "junos/batfish-class-of-service-default-rewrite-rule.set": EMPTY_SERVICES,
    "junos/batfish-class-of-service-ex4300-mcast-variants.set": EMPTY_ALL,
    "junos/batfish-class-of-service-qfx-fcoe-no-loss.set": EMPTY_ALL,
    "junos/batfish-class-of-service-qfx-mcast-fc.set": EMPTY_ALL,
    "junos/batfish-class-of-service-qfx-short-aliases.set": EMPTY_ALL,
    "junos/batfish-firewall-filter-dscp.set": EMPTY_ALL,
    "junos/batfish-ignored-class-of-service.set": EMPTY_ALL,
    "junos/batfish-juniper-class-of-service.set": EMPTY_ALL,
    "junos/batfish-gh-6149-preprocess.set": EMPTY_ALL,
    "junos/batfish-gh-6149-flatten.conf": EMPTY_ALL,
    "junos/labval-junos-then-action-dut.set": EMPTY_ALL,
    "junos/labval-junos-then-action-dut.conf": EMPTY_ALL,
    "junos/aerleon-testDscpClass.conf": EMPTY_ALL,
    "junos/aerleon-testForwardingClass.conf": EMPTY_ALL,
    "junos/aerleon-testDscpByte.conf": EMPTY_ALL,
    "junos/aerleon-testMultipleForwardingClass.conf": EMPTY_ALL,
    "ios/batfish-cisco_qos.cfg": EMPTY_ALL,
    "ios/batfish-cisco_control_plane.cfg": EMPTY_ALL,
    "ios/batfish-ios_interface.cfg": EMPTY_SERVICES,
    "ios/batfish-ios-service-policy-inner.cfg": EMPTY_ALL,
    "ios/batfish-ios-policy-map-inspect.cfg": EMPTY_ALL,
    "ios/genie-show-run-policy-map-l3vpn.cfg": EMPTY_ALL,
    "ios/genie-show-run-policy-map-marking.cfg": EMPTY_ALL,
    "ios/genie-show-run-policy-map-queueing.cfg": EMPTY_ALL,
    "ios/genie-show-run-interface-wan.cfg": EMPTY_ALL,
    "ios/labval-iosxe-acl.cfg": EMPTY_ALL,
    "ios/labval-ios-as1border1.cfg": EMPTY_ALL,
    "catalyst/batfish-cisco_misc.cfg": EMPTY_ALL,
    "catalyst/batfish-cisco_interface.cfg": EMPTY_ALL,
    "linux/tcconfig-advanced-usage.dump": EMPTY_SERVICES,
    "linux/tcconfig-tc-command-loss.dump": EMPTY_SERVICES,
    "linux/comcast-packet-loss.dump": EMPTY_SERVICES,
    "linux/comcast-all-traffic.dump": EMPTY_SERVICES,
    "linux/mininet-tclink-htb.dump": EMPTY_SERVICES,
    "linux/mininet-tclink-tbf.dump": EMPTY_ALL,
    "linux/kubernetes-tcshaper.dump": EMPTY_SERVICES,
}
UNCLEAN = {
    "junos/batfish-class-of-service-comprehensive.set": CRASHED,
    "junos/batfish-class-of-service-builtin-forwarding-classes.set": NO_POLICY,
    "junos/batfish-class-of-service-code-point-aliases.set": NO_POLICY,
    "junos/batfish-class-of-service-default-classifier.set": NO_POLICY,
    "junos/batfish-class-of-service-default-rewrite-rule.set": NO_POLICY,
    "junos/batfish-class-of-service-ex4300-mcast-variants.set": NO_POLICY,
    "junos/batfish-class-of-service-qfx-fcoe-no-loss.set": NO_POLICY,
    "junos/batfish-class-of-service-qfx-mcast-fc.set": NO_POLICY,
    "junos/batfish-class-of-service-qfx-short-aliases.set": NO_POLICY,
    "junos/batfish-firewall-filter-dscp.set": NO_POLICY,
    "junos/batfish-ignored-class-of-service.set": NO_POLICY,
    "junos/batfish-juniper-class-of-service.set": NO_POLICY,
    "junos/batfish-gh-6149-preprocess.set": NO_POLICY,
    "junos/batfish-gh-6149-flatten.conf": NO_POLICY,
    "junos/labval-junos-then-action-dut.set": NO_POLICY,
    "junos/labval-junos-then-action-dut.conf": NO_POLICY,
    "junos/eznc-get-configuration.xml": NOT_READ,
    "junos/eznc-show-configuration.xml": NOT_READ,
    "junos/eznc-factory-get-configuration.xml": NOT_READ,
    "junos/aerleon-testDscpClass.conf": NO_POLICY,
    "junos/aerleon-testForwardingClass.conf": NO_POLICY,
    "junos/aerleon-testDscpByte.conf": NO_POLICY,
    "junos/aerleon-testMultipleForwardingClass.conf": NO_POLICY,
    "ios/batfish-cisco_qos.cfg": NO_POLICY,
    "ios/batfish-cisco_control_plane.cfg": NO_POLICY,
    "ios/batfish-ios_interface.cfg": NO_POLICY,
    "ios/batfish-ios-service-policy-inner.cfg": NO_POLICY,
    "ios/batfish-ios-policy-map-inspect.cfg": NO_POLICY,
    "ios/genie-show-run-policy-map-l3vpn.cfg": NO_POLICY,
    "ios/genie-show-run-policy-map-marking.cfg": NO_POLICY,
    "ios/genie-show-run-policy-map-queueing.cfg": NO_POLICY,
    "ios/genie-show-run-interface-wan.cfg": NO_POLICY,
    "ios/labval-iosxe-acl.cfg": NO_POLICY,
    "ios/labval-ios-as1border1.cfg": NO_POLICY,
    "catalyst/batfish-cisco_misc.cfg": NO_POLICY,
    "catalyst/batfish-cisco_eigrp.cfg": CRASHED,
    "catalyst/batfish-cisco_interface.cfg": NO_POLICY,
    "linux/tcconfig-advanced-usage.dump": NO_POLICY,
    "linux/tcconfig-tc-command-loss.dump": NO_POLICY,
    "linux/comcast-packet-loss.dump": NO_POLICY,
    "linux/comcast-all-traffic.dump": NO_POLICY,
    "linux/mininet-tclink-htb.dump": NO_POLICY,
    "linux/mininet-tclink-tbf.dump": NO_POLICY,
    "linux/kubernetes-tcshaper.dump": NO_POLICY,
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
    assert len(ENTRIES) >= 40
    assert len({e["repository"] for e in ENTRIES}) >= 6
    assert {e["kind"] for e in ENTRIES} == {"junos", "ios", "catalyst", "linux"}
    assert {e["format"] for e in ENTRIES if e["kind"] == "junos"} >= {"junos set", "junos curly", "junos xml"}
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for e in ENTRIES:
        assert (CORPUS / e["file"]).is_file(), e["file"]
        assert e["licence"] in LICENCES, e
        assert len(e["commit"]) == 40 and e["commit"] in sources, e["file"]
        assert e["file"] in sources, f"{e['file']} is not in SOURCES.md"
        assert e["platform"] in {"junos-mx", "junos-m-series", "ios-xe", "ios-gsr", "catalyst6500", "linux"}
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


@pytest.mark.xfail(strict=True, reason="1 of 45 files round-trips clean today (issue 22 asks for 90%)")
def test_at_least_90_percent_of_the_corpus_round_trips_clean() -> None:
    rows = [measured(f) for f in FILES]
    assert sum(bool(r.clean) for r in rows) >= 0.9 * len(rows), report.summary(rows)


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
    assert out[-1] == ("files 1, imported exit 0 1, tracebacks 0, invalid policies written 0, "
                       "round trips clean per class 1")
