"""The tc batch grammar and the source map: what the grammar refuses (with its source), and which policy
line every batch line names (QOS199, `qosc diff`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.diff.compare import diff_files
from qosc.grammar import Violation
from qosc.targets.linux_tc import TARGET
from qosc.targets.linux_tc import plan as plan_mod
from qosc.targets.linux_tc.grammar import GRAMMAR
from qosc.targets.linux_tc.lower import batch
from qosc.targets.linux_tc.tests.support import ROOT, valid
from qosc.tree import Document, Kind, Statement, Word, kw, locate

POLICIES = [ROOT / "policies" / name for name in ("assured-rate.yaml", "four-service-linux.yaml", "qbss-linux.yaml")]
"""The reference policies with Linux devices (grid-hosts.yaml has Linux hosts: the linux-host target's)."""


def _documents(path: Path) -> list[Document]:
    policy = valid(path)
    return [batch(policy, p, f"{d.name}/{p.name}") for d in policy.devices if d.platform == "linux"
            for p in TARGET.plan(policy, d)]


def _refusals(lines: list[str]) -> list[Violation]:
    """The grammar's verdict on a batch given as text (every word a keyword: forms match words by text)."""
    statements = tuple(Statement(tuple(kw(w) for w in line.split())) for line in lines)
    return GRAMMAR.check(Document("x/eth0", "tc", statements))


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.name)
def test_every_reference_batch_is_in_the_grammar(path: Path) -> None:
    docs = _documents(path)
    assert docs
    for doc in docs:
        assert GRAMMAR.check(doc) == [], doc.stem


GOOD = ["qdisc add dev eth0 root handle 1: htb default 10",
        "class add dev eth0 parent 1: classid 1:1 htb rate 100mbit ceil 100mbit burst 14014 cburst 14014 "
        "quantum 12500",
        "class add dev eth0 parent 1:1 classid 1:10 htb rate 99mbit ceil 99mbit burst 13889 cburst 13889 prio 1 "
        "quantum 12375",
        "qdisc add dev eth0 parent 1:10 handle 10: bfifo limit 1237500",
        "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dsfield 0x20 0xfc flowid 1:10"]


@pytest.mark.parametrize("bad,why,source", [
    (GOOD[:2] + [GOOD[2].replace("prio 1", "prio 9")], "9 is outside 0..7", "tc-htb(8)"),
    (GOOD[:4] + [GOOD[4].replace("0x20", "0x21")], "0x21", "tc-u32(8)"),
    (GOOD[:3] + [GOOD[3].replace("bfifo", "pfifo")], "not a batch statement", "tc-"),
    (GOOD[:3] + [GOOD[3].replace("1237500", "4294967296")], "outside 1..4294967295", "tc-bfifo(8)"),
    ([GOOD[0], GOOD[2]], "'1:1' is used before the batch makes it", "tc(8)"),
    (GOOD + [GOOD[3]], "'10:' is made twice", "tc(8)"),
    (GOOD + [GOOD[4].replace("dev eth0", "dev eth1")], "names device 'eth1'", "device script"),
    (GOOD + ["filter add dev eth0 ingress protocol ip prio 1 u32 match u32 0 0 action gact drop"],
     "'clsact' is used before", "tc(8)"),
    (GOOD[:3] + ["qdisc add dev eth0 parent 1:10 handle 10: red limit 100000 min 50000 max 20000 avpkt 1000 "
                 "burst 40 probability 0.1 bandwidth 100mbit"], "red max 20000 is below min 50000", "red.h"),
    (GOOD[:3] + ["qdisc add dev eth0 parent 1:10 handle 10: red limit 100000 min 20000 max 50000 avpkt 1000 "
                 "burst 40 probability 0.1 bandwidth 100gbit"], "100gbit is above 34359738360bit", "u32 of bytes/s"),
    (GOOD + ["qdisc add dev eth0 clsact", "filter add dev eth0 ingress protocol ip prio 1 u32 match u32 0 0 "
             "action police rate 1mbit burst 10000 conform-exceed banana/pipe index 1"], "banana/pipe", "tc-police"),
])
def test_the_grammar_refuses_with_its_source(bad: list[str], why: str, source: str) -> None:
    assert _refusals(GOOD) == []
    found = _refusals(bad)
    assert found, bad
    text = " ".join(str(v) for v in found)
    assert why in text and source in text, text


