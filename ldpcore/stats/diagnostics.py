"""Whether Markov chains have mixed: rank-normalised split R̂, bulk and tail ESS.

Used by the ``Bayes`` post-processing method's stopping rules; nothing here knows about
LDP or about any one sampler. Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021),
"Rank-normalization, folding, and localization: an improved R̂ for assessing
convergence of MCMC", *Bayesian Analysis* 16(2):

* **R̂** (Sec. 4.2–4.3): the split R̂ of the rank-normalised draws (the *bulk*: a
  location that differs between chains) and of the rank-normalised draws folded about
  their median (the *tails*: a scale that differs), the larger of the two. Ranks make it
  defined for any posterior (a Cauchy's included) and unchanged by monotone maps, so
  ``π_v`` and ``log π_v`` get the same answer;
* **bulk ESS** (Sec. 4.1, 4.3): the effective sample size of the rank-normalised draws:
  how well the chains explore the posterior's middle;
* **tail ESS** (Sec. 4.3): the smaller effective sample size of the indicators
  ``θ ≤ q₅%`` and ``θ ≤ q₉₅%``: how well they explore where an interval's ends lie, which
  the bulk ESS does not see (a chain can mix its middle and rarely visit a tail).

Every effective sample size comes from :func:`split_rhat_and_ess` (BDA3, Sec. 11.4–11.5:
split chains, Geyer's initial monotone sequence); the mean's own ESS, for the Monte
Carlo error of a posterior mean, is that function on the draws themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: The tail ESS's two quantiles (Vehtari et al. 2021, Sec. 4.3).
TAIL_QUANTILES = (0.05, 0.95)
#: The most numbers :func:`gated` ranks: about 0.2 s of sorting on this machine.
RANKED_NUMBERS = 1 << 21


@dataclass(frozen=True)
class Mixing:
    """How well chains mixed, per coordinate.

    Attributes
    ----------
    rhat : ndarray
        Rank-normalised split R̂: the larger of the bulk's and the folded draws'.
    bulk_ess : ndarray
        The effective sample size of the rank-normalised draws.
    tail_ess : ndarray or None
        The smaller ESS of the 5% and 95% quantiles' indicators; None when not asked.
    """

    rhat: NDArray[np.float64]
    bulk_ess: NDArray[np.float64]
    tail_ess: NDArray[np.float64] | None = None
    #: False for :func:`gated`'s classic numbers alone (split R̂ and ESS of the draws
    #: themselves), which never pass.
    ranked: bool = True

    @property
    def ess(self) -> NDArray[np.float64]:
        """The ESS a stopping rule reads: the smaller of bulk and tail where both exist."""
        if self.tail_ess is None:
            return self.bulk_ess
        return np.minimum(self.bulk_ess, self.tail_ess)

    def passes(self, min_ess: float, max_rhat: float) -> bool:
        """Whether every coordinate has ESS ≥ ``min_ess`` and R̂ ≤ ``max_rhat`` (ranked)."""
        return self.ranked and _meets(self.rhat, self.ess, min_ess, max_rhat)

    def failing(self, min_ess: float, max_rhat: float) -> NDArray[np.bool_]:
        """The coordinates whose ESS or R̂ falls short."""
        return np.asarray((self.ess < min_ess) | (self.rhat > max_rhat))


def gated(
    draws: NDArray[np.float64], *, min_ess: float, max_rhat: float, tails: bool = False
) -> Mixing:
    """:func:`mixing` for a stopping rule: measured once the classic numbers pass.

    The classic numbers (:func:`split_rhat_and_ess` on the draws themselves) cost a
    fifth of the ranked ones (sorting every coordinate's draws: 0.8 s at d = 1,024 and 8
    chains of 950 draws, against 0.17 s), so a stopping rule asks them first; where they
    fail they are returned, ``ranked=False``, and never pass. Then the ranked numbers
    decide, on the draws thinned to at most :data:`RANKED_NUMBERS` numbers: a thinned
    chain's mean is never more precise than the whole chain's (MacEachern and Berliner
    1994, "Subsampling the Gibbs sampler", *The American Statistician* 48(3)), so its
    ESS errs low and a rule that stops on it stops no earlier than on the whole chain.
    """
    rhat, ess = split_rhat_and_ess(draws)
    if not _meets(rhat, ess, min_ess, max_rhat):
        return Mixing(rhat, ess, None, ranked=False)
    return mixing(thinned(draws), tails=tails)


def thinned(draws: NDArray[np.float64]) -> NDArray[np.float64]:
    """Every k-th draw of each chain, k the least leaving at most :data:`RANKED_NUMBERS`.

    A view; the draws themselves where they fit.
    """
    chains, count, d = draws.shape
    step = max(1, math.ceil(chains * count * d / RANKED_NUMBERS))
    return draws[:, ::step] if step > 1 else draws


def _meets(
    rhat: NDArray[np.float64], ess: NDArray[np.float64], min_ess: float, max_rhat: float
) -> bool:
    return bool(float(ess.min()) >= min_ess and float(rhat.max()) <= max_rhat)


def mixing(draws: NDArray[np.float64], *, tails: bool = False) -> Mixing:
    """Rank-normalised split R̂, bulk ESS and (with ``tails``) tail ESS of every coordinate.

    Parameters
    ----------
    draws : ndarray
        Shape ``(chains, draws, d)``.
    tails : bool
        Whether to measure the tail ESS too (two more ESS computations).

    Examples
    --------
    Four chains stuck in four places:

    >>> noise = np.random.default_rng(0).normal(size=(4, 100, 1))
    >>> stuck = 10.0 * np.arange(4.0)[:, None, None] + noise
    >>> bool(mixing(stuck).rhat[0] > 1.5)
    True
    """
    x = np.asarray(draws, dtype=np.float64)
    halves = _split(x)
    chains, _, d = halves.shape
    # One row per coordinate, time contiguous: sorting along rows is what costs here.
    rows = np.ascontiguousarray(halves.reshape(-1, d).T)
    size = rows.shape[1]
    bulk, folded = np.empty(rows.shape), np.empty(rows.shape)
    cuts = np.empty((len(TAIL_QUANTILES), d))
    # In blocks of rows that fit in cache: the sorts' gathers and scatters over all of
    # them at once (11 million draws at d = 1,024) were 3x slower than their work.
    block = max(1, (1 << 16) // size)
    for first in range(0, d, block):
        part = slice(first, first + block)
        ordered = _ranks(rows[part], bulk[part], folded[part])
        for k, quantile in enumerate(TAIL_QUANTILES):
            # The empirical quantile as np.quantile's default (linear) defines it.
            position = quantile * (size - 1)
            below, above = math.floor(position), math.ceil(position)
            low, high = ordered[:, below], ordered[:, above]
            cuts[k, part] = low + (position - below) * (high - low)
    bulk_rhat, bulk_ess = split_rhat_and_ess(_as_chains(bulk, chains), split=False)
    rhat = np.maximum(bulk_rhat, _rhat(folded.reshape(d, chains, -1)))
    if not tails:
        return Mixing(rhat, bulk_ess)
    tail_ess = np.full(d, np.inf)
    for cut in cuts:
        indicator = (rows <= cut[:, None]).astype(np.float64)
        _, ess = split_rhat_and_ess(_as_chains(indicator, chains), split=False)
        tail_ess = np.minimum(tail_ess, ess)
    return Mixing(rhat, bulk_ess, tail_ess)


def _ranks(
    rows: NDArray[np.float64], bulk: NDArray[np.float64], folded: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Fill ``bulk`` and ``folded`` with the rows' normal scores; return the rows sorted.

    ``folded`` scores ``|θ − median|``. Folded about the median, the sorted draws are two
    sorted runs (those below it, reversed, and those above): a stable sort merges them
    in linear time (timsort), where sorting again cost as much as everything else here.
    """
    size = rows.shape[1]
    order = np.argsort(rows, axis=1)
    ordered = np.take_along_axis(rows, order, axis=1)
    bulk[:] = _normal_scores(ordered, order)
    half = size // 2
    median = 0.5 * (ordered[:, (size - 1) // 2] + ordered[:, half])
    runs = np.concatenate(
        (median[:, None] - ordered[:, half - 1 :: -1], ordered[:, half:] - median[:, None]), axis=1
    )
    places = np.concatenate((order[:, half - 1 :: -1], order[:, half:]), axis=1)
    merged = np.argsort(runs, axis=1, kind="stable")
    folded[:] = _normal_scores(
        np.take_along_axis(runs, merged, axis=1), np.take_along_axis(places, merged, axis=1)
    )
    return ordered


def rank_normalise(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each coordinate's draws replaced by normal scores of their pooled ranks.

    ``x`` has shape ``(chains, draws, d)``; see :func:`_normal_scores`.
    """
    chains, _, d = x.shape
    rows = np.ascontiguousarray(x.reshape(-1, d).T)
    order = np.argsort(rows, axis=1)
    scores = _normal_scores(np.take_along_axis(rows, order, axis=1), order)
    return _as_chains(scores, chains)


def _normal_scores(ordered: NDArray[np.float64], order: NDArray[np.intp]) -> NDArray[np.float64]:
    """Normal scores of rows whose sorted values are ``ordered``, taken by ``order``.

    ``z = Φ⁻¹((r − 3/8) / (S + 1/4))`` with ``r`` the rank among the row's ``S`` draws,
    ties given their average rank (Blom's offset; Vehtari et al. 2021, Sec. 4.1). Ties
    matter here: a share the sampler floors at ``e^−700`` repeats, and ranks broken by
    position would read as a trend. Each score lands where ``order`` took its entry from.
    """
    from scipy.special import ndtri  # noqa: PLC0415 (scipy loads on first use)

    d, size = ordered.shape
    # Every row's scores are the same vector but for ties: computed once, then scattered.
    plain = ndtri((np.arange(1, size + 1) - 0.375) / (size + 0.25))
    z = np.empty((d, size))
    np.put_along_axis(z, order, np.broadcast_to(plain, (d, size)), axis=1)
    # Each k below is a sorted position whose next entry equals it; consecutive ones (in
    # one row) form a tie group spanning [first k, last k + 1]. Only those are redone.
    row, col = np.nonzero(ordered[:, 1:] == ordered[:, :-1])
    if row.size:
        starts = np.ones(row.size, dtype=bool)
        starts[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1] + 1)
        group = np.cumsum(starts) - 1
        first = col[starts][group]
        ends = np.flatnonzero(np.append(starts[1:], True))  # each group's last k
        last = (col[ends] + 1)[group]
        score = ndtri(((first + last) / 2.0 + 1.0 - 0.375) / (size + 0.25))
        for shift in (0, 1):  # a group's members are its k's and each k + 1
            z[row, order[row, col + shift]] = score
    return z


def _as_chains(rows: NDArray[np.float64], chains: int) -> NDArray[np.float64]:
    """``(d, chains · draws)`` rows back as ``(chains, draws, d)`` (a view)."""
    d, size = rows.shape
    return rows.reshape(d, chains, size // chains).transpose(1, 2, 0)


def _split(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each chain's first and last halves as chains of their own.

    A chain that drifts then disagrees with itself; an odd chain's middle draw is left out.
    """
    n = x.shape[1] // 2
    return np.concatenate((x[:, :n], x[:, x.shape[1] - n :]), axis=0)


def _rhat(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    """R̂ of chains already split (BDA3, Eq. 11.4), without the autocorrelations.

    ``rows`` is ``(d, chains, draws)``: time contiguous, where the variances are quick.
    """
    n = rows.shape[2]
    means = rows.mean(axis=2)
    within = rows.var(axis=2, ddof=1).mean(axis=1)
    var_plus = (n - 1) / n * within + means.var(axis=1, ddof=1)
    moving = within > 0
    return np.where(moving, np.sqrt(var_plus / np.where(moving, within, 1.0)), 1.0)


def split_rhat_and_ess(
    draws: NDArray[np.float64], *, split: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split R̂ and the effective sample size of every coordinate of ``draws``.

    Parameters
    ----------
    draws : ndarray
        Shape ``(chains, draws, d)``.
    split : bool
        Whether to split each chain in half here; False when the chains given already
        are halves (:func:`mixing` splits once and then ranks).

    Returns
    -------
    rhat, ess : ndarray
        Shape ``(d,)`` each. A coordinate that never moves has R̂ 1 and the full size.

    Notes
    -----
    Each chain is split in half (a chain that drifts then disagrees with itself). With
    ``M`` half-chains of ``N`` draws, ``W`` the mean within-chain variance and ``B/N``
    the variance of the chain means, ``var⁺ = (N − 1)/N · W + B/N`` and
    ``R̂ = √(var⁺ / W)`` (BDA3, Eq. 11.4). The autocorrelations ``ρ_t = 1 − (W −
    acov_t)/var⁺`` (acov averaged over chains, by FFT) are summed in pairs while the
    pair sums stay positive, made monotone (Geyer's initial monotone sequence), and
    ``ESS = M N / τ`` with ``τ = −1 + 2 Σ (ρ_{2k} + ρ_{2k+1})`` (BDA3, Eq. 11.8).
    """
    from scipy import fft  # noqa: PLC0415 (scipy loads on first use; its FFTs use every core)

    x = np.asarray(draws, dtype=np.float64)
    n = x.shape[1] // 2 if split else x.shape[1]
    m = 2 * x.shape[0] if split else x.shape[0]

    def halves(part: slice) -> NDArray[np.float64]:
        # The half-chains of some coordinates, ``(m, n, ·)``: a copy of those alone (a
        # copy of every coordinate at once, 65 MB at d = 1,024, cost more than its FFTs).
        if not split:
            return x[:, :, part]
        return np.concatenate((x[:, :n, part], x[:, x.shape[1] - n :, part]), axis=0)

    if split:
        means = np.concatenate((x[:, :n].mean(axis=1), x[:, x.shape[1] - n :].mean(axis=1)), axis=0)
    else:
        means = x.mean(axis=1)
    # Each half-chain's sum of squares about its mean, per coordinate: W below. Summed
    # in the blocks, along their contiguous time axis; numpy's var along axis 1 was
    # half of this function's time (0.28 of 0.6 s at 8 chains, 1,360 draws, d = 1,025).
    squares = np.empty(x.shape[2])
    acov = np.empty((n, x.shape[2]))
    # A length the FFT handles fast (1,200 for 600 draws, not the power of two 2,048).
    size = fft.next_fast_len(2 * n - 1, real=True)
    # In blocks of coordinates: the spectra of all at once reach hundreds of MB at
    # d = 1,024 (16 half-chains of 400 draws), and a block that fits in cache is 3x faster.
    block = max(1, (1 << 21) // (m * size))
    for first in range(0, x.shape[2], block):
        part = slice(first, first + block)
        # Time on the last, contiguous axis: the FFTs run 3x faster than along axis 1.
        centred = np.ascontiguousarray(np.swapaxes(halves(part) - means[:, None, part], 1, 2))
        squares[part] = np.einsum("mvt,mvt->v", centred, centred)
        # In single precision, each coordinate scaled to unit variance first (a share
        # of 1e−300 would underflow a float32): twice as fast, and the autocorrelations
        # keep 6 digits where the ESS needs 2.
        scale = np.sqrt(np.where(squares[part] > 0, squares[part], 1.0) / (m * n))
        padded = np.zeros((m, centred.shape[1], size), dtype=np.float32)
        padded[:, :, :n] = centred / scale[:, None]
        spectrum = fft.rfft(padded, axis=2, workers=-1)
        # Averaged over the half-chains before the inverse transform, which is linear:
        # one inverse FFT per coordinate instead of one per half-chain.
        power = (spectrum.real**2 + spectrum.imag**2).mean(axis=0)
        unit = fft.irfft(power, n=size, axis=1, workers=-1)[:, :n].T
        acov[:, part] = unit * (scale * scale / n)
    within = squares / (m * (n - 1))
    var_plus = (n - 1) / n * within + means.var(axis=0, ddof=1)
    moving = within > 0
    safe_within = np.where(moving, within, 1.0)
    safe_plus = np.where(moving, var_plus, 1.0)
    rhat = np.where(moving, np.sqrt(safe_plus / safe_within), 1.0)
    rho = 1.0 - (within - acov) / safe_plus
    rho[0] = 1.0
    pairs = rho[: 2 * (n // 2)].reshape(n // 2, 2, -1).sum(axis=1)
    positive = np.cumprod(pairs > 0, axis=0).astype(bool)
    monotone = np.minimum.accumulate(np.where(positive, pairs, 0.0), axis=0)
    tau = -1.0 + 2.0 * np.sum(np.where(positive, monotone, 0.0), axis=0)
    total = m * n
    # τ below 1/log10(total) would claim more draws than exist by antithetic luck (Stan's cap).
    tau = np.maximum(tau, 1.0 / math.log10(total))
    ess = np.where(moving, total / tau, float(total))
    return rhat, ess


__all__ = [
    "RANKED_NUMBERS",
    "TAIL_QUANTILES",
    "Mixing",
    "gated",
    "mixing",
    "rank_normalise",
    "split_rhat_and_ess",
    "thinned",
]
