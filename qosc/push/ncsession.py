"""NETCONF sessions for the push driver: log-in in the right order, within a deadline, and watched while a
request waits.

- login: the key file, the SSH agent and ~/.ssh's keys first, then the password
  (a password in the environment never stops key authentication); the host
  key checked against known_hosts unless the lab flag says otherwise;
- connect: login within `timeout` seconds whatever the peer does (a peer that
  accepts TCP and then says nothing cannot hold a push);
- watch: while a request waits for its reply, an SSH keepalive every quarter of
  the request deadline must be answered within the next quarter; the SSH
  server answers even while the device works on a long commit, so only a dead
  path goes unanswered: the transport is closed and the request fails at once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from qosc.push.base import PushError
from qosc.push.credentials import Credentials, redact


def login(c: Credentials, rpc_timeout: float, timeout: float) -> Any:
    """One NETCONF session (an ncclient Manager): keys and agent first, then the password."""
    from ncclient import manager
    from ncclient.transport.errors import AuthenticationError
    key = c.known_host_key() if c.verify_host_key else None
    common = {"host": c.host, "port": c.port, "username": c.username, "hostkey_verify": c.verify_host_key,
              "hostkey_b64": key.get_base64() if key else None, "timeout": timeout,
              "manager_params": {"timeout": rpc_timeout}}
    try:
        return manager.connect(**common, password=None, key_filename=c.key_file, allow_agent=True,
                               look_for_keys=c.key_file is None)
    except AuthenticationError:
        if not c.password:
            raise
    # keys and agent refused: the password (also the passphrase of an encrypted key file)
    return manager.connect(**common, password=c.password.reveal(), key_filename=c.key_file, allow_agent=False,
                           look_for_keys=False)


def connect(c: Credentials, rpc_timeout: float, timeout: float) -> Any:
    """login() within `timeout` seconds (PushError at stage "open" otherwise)."""
    box: dict[str, Any] = {}
    done, guard = threading.Event(), threading.Lock()

    def attempt() -> None:
        try:
            box["m"] = login(c, rpc_timeout, timeout)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
            box["exc"] = exc
        with guard:
            done.set()
            if box.get("abandoned") and "m" in box:
                with contextlib.suppress(Exception):  # came too late: nobody uses it
                    box["m"].close_session()

    threading.Thread(target=attempt, name="qosc-netconf-connect", daemon=True).start()
    done.wait(timeout + 1)
    with guard:
        if not done.is_set():
            box["abandoned"] = True
            raise PushError("open", f"cannot open NETCONF session to {c.host}:{c.port}: no session within "
                            f"{timeout:g} s")
    if "exc" in box:
        exc = box["exc"]
        raise PushError("open", f"cannot open NETCONF session to {c.host}:{c.port}: "
                        f"{redact(str(exc) or type(exc).__name__)}")
    return box["m"]


def watch(m: Any, rpc_timeout: float, done: threading.Event, silent: list[float]) -> None:
    """Run beside one request until `done`: on a dead path, close the transport and record how long the device
    was silent in `silent` (a dead session is known within half the deadline; a slow device keeps all of it)."""
    transport = getattr(getattr(m, "_session", None), "_transport", None)
    if transport is None:
        return
    quarter = rpc_timeout / 4
    start = time.monotonic()
    while not done.wait(quarter):
        answered = threading.Event()
        threading.Thread(target=_probe, args=(transport, answered), name="qosc-netconf-probe", daemon=True).start()
        if not answered.wait(quarter) and not done.is_set():
            silent.append(time.monotonic() - start)
            with contextlib.suppress(Exception):  # the session's reader fails: the request fails with it
                transport.close()
            return


def _probe(transport: Any, answered: threading.Event) -> None:
    """An SSH keepalive that wants a reply (any reply, success or failure, is a sign of life)."""
    with contextlib.suppress(Exception):  # a transport closed meanwhile: the request fails on its own
        transport.global_request("keepalive@openssh.com", wait=True)
    answered.set()
