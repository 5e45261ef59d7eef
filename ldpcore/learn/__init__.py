"""Teaching: the Learn page's walkthrough and the prior demonstration.

* :mod:`~ldpcore.learn.walkthrough` — one small population through randomizing,
  aggregating, estimating and post-processing, step by step, with real reports;
* :mod:`~ldpcore.learn.prior_demo` — what a Dirichlet prior does to Bayes's estimate,
  paired against the MLE on the same collections.

Built on the protocols, methods and comparisons; the words they are shown with are in
:mod:`ldpcore.present`.
"""
