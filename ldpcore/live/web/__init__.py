"""The browser side of the live class: JavaScript sources shipped with the package.

The randomizer (``randomizer.js``) is the code that runs in a student's browser; the
answer form (``answer_form.js``) is the Streamlit component around it. Both are read
from the package, so the tests load exactly the file the app serves.
"""

from __future__ import annotations

from importlib import resources


def randomizer_source() -> str:
    """The randomizer's JavaScript (plain functions; no module syntax)."""
    return resources.files(__package__).joinpath("randomizer.js").read_text(encoding="utf-8")


def answer_form_source() -> str:
    """The answer form component's JavaScript module: the randomizer, then the form."""
    form = resources.files(__package__).joinpath("answer_form.js").read_text(encoding="utf-8")
    return randomizer_source() + "\n" + form


__all__ = ["answer_form_source", "randomizer_source"]
