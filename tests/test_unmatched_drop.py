"""A classifier's `unmatched: drop` (issue 22): traffic none of its rules matches is discarded, as a JUNOS filter
that ends with no catch-all term does (Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide,
release 21.4, "How Firewall Filters Evaluate Packets").  The schema takes it, the checks name it (QOS214) and refuse
it where the interface trusts a marking (QOS213), JUNOS ends the filter with `term unmatched { then discard; }`
instead of the default service's term, and every other target refuses the key at its line (QOS090)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from qosc import pipeline
from tests.test_ethernet_rules import POLICY, _line
from tests.test_fields import BASE, compile_units, ethernet_rule, write


def _dropping() -> dict[str, Any]:
    policy = copy.deepcopy(POLICY)
    policy["classifiers"]["fh"]["unmatched"] = "drop"
    return policy


def test_the_schema_takes_drop_alone_and_the_checks_name_it(tmp_path: Path) -> None:
    path = write(tmp_path, "p", _dropping())
    found = pipeline.validate(path).diagnostics
    assert not [d for d in found if d.is_error], found
    said = [d for d in found if d.code == "QOS214"]
    assert len(said) == 1 and said[0].location is not None and said[0].location.line == _line(path, "unmatched:")
    bad = _dropping()
    bad["classifiers"]["fh"]["unmatched"] = "accept"
    assert any(d.is_error for d in pipeline.validate(write(tmp_path, "q", bad)).diagnostics)


def test_a_classifier_that_drops_on_a_trusting_interface_is_qos213(tmp_path: Path) -> None:
    policy = _dropping()
    policy["devices"]["an1"]["interfaces"]["et-0/0/2"]["trust"] = "pcp"
    path = write(tmp_path, "p", policy)
    found = [d for d in pipeline.validate(path).diagnostics if d.code == "QOS213"]
    assert len(found) == 1 and found[0].is_error and found[0].location is not None, found
    assert found[0].location.line == _line(path, "unmatched:")


def test_junos_ends_the_filter_with_a_discard_term(tmp_path: Path) -> None:
    _, files = compile_units(write(tmp_path, "p", _dropping()))
    conf = next(t for n, t in files[("junos", "an1")].items() if n.endswith(".conf"))
    assert re.search(r"term unmatched \{\s*then \{\s*discard;", conf), conf
    assert "unclassified" not in conf, conf
    _, files = compile_units(write(tmp_path, "q", POLICY))
    assert "discard;" not in next(t for n, t in files[("junos", "an1")].items() if n.endswith(".conf"))


def test_every_other_target_refuses_the_key_at_its_line(tmp_path: Path) -> None:
    policy = copy.deepcopy(BASE)
    ethernet_rule("pcp", [5])(policy)
    policy["classifiers"]["cust"]["unmatched"] = "drop"
    path = write(tmp_path, "p", policy)
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "unmatched:" in text)
    diagnostics, files = compile_units(path)
    refused = {m.group(1) for d in diagnostics if d.code == "QOS090" and "unmatched" in d.message
               and d.location is not None and d.location.line == line
               for m in [re.search(r"target (\S+) ", d.message)] if m}
    assert refused == {"ios-mqc", "catalyst6500", "iosxr", "sros", "linux-tc"}, \
        [d.message for d in diagnostics if d.code == "QOS090"]
    assert ("junos", "mx1") in files
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["classifiers"]["cust"]["unmatched"] == "drop"
