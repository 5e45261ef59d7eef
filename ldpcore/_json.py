"""Plain JSON values from numpy's: the one converter every JSON output uses.

The command line's ``--format json`` records, the experiments' and the advice's
``to_json_dict`` all pass numbers through :func:`json_value`, so a numpy scalar is
written as the plain number it is and a value that is not finite is written ``null``
(JSON has no NaN or infinity).
"""

from __future__ import annotations

import math

import numpy as np


def json_value(value: object) -> object:
    """A numpy scalar as plain JSON: bool, int, float, or None where not finite.

    Anything else is returned as it is.

    Examples
    --------
    >>> json_value(np.float32(0.5)), json_value(np.int64(3)), json_value(np.bool_(True))
    (0.5, 3, True)
    >>> json_value(float("nan")) is None, json_value("OLH")
    (True, 'OLH')
    """
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def json_default(value: object) -> object:
    """``json.dumps``'s ``default``: numpy scalars converted, anything else refused."""
    converted = json_value(value)
    if converted is value:
        raise TypeError(f"not JSON serialisable: {type(value).__name__}")
    return converted


__all__ = ["json_default", "json_value"]
