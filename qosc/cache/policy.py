"""PolicyCache: one policy's incremental compile, as qosc/commands/compile.py drives it.

Separate from the parts it uses (segments, records, store) because it is the
only one that knows the compile's flow: validate (incrementally when the store
allows), key every (target, unit), look up and record units, save the store.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qosc import load
from qosc.cache.records import IF_FIELDS, _decode, _encode, _Source, decode_diags, encode_diags, if_row
from qosc.cache.segments import Seg, _agrees, _global_hash, _h, _ht, count_nodes, segment, tree_fingerprint
from qosc.cache.store import FORMAT, Store
from qosc.diagnostics import Diagnostic
from qosc.errors import InputError
from qosc.model import Device
from qosc.pipeline.validation import validate_stages


def read_policy(path: str) -> str | None:
    """The text of a policy file as load_policy reads it, or None (the full path reports why)."""
    try:
        return load.read_text(path)
    except (OSError, ValueError, InputError):
        return None


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
        self._fresh: set[str] = set()
        self._hints: dict[str, str] = {}
        self._digests: dict[str, str] = {}

    def validate(self) -> tuple[Any, bool]:
        """(Result without target checks, whether target checks apply): what pipeline.validate_stages gives."""
        if self.store.path is None:  # no cache: a plain validation
            result, _, ok = validate_stages(self.policy, jobs=self.jobs)
            return result, ok
        text = read_policy(self.policy)
        segs = segment(text) if text is not None else None
        old = self.store.data.get("model")
        if text is not None and segs and old and old.get("global") == _global_hash(text, segs):
            try:
                done = self._fast(text, segs, old)
            except Exception:  # noqa: BLE001 - a store this code did not write: validate from scratch
                done = None
            if done is not None:
                self.fast = True
                return done
        result, tree, ok = validate_stages(self.policy, jobs=self.jobs)
        if result.policy is not None and ok and not any(d.is_error for d in result.diagnostics):
            if text is None or segs is None or not _agrees(tree, segs):
                segs = None
            self._keys(result.policy, text, segs, tree, {})
        return result, ok

    def _fast(self, text: str, segs: list[Seg], old: dict[str, Any]) -> tuple[Any, bool] | None:
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
        except InputError:
            return None
        if not _agrees(tree, segs, {k[2:] for k in keep}):
            return None
        reused = [s for s in devsegs if s.sid not in keep]
        if count_nodes(tree) + sum(cached[s.sid[2:]][1] for s in reused) > load.Limits().max_nodes:
            return None
        src = _Source(self.policy, text, {s.sid: s for s in devsegs}, tree.get("profiles"))
        rows = [if_row(values) for values in old["table"]]
        table = [dict(zip(IF_FIELDS, values, strict=True)) for values in rows]

        def complete(policy: Any) -> Any:
            import dataclasses

            fresh = policy.device_map
            devices = tuple(fresh[s.sid[2:]] if s.sid in keep else _decode(s.sid[2:], cached[s.sid[2:]][2], table, src)
                            for s in devsegs)
            return dataclasses.replace(policy, devices=devices)

        result, _, ok = validate_stages(self.policy, tree=tree, complete=complete, jobs=self.jobs)
        if result.policy is None or not ok or any(d.is_error for d in result.diagnostics):
            return None  # errors are reported by a full validation, exactly
        self._keys(result.policy, text, segs, tree, {s.sid[2:]: cached[s.sid[2:]] for s in reused}, rows)
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
            # a device's text but its name (the key up to the first ':', a plain name: see segments._KEY)
            self._hints = {s.sid[2:]: _ht(text[s.start:s.end].partition(":")[2]) for s in segs
                           if s.sid.startswith("d:") and s.sid[2:] not in reused}
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

    def hint(self, unit: Any) -> str | None:
        """A device's text but its name, hashed: devices of equal hints are written alike, so they lower alike
        (qosc.pipeline.sharing needs to tell that from the model only once per hint); None: no hint."""
        return self._hints.get(unit.name) if isinstance(unit, Device) else None

    def key(self, target: str, unit: Any) -> str | None:
        fp = self._units.get(("d:" if isinstance(unit, Device) else "h:") + unit.name)
        return _h(self.store.code, target, self._global, fp) if fp else None

    def lookup(self, key: str | None) -> tuple[list[Diagnostic], list[str] | None, list[str]] | None:
        """(target diagnostics, files written or None, their render notes) of a unit whose inputs did not change."""
        entry = self.store.data.get("entries", {}).get(key) if key else None
        if entry is None:
            return None
        try:
            diags = decode_diags(entry[0], self.policy, self.lines)
        except (TypeError, ValueError, IndexError):  # not what this code writes
            return None
        files = entry[1]
        if files is not None and not all(isinstance(f, str) for f in files):
            return None
        return None if diags is None else (diags, None if files is None else list(files), list(entry[2]))

    def watch(self, background: bool) -> None:
        """Start checking that the files of every cached unit are intact (in a forked child if `background`)."""
        from qosc.parallel import Background

        files = self.store.data.get("files", {})
        self._stale = Background(lambda: _stale(self.outdir, files), background and len(files) > 4096)

    def intact(self, files: list[str] | None) -> bool:
        """Every file of a cached unit is still on disk exactly as it was written."""
        if files is None:
            return False
        if self._stale is None:
            self.watch(False)
        stale = self._stale.result()[0]
        return not any(rel in stale for rel in files)

    def close(self) -> None:
        """Reap the background check, if one was started and not waited for."""
        if self._stale is not None:
            self._stale.result()

    def record(self, key: str | None, checks: list[Diagnostic] | None, files: list[Any] | None,
               notes: list[str]) -> None:
        """Remember a unit for the next compile; checks None: the ones lookup() gave for this key; files: what
        the sink staged (qosc.outpaths.Staged), None: the files lookup() gave, if any.

        `notes` are the Output.notes of its files, reported again when the files come from the cache.
        """
        if key is None:
            return
        old = self.store.data.get("entries", {}).get(key)
        if files is None:
            files = old[1] if old is not None and checks is None else None
        else:
            self._digests.update((s.relpath, s.digest) for s in files)
            files = [s.relpath for s in files]
            self._fresh.update(files)
        if checks is None:
            self._entries[key] = (old[0], files, notes)
            return
        if self._starts is None:
            self._starts = [s.line for s in self.segs or ()]
        self._entries[key] = (encode_diags(checks, self.policy, self.segs, self._starts), files, notes)

    def save(self, touched: Sequence[str] = ()) -> None:
        """Write the store, with the identity of every file its units own as it is now (see _identity): stat'ed
        again for the files rendered in this run, those the publish linked (`touched`: a link changes the
        ctime) and those whose ctime moved with their content intact; kept from the last store for the others."""
        if self.store.path is None:
            return
        old = self.store.data.get("files", {})
        moved = self._stale.result()[1] if self._stale is not None else set()
        again = self._fresh.union(touched, moved)
        files = {}
        for entry in self._entries.values():
            for rel in entry[1] or ():
                if rel not in again:
                    if rel in old:
                        files[rel] = old[rel]
                    continue
                digest = self._digests.get(rel) or (old[rel][4] if rel in old and len(old[rel]) > 4 else None)
                found = _identity(os.path.join(self.outdir, rel))
                if found is not None and digest is not None:
                    files[rel] = [*found, digest]
        self.store.save({"format": FORMAT, "policy": self.policy, "entries": self._entries, "model": self._model,
                         "files": files})


def _identity(path: str) -> list[int] | None:
    """What says a file is the one qosc wrote: inode, size, mtime and ctime (an edit, even one that restores
    size and mtime, changes the ctime); None when it is not a regular file.  The store keeps the sha256 of
    the content beside it: a file whose ctime alone moved (a link to it was made or removed: the publish
    links unchanged files into the switched folder and removes the old one) is intact if its content is."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns] if stat.S_ISREG(st.st_mode) else None


def _stale(outdir: str, files: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(the recorded files missing or not as written, those whose ctime alone moved with their content intact)."""
    join = os.path.join
    stale, moved = set(), set()
    for rel, ident in files.items():
        now = _identity(join(outdir, rel))
        if now == ident[:4]:
            continue
        if now is not None and now[:3] == ident[:3] and len(ident) > 4 and file_digest(join(outdir, rel)) == ident[4]:
            moved.add(rel)
        else:
            stale.add(rel)
    return stale, moved


def file_digest(path: str) -> str | None:
    """sha256 of a regular file (not followed through a link), None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)
