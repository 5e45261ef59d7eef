"""A live poll as stored: its question, options, protocol and ε.

A leaf of :mod:`ldpcore.live`: the store (:mod:`ldpcore.live.store`) keeps polls, the
reports module (:mod:`ldpcore.live.reports`) reads them, and neither imports the other
for it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The most reports a poll takes unless the teacher sets its class size (issue 36): a
#: generous class; the poll refuses more, in words, and counts the browsers it refused.
CLASS_SIZE_DEFAULT = 200
#: The largest class size a teacher may set (a lecture hall; the exact intervals run to
#: 500 reports, the score intervals beyond: ldpcore.postprocess.intervals).
CLASS_SIZE_MAX = 2000


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
    max_reports : int
        The class size the teacher set: reports beyond it are refused.
    shared_addresses : bool
        Several students may answer from one network address (a lab); otherwise one
        report per address.
    """

    code: str
    question: str
    options: tuple[str, ...]
    protocol: str
    epsilon: float
    created: float
    closed: bool
    max_reports: int = CLASS_SIZE_DEFAULT
    shared_addresses: bool = False


__all__ = ["CLASS_SIZE_DEFAULT", "CLASS_SIZE_MAX", "Poll"]
