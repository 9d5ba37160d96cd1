"""Names of vendor objects: one allocator per device and dialect, so no two objects ever share a name.

A target asks `Names.allocate(namespace, wanted, owner)` for every name it
writes (a class-map, a filter, a scheduler map...).  The allocator

- keeps names within the dialect's length limit: a longer name is cut and
  given a stable hash suffix of the full wanted name (`-` + 8 hex digits), so
  the same policy always gives the same name and two long names that share a
  prefix still differ;
- refuses the dialect's reserved words (IOS `class-default`) and any name
  another owner already holds in the same namespace: the later owner gets the
  wanted name with a stable suffix from its owner identity (`c1-r1` from
  classifier c1 rule r1 after service c1-r1 took `c1-r1` becomes
  `c1-r1-<hash of "rule c1/r1">`), and the allocation says it was renamed, so
  the target can say so in a comment or a diagnostic;
- gives the same owner the same name when asked again.

Namespaces are the dialect's: IOS class-maps and policy-maps live in
different namespaces (the same text may name one of each), JUNOS filters and
policers too.  Names differing only by case collide where the dialect folds
case (`case_insensitive`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def stable_hash(text: str, digits: int = 8) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:digits]


@dataclass(frozen=True)
class Allocation:
    name: str
    wanted: str
    renamed: bool
    """True when the name differs from the wanted one (too long, reserved, or taken)."""
    why: str = ""


@dataclass
class Names:
    """Names of one device in one dialect (see the module doc)."""

    dialect: str
    max_length: int
    reserved: frozenset[str] = frozenset()
    case_insensitive: bool = False
    _held: dict[tuple[str, str], str] = field(default_factory=dict)
    """(namespace, folded name) -> owner."""
    _given: dict[tuple[str, str], Allocation] = field(default_factory=dict)
    """(namespace, owner) -> its allocation."""

    def _fold(self, name: str) -> str:
        return name.casefold() if self.case_insensitive else name

    def _fit(self, name: str, salt: str = "") -> str:
        """The name within the length limit; with a salt, always suffixed by the salt's hash."""
        if not salt and len(name) <= self.max_length:
            return name
        suffix = "-" + stable_hash(salt or name)
        return name[:self.max_length - len(suffix)].rstrip("-_.") + suffix

    def allocate(self, namespace: str, wanted: str, owner: str) -> Allocation:
        """A name for `owner` in `namespace`, as close to `wanted` as the dialect and the other owners allow."""
        given = self._given.get((namespace, owner))
        if given is not None:
            return given
        name = self._fit(wanted)
        why = f"longer than {self.max_length} characters" if name != wanted else ""
        if self._fold(name) in {self._fold(r) for r in self.reserved}:
            name, why = self._fit(wanted, salt=owner), f"'{wanted}' is reserved in {self.dialect}"
        holder = self._held.get((namespace, self._fold(name)))
        if holder is not None and holder != owner:
            name, why = self._fit(wanted, salt=owner), f"'{name}' is already the name of {holder}"
            holder = self._held.get((namespace, self._fold(name)))
            if holder is not None and holder != owner:  # a hash collision: vanishingly rare, but never silent
                raise ValueError(f"{self.dialect}: cannot name {owner}: {name} is held by {holder}")
        self._held[(namespace, self._fold(name))] = owner
        result = Allocation(name, wanted, name != wanted, why)
        self._given[(namespace, owner)] = result
        return result

    def name(self, namespace: str, wanted: str, owner: str) -> str:
        return self.allocate(namespace, wanted, owner).name
