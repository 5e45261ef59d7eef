"""Reproduce the papers' experiments: one recipe per figure or table, claims checked.

A *recipe* runs an experiment of a paper the tool implements (NDSS 2020 Figs.
1–10; the MLE paper's Figs. 2–3; the generalized-IBU paper's Table 1) in a ``quick``
mode (seconds, fewer trials and points) or a ``full`` mode (the paper's trial counts),
and returns a :class:`Reproduction`: the numbers, a Plotly figure and every claim the
paper makes about it, each with the measured value and whether it holds. A claim that
does not hold is reported as such; the thresholds are fixed in the recipe, before
anything is measured.

``ldpcore reproduce`` and the Paper page are thin layers over :func:`run_recipe`
and :func:`write_reproduction`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from pathlib import Path

from ldpcore._files import replacing
from ldpcore.errors import InputError
from ldpcore.reproduce.differences import differences_markdown
from ldpcore.reproduce.judging import HOLDS, UNSURE, Claim
from ldpcore.reproduce.recipe import (
    MODES,
    Context,
    Progress,
    Recipe,
    RecipeOutput,
    Reproduction,
)


def _registry() -> dict[str, Recipe]:
    # Imported here: the recipes import the experiment engine, pandas and plotly.
    from ldpcore.reproduce import (  # noqa: PLC0415
        attacks,
        histogram_encoding,
        ibu,
        longitudinal,
        mle,
        ndss,
        ranges,
    )

    recipes = [
        *ndss.RECIPES,
        *mle.RECIPES,
        *ibu.RECIPES,
        *attacks.RECIPES,
        *longitudinal.RECIPES,
        *histogram_encoding.RECIPES,
        *ranges.RECIPES,
    ]
    return {recipe.id: recipe for recipe in recipes}


def recipe_ids() -> tuple[str, ...]:
    """Every recipe id, in the papers' order."""
    return tuple(_registry())


def get_recipe(recipe_id: str) -> Recipe:
    """The recipe with this id (a clear error listing the ids otherwise)."""
    recipes = _registry()
    if recipe_id not in recipes:
        raise InputError(f"unknown figure {recipe_id!r}; known: {', '.join(recipes)} (or all)")
    return recipes[recipe_id]


def run_recipe(
    recipe_id: str, mode: str = "quick", *, context: Context | None = None
) -> Reproduction:
    """Run one recipe and check its claims."""
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    recipe = get_recipe(recipe_id)
    context = context or Context(mode)
    context.mode = mode
    start = time.perf_counter()
    output = recipe.build(context)
    data, figure, claims = output.data, output.figure, output.claims
    settings, notes = output.settings, output.notes
    # The per-trial errors were kept to judge the claims; the published numbers are means.
    data = data.drop(columns=["trial_mse"], errors="ignore")
    seconds = time.perf_counter() - start
    return Reproduction(
        recipe.id, recipe.title, mode, data, figure, tuple(claims), settings, notes, seconds
    )


def report_markdown(reproduction: Reproduction) -> str:
    """``report.md`` of one figure: settings, notes and the claim table."""
    recipe = get_recipe(reproduction.recipe)
    lines = [
        f"# {reproduction.recipe}: {reproduction.title}",
        "",
        f"- paper: {recipe.paper}",
        f"- mode: {reproduction.mode} ({reproduction.seconds:.1f} s)",
        f"- settings: {reproduction.settings}",
    ]
    if reproduction.notes:
        lines.append(f"- notes: {reproduction.notes}")
    lines += [
        "",
        f"## Claims ({tally(reproduction.claims)})",
        "",
        "| claim | measured | verdict |",
        "| --- | --- | --- |",
    ]
    lines += [
        f"| {_cell(c.text)} | {_cell(c.measured)} | {verdict_text(c)} |"
        for c in reproduction.claims
    ]
    return "\n".join(lines) + "\n"


def verdict_text(claim: Claim) -> str:
    """``holds``, ``**does not hold**`` or ``cannot tell (about N trials would settle it)``."""
    if claim.status == HOLDS:
        return "holds"
    if claim.status == UNSURE:
        more = (
            f" (about {claim.trials_to_settle:,} trials would settle it)"
            if claim.trials_to_settle
            else ""
        )
        return f"cannot tell{more}"
    return f"**{claim.status}**"


