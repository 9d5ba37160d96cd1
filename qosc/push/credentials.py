"""Where push finds how to log in: environment variables, the SSH agent, ssh config.  Never the policy.

Environment variables (DEVICE is the device name in upper case, every
character other than a letter or digit replaced by '_': de1.de -> DE1_DE):

    QOSC_USER, QOSC_USER_<DEVICE>                  login name
    QOSC_PASSWORD, QOSC_PASSWORD_<DEVICE>          password, tried after the SSH agent and keys
    QOSC_ENABLE_SECRET, QOSC_ENABLE_SECRET_<DEVICE>  IOS enable secret (default: the password)
    QOSC_PORT, QOSC_PORT_<DEVICE>                  port (default 830 for NETCONF, 22 for SSH)
    QOSC_SSH_KEY, QOSC_SSH_KEY_<DEVICE>            private key file
    QOSC_SSH_CONFIG                                ssh config file (default ~/.ssh/config)
    QOSC_KNOWN_HOSTS                               known_hosts file (default: ssh config's
                                                   UserKnownHostsFile, else ~/.ssh/known_hosts)

ssh config entries are looked up by device name, then by address: HostName,
Port, User, IdentityFile and UserKnownHostsFile are honoured.  An explicit
environment variable wins over ssh config.

Log-in order: the key file (QOSC_SSH_KEY or ssh config's IdentityFile), the
SSH agent, then the password (NETCONF also tries ~/.ssh's default keys when
no key file is named): a password in the environment never stops key
authentication.

Host keys are verified against known_hosts by default; a host that is not
there, or whose key differs, is refused.  `--insecure-lab-skip-hostkey`
turns that off for a lab, loudly, on every device it touches.

Secrets are held in objects whose repr hides them, and `redact()` scrubs
them from every message the push layer prints or writes.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from fnmatch import fnmatch

import paramiko

_SECRETS: set[str] = set()
_LOCK = threading.Lock()


class Secret:
    """A string that never shows itself in repr, str or f-strings by accident."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value
        if value:
            with _LOCK:
                _SECRETS.add(value)

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret(****)"

    __str__ = __repr__


def redact(text: str) -> str:
    """Replace every secret known to this process with ****."""
    with _LOCK:
        secrets = sorted(_SECRETS, key=len, reverse=True)
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, "****")
    return text


def env_key(device: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", device).upper()


def _env(name: str, device: str) -> str | None:
    value = os.environ.get(f"{name}_{env_key(device)}")
    if value is None:
        value = os.environ.get(name)
    return value if value not in (None, "") else None


@dataclass
class Credentials:
    device: str
    host: str
    port: int
    username: str | None
    password: Secret = field(default_factory=lambda: Secret(""))
    enable_secret: Secret = field(default_factory=lambda: Secret(""))
    key_file: str | None = None
    known_hosts: str | None = None
    verify_host_key: bool = True
    ssh_config: str | None = None
    sources: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"Credentials(device={self.device!r}, host={self.host!r}, port={self.port}, "
                f"username={self.username!r}, password={'set' if self.password else 'unset'})")

    def known_host_key(self) -> paramiko.PKey | None:
        """The known_hosts key for host:port, or None if the file has none (never trusts on first use)."""
        if not self.known_hosts or not os.path.exists(self.known_hosts):
            return None
        keys = paramiko.HostKeys()
        try:
            keys.load(self.known_hosts)
        except (OSError, paramiko.SSHException):
            return None
        names = [f"[{self.host}]:{self.port}"] if self.port != 22 else [self.host]
        for name in names:
            entry = keys.lookup(name)
            if entry:
                for kind in ("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "ssh-rsa"):
                    if kind in entry:
                        return entry[kind]
                return next(iter(entry.values()))
        return None

    def unknown_host_message(self) -> str:
        where = self.known_hosts or "~/.ssh/known_hosts"
        target = f"-p {self.port} {self.host}" if self.port != 22 else self.host
        return (f"host key of {self.host}:{self.port} is not in {where}; check the device's fingerprint and add it "
                f"(ssh-keyscan {target} >> {where}), or for a lab only use --insecure-lab-skip-hostkey")


def _ssh_config_path() -> str | None:
    path = os.environ.get("QOSC_SSH_CONFIG") or os.path.expanduser("~/.ssh/config")
    return path if os.path.exists(path) else None


def lookup(device: str, address: str | None, default_port: int, verify_host_key: bool = True) -> Credentials:
    """Resolve how to reach `device` (never reads the policy for secrets: only its address)."""
    sources = []
    config_path = _ssh_config_path()
    entry: dict = {}
    if config_path:
        cfg = paramiko.SSHConfig()
        with open(config_path, encoding="utf-8") as handle:
            cfg.parse(handle)
        for name in (device, address):
            if name and any(p != "*" and fnmatch(name, p) for p in cfg.get_hostnames()):
                entry = dict(cfg.lookup(name))
                sources.append(f"ssh config {config_path} (Host {name})")
                break
        else:
            entry = dict(cfg.lookup(address or device))
    # the policy's address wins; ssh config's HostName is used when the policy has none
    host = address or entry.get("hostname") or device
    port_text = _env("QOSC_PORT", device) or entry.get("port")
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        raise ValueError(f"QOSC_PORT for {device} is not a number") from None
    username = _env("QOSC_USER", device) or entry.get("user") or os.environ.get("USER") or None
    password = Secret(_env("QOSC_PASSWORD", device) or "")
    enable = Secret(_env("QOSC_ENABLE_SECRET", device) or password.reveal())
    key_file = _env("QOSC_SSH_KEY", device)
    if not key_file and entry.get("identityfile"):
        key_file = os.path.expanduser(entry["identityfile"][0])
    known = os.environ.get("QOSC_KNOWN_HOSTS")
    if not known and entry.get("userknownhostsfile"):
        known = os.path.expanduser(entry["userknownhostsfile"].split()[0])
    known = known or os.path.expanduser("~/.ssh/known_hosts")
    if password:
        sources.append("password from environment")
    if os.environ.get("SSH_AUTH_SOCK"):
        sources.append("SSH agent")
    return Credentials(device, host, port, username, password, enable, key_file, known, verify_host_key,
                       config_path, sources)
