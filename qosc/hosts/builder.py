"""The builder of `hosts:`: a schema-valid policy tree to Host dataclasses, bad values as diagnostics.

Called by qosc.build, whose Builder converts rates, sizes and times: what this module needs of it is the
protocol Converter (so qosc.hosts does not import qosc.build, which imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from qosc.diagnostics import Diagnostic, Location, error
from qosc.hosts.model import Host, HostInterface, HostPath, TcpSettings, Triple
from qosc.model import Where, free_text


class Converter(Protocol):
    """What building hosts needs of qosc.build.Builder: values in canonical units, lazy locations, and the list
    its diagnostics go to."""

    diagnostics: list[Diagnostic]

    def rate(self, value: Any, loc: Location | None, allow_percent: bool = True) -> Any: ...

    def size(self, value: Any, loc: Location | None) -> int | None: ...

    def time(self, value: Any, loc: Location | None) -> int | None: ...

    def where(self, node: Any, parent: Where | None = None) -> Where: ...





def _triple(b: Converter, raw: Any, loc: Location | None) -> Triple | None:
    """[min, default, max] sizes, or the text sysctl prints ('4096 87380 174760')."""
    items = raw.split() if isinstance(raw, str) else list(raw)
    if len(items) != 3:
        b.diagnostics.append(error("QOS014", f"a buffer triple needs three sizes (min default max), got "
                                   f"{len(items)}", loc, "e.g. [4096, 131072, 16MB] or '4096 131072 16777216'"))
        return None
    sizes = [b.size(v, loc) for v in items]
    if any(s is None for s in sizes):
        return None
    return Triple(*sizes)  # type: ignore[arg-type]


def _settings(b: Converter, raw: Mapping[str, Any] | None, parent: Where, key: str) -> TcpSettings:
    raw = raw or {}
    where = b.where(raw) if raw else Where(parent.at(key))
    at = where.at
    return TcpSettings(
        rmem_max=b.size(raw.get("rmem_max"), at("rmem_max")),
        wmem_max=b.size(raw.get("wmem_max"), at("wmem_max")),
        tcp_rmem=_triple(b, raw["tcp_rmem"], at("tcp_rmem")) if "tcp_rmem" in raw else None,
        tcp_wmem=_triple(b, raw["tcp_wmem"], at("tcp_wmem")) if "tcp_wmem" in raw else None,
        tcp_congestion_control=raw.get("tcp_congestion_control"),
        default_qdisc=raw.get("default_qdisc"),
        where=where,
    )


def build_host(b: Converter, name: str, raw: Mapping[str, Any]) -> Host:
    where = b.where(raw)
    interfaces = []
    for iname, iraw in (raw.get("interfaces") or {}).items():
        iwhere = b.where(iraw)
        speed = b.rate(iraw.get("speed"), iwhere.at("speed"), allow_percent=False)
        interfaces.append(HostInterface(iname, speed if isinstance(speed, int) else 0, iraw.get("txqueuelen"),
                                        free_text(iraw.get("description")), iwhere))
    paths = []
    for praw in raw.get("paths") or []:
        pwhere = b.where(praw)
        rate = b.rate(praw.get("rate"), pwhere.at("rate"), allow_percent=False)
        paths.append(HostPath(
            peer=praw["peer"], rtt_us=b.time(praw.get("rtt"), pwhere.at("rtt")) or 0,
            rate=rate if isinstance(rate, int) else None, service=praw.get("service"),
            description=free_text(praw.get("description")), where=pwhere,
        ))
    return Host(
        name=name, platform=raw["platform"], interfaces=tuple(interfaces), paths=tuple(paths),
        overrides=_settings(b, raw.get("overrides"), where, "overrides"),
        current=_settings(b, raw["current"], where, "current") if "current" in raw else None,
        description=free_text(raw.get("description")), where=where,
    )


def build_hosts(b: Converter, tree: Mapping[str, Any]) -> tuple[Host, ...]:
    """Every host of a schema-valid tree; bad values become diagnostics in `b`."""
    section = tree.get("hosts") or {}
    return tuple(build_host(b, name, raw) for name, raw in section.items()) if isinstance(section, dict) else ()
