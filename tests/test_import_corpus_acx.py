"""Causes that kept the ACX nodes of Juniper's Low Latency Queueing JVD (Juniper/jvd, service_provider/
low_latency_queueing: ag1_1_acx7509, ag1_2_acx7100-32c, an1/an3_acx7100-48l, an4_acx7024) from being imported
(issue 22), each as a reproducer cut down from an4_acx7024.conf."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.cli import main
from tests.test_import_corpus_causes import named, round_trip

# an4_acx7024.conf: fronthaul units of et-0/0/4 fix their forwarding class (`unit 3748 forwarding-class FC-LLQ`,
# an 802.1p rewrite beside it) next to units that classify DSCP through CL-DSCP
FIXED_CLASS = """\
set class-of-service forwarding-classes class FC-BEST-EFFORT queue-num 0
set class-of-service forwarding-classes class FC-CONTROL queue-num 3
set class-of-service forwarding-classes class FC-LLQ queue-num 6
set class-of-service forwarding-classes class FC-SIGNALING queue-num 7
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-BEST-EFFORT loss-priority low code-points be
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-CONTROL loss-priority low code-points cs7
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-LLQ loss-priority low code-points af41
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-SIGNALING loss-priority low code-points cs6
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-BEST-EFFORT loss-priority low code-point 000
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-CONTROL loss-priority low code-point 111
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-LLQ loss-priority low code-point 100
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-SIGNALING loss-priority low code-point 110
set class-of-service scheduler-maps SM forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT
set class-of-service scheduler-maps SM forwarding-class FC-CONTROL scheduler SC-CONTROL
set class-of-service scheduler-maps SM forwarding-class FC-LLQ scheduler SC-LLQ
set class-of-service scheduler-maps SM forwarding-class FC-SIGNALING scheduler SC-SIGNALING
set class-of-service schedulers SC-BEST-EFFORT transmit-rate percent 60
set class-of-service schedulers SC-BEST-EFFORT priority low
set class-of-service schedulers SC-CONTROL transmit-rate percent 20
set class-of-service schedulers SC-CONTROL priority high
set class-of-service schedulers SC-LLQ transmit-rate percent 20
set class-of-service schedulers SC-LLQ priority low
set class-of-service schedulers SC-SIGNALING shaping-rate percent 10
set class-of-service schedulers SC-SIGNALING priority strict-high
set class-of-service interfaces xe-0/0/4 scheduler-map SM
set class-of-service interfaces xe-0/0/4 unit 1 classifiers dscp CL-DSCP
set class-of-service interfaces xe-0/0/4 unit 2 forwarding-class FC-LLQ
set class-of-service interfaces xe-0/0/4 unit 2 rewrite-rules ieee-802.1 RR-8021P
"""


def test_fixed_forwarding_class_of_a_unit_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`unit N forwarding-class FC` puts every packet the unit receives in FC ("Applying Forwarding Classes to
    Interfaces", Junos OS Class of Service User Guide).  Before, the statement was named as not read and the unit
    was read through Junos's implicit ipprec-compatibility classifier (cs6 and cs7 in the class of queue 3), so
    equiv saw no difference when the fixed class changed."""
    original, changed = tmp_path / "fixed.set", tmp_path / "changed.set"
    original.write_text(FIXED_CLASS, encoding="utf-8")
    changed.write_text(FIXED_CLASS.replace("unit 2 forwarding-class FC-LLQ", "unit 2 forwarding-class FC-CONTROL"),
                       encoding="utf-8")
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{changed}"]) == 1
    err = capsys.readouterr().err
    assert "FC-LLQ" in err and "FC-CONTROL" in err, err
    assert main(["equiv", f"junos-mx:{original}", f"junos-mx:{original}"]) == 0


