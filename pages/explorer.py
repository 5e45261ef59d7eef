"""Explorer: one configuration, every method, bias / variance / MSE."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import scope_of
from ldpcore.present import figures
from ldpcore.present.commands import simulate_command
from ldpcore.present.figures.text import legend_traces
from ldpcore.present.notebooks import run_notebook, sweep_notebook
from ldpcore.present.range_sentences import ordered_note
from ldpcore.present.sentences import settings_line
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.widgets import require_config
from pages.app_layer.serving.cache import (
    by_rank_figure,
    comparison_figure,
    protocols_table,
    simulate,
    simulate_summary,
)
from pages.app_layer.serving.staging import Staged, staged_sweep, trials_shown
from pages.app_layer.views.display import (
    PAIRED_NOTE,
    convergence_warning,
    run_or_explain,
    show_chart,
    show_method_table,
    verdict_banner,
)
from pages.app_layer.views.exports import downloads
from pages.app_layer.views.first_paint import first_screen_drawn

ensure_app(__file__)
st.title("Explorer")
st.caption(
    "How far each way of cleaning up the noisy private estimates lands from the truth, "
    "against the raw estimate (Base). New to local privacy? Start with **Learn** in the menu."
)
config: ExperimentConfig = require_config()

# A dear run is drawn first from its first trials, then from all of them once the
# page is drawn; above the server's budget only when asked (pages/app_layer/serving/staging.py).
staged = Staged()
shown = staged.run(config)
if shown.config is None:
    if shown.note:
        st.info(shown.note, icon=":material/hourglass_top:")
    staged.finish()
    st.stop()
drawn_config = shown.config
if shown.note:  # before the first trials are computed: a move is answered at once
    st.info(shown.note, icon=":material/hourglass_top:")
result = run_or_explain(lambda: simulate_summary(drawn_config), "Simulating…")
if result is None:
    st.stop()
summary: pd.DataFrame = result["summary"]

verdict_banner(result["ranking"], users=config.n if config.query.whole_domain else None)
# The comparison the page exists for, first: every method's MSE against Base, split
# into bias² and variance, the winner highlighted; every protocol's on request.
chart_place = st.container()
left, right = st.columns(2)
compare = left.toggle("Compare protocols", key="compare", bind="query-params")
relative = compare and right.toggle("MSE relative to Base", key="relative", bind="query-params")
applies = scope_of(config)  # every protocol that applies (the rule every surface asks)
compared = applies.protocols
if compare:
    every = staged_sweep(staged, config, "protocol", compared, "Running every protocol…")
    if every is None:
        staged.finish()
        st.stop()
    first_chart = figures.mse_points(
        every, base_mse=None, lower_bound=None, relative_to_base=relative, facet="protocol"
    )
    if applies.left_out:
        chart_place.caption("Not compared here: " + "; ".join(applies.left_out) + ".")
else:
    first_chart = comparison_figure(drawn_config)
with chart_place:
    show_chart(first_chart, key="chart-compare" if compare else "chart-mse")
    st.caption(f"{settings_line(config)}." + trials_shown(shown))
if ordered_note(config.protocol):
    st.info(ordered_note(config.protocol), icon=":material/account_tree:")
convergence_warning(result["summary"])
if not first_screen_drawn():  # the rest once the browser has drawn the chart above
    staged.finish()
    st.stop()

# Per value, by the value's true rank: where each method's error comes from.
VIEWS = {"Estimates vs truth": "estimates", "Bias by rank": "bias", "Variance by rank": "variance"}
view_column, lines_column = st.columns([3, 1], vertical_alignment="bottom")
view = view_column.segmented_control(
    "By rank",
    list(VIEWS),
    default="Estimates vs truth",
    required=True,  # a click on the view shown keeps it
    key="view",
    bind="query-params",
)
every_method = lines_column.toggle("Every method", key="lines", bind="query-params")
chosen = VIEWS.get(view or "Estimates vs truth", "estimates")
by_rank = by_rank_figure(drawn_config, chosen, every_method)
show_chart(by_rank, key=f"chart-{chosen}")
drawn = [trace.name for trace in legend_traces(by_rank) if trace.name != "truth"]
if len(drawn) < len(config.methods):
    st.caption(
        f"Drawn: {', '.join(str(name) for name in drawn)}. The chart at the top and the table "
        f"below have all {len(config.methods)} methods; switch on *Every method*, or choose "
        "methods under *Methods, trials and seed* (sidebar), to draw others."
    )

show_method_table(summary)
st.caption(PAIRED_NOTE + trials_shown(shown))
# Made when asked for: a callable, like every download.
notebook = (
    partial(
        sweep_notebook,
        config,
        "protocol",
        compared,
        title="Explorer: every protocol",
        x_title="protocol",
    )
    if compare
    else partial(run_notebook, config, title="Explorer")
)
downloads("explorer", summary, first_chart, simulate_command(config), notebook)

# A toggle, not an expander: an expander's content is drawn (and redrawn on every slider
# move) even while closed, and this table changes with ε.
if st.toggle("Show every protocol at these settings", key="protocols", bind="query-params"):
    domain_size = int(simulate(drawn_config)["per_item"]["item"].nunique())
    protocols = protocols_table(config.epsilon, domain_size, config.n)
    st.caption(
        "p: chance a report supports its user's own value; q: any other value. Base variance: "
        "NDSS Eq. (5). Worst-case ratio: max P(y|v)/P(y|v') from the channel; ε-LDP means it "
        "is at most e^ε."
    )
    st.dataframe(protocols, hide_index=True)

st.page_link(
    "pages/fake_users.py",
    label="What if some users lie? Fake users against every method, at these settings",
    icon=":material/report:",
)
staged.finish()  # the rest of the trials, once the page is drawn
