"""Incremental compilation: a content-hash cache of validation and of per-device work.

One store per (policy file, output directory) under `default_dir()` (never in
the output directory, which holds only configs).  Every key starts with the
code fingerprint (qosc version, every source, template and platform file,
library versions and the environment the tc self-check depends on), so a
change to qosc itself invalidates everything.

Per (target, device) the store keeps the target's diagnostics and the files it
wrote (size and mtime): a device whose inputs did not change is neither checked
nor rendered again, and if its files are still on disk as written, not written
either.  The inputs of a device are its own block, the profiles its interfaces
use and the rest of the policy except the other devices and profiles (targets
see the whole model, but a device's output may only depend on those; see
tests/test_scale.py).  Hosts depend on the whole file.

Validation is incremental too.  A single-file policy in plain block style is
cut into text segments (top-level sections, one per device, one per profile);
the store keeps each device's built model.  When only device segments changed,
the policy is parsed with the unchanged devices blanked out (same line
numbers), the changed devices are schema-checked and built, the cached devices
are merged back (their source locations parsed again only if a diagnostic asks
for one), and the semantic checks run on the whole model, so every diagnostic
is the one a full validation gives.  Any error, any doubt (includes, anchors,
a segment that does not parse where it was cut) falls back to full validation.
Keys of such segmented policies ignore line numbers (cached diagnostics are
stored relative to their segment), so moving a device does not invalidate it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pickle
import re
import sys
from bisect import bisect_right
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

import qosc
from qosc import load
from qosc.diagnostics import Diagnostic, Location, QoscError, Severity
from qosc.model import Device, Interface, Where
from qosc.yamlsafe import resolve_plain

FORMAT = 1
KEEP_STORES = 32
"""Stores kept in the cache directory; the least recently used beyond that are deleted."""

IF_FIELDS = tuple(f.name for f in fields(Interface) if f.name not in ("name", "where"))
DEV_FIELDS = tuple(f.name for f in fields(Device) if f.name not in ("name", "interfaces", "where"))


def default_dir() -> Path:
    """$QOSC_CACHE_DIR, else $XDG_CACHE_HOME/qosc, else ~/.cache/qosc."""
    if os.environ.get("QOSC_CACHE_DIR"):
        return Path(os.environ["QOSC_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qosc"


def _h(*parts: object) -> str:
    return _ht(repr(parts))


def _ht(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def code_fingerprint(roots: tuple[Path, ...] | None = None) -> str:
    """Everything besides the policy that output can depend on: qosc, its data, libraries, environment."""
    files = _files_fingerprint(roots or _code_roots())
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("QOSC_") and k != "QOSC_CACHE_DIR" or k == "CI")
    return _h(FORMAT, files, env, os.geteuid(), os.uname().release)


def _code_roots() -> tuple[Path, ...]:
    from qosc.render import templates_dir

    return (Path(qosc.__file__).resolve().parent, templates_dir())


@lru_cache(maxsize=4)
def _files_fingerprint(roots: tuple[Path, ...]) -> str:
    h = hashlib.sha256(f"{qosc.__version__}|{sys.version}".encode())
    for dist in ("Jinja2", "PyYAML", "jsonschema"):
        try:
            h.update(f"|{dist}={importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"|{dist}=?".encode())
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json", ".j2", ".sh"):
                h.update(f"|{path.relative_to(root)}|".encode() + path.read_bytes())
    return h.hexdigest()[:32]


# --- segments: the policy text cut where YAML cannot cross ---------------------

_KEY = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*):(?:[ \t]|$)", re.M)
_NODE_PROPERTY = re.compile(r"(?:^|[\s\[\]{},])[&*!]")  # an anchor, alias or tag can tie segments together
_DOC_MARK = re.compile(r"^(?:---|\.\.\.|%)|^ *\t", re.M)
_HEADER = re.compile(r"[A-Za-z-]+:[ \t]*(?:#[^\n]*)?\n?")


@dataclass
class Seg:
    sid: str  # "g:<top-level key>" ("g:" before the first), "d:<device>", "p:<profile>"
    line: int  # 1-based line of its first character
    start: int
    end: int


def _key(text: str, pos: int) -> str | None:
    m = _KEY.match(text, pos)
    return m.group(1) if m and resolve_plain(m.group(1)) == m.group(1) else None


def segment(text: str) -> list[Seg] | None:
    """Top-level sections, and device and profile entries, in file order; None when unsure."""
    if any(c in text for c in "\r\x85\u2028\u2029\ufeff") or "<<" in text:
        return None
    if any(c in text for c in "&*!") and _NODE_PROPERTY.search(text):
        return None
    if ("\t" in text or "\n-" in text or "\n." in text or "\n%" in text or text.startswith(("-", ".", "%"))) \
            and _DOC_MARK.search(text):
        return None
    starts = [m.start() for m in re.finditer(r"^(?=[^\s#])", text, re.M)]
    out, line, prev = [Seg("g:", 1, 0, starts[0] if starts else len(text))], 1, 0
    for i, start in enumerate(starts):
        name = _key(text, start)
        if name is None or name == "include":
            return None
        line += text.count("\n", prev, start)
        prev = start
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        if name not in ("devices", "profiles"):
            out.append(Seg("g:" + name, line, start, end))
            continue
        header = _HEADER.match(text, start)
        if header is None or header.group().split(":")[0] != name:
            return None  # a flow-style or inline section: not cut
        body = header.end()
        first = re.compile(r"^( +)(?=[^ \n#])", re.M).search(text, body, end)
        indent = len(first.group(1)) if first else 0
        if indent > 1 and re.compile(rf"^ {{1,{indent - 1}}}[^ \n#]", re.M).search(text, body, end):
            return None
        entries = [m.start() for m in re.compile(rf"^ {{{indent}}}(?=[^ \n#])", re.M).finditer(text, body, end)]
        out.append(Seg("g:" + name, line, start, entries[0] if entries else end))
        for j, pos in enumerate(entries):
            entry = _key(text, pos + indent)
            if entry is None:
                return None
            line += text.count("\n", prev, pos)
            prev = pos
            out.append(Seg(f"{name[0]}:{entry}", line, pos, entries[j + 1] if j + 1 < len(entries) else end))
    sids = [s.sid for s in out]
    return out if len(set(sids)) == len(sids) else None


def _agrees(tree: Any, segs: list[Seg], devices: set[str] | None = None) -> bool:
    """The parsed tree has exactly the cut's keys, each on the line the cut says (devices: those given)."""
    lines = {s.sid: s.line for s in segs}
    for sid, section in (("g:", tree), ("d:", tree.get("devices")), ("p:", tree.get("profiles"))):
        want = {k for k in lines if k.startswith(sid) and k != "g:" and (sid != "d:" or devices is None
                                                                       or k[2:] in devices)}
        got = getattr(section, "key_locs", {}) if isinstance(section, dict) else {}
        if {sid + k for k in got} != want or any(got[k[2:]].line != lines[k] for k in want):
            return False
    return True


