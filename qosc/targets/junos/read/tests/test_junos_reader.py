"""JUNOS reader: compiled configurations read back do what the policy says; mutations and flaws are found."""

from __future__ import annotations

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
