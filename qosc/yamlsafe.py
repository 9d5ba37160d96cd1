"""Bounded YAML-to-tree conversion for qosc policies.

Policies come from many hands (and from CI on pull requests), so parsing must
never execute anything, never blow up on hostile input and always say where a
problem is.  We drive libyaml's C *parser* event by event and build the tree
ourselves in one iterative loop: no C or Python recursion (the C composer
segfaults on ~100k-deep nesting), no PyYAML constructors, and every bound
(tags, depth, aliases, expanded size, duplicate keys, number ranges) is checked
as soon as the offending event arrives, so hostile documents die in
microseconds rather than after composing.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from .diagnostics import Location, error, shown
from .errors import InputError
from .yamlscalars import MERGE, OutOfRange, resolve_plain

try:  # libyaml is a hard requirement for speed; the pure parser is a fallback.
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Parser  # type: ignore[assignment]


class MDict(dict):  # type: ignore[type-arg]
    """A YAML mapping that remembers where it, its keys and its values are."""

    __slots__ = ("key_locs", "loc", "value_locs")
    loc: Location
    key_locs: dict[str, Location]
    value_locs: dict[str, Location]


class MList(list):  # type: ignore[type-arg]
    """A YAML sequence that remembers where it and each of its items are."""

    __slots__ = ("item_locs", "loc")
    loc: Location
    item_locs: list[Location]


@dataclass(frozen=True)
class Limits:
    """Resource bounds, so one bad file cannot eat the CI runner."""

    max_bytes: int = 32 * 1024 * 1024
    """Bytes of the policy with all its includes (QOS008)."""
    max_depth: int = 64
    max_nodes: int = 2_000_000
    """Keys, values and collections of the policy with all its includes, aliases expanded (QOS016; QOS003 when an
    alias crosses it).  The loaded tree costs about 300 bytes a node, and everything after it more: 2,000,000 nodes
    keep validating any policy under the size limit within 1 GiB."""
    max_items: int = 65_536
    """Items of one list (QOS016): no list of a policy needs more (64 code points, 65,536 ports)."""
    max_aliases: int = 10_000
    max_include_depth: int = 16


class Budget:
    """What one policy with all its includes has used of the Limits so far: bytes read and nodes built."""

    __slots__ = ("bytes", "nodes")

    def __init__(self) -> None:
        self.bytes = 0
        self.nodes = 0


class _Frame:
    """An open mapping or sequence while its events stream in."""

    __slots__ = ("anchor", "depth", "is_map", "key", "kloc", "merges", "obj", "saved", "t0")

    def __init__(self, obj: MDict | MList, is_map: bool, anchor: str | None, t0: int, depth: int) -> None:
        self.obj = obj
        self.is_map = is_map
        self.key: object = None  # pending key (None: expecting a key)
        self.kloc: Location | None = None
        self.anchor = anchor
        self.t0 = t0
        self.saved = 0
        self.depth = depth
        self.merges: list[tuple[object, Location]] | None = None


def _fail(code: str, message: str, loc: Location | None, hint: str | None = None) -> InputError:
    return InputError([error(code, message, loc, hint)])


def _tag_error(tag: str, loc: Location) -> InputError:
    if tag.startswith("tag:yaml.org,2002:"):
        tag = "!!" + tag[len("tag:yaml.org,2002:"):]
    return _fail("QOS002", f"YAML tags are not allowed in a policy (found {shown(tag)})", loc,
                 f"remove the tag {shown(tag)} and write the plain value")


def _key_text(value: object, loc: Location) -> str:
    """Mapping keys are names: strings, or numbers/bools spelled with str()."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value)
    what = "null" if value is None else "a collection"
    raise _fail("QOS001", f"mapping keys must be strings, not {what}", loc, "quote the key or give it a name")


def build(text: str, filename: str, limits: Limits, budget: Budget | None = None) -> MDict:
    """Parse exactly one YAML document whose top level is a mapping into MDict/MList.

    Nodes count against `budget` (shared by a policy and its includes) and the build stops at the node that
    crosses a limit, so memory stays bounded whatever the document holds."""
    parser = _Parser(text)
    # The tree is acyclic and made of ~1M new containers; letting the cyclic GC
    # rescan them during the build more than doubles the load time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(parser.get_event, filename, limits, budget if budget is not None else Budget())
    finally:
        if gc_was_enabled:
            gc.enable()
        dispose = getattr(parser, "dispose", None)
        if dispose is not None:
            dispose()


