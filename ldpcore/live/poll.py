"""A live poll as stored: its question, options, protocol and ε.

A leaf of :mod:`ldpcore.live`: the store (:mod:`ldpcore.live.store`) keeps polls, the
reports module (:mod:`ldpcore.live.reports`) reads them, and neither imports the other
for it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Poll:
    """A poll as stored: what students see and how their browsers randomize.

    Attributes
    ----------
    code : str
        The short code students type (``join?code=CODE``).
    question : str
    options : tuple of str
        The answers, in order; option ``i`` is value ``i`` of the protocol's domain.
    protocol : str
        One a browser runs (:func:`ldpcore.live.reports.live_protocols`).
    epsilon : float
    created : float
        Unix time.
    closed : bool
        No more reports are taken.
    """

    code: str
    question: str
    options: tuple[str, ...]
    protocol: str
    epsilon: float
    created: float
    closed: bool


__all__ = ["Poll"]
