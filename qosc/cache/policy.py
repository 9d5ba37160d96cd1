"""PolicyCache: one policy's incremental compile, as the orchestrator (qosc.pipeline.orchestrate) drives it.

Separate from the parts it uses (segments, records, store) because it is the
only one that knows the compile's flow: validate (only the devices that
changed, when the store allows), list, key, look up and record every (target,
unit), save the store.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qosc import load
from qosc.cache.files import check as check_files
from qosc.cache.files import digest_of, owner_of
from qosc.cache.files import record as file_record
from qosc.cache.records import (
    DeviceRecord,
    decode_part,
    device_payload,
    device_record,
    diags_of,
    encode_diags,
    encode_part,
    entry_payload,
    read_entry,
)
from qosc.cache.segments import Seg, _agrees, _global_hash, _h, _ht, count_nodes, cut, hashes, tree_fingerprint
from qosc.cache.standins import Cached, _stand_in, _stand_ins
from qosc.cache.store import Store, keeping
from qosc.checks import Checked, check, needs_whole
from qosc.checks.references import named
from qosc.diagnostics import Diagnostic
from qosc.errors import InputError
from qosc.model import Device, Policy
from qosc.pipeline.units import all_units
from qosc.pipeline.validation import validate_stages


def read_policy(path: str) -> str | None:
    """The text of a policy file as load_policy reads it, or None (the full path reports why)."""
    try:
        return load.read_text(path)
    except (OSError, ValueError, InputError):
        return None


_KEYS: dict[tuple[str, str, str, str], str] = {}
"""(code, target, the policy's shared part, a unit's inputs) -> its key, kept by the compile server."""


class PolicyCache:
    """Validate one policy (only what changed, when the store allows) and key its (target, unit) work."""

    def __init__(self, policy: str, outdir: str, cache_dir: Path | None, jobs: int = 1, verify: bool = False) -> None:
        self.policy, self.outdir, self.jobs, self.verify = policy, outdir, jobs, verify
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
        self._order: list[tuple[str, Cached | None]] | None = None
        """After an incremental validation: every device in policy order, a stand-in for those not built."""
        self._keys_of: dict[str, list[str]] = {}
        """Device -> the keys of its units (which say whether all of them were rendered)."""
        self._looked: dict[str, tuple[list[str] | None, list[str], str]] = {}
        """Key -> what lookup() read of its entry."""

    def validate(self) -> tuple[Any, bool]:
        """(Result without target checks, whether target checks apply): what pipeline.validate_stages gives.

        Incremental when only devices changed since the store was written: the
        changed devices (and those whose files are not intact, or were not all
        rendered) are built and checked; the others' findings and parts come
        from the store, and the checks that look across devices run on every
        device's part (qosc.checks), so every diagnostic is the one a full
        validation gives.  The result's model then holds only the devices built;
        `units` lists the others as stand-ins.
        """
        if self.store.path is None:  # no cache: a plain validation
            result, _, ok = validate_stages(self.policy, jobs=self.jobs)
            return result, ok
        text = read_policy(self.policy)
        found = cut(self.policy, text, keeping()) if text is not None else None
        segs = found.segs if found is not None else None
        old = self.store.meta.get("model")
        if not self.verify and found is not None and segs and old and old.get("global") == found.glob:
            try:
                done = self._fast(text, segs, old, found.digests)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - a store this code did not write: validate from scratch
                done = None
            if done is not None:
                self.fast = True
                return done
        checked: list[Checked] = []
        result, tree, ok = validate_stages(self.policy, checks=lambda p: self._check(p, checked), jobs=self.jobs)
        if result.policy is not None and ok and not any(d.is_error for d in result.diagnostics):
            if text is None or segs is None or not _agrees(tree, segs) or needs_whole(result.policy):
                segs = None
            self._keys(result.policy, text, segs, tree, checked[0] if checked else None, {})
        return result, ok

    def _check(self, policy: Policy, into: list[Checked], names: Any = None, parts: Any = None,
               findings: Any = None) -> list[Diagnostic]:
        found = check(policy, names, parts, findings)
        into.append(found)
        return found.diagnostics

    def _fast(self, text: str, segs: list[Seg], old: dict[str, Any], digests: dict[str, str],
              known: set[str] | None = None) -> tuple[Any, bool] | None:
        """The incremental validation; `known`: devices whose files are not intact, if known yet.

        The check of the files (`watch`, on another CPU) is waited for only at the end: if it found a device
        reused here, the validation is done again with it built (rare: someone changed the output)."""
        devsegs = [(s.sid[2:], s) for s in segs if s.sid.startswith("d:")]  # (name, segment)
        stored = self.store.devices
        if not all(name in stored for name, _ in devsegs[:1]):
            return None
        stale, keep = known or set(), keeping()
        cached: dict[str, DeviceRecord] = {}
        held: set[str] = set()
        for name, s in devsegs:
            raw = stored.get(name)
            rec = device_record(raw, keep) if raw is not None else None
            if rec is None or rec.text != digests[s.sid] or not rec.done or name in stale:
                held.add(name)
            else:
                cached[name] = rec
        if len(held) > max(64, len(devsegs) // 4):
            return None  # so much changed that a full validation is as fast
        held = held or {name for name, _ in devsegs[:1]}
        reused = {name: rec for name, rec in cached.items() if name not in held}
        pieces, pos, run = [], 0, -1  # the reused devices blanked out, a run of them at a time (lines kept)
        for name, s in devsegs:
            if name in reused:
                run = s.start if run < 0 else run
                continue
            if run >= 0:
                pieces += [text[pos:run], "\n" * text.count("\n", run, s.start)]
                pos, run = s.start, -1
        if run >= 0:
            end = devsegs[-1][1].end
            pieces += [text[pos:run], "\n" * text.count("\n", run, end)]
            pos = end
        try:
            tree = load.load_text("".join(pieces) + text[pos:], self.policy)
        except InputError:
            return None
        if not _agrees(tree, segs, held) or \
                count_nodes(tree) + sum(r.nodes for r in reused.values()) > load.Limits().max_nodes:
            return None
        lines = {s.sid: s.line for s in segs}
        parts, findings = {}, {}
        decoded: dict[int, Any] = {}
        for name, rec in reused.items():
            part = decoded.get(rec.part)
            if part is None:
                part = decoded[rec.part] = decode_part(old["parts"][rec.part], self.policy, lines)
            found = diags_of(rec.findings, self.policy, lines, keep)
            if part is None or found is None:
                return None
            parts[name] = part
            if found:
                findings[name] = found
        keys = getattr(tree.get("devices"), "key_locs", {})
        stand_in = _stand_ins if keep else _stand_in
        ins = {name: stand_in(name, rec.platform, self.policy, s.line, rec.column, rec.fp)
               for name, s, rec in ((name, s, reused.get(name)) for name, s in devsegs) if rec is not None}
        where = {name: ins[name].where.loc if name in ins else keys.get(name) for name, _ in devsegs}
        checked: list[Checked] = []
        result, _, ok = validate_stages(self.policy, tree=tree, jobs=self.jobs,
                                        checks=lambda p: self._check(p, checked, list(where.items()), parts, findings))
        if result.policy is None or not ok or any(d.is_error for d in result.diagnostics) or \
                _h(checked[0].network.context) != old.get("context"):
            return None  # errors are reported by a full validation, exactly; a new context: every device again
        now_stale = self._stale_devices()
        if now_stale.intersection(reused):
            return self._fast(text, segs, old, digests, stale | now_stale)
        self._order = [(name, ins.get(name)) for name, _ in devsegs]
        self._keys(result.policy, text, segs, tree, checked[0], reused, old)
        return result, ok

    def units(self, policy: Policy) -> list[tuple[Any, str]]:
        """Every unit of the policy, in policy order, with its platform: after an incremental validation, the
        devices not built again are stand-ins (Cached), whose work the memo has."""
        if self._order is None:
            return all_units(policy)
        built = {d.name: d for d in policy.devices}
        return [(unit, unit.platform) if unit is not None else (built[name], built[name].platform)
                for name, unit in self._order]

    def _keys(self, policy: Policy, text: str | None, segs: list[Seg] | None, tree: Any, checked: Checked | None,
              reused: dict[str, Any], old: dict[str, Any] | None = None) -> None:
        """Fingerprints of every unit's inputs, and the model records for the next incremental validation."""
        self.segs = segs
        profiles = tree.get("profiles") or {}
        if text is not None and segs is not None:
            self.lines = {s.sid: s.line for s in segs}
            piece = {s.sid: text[s.start:s.end] for s in segs if not s.sid.startswith("d:")}
            prof = {s.sid[2:]: _h(piece[s.sid]) for s in segs if s.sid.startswith("p:")}
            self._global = _h(self.policy, [v for k, v in piece.items() if not k.startswith("p:")], list(prof))
            built = [s for s in segs if s.sid.startswith("d:") and s.sid[2:] not in reused]
            dev_text = {sid[2:]: h for sid, h in hashes(text, built).items()}
            # a device's text but its name (the key up to the first ':', a plain name: see segments._KEY)
            self._hints = {s.sid[2:]: _ht(text[s.start:s.end].partition(":")[2]) for s in built}
        else:
            rest = [(k, tree.key_locs.get(k), tree.value_locs.get(k), tree_fingerprint(v)) for k, v in tree.items()
                    if k not in ("devices", "profiles")]
            prof = {k: tree_fingerprint(v) for k, v in profiles.items()}
            self._global = _h(self.policy, rest, list(prof))
            nodes = tree.get("devices") or {}
            dev_text = {d.name: tree_fingerprint(nodes.get(d.name)) for d in policy.devices}
        whole = _h(text if text is not None else tree_fingerprint(tree)) if policy.hosts else ""  # (hosts' key)
        for name, rec in reused.items():
            self._units["d:" + name] = rec.fp
        for dev in policy.devices:
            used = sorted({i.profile for i in dev.interfaces if i.profile})
            self._units["d:" + dev.name] = _h(dev_text[dev.name], [(p, prof.get(p)) for p in used])
        for host in policy.hosts:
            self._units["h:" + host.name] = _h("host", host.name, whole)
        if segs is not None and text is not None and checked is not None:
            self._model = self._records(policy, segs, tree, checked, reused, dev_text, old)
            if self._model is not None:
                self._model["meta"]["global"] = _global_hash(text, segs)

    def _records(self, policy: Policy, segs: list[Seg], tree: Any, checked: Checked, reused: dict[str, Any],
                 dev_text: dict[str, str], old: dict[str, Any] | None) -> dict[str, Any] | None:
        """The model part of the store: its shared part (the context, the table of parts) and, per device in
        policy order, its record (qosc.cache.records.device_payload; done is filled in by save())."""
        table: list[Any] = list(old["parts"]) if old is not None else []
        index: dict[str, int] = {}
        starts = [s.line for s in segs]
        keys = dict(named(policy, "devices", policy.devices))
        segmap = {s.sid: s for s in segs}
        built = {}
        for dev in policy.devices:
            seg, loc = segmap["d:" + dev.name], keys.get(dev.name)
            if loc is None or loc.file != self.policy or loc.line != seg.line:
                return None  # (the device's key is not where the cut says: no incremental validation next time)
            enc = json.dumps(encode_part(checked.parts[dev.name], self.policy, segs, starts), separators=(",", ":"))
            if enc not in index:
                index[enc] = len(table)
                table.append(json.loads(enc))
            built[dev.name] = [dev_text[dev.name], count_nodes(tree["devices"][dev.name]), self._units["d:" + dev.name],
                               loc.column, dev.platform, False, index[enc],
                               encode_diags(checked.findings[dev.name], self.policy, segs, starts)]
        devices = {s.sid[2:]: built.get(s.sid[2:]) or reused[s.sid[2:]].raw for s in segs if s.sid.startswith("d:")}
        return {"meta": {"context": _h(checked.network.context), "parts": table}, "devices": devices}

    def hint(self, unit: Any) -> str | None:
        """A device's text but its name, hashed: devices of equal hints are written alike, so they lower alike
        (qosc.pipeline.sharing needs to tell that from the model only once per hint); None: no hint."""
        return self._hints.get(unit.name) if isinstance(unit, Device) else None

    def key(self, target: str, unit: Any) -> str | None:
        device = isinstance(unit, (Device, Cached))
        fp = unit.fp if isinstance(unit, Cached) else self._units.get(("d:" if device else "h:") + unit.name)
        if not fp:
            return None
        ident = (self.store.code, target, self._global, fp)
        key = _KEYS.get(ident)
        if key is None:
            key = _ht("\0".join(ident))
            if keeping():  # (the compile server: the same units are keyed again next time)
                if len(_KEYS) >= 1 << 18:
                    _KEYS.clear()
                _KEYS[ident] = key
        if device:
            self._keys_of.setdefault(unit.name, []).append(key)
        return key

    def lookup(self, key: str | None) -> tuple[list[Diagnostic], list[str] | None, list[str]] | None:
        """(target diagnostics, files written or None, their render notes) of a unit whose inputs did not change."""
        raw = self.store.entries.get(key) if key else None
        if raw is None:
            return None
        try:
            found, files, notes, diags = read_entry(raw, self.policy, self.lines, keeping())
        except (TypeError, ValueError, IndexError, KeyError):  # not what this code writes
            return None
        self._looked[key] = (files, notes, diags)  # type: ignore[index]
        return None if found is None else (found, None if files is None else list(files), notes)

    def _stale_devices(self) -> set[str]:
        """The devices one of whose recorded files is missing or not as written (waits for `watch`'s check)."""
        if self._stale is None:
            self.watch(False)
        return {owner_of(self.store.files[rel]) for rel in self._stale.result()[0]}

    def watch(self, background: bool) -> None:
        """Start checking that the files of every cached unit are intact (qosc.cache.files.check)."""
        self._stale = check_files(self.outdir, self.store.files, background)

    def intact(self, files: list[str] | None) -> bool:
        """Every file of a cached unit is still on disk exactly as it was written."""
        if files is None:
            return False
        if self._stale is None:
            self.watch(False)
        stale = self._stale.result()[0]
        return not stale or stale.isdisjoint(files)

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
        old = self._looked.get(key)
        if files is None:
            names = old[0] if old is not None and checks is None else None
        else:
            self._digests.update((s.relpath, s.digest) for s in files)
            names = [s.relpath for s in files]
            self._fresh.update(names)
        if checks is None:
            assert old is not None
            if files is None and notes == old[1]:
                self._entries[key] = (names, self.store.entries[key])  # as it was
                return
            self._entries[key] = (names, entry_payload(names, notes, old[2]))
            return
        if self._starts is None:
            self._starts = [s.line for s in self.segs or ()]
        diags = json.dumps(encode_diags(checks, self.policy, self.segs, self._starts), ensure_ascii=False,
                           separators=(",", ":"))
        self._entries[key] = (names, entry_payload(names, notes, diags))

    def save(self, touched: Sequence[str] = ()) -> None:
        """Write the store, with the record of every file its units own as it is now (qosc.cache.files):
        taken again for the files rendered in this run, those the publish linked (`touched`: a link changes
        the ctime) and those whose ctime moved with their content intact; kept from the last store for the
        others."""
        if self.store.path is None:
            return
        old = self.store.files
        moved = self._stale.result()[1] if self._stale is not None else set()
        again = self._fresh.union(touched, moved)
        owner = {k: name for name, keys in self._keys_of.items() for k in keys}
        files = {}
        join = os.path.join
        for key, (names, _) in self._entries.items():
            for rel in names or ():
                if rel not in again:
                    if rel in old:
                        files[rel] = old[rel]
                    continue
                digest = self._digests.get(rel) or (digest_of(old[rel]) if rel in old else None)
                found = file_record(join(self.outdir, rel), digest, owner.get(key, "")) if digest else None
                if found is not None:
                    files[rel] = found
        entries = {key: payload for key, (_, payload) in self._entries.items()}
        meta: dict[str, Any] = {"policy": self.policy, "model": None}
        devices: dict[str, str] = {}
        if self._model is not None:
            meta["model"] = self._model["meta"]
            for name, rec in self._model["devices"].items():
                if isinstance(rec, list):  # built now: done once every unit of it has its files recorded
                    rec[5] = all(entries.get(k) is not None and self._entries[k][0] is not None
                                 for k in self._keys_of.get(name, ()))
                    rec = device_payload(*rec)
                devices[name] = rec
        self.store.save(meta, devices, entries, files)
