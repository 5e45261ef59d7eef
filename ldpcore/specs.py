"""Text specs such as ``zipf:d=1024,s=1.5`` or ``topk:k=10``: one parser, one number reader.

A spec is ``KIND`` or ``KIND:key=value,key=value``. Datasets
(:func:`ldpcore.data.specs.parse_dataset`), queries (:func:`ldpcore.queries.specs.parse_query`)
and the command line read them through :func:`parse_spec` and numbers through
:func:`parse_number`, so every malformed one gets the same kind of message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ldpcore.errors import InputError


@dataclass(frozen=True)
class Spec:
    """A parsed spec: its kind (lower case) and its options (keys lower case)."""

    kind: str
    options: dict[str, str]
    text: str


def parse_spec(text: object, *, what: str) -> Spec:
    """Split ``KIND[:key=value,...]`` into its kind and options.

    Parameters
    ----------
    text : str
        The spec as a person wrote it.
    what : str
        What it specifies ("dataset", "query"), for messages.

    Examples
    --------
    >>> parse_spec("zipf:d=8, S=1.5", what="dataset")
    Spec(kind='zipf', options={'d': '8', 's': '1.5'}, text='zipf:d=8, S=1.5')
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"the {what} spec must be a non-empty text, got {text!r}")
    kind, _, rest = text.strip().partition(":")
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"malformed {what} option {part!r} in {text!r}; expected key=value")
        options[key.strip().lower()] = value.strip()
    return Spec(kind.strip().lower(), options, text)


def parse_number(raw: object, name: str, *, where: str = "") -> float:
    """A finite number from text (or a number), or an :class:`InputError` naming ``name``.

    Examples
    --------
    >>> parse_number("1e3", "n")
    1000.0
    """
    context = f" in {where!r}" if where else ""
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number{context}, got {raw!r}") from None
    if not math.isfinite(value):
        raise InputError(f"{name} must be a finite number{context}, got {raw!r}")
    return value


def format_spec_number(value: float) -> str:
    """A number as a spec writes it: short (``1.5``, ``1``) and read back exactly.

    Examples
    --------
    >>> format_spec_number(1.0), format_spec_number(0.1), format_spec_number(1 / 3)
    ('1', '0.1', '0.3333333333333333')
    """
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


__all__ = ["Spec", "format_spec_number", "parse_number", "parse_spec"]
