"""ε in context: the privacy parameters public deployments have reported (issue 25).

Stakeholders ask "is ε = 0.4 a lot?". The only honest comparison is with what others
published, each figure with its unit, its model and its source. Every figure below was
checked against the public page named in its ``source``; a deployment whose ε could not be
checked is named in :data:`UNCHECKED` instead of being given a number.

Figures with different units do not compare one to one: Apple's local ε is spent again
every day by every user, a central ε protects a person in one release of a whole table,
and an ε chosen here is spent once per report. :func:`context_sentence` says so in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: The public list of real-world DP deployments (Damien Desfontaines), read for Apple's
#: figures; it cites Apple's "Learning with Privacy at Scale" (2017) for each.
_DESFONTAINES = "https://desfontain.es/privacy/real-world-differential-privacy.html"
#: California Department of Finance's summary of the Census Bureau's disclosure avoidance.
_CA_DOF = (
    "https://dof.ca.gov/forecasting/demographics/2020-census-demographics/"
    "disclosure-avoidance-through-differential-privacy/"
)


@dataclass(frozen=True)
class Deployment:
    """One published ε, with what it protects and where it was read.

    Attributes
    ----------
    organisation, use
        Who collects, and what.
    epsilon
        The published ε.
    model
        ``"local"`` (each device randomizes, as in this tool) or ``"central"`` (a trusted
        curator adds the noise).
    unit
        What one ε protects, in words ("per user and day").
    source, url
        The public page the figure was checked against.
    """

    organisation: str
    use: str
    epsilon: float
    model: Literal["local", "central"]
    unit: str
    source: str
    url: str


_APPLE_SOURCE = "Desfontaines, A list of real-world uses of DP (Apple's figures)"
_CENSUS_SOURCE = "California Dept. of Finance, Disclosure avoidance through DP"


def _apple(use: str, epsilon: float) -> Deployment:
    return Deployment(
        "Apple", use, epsilon, "local", "per user and day", _APPLE_SOURCE, _DESFONTAINES
    )


def _census(use: str, epsilon: float) -> Deployment:
    unit = "per person, whole release (global budget)"
    return Deployment("US Census Bureau", use, epsilon, "central", unit, _CENSUS_SOURCE, _CA_DOF)


#: Published deployments, local first, each ε checked against its source (none invented).
DEPLOYMENTS: tuple[Deployment, ...] = (
    _apple("Health type usage (HealthKit)", 2.0),
    _apple("Emoji suggestions (most popular emoji)", 4.0),
    _apple("Lookup hints (Search suggestions)", 8.0),
    _apple("Safari energy-draining and crashing domains (one shared budget)", 8.0),
    _apple("QuickType (new words typed)", 16.0),
    _census("2010 Census demonstration microdata, April 2021 (stricter of two)", 4.5),
    _census("2010 Census demonstration microdata, April 2021 (looser of two)", 12.2),
)

#: Deployments known to use local DP whose ε we have not checked against a source, so no
#: figure is shown for them (a wrong figure in front of a regulator is worse than none).
UNCHECKED = (
    "Google (RAPPOR in Chrome, Erlingsson et al., CCS 2014) and Microsoft (Windows "
    "telemetry, Ding et al., NeurIPS 2017) also collect with local DP; their ε is not "
    "listed because it has not been checked against their publications here."
)


def deployment_rows(epsilon: float | None = None) -> list[dict[str, object]]:
    """The deployments as table rows, with how each compares with ``epsilon``.

    Parameters
    ----------
    epsilon
        The ε being judged; when given, a column says whether each published ε is
        larger, the same or smaller.

    Returns
    -------
    list of dict
        One row per deployment: organisation, use, ε, model, unit (and the comparison),
        source and link.

    Examples
    --------
    >>> rows = deployment_rows(4.0)
    >>> [(row["ε"], row["compared with yours"]) for row in rows][:3]
    [(2.0, 'smaller'), (4.0, 'the same'), (8.0, 'larger')]
    """
    rows: list[dict[str, object]] = []
    for deployment in DEPLOYMENTS:
        row: dict[str, object] = {
            "organisation": deployment.organisation,
            "use": deployment.use,
            "ε": deployment.epsilon,
            "model": deployment.model,
            "unit": deployment.unit,
        }
        if epsilon is not None:
            row["compared with yours"] = _compared(deployment.epsilon, epsilon)
        row["source"] = deployment.source
        row["link"] = deployment.url
        rows.append(row)
    return rows


def _compared(published: float, epsilon: float) -> str:
    if abs(published - epsilon) <= 1e-9 * max(1.0, epsilon):
        return "the same"
    return "larger" if published > epsilon else "smaller"


def context_sentence(epsilon: float) -> str:
    """Where ``epsilon`` sits among the published local deployments, units included.

    Examples
    --------
    >>> context_sentence(0.4).split(";")[0]
    'ε = 0.4 is smaller than every published local ε listed here (Apple: 2 to 16, per user and day)'
    >>> context_sentence(4.0).split(";")[0]
    'ε = 4 lies within the published local range (Apple: 2 to 16, per user and day)'
    """
    local = [d.epsilon for d in DEPLOYMENTS if d.model == "local"]
    low, high = min(local), max(local)
    span = f"(Apple: {low:g} to {high:g}, per user and day)"
    if epsilon < low:
        where = f"is smaller than every published local ε listed here {span}"
    elif epsilon > high:
        where = f"is larger than every published local ε listed here {span}"
    else:
        where = f"lies within the published local range {span}"
    return (
        f"ε = {epsilon:g} {where}; the units differ: Apple's ε is spent again every day, "
        "while an ε chosen here is spent once, for one report per person, and a central ε "
        "(the Census Bureau's) protects a person in a whole release, with no noise on the "
        "device."
    )


__all__ = ["DEPLOYMENTS", "UNCHECKED", "Deployment", "context_sentence", "deployment_rows"]
