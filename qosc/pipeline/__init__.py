"""The one pipeline every command runs: load, schema, build, check, lower, grammar, serialize.

    policy.yaml -> load -> schema -> build (model) -> checks -> for each (target, device):
        capability (QOS090) + lower (statement trees, target diagnostics) -> grammar (QOS199) -> serialize

validate, compile, diff, push and sls all go through here, so a policy gets
the same diagnostics from each of them, and the compile-selection errors
(QOS101 unknown target, QOS102 device not compiled, QOS103 one device or
file from two policies) are made in one place, qosc.pipeline.selection.
Compiling is pure: nothing here depends on the machine; checks that do
(`Target.verify`) run only on request and report QOS104 notes.

Stages, one module each: validation (load, schema, build, checks), units
(capability, lower, grammar, serialize of one device and target), batch
(many units on several processes), sharing (devices of the same lowering
input lowered once), selection (QOS101-QOS104), and orchestrate, the one
orchestrator every command and the library API call (with the incremental
cache plugged in as a memo of its stages); compiled is its in-memory form
(API, diff, push).
"""

from __future__ import annotations

from qosc.pipeline.batch import Unit, UnitResult, process
from qosc.pipeline.compiled import compile_policies
from qosc.pipeline.orchestrate import Compiled, CompiledUnit, Memo, PolicyRun, Sink, run
from qosc.pipeline.selection import duplicate, missing_devices, note_diagnostics, unknown_targets
from qosc.pipeline.units import all_units, capability, lower, render, render_outputs, select, target_checks
from qosc.pipeline.validation import Result, load_tree, validate, validate_stages

__all__ = ["Compiled", "CompiledUnit", "Memo", "PolicyRun", "Result", "Sink", "Unit", "UnitResult", "all_units",
           "capability", "compile_policies", "duplicate", "load_tree", "lower", "missing_devices", "note_diagnostics",
           "process", "render", "render_outputs", "run", "select", "target_checks", "unknown_targets", "validate",
           "validate_stages"]
