"""Policy fields: every leaf of the schema, who consumes it, and which are set on what reaches a device.

The schema is the one list of fields.  A field annotated
`"x-qosc-consumer": "qosc"` is consumed by qosc itself (the loader, the
checks, the SLS documents, push); every other field is a *target field*: a
target of a device that the field reaches must render it, or the core
reports it (QOS090) at the field's own line, so nothing a policy says is
dropped without a word.  `"x-qosc-unsupported": "warning"` makes that report
a warning (descriptions: losing a comment changes no behaviour).

Field paths use the schema's shape with `*` for names and list items:
`services.*.queue.ecn`, `classifiers.*.rules.*.match.dscp`.  Profiles hold
interface settings, so `profiles.*.shape` is the field
`devices.*.interfaces.*.shape`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from qosc.diagnostics import Location
from qosc.model import Device, Policy
from qosc.schema import schema

INTERFACE = "devices.*.interfaces.*"


@dataclass(frozen=True)
class Field:
    path: str
    consumer: str  # "qosc" or "target"
    unsupported: str  # severity when a target does not support it: "error" or "warning"
    description: str

    @property
    def key(self) -> str:
        return self.path.rsplit(".", 1)[-1]


def _walk(node: Mapping[str, Any], path: tuple[str, ...], inherited: str | None) -> Iterator[Field]:
    consumer = node.get("x-qosc-consumer", inherited)
    props = node.get("properties")
    extra = node.get("additionalProperties")
    items = node.get("items")
    if isinstance(props, Mapping) and path:
        for key, sub in props.items():
            yield from _walk(sub, (*path, key), consumer)
    elif isinstance(props, Mapping):
        for key, sub in props.items():
            yield from _walk(sub, (key,), consumer)
    elif isinstance(extra, Mapping) and extra:
        yield from _walk(extra, (*path, "*"), consumer)
    elif node.get("type") == "array" and isinstance(items, Mapping) and "properties" in items:
        yield from _walk(items, (*path, "*"), consumer)
    else:
        yield Field(".".join(path), consumer or "target", node.get("x-qosc-unsupported", "error"),
                    str(node.get("description", "")))


@lru_cache(maxsize=1)
def fields() -> tuple[Field, ...]:
    """Every leaf field of the policy schema (profiles folded into interfaces), in schema order."""
    out: dict[str, Field] = {}
    for f in _walk(schema(), (), None):
        path = f.path.replace("profiles.*.", INTERFACE + ".", 1) if f.path.startswith("profiles.*.") else f.path
        out.setdefault(path, Field(path, f.consumer, f.unsupported, f.description))
    return tuple(out.values())


@lru_cache(maxsize=1)
def by_path() -> Mapping[str, Field]:
    return {f.path: f for f in fields()}


def target_fields(prefix: str = "") -> tuple[str, ...]:
    """Paths of the fields targets must render or refuse (optionally those under `prefix`)."""
    return tuple(f.path for f in fields() if f.consumer == "target" and f.path.startswith(prefix))


# -- which fields are set on what reaches a unit ------------------------------------------------------------


def _keys(node: Any, path: str, out: dict[str, Location | None], skip: tuple[str, ...] = ()) -> None:
    """Record every leaf field set in a marked mapping (the loader's MDict) found at schema path `path`."""
    if not isinstance(node, dict):
        return
    locs = getattr(node, "key_locs", None) or {}
    prefixes = _prefixes()
    leaves = by_path()
    for key, value in node.items():
        if key in skip:
            continue
        here = f"{path}.{key}" if f"{path}.{key}" in prefixes else f"{path}.*" if f"{path}.*" in prefixes else None
        if here is None:
            continue  # not a schema key (refused by the schema check before anything gets here)
        if here in leaves:
            out.setdefault(here, locs.get(key) if isinstance(locs, dict) else None)
        elif isinstance(value, dict):
            _keys(value, here, out)
        elif isinstance(value, list):
            for item in value:
                _keys(item, here + ".*", out)


@lru_cache(maxsize=1)
def _prefixes() -> frozenset[str]:
    """Every schema path that leads to a field (the fields themselves included)."""
    out: set[str] = set()
    for f in fields():
        parts = f.path.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(out)


def _entity(where: Any, path: str, out: dict[str, Location | None], skip: tuple[str, ...] = ()) -> None:
    for node in getattr(where, "nodes", ()):  # a profile, then the interface overriding it
        _keys(node, path, out, skip)


def set_on_device(policy: Policy, device: Device) -> dict[str, Location | None]:
    """Field path -> the location of its key, for every field set on the device or on what it uses.

    What a device uses: the policy's name, description and defaults (and its MPLS settings where the device
    has an MPLS interface); the
    device and its interfaces (with their profiles); the services scheduled
    on them; the drop profiles and policers of those services; the
    classifiers of its interfaces with their rules and the rules' policers.
    """
    out: dict[str, Location | None] = {}
    top = policy.where.nodes[-1] if policy.where.nodes else None
    if isinstance(top, dict):
        locs = getattr(top, "key_locs", {})
        for key in ("name", "description"):
            if key in top:
                out.setdefault(key, locs.get(key))
        if isinstance(top.get("defaults"), dict):
            _keys(top["defaults"], "defaults", out)
        if isinstance(top.get("mpls"), dict) and any(i.mpls for i in device.interfaces):
            _keys(top["mpls"], "mpls", out)
    _entity(device.where, "devices.*", out, skip=("interfaces",))
    services: dict[str, Any] = {}
    classifiers: dict[str, Any] = {}
    for iface in device.interfaces:
        _entity(iface.where, INTERFACE, out)
        for s in policy.services_on(iface):
            services[s.name] = s
        if iface.classifier and iface.classifier in policy.classifier_map:
            classifiers[iface.classifier] = policy.classifier_map[iface.classifier]
    policers: set[str] = set()
    profiles: set[str] = set()
    for s in services.values():
        _entity(s.where, "services.*", out)
        if s.policer:
            policers.add(s.policer)
        profiles.update(p for _, p in s.drop_profiles)
    for c in classifiers.values():
        _entity(c.where, "classifiers.*", out)
        for r in c.rules:
            if r.policer:
                policers.add(r.policer)
            used = policy.service_map.get(r.service)
            if used is not None and used.policer:
                policers.add(used.policer)
    for name in sorted(policers):
        p = policy.policer_map.get(name)
        if p is not None:
            _entity(p.where, "policers.*", out)
    for name in sorted(profiles):
        d = policy.drop_profile_map.get(name)
        if d is not None:
            _entity(d.where, "drop-profiles.*", out)
    return out


def set_on_host(host: Any) -> dict[str, Location | None]:
    """Field path -> location of every field set on an end host (hosts.NAME and everything under it)."""
    out: dict[str, Location | None] = {}
    _entity(host.where, "hosts.*", out)
    return out
