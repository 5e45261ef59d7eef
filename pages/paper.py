"""Paper: reproduce the papers' figures on demand, each beside the claims it supports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ldpcore.reproduce import (
    Context,
    Reproduction,
    get_recipe,
    recipe_ids,
    report_markdown,
    tally,
    verdict_text,
)
from ldpcore.reproduce import run_recipe as run_paper_recipe
from ldpcore.reproduce.differences import DIFFERENCES
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.serving.executors import executor
from pages.app_layer.views.display import show_chart

ensure_app(__file__)
st.title("Paper")
st.caption(
    "Each figure of the NDSS 2020 consistency paper, the MLE paper's Section 5 and the IBU "
    "paper's Table 1, re-run here with ldpcore, next to every claim the paper makes about "
    "it: measured, and marked as holding or not. A claim that does not hold is shown as "
    "such. The same runs from the command line: `ldpcore reproduce all --quick --out DIR`."
)

catalogue = pd.DataFrame(
    [
        {
            "figure": rid,
            "what it shows": get_recipe(rid).title,
            "quick (s)": get_recipe(rid).quick_seconds,
            "full (s)": get_recipe(rid).full_seconds,
        }
        for rid in recipe_ids()
    ]
)
with st.expander("Every recipe", expanded=False):
    st.dataframe(catalogue, hide_index=True)
with st.expander("Where ldpcore differs from the authors' code", expanded=False):
    st.caption(
        "Checked against the NDSS authors' public implementation (read, not copied): "
        "Base-Pos, Norm, Norm-Mul and GRR's MLE agree to 1e-15. Where they differ, with "
        "an input on which the two give different answers (tests pin our side):"
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "method": d.method,
                    "their code": d.theirs,
                    "ldpcore": d.ours,
                    "an input where they differ": d.example,
                }
                for d in DIFFERENCES
            ]
        ),
        hide_index=True,
        key="paper-differences",
    )

chosen = st.selectbox(
    "Figure",
    recipe_ids(),
    key="paper-figure",
    format_func=lambda rid: f"{rid}: {get_recipe(rid).title}",
)
recipe = get_recipe(chosen)
results: dict[tuple[str, str], Reproduction] = st.session_state.setdefault("paper-results", {})


def _run(mode: str) -> None:
    bar = st.progress(0.0, text=f"Running {chosen} ({mode})…")
    pool, workers, _ = executor() if mode == "full" else (None, 1, "")

    def progress(share: float, message: str) -> None:
        bar.progress(share, text=message)

    context = Context(mode, progress=progress, executor=pool, workers=workers)
    try:
        results[(chosen, mode)] = run_paper_recipe(chosen, mode, context=context)
    except ValueError as exc:
        st.error(str(exc))
    finally:
        bar.empty()


buttons = st.columns(2)
if buttons[0].button(
    f"Run quick (about {recipe.quick_seconds:g} s)", key="paper-quick", type="primary"
):
    _run("quick")
if buttons[1].button(
    f"Run full, the paper's trial counts (about {recipe.full_seconds:g} s)", key="paper-full"
):
    _run("full")

st.caption(f"Full runs execute on {executor()[2]}; quick runs in the app's own process.")
shown = results.get((chosen, "full")) or results.get((chosen, "quick"))
if shown is None:
    st.info("Run the quick mode to see the figure and its claims (a few seconds).")
    st.stop()

st.subheader(f"{shown.recipe} ({shown.mode} mode): {tally(shown.claims)}")
figure_column, claims_column = st.columns([3, 2])
show_chart(shown.figure, key="paper-chart", where=figure_column)
claims = pd.DataFrame(
    [
        {
            "verdict": {"holds": "✅ holds", "does not hold": "❌ does not hold"}.get(
                c.status, "❔ " + verdict_text(c)
            ),
            "claim": c.text,
            "measured": c.measured,
        }
        for c in shown.claims
    ]
)
claims_column.dataframe(claims, hide_index=True, key="paper-claims")
st.caption(f"Settings: {shown.settings}. Ran in {shown.seconds:.1f} s.")
if shown.notes:
    st.caption(f"Notes: {shown.notes}")
downloads = st.columns(2)
downloads[0].download_button(
    "Numbers (CSV)",
    data=shown.data.to_csv(index=False).encode(),
    file_name=f"{shown.recipe}.csv",
    mime="text/csv",
    key="paper-csv",
    on_click="ignore",
)
downloads[1].download_button(
    "Claims (report.md)",
    data=report_markdown(shown).encode(),
    file_name=f"{shown.recipe}-report.md",
    mime="text/markdown",
    key="paper-report",
    on_click="ignore",
)
