"""Devices of the same lowering input are lowered, grammar-checked and serialized once, then named per device.

A target's lowering of a device reads the policy, the device's platform,
description and address, and per interface its name, description and
settings (Interface.settings); diagnostics and statement origins read the
source locations of the device and its interfaces.  Two devices equal in all
but their name and locations (`signature`) get the same output but for the
name, and diagnostics equal but for the name and the locations: most devices
of a large network are such copies of a few (one per platform and set of
profiles).  So the first of them is lowered and rendered as a stand-in
(`proxy`): named PLACEHOLDER, its locations symbolic (SymLocation: which
entity, which field); each device of the group then gets that result with
its own name put in and each location looked up in its own source
(`instantiate`), which is exactly what lowering it would have given.

The signature holds, beside the values, which keys each of the device's and
interfaces' source mappings has (`_shape`), so a lowering that asks whether a
field was written (Where.field) gets the same answer for every device of a
group.  Capability checks (QOS090) still run per device.  A device whose name
could be spelled differently in some output (anything beyond letters,
digits, '.', '_' and '-'), a host, or a policy that mentions PLACEHOLDER, is
never shared; nor is a lowering that raised (it is done again per device).
tests/test_shared_lowering.py compiles with and without sharing and demands
the same bytes and diagnostics.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from qosc.diagnostics import Diagnostic, Location
from qosc.model import Device, Policy
from qosc.targets.base import Output, Target
from qosc.tree import At
from qosc.where import Where

PLACEHOLDER = "qosc-shared-device-7e1c0d"
"""The stand-in's name; replaced by each device's own in paths, texts and messages."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")


@dataclass(frozen=True, order=True, slots=True)
class SymLocation(Location):
    """A location of the stand-in: `slot` -1 the device, k its k-th interface; `key` '' the entity, else a field."""

    slot: int = -1
    key: str = ""


class SymWhere(Where):
    """The stand-in's Where: the same answers as the real one, but symbolic (see SymLocation)."""

    def __init__(self, real: Where, slot: int) -> None:
        object.__setattr__(self, "nodes", real.nodes)
        object.__setattr__(self, "loc", None if real.loc is None else SymLocation("", 0, 0, slot, ""))
        object.__setattr__(self, "real", real)
        object.__setattr__(self, "slot", slot)

    def field(self, name: str) -> Location | None:
        return None if self.real.field(name) is None else SymLocation("", 0, 0, self.slot, name)  # type: ignore[attr-defined]


_SHAPES: dict[int, Any] = {}
"""Shapes of source mappings by id (a profile's mapping is shared by many interfaces); see `forget`."""


def _shape(node: Any) -> Any:
    """The keys of a source mapping, and of the mappings in it (what Where.field can find there)."""
    if not isinstance(node, dict):
        return None
    found = _SHAPES.get(id(node))
    if found is None:
        if any(isinstance(v, dict) for v in node.values()):
            found = tuple((k, _shape(v)) for k, v in node.items())
        else:
            found = tuple(node)
        _SHAPES[id(node)] = (found, node)  # (the node kept alive: its id is not reused meanwhile)
        return found
    return found[0]


def forget() -> None:
    """Drop what is memoised by id (at the end of a compile: ids of objects gone may be reused)."""
    _SHAPES.clear()
    _CLEAN.clear()


_CLEAN: dict[int, bool] = {}


def _policy_clean(policy: Policy) -> bool:
    """Whether nothing a lowering reads from the policy itself contains PLACEHOLDER (memoised per policy)."""
    found = _CLEAN.get(id(policy))
    if found is None:
        text = repr((policy.name, policy.description, policy.source, policy.services, policy.classifiers,
                     policy.policers, policy.drop_profiles, policy.profiles))
        found = _CLEAN[id(policy)] = PLACEHOLDER not in text
    return found


def signature(target: Target, policy: Policy, unit: Any) -> tuple[Any, ...] | None:
    """What the lowering of `unit` by `target` reads besides its name and locations; None: not shared."""
    if not isinstance(unit, Device) or not NAME.match(unit.name) or not _policy_clean(policy):
        return None
    ifaces = []
    for i in unit.interfaces:
        if PLACEHOLDER in i.name or (i.description and PLACEHOLDER in i.description) or (
                i.port_type and PLACEHOLDER in i.port_type):
            return None
        ifaces.append((i.name, i.description, i.settings(), tuple(map(_shape, i.where.nodes))))
    if unit.description and PLACEHOLDER in unit.description:
        return None
    return (target.name, unit.platform, unit.address, unit.description, tuple(map(_shape, unit.where.nodes)),
            tuple(ifaces))


def proxy(unit: Device) -> Device:
    """The stand-in for `unit`'s group: PLACEHOLDER, with symbolic locations."""
    interfaces = tuple(dataclasses.replace(i, where=SymWhere(i.where, k)) for k, i in enumerate(unit.interfaces))
    return dataclasses.replace(unit, name=PLACEHOLDER, interfaces=interfaces, where=SymWhere(unit.where, -1))


def locate(loc: Location | None, unit: Device) -> Location | None:
    """A stand-in's location as `unit`'s own."""
    if not isinstance(loc, SymLocation):
        return loc
    where = unit.where if loc.slot < 0 else unit.interfaces[loc.slot].where
    return where.loc if not loc.key else where.field(loc.key)


def diagnostic(d: Diagnostic, unit: Device) -> Diagnostic:
    """A stand-in's diagnostic as `unit`'s own."""
    hint = d.hint.replace(PLACEHOLDER, unit.name) if d.hint else d.hint
    return dataclasses.replace(d, message=d.message.replace(PLACEHOLDER, unit.name), location=locate(d.location, unit),
                               hint=hint)


def _origin(o: Any, unit: Device) -> Any:
    if isinstance(o, At) and isinstance(o.where, SymWhere):
        slot = o.where.slot  # type: ignore[attr-defined]
        return At(unit.where if slot < 0 else unit.interfaces[slot].where, *o.names)
    return locate(o, unit) if isinstance(o, Location) else o


def output(o: Output, unit: Device, origins: bool) -> Output:
    """A stand-in's file as `unit`'s own (`origins`: map its source map too; a sink writing files needs none)."""
    mapped = tuple(_origin(x, unit) for x in o.origins) if origins else ()
    return Output(o.path.replace(PLACEHOLDER, unit.name), o.text.replace(PLACEHOLDER, unit.name), o.notes, mapped)
