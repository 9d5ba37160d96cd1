"""Generate the Markdown policy reference from the schema, so docs never drift from it."""

from __future__ import annotations

from typing import Any

from qosc.schema import schema


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    if "const" in node:
        return f"`{node['const']}`"
    if "oneOf" in node:
        return " or ".join(_type(n) for n in node["oneOf"])
    kind = node.get("type", "")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and isinstance(node.get("items"), dict) and node["items"].get("type"):
        return f"list of {_type(node['items'])}"
    return kind or "any"


def _first_sentence(text: str) -> str:
    return text.replace("|", "\\|")


def _section(title: str, node: dict[str, Any], out: list[str], seen: set[str]) -> None:
    props = node.get("properties")
    if not props or title in seen:
        return
    seen.add(title)
    required = set(node.get("required", []))
    out.append(f"### `{title}`\n")
    if node.get("description"):
        out.append(node["description"] + "\n")
    out.append("| key | type | description |")
    out.append("|---|---|---|")
    nested: list[tuple[str, dict[str, Any]]] = []
    for key, sub in props.items():
        mark = " (required)" if key in required else ""
        out.append(f"| `{key}`{mark} | {_type(sub)} | {_first_sentence(sub.get('description', ''))} |")
        child = sub.get("additionalProperties") if isinstance(sub.get("additionalProperties"), dict) else sub
        if isinstance(child, dict) and child.get("properties"):
            suffix = ".NAME" if child is not sub else ""
            nested.append((f"{title}.{key}{suffix}" if title != "policy" else f"{key}{suffix}", child))
        nested.extend((f"{title}.{key}" if title != "policy" else key, alt)
                      for alt in sub.get("oneOf", []) if alt.get("properties"))
        items = sub.get("items")
        if isinstance(items, dict) and items.get("properties"):
            nested.append((f"{title}.{key}[]" if title != "policy" else f"{key}[]", items))
    out.append("")
    for name, child in nested:
        _section(name, child, out, seen)


def markdown() -> str:
    """The policy reference: one table per mapping of the policy language."""
    out: list[str] = []
    _section("policy", schema(), out, set())
    return "\n".join(out).rstrip() + "\n"


def codes_markdown() -> str:
    """The table of diagnostic codes, from the registry (core codes and every target's)."""
    from qosc.codes import readme_table
    from qosc.targets.registry import all_codes
    return readme_table(all_codes()) + "\n"


def support_markdown() -> str:
    """Which target renders which policy field: 'yes', or '-' (set on one of its devices: QOS090)."""
    from qosc.fields import fields
    from qosc.targets.registry import targets
    names = list(targets())
    out = ["| field | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for f in fields():
        if f.consumer != "target":
            continue
        cells = []
        for name in names:
            target = targets()[name]
            scope = "hosts" if f.path.startswith("hosts.") else "devices"
            if target.serves != scope:
                cells.append(" ")
                continue
            data = [d for d in target.platform_data.values() if d is not None]
            ok = [target.supports(f.path, d) for d in data]
            cells.append("yes" if all(ok) else "-" if not any(ok) else "some platforms")
        out.append(f"| `{f.path}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


SECTIONS = {"POLICY REFERENCE": markdown, "CODES": codes_markdown, "SUPPORT": support_markdown}
"""README sections generated from data: marker name -> generator (scripts/update-readme-reference)."""
