"""Configuration readers of targets that do not own one yet (today: Linux tc, whose target is not a package yet).

JUNOS and Cisco targets own theirs, in their packages (`Target.reader` names the module).

Each reader package exposes `READS` (the formats it reads), `parse(text,
source, platform, fmt)` -> qosc.tree.Document (origins: the configuration's
file:line:column), `interpret(document, platform)` -> (behaviour, located
diagnostics) and `sniff(text)` -> format or None.  They import only the
core (tree, behaviour, diagnostics, dscp, units, codes, errors), never a
target, so a target package adopts its reader by moving it into the
package and naming it in `Target.reader`.  qosc.behaviour.readback falls back
to `for_platform()` for a platform whose targets cannot read yet.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qosc.behaviour.model import Device
from qosc.diagnostics import Diagnostic
from qosc.tree import Document

PLATFORMS = {"linux": "linux_tc"}
"""Platform -> reader package under qosc.readers."""


@dataclass(frozen=True)
class Reader:
    """One dialect's reader, shaped like the read-back half of a Target (reads, parse, interpret, sniff)."""

    name: str
    reads: tuple[str, ...]
    _parse: Callable[..., Document]
    _interpret: Callable[..., tuple[Device, list[Diagnostic]]]
    _sniff: Callable[[str], str | None]

    def parse(self, text: str, source: str, platform: Any = None, fmt: str | None = None) -> Document:
        return self._parse(text, source, platform, fmt)

    def interpret(self, document: Document, platform: Any = None) -> tuple[Device, list[Diagnostic]]:
        return self._interpret(document, platform)

    def sniff(self, text: str) -> str | None:
        return self._sniff(text)


def load(package: str) -> Reader | None:
    try:
        module = importlib.import_module(f"qosc.readers.{package}")
    except ModuleNotFoundError:
        return None
    return Reader(package, tuple(module.READS), module.parse, module.interpret, module.sniff)


def for_platform(name: str) -> Reader | None:
    """The reader of a platform's configurations, or None."""
    package = PLATFORMS.get(name)
    return load(package) if package else None


def platforms_of(package: str) -> list[str]:
    return [p for p, r in PLATFORMS.items() if r == package]


def all_readers() -> dict[str, Reader]:
    out = {}
    for package in dict.fromkeys(PLATFORMS.values()):
        r = load(package)
        if r is not None:
            out[package] = r
    return out
