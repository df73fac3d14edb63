# Golden table of the mab family's accountant for dist-cdp-se (sums of
# discrete Gaussians), computed outside the Go code with mpmath at 30
# digits: Kairouz, Liu & Steinke 2021, Proposition 14 with dimension 1, the
# RDP of the sum of n independent discrete Gaussians of variance parameter
# s2 each on an integer query of sensitivity g: with sigma^2 = n s2 and
#   tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 s2 k/(k+1))   (every term summed),
#   RDP(alpha) = min((alpha/2)(g/sigma)^2 + tau, (alpha/2)(g/sigma + tau)^2),
# converted to (eps, delta)-DP by Canonne, Kamath & Steinke 2020,
# Proposition 12, minimised over the accountant's grid of real alpha
# (1.01, then 1 + 1.002 (alpha - 1), up to 10^4, the grid's points computed
# in float64 as the Go code steps them):
#   eps = min_alpha RDP(alpha) + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln alpha)/(alpha - 1).
# The batch's g and s2 are the protocol's: g = ceil(S e sqrt n) (float64),
# s2 = ceil(g^2/(n e^2) 2^16)/2^16 (exact), for noise parameter e.
# Rows: S, e, n, delta, g, s2, eps. Read by mab.TestKLSGoldenMpmath (1e-9
# relative).
#
#   python3 mab/testdata/kls_golden.py > mab/testdata/kls_golden.csv
import math
from fractions import Fraction

from mpmath import mp, mpf, exp, log, pi, sqrt, fsum

mp.dps = 30

alphas = []
a = 1.01
while a <= 1e4:
    alphas.append(mpf(a))
    a = 1 + (a - 1) * 1.002


def tau_of(s2, n):
    c = 2 * pi * pi * s2
    return 10 * fsum(exp(-c * k / (k + 1)) for k in range(1, n))


def eps_of(g, s2, n, delta, tau):
    r = g / sqrt(n * s2)
    best = None
    for a in alphas:
        curve = min(a / 2 * r * r + tau, a / 2 * (r + tau) ** 2)
        e = curve + (log(1 / delta) + (a - 1) * log(1 - 1 / a) - log(a)) / (a - 1)
        e = max(e, mpf(0))
        best = e if best is None else min(best, e)
    return best


print("S,e,n,delta,g,s2,eps")
for S in [1, 3]:
    for e in [0.25, 1.0, 3.0]:
        for n in [1, 16, 1000, 100001]:
            g = math.ceil(S * e * math.sqrt(n))
            v = Fraction(g * g) / (Fraction(e) ** 2 * n) * 2**16
            s2 = Fraction(-(-v.numerator // v.denominator), 2**16)
            tau = tau_of(mpf(s2.numerator) / s2.denominator, n)
            for delta in ["1e-8", "1e-5", "0.01"]:
                eps = eps_of(mpf(g), mpf(s2.numerator) / s2.denominator, n, mpf(delta), tau)
                print(f"{S},{e!r},{n},{delta},{g},{float(s2)!r},{mp.nstr(eps, 20)}")
