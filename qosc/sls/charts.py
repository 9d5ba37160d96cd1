"""The SLS bandwidth charts: one stacked bar of queue shares per distinct allocation of the link.

Apart from qosc.sls.document because the chart geometry (SVG pixels, legend rows) is its own concern; the HTML
template draws these numbers as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qosc.model import Interface, Policy, Service
from qosc.sls.bounds import Derived, carrying, find_hop, fmt_rate, fmt_share
from qosc.sls.rows import MAX_ROWS
from qosc.units import Percent

CHART_X0 = 10
CHART_SCALE = 6.2
"""SVG x of 0% and pixels per percent (a 620-pixel bar in a 640-pixel box)."""

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac")


@dataclass
class Chart:
    """A stacked bar of the queue shares on interfaces that allocate the link alike."""

    title: str
    interfaces: list[str]
    link_rate: str
    segments: list[dict[str, Any]]
    unallocated: float
    unallocated_x: float
    height: int = 0
    unallocated_text: str = ""
    unallocated_w: float = 0.0
    unallocated_legend_y: int = 0
    unallocated_swatch_y: int = 0
    note: str | None = None


def group_chart(policy: Policy, service: Service, group: list[tuple[str, Interface]]) -> Chart:
    """The chart of one group of alike interfaces, with the service's own queue marked current."""
    iface = group[0][1]
    link = iface.rate
    colours = {s.name: PALETTE[i % len(PALETTE)] for i, s in enumerate(policy.services)}
    owners: dict[str, list[str]] = {}
    for s in policy.services_on(iface):
        owners.setdefault(policy.queue_owner(s).name, []).append(s.name)
    segments: list[dict[str, Any]] = []
    x = 0.0
    mine = policy.queue_owner(service).name if service.name in iface.services else None
    for owner_name, members in owners.items():
        owner = policy.service_map[owner_name]
        share = owner.queue.share
        if share is None and owner.queue.strict and owner.queue.rate_cap is not None:
            share = owner.queue.rate_cap
        if isinstance(share, Percent):
            pct = float(share.value)
        elif share is not None and link:
            pct = 100.0 * int(share) / link
        else:
            pct = 0.0
        pct = max(0.0, min(pct, 100.0 - x))
        rate = fmt_rate(round(link * pct / 100)) if link else "unknown rate"
        label = " + ".join(members)
        extra = []
        if owner.queue.strict:
            extra.append("strict priority")
        extra.append(f"priority {owner.queue.priority.label}")
        segments.append({"name": label, "pct": round(pct, 4), "x": round(x, 4), "width": round(pct, 4),
                         "px_x": round(CHART_X0 + x * CHART_SCALE, 2),
                         "px_w": round(max(pct * CHART_SCALE, 2.0), 2),
                         "px_label": round(CHART_X0 + (x + pct / 2) * CHART_SCALE, 2),
                         "legend_y": 70 + 22 * len(segments), "swatch_y": 58 + 22 * len(segments),
                         "pct_text": f"{pct:.4g}%", "bar": "█" * round(pct / 5) or "▏",
                         "colour": colours[owner_name], "current": owner_name == mine, "rate": rate,
                         "share": fmt_share(share) if share is not None else "none",
                         "detail": ", ".join(extra),
                         "label_x": round(x + pct / 2, 4), "show_label": pct >= 6.0})
        x += pct
    names = [label for label, _ in group]
    title = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more alike"
    rest = max(0.0, 100.0 - x)
    where = "this interface" if len(group) == 1 else "these interfaces"
    note = None if mine else f"{service.name} is not scheduled on {where}"
    return Chart(title, names, fmt_rate(link) if link else "unknown speed", segments, round(rest, 4),
                 round(CHART_X0 + x * CHART_SCALE, 2), 84 + 22 * len(segments), f"{rest:.4g}%",
                 round(rest * CHART_SCALE, 2), 70 + 22 * len(segments), 58 + 22 * len(segments), note)


def service_charts(policy: Policy, service: Service, derived: Derived) -> tuple[list[Chart], int]:
    """One chart per distinct allocation (services, rate) over the interfaces the SLS concerns."""
    labels: list[tuple[str, Interface]] = []
    if derived.path:
        for h in derived.path:
            _, iface = find_hop(policy, h.label)
            if iface is not None and not iface.default_queueing and (h.label, iface) not in labels:
                labels.append((h.label, iface))
    else:
        labels = [(f"{d.name}:{i.name}", i) for d, i in carrying(policy, service)]
    groups: dict[tuple[Any, ...], list[tuple[str, Interface]]] = {}
    for label, iface in labels:
        groups.setdefault((iface.services, iface.rate), []).append((label, iface))
    charts = [group_chart(policy, service, g) for g in groups.values()]
    return charts[:MAX_ROWS], max(0, len(charts) - MAX_ROWS)
