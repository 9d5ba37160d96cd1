"""The IOS command tables: the one description of each Cisco dialect's grammar, as platform data.

The table lives in the platform's JSON (``commands``), written from Cisco's
command references (each entry names its source, release-keyed where forms
differ) and, for IOS XE, ranges derived from Cisco's YANG
(qosc/targets/ios/yang/, scripts/derive-ios-xe-ranges).  A table has:

- ``tokens``: regular expressions for the argument kinds (INT, BPS, DSCP,
  NAME...); a token may use other tokens as ``{DSCP}``;
- ``kinds``: the statement-tree word kind (qosc.tree.Kind) of each token's
  words (``rate``, ``rate-kbps``, ``size``, ``percent``, ``dscp``, ``ip``,
  ``port``...), so the words of a statement are typed by the slot they fill;
- ``modes``: for each mode (global, class-map, policy-map, policy-map-class,
  interface, acl, ipv6-acl), a list of commands, each with the Cisco
  ``syntax``, a ``pattern`` (a regular expression over the whole statement in
  which ``{TOKEN}`` stands for an argument), an optional ``enters`` (the mode
  of its sub-statements) and ``source``; a table that ``extends`` another
  replaces the base's entry of the same ``syntax`` (a release's own range) and
  adds the others.  ``yang`` (optional) names, per ranged placeholder, the fact
  of the vendor YANG its range is derived from: the range every release's
  YANG accepts, narrowed to the range Cisco's guides document where that is
  narrower (the derived fact's ``documented``, with its source: what both
  accept, e.g. ``bandwidth remaining ratio`` 1..1000 in a uint16 leaf).

Placeholders in patterns:

- ``{INT}``, ``{DSCP}``...: one argument of that kind;
- ``{INT:1-100}``: an integer within a range (checked after matching);
- ``{INT:0-7+8}``: one to eight space-separated values, each within the range;
- ``{def:class-map}`` / ``{ref:class-map}``: a name that defines / uses an
  object of that kind; every used name must be defined in the configuration
  (the table's ``builtins`` list names that need no definition).

qosc.targets.ios.grammar checks statement trees against a table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from qosc.grammar import Source
from qosc.targets.base import SelfCheckError
from qosc.targets.ios.platform import get as get_platform

PLACEHOLDER = re.compile(r"\{(?:(def|ref):([a-z0-9-]+)|([A-Z][A-Z0-9_]*)(?::(\d+)-(\d+))?(?:\+(\d+))?)\}")
_MAX_EXPANSION = 8
KINDS = frozenset({"integer", "rate", "rate-kbps", "size", "percent", "dscp", "name", "text", "ip", "port",
                   "keyword"})


@dataclass(frozen=True)
class Arg:
    group: str
    role: str | None  # "def", "ref" or None
    kind: str | None  # object kind for def/ref
    low: int | None
    high: int | None
    many: int  # 0: a single value, N: up to N space-separated values
    word_kind: str  # the tree kind of its words (KINDS)


@dataclass(frozen=True)
class Command:
    syntax: str
    regex: re.Pattern[str]
    args: tuple[Arg, ...]
    enters: str | None
    source: Source


@dataclass(frozen=True)
class Table:
    name: str
    modes: Mapping[str, tuple[Command, ...]]
    builtins: Mapping[str, frozenset[str]]
    tokens: Mapping[str, re.Pattern[str]]


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


def _compile(entry: Mapping[str, Any], tokens: Mapping[str, str], kinds: Mapping[str, str],
             sources: Mapping[str, str], platform: str) -> Command:
    args: list[Arg] = []
    parts: list[str] = []
    pos = 0
    pattern = entry["pattern"]
    for m in PLACEHOLDER.finditer(pattern):
        parts.append(pattern[pos:m.start()])
        pos = m.end()
        group = f"a{len(args)}"
        if m[1]:
            body = tokens["NAME"]
            args.append(Arg(group, m[1], m[2], None, None, 0, "name"))
        else:
            if m[3] not in tokens:
                raise ValueError(f"unknown token {{{m[3]}}} in {pattern!r}")
            if m[3] not in kinds or kinds[m[3]] not in KINDS:
                raise ValueError(f"token {m[3]} has no word kind in the table's kinds")
            body = tokens[m[3]]
            many = int(m[6]) if m[6] else 0
            if many:
                body = f"(?:{body})(?: (?:{body}))*"
            args.append(Arg(group, None, None, int(m[4]) if m[4] else None, int(m[5]) if m[5] else None, many,
                            kinds[m[3]]))
        parts.append(f"(?P<{group}>{body})")
    parts.append(pattern[pos:])
    source = Source(f"{platform} table [{entry['source']}] {sources.get(entry['source'], '?')}")
    return Command(entry["syntax"], re.compile("".join(parts)), tuple(args), entry.get("enters"), source)


def compile_table(data: Mapping[str, Any], name: str = "") -> Table:
    tokens = _expand_tokens(data["tokens"])
    kinds = data.get("kinds", {})
    sources = data.get("sources", {})
    modes = {mode: tuple(_compile(e, tokens, kinds, sources, name) for e in entries)
             for mode, entries in data["modes"].items()}
    for mode, commands in modes.items():
        for c in commands:
            if c.enters and c.enters not in modes:
                raise ValueError(f"command {c.syntax!r} in mode {mode} enters unknown mode {c.enters}")
    builtins = {kind: frozenset(names) for kind, names in data.get("builtins", {}).items()}
    return Table(name, modes, builtins, {k: re.compile(v) for k, v in tokens.items()})


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
            "kinds": {**base.get("kinds", {}), **own.get("kinds", {})},
            "sources": {**base.get("sources", {}), **own.get("sources", {})}}


@lru_cache(maxsize=8)
def table_for(platform: str) -> Table:
    return compile_table(table_data(platform), platform)


def arg_range(platform: str, mode: str, syntax: str, word_kind: str) -> tuple[int, int] | None:
    """The (low, high) of the first `word_kind` argument of the first command of `mode` whose syntax starts with
    `syntax`, as the dialect's table gives it (lowerings check values against it before the grammar does)."""
    for command in table_for(platform).modes.get(mode, ()):
        if command.syntax.startswith(syntax):
            for arg in command.args:
                if arg.word_kind == word_kind and arg.low is not None and arg.high is not None:
                    return arg.low, arg.high
    return None


def args_ok(command: Command, m: re.Match[str]) -> str | None:
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


def match(commands: tuple[Command, ...], text: str) -> tuple[Command, re.Match[str]] | tuple[Command | None, str]:
    """The first command of a mode the text is (with its match), or the closest command and why not."""
    why: tuple[Command | None, str] = (None, "no command of this mode has that form")
    for command in commands:
        m = command.regex.fullmatch(text)
        if m is None:
            continue
        problem = args_ok(command, m)
        if problem is None:
            return command, m
        why = (command, f"{problem} (syntax: {command.syntax})")
    return why
