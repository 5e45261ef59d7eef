"""A live poll as stored: its question, options, protocol and ε.

A leaf of :mod:`ldpcore.live`: the store (:mod:`ldpcore.live.store`) keeps polls, the
reports module (:mod:`ldpcore.live.reports`) reads them, and neither imports the other
for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.errors import InputError

#: The most reports a poll takes unless the teacher sets its class size: a
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
    seats : int
        Reports counted from one network address: 1 unless the teacher says a lab (or
        a school proxy) puts several students behind one. Reports past an address's
        seats wait, uncounted, for the teacher to count or discard them.
    step : int
        The lesson's step the teacher shows now (0 = the reports); the projector view
        shows the same.
    shown_method : str
        The post-processing method the teacher draws at the fix's step.
    """

    code: str
    question: str
    options: tuple[str, ...]
    protocol: str
    epsilon: float
    created: float
    closed: bool
    max_reports: int = CLASS_SIZE_DEFAULT
    seats: int = 1
    step: int = 0
    shown_method: str = "Norm-Sub"


class PollError(InputError):
    """A poll action refused for a reason the person can act on (shown as is)."""


class Refused(PollError):
    """A report turned away, with its reason (a key of ``REFUSAL_REASONS``)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def may_pass(self) -> bool:
        """Whether the teacher can lift it: the same report may then be sent again.

        A full poll made larger, a closed one reopened.
        """
        return self.reason in {"full", "closed"}


class Held(PollError):
    """A report stored but not counted: its address has used its seats.

    It waits for the teacher, who counts or discards it; the student's browser has
    answered either way (it sends nothing again).
    """


def check_size(size: object) -> None:
    """A class size: the most reports a poll takes, from 1 to :data:`CLASS_SIZE_MAX`."""
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= CLASS_SIZE_MAX:
        raise PollError(
            f"the class size is the most reports the poll takes: a whole number from 1 "
            f"to {CLASS_SIZE_MAX:,}; got {size!r}"
        )


def check_seats(seats: object, size: int = CLASS_SIZE_MAX) -> None:
    """The reports counted from one network address: from 1 to the class size."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= size:
        raise PollError(
            "the seats per network address are how many students answer from one "
            f"connection (1, or a computer lab's count): a whole number from 1 to {size:,}; "
            f"got {seats!r}"
        )


def clean_text(text: object, what: str, limit: int) -> str:
    """A question or an option as stored: its spaces collapsed, never empty nor too long."""
    cleaned = " ".join(str(text).split())
    if not cleaned:
        raise PollError(f"{what} is empty; write some text")
    if len(cleaned) > limit:
        raise PollError(f"{what} is {len(cleaned)} characters long; keep it to {limit}")
    return cleaned


__all__ = ["CLASS_SIZE_DEFAULT", "CLASS_SIZE_MAX", "Held", "Poll", "PollError", "Refused"]
