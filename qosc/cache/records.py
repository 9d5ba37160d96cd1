"""Compact records of diagnostics and of what a device contributed to the checks (qosc.checks.network.Part).

Separate because it is the one part that knows the layout of what it stores
(Diagnostic, Location, Part).  Locations are stored relative to the segment
they point into, so moving a device in the file does not invalidate what it
found.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from typing import Any

from qosc.cache.segments import Seg
from qosc.cache.store import quote, unquote
from qosc.checks.network import Part
from qosc.diagnostics import Diagnostic, Location, Severity


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


def decode_diags(enc: Any, filename: str, lines: dict[str, int]) -> list[Diagnostic] | None:
    """The diagnostics `encode_diags` stored, located in the file as it is now; None when a segment is gone."""
    out = []
    for code, severity, message, loc, hint in enc:
        if loc is not None:
            if loc[0] == "":
                loc = Location(*loc[1:])
            elif loc[0] in lines:
                loc = Location(filename, lines[loc[0]] + loc[1], loc[2])
            else:
                return None
        out.append(Diagnostic(code, _SEVERITY[severity], message, loc, hint))
    return out


_SEVERITY = {s.value: s for s in Severity}


def encode_part(part: Part, filename: str, segs: list[Seg] | None, starts: list[int]) -> list[Any]:
    """A device's Part as JSON data (its claims' diagnostics relative to their segments)."""
    claims = [[list(key), *encode_diags([diag], filename, segs, starts)] for key, diag in part.claims]
    return [sorted(part.rates), part.mtu, sorted(map(list, part.carried)), sorted(map(list, part.uses)),
            [[label, list(services)] for label, services in part.cores], claims]


def decode_part(enc: Any, filename: str, lines: dict[str, int]) -> Part | None:
    """The Part `encode_part` stored; None when it is not one (or a claim's segment is gone)."""
    rates, mtu, carried, uses, cores, claims = enc
    found = []
    for key, diag in claims:
        decoded = decode_diags([diag], filename, lines)
        if decoded is None:
            return None
        found.append((tuple(key), decoded[0]))
    if not isinstance(mtu, int) or not all(isinstance(r, int) for r in rates):
        raise TypeError("not a part record")
    return Part(frozenset(rates), mtu, frozenset((str(s), int(r)) for s, r in carried),
                frozenset((str(d), str(s)) for d, s in uses),
                tuple((str(label), tuple(map(str, services))) for label, services in cores), tuple(found))


def device_payload(text: str, nodes: int, fp: str, column: int, platform: str, done: bool, part: int,
                   findings: Any) -> str:
    """A device's record in the store: the hash of its text, its node count, the fingerprint of its inputs, the
    column of its key, its platform, whether every unit of it was rendered, its part (an index into the
    store's table of parts), its device-rule findings (encode_diags, in JSON)."""
    return "\t".join((text, str(nodes), fp, str(column), platform, "1" if done else "0", str(part),
                      json.dumps(findings, ensure_ascii=False, separators=(",", ":"))))


class DeviceRecord:
    """A device's record read back (see `device_payload`)."""

    __slots__ = ("column", "done", "findings", "fp", "nodes", "part", "platform", "raw", "text")

    def __init__(self, raw: str) -> None:
        text, nodes, fp, column, platform, done, part, findings = raw.split("\t", 7)
        self.raw, self.text, self.nodes, self.fp, self.column = raw, text, int(nodes), fp, int(column)
        self.platform, self.done, self.part, self.findings = platform, done == "1", int(part), findings


def entry_payload(files: list[str] | None, notes: list[str], diags: str) -> str:
    """A unit's entry in the store: its diagnostics (encode_diags, in JSON: `diags`), the notes of its files,
    whether it was rendered, then the files it wrote, one field each (qosc.cache.store.quote)."""
    head = f"{diags}\t{json.dumps(notes, ensure_ascii=False)}\t{'0' if files is None else '1'}"
    return head + "".join(f"\t{quote(f)}" for f in files or ())


def entry_fields(raw: str) -> tuple[list[str] | None, list[str], str]:
    """(files or None, notes, diagnostics in JSON) of an entry (see `entry_payload`)."""
    diags, notes, rendered, *files = raw.split("\t")
    if rendered not in ("0", "1"):
        raise ValueError("not an entry")
    found = [f if f[:1] != '"' else unquote(f) for f in files] if rendered == "1" else None
    return found, [] if notes == "[]" else [str(n) for n in json.loads(notes)], diags


KEEP = 1 << 18
"""Records a process that compiles again and again (the compile server) keeps decoded, per table (`keeping`)."""
_ENTRIES: dict[str, tuple[list[str] | None, list[str], str]] = {}
_DEVICES: dict[str, DeviceRecord] = {}
_DIAGS: dict[str, tuple[str, tuple[str, ...], tuple[int | None, ...], list[Diagnostic] | None]] = {}
"""Diagnostics in JSON -> (policy file, the lines of the segments they point into, decoded): valid while those
segments did not move."""


def _kept(table: dict[str, Any], key: str, value: Any) -> Any:
    if len(table) >= KEEP:
        table.clear()
    table[key] = value
    return value


def device_record(raw: str, keep: bool) -> DeviceRecord:
    """DeviceRecord(raw); `keep`: remembered for the next compile in this process."""
    if not keep:
        return DeviceRecord(raw)
    found = _DEVICES.get(raw)
    return found if found is not None else _kept(_DEVICES, raw, DeviceRecord(raw))


def diags_of(text: str, filename: str, lines: dict[str, int], keep: bool) -> list[Diagnostic] | None:
    """decode_diags of diagnostics in JSON; `keep`: remembered for the next compile in this process (the list is
    shared: never change it)."""
    if text == "[]":
        return []
    hit = _DIAGS.get(text) if keep else None
    if hit is not None and hit[0] == filename and tuple(map(lines.get, hit[1])) == hit[2]:
        return hit[3]
    enc = json.loads(text)
    found = decode_diags(enc, filename, lines)
    if keep:
        sids = tuple(sorted({d[3][0] for d in enc if d[3] is not None and d[3][0]}))
        _kept(_DIAGS, text, (filename, sids, tuple(map(lines.get, sids)), found))
    return found


def read_entry(raw: str, filename: str, lines: dict[str, int], keep: bool) -> \
        tuple[list[Diagnostic] | None, list[str] | None, list[str], str]:
    """(its diagnostics located in the file as it is now or None, files, notes, diagnostics in JSON) of an entry
    (`entry_fields`, `diags_of`); `keep`: remembered for the next compile in this process."""
    fields = _ENTRIES.get(raw) if keep else None
    if fields is None:
        fields = entry_fields(raw)
        if keep:
            _kept(_ENTRIES, raw, fields)
    files, notes, diags = fields
    return diags_of(diags, filename, lines, keep), files, notes, diags
