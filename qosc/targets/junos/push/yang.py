"""Generate yang/qosc-junos-qos.yang from the schema in junos_xml.py.

    python -m qosc.targets.junos.push.yang > yang/qosc-junos-qos.yang

(tests/test_push_unit.py fails when the committed module and the schema differ.)
"""

from __future__ import annotations

import sys

from qosc.targets.junos.push.xml import MODULE, NAMESPACE, SCHEMA, Node


def _yang(name: str, node: Node, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    if node.kind == "leaf":
        out.append(f"{pad}leaf {name} {{ type {node.type if '{' in node.type else node.type + ';'} }}"
                   .replace("; ;", ";"))
        return
    if node.kind == "leaf-list":
        out.append(f"{pad}leaf-list {name} {{ type {node.type if '{' in node.type else node.type + ';'} "
                   "ordered-by user; }")
        return
    if node.kind == "empty":
        out.append(f"{pad}leaf {name} {{ type empty; }}")
        return
    if node.kind == "container":
        out.append(f"{pad}container {name} {{")
    else:
        keys = " ".join(node.named_keys) or "name"
        out.append(f"{pad}list {name} {{")
        out.append(f"{pad}  key \"{keys}\";")
        out.append(f"{pad}  ordered-by user;")
        if not node.named_keys:
            out.append(f"{pad}  leaf name {{ type string; }}")
        if node.bare and node.bare not in node.children:
            out.append(f"{pad}  leaf {node.bare} {{ type string; }}")
    for child_name, child in node.children.items():
        _yang(child_name, child, depth + 1, out)
    out.append(f"{pad}}}")


def yang_module() -> str:
    out = [f"module {MODULE} {{", "  yang-version 1.1;", f'  namespace "{NAMESPACE}";', "  prefix qjq;", "",
           '  organization "qosc";',
           '  description', '    "The JUNOS configuration subset that qosc generates and pushes: class-of-service,',
           "     firewall policers and filters, interface filter attachments.  Generated from",
           '     qosc/targets/junos/push/xml.py SCHEMA by qosc/targets/junos/push/yang.py; do not edit by hand.";', "",
           "  revision 2024-01-01 { description \"Initial.\"; }", ""]
    body: list[str] = []
    _yang("configuration", SCHEMA, 1, body)
    out.extend(body)
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(yang_module())
