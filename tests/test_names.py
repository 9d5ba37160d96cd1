"""The name allocator: no two vendor objects of a device ever share a name (property test), within the dialect's
limits, stable from run to run."""

from __future__ import annotations

from helpers import fuzz_examples
from hypothesis import given, settings
from hypothesis import strategies as st

from qosc.names import Names

name_text = st.text(alphabet="abcdefghij-_.0123456789", min_size=1, max_size=90)


@settings(max_examples=fuzz_examples(300), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["class-map", "policy-map"]), name_text, st.text(min_size=1, max_size=12)),
                max_size=60), st.booleans())
def test_no_two_owners_share_a_name(requests: list[tuple[str, str, str]], fold: bool) -> None:
    names = Names("ios", 40, frozenset({"class-default"}), case_insensitive=fold)
    held: dict[tuple[str, str], str] = {}
    for namespace, wanted, owner in requests:
        got = names.allocate(namespace, wanted, owner)
        assert len(got.name) <= 40
        assert got.name != "class-default"
        key = (namespace, got.name.casefold() if fold else got.name)
        assert held.setdefault(key, owner) == owner, f"{got.name} given to {held[key]} and {owner}"
        assert names.allocate(namespace, wanted, owner) == got  # asked again: the same answer


def test_the_c1_r1_collision_is_disambiguated_and_reported() -> None:
    names = Names("ios", 40, frozenset({"class-default"}))
    service = names.allocate("class-map", "c1-r1", "service c1-r1")
    rule = names.allocate("class-map", "c1-r1", "rule c1/r1")
    assert service.name == "c1-r1" and not service.renamed
    assert rule.name != "c1-r1" and rule.renamed and "already the name of service c1-r1" in rule.why
    assert names.allocate("policy-map", "c1-r1", "policy c1-r1").name == "c1-r1"  # another namespace
    reserved = names.allocate("class-map", "class-default", "service class-default")
    assert reserved.name != "class-default" and reserved.renamed


def test_long_names_are_cut_with_a_stable_hash() -> None:
    a = Names("junos", 64).allocate("filter", "x" * 63 + "-ipv6", "c")
    b = Names("junos", 64).allocate("filter", "x" * 63 + "-ipv6", "c")
    other = Names("junos", 64).allocate("filter", "x" * 63 + "-inet", "c")
    assert a == b and len(a.name) == 64 and a.renamed and a.name != other.name
