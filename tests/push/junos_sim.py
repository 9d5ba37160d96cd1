"""A JUNOS NETCONF protocol simulator built on the PyPI `netconf` server library (which needs paramiko < 4).

It is a SIMULATOR, not JUNOS: it speaks NETCONF over SSH (password login),
advertises the JUNOS capability, and implements the JUNOS RPCs qosc uses with
JUNOS's semantics as documented, on a configuration kept as a statement tree:

- lock-configuration / unlock-configuration (exclusive; a session that ends
  while holding the lock loses its uncommitted changes, as on JUNOS);
- load-configuration action="replace|merge|override" format="text", and
  rollback="N"; `replace:` tags replace a hierarchy, the rest merges;
- get-configuration compare="rollback" rollback="N" (a diff, the device's own),
  database="candidate|committed" format="text", or format="xml" (JUNOS's default:
  `<configuration>`, elements unqualified, by the mapping of qosc's YANG module,
  which follows Juniper's) narrowed to the top-level hierarchies a
  `<configuration>` filter names;
- commit-configuration with check, confirmed + confirm-timeout (minutes; the
  simulator's `minute` compresses time for tests), log; a plain commit
  confirms; an unconfirmed commit is rolled back when the timeout expires;
- discard-changes.

`commit check` checks references (scheduler maps, schedulers, drop profiles,
policers, filters, classifiers, rewrite rules must be defined) and rejects any
line matching `reject` (to play a platform that lacks a statement).
Listening is on loopback only.
"""

from __future__ import annotations

import copy
import difflib
import errno
import re
import socket
import threading
import types

import sshutil.server
from lxml import etree
from netconf import error as ncerror
from netconf import server as ncserver

from qosc.targets.junos.push.text import JunosSyntaxError, Stmt, parse, serialise
from qosc.targets.junos.push.xml import to_xml

JUNOS_CAP = "http://xml.juniper.net/netconf/junos/1.0"


class _LoopbackSocket(socket.socket):
    """The library binds every interface (IPv6 first); keep the simulator on 127.0.0.1 only."""

    def __init__(self, family=socket.AF_INET, *args, **kwargs):
        if family == socket.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "simulator listens on IPv4 loopback only")
        super().__init__(family, *args, **kwargs)

    def bind(self, address):
        host, *rest = address
        return super().bind(("127.0.0.1" if host in ("", "0.0.0.0") else host, *rest))


def _merge(base: list[Stmt], new: list[Stmt], honour_tags: bool = True) -> list[Stmt]:
    out = [copy.deepcopy(s) for s in base]
    for st in new:
        idx = next((i for i, cur in enumerate(out) if cur.head() == st.head()), None)
        fresh = copy.deepcopy(st)
        fresh.tag = None
        if honour_tags and st.tag == "delete":
            if idx is not None:
                out.pop(idx)
            continue
        if idx is None:
            out.append(_strip(fresh))
        elif st.children is None or out[idx].children is None or (honour_tags and st.tag == "replace"):
            out[idx] = _strip(fresh)
        else:
            out[idx].children = _merge(out[idx].children or [], st.children, honour_tags)
    return out


def _strip(st: Stmt) -> Stmt:
    st.tag = None
    for c in st.children or []:
        _strip(c)
    return st


def _names(stmts: list[Stmt], *path: str) -> set[str]:
    out: set[str] = set()

    def walk(items: list[Stmt], depth: int) -> None:
        for st in items:
            if st.keyword != path[depth]:
                continue
            if depth == len(path) - 1:
                out.update(c.keyword for c in st.children or [])
            else:
                walk(st.children or [], depth + 1)

    walk(stmts, 0)
    return out