# --- cached devices: rebuilt from compact records, source nodes parsed on demand --

class _Source:
    """The current text of one policy, to parse a cached device again when a diagnostic needs its nodes."""

    def __init__(self, filename: str, text: str, segs: dict[str, Seg], profiles: Any) -> None:
        self.filename, self.text, self.segs, self.profiles = filename, text, segs, profiles or {}
        self._parsed: dict[str, Any] = {}

    def device(self, name: str) -> Any:
        if name not in self._parsed:
            seg = self.segs["d:" + name]
            padded = "\n" * (seg.line - 2) + "devices:\n" + self.text[seg.start:seg.end]
            self._parsed[name] = load.load_text(padded, self.filename)["devices"][name]
        return self._parsed[name]


class LazyWhere(Where):
    """A Where for a cached device: the location is known, the nodes are parsed only when asked for."""

    # one attribute, (source, device, interface or None, profile or None, line offset or None, column)
    _k: tuple[_Source, str, str | None, str | None, int | None, int]

    @property  # type: ignore[override]
    def loc(self) -> Location | None:
        src, dev, _, _, rel, col = self._k
        return None if rel is None else Location(src.filename, src.segs["d:" + dev].line + rel, col)

    @property  # type: ignore[override]
    def nodes(self) -> tuple[Any, ...]:
        src, dev, iface, profile, _, _ = self._k
        node = src.device(dev)
        if iface is None:
            return (node,)
        base = src.profiles.get(profile) if profile else None
        return ((base,) if base else ()) + (node["interfaces"][iface],)

    def __reduce__(self) -> Any:
        return (Where, (self.loc, ()))


