"""Deriving grammar facts (the JSON qosc.grammar.yang.YangSchema loads) from a vendor's published YANG text.

Target-neutral, for the scripts that derive a target's grammar data
(scripts/derive-iosxr-grammar; the facts' format is the one
scripts/derive-sros-grammar writes).  A `Deriver` takes a folder of modules
(qosc.grammar.yangtext.Library), the top-level data nodes to start from
(module, name), and the paths to keep (`want`: `a/b/**` keeps a subtree whole,
`a/b/c` one node and the way to it).  It expands `uses`, looks through
`choice`/`case` (naming the cases), applies the `augment`s of every module of
the folder that target a kept node, resolves typedefs and leafrefs, and keeps
for each node its kind, list keys, value type, mandatory, default, units,
max-elements, presence, choice cases, leafref target, `when` and `must`.  The
output is deterministic (same input, same bytes).  Nothing here runs when
qosc compiles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from qosc.grammar.yangtext import Library, Module, Stmt, sub

DATA = ("container", "list", "leaf", "leaf-list")


def wanted(path: str, want: Iterable[str]) -> bool:
    """Whether a data path (slash-separated) is kept by the `want` globs, or leads to one."""
    for w in want:
        if w.endswith("/**"):
            base = w[:-3]
            if path == base or path.startswith(base + "/") or base.startswith(path + "/"):
                return True
        elif path == w or w.startswith(path + "/"):
            return True
    return False


def absolute(path: list[str], ref: str, root: str = "") -> list[str]:
    """A leafref path (relative or absolute, prefixed or not) as a data path; `root`: a top node the facts
    leave out (nokia-conf's /configure)."""
    steps = [p.rpartition(":")[2] for p in re.sub(r"\[[^\]]*\]", "", ref).split("/") if p]
    if ref.startswith("/"):
        return steps[1:] if root and steps and steps[0] == root else steps
    here = list(path)
    for step in steps:
        if step == "..":
            here.pop()
        else:
            here.append(step)
    return here


def _limit(out: dict[str, Any], s: Stmt) -> None:
    top = sub(s, "max-elements")
    if top and top != "unbounded":
        out["max"] = int(top)
    low = sub(s, "min-elements")
    if low and low != "0":
        out["min"] = int(low)


class Deriver:
    """The facts of the kept data nodes below some top-level nodes of a folder of modules."""

    def __init__(self, lib: Library, tops: Iterable[tuple[str, str]], want: Iterable[str],
                 skip_leaves: Iterable[str] = (), skip_groupings: tuple[str, ...] = (), root: str = "") -> None:
        self.lib = lib
        self.tops = tuple(tops)
        self.want = tuple(want)
        self.skip_leaves = frozenset(skip_leaves)
        self.skip_groupings = skip_groupings
        self.root = root
        self.constraints = 0
        self.augments = self._augments()

    def _augments(self) -> dict[str, list[tuple[Module, Stmt]]]:
        """augment statements of every module, by the data path (prefixes dropped) they target."""
        out: dict[str, list[tuple[Module, Stmt]]] = {}
        for module in self.lib.modules.values():
            for s in module.body:
                if s[0] == "augment":
                    target = "/".join(p.rpartition(":")[2] for p in (s[1] or "").split("/") if p)
                    out.setdefault(target, []).append((module, s))
        return out

    def top(self, name: str) -> tuple[Module, Stmt]:
        for module_name, top in self.tops:
            if top == name:
                module = self.lib.modules[module_name]
                return module, next(s for s in module.body if s[0] in DATA and s[1] == name)
        raise KeyError(f"no top-level node {name}")

    def data_children(self, module: Module, body: list[Stmt], path: str = ""
                      ) -> list[tuple[Module, Stmt, list[list[str]]]]:
        """The data nodes of a body: `uses` expanded, choices and cases looked through (with the cases named),
        and the augments that target `path`."""
        out: list[tuple[Module, Stmt, list[list[str]]]] = []

        def visit(m: Module, items: list[Stmt], cases: list[list[str]]) -> None:
            for cm, s in self.lib.expand(m, items, skip=self.skip_groupings):
                if s[0] == "choice":
                    for xm, c in self.lib.expand(cm, s[2]):
                        if c[0] == "case":
                            visit(xm, c[2], [*cases, [s[1] or "", c[1] or ""]])
                        elif c[0] in DATA or c[0] == "choice":
                            visit(xm, [c], [*cases, [s[1] or "", c[1] or ""]])
                elif s[0] in DATA and s[1] not in self.skip_leaves:
                    out.append((cm, s, cases))

        visit(module, body, [])
        for am, a in self.augments.get(path, []) if path else []:
            visit(am, a[2], [])
        return out

    def lookup(self, path: list[str]) -> tuple[Module, Stmt]:
        """The schema statement at a data path."""
        module, here = self.top(path[0])
        for i, name in enumerate(path[1:], 1):
            found = next(((m, s) for m, s, _ in self.data_children(module, here[2], "/".join(path[:i]))
                          if s[1] == name), None)
            if found is None:
                raise KeyError(f"no schema node {'/'.join(path)} (at {name})")
            module, here = found
        return module, here

    def leaf_type(self, module: Module, leaf: Stmt, path: list[str]) -> tuple[Any, str | None]:
        """(value type, the data path a leafref names) of a leaf at `path`."""
        t = self.lib.type_of(module, leaf)
        if isinstance(t, dict) and "leafref" in t:
            target = absolute(path, t["leafref"], self.root)
            tm, ts = self.lookup(target)
            inner, _ = self.leaf_type(tm, ts, target)
            return inner, "/".join(target)
        if isinstance(t, dict) and "union" in t:
            members = []
            for m in t["union"]:
                if isinstance(m, dict) and "leafref" in m:
                    target = absolute(path, m["leafref"], self.root)
                    tm, ts = self.lookup(target)
                    m = self.leaf_type(tm, ts, target)[0]
                members.append(m)
            t = {"union": members}
        return t, None

    def node(self, module: Module, s: Stmt, path: list[str], cases: list[list[str]], keys: bool = False
             ) -> dict[str, Any] | None:
        kind, name = s[0], s[1] or ""
        here = [*path, name]
        if not keys and not wanted("/".join(here), self.want):
            return None
        out: dict[str, Any] = {}
        if cases:
            out["cases"] = cases
        for what in ("when", "must"):
            found = [{"expr": c[1], **({"error": sub(c, "error-message")} if sub(c, "error-message") else {})}
                     for c in s[2] if c[0] == what]
            if found:
                out[what] = found
                self.constraints += len(found)
        if kind in ("leaf", "leaf-list"):
            t, ref = self.leaf_type(module, s, here)
            out["kind"] = "empty" if t == "empty" else kind
            if t != "empty":
                out["type"] = t
            if ref:
                out["leafref"] = ref
            for key in ("default", "units"):
                value = self.lib.inherited(module, s, key)
                if value is not None:
                    out[key] = value
            if sub(s, "mandatory") == "true":
                out["mandatory"] = True
            if kind == "leaf-list":
                _limit(out, s)
            return out
        out["kind"] = kind
        keys_of = (sub(s, "key") or "").split() if kind == "list" else []
        if kind == "list":
            out["keys"] = keys_of
            _limit(out, s)
        if any(x[0] == "presence" for x in s[2]):
            out["presence"] = True
        children: dict[str, Any] = {}
        for cm, c, ccases in self.data_children(module, s[2], "/".join(here)):
            child = self.node(cm, c, here, ccases, keys=(c[1] in keys_of))
            if child is not None:
                children[c[1] or ""] = child
        out["children"] = children
        return out

    def tree(self) -> dict[str, Any]:
        """The kept data tree below the top-level nodes."""
        tree: dict[str, Any] = {}
        for _, name in self.tops:
            module, s = self.top(name)
            node = self.node(module, s, [], [])
            if node is not None:
                tree[name] = node
        return tree
