"""Self-check for Cisco IOS-style output: every line must be a command of the mode it sits in.

The command table lives in platform data (``commands`` of the platform's
JSON), written from Cisco's command references (each entry names its source).
A table has:

- ``tokens``: regular expressions for the argument kinds (INT, DSCP, NAME...);
  a token may use other tokens as ``{DSCP}``;
- ``modes``: for each mode (global, class-map, policy-map, policy-map-class,
  interface, acl, ipv6-acl), a list of commands, each with the Cisco
  ``syntax`` (for the reader), a ``pattern`` (a regular expression over the
  whole line in which ``{TOKEN}`` stands for an argument), an optional
  ``enters`` (the mode its indented children are in) and ``source``; a table
  that ``extends`` another replaces the base's entry of the same ``syntax``
  (a release's own range) and adds the others.  ``yang`` (optional) names, per
  ranged placeholder, the fact of the vendor YANG its range is derived from
  (qosc/targets/ios/yang/, scripts/derive-ios-xe-ranges).

Placeholders in patterns:

- ``{INT}``, ``{DSCP}``...: one argument of that kind;
- ``{INT:1-100}``: an integer within a range (checked after matching);
- ``{INT:0-7+8}``: one to eight space-separated values, each within the range;
- ``{def:class-map}`` / ``{ref:class-map}``: a name that defines / uses an
  object of that kind; every used name must be defined somewhere in the text
  (the table's ``builtins`` list names that need no definition).

The walk follows ``show running-config`` layout: a sub-mode's commands are
indented one space deeper than the command that entered it, and ``!`` lines
are comments.  Any line the table does not know in its mode raises
SelfCheckError, as does a dangling or duplicated name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from qosc.targets.base import SelfCheckError
from qosc.targets.ios.platform import get as get_platform

_PLACEHOLDER = re.compile(r"\{(?:(def|ref):([a-z0-9-]+)|([A-Z][A-Z0-9_]*)(?::(\d+)-(\d+))?(?:\+(\d+))?)\}")
_MAX_EXPANSION = 8


@dataclass(frozen=True)
class _Arg:
    group: str
    role: str | None  # "def", "ref" or None
    kind: str | None  # object kind for def/ref
    low: int | None
    high: int | None
    many: int  # 0: a single value, N: up to N space-separated values


@dataclass(frozen=True)
class Command:
    syntax: str
    regex: re.Pattern[str]
    args: tuple[_Arg, ...]
    enters: str | None


@dataclass(frozen=True)
class Table:
    modes: Mapping[str, tuple[Command, ...]]
    builtins: Mapping[str, frozenset[str]]


def _expand_tokens(tokens: Mapping[str, str]) -> dict[str, str]:
    """Resolve tokens that refer to other tokens ({DSCP} inside ACTION)."""
    out = dict(tokens)
    for _ in range(_MAX_EXPANSION):
        changed = False
        for key, value in out.items():
            new = re.sub(r"\{([A-Z][A-Z0-9_]*)\}", lambda m: f"(?:{out[m[1]]})" if m[1] in out else m[0], value)
            if new != value:
                out[key], changed = new, True
        if not changed:
            return out
    raise ValueError("command table tokens refer to each other in a cycle")


def _compile(entry: Mapping[str, Any], tokens: Mapping[str, str]) -> Command:
    args: list[_Arg] = []
    parts: list[str] = []
    pos = 0
    pattern = entry["pattern"]
    for m in _PLACEHOLDER.finditer(pattern):
        parts.append(pattern[pos:m.start()])
        pos = m.end()
        group = f"a{len(args)}"
        if m[1]:
            body = tokens["NAME"]
            args.append(_Arg(group, m[1], m[2], None, None, 0))
        else:
            if m[3] not in tokens:
                raise ValueError(f"unknown token {{{m[3]}}} in {pattern!r}")
            body = tokens[m[3]]
            many = int(m[6]) if m[6] else 0
            if many:
                body = f"(?:{body})(?: (?:{body}))*"
            args.append(_Arg(group, None, None, int(m[4]) if m[4] else None, int(m[5]) if m[5] else None, many))
        parts.append(f"(?P<{group}>{body})")
    parts.append(pattern[pos:])
    return Command(entry["syntax"], re.compile("".join(parts)), tuple(args), entry.get("enters"))


def compile_table(data: Mapping[str, Any]) -> Table:
    tokens = _expand_tokens(data["tokens"])
    modes = {mode: tuple(_compile(e, tokens) for e in entries) for mode, entries in data["modes"].items()}
    for mode, commands in modes.items():
        for c in commands:
            if c.enters and c.enters not in modes:
                raise ValueError(f"command {c.syntax!r} in mode {mode} enters unknown mode {c.enters}")
    builtins = {kind: frozenset(names) for kind, names in data.get("builtins", {}).items()}
    return Table(modes, builtins)


def table_data(platform: str, depth: int = 0) -> dict[str, Any]:
    """The platform's command table, with the table it `extends` merged underneath."""
    spec = get_platform(platform)
    if spec is None or not spec.commands or depth > 4:
        raise SelfCheckError(f"platform {platform} has no command table")
    own = spec.commands
    if "extends" not in own:
        return dict(own)
    base = table_data(own["extends"], depth + 1)
    modes = {m: list(cs) for m, cs in base["modes"].items()}
    for mode, extra in own.get("modes", {}).items():
        entries = modes.setdefault(mode, [])
        for entry in extra:  # an entry of the same syntax replaces the base's (a release's own range)
            same = [i for i, e in enumerate(entries) if e["syntax"] == entry["syntax"]]
            if same:
                entries[same[0]] = entry
            else:
                entries.append(entry)
    builtins = {**base.get("builtins", {}), **own.get("builtins", {})}
    return {"tokens": {**base["tokens"], **own.get("tokens", {})}, "modes": modes, "builtins": builtins,
            "sources": {**base.get("sources", {}), **own.get("sources", {})}}


