# Golden table of the tight accountant of P_TVec (the linear family's
# sdp-vec; docs/privacy.md 3.6), computed outside the Go code with mpmath
# at 30 digits. A node of n users draws Binomial(N, 1/4) noise per entry,
# N = n b, b = ceil(sigma^2 g^2 / (n p (1-p))) bits per user (float64, as
# the code), g = max(2 sqrt n, d, 4). The unit shift of Binomial(N, p) is
# mu_1-Gaussian-DP with
#   mu_1(N) = max_k Phi^-1(F(k)) - Phi^-1(F(k-1)),
# F the binomial CDF, over the consecutive thresholds k whose both error
# rates F(k) and 1 - F(k) are at least 1e-300 (the events below are the
# accountant's delta slack, 1e-250), here from the whole CDF, summed
# exactly. A user's encodings are at L2 distance
#   d2 = min(g dv + sqrt(D), ceil(2 g) sqrt(D))
# (Gram: D = d(d+1)/2 entries, dv = sqrt 2; bias: D = d, dv = 2), and her
# whole release, kappa levels (node of level l: 2^l B M users) of both
# streams, is mu-GDP with mu^2 = sum mu_1(N_l)^2 d2^2 (group privacy and
# composition of Gaussian DP). Its eps at delta: delta(eps) =
# Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong, Roth & Su),
# evaluated at mu (1 + 1e-9), the accountant's stated rounding up of mu_1.
# Rows: d, M, B, kappa, sigma, mu, eps at delta 1e-5, eps at delta 0.1.
# Read by accountant.TestVecSumGoldenMpmath (1e-9 relative).
#
#   python3 federate/accountant/testdata/vecsum_golden.py > federate/accountant/testdata/vecsum_golden.csv
import math

from mpmath import mp, mpf, exp, log, sqrt, ncdf, npdf, binomial, ceil

mp.dps = 30
P = mpf(1) / 4
FLOOR = mpf("1e-300")


def quantile(p):
    # Phi^-1(p) by Newton's method on log Phi (p <= 1/2), or by symmetry.
    if p > mpf(1) / 2:
        return -quantile(1 - p)
    lp = log(p)
    z = -sqrt(-2 * lp) if p < mpf("1e-3") else mpf(-1)
    for _ in range(200):
        f = log(ncdf(z)) - lp
        step = f / (npdf(z) / ncdf(z))
        z -= step
        if abs(step) < mpf("1e-25") * max(1, abs(z)):
            break
    return z


mu1_cache = {}


def mu1(N):
    if N in mu1_cache:
        return mu1_cache[N]
    pk = [binomial(N, k) * P**k * (1 - P) ** (N - k) for k in range(N + 1)]
    F, acc = [], mpf(0)
    for v in pk:
        acc += v
        F.append(acc)
    tail = [mpf(0)] * (N + 2)  # tail[k] = P(K >= k)
    for k in range(N, -1, -1):
        tail[k] = tail[k + 1] + pk[k]
    best, prev = mpf(0), None
    for k in range(N):
        if F[k] < FLOOR or tail[k + 1] < FLOOR:
            prev = None
            continue
        cur = quantile(F[k]) if F[k] <= mpf(1) / 2 else -quantile(tail[k + 1])
        if prev is not None:
            best = max(best, cur - prev)
        prev = cur
    mu1_cache[N] = best
    return best


def delta_of(mu, eps):
    return ncdf(-eps / mu + mu / 2) - exp(eps) * ncdf(-eps / mu - mu / 2)


def eps_at(mu, delta):
    lo, hi = mpf(0), mpf(1000)
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta_of(mu, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


print("d,M,B,kappa,sigma,mu,eps_1e-5,eps_0.1")
for d in [2, 5]:
    for M, B in [(1, 1), (2, 2)]:
        for kappa in [1, 3]:
            for sigma in [2.0, 8.0]:
                mu2 = mpf(0)
                for l in range(kappa):
                    n = (1 << l) * B * M
                    g = max(max(2 * math.sqrt(n), float(d)), 4.0)
                    b = math.ceil(sigma * sigma * g * g / (n * 0.25 * (1 - 0.25)))
                    m = mu1(n * b)
                    for entries, dv in [(d * (d + 1) // 2, sqrt(2)), (d, mpf(2))]:
                        d2 = min(mpf(g) * dv + sqrt(entries), ceil(2 * mpf(g)) * sqrt(entries))
                        mu2 += m * m * d2 * d2
                mu = sqrt(mu2)
                mr = mu * (1 + mpf("1e-9"))
                print(f"{d},{M},{B},{kappa},{sigma!r},{mp.nstr(mu, 20)},{mp.nstr(eps_at(mr, mpf('1e-5')), 20)},{mp.nstr(eps_at(mr, mpf('0.1')), 20)}")
