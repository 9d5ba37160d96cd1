"""Compact records of built devices and of diagnostics, and the devices rebuilt from them.

Separate because it is the one part that knows the model's layout (Device and
Interface fields, Where, Diagnostic): a cached device is rebuilt from its record
and its source nodes are parsed again only when a diagnostic asks for them.
Diagnostics are stored relative to the segment they point into, so moving a
device in the file does not invalidate it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import fields
from typing import Any

from qosc import load
from qosc.cache.segments import Seg
from qosc.diagnostics import Diagnostic, Location, Severity
from qosc.model import Device, Domain, Interface, Role, Where

IF_FIELDS = tuple(f.name for f in fields(Interface) if f.name not in ("name", "where"))
DEV_FIELDS = tuple(f.name for f in fields(Device) if f.name not in ("name", "interfaces", "where"))


class _Source:
    """The current text of one policy, to parse a cached device again when a diagnostic needs its nodes."""

    def __init__(self, filename: str, text: str, segs: dict[str, Seg], profiles: Any) -> None:
        self.filename, self.text, self.segs, self.profiles = filename, text, segs, profiles or {}
        self._parsed: dict[str, Any] = {}

    def device(self, name: str) -> Any:
        if name not in self._parsed:
            seg = self.segs["d:" + name]
            padded = "\n" * (seg.line - 2) + "devices:\n" + self.text[seg.start:seg.end]
            self._parsed[name] = load.load_text(padded, self.filename)["devices"][name]
        return self._parsed[name]


class LazyWhere(Where):
    """A Where for a cached device: the location is known, the nodes are parsed only when asked for."""

    # one attribute, (source, device, interface or None, profile or None, line offset or None, column)
    _k: tuple[_Source, str, str | None, str | None, int | None, int]

    @property  # type: ignore[override]
    def loc(self) -> Location | None:
        src, dev, _, _, rel, col = self._k
        return None if rel is None else Location(src.filename, src.segs["d:" + dev].line + rel, col)

    @property  # type: ignore[override]
    def nodes(self) -> tuple[Any, ...]:
        src, dev, iface, profile, _, _ = self._k
        node = src.device(dev)
        if iface is None:
            return (node,)
        base = src.profiles.get(profile) if profile else None
        return ((base,) if base else ()) + (node["interfaces"][iface],)

    def __reduce__(self) -> Any:
        return (Where, (self.loc, ()))


def if_row(values: Any) -> tuple[Any, ...]:
    """An interface record row as `_encode` made it, from its JSON form (lists back to tuples, enums back)."""
    row = dict(zip(IF_FIELDS, values, strict=True))
    row["role"] = Role(row["role"])
    row["services"] = tuple(row["services"])
    row["encapsulation"] = tuple(row["encapsulation"])
    for key in ("trust", "rewrite"):  # marking domains (qosc.marking.Domain) by their values
        row[key] = tuple(Domain(v) for v in row[key])
    if not all(v is None or isinstance(v, (str, int)) for k, v in row.items() if k not in _TUPLES):
        raise TypeError("not an interface record")
    if not all(isinstance(v, str) for k in _TUPLES for v in row[k]):
        raise TypeError("not an interface record")
    return tuple(row[f] for f in IF_FIELDS)


_TUPLES = ("services", "encapsulation", "trust", "rewrite")


def _lazy(key: tuple[Any, ...]) -> LazyWhere:
    where = object.__new__(LazyWhere)
    where.__dict__["_k"] = key
    return where


def _encode(dev: Device, seg: Seg, filename: str, table: dict[Any, int]) -> tuple[Any, ...] | None:
    def rel(loc: Location | None) -> tuple[int | None, int]:
        if loc is None:
            return None, 0
        if loc.file != filename or loc.line < seg.line:
            raise ValueError(loc)
        return loc.line - seg.line, loc.column

    try:
        ifaces = tuple((i.name, table.setdefault(tuple(i.__dict__[f] for f in IF_FIELDS), len(table)),
                        *rel(i.where.loc)) for i in dev.interfaces)
        return (tuple(getattr(dev, f) for f in DEV_FIELDS), *rel(dev.where.loc), ifaces)
    except (ValueError, TypeError, KeyError):  # a location elsewhere, an unhashable field: not cached
        return None


def _decode(name: str, rec: tuple[Any, ...], table: list[dict[str, Any]], src: _Source) -> Device:
    """A Device equal to the one build() makes, from its record (`table`: interface fields by id)."""
    values, rel, col, ifaces = rec
    out = []
    new, setattr_ = object.__new__, object.__setattr__
    for iname, fid, irel, icol in ifaces:
        iface = new(Interface)
        fields_ = table[fid]
        setattr_(iface, "__dict__", {**fields_, "name": iname,
                                     "where": _lazy((src, name, iname, fields_["profile"], irel, icol))})
        out.append(iface)
    dev = new(Device)
    dev.__dict__.update(zip(DEV_FIELDS, values, strict=True), name=name, interfaces=tuple(out),
                        where=_lazy((src, name, None, None, rel, col)))
    return dev


def encode_diags(diags: list[Diagnostic], filename: str, segs: list[Seg] | None,
                 starts: list[int] | None = None) -> tuple[Any, ...]:
    """Diagnostics with each location relative to the segment it falls in (`starts`: the segments' lines)."""
    if not diags:
        return ()
    starts = starts if starts is not None else [s.line for s in segs] if segs else []
    out = []
    for d in diags:
        loc: Any = d.location
        if loc is not None and segs and loc.file == filename:
            seg = segs[max(0, bisect_right(starts, loc.line) - 1)]
            loc = (seg.sid, loc.line - seg.line, loc.column)
        elif loc is not None:
            loc = ("", loc.file, loc.line, loc.column)
        out.append((d.code, d.severity.value, d.message, loc, d.hint))
    return tuple(out)


def decode_diags(enc: tuple[Any, ...], filename: str, lines: dict[str, int]) -> list[Diagnostic] | None:
    out = []
    for code, severity, message, loc, hint in enc:
        if loc is not None:
            if loc[0] == "":
                loc = Location(*loc[1:])
            elif loc[0] in lines:
                loc = Location(filename, lines[loc[0]] + loc[1], loc[2])
            else:
                return None
        out.append(Diagnostic(code, Severity(severity), message, loc, hint))
    return out
