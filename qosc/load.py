"""Load policy YAML into location-carrying trees, resolving `include:`.

Every later stage reports problems against the user's own file, line and
column, so the loader keeps source marks on every mapping key, value and list
item (MDict / MList).  It refuses anything that is not plain data (tags),
anything ambiguous (duplicate keys, a name defined in two files) and anything
that could exhaust the machine (size, depth, alias bombs), always as
InputError diagnostics and never as a traceback.  Schema validation is not done
here; see qosc.schema.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import replace

import yaml

from .diagnostics import Location, error, shown
from .errors import InputError
from .yamlsafe import Budget, Limits, MDict, MList, build, syntax_error

__all__ = ["Limits", "MDict", "MList", "load_file", "load_policy", "load_text", "locate"]

_DEFAULT = Limits()


def load_text(text: str, filename: str, limits: Limits = _DEFAULT, budget: Budget | None = None) -> MDict:
    """Parse one policy document from a string; `include:` is left as data.

    `budget` is what the policy this text belongs to has used already (its other files): the size and node
    limits hold for the whole policy, not per file."""
    room = limits.max_bytes - (budget.bytes if budget is not None else 0)
    if len(text) > room or (len(text) * 4 > room and _utf8_len(text) > room):
        raise _fail("QOS008", f"policy text is larger than the limit of {limits.max_bytes} bytes"
                    + (" (with its includes)" if budget is not None and budget.bytes else ""),
                    Location(filename, 1, 1))
    try:
        return build(text, filename, limits, budget)
    except InputError:
        raise
    except yaml.YAMLError as exc:
        raise syntax_error(exc, filename, text) from None
    except (UnicodeDecodeError, UnicodeEncodeError, UnicodeTranslateError) as exc:  # the UnicodeErrors with a reason
        raise _fail("QOS008", f"policy text is not valid Unicode: {exc.reason}", Location(filename, 1, 1)) from None
    except RecursionError:
        raise _fail("QOS004", "nesting is too deep to process", Location(filename, 1, 1)) from None
    except MemoryError:
        raise _fail("QOS003", "the document is too large to hold in memory", Location(filename, 1, 1)) from None
    except Exception as exc:  # noqa: BLE001 - the contract is "no traceback for any input"
        raise _fail("QOS001", f"cannot parse YAML ({type(exc).__name__}: {exc})", Location(filename, 1, 1)) from None


def load_file(path: str | os.PathLike[str], limits: Limits = _DEFAULT) -> MDict:
    """Read and parse one policy file (no includes); an unreadable file is QOS006 marked as an I/O error (exit 2)."""
    return _load_file(os.fspath(path), limits, Budget())


def read_text(path: str | os.PathLike[str], limits: Limits = _DEFAULT) -> str:
    """The text of one policy file as load_policy reads it (bounded, decoded); OSError, ValueError or InputError
    when it cannot be read (load_policy says why, with a diagnostic)."""
    name = os.fspath(path)
    return _decode(_read_bounded(name, limits), name)


def _load_file(name: str, limits: Limits, budget: Budget) -> MDict:
    try:
        data = _read_bounded(name, limits, budget)
    except (OSError, ValueError) as exc:  # ValueError: e.g. a NUL byte in the path
        unreadable = error("QOS006", f"cannot read policy file {shown(name)}: {_why(exc)}", None,
                           "check the path given on the command line")
        raise InputError([replace(unreadable, io=True)]) from None
    return _parse(data, name, limits, budget)


def _parse(data: bytes, name: str, limits: Limits, budget: Budget) -> MDict:
    """Decode and build one file's bytes, which count against the policy's byte budget only once."""
    text = _decode(data, name)
    budget.bytes -= len(data)  # _read_bounded counted them; load_text checks the decoded text against the rest
    tree = load_text(text, name, limits, budget)
    budget.bytes += len(data)
    return tree


def load_policy(path: str | os.PathLike[str], limits: Limits = _DEFAULT) -> MDict:
    """Load a policy and everything it includes, merged into one tree.

    Entries keep the location of the file that defined them, so diagnostics
    point into included files.  A file reached twice through different include
    paths (a diamond) is merged only once.
    """
    name = os.fspath(path)
    return _load_tree(name, limits, chain=[], seen=set(), where=None, root=project_root(name), budget=Budget())


ROOT_MARKER = ".qosc-root"


def project_root(policy: str | os.PathLike[str]) -> str:
    """The directory includes must stay inside: the nearest directory above the policy that holds a
    `.qosc-root` marker or is a git work tree (`.git`), else the policy's own directory (symlinks resolved)."""
    start = os.path.realpath(os.path.dirname(os.path.abspath(os.fspath(policy))))
    here = start
    while True:
        if any(os.path.lexists(os.path.join(here, mark)) for mark in (ROOT_MARKER, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return start
        here = parent


def locate(tree: object, path: Sequence[str | int], key: bool = False) -> Location | None:
    """Location of the deepest node on `path` (e.g. jsonschema's absolute_path).

    With key=True and a final mapping key, the key's own location.  Never
    raises: a path leaving the tree yields the last node reached.
    """
    loc: Location | None = getattr(tree, "loc", None)
    try:
        steps = list(path)
        node = tree
        for i, step in enumerate(steps):
            if isinstance(node, MDict) and isinstance(step, str) and step in node:
                if key and i == len(steps) - 1:
                    return node.key_locs.get(step, loc)
                loc = node.value_locs.get(step, loc)
                node = node[step]
            elif (isinstance(node, MList) and isinstance(step, int) and not isinstance(step, bool)
                  and 0 <= step < len(node)):
                loc = node.item_locs[step]
                node = node[step]
            else:
                break
    except Exception:  # noqa: BLE001, S110 - locating is best effort for a diagnostic
        pass
    return loc


# --- reading ---------------------------------------------------------------


def _fail(code: str, message: str, loc: Location | None, hint: str | None = None) -> InputError:
    return InputError([error(code, message, loc, hint)])


def _why(exc: Exception) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _read_bounded(name: str, limits: Limits, budget: Budget | None = None) -> bytes:
    """Check the type and size of what was opened before reading; never read more than max_bytes + 1.

    Opened non-blocking and checked with fstat, so a FIFO or device swapped in after a check never blocks or
    gets read: only regular files are."""
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", closefd=True) as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file")
        used = budget.bytes if budget is not None else 0
        if used + st.st_size > limits.max_bytes:
            raise _too_big(name, st.st_size, used, limits)
        data = fh.read(limits.max_bytes - used + 1)
    if used + len(data) > limits.max_bytes:
        raise _too_big(name, len(data), used, limits)
    if budget is not None:
        budget.bytes += len(data)
    return data


def _too_big(name: str, size: int, used: int, limits: Limits) -> InputError:
    if not used:
        return _fail("QOS008", f"file is {size} bytes, larger than the limit of {limits.max_bytes}",
                     Location(name, 1, 1), "split the network into several policies (qosc compile a.yaml b.yaml)")
    return _fail("QOS008", f"the policy with its includes is larger than the limit of {limits.max_bytes} bytes: "
                 f"{used} bytes read before this file of {size}", Location(name, 1, 1),
                 "the limit is for a policy and everything it includes; split the network into several policies "
                 "(qosc compile a.yaml b.yaml)")


def _decode(data: bytes, name: str) -> str:
    """Policies are UTF-8 (a BOM is tolerated); say where the first bad byte is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data.count(b"\n", 0, start) + 1
        col = len(data[data.rfind(b"\n", 0, start) + 1:start].decode("utf-8", "replace")) + 1
        raise _fail("QOS008", f"file is not valid UTF-8 (byte 0x{data[start]:02x})", Location(name, line, col),
                    "save the policy as UTF-8") from None


# --- includes --------------------------------------------------------------


def _load_tree(name: str, limits: Limits, chain: list[tuple[str, str]], seen: set[str],
               where: Location | None, root: str, budget: Budget) -> MDict:
    """Load `name` and merge its includes after its own entries, depth-first."""
    ident = _ident(name)
    if where is None:
        tree = _load_file(name, limits, budget)
    else:
        try:
            data = _read_bounded(name, limits, budget)
        except (OSError, ValueError) as exc:
            raise _fail("QOS006", f"cannot read included file {shown(name)}: {_why(exc)}", where,
                        "check the path; includes are relative to the including file") from None
        except InputError as exc:  # too large: say which include brought it in
            raise InputError([replace(d, location=where) for d in exc.diagnostics]) from None
        tree = _parse(data, name, limits, budget)
    seen.add(ident)
    chain = chain + [(ident, name)]
    if "include" not in tree:
        return tree
    includes = _include_list(tree)
    del tree["include"]
    tree.key_locs.pop("include", None)
    tree.value_locs.pop("include", None)
    owned: set[str] = set()
    for rel, loc in includes:
        target = os.path.normpath(os.path.join(os.path.dirname(name), rel))
        target_id = _ident(target)
        _check_inside(rel, target_id, root, loc)
        if any(target_id == c for c, _ in chain):
            names = [n for _, n in chain] + [target]
            raise _fail("QOS007", "include cycle: " + " -> ".join(names), loc, "remove one of the includes")
        if target_id in seen:
            continue
        if len(chain) > limits.max_include_depth:
            raise _fail("QOS007", f"includes are nested deeper than {limits.max_include_depth} files: "
                        + " -> ".join([n for _, n in chain] + [target]), loc)
        sub = _load_tree(target, limits, chain, seen, loc, root, budget)
        _merge(tree, sub, owned)
    return tree


def _check_inside(rel: str, real: str, root: str, loc: Location) -> None:
    """QOS006 for an include that is absolute or resolves (symlinks too) outside the project root.

    A policy from a pull request must not make qosc read /proc/self/environ, a key under ~/.ssh or another
    project's files and quote them back in a diagnostic; nothing of such a file is read."""
    if os.path.isabs(rel):
        raise _fail("QOS006", f"include {shown(rel)} is an absolute path", loc,
                    "write the path relative to the including file, inside the project")
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        raise _fail("QOS006", f"include {shown(rel)} leaves the project root {shown(root)}", loc,
                    f"keep included files inside the project (the git work tree, or the directory holding a "
                    f"{ROOT_MARKER} marker file, else the top policy's directory)")


def _ident(path: str) -> str:
    """A file's identity for cycle and diamond detection (symlinks resolved)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # unusable path: reading it will report the problem
        return path


def _include_list(tree: MDict) -> list[tuple[str, Location]]:
    """`include:` is one path or a list of paths, each with its location."""
    value, loc = tree["include"], tree.value_locs["include"]
    items = [(value, loc)] if not isinstance(value, MList) else list(zip(value, value.item_locs, strict=False))
    for item, item_loc in items:
        if not isinstance(item, str) or not item:
            raise _fail("QOS006", "'include' must be a file path or a list of file paths", item_loc,
                        "write e.g. 'include: [classes.yaml, devices/core.yaml]'")
    return items  # type: ignore[return-value]


def _merge(into: MDict, sub: MDict, owned: set[str]) -> None:
    """Merge an included tree: sections one level deep, equal scalars tolerated."""
    for section, value in sub.items():
        if section not in into:
            into[section] = value
            into.key_locs[section] = sub.key_locs[section]
            into.value_locs[section] = sub.value_locs[section]
            continue
        mine = into[section]
        if isinstance(mine, MDict) and isinstance(value, MDict):
            if section not in owned:  # copy before mutating: it may be shared through an alias
                mine = _copy(mine)
                into[section] = mine
                owned.add(section)
            for entry, v in value.items():
                if entry in mine:
                    raise _fail("QOS005", f"{shown(entry)} under {shown(section)} is defined twice: here and at "
                                f"{mine.key_locs[entry]}", value.key_locs[entry],
                                "rename one of them or remove the duplicate")
                mine[entry] = v
                mine.key_locs[entry] = value.key_locs[entry]
                mine.value_locs[entry] = value.value_locs[entry]
        elif not _same(mine, value):
            raise _fail("QOS005", f"{shown(section)} is defined differently here and at {into.key_locs[section]}",
                        sub.key_locs[section], "give it the same value in both files or define it once")


def _copy(m: MDict) -> MDict:
    c = MDict(m)
    c.loc, c.key_locs, c.value_locs = m.loc, dict(m.key_locs), dict(m.value_locs)
    return c


def _same(a: object, b: object) -> bool:
    """Equality that does not confuse 1, 1.0 and True (depth is bounded by Limits)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b
