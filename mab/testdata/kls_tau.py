# Goldens of mab.TestKLSSlackGolden: the slack of Kairouz, Liu & Steinke
# 2021, Proposition 14, tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 s2 k/(k+1)),
# summed term by term with math.fsum (correctly rounded sum), independently
# of the Go code's loop and its bound of the tail.
#
#   python3 mab/testdata/kls_tau.py
import math

for s2, n in [(1.0, 10**6), (1.0, 10**7)]:
    c = 2 * math.pi**2 * s2
    tau = 10 * math.fsum(math.exp(-c * k / (k + 1)) for k in range(1, n))
    print(f"s2 = {s2}, n = {n}: tau = {tau!r}")