def test_fixed_unit_does_not_join_classes_of_other_units(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """Read through the implicit classifier, the fixed unit's queue-3 class held cs6, which the classifying unit
    gives FC-SIGNALING: import joined FC-SIGNALING (strict-high) to FC-CONTROL's service (QOS173, on an4 a
    thousand times, one per fronthaul unit) and wrote it on unit 1 as FC-CONTROL twice."""
    policy, diagnostics, _, _ = round_trip(tmp_path, capsys, "junos-mx", "fixed.set", FIXED_CLASS)
    assert policy is not None, named(diagnostics)
    assert not [d for d in diagnostics if d["code"] == "QOS173" and "FC-SIGNALING" in d["message"]], diagnostics
    assert not [m for m in named(diagnostics) if "forwarding-class FC-LLQ: not read" in m], named(diagnostics)
    signaling = policy["services"]["FC-SIGNALING"]
    assert signaling["dscp"] == ["cs6"] and signaling["queue"]["strict"] is True, signaling
    unit1 = policy["devices"]["fixed"]["interfaces"]["xe-0/0/4.1"]
    assert sorted(unit1.get("services", policy["services"])) == sorted(set(unit1.get("services",
                                                                                     policy["services"])))


# ag1_1_acx7509, ag1_2_acx7100-32c, an1/an3_acx7100-48l, an4_acx7024: SM-5G-SCHEDULER gives transmit rates of 40, 30
# and 20 % and the remainder (10 %) beside the strict-high FC-SIGNALING shaped at 5 %
ACX_MAP = """\
set class-of-service forwarding-classes class FC-BEST-EFFORT queue-num 0
set class-of-service forwarding-classes class FC-LOW queue-num 1
set class-of-service forwarding-classes class FC-MEDIUM queue-num 2
set class-of-service forwarding-classes class FC-HIGH queue-num 4
set class-of-service forwarding-classes class FC-SIGNALING queue-num 7
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-BEST-EFFORT loss-priority low code-points be
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-LOW loss-priority low code-points af11
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-MEDIUM loss-priority low code-points af21
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-HIGH loss-priority low code-points af31
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-SIGNALING loss-priority low code-points cs6
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-HIGH scheduler SC-HIGH
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-LOW scheduler SC-LOW
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-MEDIUM scheduler SC-MEDIUM
set class-of-service scheduler-maps SM-5G-SCHEDULER forwarding-class FC-SIGNALING scheduler SC-SIGNALING
set class-of-service schedulers SC-BEST-EFFORT transmit-rate remainder
set class-of-service schedulers SC-BEST-EFFORT priority low
set class-of-service schedulers SC-HIGH transmit-rate percent 40
set class-of-service schedulers SC-HIGH priority low
set class-of-service schedulers SC-LOW transmit-rate percent 20
set class-of-service schedulers SC-LOW priority low
set class-of-service schedulers SC-MEDIUM transmit-rate percent 30
set class-of-service schedulers SC-MEDIUM priority low
set class-of-service schedulers SC-SIGNALING shaping-rate percent 5
set class-of-service schedulers SC-SIGNALING priority strict-high
set class-of-service interfaces et-0/0/4 scheduler-map SM-5G-SCHEDULER
set class-of-service interfaces et-0/0/4 unit 1 classifiers dscp CL-DSCP
"""


def _line(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.endswith(fragment))


def test_a_share_junos_cannot_write_is_lifted_rounded_down_not_dropped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Beside a strict-high cap of 5 % the transmit rates (100 %) guarantee each queue 95 % of its rate (QOS206):
    best effort 9.5 %, FC-MEDIUM 28.5 %.  The policy language takes those, JUNOS's `transmit-rate percent` only
    whole percentages (QOS113).  Before, import left out the best-effort service for it, then every other service
    because none was the default (QOS032): nothing was written.  Now each such share is lifted as the whole
    percentage below it (the policy promises no more than the router guarantees), and the difference is said at
    the scheduler-map entry (QOS207); everything is lifted, and equiv finds the round trip within rounding."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "acx.set", ACX_MAP)
    assert policy is not None, named(diagnostics)
    assert not named(diagnostics), named(diagnostics)
    shares = {name: body["queue"].get("share") for name, body in policy["services"].items()}
    assert shares == {"FC-BEST-EFFORT": "9%", "FC-LOW": "19%", "FC-MEDIUM": "28%", "FC-HIGH": "38%",
                      "FC-SIGNALING": None}, shares
    rounded = {d["line"]: d["message"] for d in diagnostics if d["code"] == "QOS207"}
    assert sorted(rounded) == [_line(ACX_MAP, "FC-BEST-EFFORT scheduler SC-BEST-EFFORT"),
                               _line(ACX_MAP, "FC-MEDIUM scheduler SC-MEDIUM")], diagnostics
    assert all("9.5%" in m or "28.5%" in m for m in rounded.values()), rounded
    (count,) = [d["message"] for d in diagnostics if d["code"] == "QOS202"]
    assert "0 named as not lifted" in count, count
    assert status == 0, out


def test_leaving_an_object_out_walks_the_policy_instead_of_serialising_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an4 settle left out about 200 fronthaul units, and each time dumped the whole policy (a million YAML
    scalars) as text to find the profiles and policers nothing names any more: 270 of the import's 300 s under a
    profiler.  What is unused is now found by walking the policy's values; the result is the same."""
    from qosc.behaviour import reconcile
    from qosc.behaviour.lifted import Lifted
    from qosc.diagnostics import warning

    def no_dump(*_args: object, **_kwargs: object) -> str:
        raise AssertionError("the policy is serialised to tidy it")

    monkeypatch.setattr(reconcile.yaml, "safe_dump", no_dump)
    policy = {
        "services": {"a": {"queue": {"share": "50%"}, "drop-profile": {"low": "d1", "high": "d2"}},
                     "b": {"policer": "p1"}},
        "drop-profiles": {"d1": {}, "d2": {}, "d3": {}},
        "policers": {"p1": {}, "p2": {}, "p3": {}},
        "classifiers": {"c": {"rules": [{"name": "r", "service": "b", "policer": "p2"}]}},
        "devices": {"x": {"interfaces": {f"e{n}": {"services": ["a", "b"]} for n in range(300)}}},
    }
    lifted = Lifted(policy)
    why = warning("QOS040", "too much", None)
    for n in range(300):
        reconcile._leave_out(lifted, ("devices", "x", "interfaces", f"e{n}"), why)
    assert policy["devices"]["x"]["interfaces"] == {}
    assert set(policy["drop-profiles"]) == {"d1", "d2"} and set(policy["policers"]) == {"p1", "p2"}
    reconcile._leave_out(lifted, ("classifiers", "c", "rules", "0"), why)
    assert "classifiers" not in policy and set(policy["policers"]) == {"p1"}


# an1/an3/an4/ag1_*: SC-LLQ is `priority low-latency` with `shaping-rate percent 40` beside transmit-rate schedulers
# (and a strict-high SC-SIGNALING shaped at 5 %: STRICT_HIGH)
LOW_LATENCY = """\
set class-of-service forwarding-classes class FC-BEST-EFFORT queue-num 0
set class-of-service forwarding-classes class FC-LLQ queue-num 6
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-BEST-EFFORT loss-priority low code-points be
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-LLQ loss-priority low code-points af41
set class-of-service scheduler-maps SM forwarding-class FC-BEST-EFFORT scheduler SC-BEST-EFFORT
set class-of-service scheduler-maps SM forwarding-class FC-LLQ scheduler SC-LLQ
set class-of-service schedulers SC-BEST-EFFORT transmit-rate percent 50
set class-of-service schedulers SC-BEST-EFFORT priority low
set class-of-service schedulers SC-LLQ shaping-rate percent 40
set class-of-service schedulers SC-LLQ priority low-latency
set class-of-service interfaces et-0/0/4 scheduler-map SM
set class-of-service interfaces et-0/0/4 unit 1 classifiers dscp CL-DSCP
"""
STRICT_HIGH = """\
set class-of-service forwarding-classes class FC-SIGNALING queue-num 7
set class-of-service classifiers dscp CL-DSCP forwarding-class FC-SIGNALING loss-priority low code-points cs6
set class-of-service scheduler-maps SM forwarding-class FC-SIGNALING scheduler SC-SIGNALING
set class-of-service schedulers SC-SIGNALING shaping-rate percent 5
set class-of-service schedulers SC-SIGNALING priority strict-high
"""


def test_a_low_latency_scheduler_is_strict_priority(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`priority low-latency` is the highest transmission priority, above strict-high ("Transmission Priority
    Scheduling", Junos OS Class of Service User Guide; Junos OS Evolved ACX7000).  Before, it was read as no
    priority at all: FC-LLQ was a plain queue with neither share nor priority, capped at 40 %.  Beside a
    strict-high queue (the JVD's FC-SIGNALING) that is two strict-priority queues on one port, which ACX routers
    serve (by queue number) and junos-mx, the platform they are imported as, does not: one is named (QOS093), not
    dropped silently."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "llq.set", LOW_LATENCY)
    assert policy is not None, named(diagnostics)
    llq = policy["services"]["FC-LLQ"]["queue"]
    assert llq.get("strict") is True and llq.get("rate-cap") == "40%", llq
    assert status == 0, out
    both = tmp_path / "both"
    both.mkdir()
    policy, diagnostics, _, _ = round_trip(both, capsys, "junos-mx", "llq.set", LOW_LATENCY + STRICT_HIGH)
    assert policy is not None and policy["services"]["FC-LLQ"]["queue"]["strict"] is True, named(diagnostics)
    assert [m for m in named(diagnostics) if "FC-SIGNALING not lifted" in m and "QOS093" in m], named(diagnostics)


# an4_acx7024.conf: 100 EVPN-VPWS units of et-0/0/4 classify by a family ccc filter (learned 802.1p priority,
# source MAC addresses: fields qosc does not read) and rewrite 802.1p, beside units that classify DSCP
CCC_FILTER = ACX_MAP.replace("code-points cs6\n", "code-points cs6\n" + """\
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-BEST-EFFORT loss-priority low code-point 000
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-LOW loss-priority low code-point 001
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-MEDIUM loss-priority low code-point 010
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-HIGH loss-priority low code-point 100
set class-of-service rewrite-rules ieee-802.1 RR-8021P forwarding-class FC-SIGNALING loss-priority low code-point 110
""") + """\
set class-of-service interfaces et-0/0/4 unit 2 rewrite-rules ieee-802.1 RR-8021P
set interfaces et-0/0/4 unit 2 encapsulation vlan-ccc
set interfaces et-0/0/4 unit 2 family ccc filter input FF-MF
set firewall family ccc filter FF-MF term 1 from learn-vlan-1p-priority 3
set firewall family ccc filter FF-MF term 1 then forwarding-class FC-HIGH
set firewall family ccc filter FF-MF term 2 from source-mac-address 00:0c:08:00:00:01/48
set firewall family ccc filter FF-MF term 2 then forwarding-class FC-SIGNALING
"""


def test_a_unit_that_classifies_nothing_qosc_reads_keeps_best_effort_the_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A unit classified by a family ccc filter alone classifies no code point qosc reads: its default class
    was then the last class by name (FC-SIGNALING), so the strict-high FC-SIGNALING was joined to the
    best-effort default service (a QOS173 per such unit, 100 on an4) and best effort, met there as an ordinary
    class, became a second service FC-BEST-EFFORT-2 (QOS118 on an1 and an4: 9 queues on an 8-queue platform).
    Where nothing is classified, the default is the class that leaves with value 0 (its 802.1p rewrite), as
    DSCP 0, EXP 0 and PCP 0 decide it elsewhere."""
    policy, diagnostics, _, _ = round_trip(tmp_path, capsys, "junos-mx", "ccc.set", CCC_FILTER)
    assert policy is not None, named(diagnostics)
    assert not [d for d in diagnostics if d["code"] == "QOS173"], diagnostics
    assert sorted(policy["services"]) == ["FC-BEST-EFFORT", "FC-HIGH", "FC-LOW", "FC-MEDIUM", "FC-SIGNALING"]
    assert policy["services"]["FC-BEST-EFFORT"].get("default") is True
    assert policy["services"]["FC-SIGNALING"]["queue"]["strict"] is True



# ag1_1_acx7509.conf, ag1_2_acx7100-32c.conf: the IRB units' filters FF-MFC-IPV4-L3VPN-*-IRB match `dscp cs1` and
# set a forwarding class, on units that bind no DSCP rewrite rule
IRB_FILTER = LOW_LATENCY + """\
set class-of-service interfaces irb unit 100 classifiers dscp CL-DSCP
set interfaces irb unit 100 family inet filter input FF-MFC
set firewall family inet filter FF-MFC term fc-llq from dscp cs1
set firewall family inet filter FF-MFC term fc-llq then forwarding-class FC-LLQ
set firewall family inet filter FF-MFC term default then accept
"""


def test_a_filter_term_matching_dscp_is_named_at_its_line_and_stays_an_ipv4_rule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reader took the family of a term's `from dscp` code point (for its aliases) as the term's family: the
    rule was of family 'dscp', not inet, and its origin was looked up under that family and not found, so the
    168 QOS172 of ag1_1 and ag1_2 about these rules had no line (`?`)."""
    from qosc.commands.equiv import side

    source = tmp_path / "irb.set"
    source.write_text(IRB_FILTER, encoding="utf-8")
    read, _ = side(f"junos-mx:{source}")
    assert read is not None and read.behaviour is not None
    irb = next(i for i in read.behaviour.interfaces if i.name == "irb")
    (rule,) = irb.rules
    assert rule.families == ("inet",) and rule.origin is not None, rule
    assert rule.origin.line == _line(IRB_FILTER, "term fc-llq from dscp cs1")


def test_a_unit_bound_by_its_filter_alone_is_located_at_the_binding(tmp_path: Path) -> None:
    """ag1_1/ag1_2: IRB units that no class-of-service statement names, classified by their input filter: what
    import said about them (not lifted) had no line, for the unit's origin was looked up in class-of-service
    alone.  It is now the `interfaces ... filter input` statement."""
    from qosc.commands.equiv import side

    text = IRB_FILTER.replace("set class-of-service interfaces irb unit 100 classifiers dscp CL-DSCP\n", "")
    source = tmp_path / "irb.set"
    source.write_text(text, encoding="utf-8")
    read, _ = side(f"junos-mx:{source}")
    assert read is not None and read.behaviour is not None
    irb = next(i for i in read.behaviour.interfaces if i.name == "irb")
    assert irb.origin is not None and irb.origin.line == _line(text, "family inet filter input FF-MFC"), irb.origin


def test_errors_are_blamed_on_the_paths_around_their_lines_innermost_first() -> None:
    """settle traces each error to the key paths around its line; on the ACX nodes (tens of thousands of spans,
    hundreds of errors) that was every span tested against every error.  The bisection gives the same paths in the
    same order as that definition."""
    from qosc.behaviour import reconcile
    from qosc.behaviour.lifted import yaml_spans
    from qosc.diagnostics import Location, error

    policy = {"services": {f"s{n}": {"queue": {"share": f"{n}%"}} for n in range(20)},
              "devices": {"d": {"interfaces": {f"e{n}": {"services": ["s1", "s2"]} for n in range(30)}}}}
    text = reconcile.render(policy, "# header\n")
    spans = yaml_spans(text)
    errors = [error("QOS040", "x", Location("p.yaml", line, 1)) for line in range(1, len(text.splitlines()) + 2, 3)]
    errors.append(error("QOS040", "elsewhere", Location("other.yaml", 5, 1)))
    naive = [(d, [p for p, lo, hi in spans if d.location is not None and d.location.file == "p.yaml"
                  and lo <= d.location.line <= hi]) for d in errors]
    assert reconcile._blame(errors, spans, "p.yaml") == naive
    assert any(len(paths) >= 3 for _, paths in naive) and naive[-1][1] == []


def test_a_fixed_forwarding_class_is_lifted_as_an_edge_rule_without_a_match(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A unit whose every packet is in FC-LLQ (`unit 2 forwarding-class FC-LLQ`, an 802.1p rewrite and no DSCP
    rewrite beside it: an1, an3, an4, ag1_1 and ag1_2 have 200 to 316 such fronthaul units) is an edge that trusts
    nothing and classifies every packet into FC-LLQ by one rule without a match, and leaves DSCP alone.  Before,
    it was lifted as a core unit trusting DSCP, compiled with the DSCP classifier: equiv found every code point's
    class and DSCP rewrite different."""
    policy, diagnostics, status, out = round_trip(tmp_path, capsys, "junos-mx", "fixed.set", FIXED_CLASS)
    assert policy is not None, named(diagnostics)
    unit = policy["devices"]["fixed"]["interfaces"]["xe-0/0/4.2"]
    assert unit["role"] == "edge" and unit["trust"] == "none" and unit["rewrite"] == ["pcp"], unit
    assert policy["classifiers"][unit["classifier"]] == {"rules": [{"name": "fixed", "service": "FC-LLQ"}]}
    assert status == 0, out


def test_low_latency_and_strict_high_import_as_two_strict_services_on_junos_acx(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On junos-acx (ACX7000, Junos OS Evolved: two strict-priority queues a port) the JVD's FC-LLQ
    (`priority low-latency`) and FC-SIGNALING (strict-high) both lift, the low-latency one first in the policy
    whatever order the scheduler map lists them in, so compile writes low-latency and strict-high on the same
    classes again and equiv finds the round trip clean.  As junos-mx, FC-SIGNALING is named (QOS093: above)."""
    for order, text in (("llq-first", LOW_LATENCY + STRICT_HIGH), ("signaling-first", STRICT_HIGH + LOW_LATENCY)):
        (tmp_path / order).mkdir()
        policy, diagnostics, status, out = round_trip(tmp_path / order, capsys, "junos-acx", "llq.set", text)
        assert policy is not None, named(diagnostics)
        assert not [m for m in named(diagnostics) if "FC-SIGNALING" in m or "FC-LLQ" in m], named(diagnostics)
        services = policy["services"]
        strict = [name for name, body in services.items() if body.get("queue", {}).get("strict")]
        assert strict == ["FC-LLQ", "FC-SIGNALING"], (order, strict)
        assert services["FC-LLQ"]["queue"]["rate-cap"] == "40%" and services["FC-SIGNALING"]["queue"][
            "rate-cap"] == "5%", services
        assert status == 0, out
