# Golden table of the linear family's Gaussian-DP accountant, computed
# outside the Go code with mpmath at 50 digits (Dong, Roth & Su 2019:
# a mu-GDP mechanism is (eps, delta)-DP with
# delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)).
#
# For each (relation, kappa, eps, delta): mu_max, the largest mu that is
# (eps, delta)-DP; sigma, the exact preset's noise of the silo-level tree
# (LDP), sqrt(kappa (Dg^2 + Db^2)) / mu_max with the relation's Gram and
# bias sensitivities (add-remove 1, 1; replace-one sqrt 2, 2); and
# eps_at, the eps that mu = 0.5 delivers at delta. Read by
# accountant.TestGDPGoldenMpmath (1e-9 relative).
#
#   python3 federate/accountant/testdata/gdp_golden.py > federate/accountant/testdata/gdp_golden.csv
from mpmath import mp, mpf, ncdf, exp, sqrt, findroot

mp.dps = 50


def delta_of(mu, eps):
    return ncdf(-eps / mu + mu / 2) - exp(eps) * ncdf(-eps / mu - mu / 2)


def mu_max(eps, delta):
    # delta_of increases with mu: bisect on [1e-6, 200].
    lo, hi = mpf("1e-6"), mpf(200)
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta_of(mid, eps) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


def eps_at(mu, delta):
    # delta_of decreases with eps: bisect on [0, 1000].
    lo, hi = mpf(0), mpf(1000)
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta_of(mu, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


sens = {"add-remove": (mpf(1), mpf(1)), "replace-one": (sqrt(2), mpf(2))}
print("relation,kappa,eps,delta,mu_max,sigma,eps_at_mu_0.5")
for rel in ["add-remove", "replace-one"]:
    for kappa in [1, 6, 11]:
        for eps in ["0.05", "1", "8"]:
            for delta in ["1e-8", "1e-5", "0.1"]:
                e, d = mpf(eps), mpf(delta)
                m = mu_max(e, d)
                g, b = sens[rel]
                sigma = sqrt(kappa * (g * g + b * b)) / m
                print(f"{rel},{kappa},{eps},{delta},{mp.nstr(m, 20)},{mp.nstr(sigma, 20)},{mp.nstr(eps_at(mpf('0.5'), d), 20)}")
