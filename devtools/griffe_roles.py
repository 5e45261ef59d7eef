"""A griffe extension for the API reference: Sphinx roles in docstrings as code.

The docstrings cross-reference with Sphinx's roles (``:func:`ldpcore.x.y```), which
mkdocstrings does not read; shown raw they would print ``:func:`` before each name. This
writes each as inline code of the name alone (``~`` keeps the last part, as Sphinx does).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|obj|exc|const):`(~?)([^`]+)`")


def _as_code(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite ``:role:`target``` as ```target``` in every docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_as_code, obj.docstring.value)
