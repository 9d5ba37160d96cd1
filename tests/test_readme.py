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


def test_readme_shows_the_pytest_command_scripts_test_runs() -> None:
    """The README quotes the pytest command line of scripts/test (parallel since issue 25), and the test extras
    install the plugin that command line needs."""
    import tomllib

    script = (ROOT / "scripts" / "test").read_text()
    found = re.search(r'^exec python3 -m (pytest .*?) "\$@"$', script, re.MULTILINE)
    assert found, "scripts/test ends in: exec python3 -m pytest ... \"$@\""
    assert f"`{found.group(1)}`" in (ROOT / "README.md").read_text()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    if re.search(r"(^| )-n ", found.group(1)):
        assert any(re.match(r"pytest-xdist\b", spec) for spec in extras), extras
