"""Leading DSCP-only rules into a class compare as the classification of those code points
(qosc.behaviour.comparerules.folded): JUNOS's implicit ipprec-compatibility and the filter qosc writes for it."""

from __future__ import annotations

from qosc.behaviour.compare import compare
from qosc.behaviour.comparerules import folded
from qosc.behaviour.model import Class, Device, Interface, Rule

CLASSES = (Class("BE", share=50.0), Class("NC", share=50.0))
IMPLICIT = tuple("NC" if c >= 48 else "BE" for c in range(64))


def _filtered(*rules: Rule) -> Interface:
    return Interface("xe-0/0/0", role="edge", classes=CLASSES, classify=(("BE",) * 64, ("BE",) * 64),
                     trust=False, rules=rules)


def test_a_dscp_term_first_is_the_classification_of_its_code_points() -> None:
    implicit = Interface("xe-0/0/0", role="edge", classes=CLASSES, classify=(IMPLICIT, (None,) * 64), trust=True)
    written = _filtered(Rule("nc", match_dscp=tuple(range(48, 64)), fc="NC"))
    assert folded(written).classify[0] == IMPLICIT and not folded(written).rules
    assert compare(Device("d", interfaces=(implicit,)), Device("d", interfaces=(written,))) == []


def test_only_leading_dscp_rules_fold_and_the_first_match_wins() -> None:
    """A rule after one on addresses stays a rule (the address rule takes some of its packets first); a rule that
    marks or polices is not a classification."""
    first, second = Rule("a", match_dscp=(48,), fc="NC"), Rule("b", match_dscp=(48, 56), fc="BE")
    after = Rule("c", match_dscp=(10,), fc="NC")
    iface = folded(_filtered(first, second, Rule("x", sources=("198.18.0.0/24",), fc="NC"), after))
    assert (iface.classify[0][48], iface.classify[0][56], iface.classify[0][10]) == ("NC", "BE", "BE")
    assert [r.name for r in iface.rules] == ["x", "c"]
    marking = _filtered(Rule("m", match_dscp=(10,), mark=46))
    assert folded(marking) == marking
