"""Push compiled configuration to devices: `qosc push` and the library behind it.

The NAPALM-style contract (base.py) -- open, load, compare, commit with a
confirm timeout, verify, confirm, or discard / roll back -- implemented by:

- netconf.py  NETCONF (ncclient): the JUNOS RPC path or the RFC 6241 path, chosen
              from the server's capabilities; the junos target package gives it its
              text and XML forms (qosc/targets/junos/push/, yang/qosc-junos-qos.yang);
              ncsession.py logs in (keys before password) within a deadline and
              watches each request; ncsettle.py reads the outcome back from the
              device after a lost reply;
- ios.py      Cisco IOS (ios-mqc, catalyst6500) over SSH (netmiko), diffing the
              qosc-owned sections with ciscoconfparse2;
- linux.py    Linux tc locally or over SSH (the system ssh client).

runner.py compiles the policies into jobs, pushes them over N workers with
progress on stderr, and renders the per-device table and the JSON report.
credentials.py resolves how to log in (environment, SSH agent, ssh config --
never the policy) and keeps secrets out of every message.

Without --commit a push is a dry run: everything up to the device's diff, then
discard.  The push libraries (ncclient, netmiko, ciscoconfparse2) are the
`push` extra: pip install 'qosc[push]'.
"""
