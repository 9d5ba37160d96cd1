"""The target contract: what a target is, what it says it supports, and how the pipeline drives it.

A target is one package, `qosc/targets/<name>/`, whose `__init__` defines
`TARGET`, an instance of a `Target` subclass that states:

- `name`, `description`, and its platforms: typed platform data
  (`platform_class`, loaded and validated from the package's
  `platforms/*.json` by qosc.targets.platform);
- `fields`: the policy fields it renders (schema paths, see qosc.fields).
  Any other target field set on something a device uses is reported by the
  core as QOS090 at the field's line; nothing is dropped without a word;
- `codes`: the diagnostic codes its lowering reports (qosc.codes.Code);
- `lower(policy, unit, platform)`: the statement trees (qosc.tree) of one
  device or host, and the capability diagnostics found on the way;
- `formats`: mechanical serializers of those trees, one per output file
  suffix; `grammar`: the dialect's grammar the trees are checked against
  before anything is serialized;
- `driver`: its push driver ("module:Class", imported only by push), and
  `driver_needs`: the modules of the `push` extra that driver imports (push
  checks them before it starts, see qosc.push.missing);
- `reader`: the module (`<package>.read`) whose `parse(text, source, platform)`
  and `interpret(document, platform)` read a configuration back into the same
  statement tree and then into vendor-neutral behaviour (qosc.behaviour), for
  `qosc import`, `verify` and `equiv`;
- `class_sizing(policy, device, iface, service)`: optional; the drain rate,
  queue limit and shaper burst (qosc.sizing.ClassSizing) the configuration
  gives the class carrying a service on an interface, so the SLS per-hop
  delay bound (qosc.sls.bounds) is computed from the numbers the target
  writes;
- `verify(outputs)`: an optional check on this machine (e.g. loading tc
  batches into a network namespace), run only when asked (`--verify`),
  whose findings are reported, never written into a file.

The core never imports a target by name: the registry finds the packages.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from qosc.behaviour.model import Device as Behaviour
from qosc.codes import Code
from qosc.diagnostics import Diagnostic, Location
from qosc.errors import TargetBug
from qosc.errors import TargetBug as SelfCheckError
from qosc.grammar import Grammar
from qosc.model import Device, Interface, Policy, Service
from qosc.sizing import ClassSizing, Unsized
from qosc.targets.platform import Platform, PlatformBase, load_platforms
from qosc.tree import Document, Origin, Rendered, locate

__all__ = ["Format", "Lowered", "Output", "Platform", "PlatformBase", "Renderer", "SelfCheckError", "Target",
           "TargetBug"]


@dataclass(frozen=True)
class Output:
    """One generated file: a path relative to the output directory, its text, and where its lines come from.

    `notes` say what an explicit verification found on this machine; they
    are reported, never written into the file, so the file is the same on
    every machine.  `origins` is the source map: the policy origin of each
    line (1-based line i -> origins[i-1]), empty for files without one.
    """

    path: str
    text: str
    notes: tuple[str, ...] = field(default=(), compare=False)
    origins: tuple[Origin | None, ...] = field(default=(), compare=False, repr=False)

    def origin(self, line: int) -> Location | None:
        if 1 <= line <= len(self.origins):
            return locate(self.origins[line - 1])
        return None

    def resolved(self) -> Output:
        """The same output with its source map looked up (safe to send to another process)."""
        return Output(self.path, self.text, self.notes, tuple(locate(o) for o in self.origins))


Renderer = Callable[[], list[Output]]


@dataclass(frozen=True)
class Format:
    """One output format of a dialect: the file suffix and the serializer that writes a document in it."""

    dialect: str
    suffix: str
    serialize: Callable[[Document], Rendered]


@dataclass
class Lowered:
    """What lowering one device or host gives: its statement trees and the diagnostics found on the way."""

    documents: list[Document] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    data: Any = None
    """Whatever else the target's render() needs (e.g. the plan its prose files are written from)."""


