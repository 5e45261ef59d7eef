"""Argument checks shared by the whole package.

Every check raises ``ValueError`` whose message names the parameter, the value
received and the allowed range, so that the command line and the app can show it
to a person as it is.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore import bounds
from ldpcore.errors import InputError


def check_epsilon(epsilon: object) -> float:
    """Return ``epsilon`` as a float, or raise if it is not a valid privacy budget."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InputError(
            f"epsilon must be a number in ({0}, {bounds.EPSILON_MAX}], got {epsilon!r}"
        )
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise InputError(
            f"epsilon must be a finite number > 0 (at most {bounds.EPSILON_MAX}), got {value!r}"
        )
    if value < bounds.EPSILON_MIN or value > bounds.EPSILON_MAX:
        raise InputError(
            f"epsilon must be in [{bounds.EPSILON_MIN}, {bounds.EPSILON_MAX}], got {value!r}"
        )
    return value


def check_delta(delta: object) -> float:
    """Return a DP guarantee's ``δ`` as a float, or raise unless it lies strictly in (0, 1)."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise InputError(f"delta must be a number strictly between 0 and 1, got {delta!r}")
    value = float(delta)
    if not 0.0 < value < 1.0:  # NaN fails too
        raise InputError(f"delta must lie strictly between 0 and 1 (e.g. 1e-6), got {value!r}")
    return value


def check_int(value: object, *, name: str, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int in ``[minimum, maximum]``, or raise naming ``name``."""
    allowed = (
        f"an integer >= {minimum}" if maximum is None else (f"an integer in [{minimum}, {maximum}]")
    )
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be {allowed}, got {value!r}")
    if isinstance(value, numbers.Integral):
        result = int(value)
    else:
        as_float = float(value)
        if not math.isfinite(as_float) or as_float != round(as_float):
            raise InputError(f"{name} must be {allowed}, got {value!r}")
        result = round(as_float)
    if result < minimum or (maximum is not None and result > maximum):
        raise InputError(f"{name} must be {allowed}, got {result}")
    return result


def check_real(value: object, *, name: str, minimum: float, maximum: float | None = None) -> float:
    """Return ``value`` as a finite float in ``[minimum, maximum]``, or raise naming ``name``."""
    allowed = (
        f"a number >= {minimum:g}"
        if maximum is None
        else (f"a number in [{minimum:g}, {maximum:g}]")
    )
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be {allowed}, got {value!r}")
    result = float(value)
    if not math.isfinite(result) or result < minimum or (maximum is not None and result > maximum):
        raise InputError(f"{name} must be {allowed}, got {value!r}")
    return result


def check_domain_size(domain_size: object) -> int:
    """Return the domain size ``d`` as an int, or raise if outside the bounds."""
    return check_int(
        domain_size,
        name="domain_size",
        minimum=bounds.DOMAIN_SIZE_MIN,
        maximum=bounds.DOMAIN_SIZE_MAX,
    )


def check_n_users(n: object) -> int:
    """Return the number of users ``n`` as an int, or raise if outside the bounds."""
    return check_int(n, name="n", minimum=bounds.N_USERS_MIN, maximum=bounds.N_USERS_MAX)


def check_counts(
    counts: ArrayLike, *, name: str, length: int, maximum: int | None = None
) -> NDArray[np.int64]:
    """Return a copy of ``counts`` as int64, or raise if it is not a count vector.

    Parameters
    ----------
    counts : array_like
        One non-negative whole number per domain value.
    name : str
        The parameter's name, used in the error message.
    length : int
        The required length (the domain size).
    maximum : int, optional
        An upper bound for every entry (e.g. ``n`` for support counts).
    """
    array = np.asarray(counts)
    if array.ndim != 1 or array.shape[0] != length:
        raise InputError(
            f"{name} must be a 1-D array of length {length} (one entry per domain value), "
            f"got shape {array.shape}"
        )
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise InputError(f"{name} must hold whole numbers >= 0, got dtype {array.dtype}")
    if np.issubdtype(array.dtype, np.floating):
        if not np.all(np.isfinite(array)):
            raise InputError(f"{name} must be finite whole numbers >= 0; found NaN or inf")
        if np.any(array != np.round(array)):
            raise InputError(f"{name} must be whole numbers >= 0; found a fractional entry")
        if np.any(np.abs(array) > 2.0**62):
            raise InputError(f"{name} entries must be below 2^62")
    if np.any(array < 0):
        first = int(np.flatnonzero(array < 0)[0])
        raise InputError(
            f"{name} must be whole numbers >= 0; entry {first} is {array[first].item()!r}"
        )
    result = array.astype(np.int64, copy=True)
    if maximum is not None and np.any(result > maximum):
        first = int(np.flatnonzero(result > maximum)[0])
        raise InputError(
            f"{name} entries must be at most {maximum}; entry {first} is {result[first]}"
        )
    return result


def check_values(values: ArrayLike, *, domain_size: int) -> NDArray[np.int64]:
    """Return user values as int64, or raise unless each is an index in ``[0, d)``."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(f"values must be a 1-D array of user values, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise InputError(
            f"values must be integer indices in [0, {domain_size - 1}], got dtype {array.dtype}"
        )
    result = array.astype(np.int64, copy=False)
    if result.size and (result.min() < 0 or result.max() >= domain_size):
        raise InputError(
            f"values must be integer indices in [0, {domain_size - 1}] (0-based), "
            f"got range [{result.min()}, {result.max()}]"
        )
    return result


def whole_number(value: object) -> int | None:
    """An int from an int or its decimal text, else None (never a float: seeds stay exact).

    Examples
    --------
    >>> whole_number(7), whole_number("18446744073709551615"), whole_number(7.0)
    (7, 18446744073709551615, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        return int(value)
    return None


def json_integer(value: object) -> int | None:
    """An int sent as a JSON number, else None.

    A report is accepted only in the type its form declares: the text "3" is not the
    number 3, nor is ``true`` 1.

    Examples
    --------
    >>> json_integer(3), json_integer("3"), json_integer(True), json_integer(3.0)
    (3, None, None, None)
    """
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def decimal_text(value: object) -> int | None:
    """An int sent as decimal text, else None.

    For a 64-bit seed, which a JavaScript number cannot hold exactly: the number 7 is
    not the text "7" here.

    Examples
    --------
    >>> decimal_text("18446744073709551615"), decimal_text(7), decimal_text("-1")
    (18446744073709551615, None, None)
    """
    return whole_number(value) if isinstance(value, str) else None


def is_hex(text: str) -> bool:
    """Whether ``text`` is hexadecimal digits only (either case)."""
    return all(ch in "0123456789abcdefABCDEF" for ch in text)
