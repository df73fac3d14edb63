# Golden table of the convex family's accountant (the analytic Gaussian
# mechanism, Balle & Wang 2018, Theorem 8), computed outside the Go code
# with mpmath at 50 digits: Gaussian noise of sd sigma on a report of
# sensitivity sens is (eps, delta)-DP iff
# Phi(sens/(2 sigma) - eps sigma/sens) - e^eps Phi(-sens/(2 sigma) - eps sigma/sens) <= delta.
#
# For each (eps, delta, sens): sigma_analytic, the least sigma that is
# (eps, delta)-DP; sigma_classic = sens sqrt(2 ln(1.25/delta))/eps (the
# slides'); eps_classic, the least eps the classic sigma delivers at
# delta. Read by bco.TestAccountantGoldenMpmath (1e-9 relative).
#
#   python3 bco/testdata/analytic_golden.py > bco/testdata/analytic_golden.csv
from mpmath import mp, mpf, ncdf, exp, sqrt, log

mp.dps = 50


def delta_of(sigma, eps, sens):
    a, b = sens / (2 * sigma), eps * sigma / sens
    return ncdf(a - b) - exp(eps) * ncdf(-a - b)


def least_sigma(eps, delta, sens):
    # delta_of decreases in sigma: bisect on a log scale.
    lo, hi = mpf("1e-8") * sens, mpf("1e8") * sens
    for _ in range(500):
        mid = sqrt(lo * hi)
        if delta_of(mid, eps, sens) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def least_eps(sigma, delta, sens):
    if delta_of(sigma, mpf(0), sens) <= delta:
        return mpf(0)
    lo, hi = mpf(0), mpf(10000)
    for _ in range(500):
        mid = (lo + hi) / 2
        if delta_of(sigma, mid, sens) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


print("eps,delta,sens,sigma_analytic,sigma_classic,eps_classic")
for eps in ["0.01", "0.5", "1", "6.78", "20"]:
    for delta in ["1e-8", "1e-5", "0.01"]:
        for sens in ["2", "2.6"]:
            e, d, s = mpf(eps), mpf(delta), mpf(sens)
            classic = s * sqrt(2 * log(mpf("1.25") / d)) / e
            print(f"{eps},{delta},{sens},{mp.nstr(least_sigma(e, d, s), 20)},{mp.nstr(classic, 20)},{mp.nstr(least_eps(classic, d, s), 20)}")
