"""Streamlit entry point (`make run`): the navigation between the pages."""

from __future__ import annotations

from pages.app_layer.navigation import run_app

# Each page draws the shared sidebar itself (pages.app_layer.widgets.sidebar); the Learn page has
# its own small population instead. Pages reached without this file (deep links on a
# fresh server) come back through the same function (pages.app_layer.navigation.ensure_app).
run_app()
