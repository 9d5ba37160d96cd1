"""The README's promises: its policy reference is current and .ci/run runs its test command."""

from __future__ import annotations

import re
from pathlib import Path

from qosc.schema.reference import markdown

ROOT = Path(__file__).resolve().parent.parent


def test_policy_reference_matches_schema() -> None:
    text = (ROOT / "README.md").read_text()
    section = re.search(r"<!-- BEGIN POLICY REFERENCE -->\n(.*)<!-- END POLICY REFERENCE -->", text, re.DOTALL)
    assert section, "README lacks the generated policy reference"
    assert section.group(1) == markdown(), "run: python scripts/update-readme-reference"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test" in readme and "exec scripts/test" in ci
