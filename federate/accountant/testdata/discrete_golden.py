# Golden table of the linear family's discrete Gaussian accountant,
# computed outside the Go code with mpmath at 40 digits: Canonne, Kamath &
# Steinke 2020. Each user's contribution is rounded to the grid
# gamma = 2^(floor(log2 sigma) - 20), which inflates the Gram and bias
# sensitivities (add-remove 1, 1; replace-one sqrt 2, 2) by c gamma d and
# c gamma sqrt(d) (c = 1/2 add-remove, 1 replace-one); kappa tree nodes of
# both streams compose to
#   rho = kappa ((Dg + c gamma d)^2 + (Db + c gamma sqrt d)^2) / (2 sigma^2)
# (zCDP, Proposition 5 and Theorem 14), and rho-zCDP is (eps, delta)-DP with
#   delta = inf_{alpha > 1} exp((alpha-1)(alpha rho - eps)) (1-1/alpha)^alpha / (alpha-1)
# (Proposition 7 / section 2.3; the infimum at the root of
# (2 alpha - 1) rho - eps + ln(1 - 1/alpha), found by bisection).
#
# For each (relation, d, kappa, eps, delta): sigma, the exact preset's
# noise (the smallest sigma whose rho certifies (eps, delta)); and
# eps_at_8, the eps that sigma = 8 delivers at delta. Read by
# accountant.TestDiscreteGoldenMpmath (1e-9 relative).
#
#   python3 federate/accountant/testdata/discrete_golden.py > federate/accountant/testdata/discrete_golden.csv
from mpmath import mp, mpf, exp, log, sqrt, floor, ldexp

mp.dps = 40


def bisect(f, lo, hi, n=250):
    # f false at lo, true at hi: returns the upper bracket of the boundary.
    for _ in range(n):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
    return hi


def cks_delta(rho, eps):
    # The optimal alpha: the root of the derivative, increasing in alpha.
    a = bisect(lambda a: (2 * a - 1) * rho - eps + log(1 - 1 / a) >= 0, mpf(1) + mpf("1e-30"), (eps + 1) / (2 * rho) + 2)
    return exp((a - 1) * (a * rho - eps) + a * log(1 - 1 / a) - log(a - 1))


def cks_eps(rho, delta):
    return bisect(lambda e: cks_delta(rho, e) <= delta, mpf(0), mpf(1000))


def grid(sigma):
    return ldexp(1, int(floor(log(sigma, 2))) - 20)


def rho_of(rel, d, kappa, sigma):
    dg, db, c = (mpf(1), mpf(1), mpf("0.5")) if rel == "add-remove" else (sqrt(2), mpf(2), mpf(1))
    g = grid(sigma)
    return kappa * ((dg + c * g * d) ** 2 + (db + c * g * sqrt(d)) ** 2) / (2 * sigma * sigma)


def exact_sigma(rel, d, kappa, eps, delta):
    # The largest rho that certifies, then sigma with rho_of(sigma) = that
    # rho on sigma's own grid (a fixed point: the grid depends on sigma).
    rho_max = 1 / bisect(lambda x: cks_delta(1 / x, eps) <= delta, mpf("1e-6"), mpf("1e12"))
    sigma = sqrt(rho_of(rel, d, kappa, mpf(1)) / rho_max)
    for _ in range(50):
        s = sigma * sqrt(rho_of(rel, d, kappa, sigma) / rho_max)
        if abs(s - sigma) < mpf("1e-35") * sigma:
            break
        sigma = s
    assert grid(sigma) == grid(sigma * (1 - mpf("1e-6"))) == grid(sigma * (1 + mpf("1e-6"))), "sigma at a grid boundary"
    return sigma


print("relation,d,kappa,eps,delta,sigma,eps_at_8")
for rel in ["add-remove", "replace-one"]:
    for d in [2, 10]:
        for kappa in [1, 6]:
            for eps in ["0.2", "1", "8"]:
                for delta in ["1e-8", "1e-5", "0.1"]:
                    e, dl = mpf(eps), mpf(delta)
                    s = exact_sigma(rel, d, kappa, e, dl)
                    e8 = cks_eps(rho_of(rel, d, kappa, mpf(8)), dl)
                    print(f"{rel},{d},{kappa},{eps},{delta},{mp.nstr(s, 20)},{mp.nstr(e8, 20)}")
