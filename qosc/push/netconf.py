"""JUNOS over NETCONF (ncclient): the JUNOS RPC path or the RFC 6241 path, chosen from the server's capabilities.

JUNOS RPC path (the server advertises http://xml.juniper.net/netconf/junos/1.0):
    lock-configuration; load-configuration action="replace" format="text" with the
    owned hierarchies tagged `replace:`; get-configuration compare="rollback" (the
    device's own diff); commit-configuration check; commit-configuration confirmed
    (JUNOS counts the timeout in minutes: rounded up); get-configuration of the
    committed database to verify; commit-configuration to confirm;
    discard-changes and unlock-configuration on any error; a commit that failed
    verification is undone with load-configuration rollback="1" and a commit.

RFC 6241 path (:candidate and :confirmed-commit): lock candidate; edit-config of
the target's YANG module (the dialect's `yang`; owned hierarchies
operation="replace", interface attachments merged); the diff of candidate
against running as the server reports them (shown as JUNOS text); validate (:validate); commit
confirmed with the timeout in seconds; get-config running to verify; commit
to confirm; discard-changes and unlock on any error; cancel-commit
(:confirmed-commit:1.1) to undo.  The server itself reverts a confirmed
commit that is never confirmed.  With :confirmed-commit:1.1 the commit is
made with a `persist` token, so that another session can confirm or cancel it.

Every request has a deadline (Options.rpc_timeout, 10 s by default), and a
dead path is found sooner (ncsession.watch); after a lost reply the outcome is
read back from the device (ncsettle).
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import math
import secrets
import threading
from typing import Any, ClassVar, Protocol

from lxml import etree

from qosc.push import ncsession, ncsettle
from qosc.push.base import Driver, PushError
from qosc.push.credentials import redact

JUNOS_CAP = "http://xml.juniper.net/netconf/junos/1.0"
BASE = "urn:ietf:params:netconf:"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"


def _el(tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    el = etree.Element(tag, {k.replace("_", "-"): v for k, v in attrs.items()})
    if text is not None:
        el.text = text
    return el


def _child(parent: etree._Element, tag: str, text: str | None = None) -> etree._Element:
    el = etree.SubElement(parent, tag)
    if text is not None:
        el.text = text
    return el


def _find_text(reply_xml: str, local: str) -> str:
    root = etree.fromstring(reply_xml.encode())
    for el in root.iter():
        if isinstance(el.tag, str) and etree.QName(el).localname == local:
            return el.text or ""
    return ""


class Dialect(Protocol):
    """What the driver needs of the configuration dialect (the target package provides it)."""

    namespace: str
    """The XML namespace of the YANG module the RFC 6241 path edits."""
    yang: str
    """Where that YANG module is (for the message when a server lacks it)."""
    errors: tuple[type[Exception], ...]
    """The exceptions a conversion raises on text it cannot convert."""

    def for_load(self, text: str) -> str: ...
    def to_xml(self, text: str) -> Any: ...
    def to_text(self, config: Any) -> str: ...
    def owned(self, text: str) -> str: ...
    owned_hierarchies: tuple[str, ...]
    """The top-level hierarchies qosc owns (what running_config reads)."""


class NetconfDriver(Driver):
    """JUNOS devices over NETCONF; a target package subclasses it with its `dialect`."""

    dialect: ClassVar[Dialect]
    reads_back = True

    def __init__(self, job, credentials, options):
        super().__init__(job, credentials, options)
        self.m = None
        self.junos = False
        self.locked = False
        self.caps: set[str] = set()
        self.staged = ""
        self.payload: object = None
        self.candidate = ""
        self.snapshot: dict[str, etree._Element | None] = {}
        self.session_id = ""
        self.persist = ""

    # -- plumbing -------------------------------------------------------------------------------------

    def _call(self, stage: str, fn, *args, **kwargs):
        """Every request goes through here: one place for error handling (and for fault-injection tests)."""
        from ncclient.operations.errors import TimeoutExpiredError
        from ncclient.operations.rpc import RPCError
        from ncclient.transport.errors import TransportError
        done = threading.Event()
        silent: list[float] = []
        threading.Thread(target=ncsession.watch, args=(self.m, self.options.rpc_timeout, done, silent),
                         name="qosc-netconf-watch", daemon=True).start()
        try:
            return fn(*args, **kwargs)
        except RPCError as exc:
            detail = exc.message or str(exc)
            path = f" at {exc.path}" if getattr(exc, "path", None) else ""
            raise PushError(stage, f"device rejected {stage}: {redact(detail.strip())}{path}") from None
        except TimeoutExpiredError:
            self._lose(stage)
            raise PushError(stage, f"no reply to {stage} within {self.options.rpc_timeout:g} s: session declared "
                            "dead") from None
        except (TransportError, OSError, EOFError) as exc:
            self._lose(stage)
            if silent:
                raise PushError(stage, f"no reply to {stage} and no sign of life from the device for "
                                f"{silent[0]:.1f} s (SSH keepalive unanswered): session declared dead") from None
            raise PushError(stage, f"connection lost during {stage}: {redact(str(exc) or type(exc).__name__)}") \
                from None
        finally:
            done.set()

    def _lose(self, stage: str) -> None:
        """The session is dead: remember where, and close its transport (its lock dies with it on the device)."""
        self.lost = stage
        self.locked = False
        session = getattr(self.m, "_session", None)
        if session is not None:
            with contextlib.suppress(Exception):  # the transport may be half gone already
                session.close()

    def _rpc(self, stage: str, element: etree._Element) -> str:
        return self._call(stage, lambda: self.m.rpc(element)).xml

    # -- contract ---------------------------------------------------------------------------------------

    def _connect(self) -> None:
        from ncclient.operations import RaiseMode
        c = self.credentials
        if c.verify_host_key and c.known_host_key() is None:
            raise PushError("open", c.unknown_host_message())
        self.m = ncsession.connect(c, self.options.rpc_timeout, self.options.connect_timeout)
        self.session_id = str(self.m.session_id or "")
        self.m.raise_mode = RaiseMode.ERRORS
        self.caps = set(self.m.server_capabilities)
        self.junos = any(cap.startswith(JUNOS_CAP) for cap in self.caps)

    def open(self) -> None:
        self._connect()
        if self.junos:
            self.method = "netconf-junos"
            self._rpc("lock", _el("lock-configuration"))
        else:
            if not self._cap("candidate") or not (self._cap("confirmed-commit")):
                raise PushError("open", "server offers neither the JUNOS RPCs nor :candidate with "
                                ":confirmed-commit; qosc will not push without a revertible commit")
            if not any(self.dialect.namespace in cap for cap in self.caps):
                raise PushError("open", f"server does not implement the qosc YANG module ({self.dialect.namespace}); "
                                f"load {self.dialect.yang} into it")
            self.method = "netconf-rfc6241"
            if f"{BASE}capability:confirmed-commit:1.1" in self.caps:
                self.persist = secrets.token_hex(16)  # lets a new session confirm or cancel after a loss
            self._call("lock", self.m.lock, target="candidate")
        self.locked = True

    def _cap(self, name: str) -> bool:
        prefix = f"{BASE}capability:{name}:"
        return any(cap.startswith(prefix) for cap in self.caps)

    def load(self) -> None:
        conf = self.job.file(".conf")
        if conf is None:
            raise PushError("load", f"no .conf file generated for {self.job.device}")
        try:
            if self.junos:
                self.staged = self.dialect.for_load(conf.text)
            else:
                self.payload = self.dialect.to_xml(conf.text)
        except self.dialect.errors as exc:
            raise PushError("load", f"generated configuration cannot be loaded: {exc}") from None
        if self.junos:
            rpc = _el("load-configuration", action="replace", format="text")
            _child(rpc, "configuration-text", self.staged)
            self._rpc("load", rpc)
        else:
            config = etree.Element(f"{{{NC}}}config", nsmap={"nc": NC})
            config.append(self.payload)
            kwargs = {"error_option": "rollback-on-error"} if self._cap("rollback-on-error") else {}
            self._call("load", self.m.edit_config, target="candidate", config=config, default_operation="merge",
                       **kwargs)

    def _get(self, source: str, stage: str) -> str:
        """The owned configuration of a datastore, as text for diffs and comparisons."""
        if self.junos:
            rpc = _el("get-configuration", database="committed" if source == "running" else "candidate",
                      format="text")
            text = _find_text(self._rpc(stage, rpc), "configuration-text")
            try:
                return self.dialect.owned(text)
            except self.dialect.errors:
                return text
        reply = self._call(stage, self.m.get_config, source=source,
                           filter=("subtree", f'<configuration xmlns="{self.dialect.namespace}"/>'))
        root = etree.fromstring(etree.tostring(reply.data_ele), etree.XMLParser(remove_blank_text=True))
        conf = root.find(f"{{{self.dialect.namespace}}}configuration")
        if conf is None or len(conf) == 0:
            self.snapshot[source] = None
            return ""
        clean = etree.fromstring(etree.tostring(conf))  # a standalone copy: only the namespaces it uses
        etree.cleanup_namespaces(clean, top_nsmap={None: self.dialect.namespace})
        self.snapshot[source] = clean
        return etree.tostring(clean, pretty_print=True, encoding="unicode")

    def running_config(self) -> str:
        """The committed configuration of the owned hierarchies as the device's XML reply (no lock, no change):
        the JUNOS RPC path asks get-configuration in XML, JUNOS's own format, the RFC 6241 path get-config of
        running filtered to the dialect's module.  The reply is re-indented one element a line, so the
        reader's origins are lines of the reply as qosc shows it.  A JUNOS device that answers in text (the
        `format` attribute ignored) is read as text."""
        self._connect()
        if self.junos:
            rpc = _el("get-configuration", database="committed", format="xml")
            wanted = _child(rpc, "configuration")
            for name in self.dialect.owned_hierarchies:
                _child(wanted, name)
            reply = self._rpc("read", rpc)
        else:
            reply = self._call("read", self.m.get_config, source="running",
                               filter=("subtree", f'<configuration xmlns="{self.dialect.namespace}"/>')).xml
        root = etree.fromstring(reply.encode(), etree.XMLParser(remove_blank_text=True, resolve_entities=False,
                                                                no_network=True))
        text = next((el.text or "" for el in root.iter() if isinstance(el.tag, str)
                     and etree.QName(el).localname == "configuration-text"), None)
        if text is not None:
            return self.dialect.owned(text)
        return etree.tostring(root, pretty_print=True, encoding="unicode")

    def compare(self) -> str:
        if self.junos:
            rpc = _el("get-configuration", compare="rollback", rollback="0", format="text")
            out = _find_text(self._rpc("compare", rpc), "configuration-output")
            return out.strip("\n") + "\n" if out.strip() else ""
        running = self._get("running", "compare")
        self.candidate = self._get("candidate", "compare")
        if running == self.candidate:
            return ""
        # read as JUNOS text
        old, new = self.dialect.to_text(self.snapshot["running"]), self.dialect.to_text(self.snapshot["candidate"])
        return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                            f"{self.job.device} running", f"{self.job.device} candidate"))

    def commit(self, confirm_timeout: int) -> None:
        self.candidate = self._get("candidate", "commit check")
        if self.junos:
            check = _el("commit-configuration")
            _child(check, "check")
            self._rpc("commit check", check)
            minutes = max(1, math.ceil(confirm_timeout / 60))
            if minutes * 60 != confirm_timeout:
                self.notes.append(f"JUNOS counts the confirm timeout in minutes: {minutes} min")
            rpc = _el("commit-configuration")
            _child(rpc, "confirmed")
            _child(rpc, "confirm-timeout", str(minutes))
            _child(rpc, "log", f"qosc push {self.job.policy}".strip())
            self._rpc("commit", rpc)
        else:
            if f"{BASE}capability:validate:1.1" in self.caps and self.snapshot.get("candidate") is not None:
                # :validate:1.1 checks the candidate's content given inline.  (netconfd 2.13 loses pending
                # candidate edits at commit after <validate><source><candidate/>; inline is equivalent.)
                source = etree.Element(f"{{{NC}}}config", nsmap={"nc": NC})
                source.append(copy.deepcopy(self.snapshot["candidate"]))
                self._call("commit check", self.m.validate, source=source)
            elif self._cap("validate"):
                self._call("commit check", self.m.validate, source="candidate")
            self._call("commit", self.m.commit, confirmed=True, timeout=str(confirm_timeout),
                       persist=self.persist or None)

    def verify(self) -> None:
        running = self._get("running", "verify")
        if running != self.candidate:
            diff = list(difflib.unified_diff(self.candidate.splitlines(), running.splitlines(), "loaded",
                                             "committed", n=0, lineterm=""))
            self.notes.append("verify diff: " + " | ".join(diff[2:12]))
            raise PushError("verify", f"committed configuration differs from what was loaded "
                            f"({sum(1 for d in diff[2:] if d[:1] in '+-')} lines)")

    def confirm(self) -> None:
        if self.junos:
            self._rpc("confirm", _el("commit-configuration"))
        else:
            self._call("confirm", self.m.commit, persist_id=self.persist or None)

    def discard(self) -> None:
        if self.m is None or not self.m.connected:
            return
        if self.junos:
            self._rpc("discard", _el("discard-changes"))
        else:
            self._call("discard", self.m.discard_changes)

    def rollback(self) -> None:
        if self.m is None or not self.m.connected:
            self.notes.append("session lost after the confirmed commit: the device reverts it when the confirm "
                              "timeout expires" + ("" if self.junos else " or at once, as the session ended"))
            return
        if self.junos:
            self._rpc("rollback", _el("load-configuration", rollback="1"))
            self._rpc("rollback", _el("commit-configuration"))
        elif self._cap("confirmed-commit") and f"{BASE}capability:confirmed-commit:1.1" in self.caps:
            self._call("rollback", self.m.cancel_commit, persist_id=self.persist or None)
        else:
            self.m.close_session()  # RFC 6241 8.4.1: the session ending reverts an unconfirmed commit

    def settle(self, stage: str) -> str:
        return ncsettle.settle(self, stage)

    def close(self) -> None:
        if self.m is None:
            return
        try:
            if self.locked and self.m.connected:
                if self.junos:
                    self._rpc("unlock", _el("unlock-configuration"))
                else:
                    self._call("unlock", self.m.unlock, target="candidate")
            self.locked = False
        finally:
            if self.m.connected:
                with contextlib.suppress(Exception):  # closing is best effort: the session may be gone already
                    self.m.close_session()
