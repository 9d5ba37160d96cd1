"""Generate yang/qosc-junos-qos.yang from the YANG-derived junos grammar (the subset of Juniper's YANG qosc writes).

    python -m qosc.targets.junos.push.yang > yang/qosc-junos-qos.yang

The module has Juniper's node names, list keys, value types (enumerations,
integer ranges, string lengths, empty leaves, leaf-lists) under one
`configuration` container in qosc's namespace, so the NETCONF test peer
(netconfd) checks every edit-config against the same grammar the compiler
checks its output with.  Patterns (Juniper's are POSIX, the grammar keeps them
as Python expressions) and choices are checked by qosc's grammar, not here.
(tests/test_push_unit.py fails when the committed module and the grammar differ.)
"""

from __future__ import annotations

import sys
from typing import Any

from qosc.targets.junos.push.xml import GRAMMAR, MODULE, NAMESPACE


def _type(t: Any) -> str:
    ((kind, arg),) = t.items()
    if kind == "enum":
        return "enumeration { " + " ".join(f'enum "{v}";' for v in arg) + " }"
    if kind == "int":
        base = "uint64" if all(lo >= 0 for lo, _ in arg) else "int64"
        if arg == [[0, 2**64 - 1]] or arg == [[-(2**63), 2**63 - 1]]:
            return base
        return f'{base} {{ range "{" | ".join(f"{lo}..{hi}" if lo != hi else str(lo) for lo, hi in arg)}"; }}'
    if kind == "string":
        low, high = arg[0], arg[1]
        return f'string {{ length "{low}..{"max" if high is None else high}"; }}'
    if kind == "union":
        return "union { " + " ".join(_typed(m) for m in arg) + " }"
    return "string"


def _typed(t: Any) -> str:
    """A `type` statement (a block needs no ';')."""
    body = _type(t)
    return f"type {body}" if body.endswith("}") else f"type {body};"


def _node(name: str, data: dict[str, Any], depth: int, out: list[str]) -> None:
    pad = "  " * depth
    kind = data["kind"]
    if kind == "empty":
        out.append(f"{pad}leaf {name} {{ type empty; }}")
        return
    if kind in ("leaf", "leaf-list"):
        extra = " ordered-by user;" if kind == "leaf-list" else ""
        out.append(f"{pad}{kind} {name} {{ {_typed(data['type'])}{extra} }}")
        return
    out.append(f"{pad}{kind} {name} {{")
    if kind == "list":
        out.append(f'{pad}  key "{" ".join(data["keys"])}";')
        out.append(f"{pad}  ordered-by user;")
    if data.get("presence"):
        out.append(f'{pad}  presence "{name}";')
    for child, sub in data.get("children", {}).items():
        _node(child, sub, depth + 1, out)
    out.append(f"{pad}}}")


def yang_module() -> str:
    data = GRAMMAR.data
    modules = ", ".join(f"{m}@{r}" for m, r in data["modules"].items())
    out = [f"module {MODULE} {{", "  yang-version 1.1;", f'  namespace "{NAMESPACE}";', "  prefix qjq;", "",
           '  organization "qosc";',
           "  description",
           f'    "The part of Juniper\'s Junos {data["release"]} configuration YANG that qosc writes',
           f"     ({modules}), under one configuration container: generated from",
           "     qosc/targets/junos/yang/junos-" + data["release"] + ".json by qosc/targets/junos/push/yang.py;",
           '     do not edit by hand.";', "",
           '  revision 2024-01-01 { description "Generated from the YANG-derived junos grammar."; }', ""]
    body: list[str] = []
    _node("configuration", {"kind": "container", "children": data["tree"]}, 1, body)
    out.extend(body)
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(yang_module())