def _lazy(key: tuple[Any, ...]) -> LazyWhere:
    where = object.__new__(LazyWhere)
    where.__dict__["_k"] = key
    return where


def _encode(dev: Device, seg: Seg, filename: str, table: dict[Any, int]) -> tuple[Any, ...] | None:
    def rel(loc: Location | None) -> tuple[int | None, int]:
        if loc is None:
            return None, 0
        if loc.file != filename or loc.line < seg.line:
            raise ValueError(loc)
        return loc.line - seg.line, loc.column

    try:
        ifaces = tuple((i.name, table.setdefault(tuple(i.__dict__[f] for f in IF_FIELDS), len(table)),
                        *rel(i.where.loc)) for i in dev.interfaces)
        return (tuple(getattr(dev, f) for f in DEV_FIELDS), *rel(dev.where.loc), ifaces)
    except (ValueError, TypeError, KeyError):  # a location elsewhere, an unhashable field: not cached
        return None


def _decode(name: str, rec: tuple[Any, ...], table: list[dict[str, Any]], src: _Source) -> Device:
    """A Device equal to the one build() makes, from its record (`table`: interface fields by id)."""
    values, rel, col, ifaces = rec
    out = []
    new, setattr_ = object.__new__, object.__setattr__
    for iname, fid, irel, icol in ifaces:
        iface = new(Interface)
        fields_ = table[fid]
        setattr_(iface, "__dict__", {**fields_, "name": iname,
                                     "where": _lazy((src, name, iname, fields_["profile"], irel, icol))})
        out.append(iface)
    dev = new(Device)
    dev.__dict__.update(zip(DEV_FIELDS, values), name=name, interfaces=tuple(out),
                        where=_lazy((src, name, None, None, rel, col)))
    return dev


def count_nodes(node: Any) -> int:
    """Nodes as the loader counts them (scalars, keys included, and collections)."""
    if isinstance(node, dict):
        return 1 + sum(1 + count_nodes(v) for v in node.values())
    if isinstance(node, list):
        return 1 + sum(count_nodes(v) for v in node)
    return 1


def tree_fingerprint(node: Any) -> str:
    """Content and source locations of a loaded subtree (for policies that cannot be cut into segments)."""
    out: list[Any] = []

    def walk(n: Any) -> None:
        if isinstance(n, dict):
            out.append(("{", getattr(n, "loc", None)))
            for k, v in n.items():
                locs = (getattr(n, "key_locs", {}).get(k), getattr(n, "value_locs", {}).get(k))
                out.append((k, *locs))
                walk(v)
            out.append("}")
        elif isinstance(n, list):
            out.append(("[", getattr(n, "loc", None), tuple(getattr(n, "item_locs", ()))))
            for v in n:
                walk(v)
            out.append("]")
        else:
            out.append((type(n).__name__, n))

    walk(node)
    return _h(out)


# --- diagnostics stored relative to the segment they point into ---------------

