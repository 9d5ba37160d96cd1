"""Generate yang/qosc-sros-conf.yang from the YANG-derived sros grammar (the subset of nokia-conf qosc writes).

    python -m qosc.targets.sros.push.yang > yang/qosc-sros-conf.yang

The module has nokia-conf's namespace, the `configure` container and, below
it, only the nodes of the derived facts (qosc/targets/sros/yang/, newest
release): names, list keys, value types (enumerations, integer and decimal
ranges, string lengths, unions, empty leaves, leaf-lists), mandatory leaves
and presence containers, so the NETCONF test peer (netconfd) checks every
edit-config qosc sends against the same facts the compiler checks its output
with.  Patterns, choices, leafrefs, `when` and `must` are checked by qosc's
grammar, not here.  It is qosc's generated subset, not Nokia's module
(tests fail when the committed file and the facts differ).
"""

from __future__ import annotations

import sys
from typing import Any

from qosc.targets.sros.grammar import YANG

MODULE = "qosc-sros-conf"
NAMESPACE = "urn:nokia.com:sros:ns:yang:sr:conf"


def _type(t: Any) -> str:
    ((kind, arg),) = t.items()
    if kind == "enum":
        return "enumeration { " + " ".join(f'enum "{v}";' for v in arg) + " }"
    if kind == "int":
        base = "uint64" if all(lo >= 0 for lo, _ in arg) else "int64"
        return f'{base} {{ range "{" | ".join(f"{lo}..{hi}" if lo != hi else str(lo) for lo, hi in arg)}"; }}'
    if kind == "decimal":
        low, high, digits = arg
        return (f'decimal64 {{ fraction-digits {max(1, digits)}; range "{low:.{max(1, digits)}f} .. '
                f'{high:.{max(1, digits)}f}"; }}')
    if kind == "string":
        low, high = arg[0], arg[1]
        return f'string {{ length "{low}..{"max" if high is None else high}"; }}'
    if kind == "union":
        return "union { " + " ".join(_typed(m) for m in arg) + " }"
    return "string"


def _typed(t: Any) -> str:
    body = _type(t)
    return f"type {body}" if body.endswith("}") else f"type {body};"


def _node(name: str, data: dict[str, Any], depth: int, out: list[str], key: bool = False) -> None:
    pad = "  " * depth
    kind = data["kind"]
    if kind == "empty":
        out.append(f"{pad}leaf {name} {{ type empty; }}")
        return
    if kind in ("leaf", "leaf-list"):
        extra = " mandatory true;" if data.get("mandatory") and not key else ""
        out.append(f"{pad}{kind} {name} {{ {_typed(data['type'])}{extra} }}")
        return
    out.append(f"{pad}{kind} {name} {{")
    if kind == "list":
        out.append(f'{pad}  key "{" ".join(data["keys"])}";')
    if data.get("presence"):
        out.append(f'{pad}  presence "{name}";')
    for child, sub in data.get("children", {}).items():
        _node(child, sub, depth + 1, out, key=child in data.get("keys", ()))
    out.append(f"{pad}}}")


def yang_module() -> str:
    data = YANG[0].data
    modules = ", ".join(f"{m}@{r}" for m, r in data["modules"].items())
    out = [f"module {MODULE} {{", "  yang-version 1.1;", f'  namespace "{NAMESPACE}";', "  prefix conf;", "",
           '  organization "qosc";',
           "  description",
           f'    "The part of Nokia\'s SR OS {data["release"]} nokia-conf YANG that qosc writes',
           f"     ({modules}), under the configure container: generated from",
           f"     qosc/targets/sros/yang/sros-{data['release']}.json by qosc/targets/sros/push/yang.py;",
           '     do not edit by hand.";', "",
           '  revision 2026-01-01 { description "Generated from the YANG-derived sros grammar."; }', ""]
    body: list[str] = []
    _node("configure", {"kind": "container", "children": data["tree"]}, 1, body)
    out.extend(body)
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(yang_module())
