#!/usr/bin/env python3
"""Machine check of the facts src/print/fmtfloat.c relies on (run: python3 tools/fmtfloat_proof.py).

src/print/fmtfloat.c scales n*2^q by 10^-k (n = 4c-2, 4c-1, 4c or 4c+2 for a significand c)
with a 128-bit upper approximation g of 10^-k*2^-e: cp = n*2^h, x~ = cp*g/2^128. It keeps
the integer part of x~ and a sticky bit, set when the fraction of x~ (128 bits) exceeds
cp*2^-128. Since 0 < x~ - x <= cp*2^-128, that is the exact round-to-odd of x when

  (a) the integer-part approximations flog10pow2, flog10_3_4_pow2 and flog2pow10 are exact
      over the exponents used, h lies in [1, 4] and g fits 128 bits (and, for the
      layout, count_digits' estimate from the bit length is off by at most one);
  (b) x = n*2^q*10^-k is an integer, or its distance to the nearest integer exceeds
      n*2^h*2^-128 (then the error can neither cross an integer nor hide the fraction).

(b) is checked for every n below 2^55 + 3 (2^26 + 3 for float) with continued fractions:
the smallest distance ||n*alpha|| over 1 <= n <= N is reached at a convergent denominator
(best approximations of the second kind are convergents).

Prints "ok" and exits 0 when everything holds.
"""
from fractions import Fraction
import math
import sys

A10 = 1292913986       # round(log10(2) * 2^32)
B34 = -536607788       # floor(log10(3/4) * 2^32)
A2 = 14267572527       # floor(log2(10) * 2^32)
K_MIN, K_MAX = -324, 292


def fl(x):
    return x >> 32  # Python's >> on negative ints is a floor


def flog10pow2(e):
    return fl(e * A10)


def flog10_3_4_pow2(e):
    return fl(e * A10 + B34)


def flog2pow10(e):
    return fl(e * A2)


def exact_floor_log10(num, den):
    """floor(log10(num/den)) for positive integers."""
    k = len(str(num)) - len(str(den)) - 1
    while Fraction(10) ** (k + 1) <= Fraction(num, den):
        k += 1
    while Fraction(10) ** k > Fraction(num, den):
        k -= 1
    return k


def frac_pow2(q):
    return Fraction(2) ** q


def check_logs():
    for e in range(-1200, 1200):
        v = frac_pow2(e)
        assert flog10pow2(e) == exact_floor_log10(v.numerator, v.denominator), e
        w = v * Fraction(3, 4)
        assert flog10_3_4_pow2(e) == exact_floor_log10(w.numerator, w.denominator), e
    for e in range(-400, 400):
        p = Fraction(10) ** e
        # floor(log2(p)): bit length arithmetic on numerator/denominator
        t = p.numerator.bit_length() - p.denominator.bit_length()
        while Fraction(2) ** (t + 1) <= p:
            t += 1
        while Fraction(2) ** t > p:
            t -= 1
        assert flog2pow10(e) == t, e


def check_count_digits():
    """count_digits: a number of b bits has t or t + 1 digits, t = b * 1233 >> 12."""
    for b in range(1, 65):
        t = b * 1233 >> 12
        assert t <= 19
        assert len(str(2 ** (b - 1))) >= t and len(str(2 ** b - 1)) <= t + 1, b


def g_of(k):
    """floor(10^-k * 2^-e) + 1 with e chosen so that the value lies in [2^127, 2^128)."""
    e = flog2pow10(-k) - 127
    G = Fraction(10) ** (-k) / Fraction(2) ** e
    assert 2 ** 127 <= G < 2 ** 128
    g = math.floor(G) + 1
    assert g < 2 ** 128
    return g


def min_distance(alpha, N):
    """min ||n*alpha|| over 1 <= n <= N with n*alpha not an integer (None if alpha's
    denominator is <= 2^64, where the bound holds trivially)."""
    A, B = alpha.numerator, alpha.denominator
    if B <= 2 ** 64:
        return None
    assert B > N  # so no n <= N makes n*alpha an integer
    best = Fraction(1)
    # convergents of A/B
    h0, h1 = 0, 1  # numerators p_{-2}, p_{-1}
    k0, k1 = 1, 0  # denominators q_{-2}, q_{-1}
    a, b = A, B
    while b:
        t = a // b
        a, b = b, a - t * b
        h0, h1 = h1, t * h1 + h0
        k0, k1 = k1, t * k1 + k0
        if k1 > N:
            break
        x = k1 * alpha
        d = min(x - math.floor(x), math.ceil(x) - x)
        best = min(best, d)
    x = alpha
    best = min(best, min(x - math.floor(x), math.ceil(x) - x))
    return best


def check_exponents(name, qmin, qmax, cbits):
    N = 2 ** (cbits + 2) + 2
    worst = Fraction(1)
    for q in range(qmin, qmax + 1):
        for k in {flog10pow2(q), flog10_3_4_pow2(q)}:
            assert K_MIN <= k <= K_MAX, (q, k)
            h = q + flog2pow10(-k) + 1
            assert 1 <= h <= 4, (q, k, h)
            assert (N << h) < 2 ** 64
            g_of(k)
            alpha = frac_pow2(q) * Fraction(10) ** (-k)
            d = min_distance(alpha, N)
            if d is not None:
                assert d * 2 ** 128 > (N << h), (q, k, float(d))
                worst = min(worst, d)
    print(f"{name}: smallest non-integer distance 2^{math.log2(worst):.2f}, "
          f"needed above 2^{math.log2(N << 4) - 128:.2f}")


def main():
    check_logs()
    check_count_digits()
    check_exponents("double", -1074, 971, 53)
    check_exponents("float", -149, 104, 24)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
