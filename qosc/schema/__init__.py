"""The policy JSON Schema (Draft 2020-12) and its enforcement with located diagnostics.

The schema is the one published contract of the policy language: editors use it
for completion and hover help, and qosc enforces exactly the same file, so
what the editor accepts is what the compiler accepts.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from qosc.diagnostics import Diagnostic, Location, error

SCHEMA_FILE = "policy.schema.json"


def schema_text() -> str:
    """The schema exactly as published (what `qosc schema` prints)."""
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(schema_text())


def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """A schema pattern as JSON Schema means it (ECMA-262): '$' is the end of the text.

    Python's '$' also matches before a final newline, so 'name\\n' would pass
    '^[a-z]+$' and a name or description could carry a line break past the
    schema; '(?![\\s\\S])' is the end of the text and nothing else.
    """
    return _ecma(pattern)


@lru_cache(maxsize=256)
def _ecma(pattern: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"(?<!\\)\$", r"(?![\\s\\S])", pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema_: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _ecma(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern})


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return _Validator(schema())


def _where(path: Sequence[str | int]) -> str:
    """Human form of a path in the policy: services.lbe.queue."""
    return ".".join(str(p) if str(p).isprintable() else repr(p) for p in path) or "the policy"


def _type_name(value: object) -> str:
    return {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def _resolve(subschema: dict[str, Any]) -> dict[str, Any]:
    ref = subschema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = schema()
        for part in ref[2:].split("/"):
            node = node[part]
        return node
    return subschema


def _diagnostics_for(err: ValidationError, locate: Any) -> Iterator[Diagnostic]:
    path = list(err.absolute_path)
    where = _where(path)
    loc: Location | None = locate(path)
    kind = err.validator
    if kind in ("oneOf", "anyOf") and err.context:
        yield from _diagnostics_for(best_match(err.context), locate)
        return
    if kind == "additionalProperties" and isinstance(err.instance, dict):
        allowed = sorted(_resolve(err.schema).get("properties", {}))
        for key in sorted(k for k in err.instance if k not in allowed):
            close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"allowed keys here: {', '.join(allowed)}"
            yield error("QOS010", f"unknown key '{key}' in {where}", locate(path + [key], key=True), hint)
        return
    if kind == "required":
        missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
        for key in missing:
            desc = _resolve(err.schema).get("properties", {}).get(key, {}).get("description", "")
            yield error("QOS012", f"missing required key '{key}' in {where}", loc,
                        desc.split(". ")[0] if desc else None)
        return
    if kind == "dependentRequired" and isinstance(err.instance, dict):
        for key, needs in sorted(err.validator_value.items()):
            for other in needs:
                if key in err.instance and other not in err.instance:
                    yield error("QOS012", f"{where} has '{key}' but not '{other}': two-rate three-colour "
                                "policing needs both", locate(path + [key], key=True), f"add {other}")
        return
    if kind == "type":
        expected = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        yield error("QOS011", f"{where} must be {' or '.join(expected)}, not {_type_name(err.instance)}", loc,
                    _hint_from(err))
        return
    if kind == "propertyNames":
        yield error("QOS013", f"invalid name {err.instance!r} in {_where(path)}",
                    locate(path + [str(err.instance)], key=True),
                    "names start with a letter and use letters, digits, '.', '_' or '-'")
        return
    if kind == "enum":
        choices = [str(c) for c in err.validator_value]
        close = difflib.get_close_matches(str(err.instance), choices, n=1, cutoff=0.5)
        hint = (f"did you mean '{close[0]}'? " if close else "") + f"one of: {', '.join(choices)}"
        yield error("QOS013", f"{where} has invalid value {err.instance!r}", loc, hint)
        return
    if kind == "const":
        yield error("QOS013", f"{where} must be {err.validator_value!r}, not {err.instance!r}", loc)
        return
    if kind == "pattern":
        yield error("QOS013", f"{where} has invalid value {_short(err.instance)}", loc, _hint_from(err) or
                    "one line of text without control characters")
        return
    yield error("QOS013", f"{where}: {err.message}", loc, _hint_from(err))


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "...'"


def _hint_from(err: ValidationError) -> str | None:
    desc = err.schema.get("description") if isinstance(err.schema, dict) else None
    if not desc and err.parent is not None and isinstance(err.parent.schema, dict):
        desc = err.parent.schema.get("description")
    return desc.split(". ")[0] if isinstance(desc, str) else None


@lru_cache(maxsize=1)
def _interface_validator() -> jsonschema.Draft202012Validator:
    iface = schema()["properties"]["devices"]["additionalProperties"]["properties"]["interfaces"]
    return _Validator(iface["additionalProperties"])


@lru_cache(maxsize=1)
def _interface_name_pattern() -> re.Pattern[str]:
    iface = schema()["properties"]["devices"]["additionalProperties"]["properties"]["interfaces"]
    return ecma_pattern(iface["propertyNames"]["pattern"])


def _errors(tree: object) -> Iterator[ValidationError]:
    """Schema errors of the whole tree, validating each distinct interface body once.

    A large network repeats the same few interface bodies thousands of times
    ({profile: core-10g}); their validity depends only on their content, so
    the devices are checked with interfaces stubbed out and every distinct
    interface body is checked once, with its errors re-rooted at each use.
    """
    devices = tree.get("devices") if isinstance(tree, dict) else None
    if not isinstance(tree, dict) or not isinstance(devices, dict):
        yield from _validator().iter_errors(tree)
        return
    bodies: list[tuple[list[str | int], object]] = []
    stub_devices = {}
    for dname, device in devices.items():
        ifaces = device.get("interfaces") if isinstance(device, dict) else None
        if isinstance(ifaces, dict):
            pattern = _interface_name_pattern()
            odd = [n for n in ifaces if not isinstance(n, str) or not pattern.match(n)]
            keep = odd or list(ifaces)[:1]
            stub_devices[dname] = {**device, "interfaces": {name: {} for name in keep}}
            bodies.extend((["devices", dname, "interfaces", iname], body) for iname, body in ifaces.items())
        else:
            stub_devices[dname] = device
    yield from _validator().iter_errors({**tree, "devices": stub_devices})
    valid: set[str] = set()
    iface_validator = _interface_validator()
    for prefix, body in bodies:
        key = repr(body)
        if key in valid:
            continue
        found = False
        for err in iface_validator.iter_errors(body):
            found = True
            err.path.extendleft(reversed(prefix))
            yield err
        if not found:
            valid.add(key)


def validate(tree: object, locate: Any) -> list[Diagnostic]:
    """Check a loaded policy tree against the schema; every error, each with a location.

    `locate(path, key=False)` maps a path in the tree to a Location (the loader's).
    """
    diagnostics: list[Diagnostic] = []
    for err in _errors(tree):
        diagnostics.extend(_diagnostics_for(err, locate))
    return sorted(set(diagnostics), key=Diagnostic.sort_key)
