"""Junos's implicit discard at the end of a firewall filter (issue 22): a packet that matches no term of a filter is
discarded, and a term whose action is `discard` or `reject` discards what it matches (Junos OS Routing Policies,
Firewall Filters and Traffic Policers User Guide, "How Firewall Filters Evaluate Packets" and "Firewall Filter
Terminating Actions").  The fronthaul filter FF-MF-EVPN-VPWS-MH of Juniper's LLQ JVD ACX nodes (an1, an4) ends with
no catch-all term: frames of no listed 802.1p priority or MAC address are dropped.  Before, the reader did not model
it: equiv found a filter with and without a catch-all accept term equal, and the round trip of an1, whose compiled
filter accepts the rest, clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosc.cli import main
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


def test_import_names_the_discard_it_cannot_lift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Import names the unit whose filter discards the rest (QOS172, at the last term of its filter), and a term that
    discards what it matches (left out, at the term's line): never dropped silently."""
    source = tmp_path / "an1.conf"
    source.write_text(AN1.replace("then forwarding-class FC-BEST-EFFORT;", "then discard;"), encoding="utf-8")
    main(["import", f"junos-mx:{source}", "-o", str(tmp_path / "p.yaml"), "--format", "json"])
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    named = {d["message"]: d for d in found if d["code"] == "QOS172"}
    unit = next(d for m, d in named.items() if "et-0/0/2 unit 1101" in m and "is discarded" in m)
    last = AN1.splitlines().index("            term 6 {") + 1
    assert last <= unit["line"] < last + 10, unit  # the filter's last term
    rule = next(d for m, d in named.items() if m.startswith("rule 2 discards"))
    term = AN1.splitlines().index("            term 2 {") + 1
    assert term <= rule["line"] < term + 5, rule
