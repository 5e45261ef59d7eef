"""Statistics that know nothing of privacy: paired comparisons and MCMC.

* :mod:`~ldpcore.stats.compare` — paired MSE ratios of methods on the same trials,
  with studentized-bootstrap intervals, simultaneous over the methods;
* :mod:`~ldpcore.stats.mcmc` — batched Hamiltonian Monte Carlo with its warmup and
  the split-R̂ and effective-sample-size diagnostics.

A leaf package: it imports numpy and scipy, nothing of ``ldpcore`` but its errors, so
the layers above it (the posterior, experiments, advice) all read the same numbers.
What the numbers recommend lives with the advice (:mod:`ldpcore.advice.verdicts`);
how they read, with the words (:mod:`ldpcore.formats`, :mod:`ldpcore.present`).
"""
