"""ε in context: the privacy parameters public deployments have reported.

Stakeholders ask "is ε = 0.4 a lot?". The only honest comparison is with what others
published, each figure with its unit, its model and its source. Every figure below was
checked against the public page named in its ``source``; a deployment whose ε could not be
checked is named in :data:`UNCHECKED` instead of being given a number.

Figures with different units do not compare one to one: Apple's local ε is spent again
every day by every user, a central ε protects a person in one release of a whole table,
and an ε chosen here is spent once per report. :func:`context_sentence` says so in words,
and :func:`deployment_rows` compares a central figure only with the central ε your
reports reach after shuffling (:mod:`ldpcore.advice.shuffling`), never with a local ε.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ldpcore.formats import format_budget, format_delta

if TYPE_CHECKING:
    from ldpcore.advice.shuffling import ShuffleBound

#: The day every figure below was last checked against the source named with it.
CHECKED_ON = "2026-11-24"

#: The public list of real-world DP deployments (Damien Desfontaines), read for Apple's
#: figures; it cites Apple's "Learning with Privacy at Scale" (2017) for each.
_DESFONTAINES = "https://desfontain.es/privacy/real-world-differential-privacy.html"
#: California Department of Finance's summary of the Census Bureau's disclosure avoidance.
_CA_DOF = (
    "https://dof.ca.gov/forecasting/demographics/2020-census-demographics/"
    "disclosure-avoidance-through-differential-privacy/"
)

Model = Literal["local", "central", "local, then secure aggregation (central figure)"]


@dataclass(frozen=True)
class Deployment:
    """One published ε, with what it protects and where it was read.

    Attributes
    ----------
    organisation, use
        Who collects, and what.
    epsilon
        The published ε.
    delta
        The published δ, or None for a pure ε-DP guarantee.
    model
        ``"local"`` (each device randomizes, as in this tool), ``"central"`` (a trusted
        curator adds the noise), or a local collection whose central figure holds after
        secure aggregation.
    unit
        What one ε protects, in words ("per user and day").
    source, url
        The public page the figure was checked against, and what on it (its abstract, a
        compilation citing the primary source...).
    """

    organisation: str
    use: str
    epsilon: float
    delta: float | None
    model: Model
    unit: str
    source: str
    url: str


_APPLE_SOURCE = "Desfontaines, A list of real-world uses of DP (Apple's figures)"
_CENSUS_SOURCE = "California Dept. of Finance, Disclosure avoidance through DP"


def _apple(use: str, epsilon: float) -> Deployment:
    return Deployment(
        "Apple", use, epsilon, None, "local", "per user and day", _APPLE_SOURCE, _DESFONTAINES
    )


def _census(use: str, epsilon: float) -> Deployment:
    unit = "per person, whole release (global budget)"
    return Deployment(
        "US Census Bureau", use, epsilon, None, "central", unit, _CENSUS_SOURCE, _CA_DOF
    )


#: Published deployments, local first, each figure checked on :data:`CHECKED_ON` against
#: the source named with it (none invented; see :data:`UNCHECKED` for the rest).
DEPLOYMENTS: tuple[Deployment, ...] = (
    _apple("Health type usage (HealthKit)", 2.0),
    _apple("Emoji suggestions (most popular emoji)", 4.0),
    _apple("Lookup hints (Search suggestions)", 8.0),
    _apple("Safari energy-draining and crashing domains (one shared budget)", 8.0),
    _apple("QuickType (new words typed)", 16.0),
    Deployment(
        "Google",
        "Gboard: discovering new words typed (en-US)",
        0.315,
        1e-10,
        "local, then secure aggregation (central figure)",
        "per contributed word, whole en-US release",
        "Sun et al., arXiv 2404.11607 (the abstract)",
        "https://arxiv.org/abs/2404.11607",
    ),
    Deployment(
        "Google",
        "COVID-19 Search Trends symptoms dataset",
        1.68,
        None,
        "central",
        "per user and day (a day's searches)",
        "Google, arXiv 2009.01265 (the abstract)",
        "https://arxiv.org/abs/2009.01265",
    ),
    Deployment(
        "Google",
        "COVID-19 Vaccination Search Insights",
        2.19,
        1e-5,
        "central",
        "per user and day (a day's searches)",
        "Google, arXiv 2107.01179 (the abstract)",
        "https://arxiv.org/abs/2107.01179",
    ),
    Deployment(
        "LinkedIn",
        "Audience Engagements API (marketing analytics)",
        34.9,
        7e-9,
        "central",
        "per member and month",
        "Rogers et al., arXiv 2002.05839 (read on a summary of the paper; the "
        "compilation lists the same figure)",
        "https://arxiv.org/abs/2002.05839",
    ),
    _census("2010 Census demonstration microdata, April 2021 (stricter of two)", 4.5),
    _census("2010 Census demonstration microdata, April 2021 (looser of two)", 12.2),
)

#: Deployments whose ε could not be checked against a source here, with what was found,
#: so no figure is shown for them (a wrong figure in front of a regulator is worse than
#: none).
UNCHECKED: tuple[tuple[str, str], ...] = (
    (
        "Microsoft, Windows app-usage telemetry (local DP; Ding, Kulkarni & Yekhanin, "
        "NeurIPS 2017)",
        "the paper says the mechanisms are deployed; the deployed ε and its unit were not "
        "in the text that could be read here",
    ),
    (
        "Google, COVID-19 Community Mobility Reports (central DP; arXiv 2004.04145)",
        "the anonymization document was found; its ε could not be read here",
    ),
    (
        "Google, Gboard's local guarantee per word (arXiv 2404.11607)",
        "the abstract states local DP and the central figure above, not the local ε",
    ),
    (
        "Google, RAPPOR in Chrome (Erlingsson, Pihur & Korolova, CCS 2014)",
        "the paper states its guarantee as ε per report and ε∞ per distinct value; the "
        "parameters Chrome used were not found stated",
    ),
    (
        "US Census Bureau, 2020 redistricting data and Demographic and Housing "
        "Characteristics (central, zero-concentrated DP)",
        "the Bureau's budget allocations were not in reach to check",
    ),
    (
        "Apple, Safari autoplay intent detection (local DP)",
        "its figure was not in the part of the compilation that could be read",
    ),
)

#: :data:`UNCHECKED` in one paragraph (pages and the decision record).
UNCHECKED_NOTE = (
    f"Not listed, because their ε could not be checked against a source on {CHECKED_ON}: "
    + "; ".join(f"{who} ({why})" for who, why in UNCHECKED)
    + "."
)


def deployment_rows(
    epsilon: float | None = None, shuffled: ShuffleBound | None = None
) -> list[dict[str, object]]:
    """The deployments as table rows, with how each compares with ``epsilon``.

    Parameters
    ----------
    epsilon
        The ε being judged (local, per report); when given, a column says how each
        published figure compares, and on what terms.
    shuffled
        ``epsilon``'s central bound after shuffling, if the reports may be shuffled:
        central figures are compared with it instead of with the local ε.

    Returns
    -------
    list of dict
        One row per deployment: organisation, use, ε, δ, model, unit (and the
        comparison), source and link.

    Examples
    --------
    >>> rows = deployment_rows(4.0)
    >>> [row["compared with yours"].split(" yours")[0] for row in rows][:3]
    ['smaller than', 'the same as', 'larger than']
    """
    rows: list[dict[str, object]] = []
    for deployment in DEPLOYMENTS:
        row: dict[str, object] = {
            "organisation": deployment.organisation,
            "use": deployment.use,
            "ε": deployment.epsilon,
            "δ": "none (pure ε)" if deployment.delta is None else format_delta(deployment.delta),
            "model": deployment.model,
            "unit": deployment.unit,
        }
        if epsilon is not None:
            row["compared with yours"] = _compared(deployment, epsilon, shuffled)
        row["source"] = deployment.source
        row["link"] = deployment.url
        rows.append(row)
    return rows


def _order(published: float, yours: float) -> str:
    """``"larger than"``, ``"smaller than"`` or ``"the same as"``."""
    if abs(published - yours) <= 1e-9 * max(1.0, yours):
        return "the same as"
    return "larger than" if published > yours else "smaller than"


def _compared(deployment: Deployment, epsilon: float, shuffled: ShuffleBound | None) -> str:
    """How a published figure compares with yours, with the terms that make it fair."""
    if deployment.model == "local":
        return (
            f"{_order(deployment.epsilon, epsilon)} yours, both local; theirs is "
            f"{deployment.unit}, yours per report (the same unit if each user reports once "
            "a day)"
        )
    if shuffled is None:
        return (
            "not comparable: a central figure (noise added after collection), yours is "
            "local; compare it with your ε after shuffling"
        )
    return (
        f"{_order(deployment.epsilon, shuffled.epsilon)} your ε after shuffling "
        f"({format_budget(shuffled.epsilon)} at δ = {format_delta(shuffled.delta)}, "
        f"{shuffled.n:,} users); theirs is {deployment.unit}"
    )


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
        "while an ε chosen here is what one report spends (a collection repeated T times "
        "spends more, as 'Collecting again' counts), and a central ε "
        "(the Census Bureau's, LinkedIn's, Google's search datasets') protects a person in a "
        "whole release, with no noise on the device: compare those with your ε after "
        "shuffling, not with your local ε."
    )


__all__ = [
    "CHECKED_ON",
    "DEPLOYMENTS",
    "UNCHECKED",
    "UNCHECKED_NOTE",
    "Deployment",
    "context_sentence",
    "deployment_rows",
]