def test_every_batch_line_names_its_policy_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = api.validate("policies/assured-rate.yaml")
    outputs = {o.path: o for o in api.compile_policy(result, ["linux-tc"], ["linux-gw"])}
    tc = outputs["linux-tc/linux-gw/eth0.tc"]
    lines = tc.text.splitlines()
    assert len(tc.origins) == len(lines)
    policy = result.policy
    assert policy is not None
    (leaves,) = [p.egress.leaves for p in TARGET.plan(policy, policy.device_map["linux-gw"]) if p.name == "eth0"]
    queues = {f"classid {leaf.classid} ": policy.service_map[leaf.service].where.at("queue") for leaf in leaves}
    rule = policy.classifier_map["site-in"].rules[0]
    for number, line in enumerate(lines, 1):
        loc = tc.origin(number)
        assert loc is not None and loc.file.endswith("assured-rate.yaml"), (number, line)
        if " ingress " in line and "match ip src 198.18.20.0/24 match ip protocol 17" in line:
            assert rule.name == "premium-video" and loc == rule.where.loc  # the classifier rule
        for key, queue in queues.items():
            if line.startswith("class add") and key in line:
                assert loc == queue, (line, loc, queue)  # the service's queue


def test_a_refused_statement_is_qos199_at_its_policy_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lowering bug (here: an HTB prio out of range) never reaches a file: QOS199 names the service's queue."""
    monkeypatch.setattr(plan_mod, "htb_prio", lambda service: 9)
    path = tmp_path / "p.yaml"
    path.write_text("qosc: 1\nname: p\nservices:\n"
                    "  be: {kind: best-effort, default: true, queue: {share: 90%, priority: high}}\n"
                    "devices:\n  r1:\n    platform: linux\n    interfaces:\n      eth0: {speed: 1G}\n")
    result = api.validate(path)
    outputs = api.compile_policy(result, ["linux-tc"])
    assert outputs == []
    (bug,) = [d for d in result.diagnostics if d.code == "QOS199"]
    assert bug.location is not None and bug.location.line == 4 and "9 is outside 0..7" in bug.message
    assert "tc-htb(8)" in bug.message


def test_diff_names_the_policy_line_of_a_changed_batch_line(tmp_path: Path) -> None:
    text = (ROOT / "policies" / "qbss-linux.yaml").read_text()
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(text)
    new.write_text(text.replace("queue: {share: 1%, ceiling: 100%", "queue: {share: 1%, ceiling: 50%"))
    result = diff_files(str(old), str(new), ["linux-tc"])
    (tc,) = [f for f in result.files if f.path.endswith(".tc")]
    line = 1 + text.splitlines().index("    queue: {share: 1%, ceiling: 100%, priority: low}")
    assert f"{new}:{line}" in tc.diff.splitlines()[2] and "ceil 50mbit" in tc.diff, tc.diff  # the hunk header


def test_words_are_typed() -> None:
    (doc,) = _documents(ROOT / "policies" / "qbss-linux.yaml")
    kinds = {w.text: w.kind for s in doc.statements for w in s.words}
    assert kinds["100mbit"] is Kind.RATE and kinds["14014"] is Kind.SIZE and kinds["0x20"] is Kind.DSCP
    leaf = doc.statements[2]
    assert isinstance(leaf.words[7], Word) and leaf.words[7].value == (1, 0x10) and leaf.words[7].tag == "classid"
    assert all(locate(s.origin) is not None for s in doc.statements)
