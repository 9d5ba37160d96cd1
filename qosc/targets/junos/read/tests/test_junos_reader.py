"""JUNOS reader: compiled configurations read back do what the policy says; mutations and flaws are found."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.model import Device
from qosc.behaviour.roundtrip import drift, load, outputs
from qosc.diagnostics import Location
from qosc.errors import InputError
from qosc.targets.junos import read as junos

CASES = [("assured-rate.yaml", "edge-mx"), ("assured-rate.yaml", "core-m"), ("geant-lbe.yaml", "de1.de")]
# what the platform cannot do, warned at compile time (QOS115: M-series has two loss priorities)
KNOWN = {("assured-rate.yaml", "core-m"): {"drop probability at 65% fill (precedence 3)"}}


def read(text: str, source: str = "r.conf") -> Device:
    device, _ = junos.interpret(junos.parse(text, source, None), None)
    return device


@pytest.mark.parametrize(("policy", "device"), CASES)
@pytest.mark.parametrize("suffix", [".conf", ".set"])
def test_compiled_configuration_reads_back_as_the_policy(policy: str, device: str, suffix: str) -> None:
    pol = load(policy)
    text = next(o.text for o in outputs(pol, device) if o.path.endswith(suffix))
    assert junos.sniff(text) == suffix[1:]
    found = read(text, device + suffix)
    assert {f.what for f in drift(pol, device, found)} == KNOWN.get((policy, device), set())
    assert found.interfaces and all(i.classes for i in found.interfaces)


def test_curly_and_set_text_give_the_same_behaviour() -> None:
    pol = load("assured-rate.yaml")
    texts = {o.path.rsplit(".", 1)[1]: o.text for o in outputs(pol, "edge-mx")}
    a, b = read(texts["conf"]), read(texts["set"])
    assert a.interfaces == b.interfaces


def test_changed_share_is_found() -> None:
    pol = load("assured-rate.yaml")
    text = next(o.text for o in outputs(pol, "edge-mx") if o.path.endswith(".conf"))
    mutated = text.replace("lbe {\n            transmit-rate percent 1;", "lbe {\n            transmit-rate percent 4;")
    assert mutated != text
    found = drift(pol, "edge-mx", read(mutated))
    assert {(f.interface, f.subject, f.what, f.expected, f.found) for f in found} == {
        ("ge-0/0/1", "lbe", "share", "1%", "4%"), ("xe-0/1/0", "lbe", "share", "1%", "4%")}


def test_changed_code_point_is_found() -> None:
    pol = load("assured-rate.yaml")
    text = next(o.text for o in outputs(pol, "core-m") if o.path.endswith(".set"))
    mutated = text.replace("assured-rate forwarding-class lbe loss-priority low code-points cs1",
                           "assured-rate forwarding-class best-effort loss-priority low code-points cs1")
    assert mutated != text
    found = [f for f in drift(pol, "core-m", read(mutated, "m.set")) if "65%" not in f.what]
    assert [(f.subject, f.what, f.expected, f.found) for f in found] == [
        ("DSCP 8 (cs1)", "classified to", "lbe", "best-effort")]


HAND = """\
class-of-service {
    code-point-aliases {
        dscp {
            my-gold 101000;
        }
    }
    forwarding-classes {
        class be queue-num 0;
        class gold queue-num 1;
        class voice queue-num 2;
    }
    classifiers {
        dscp in {
            import default;
            forwarding-class gold {
                loss-priority low code-points [ my-gold af31 ];
                loss-priority high code-points 011110;
            }
            forwarding-class voice {
                loss-priority low code-points ef;
            }
        }
    }
    drop-profiles {
        steps {
            fill-level 50 drop-probability 10;
            fill-level 80 drop-probability 60;
        }
    }
    schedulers {
        s-be {
            transmit-rate remainder;
            buffer-size remainder;
        }
        s-gold {
            transmit-rate percent 30;
            buffer-size temporal 20000;
            priority medium-high;
            drop-profile-map loss-priority any protocol tcp drop-profile steps;
            drop-profile-map loss-priority any protocol non-tcp drop-profile nowhere;
        }
        s-voice {
            transmit-rate percent 20 exact;
            priority strict-high;
        }
    }
    scheduler-maps {
        m {
            forwarding-class be scheduler s-be;
            forwarding-class gold scheduler s-gold;
            forwarding-class voice scheduler s-voice;
            forwarding-class other scheduler s-missing;
        }
    }
    interfaces {
        ge-1/0/0 {
            scheduler-map m;
            unit 7 {
                classifiers {
                    dscp in;
                    dscp-ipv6 absent;
                }
            }
        }
    }
}
"""


def test_hand_written_constructs_qosc_does_not_emit() -> None:
    document = junos.parse(HAND, "hand.conf", None)
    device, diagnostics = junos.interpret(document, None)
    iface = device.interface("ge-1/0/0", 7)
    assert iface is not None
    gold, voice, be = iface.class_named("gold"), iface.class_named("voice"), iface.class_named("be")
    assert gold and voice and be
    assert (be.share, gold.share, gold.buffer, gold.priority) == (50.0, 30.0, ("us", 20000.0), 2)
    assert (voice.strict, voice.cap) == (True, 20.0)
    assert gold.drop and gold.drop[0][1].interpolate is False and gold.drop[0][1].at(60) == 10.0
    v4 = iface.classify[0]
    assert (v4[40], v4[26], v4[30], v4[46]) == ("gold", "gold", "gold", "voice")
    # import default: dscp-default; its classes resolve by queue (assured-forwarding: queue 2, here voice)
    assert (v4[10], v4[0], v4[8]) == ("voice", "be", "be")
    assert iface.classify[1] == (None,) * 64
    codes = sorted(d.code for d in diagnostics)
    assert codes.count("QOS174") == 2  # scheduler s-missing, dscp-ipv6 classifier 'absent'
    where = next(d.location for d in diagnostics if "s-missing" in d.message)
    assert where == Location("hand.conf", 52, 13)


def test_overlapping_classifier_is_reported_at_its_line() -> None:
    text = ("set class-of-service classifiers dscp c forwarding-class a loss-priority low code-points ef\n"
            "set class-of-service classifiers dscp c forwarding-class b loss-priority low code-points 101110\n")
    _, diagnostics = junos.interpret(junos.parse(text, "o.set", None), None)
    assert [(d.code, d.location) for d in diagnostics] == [("QOS175", Location("o.set", 2, 1))]


@pytest.mark.parametrize(("text", "line"), [("class-of-service {\n  schedulers {\n    s { priority high }\n}\n", 3),
                                            ("a {\n b;\n}\n}\n", 4), ("set a b\ndelete a b\n", 2)])
def test_syntax_errors_are_located(text: str, line: int) -> None:
    with pytest.raises(InputError) as caught:
        junos.parse(text, "bad.conf", None, "set" if text.startswith("set") else "conf")
    assert [d.code for d in caught.value.diagnostics] == ["QOS179"]
    where = caught.value.diagnostics[0].location
    assert where is not None and where.line == line


def test_unowned_statements_are_kept() -> None:
    doc = junos.parse("system { host-name r1; }\n" + HAND, "k.conf", None)
    assert doc.statements[0].texts() == ("system",)
    assert doc.statements[0].children and doc.statements[0].children[0].texts() == ("host-name", "r1")


DATA = Path(__file__).parent / "data"
_NC = '<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><data>{}</data></rpc-reply>'


@pytest.mark.parametrize(("policy", "device"), CASES)
def test_compiled_netconf_xml_reads_back_as_the_policy(policy: str, device: str) -> None:
    """What qosc's RFC 6241 path sends, returned by <get-config>, reads back as the policy (and as the text)."""
    pytest.importorskip("lxml")
    from lxml import etree

    from qosc.targets.junos.push.xml import to_xml
    pol = load(policy)
    conf = next(o.text for o in outputs(pol, device) if o.path.endswith(".conf"))
    reply = _NC.format(etree.tostring(to_xml(conf, replace_owned=False), pretty_print=True, encoding="unicode"))
    assert junos.sniff(reply) == "xml"
    found = read(reply, device + ".xml")
    assert {f.what for f in drift(pol, device, found)} == KNOWN.get((policy, device), set())
    assert found.interfaces == read(conf).interfaces