class JunosMethods:
    def __init__(self, sim: JunosSimulator):
        self.sim = sim

    def nc_append_capabilities(self, caps):
        for cap in (JUNOS_CAP, "urn:ietf:params:netconf:capability:candidate:1.0",
                    "urn:ietf:params:netconf:capability:confirmed-commit:1.0",
                    "urn:ietf:params:netconf:capability:validate:1.0"):
            etree.SubElement(caps, "capability").text = cap

    # locks ----------------------------------------------------------------------------------------
    def rpc_lock_configuration(self, session, rpc, *params):
        holder = session.server.lock_target(session, "candidate")
        if holder:
            raise ncerror.LockDeniedProtoError(rpc, holder)
        return etree.Element("ok")

    def rpc_unlock_configuration(self, session, rpc, *params):
        session.server.unlock_target(session, "candidate")
        return etree.Element("ok")

    def rpc_unlock(self, session, rpc, target):
        if rpc is None:  # the session ended while holding the lock: JUNOS discards its changes
            with self.sim.lock:
                self.sim.candidate = copy.deepcopy(self.sim.running)
                self.sim.events.append(("session-ended-with-lock", session.session_id))
        return etree.Element("ok")

    def _check_lock(self, session, rpc):
        holder = session.server.is_target_locked("candidate")
        if holder and holder != session.session_id:
            raise ncerror.LockDeniedProtoError(rpc, holder)

    # configuration --------------------------------------------------------------------------------
    def rpc_load_configuration(self, session, rpc, *params):
        el = rpc[0]
        self._check_lock(session, rpc)
        with self.sim.lock:
            if el.get("rollback") is not None:
                n = int(el.get("rollback"))
                if n >= len(self.sim.history):
                    raise ncerror.RPCSvrErrBadMsg(rpc, f"rollback {n} does not exist")
                self.sim.candidate = copy.deepcopy(self.sim.history[-1 - n])
                return etree.Element("ok")
            if el.get("format", "xml") != "text":
                raise ncerror.OperationNotSupportedProtoError(rpc)
            text = "".join(c.text or "" for c in el if etree.QName(c).localname == "configuration-text")
            try:
                new = parse(text)
            except JunosSyntaxError as exc:
                raise ncerror.RPCServerError(rpc, "protocol", "invalid-value", message=f"syntax error: {exc}") from exc
            action = el.get("action", "merge")
            if action == "override":
                self.sim.candidate = [_strip(copy.deepcopy(s)) for s in new]
            else:
                self.sim.candidate = _merge(self.sim.candidate, new, honour_tags=action == "replace")
            self.sim.events.append(("load", session.session_id))
        return etree.fromstring("<load-configuration-results><ok/></load-configuration-results>")

    def rpc_discard_changes(self, session, rpc, *params):
        self._check_lock(session, rpc)
        with self.sim.lock:
            self.sim.candidate = copy.deepcopy(self.sim.running)
        return etree.Element("ok")

    def rpc_get_configuration(self, session, rpc, *params):
        el = rpc[0]
        with self.sim.lock:
            if el.get("compare") == "rollback":
                n = int(el.get("rollback", "0"))
                old = serialise(self.sim.history[-1 - n]).splitlines(True)
                new = serialise(self.sim.candidate).splitlines(True)
                diff = "".join(difflib.unified_diff(old, new, f"rollback {n}", "candidate", n=2))
                out = etree.Element("configuration-information")
                etree.SubElement(out, "configuration-output").text = diff
                return out
            db = self.sim.running if el.get("database") == "committed" else self.sim.candidate
            if el.get("format", "xml") == "xml":
                return _as_xml(db, el.find("configuration"))
            out = etree.Element("configuration-text")
            out.text = serialise(db)
            return out

    def rpc_commit_configuration(self, session, rpc, *params):
        el = rpc[0]
        self._check_lock(session, rpc)
        opts = {etree.QName(c).localname: (c.text or "") for c in el}
        with self.sim.lock:
            problems = self.sim.check(self.sim.candidate)
            if problems:
                raise ncerror.RPCServerError(rpc, "application", "invalid-value",
                                             message="commit check failed: " + "; ".join(problems))
            if "check" in opts:
                return etree.fromstring("<commit-results><routing-engine><commit-check-success/>"
                                        "</routing-engine></commit-results>")
            self.sim.commit(confirm_minutes=int(opts.get("confirm-timeout") or 10) if "confirmed" in opts else 0)
            self.sim.events.append(("commit-confirmed" if "confirmed" in opts else "commit", session.session_id))
        return etree.fromstring("<commit-results><routing-engine><commit-success/></routing-engine>"
                                "</commit-results>")


