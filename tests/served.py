"""What the browser tiers share: the checkout, the artifacts folder, Debian's chromium.

Importing this module skips the importing test module where chromium is missing
(outside CI; in CI it is an error: ``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing; .ci/run installs it with apt-get")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Page  # noqa: E402


def assert_accessible(page: Page, name: str, *, every: bool = False) -> None:
    """No serious or critical WCAG violation that axe-core finds on the page as drawn
    (``every``: none at all, moderate and minor included).

    The full report goes to test-artifacts/axe-NAME.json (every impact, for the record).
    """
    from axe_playwright_python.sync_playwright import Axe  # noqa: PLC0415

    violations = Axe().run(page).response["violations"]
    (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(violations, indent=1))
    blocking = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in violations
        if every or v["impact"] in {"serious", "critical"}
    ]
    assert not blocking, "\n".join(blocking)
