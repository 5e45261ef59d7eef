"""Streamlit entry point (`make run`): the navigation between the pages."""

from __future__ import annotations

# Each page draws the shared sidebar itself (pages.app_layer.controls.widgets.sidebar); the
# Learn page has its own small population instead. Pages reached without this file (deep
# links on a fresh server) come back through the same function
# (pages.app_layer.controls.navigation.ensure_app).
#
# Streamlit runs this file as __main__, so the simulation worker processes it starts
# import it as __mp_main__ (multiprocessing's rule for the main module): the guard keeps
# them from running the app, and the import inside it keeps their start-up light.
if __name__ == "__main__":
    from pages.app_layer.controls.navigation import run_app

    run_app()