@lru_cache(maxsize=8)
def table_for(platform: str) -> Table:
    return compile_table(table_data(platform))


def _args_ok(command: Command, m: re.Match[str]) -> str | None:
    """None when every argument is within its range and count; else why not."""
    for arg in command.args:
        value = m[arg.group]
        if value is None:
            continue
        values = value.split(" ") if arg.many else [value]
        if arg.many and len(values) > arg.many:
            return f"{len(values)} values where at most {arg.many} are allowed"
        if arg.low is not None and arg.high is not None:
            for v in values:
                if not v.isdigit() or not arg.low <= int(v) <= arg.high:
                    return f"{v} is outside {arg.low}..{arg.high}"
    return None


def _match(commands: tuple[Command, ...], text: str) -> tuple[Command, re.Match[str]] | str:
    why = "no command of this mode has that form"
    for command in commands:
        m = command.regex.fullmatch(text)
        if m is None:
            continue
        problem = _args_ok(command, m)
        if problem is None:
            return command, m
        why = f"{problem} (syntax: {command.syntax})"
    return why


def check_text(text: str, table: Table) -> dict[tuple[str, str], int]:
    """Walk the config; raise SelfCheckError on the first bad line. Returns the defined names."""
    stack: list[tuple[int, str]] = [(-1, "global")]
    defined: dict[tuple[str, str], int] = {}
    used: list[tuple[str, str, int]] = []
    known: dict[tuple[str, str], tuple[Command, re.Match[str]] | str] = {}  # a config repeats most lines
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        if raw != raw.rstrip() or "\t" in raw:
            raise SelfCheckError(f"line {number}: trailing or tab whitespace in {raw!r}")
        body = raw.lstrip(" ")
        indent = len(raw) - len(body)
        if body.startswith("!"):
            continue
        while stack[-1][0] >= indent:  # the global entry (-1) is never popped
            stack.pop()
        parent_indent, mode = stack[-1]
        if indent != parent_indent + 1:
            raise SelfCheckError(f"line {number}: {body!r} is indented {indent}, expected {parent_indent + 1} "
                                 f"in {mode} mode")
        found = known.get((mode, body))
        if found is None:
            found = known[mode, body] = _match(table.modes[mode], body)
        if isinstance(found, str):
            raise SelfCheckError(f"line {number}: {body!r} is not valid in {mode} mode: {found}")
        command, m = found
        for arg in command.args:
            if arg.role == "def" and arg.kind:
                key = (arg.kind, m[arg.group])
                if key in defined:
                    raise SelfCheckError(f"line {number}: {arg.kind} {m[arg.group]} is defined twice "
                                         f"(first on line {defined[key]})")
                defined[key] = number
            elif arg.role == "ref" and arg.kind:
                used.append((arg.kind, m[arg.group], number))
        if command.enters:
            stack.append((indent, command.enters))
    for kind, name, number in used:
        if (kind, name) not in defined and name not in table.builtins.get(kind, frozenset()):
            raise SelfCheckError(f"line {number}: {kind} {name} is used but never defined")
    return defined


def check(text: str, platform: str) -> None:
    """The mode-structure self-check with the platform's own command table."""
    check_text(text, table_for(platform))
