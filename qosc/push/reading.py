"""Read running configurations through the push drivers, read-only (qosc verify --from-device)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from qosc.diagnostics import Diagnostic, error
from qosc.push import require
from qosc.push.base import PushError
from qosc.push.credentials import redact
from qosc.push.runner import Options, driver_for, plan


def running_configs(policy: str, devices: Sequence[str], skip_hostkey: bool = False
                    ) -> tuple[dict[str, str], list[Diagnostic]]:
    """Device name -> running configuration text (what the driver reads), and the problems met (QOS102, ...).

    Raises qosc.push.NotInstalled when a device's driver needs a module of the push extra that is missing."""
    jobs, diagnostics = plan([policy], devices)
    require("verify", jobs)
    texts: dict[str, str] = {}
    options = Options(insecure_skip_hostkey=skip_hostkey, progress=False)
    for job in jobs:
        driver = driver_for(job, options)
        try:
            texts[job.device] = driver.running_config()
        except (PushError, NotImplementedError, OSError) as exc:
            diagnostics.append(error("QOS170", f"cannot read the running configuration of {job.device}: "
                                     f"{redact(str(exc))}", None))
        finally:
            with contextlib.suppress(Exception):  # a close after a failed read has nothing more to say
                driver.close()
    return texts, diagnostics
