"""The site's pictures of the app are current: drawn again, each page still shows the
title and the headings its picture was taken with (``make screenshots`` draws them anew).

The script is the one ``make screenshots`` runs, on the app served as ``make run`` serves
it; the pictures go to a temporary folder, never over the ones in git.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# The browser tests' setup: chromium's path, and a module skip where it is missing.
from served import ARTIFACTS, ROOT

from devtools.screenshots import SHOTS, recorded

pytestmark = pytest.mark.browser


def test_every_picture_in_the_site_still_matches_its_page(tmp_path: Path) -> None:
    # The command `make screenshots` runs, in a process of its own so that a browser that
    # stops answering ends at the time limit with what it printed, not with the tier.
    drawn = subprocess.run(
        [sys.executable, "-m", "devtools.screenshots", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    (ARTIFACTS / "screenshots.log").write_text(drawn.stdout + drawn.stderr)
    assert drawn.returncode == 0, drawn.stderr[-3000:]
    now = recorded(tmp_path)
    kept = recorded()
    assert list(now) == [shot.name for shot in SHOTS]
    stale = [
        f"{name}: the picture shows {kept.get(name, {}).get('headings')}, the page now "
        f"{shot['headings']}"
        for name, shot in now.items()
        if kept.get(name, {}).get("title") != shot["title"]
        or kept.get(name, {}).get("headings") != shot["headings"]
    ]
    assert not stale, "run `make screenshots`:\n" + "\n".join(stale)
    for shot in SHOTS:
        assert (tmp_path / f"{shot.name}.png").stat().st_size > 10_000, shot.name
