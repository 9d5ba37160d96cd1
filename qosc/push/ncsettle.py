"""The outcome of a NETCONF push after a lost reply, read back from the device (NetconfDriver.settle).

When a request gets no reply (connection cut, deadline passed: the driver's
`lost`), what the device did is not known from the client side.  settle():

1. opens a new session (within the request deadline) and kills the lost one
   with `kill-session`: its lock goes with it, even on a device that still
   thinks it alive (a blackholed path);
2. if the confirm's reply was lost, confirms whatever confirmed commit is still
   pending: `commit` with the persist-id qosc gave the confirmed commit
   (:confirmed-commit:1.1), a plain commit on JUNOS (which confirms one);
   for any other stage (the commit, its verification, a rollback) undoes it:
   `cancel-commit` with the persist-id, `rollback 1` and a commit on JUNOS;
3. reads the running configuration: it holds the change (COMMITTED) or not
   (ROLLED_BACK when a commit is known to have taken effect, NOT_COMMITTED
   otherwise).  A device that cannot be reached in time is UNKNOWN, never
   "rolled back".
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

from lxml import etree

from qosc.push import ncsession
from qosc.push.base import COMMITTED, NOT_COMMITTED, ROLLED_BACK, UNKNOWN, PushError


class NetconfDriver(Protocol):
    """What settling needs of qosc.push.netconf.NetconfDriver (which calls it; so this module does not import it)."""

    m: Any
    options: Any
    credentials: Any
    notes: list[str]
    lost: str
    locked: bool
    junos: bool
    candidate: str
    session_id: str
    persist: str

    def _call(self, stage: str, fn: Any, *args: Any, **kwargs: Any) -> Any: ...

    def _rpc(self, stage: str, element: etree._Element) -> str: ...

    def _get(self, source: str, stage: str) -> str: ...

# the stages at which a commit may have reached the device
COMMIT_STAGES = ("commit", "verify", "confirm", "rollback")


def settle(d: NetconfDriver, stage: str) -> str:
    """The device's state after a failure at `stage`, one of the outcomes of qosc.push.base."""
    sent = stage in COMMIT_STAGES
    acted = False
    for attempt in (1, 2):
        if d.lost:
            try:
                _reconnect(d, kill=attempt == 1)
            except PushError as exc:
                d.notes.append(f"{exc}; the device's state could not be read" +
                               ("" if sent else " (nothing was committed); it may keep the lost session's lock "
                                "until it notices the session ended"))
                return UNKNOWN if sent else NOT_COMMITTED
        if not sent:
            return NOT_COMMITTED
        try:
            acted = (_finish(d) if stage == "confirm" else _undo(d)) or acted
            holds = _holds(d)
        except PushError:
            if not d.lost or attempt == 2:
                raise
            continue  # the new session died too (some servers end the wrong session on kill-session)
        if holds:
            return COMMITTED
        return ROLLED_BACK if acted or stage != "commit" else NOT_COMMITTED
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _reconnect(d: NetconfDriver, kill: bool) -> None:
    """A new session (within the request deadline), and the lost one killed."""
    from ncclient.operations import RaiseMode
    lost, old = d.lost, d.session_id
    d.m = ncsession.connect(d.credentials, d.options.rpc_timeout,
                            min(d.options.connect_timeout, d.options.rpc_timeout))
    d.m.raise_mode = RaiseMode.ERRORS
    d.session_id, d.lost = str(d.m.session_id or ""), ""
    d.notes.append(f"session lost at {lost}: reconnected to read the device's state")
    if kill and old and old != d.session_id:
        with contextlib.suppress(PushError):  # the device may have ended it already
            d._call("settle", d.m.kill_session, old)


def _holds(d: NetconfDriver) -> bool:
    """The running configuration holds the change (what qosc owns equals the candidate it committed)."""
    return d._get("running", "settle") == d.candidate


def _junos(d: NetconfDriver, *requests: etree._Element) -> None:
    d._rpc("settle", etree.Element("lock-configuration"))
    d.locked = True
    for request in requests:
        d._rpc("settle", request)


def _finish(d: NetconfDriver) -> bool:
    """The confirm's reply was lost: confirm whatever confirmed commit is still pending.  True if one was."""
    if d.junos:
        if not _holds(d):
            return False
        _junos(d, etree.Element("commit-configuration"))  # a plain commit confirms a pending one on JUNOS
        return True
    if not d.persist:
        return False  # a session-bound confirmed commit: the lost session's end reverted it, or it was confirmed
    try:
        d._call("settle", d.m.commit, persist_id=d.persist)
    except PushError as exc:
        if d.lost:
            raise
        d.notes.append(f"no confirmed commit pending any more ({exc})")
        return False
    return True


def _undo(d: NetconfDriver) -> bool:
    """A commit may be pending, never confirmed: undo it.  True if one was undone."""
    if d.junos:
        if not _holds(d):
            return False
        _junos(d, etree.Element("load-configuration", rollback="1"), etree.Element("commit-configuration"))
        return True
    if not d.persist:
        return False  # the lost session's end made the server revert it (RFC 6241 8.4.1)
    try:
        d._call("settle", d.m.cancel_commit, persist_id=d.persist)
    except PushError:
        if d.lost:
            raise
        return False  # nothing pending: never committed, or already cancelled
    return True
