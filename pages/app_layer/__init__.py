"""The app layer: everything the pages share, one concern per module.

- ``navigation``: the menu and the page setup (app.py and deep links).
- ``widgets``: the shared sidebar, the slider grids and the query picker.
- ``uploads``: bundled datasets and uploaded histograms, with every problem explained.
- ``cache``: every cached computation of the app, the worker processes that run the
  simulations, and the Dask client; nothing else in the app caches. Cached values are
  returned to many browser sessions at once, so they are copies or, for the shared
  figures, only read (no page changes one in place; a test checks it).
- ``simulations``: the simulations as plain functions a worker process runs (no streamlit).
- ``launch``: what ``make run`` runs: preload the libraries, then ``streamlit run app.py``.
- ``exports``: downloads (CSV, HTML, PNG, command line).
- ``display``: shaping results for tables and showing errors as messages.

The core (``ldpcore``) never imports streamlit; pages only lay out widgets and call
the core, ``ldpcore.present.figures`` and these modules.
"""

#: The thread counts of the BLAS libraries numpy may use, which the launcher pins to 1
#: before numpy loads: here, in a module that loads nothing (importing ``ldpcore`` loads
#: numpy), so ``launch`` reads them first. The same names as
#: ``ldpcore.serving.BLAS_THREAD_VARIABLES``, which the workers use (a test checks).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
