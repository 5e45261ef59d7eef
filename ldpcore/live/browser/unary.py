"""OUE in the live class's browsers: what the randomizer is given, what is accepted.

The randomizer itself is ``ldpcore/live/web/randomizer.js``; the browser tests check it
against the exact channel. :mod:`ldpcore.live.browser` registers these functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ldpcore._validation import is_hex
from ldpcore.errors import InputError
from ldpcore.live.browser.base import BrowserForm
from ldpcore.protocols.unary import UnaryEncoding


def parameters(protocol: UnaryEncoding) -> dict[str, Any]:
    """``p`` and ``q``: the browser sets its own bit with ``p``, each other with ``q``."""
    return {
        "protocol": protocol.name,
        "d": protocol.domain_size,
        "p": float(protocol.p),
        "q": float(protocol.q),
    }


def check_row(protocol: UnaryEncoding, report: Mapping[str, Any]) -> dict[str, Any]:
    """``d`` bits as ``2·ceil(d/8)`` hex digits (little-endian bytes, unused bits 0)."""
    bits = report["bits"]
    d = protocol.domain_size
    width = 2 * math.ceil(d / 8)
    ok = isinstance(bits, str) and len(bits) == width and is_hex(bits)
    # Padding bits past d must be 0: a report is one of the 2^d vectors, nothing else.
    if ok and d % 8:
        ok = int(bits[-2:], 16) >> (d % 8) == 0
    if not ok:
        raise InputError(
            f"an {protocol.name} report is {d} bits as {width} hex digits (little-endian bytes, "
            f"unused bits 0); got {dict(report)!r}"
        )
    return {"bits": bits.lower()}


FORM = BrowserForm(parameters=parameters, check_row=check_row)