class Target(abc.ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    package: ClassVar[str]
    """The target's package (its platforms/ and templates/ live there)."""
    platform_class: ClassVar[type[PlatformBase]] = Platform
    serves: ClassVar[str] = "devices"
    """'devices' (policy.devices, by platform) or 'hosts' (policy.hosts, by Host.target_platform)."""
    fields: ClassVar[frozenset[str]] = frozenset()
    codes: ClassVar[tuple[Code, ...]] = ()
    formats: ClassVar[tuple[Format, ...]] = ()
    """Serializers, by document dialect: every document is written in each format of its dialect."""
    grammars: ClassVar[tuple[Grammar, ...]] = ()
    """The grammar of each dialect the target lowers to; every document is checked by its dialect's."""
    driver: ClassVar[str | None] = None
    driver_needs: ClassVar[tuple[str, ...]] = ()
    """Modules of the `push` extra the driver imports (besides what every push needs: qosc.push.NEEDED)."""
    default_port: ClassVar[int] = 22

    @cached_property
    def platform_data(self) -> Mapping[str, PlatformBase]:
        return load_platforms(self.platform_class, self.package)

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(self.platform_data)

    def grammars_for(self, unit: Any) -> tuple[Grammar, ...]:
        """The grammars a unit's documents are checked by (default: the target's; a target whose platforms accept
        different values overrides it)."""
        return self.grammars

    def supports(self, field_path: str, platform: PlatformBase) -> bool:
        """Whether the target renders a policy field on this platform (default: it is in `fields`)."""
        return field_path in self.fields

    def queues(self, platform: Platform, interface: Interface) -> int:
        """Queues available on an interface (the generic QOS091 check); a target with port types overrides it."""
        return platform.queues

    @abc.abstractmethod
    def lower(self, policy: Policy, unit: Any, platform: PlatformBase) -> Lowered:
        """The statement trees of one device (or host) and the capability diagnostics of its lowering."""

    def render(self, lowered: Lowered) -> list[Output]:
        """Every file of a lowering: each document in each format (a target with prose files adds them)."""
        out = []
        for doc in lowered.documents:
            for fmt in (f for f in self.formats if f.dialect == doc.dialect):
                rendered = fmt.serialize(doc)
                out.append(Output(doc.stem + fmt.suffix, rendered.text, origins=rendered.origins))
        return out

    reader: ClassVar[str | None] = None
    """The module that reads this target's configurations back (by convention `<package>.read`): it
    defines READS (formats), parse, interpret and sniff; imported only when something is read, so
    compiling never loads it.  None: the target cannot read back."""

    def _reader(self) -> Any:
        return importlib.import_module(self.reader) if self.reader else None

    @property
    def reads(self) -> tuple[str, ...]:
        """The configuration formats `parse` reads (e.g. 'conf', 'set'); empty: the target cannot read back."""
        module = self._reader()
        return tuple(module.READS) if module is not None else ()

    def parse(self, text: str, source: str, platform: PlatformBase, fmt: str | None = None) -> Document:
        """A configuration (as the device shows it) as a statement tree; origins are `source`:line:column.

        Statements outside what qosc owns are kept as they are (words, children,
        origin) so nothing is lost; raises InputError with located diagnostics
        on text the dialect cannot be read as.
        """
        module = self._reader()
        if module is None:
            raise NotImplementedError(f"target {self.name} cannot read configurations back")
        document: Document = module.parse(text, source, platform, fmt)
        return document

    def interpret(self, document: Document, platform: PlatformBase) -> tuple[Behaviour, list[Diagnostic]]:
        """What a configuration does (qosc.behaviour), and the problems found on the way (dangling
        references, overlapping classifiers, statements the policy language cannot represent), located
        at the configuration's lines."""
        module = self._reader()
        if module is None:
            raise NotImplementedError(f"target {self.name} cannot read configurations back")
        found: tuple[Behaviour, list[Diagnostic]] = module.interpret(document, platform)
        return found

    def sniff(self, text: str) -> str | None:
        """The format of a configuration text if it is this target's (for import without --platform)."""
        module = self._reader()
        fmt: str | None = module.sniff(text) if module is not None else None
        return fmt

    def shown(self, output: Output) -> str | None:
        """What a device shows for one compiled output, for reading it back like the device's own configuration
        (verify's baseline: the policy's own compile).  By default the output itself when this target reads it,
        None for outputs that are not configurations (wrapper scripts).  A target whose devices show something
        else than what qosc writes (Linux shows a kernel's tc dump, not the batch) loads it on this machine, and
        raises VerificationUnavailable when it cannot."""
        return output.text if self.sniff(output.text) is not None else None

    def class_sizing(self, policy: Policy, device: Device, iface: Interface,
                     service: Service) -> ClassSizing | Unsized | None:
        """How the configuration sizes the class carrying `service` on `iface` of `device` (qosc.sizing).

        A ClassSizing holds the numbers the target writes into the configuration (drain rate, queue
        limit, shaper or policer burst, frame and link rate), computed by the same function the lowering
        uses, so the SLS per-hop delay bound of this hop (qosc.sizing.delay_bound) is the configuration's.
        Unsized(reason): the target knows it cannot size the class from documented facts; the SLS keeps
        the generic (b + MTU) x 8 / C and says why.  None (the default): the target does not size its
        classes, and the generic formula applies.
        """
        return None

    def verify(self, outputs: Sequence[Output]) -> list[Output]:
        """Checks that depend on this machine, run only on request: the outputs with what was found as notes."""
        return list(outputs)
