"""A recipe and what it is given and gives: the types every reproduction shares.

The recipes (:mod:`~ldpcore.reproduce.ndss`, :mod:`~ldpcore.reproduce.mle`,
:mod:`~ldpcore.reproduce.ibu`) import these; :mod:`ldpcore.reproduce` gathers the
recipes into its registry, so no recipe module imports the package that lists it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ldpcore.reproduce.judging import Claim

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

#: The two sizes of every recipe.
MODES = ("quick", "full")
#: ``progress(share_done, message)``.
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Reproduction:
    """The outcome of one recipe.

    Attributes
    ----------
    recipe : str
        Its id, e.g. ``ndss-fig4``.
    title : str
        What the figure shows.
    mode : {"quick", "full"}
    data : DataFrame
        The numbers behind the figure.
    figure : plotly Figure
    claims : tuple of Claim
    settings : str
        The experiment's parameters, in one line.
    notes : str
        Where our setting differs from the paper's, and why.
    seconds : float
        Wall time of the run.
    """

    recipe: str
    title: str
    mode: str
    data: pd.DataFrame
    figure: go.Figure
    claims: tuple[Claim, ...]
    settings: str
    notes: str = ""
    seconds: float = 0.0


@dataclass
class Context:
    """What a recipe is given: the mode, a progress callback and a cache shared by recipes.

    The cache holds experiments several figures share (NDSS Figs. 1–3 are one run);
    it lives for one :func:`reproduce` call, never at module level.
    """

    mode: str
    progress: Progress | None = None
    cache: dict[Any, Any] = field(default_factory=dict)
    #: Where trials run: a ``concurrent.futures`` executor (e.g. a Dask client's) and how
    #: many chunks to split each run into; in-process when None. Results are identical.
    executor: Executor | None = None
    workers: int = 1

    @property
    def quick(self) -> bool:
        """Whether this is the quick mode."""
        return self.mode == "quick"

    def report(self, share: float, message: str) -> None:
        """Pass progress on, if anyone listens."""
        if self.progress is not None:
            self.progress(min(max(share, 0.0), 1.0), message)


@dataclass(frozen=True)
class RecipeOutput:
    """What a recipe's build returns: the numbers, the figure, the claims and its words.

    Attributes
    ----------
    data : DataFrame
        The numbers behind the figure.
    figure : plotly Figure
    claims : list of Claim
        Every claim the paper makes about it, judged.
    settings : str
        The experiment's parameters, in one line.
    notes : str
        Where our setting differs from the paper's, and why ("" when it does not).
    """

    data: pd.DataFrame
    figure: go.Figure
    claims: list[Claim]
    settings: str
    notes: str = ""


@dataclass(frozen=True)
class Recipe:
    """How to reproduce one figure or table.

    Attributes
    ----------
    id, title, paper : str
    quick_seconds, full_seconds : float
        Measured wall time on the reference machine (2 cores), for progress estimates.
    build : callable
        ``build(context) -> RecipeOutput``.
    """

    id: str
    title: str
    paper: str
    quick_seconds: float
    full_seconds: float
    build: Callable[[Context], RecipeOutput]


__all__ = ["MODES", "Context", "Progress", "Recipe", "RecipeOutput", "Reproduction"]
