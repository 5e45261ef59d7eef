"""NDSS 2020 (Wang et al., consistency), Section V: Figures 1–10 with OLH, as recipes.

The figures are in :mod:`~ldpcore.reproduce.ndss_values` (Figs. 1–5) and
:mod:`~ldpcore.reproduce.ndss_queries` (Figs. 6–10), over the settings of
:mod:`~ldpcore.reproduce.ndss_setup`.
"""

from __future__ import annotations

from ldpcore.reproduce.ndss_queries import fig6, fig7, fig8, fig9, fig10
from ldpcore.reproduce.ndss_setup import PAPER
from ldpcore.reproduce.ndss_values import fig1, fig2, fig3, fig4, fig5
from ldpcore.reproduce.recipe import Recipe

RECIPES = [
    Recipe("ndss-fig1", "Mean count estimates by rank (Zipf, ε = 1)", PAPER, 1, 35, fig1),
    Recipe("ndss-fig2", "Bias of count estimates by rank", PAPER, 1, 35, fig2),
    Recipe("ndss-fig3", "Variance of count estimates by rank", PAPER, 1, 35, fig3),
    Recipe("ndss-fig4", "Full-domain MSE against ε (Zipf, Emoji)", PAPER, 1, 8, fig4),
    Recipe("ndss-fig5", "Equivalent users n' against n", PAPER, 0.5, 2, fig5),
    Recipe("ndss-fig6", "Set-value MSE, ρ from 10% to 90%", PAPER, 1, 3, fig6),
    Recipe("ndss-fig7", "Set-value MSE, ρ from 1% to 10%", PAPER, 0.5, 3, fig7),
    Recipe("ndss-fig8", "MSE of the Emoji category totals against ε", PAPER, 0.5, 4, fig8),
    Recipe("ndss-fig9", "Choosing the method on a synthetic dataset", PAPER, 1, 6, fig9),
    Recipe("ndss-fig10", "Top-k MSE against k", PAPER, 1, 2, fig10),
]
