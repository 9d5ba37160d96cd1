"""Junos's implicit discard at the end of a firewall filter (issue 22): a packet that matches no term of a filter is
discarded, and a term whose action is `discard` or `reject` discards what it matches (Junos OS Routing Policies,
Firewall Filters and Traffic Policers User Guide, "How Firewall Filters Evaluate Packets" and "Firewall Filter
Terminating Actions").  The fronthaul filter FF-MF-EVPN-VPWS-MH of Juniper's LLQ JVD ACX nodes (an1, an4) ends with
no catch-all term: frames of no listed 802.1p priority or MAC address are dropped.  Before, the reader did not model
it: equiv found a filter with and without a catch-all accept term equal, and the round trip of an1, whose compiled
filter accepts the rest, clean."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from qosc.cli import main
from tests.test_import_corpus_causes import named, round_trip
from tests.test_import_ethernet_rules import AN1

LAST = """                then forwarding-class FC-REALTIME;
            }
"""
ACCEPT = LAST + """            term default {
                then accept;
            }
"""
DISCARD = LAST + """            term drop-rest {
                then discard;
            }
"""


def _equiv(tmp_path: Path, capsys: pytest.CaptureFixture[str], a: str, b: str) -> tuple[int, str]:
    first, second = tmp_path / "a.conf", tmp_path / "b.conf"
    first.write_text(a, encoding="utf-8")
    second.write_text(b, encoding="utf-8")
    status = main(["equiv", f"junos-mx:{first}", f"junos-mx:{second}"])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_a_catch_all_accept_term_is_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fronthaul filter with a final term that accepts the rest forwards what the original discards."""
    assert LAST in AN1
    status, out = _equiv(tmp_path, capsys, AN1, AN1.replace(LAST, ACCEPT))
    assert status == 1, out
    assert "unmatched traffic" in out and "discarded" in out, out


def test_an_explicit_final_discard_equals_the_implicit_one(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`term drop-rest { then discard; }` at the end does what the end of the filter does anyway."""
    status, out = _equiv(tmp_path, capsys, AN1, AN1.replace(LAST, DISCARD))
    assert status == 0, out


def test_a_term_that_discards_what_it_matches_is_a_difference(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Term 2 discarding 802.1p 7 instead of classifying it into FC-BEST-EFFORT is a difference of that rule."""
    old = "then forwarding-class FC-BEST-EFFORT;"
    assert old in AN1
    status, out = _equiv(tmp_path, capsys, AN1, AN1.replace(old, "then discard;"))
    assert status == 1, out
    assert "rule 2" in out and "discards" in out, out
    status, out = _equiv(tmp_path, capsys, AN1, AN1.replace(old, "then reject;"))
    assert status == 1, out


def test_import_lifts_the_discard_and_names_a_discarding_term(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Import lifts the unit whose filter discards the rest into a classifier with `unmatched: drop`, and names a
    term that discards what it matches (QOS172 at the term: the policy's rules classify, none discards): never
    dropped silently.  (Before the policy could say it, the unit's discard was named QOS172 at its filter's last
    term.)"""
    source = tmp_path / "an1.conf"
    source.write_text(AN1.replace("then forwarding-class FC-BEST-EFFORT;", "then discard;"), encoding="utf-8")
    main(["import", f"junos-mx:{source}", "-o", str(tmp_path / "p.yaml"), "--format", "json"])
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    named = {d["message"]: d for d in found if d["code"] == "QOS172"}
    assert not any("is discarded" in m for m in named), named
    rule = next(d for m, d in named.items() if m.startswith("rule 2 discards"))
    term = AN1.splitlines().index("            term 2 {") + 1
    assert term <= rule["line"] < term + 5, rule
    policy = yaml.safe_load((tmp_path / "p.yaml").read_text(encoding="utf-8"))
    unit = policy["devices"]["an1"]["interfaces"]["et-0/0/2.1101"]
    assert policy["classifiers"][unit["classifier"]]["unmatched"] == "drop", policy["classifiers"]


@pytest.mark.parametrize(("text", "drop"), [(AN1, True), (AN1.replace(LAST, DISCARD), True),
                                            (AN1.replace(LAST, ACCEPT), False)])
def test_the_fronthaul_unit_round_trips_with_its_discard(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          text: str, drop: bool) -> None:
    """an1's fronthaul unit, its filter ending with no catch-all (or an explicit discard, or a catch-all accept):
    import says `unmatched: drop` where it discards, the compiled filter ends with `term unmatched { then discard;
    }` there, and equiv finds the round trip clean (before: the compiled filter accepted the rest)."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "an1.conf", text)
    assert policy is not None, diagnostics
    unit = policy["devices"]["an1"]["interfaces"]["et-0/0/2.1101"]
    assert (policy["classifiers"][unit["classifier"]].get("unmatched") == "drop") is drop, policy["classifiers"]
    assert not named(diagnostics), named(diagnostics)
    compiled = next(p for p in (tmp_path / "out").rglob("*.conf") if ".qosc" not in p.parts).read_text("utf-8")
    assert (re.search(r"term unmatched \{\s*then \{\s*discard;", compiled) is not None) is drop, compiled
    assert status == 0, out
