"""The protocols the live class's browsers run, and what each needs there.

* :mod:`~ldpcore.live.browser.base` — :class:`BrowserForm`, a protocol's parameters for
  the browser's randomizer and the check of what a browser sends;
* ``grr``, ``olh``, ``unary`` (OUE): one module per protocol the browser runs.

A protocol runs in a browser when its exact class is registered here (a subclass, such
as BLH or a memoized chain, randomizes differently and is not): its randomizer is in
``ldpcore/live/web/randomizer.js``, checked by the browser tests against the exact
channel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from ldpcore.collection.report_files import report_columns
from ldpcore.errors import InputError
from ldpcore.live.browser import grr, olh, unary
from ldpcore.live.browser.base import BrowserForm
from ldpcore.protocols import GRR, OLH, OUE, FrequencyOracle

if TYPE_CHECKING:
    import pandas as pd

#: Protocol class → its browser form. Read-only; exact classes only.
BROWSER_FORMS: Final[Mapping[type, BrowserForm]] = MappingProxyType(
    {GRR: grr.FORM, OLH: olh.FORM, OUE: unary.FORM}
)


def runs_in_browser(protocol: FrequencyOracle | type[FrequencyOracle]) -> bool:
    """Whether the live class's browsers run ``protocol`` (an instance or a class)."""
    cls = protocol if isinstance(protocol, type) else type(protocol)
    return cls in BROWSER_FORMS


def browser_form(protocol: FrequencyOracle) -> BrowserForm:
    """``protocol``'s browser form; :class:`InputError` when no browser runs it."""
    if not runs_in_browser(protocol):
        raise InputError(f"{protocol.name} does not run in a browser")
    return BROWSER_FORMS[type(protocol)]


def report_rows_frame(protocol: FrequencyOracle, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Checked report rows as a table of the protocol's report-file format."""
    form = browser_form(protocol)
    if form.rows_frame is not None:
        frame: pd.DataFrame = form.rows_frame(protocol, rows)
        return frame
    import pandas as pd  # noqa: PLC0415 (a browser's randomizer needs no pandas)

    return pd.DataFrame({c: [r[c] for r in rows] for c in report_columns(protocol)})


__all__ = ["BROWSER_FORMS", "BrowserForm", "browser_form", "report_rows_frame", "runs_in_browser"]
