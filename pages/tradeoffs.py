"""ε trade-offs: MSE against ε (NDSS Fig. 4) and equivalent users against n (Fig. 5)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ldpcore.advice import sweep_verdicts
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present import figures
from ldpcore.present.commands import simulate_command
from ldpcore.present.notebooks import sweep_notebook
from ldpcore.present.sentences import users_saved_sentence
from ldpcore.protocols import protocol_class
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.widgets import require_config
from pages.app_layer.serving.staging import Staged, staged_sweep
from pages.app_layer.views.display import show_chart, sweep_banner
from pages.app_layer.views.exports import downloads

ensure_app(__file__)
st.title("ε trade-offs")
config: ExperimentConfig = require_config()
# The page's answer comes first, above the chart it reads from: the best method over ε.
headline = st.empty()

EPSILON_GRID = (0.2, 0.4, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0)
N_GRID = (10**4, 10**5, 10**6, 10**7, 10**8)

st.header("Error against the privacy budget")
staged = Staged()
frame = staged_sweep(staged, config, "epsilon", EPSILON_GRID, "Simulating every ε…")
if frame is not None:
    per_epsilon = frame.groupby("epsilon", sort=False)
    base = per_epsilon["base_mse"].first().to_numpy()
    bound = per_epsilon["lower_bound"].first().to_numpy()
    with headline:
        sweep_banner(sweep_verdicts(frame, "epsilon", "ε"))
    beaten = figures.below_lower_bound(frame)
    references = [
        (f"analytic Base ({protocol_class(config.protocol).variance_source})", base, "dash")
    ]
    if not beaten:
        references.append((figures.LOWER_BOUND_NAME, bound, "dot"))
    figure = figures.curves(
        frame,
        "epsilon",
        title="MSE against ε (bands: the middle 80% of trials)",
        x_title="ε",
        y_title=figures.MSE_AXIS,
        references=references,
    )
    show_chart(figure, key="chart-mse-epsilon")
    st.caption(figures.lower_bound_note(beaten))
    downloads(
        "mse-vs-epsilon",
        frame,
        figure,
        simulate_command(config),
        lambda: sweep_notebook(
            config,
            "epsilon",
            EPSILON_GRID,
            title="MSE against ε",
            x_title="ε",
            y_title="mean squared error",
        ),
    )

st.header("What post-processing is worth, in users")
st.caption(
    "Equivalent users n′: how many users the plain Base estimate would need to match a "
    "method's accuracy (NDSS Sec. V-C). Above the diagonal, post-processing saves users."
)
users = staged_sweep(staged, config, "n", N_GRID, "Simulating every n…")
if users is not None:
    figure = figures.curves(
        users,
        "n",
        y="equivalent_users",
        band=None,
        higher_is_better=True,
        title=f"Equivalent users at ε = {config.epsilon:g}",
        x_title="users n",
        y_title="equivalent users n′",
        log_x=True,
        references=[("n′ = n (Base)", np.array(N_GRID, dtype=float), "dash")],
    )
    st.info(users_saved_sentence(users, N_GRID[2]), icon=":material/insights:")
    show_chart(figure, key="chart-equivalent-users")
    downloads(
        "equivalent-users",
        users,
        figure,
        simulate_command(config),
        lambda: sweep_notebook(
            config,
            "n",
            N_GRID,
            title="Equivalent users",
            x_title="users n",
            y_title="equivalent users n′",
            y="equivalent_users",
            log_x=True,
        ),
    )

staged.finish()  # the rest of the trials, once the page is drawn