def encode_diags(diags: list[Diagnostic], filename: str, segs: list[Seg] | None,
                 starts: list[int] | None = None) -> tuple[Any, ...]:
    """Diagnostics with each location relative to the segment it falls in (`starts`: the segments' lines)."""
    if not diags:
        return ()
    starts = starts if starts is not None else [s.line for s in segs] if segs else []
    out = []
    for d in diags:
        loc: Any = d.location
        if loc is not None and segs and loc.file == filename:
            seg = segs[max(0, bisect_right(starts, loc.line) - 1)]
            loc = (seg.sid, loc.line - seg.line, loc.column)
        elif loc is not None:
            loc = ("", loc.file, loc.line, loc.column)
        out.append((d.code, d.severity.value, d.message, loc, d.hint))
    return tuple(out)


def decode_diags(enc: tuple[Any, ...], filename: str, lines: dict[str, int]) -> list[Diagnostic] | None:
    out = []
    for code, severity, message, loc, hint in enc:
        if loc is not None:
            if loc[0] == "":
                loc = Location(*loc[1:])
            elif loc[0] in lines:
                loc = Location(filename, lines[loc[0]] + loc[1], loc[2])
            else:
                return None
        out.append(Diagnostic(code, Severity(severity), message, loc, hint))
    return out


# --- the store ---------------------------------------------------------------

