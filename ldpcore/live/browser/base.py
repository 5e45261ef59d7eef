"""What a protocol needs to run in the live class's browsers.

The browser computes nothing the server decides: every probability its randomizer uses
comes from :attr:`BrowserForm.parameters`, and the server stores only the reports
:attr:`BrowserForm.check_row` accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BrowserForm:
    """One protocol's browser form. Every function takes the protocol first.

    Attributes
    ----------
    parameters : callable
        ``(protocol) -> dict``: what the browser's randomizer needs (``protocol``,
        ``d`` and its probabilities), computed on the server.
    check_row : callable
        ``(protocol, report) -> dict``: one report a browser sent (exactly the report
        file's columns, checked by the caller) as its report-file row; raises
        :class:`~ldpcore.errors.InputError` when it is outside the report space.
    rows_frame : callable, optional
        ``(protocol, rows) -> DataFrame``: checked rows as a table of the report file's
        format, where a column is not plain (default: the columns as sent).
    """

    parameters: Callable[..., dict[str, Any]]
    check_row: Callable[..., dict[str, Any]]
    rows_frame: Callable[..., Any] | None = None


__all__ = ["BrowserForm"]