def _build(get, fname: str, limits: Limits, budget: Budget) -> MDict:  # one long hot loop on purpose
    """The event loop: the innermost collection lives in locals, outer ones on `stack`."""
    L = Location
    new = object.__new__
    set_file, set_line, set_column = L.file.__set__, L.line.__set__, L.column.__set__  # type: ignore[misc, attr-defined]
    cache: dict[str, object] = {}
    get()  # StreamStart
    if type(get()) is StreamEndEvent:  # otherwise that was DocumentStart
        raise _fail("QOS008", "a policy must be a YAML mapping, but the file is empty", L(fname, 1, 1))
    max_depth, max_nodes, max_aliases = limits.max_depth, limits.max_nodes, limits.max_aliases
    anchors: dict[str, tuple[object, int, int]] = {}  # name -> (value, expanded size, height)
    open_anchors: set[str] = set()
    max_items = limits.max_items
    total, n_alias, maxd = budget.nodes, 0, 0
    # The document itself is a one-item holder list at depth 0, so the root is
    # built (and bounded) like any other node and only then checked for type.
    holder = MList()
    holder.item_locs = []
    frame = _Frame(holder, False, None, 0, 0)
    stack = [frame]
    obj: MDict | MList = holder
    is_map = False
    key: object = None  # pending mapping key; None while a key is expected
    kloc: Location | None = None
    klocs: dict[str, Location] = {}
    vlocs: dict[str, Location] = {}
    ilocs = holder.item_locs
    value: object
    text: str
    loc: Location
    while True:
        ev = get()
        t = type(ev)
        if t is ScalarEvent:
            m = ev.start_mark
            loc = new(L)  # Location(...) minus the frozen-dataclass __init__ cost (~1M of these)
            set_file(loc, fname)
            set_line(loc, m.line + 1)
            set_column(loc, m.column + 1)
            if ev.tag is not None:
                raise _tag_error(ev.tag, loc)
            total += 1
            value = text = ev.value
            if ev.implicit[0]:  # plain scalar: resolve, memoised (keys repeat a lot)
                value = cache.get(text, cache)
                if value is cache:
                    try:
                        value = resolve_plain(text)
                    except OutOfRange:
                        raise _fail("QOS009", f"number out of range: {text[:40]}", loc,
                                    "integers must fit in 64 bits and floats must be finite") from None
                    if len(cache) < 100_000:
                        cache[text] = value
            if ev.anchor is not None:
                anchors[ev.anchor] = (value, 1, 0)
        elif t is MappingStartEvent or t is SequenceStartEvent:
            m = ev.start_mark
            loc = L(fname, m.line + 1, m.column + 1)
            if ev.tag is not None:
                raise _tag_error(ev.tag, loc)
            if is_map and key is None:
                raise _fail("QOS001", "mapping keys must be strings, not a collection", loc,
                            "use a plain name as the key")
            depth = len(stack)
            if depth > max_depth:
                raise _fail("QOS004", f"nesting is deeper than {max_depth} levels", loc, "flatten the structure")
            if depth > maxd:
                maxd = depth
            total += 1
            frame.key, frame.kloc = key, kloc  # park the parent's pending key
            key = kloc = None
            is_map = t is MappingStartEvent
            if is_map:
                obj = MDict()
                obj.loc, obj.key_locs, obj.value_locs = loc, {}, {}
                klocs, vlocs = obj.key_locs, obj.value_locs
            else:
                obj = MList()
                obj.loc, obj.item_locs = loc, []
                ilocs = obj.item_locs
            frame = _Frame(obj, is_map, ev.anchor, total, depth)
            if ev.anchor is not None:
                open_anchors.add(ev.anchor)
                frame.saved, maxd = maxd, depth
            stack.append(frame)
            continue
        elif t is MappingEndEvent or t is SequenceEndEvent:
            done = stack.pop()
            value, loc = obj, obj.loc
            if done.merges:
                _apply_merges(done)
            if done.anchor is not None:
                anchors[done.anchor] = (value, total - done.t0 + 1, maxd - done.depth + 1)
                open_anchors.discard(done.anchor)
                maxd = max(maxd, done.saved)
            frame = stack[-1]
            obj, is_map, key, kloc = frame.obj, frame.is_map, frame.key, frame.kloc
            if is_map:
                klocs, vlocs = obj.key_locs, obj.value_locs  # type: ignore[union-attr]
            else:
                ilocs = obj.item_locs  # type: ignore[union-attr]
        elif t is AliasEvent:
            m = ev.start_mark
            loc = L(fname, m.line + 1, m.column + 1)
            name = ev.anchor
            if name not in anchors:
                if name in open_anchors:
                    raise _fail("QOS003", f"alias '*{name}' refers to itself (recursive structure)", loc)
                raise _fail("QOS001", f"alias '*{name}' is not defined above", loc)
            value, size, height = anchors[name]
            n_alias += 1
            total += size
            if n_alias > max_aliases:
                raise _fail("QOS003", f"too many aliases (more than {max_aliases})", loc,
                            "anchors and aliases are for sharing a few blocks, not for generating data")
            if total > max_nodes:
                raise _fail("QOS003", f"alias expansion exceeds {max_nodes} nodes (a 'billion laughs' document?)",
                            loc, "reduce the use of anchors and aliases")
            if len(stack) - 1 + height > max_depth:
                raise _fail("QOS004", f"alias '*{name}' makes nesting deeper than {max_depth} levels", loc)
            maxd = max(maxd, len(stack) - 1 + height)
        elif t is DocumentEndEvent:
            break
        else:  # pragma: no cover - libyaml only yields the events above here
            m = ev.start_mark
            raise _fail("QOS001", f"unexpected YAML event {t.__name__}", L(fname, m.line + 1, m.column + 1))
        if total > max_nodes:
            raise _fail("QOS016", f"policy too large: more than {max_nodes:,} nodes (keys, values and collections, "
                        "counted over the policy and its includes)", loc,
                        "reuse interface settings through profiles:, or split the network into several policies "
                        "(qosc compile a.yaml b.yaml)")
        # Place `value` (found at `loc`) into the innermost open collection.
        if is_map:
            if key is None:
                if type(value) is not str and value is not MERGE:
                    value = _key_text(value, loc)
                if value in obj:
                    first = klocs[value]  # type: ignore[index]
                    raise _fail("QOS005", f"duplicate key {shown(value)}: first defined at line {first.line}, "
                                f"again at line {loc.line}", loc, "each key may appear only once in a mapping")
                key, kloc = value, loc
            elif key is MERGE:
                if frame.merges is None:
                    frame.merges = []
                frame.merges.append((value, loc))
                key = None
            else:
                # is_map: obj is an MDict, key a str and kloc its location (no narrowing in this hot loop)
                obj[key] = "<<" if value is MERGE else value  # type: ignore[index, call-overload]
                klocs[key] = kloc  # type: ignore[index, assignment]
                vlocs[key] = loc  # type: ignore[index]
                key = None
        else:
            if len(ilocs) >= max_items:
                raise _fail("QOS016", f"policy too large: a list with more than {max_items:,} items", loc,
                            "no list of a policy needs that many: write port ranges such as 6000-6010, or split it")
            obj.append("<<" if value is MERGE else value)  # type: ignore[union-attr]
            ilocs.append(loc)
    ev = get()
    if type(ev) is DocumentStartEvent:
        m = ev.start_mark
        assert m is not None  # PyYAML's events carry their marks
        raise _fail("QOS001", "expected a single YAML document, found another one", L(fname, m.line + 1, m.column + 1),
                    "remove the '---' separator or split the policy into included files")
    budget.nodes = total
    root = holder[0]
    if not isinstance(root, MDict):
        raise _fail("QOS008", "a policy must be a YAML mapping", holder.item_locs[0],
                    "start the file with top-level keys such as 'classes:'")
    return root