class JunosSimulator:
    """Start with `start()`; `running`/`candidate` are statement trees; `running_text()` for checks."""

    def __init__(self, port: int, host_key: str, username: str, password: str, initial: str = "",
                 minute: float = 60.0, reject: str | None = None):
        self.port = port
        self.host_key = host_key
        self.username = username
        self.password = password
        self.minute = minute
        self.reject = re.compile(reject) if reject else None
        self.lock = threading.RLock()
        self.running: list[Stmt] = parse(initial) if initial else []
        self.candidate = copy.deepcopy(self.running)
        self.history: list[list[Stmt]] = [copy.deepcopy(self.running)]
        self.events: list[tuple] = []
        self.timer: threading.Timer | None = None
        self.server = None

    def start(self) -> JunosSimulator:
        ctl = ncserver.SSHUserPassController(username=self.username, password=self.password)
        saved = sshutil.server.socket
        sshutil.server.socket = types.SimpleNamespace(**{**vars(socket), "socket": _LoopbackSocket})
        try:
            self.server = ncserver.NetconfSSHServer(server_ctl=ctl, server_methods=JunosMethods(self),
                                                    port=self.port, host_key=self.host_key, debug=False)
        finally:
            sshutil.server.socket = saved
        return self

    def stop(self) -> None:
        if self.timer:
            self.timer.cancel()
        if self.server:
            self.server.close()

    def running_text(self) -> str:
        with self.lock:
            return serialise(self.running)

    def locked_by(self) -> int:
        return self.server.is_target_locked("candidate") if self.server else 0

    def commit(self, confirm_minutes: int = 0) -> None:
        if self.timer:  # any commit confirms a pending confirmed commit
            self.timer.cancel()
            self.timer = None
        before = copy.deepcopy(self.running)
        self.running = copy.deepcopy(self.candidate)
        self.history.append(copy.deepcopy(self.running))
        if confirm_minutes:
            self.timer = threading.Timer(confirm_minutes * self.minute, self._revert, args=(before,))
            self.timer.daemon = True
            self.timer.start()

    def _revert(self, before: list[Stmt]) -> None:
        with self.lock:
            self.running = before
            self.candidate = copy.deepcopy(before)
            self.history.append(copy.deepcopy(before))
            self.timer = None
            self.events.append(("confirm-timeout-rollback", 0))

    def check(self, config: list[Stmt]) -> list[str]:
        problems = []
        text = serialise(config)
        if self.reject:
            problems += [f"statement not supported on this platform: {line.strip()}"
                         for line in text.splitlines() if self.reject.search(line)]
        defined = {kind: _names(config, "class-of-service", section) for kind, section in
                   (("scheduler-map", "scheduler-maps"), ("scheduler", "schedulers"),
                    ("drop-profile", "drop-profiles"))}
        for st in _iter(config):
            words = [str(w) for w in st.words]
            for kind, names in defined.items():
                if st.children is None and kind in words[:-1]:
                    ref = words[words.index(kind) + 1]
                    if ref not in names:
                        problems.append(f"undefined {kind} {ref}")
        return problems


def _iter(stmts: list[Stmt]):
    for st in stmts:
        yield st
        yield from _iter(st.children or [])


def _as_xml(db: list[Stmt], wanted: etree._Element | None) -> etree._Element:
    """The configuration as JUNOS answers get-configuration in XML: `<configuration>`, unqualified elements,
    only the top-level hierarchies the filter names (all without one)."""
    names = {etree.QName(c).localname for c in wanted if isinstance(c.tag, str)} if wanted is not None else set()
    kept = [s for s in db if not names or s.keyword in names]
    conf = to_xml(serialise(kept), replace_owned=False)
    for e in conf.iter():
        if isinstance(e.tag, str):
            e.tag = etree.QName(e).localname
    etree.cleanup_namespaces(conf)
    return conf
