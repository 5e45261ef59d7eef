"""Queries: sets (NDSS Figs. 6–7), top-k (Fig. 10), groups (Fig. 8), intervals, ranges."""

from __future__ import annotations

import streamlit as st

from ldpcore.advice import sweep_verdicts
from ldpcore.data.specs import BundledData
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.ranges import RANGES_PER_LENGTH
from ldpcore.present import figures
from ldpcore.present.commands import simulate_command
from ldpcore.present.notebooks import ranges_notebook, run_notebook, sweep_notebook
from ldpcore.present.range_sentences import WHY_A_HIERARCHY_HELPS, range_headline, range_table
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.widgets import require_config, with_query
from pages.app_layer.serving.answers import bundled_dataset
from pages.app_layer.serving.cache import comparison_figure, simulate_ranges
from pages.app_layer.serving.staging import Staged, staged_run, staged_sweep, trials_shown
from pages.app_layer.views.display import (
    PAIRED_NOTE,
    run_or_explain,
    show_chart,
    sweep_banner,
    sweep_details,
    verdict_banner,
)
from pages.app_layer.views.exports import downloads

ensure_app(__file__)
st.title("Queries")
config: ExperimentConfig = require_config()

staged = Staged()
RHOS = (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
KS = (2, 4, 8, 16, 32)

kind = st.radio(
    "Query",
    ("Sets of values", "Most frequent values", "Groups", "Intervals", "Ranges by length"),
    horizontal=True,
    key="query",
    bind="query-params",
)

if kind == "Sets of values":
    st.caption("Random sets of ⌈ρ·d⌉ values; the same sets for every trial and method.")
    frame = staged_sweep(staged, config, "rho", RHOS, "Simulating set sizes…")
    if frame is not None:
        found = sweep_verdicts(frame, "rho", "ρ")
        sweep_banner(found)
        figure = figures.curves(
            frame,
            "rho",
            title="Set-query MSE against set size ρ (bands: the middle 80% of trials)",
            x_title="ρ (fraction of the domain)",
            y_title=figures.MSE_AXIS,
        )
        show_chart(figure, key="chart-sets")
        sweep_details(found, "ρ")
        downloads(
            "sets",
            frame,
            figure,
            simulate_command(config, query="set:rho=0.5"),
            lambda: sweep_notebook(
                config, "rho", RHOS, title="Set-query MSE", x_title="ρ (fraction of the domain)"
            ),
        )
elif kind == "Most frequent values":
    st.caption("The k values with the highest true frequency (the estimators do not know them).")
    frame = staged_sweep(staged, config, "topk", KS, "Simulating top-k…")
    if frame is not None:
        found = sweep_verdicts(frame, "topk", "k")
        sweep_banner(found)
        figure = figures.curves(
            frame,
            "topk",
            title="Top-k MSE against k (bands: the middle 80% of trials)",
            x_title="k",
            y_title=figures.MSE_AXIS,
            log_x=True,
        )
        show_chart(figure, key="chart-topk")
        sweep_details(found, "k")
        downloads(
            "topk",
            frame,
            figure,
            simulate_command(config, query="topk:k=8"),
            lambda: sweep_notebook(config, "topk", KS, title="Top-k MSE", x_title="k", log_x=True),
        )
elif kind == "Groups":
    grouped = (
        isinstance(config.dataset, BundledData) and bundled_dataset(str(config.dataset)).groups
    )
    if not grouped:
        st.info(
            "Group queries need values with groups: pick the bundled emoji (Unicode "
            "subgroups) or countries (continents) sample in the sidebar, or upload a "
            "`value,count,group` file on the Your data page."
        )
    else:
        result, shown = staged_run(staged, with_query(config, "groups"), "Simulating group totals…")
        if result is not None and shown.config is not None:
            verdict_banner(result["ranking"])
            st.caption(
                "Each group's total frequency: the sum of its values' estimates. "
                + PAIRED_NOTE
                + trials_shown(shown)
            )
            figure = comparison_figure(shown.config)
            show_chart(figure, key="chart-groups")
            downloads(
                "groups",
                result["summary"],
                figure,
                simulate_command(config, query="groups"),
                lambda: run_notebook(with_query(config, "groups"), title="Group totals"),
            )
elif kind == "Ranges by length":
    st.caption(WHY_A_HIERARCHY_HELPS)
    found = run_or_explain(lambda: simulate_ranges(config), "Simulating ranges of every length…")
    if found is not None:
        st.info(range_headline(found), icon=":material/straighten:")
        frame = found.frame()
        figure = figures.range_curves(
            frame,
            title=f"Range MSE against the range's length (ε = {config.epsilon:g}, "
            f"n = {config.n:,}; bands: the middle 80% of trials)",
        )
        show_chart(figure, key="chart-ranges")
        st.dataframe(range_table(found), hide_index=True)
        st.caption(
            f"{found.entries[0].split(' · ')[0]} is the flat protocol (the sidebar's, or OUE when "
            f"it is a hierarchy); TreeOUE and TreeOLH use the best branching factor for d. Each "
            f"length's error is the mean over up to {RANGES_PER_LENGTH} ranges of that length, "
            f"on {config.trials} trials shared by every protocol. " + PAIRED_NOTE
        )
        downloads(
            "ranges",
            frame,
            figure,
            simulate_command(config, query="range:length=64"),
            lambda: ranges_notebook(config),
        )
else:
    ranges = with_query(config, "interval:samples=20")
    result, shown = staged_run(staged, ranges, "Simulating intervals…")
    if result is not None and shown.config is not None:
        verdict_banner(result["ranking"])
        figure = comparison_figure(shown.config)
        show_chart(figure, key="chart-intervals")
        st.caption(
            "20 random ranges [a, b] of the (ordered) domain. " + PAIRED_NOTE + trials_shown(shown)
        )
        downloads(
            "intervals",
            result["summary"],
            figure,
            simulate_command(config, query="interval:samples=20"),
            lambda: run_notebook(with_query(config, "interval:samples=20"), title="Intervals"),
        )

staged.finish()  # the rest of the trials, once the page is drawn