class Store:
    """What one compile of one policy into one output directory left for the next."""

    def __init__(self, cache_dir: Path | None, policy: str, outdir: str) -> None:
        ident = _h(os.path.abspath(policy), os.path.abspath(outdir))
        self.path = cache_dir / f"{ident}.pickle" if cache_dir else None
        self.data: dict[str, Any] = {}
        if self.path is None:
            self.code = ""
            return
        self.code = code_fingerprint()
        try:
            with open(self.path, "rb") as fh:
                data = pickle.load(fh)
            if isinstance(data, dict) and (data.get("format"), data.get("code"), data.get("policy")) == (
                    FORMAT, self.code, policy) and isinstance(data.get("entries"), dict):
                self.data = data
        except Exception:  # noqa: BLE001 - a missing, old or damaged cache is an empty one
            self.data = {}

    def save(self, data: dict[str, Any]) -> None:
        if self.path is None:
            return
        data = {**data, "code": self.code}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
            stores = sorted(self.path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in stores[KEEP_STORES:]:
                old.unlink()
        except OSError:  # a cache that cannot be written only costs time next run
            pass


def read_policy(path: str) -> str | None:
    """The text of a policy file as load_policy reads it, or None (the full path reports why)."""
    try:
        return load._decode(load._read_bounded(path, load.Limits()), path)
    except (OSError, ValueError, QoscError):
        return None


# --- one policy's incremental compile ------------------------------------------

class PolicyCache:
    """Validate one policy (incrementally when the store allows) and key its (target, unit) work."""

    def __init__(self, policy: str, outdir: str, cache_dir: Path | None, jobs: int = 1) -> None:
        self.policy, self.outdir, self.jobs = policy, outdir, jobs
        self.store = Store(cache_dir, policy, outdir)
        self.fast = False  # whether the last validate() took the incremental path
        self.segs: list[Seg] | None = None
        self.lines: dict[str, int] = {}
        self._global = ""
        self._units: dict[str, str] = {}
        self._entries: dict[str, Any] = {}
        self._model: dict[str, Any] | None = None
        self._starts: list[int] | None = None
        self._stale: Any = None

    def validate(self) -> tuple[Any, bool]:
        """(api.Result without target checks, whether target checks apply): what api.validate_stages gives."""
        from qosc import api

        if self.store.path is None:  # no cache: a plain validation
            result, _, ok = api.validate_stages(self.policy, jobs=self.jobs)
            return result, ok
        text = read_policy(self.policy)
        segs = segment(text) if text is not None else None
        old = self.store.data.get("model")
        if text is not None and segs and old and old.get("global") == _global_hash(text, segs):
            try:
                done = self._fast(api, text, segs, old)
            except Exception:  # noqa: BLE001 - a store this code did not write: validate from scratch
                done = None
            if done is not None:
                self.fast = True
                return done
        result, tree, ok = api.validate_stages(self.policy, jobs=self.jobs)
        if result.policy is not None and ok and not any(d.is_error for d in result.diagnostics):
            if text is None or segs is None or not _agrees(tree, segs):
                segs = None
            self._keys(result.policy, text, segs, tree, {})
        return result, ok

    def _fast(self, api: Any, text: str, segs: list[Seg], old: dict[str, Any]) -> tuple[Any, bool] | None:
        devsegs = [s for s in segs if s.sid.startswith("d:")]
        cached = old["devices"]
        changed = [s for s in devsegs if (cached.get(s.sid[2:]) or (None,))[0] != _ht(text[s.start:s.end])
                   or cached[s.sid[2:]][2] is None]
        if len(changed) > max(64, len(devsegs) // 4):
            return None  # so much changed that a full validation is as fast
        keep = {s.sid for s in changed or devsegs[:1]}
        parts, pos = [], 0
        for s in devsegs:
            if s.sid not in keep:
                parts += [text[pos:s.start], "\n" * text.count("\n", s.start, s.end)]
                pos = s.end
        try:
            tree = load.load_text("".join(parts) + text[pos:], self.policy)
        except QoscError:
            return None
        if not _agrees(tree, segs, {k[2:] for k in keep}):
            return None
        reused = [s for s in devsegs if s.sid not in keep]
        if count_nodes(tree) + sum(cached[s.sid[2:]][1] for s in reused) > load.Limits().max_nodes:
            return None
        src = _Source(self.policy, text, {s.sid: s for s in devsegs}, tree.get("profiles"))
        table = [dict(zip(IF_FIELDS, values)) for values in old["table"]]

        def complete(policy: Any) -> Any:
            import dataclasses

            fresh = policy.device_map
            devices = tuple(fresh[s.sid[2:]] if s.sid in keep else _decode(s.sid[2:], cached[s.sid[2:]][2], table, src)
                            for s in devsegs)
            return dataclasses.replace(policy, devices=devices)

        result, _, ok = api.validate_stages(self.policy, tree=tree, complete=complete, jobs=self.jobs)
        if result.policy is None or not ok or any(d.is_error for d in result.diagnostics):
            return None  # errors are reported by a full validation, exactly
        self._keys(result.policy, text, segs, tree, {s.sid[2:]: cached[s.sid[2:]] for s in reused}, old["table"])
        return result, ok

    def _keys(self, policy: Any, text: str | None, segs: list[Seg] | None, tree: Any,
              reused: dict[str, Any], table: list[Any] | None = None) -> None:
        """Fingerprints of every unit's inputs, and the model records for the next fast path."""
        self.segs = segs
        profiles = tree.get("profiles") or {}
        if text is not None and segs is not None:
            self.lines = {s.sid: s.line for s in segs}
            piece = {s.sid: text[s.start:s.end] for s in segs if not s.sid.startswith("d:")}
            prof = {s.sid[2:]: _h(piece[s.sid]) for s in segs if s.sid.startswith("p:")}
            self._global = _h(self.policy, [v for k, v in piece.items() if not k.startswith("p:")], list(prof))
            dev_text = {s.sid[2:]: _ht(text[s.start:s.end]) for s in segs if s.sid.startswith("d:")}
        else:
            rest = [(k, tree.key_locs.get(k), tree.value_locs.get(k), tree_fingerprint(v)) for k, v in tree.items()
                    if k not in ("devices", "profiles")]
            prof = {k: tree_fingerprint(v) for k, v in profiles.items()}
            self._global = _h(self.policy, rest, list(prof))
            nodes = tree.get("devices") or {}
            dev_text = {d.name: tree_fingerprint(nodes.get(d.name)) for d in policy.devices}
        whole = _h(text if text is not None else tree_fingerprint(tree))
        segmap = {s.sid: s for s in segs or ()}
        index = {v: i for i, v in enumerate(table or [])}
        records = {}
        for dev in policy.devices:
            if dev.name in reused:
                records[dev.name] = reused[dev.name]
                self._units["d:" + dev.name] = reused[dev.name][3]
                continue
            used = sorted({i.profile for i in dev.interfaces if i.profile})
            fp = _h(dev_text[dev.name], [(p, prof.get(p)) for p in used])
            self._units["d:" + dev.name] = fp
            if segs is not None:
                rec = _encode(dev, segmap["d:" + dev.name], self.policy, index)
                records[dev.name] = (dev_text[dev.name], count_nodes(tree["devices"][dev.name]), rec, fp)
        for host in policy.hosts:
            self._units["h:" + host.name] = _h("host", host.name, whole)
        if segs is not None and text is not None:
            self._model = {"global": _global_hash(text, segs), "devices": records,
                           "table": [v for v, _ in sorted(index.items(), key=lambda kv: kv[1])]}

    def key(self, target: str, unit: Any) -> str | None:
        fp = self._units.get(("d:" if isinstance(unit, Device) else "h:") + unit.name)
        return _h(self.store.code, target, self._global, fp) if fp else None

    def lookup(self, key: str | None) -> tuple[list[Diagnostic], list[tuple[str, int, int]] | None] | None:
        """(target diagnostics, files written or None) of a unit whose inputs did not change."""
        entry = self.store.data.get("entries", {}).get(key) if key else None
        if entry is None:
            return None
        try:
            diags = decode_diags(entry[0], self.policy, self.lines)
        except (TypeError, ValueError, IndexError):  # not what this code writes
            return None
        return None if diags is None else (diags, entry[1])

    def watch(self, background: bool) -> None:
        """Start checking that the files of every cached unit are intact (in a forked child if `background`)."""
        from qosc.parallel import Background

        entries = self.store.data.get("entries", {})
        self._stale = Background(lambda: _stale(self.outdir, entries), background and len(entries) > 256)

    def intact(self, files: list[tuple[str, int, int]] | None) -> bool:
        """Every file of a cached unit is still on disk exactly as it was written."""
        if files is None:
            return False
        if self._stale is None:
            self.watch(False)
        stale = self._stale.result()
        return not any(rel in stale for rel, _, _ in files)

    def close(self) -> None:
        """Reap the background check, if one was started and not waited for."""
        if self._stale is not None:
            self._stale.result()

    def record(self, key: str | None, checks: list[Diagnostic] | None,
               files: list[tuple[str, int, int]] | None) -> None:
        """Remember a unit for the next compile; checks None: the ones lookup() gave for this key."""
        if key is None:
            return
        if checks is None:
            self._entries[key] = (self.store.data["entries"][key][0], files)
            return
        if self._starts is None:
            self._starts = [s.line for s in self.segs or ()]
        self._entries[key] = (encode_diags(checks, self.policy, self.segs, self._starts), files)

    def save(self) -> None:
        self.store.save({"format": FORMAT, "policy": self.policy, "entries": self._entries, "model": self._model})


def _stale(outdir: str, entries: dict[str, Any]) -> set[str]:
    """The files of cached units that are missing or not as written (size or mtime changed)."""
    stale = set()
    stat, join = os.stat, os.path.join
    for _, files in entries.values():
        for rel, size, mtime in files or ():
            try:
                st = stat(join(outdir, rel))
                if st.st_size == size and st.st_mtime_ns == mtime:
                    continue
            except OSError:
                pass
            stale.add(rel)
    return stale


def _global_hash(text: str, segs: list[Seg]) -> str:
    return _h([text[s.start:s.end] for s in segs if not s.sid.startswith("d:")])