def test_junos_native_xml_with_constructs_qosc_does_not_emit() -> None:
    """`show configuration | display xml` as a box prints it (junos: attributes, an inactive profile, system
    statements, aliases, import default, remainder, temporal buffers, protocol drop maps) reads as the text."""
    pytest.importorskip("lxml")
    text = (DATA / "hand.xml").read_text()
    document = junos.parse(text, "hand.xml", None)
    device, diagnostics = junos.interpret(document, None)
    assert device.interfaces == read(HAND).interfaces
    assert [s.texts()[:2] for s in document.statements[0].children or ()][:1] == [("host-name", "r1")]
    assert "unused" not in repr(document)  # inactive: does nothing, as in the CLI reader
    missing = next(d for d in diagnostics if "s-missing" in d.message)
    assert (missing.code, missing.location) == ("QOS174", Location("hand.xml", 127, 13))


@pytest.mark.parametrize(("text", "line"), [
    ("<configuration>\n<class-of-service>\n<schedulers>\n</class-of-service>\n</configuration>\n", 4),
    ("<rpc-reply>\n<ok/>\n</rpc-reply>\n", 1)])
def test_broken_xml_is_located(text: str, line: int) -> None:
    pytest.importorskip("lxml")
    with pytest.raises(InputError) as caught:
        junos.parse(text, "bad.xml", None, "xml")
    assert [d.code for d in caught.value.diagnostics] == ["QOS179"]
    where = caught.value.diagnostics[0].location
    assert where is not None and where.line == line


def test_xml_entities_are_not_expanded(tmp_path: Path) -> None:
    """An external entity in a configuration read back is not resolved (no local file read into the tree)."""
    pytest.importorskip("lxml")
    secret = tmp_path / "secret"
    secret.write_text("leaked-value")
    text = (f'<?xml version="1.0"?>\n<!DOCTYPE c [<!ENTITY x SYSTEM "file://{secret}">]>\n'
            "<configuration><system><host-name>&x;</host-name></system>"
            "<class-of-service/></configuration>\n")
    try:
        document = junos.parse(text, "x.xml", None, "xml")
    except InputError as exc:
        assert "leaked-value" not in str([d.message for d in exc.diagnostics])
        return
    assert "leaked-value" not in repr(document)