def _apply_merges(frame: _Frame) -> None:
    """YAML '<<' merge keys: explicit keys win, then earlier merged mappings win."""
    obj = frame.obj
    assert isinstance(obj, MDict)
    for value, loc in frame.merges or ():
        sources = value if isinstance(value, MList) else [value]
        for src in sources:
            if not isinstance(src, MDict):
                raise _fail("QOS001", "'<<' merge key needs a mapping or a list of mappings", loc)
            for k, v in src.items():
                if k not in obj:
                    obj[k] = v
                    obj.key_locs[k] = src.key_locs[k]
                    obj.value_locs[k] = src.value_locs[k]


def syntax_error(exc: yaml.YAMLError, fname: str, text: str) -> InputError:
    """Turn a PyYAML/libyaml error into QOS001 at the problem mark."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    loc = Location(fname, mark.line + 1, mark.column + 1) if mark is not None else None
    if isinstance(exc, yaml.reader.ReaderError):
        loc = _offset_location(text, fname, exc.position)
        ch = exc.character if isinstance(exc.character, int) else ord(exc.character or "\0")
        problem = f"{exc.reason} (character U+{ch:04X})"
    context = getattr(exc, "context", None)
    cmark = getattr(exc, "context_mark", None)
    if context:
        where = f" at line {cmark.line + 1}, column {cmark.column + 1}" if cmark is not None else ""
        problem = f"{problem} ({context}{where})"
    return _fail("QOS001", f"YAML syntax error: {problem}", loc)


def _offset_location(text: str, fname: str, offset: int) -> Location:
    """libyaml reader errors carry a UTF-8 byte offset, not a mark."""
    prefix = text.encode("utf-8", "replace")[:offset].decode("utf-8", "replace")
    line = prefix.count("\n") + 1
    return Location(fname, line, len(prefix) - (prefix.rfind("\n") + 1) + 1)
