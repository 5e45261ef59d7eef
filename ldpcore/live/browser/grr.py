"""GRR in the live class's browsers: what the randomizer is given, what is accepted.

The randomizer itself is ``ldpcore/live/web/randomizer.js``; the browser tests check it
against the exact channel. :mod:`ldpcore.live.browser` registers these functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ldpcore._validation import json_integer
from ldpcore.errors import InputError
from ldpcore.live.browser.base import BrowserForm
from ldpcore.protocols.grr import GRR


def parameters(protocol: GRR) -> dict[str, Any]:
    """``p``: the browser keeps the value with it, else reports another uniformly."""
    return {"protocol": protocol.name, "d": protocol.domain_size, "p": float(protocol.p)}


def check_row(protocol: GRR, report: Mapping[str, Any]) -> dict[str, Any]:
    """A value in ``[0, d)``, sent as a JSON number.

    Examples
    --------
    >>> check_row(GRR(epsilon=1.0, domain_size=7), {"value": 7})
    Traceback (most recent call last):
    ...
    ldpcore.errors.InputError: a GRR report is a value in [0, 7); got {'value': 7}
    """
    value = json_integer(report["value"])
    if value is None or not 0 <= value < protocol.domain_size:
        raise InputError(
            f"a GRR report is a value in [0, {protocol.domain_size}); got {dict(report)!r}"
        )
    return {"value": value}


FORM = BrowserForm(parameters=parameters, check_row=check_row)
