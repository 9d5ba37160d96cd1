"""Schema enforcement: unknown keys and wrong types are errors at their line, with hints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from helpers import BASE, codes, texts, validate_text

from qosc.schema import schema, schema_text


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(schema_text()) == schema()


def test_every_property_has_a_description_for_hover_help() -> None:
    missing = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                if "description" not in sub:
                    missing.append(f"{path}.{key}")
            for key, sub in node.items():
                walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{path}[{i}]")

    walk(schema(), "")
    assert missing == []


def test_typo_in_key_points_at_line_column_with_hint(tmp_path: Path) -> None:
    text = BASE.replace("{share: 1%, priority: low}", "{share: 1%, prority: low}")
    diags = validate_text(tmp_path, text)
    assert texts(diags, tmp_path) == [
        "T/p.yaml:13:24: error[QOS010]: unknown key 'prority' in services.lbe.queue\n  hint: did you mean 'priority'?"]


def test_unknown_key_without_close_match_lists_allowed(tmp_path: Path) -> None:
    [d] = validate_text(tmp_path, BASE.replace("name: t\n", "name: t\nvendor: cisco\n"))
    assert d.code == "QOS010" and d.hint.startswith("allowed keys here: classifiers, defaults, description")


def test_wrong_type(tmp_path: Path) -> None:
    [d] = validate_text(tmp_path, BASE.replace("default: true", "default: yes please"))
    assert d.code == "QOS011"
    assert d.message == "services.best-effort.default must be boolean, not string"
    assert (d.location.line, d.location.column) == (6, 14)


def test_missing_required_key(tmp_path: Path) -> None:
    [d] = validate_text(tmp_path, BASE.replace("    platform: linux\n", ""))
    assert d.code == "QOS012" and d.message == "missing required key 'platform' in devices.r1"


def test_bad_enum_has_did_you_mean(tmp_path: Path) -> None:
    [d] = validate_text(tmp_path, BASE.replace("priority: low", "priority: lo"))
    assert d.code == "QOS013" and d.hint.startswith("did you mean 'low'?")


def test_description_cannot_carry_a_newline(tmp_path: Path) -> None:
    diags = validate_text(tmp_path, BASE.replace("name: t\n", 'name: t\ndescription: "a\\nset system root"\n'))
    assert codes(diags) == ["QOS013"]


def test_bad_units_are_located(tmp_path: Path) -> None:
    diags = validate_text(tmp_path, BASE.replace("speed: 1G", "speed: 1 gigabit"))
    assert codes(diags) == ["QOS014"]
    assert diags[0].location.line == 18 and diags[0].hint


def test_every_error_is_reported_not_just_the_first(tmp_path: Path) -> None:
    text = (BASE.replace("prority", "x").replace("priority: low", "prority: low")
            .replace("name: t\n", "name: t\nfoo: 1\n"))
    assert codes(validate_text(tmp_path, text)) == ["QOS010", "QOS010"]


def test_interface_errors_are_located_even_when_bodies_repeat(tmp_path: Path) -> None:
    text = BASE.replace("      eth0: {role: core, speed: 1G}\n",
                        "      eth0: {role: core, speed: 1G}\n      eth1: {role: core, speed: 1G}\n"
                        "      eth2: {role: core, sped: 1G}\n      eth3: {role: core, sped: 1G}\n")
    diags = validate_text(tmp_path, text)
    assert [(d.code, d.location.line, d.location.column, d.hint) for d in diags] == [
        ("QOS010", 20, 26, "did you mean 'speed'?"), ("QOS010", 21, 26, "did you mean 'speed'?")]
