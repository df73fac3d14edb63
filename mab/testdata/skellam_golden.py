# Golden table of the mab family's Renyi accountant for Skellam noise
# (dist-rdp-se), computed outside the Go code with mpmath at 50 digits:
# Agarwal, Kairouz & Liu 2021, Theorem 3.5, the RDP of Skellam noise of
# variance mu on an integer query of l1 and l2 sensitivity g,
#   alpha g^2/(2 mu) + min(((2 alpha - 1) g^2 + 6 g)/(4 mu^2), 3 g/(2 mu)),
# converted to (eps, delta)-DP by Canonne, Kamath & Steinke 2020,
# Proposition 12, minimised over integer alpha in 2..256:
#   eps = min_alpha RDP(alpha) + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln alpha)/(alpha - 1).
# Rows: g, delta, sigma = sqrt(mu) (the noise's standard deviation, in
# units of the query: g/e for noise parameter e), eps. Read by
# mab.TestSkellamGoldenMpmath (1e-9 relative).
#
#   python3 mab/testdata/skellam_golden.py > mab/testdata/skellam_golden.csv
from mpmath import mp, mpf, log, sqrt

mp.dps = 50


def rdp(alpha, mu, g):
    return alpha * g * g / (2 * mu) + min(((2 * alpha - 1) * g * g + 6 * g) / (4 * mu * mu), 3 * g / (2 * mu))


def eps_of(mu, g, delta):
    best = None
    for a in range(2, 257):
        a = mpf(a)
        e = rdp(a, mu, g) + (log(1 / delta) + (a - 1) * log(1 - 1 / a) - log(a)) / (a - 1)
        e = max(e, mpf(0))
        best = e if best is None else min(best, e)
    return best


print("g,delta,sigma,eps")
for g in [78, 1000, 65536]:
    for e in ["0.05", "0.25", "1", "3"]:
        for delta in ["1e-8", "1e-5", "0.01"]:
            sigma = mpf(g) / mpf(e)
            print(f"{g},{delta},{mp.nstr(sigma, 20)},{mp.nstr(eps_of(sigma * sigma, mpf(g), mpf(delta)), 20)}")