def tally(claims: Iterable[Claim]) -> str:
    """``29 hold, 3 do not, 4 cannot tell`` (the parts that are not zero)."""
    items = list(claims)
    held = sum(c.status == HOLDS for c in items)
    unsure = sum(c.status == UNSURE for c in items)
    failed = len(items) - held - unsure
    parts = [f"{held} of {len(items)} hold"]
    if failed:
        parts.append(f"{failed} do{'es' if failed == 1 else ''} not")
    if unsure:
        parts.append(f"{unsure} cannot tell at these trials")
    return ", ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_reproduction(reproduction: Reproduction, out: Path, *, png: bool = True) -> list[Path]:
    """Write ``data.csv``, ``figure.html``, ``figure.png`` (optional) and ``report.md``.

    Files go to ``out/<recipe id>/``. PNG export needs Chrome or Chromium (kaleido);
    when it fails the other files are still written and the error is raised after.
    """
    folder = Path(out) / reproduction.recipe
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "data.csv", folder / "figure.html", folder / "report.md"]
    # Each file whole or not at all: an interrupted run leaves the old file or none.
    with replacing(paths[0], what="data.csv") as temporary:
        reproduction.data.to_csv(temporary, index=False)
    with replacing(paths[1], what="figure.html") as temporary:
        reproduction.figure.write_html(temporary, include_plotlyjs="cdn")
    with replacing(paths[2], what="report.md") as temporary:
        temporary.write_text(report_markdown(reproduction), encoding="utf-8")
    if png:
        image = folder / "figure.png"
        try:
            with replacing(image, what="figure.png") as temporary:
                reproduction.figure.write_image(temporary, format="png", width=1100, height=650)
        except Exception as exc:  # kaleido reports a missing browser in several ways
            raise PngUnavailableError(
                f"PNG export needs Chrome or Chromium for kaleido ({type(exc).__name__}: "
                f"{exc}); the CSV, HTML and report were written; use --no-png to skip PNGs"
            ) from None
        paths.append(image)
    return paths


class PngUnavailableError(ValueError):
    """The figure could not be rendered to PNG (no browser for kaleido)."""


def reproduce(
    recipe_ids_: Iterable[str],
    mode: str,
    out: Path,
    *,
    png: bool = True,
    progress: Progress | None = None,
    executor: Executor | None = None,
    workers: int = 1,
    warn: Callable[[str], None] | None = None,
) -> list[Reproduction]:
    """Run recipes, write each one's files and a summary ``report.md`` in ``out``.

    If PNG export fails (no browser for kaleido), ``warn`` is told once and the
    remaining figures are written without PNG.
    """
    ids = list(recipe_ids_)
    for recipe_id in ids:
        get_recipe(recipe_id)  # fail before running anything
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {str(out)!r} is a file; give a folder")
    # The folder is made by the first recipe's files, not before: a run stopped before
    # any recipe finished leaves nothing behind (an earlier version left an empty folder).
    context = Context(mode, executor=executor, workers=workers)
    results = []
    for position, recipe_id in enumerate(ids):

        def step(share: float, message: str, at: int = position, name: str = recipe_id) -> None:
            if progress is not None:
                progress((at + share) / len(ids), f"{name}: {message}")

        context.progress = step
        reproduction = run_recipe(recipe_id, mode, context=context)
        try:
            write_reproduction(reproduction, out, png=png)
        except PngUnavailableError as exc:
            png = False  # the rest without PNG: the numbers and HTML still matter
            if warn is not None:
                warn(str(exc))
        results.append(reproduction)
    out.mkdir(parents=True, exist_ok=True)
    with replacing(out / "report.md", what="report.md") as temporary:
        temporary.write_text(summary_markdown(results), encoding="utf-8")
    return results


def summary_markdown(results: list[Reproduction]) -> str:
    """One table of every claim of every recipe run."""
    lines = [
        "# Paper reproduction",
        "",
        "Each claim is judged with the 95% interval of what was measured (a bootstrap over "
        "the trials already run): it holds when the whole interval is in the region the "
        "claim allows, does not hold when the whole interval is outside it, and otherwise "
        "cannot be told at this many trials.",
        "",
        "| figure | claim | measured | verdict |",
        "| --- | --- | --- | --- |",
    ]
    for result in results:
        for claim in result.claims:
            lines.append(
                f"| {result.recipe} | {_cell(claim.text)} | {_cell(claim.measured)} | "
                f"{verdict_text(claim)} |"
            )
    every = [c for r in results for c in r.claims]
    lines += ["", f"{tally(every)}.", "", differences_markdown()]
    return "\n".join(lines)


__all__ = [
    "MODES",
    "Context",
    "PngUnavailableError",
    "Progress",
    "Recipe",
    "RecipeOutput",
    "Reproduction",
    "get_recipe",
    "recipe_ids",
    "report_markdown",
    "reproduce",
    "run_recipe",
    "summary_markdown",
    "tally",
    "verdict_text",
    "write_reproduction",
]
