"""What serving the app needs that is not Streamlit: plain functions and values, tested alone.

* :mod:`~ldpcore.serving.workers` — the simulation processes (forked from a fork
  server, ended with the server) and an executor that keeps one run to its share;
* :mod:`~ldpcore.serving.tables` — one configuration's run as the plain tables a page
  draws, run in a worker process, and the warm-up the launcher runs;
* :mod:`~ldpcore.serving.staging` — how much of a run a page draws first: the whole
  run, its first trials, or nothing until the visitor asks;
* :mod:`~ldpcore.serving.settings` — the Explorer sidebar's settings as a typed value,
  its slider grids, and the configuration a first visitor sees;
* :mod:`~ldpcore.serving.arguments` — the launcher's Streamlit options and its line
  about the live class.

The app layer (``pages/app_layer``) binds these to Streamlit's widgets, caches and
session; nothing here imports Streamlit, so each is tested without a server. Above the
experiments, advice and words it uses; nothing in the core imports it.
"""

from __future__ import annotations

#: The thread counts of the BLAS libraries numpy may use. The server and its simulation
#: workers pin them to 1 before numpy loads (each already uses a core): here, in a module
#: that loads nothing, so that the launcher can read them first.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

__all__ = ["BLAS_THREAD_VARIABLES"]
