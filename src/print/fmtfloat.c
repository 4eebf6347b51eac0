/* Shortest round-trip float and double text in the form of C++17 std::to_chars. The digits
 * come from Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020): one
 * scaling by a power of ten, exact in round-to-odd form, then at most four candidates. */
#include "fmtfloat.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fmtfloat_big.h"

/* ---- 128-bit products ------------------------------------------------------------- */

static inline u128 mul_64x64(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 p = (unsigned __int128)a * b;
	return (u128){(uint64_t)(p >> 64), (uint64_t)p};
#else
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	return (u128){p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), mid << 32 | (uint32_t)p00};
#endif
}

/* ---- powers of ten ---------------------------------------------------------------- */

/* floor(x / 2^32) for |x| < 2^62, without shifting a negative number. */
static inline int floor_2_32(int64_t x)
{
	return (int)((x + ((int64_t)1 << 62)) >> 32) - (1 << 30);
}

/* floor(e * log10(2)), floor(e * log10(2) + log10(3/4)) and floor(e * log2(10)) with
 * 32-bit fixed-point logarithms; tools/fmtfloat_proof.py checks them over the exponents
 * used. */
static inline int flog10pow2(int e)
{
	return floor_2_32((int64_t)e * 1292913986);
}

static inline int flog10_3_4_pow2(int e)
{
	return floor_2_32((int64_t)e * 1292913986 - 536607788);
}

static inline int flog2pow10(int e)
{
	return floor_2_32((int64_t)e * 14267572527);
}

/* Decimal exponents k used: flog10_3_4_pow2(-1074) to flog10pow2(971). */
#define K_MIN (-324)
#define K_MAX 292

/* scale_table[k - K_MIN] = g = floor(10^-k * 2^-e) + 1 with e making 10^-k * 2^-e lie in
 * [2^127, 2^128): a 128-bit approximation of 10^-k from above, off by at most 1. Made at
 * build time by src/print/fmtfloat_gen.c. */
#include "fmtfloat_pow10.h"
_Static_assert(OX_POW10_K_MIN == K_MIN && OX_POW10_K_MAX == K_MAX, "the generated table covers K_MIN..K_MAX");

/* Round to odd of x = cp * g / 2^128: floor(x), with the low bit set when the exact
 * value (g replaced by 10^-k * 2^-e) is not an integer. Since g overshoots by at most 1,
 * x overshoots by at most cp / 2^128; tools/fmtfloat_proof.py checks that non-integer
 * exact values lie farther than that from every integer, so the floor is the same and a
 * fraction above cp / 2^128 means "not an integer". */
static inline uint64_t round_to_odd(u128 g, uint64_t cp)
{
	u128 lo = mul_64x64(g.lo, cp), hi = mul_64x64(g.hi, cp);
	uint64_t mid = hi.lo + lo.hi;
	uint64_t top = hi.hi + (mid < lo.hi);
	return top | (mid != 0 || lo.lo > cp);
}

/* ---- shortest digits -------------------------------------------------------------- */

typedef struct decimal {
	uint64_t digits; /* no trailing zeros */
	int exp10;       /* value = digits * 10^exp10 */
} decimal;

static decimal strip_zeros(uint64_t d, int e)
{
	if (d % 100000000 == 0) {
		d /= 100000000;
		e += 8;
	}
	while (d % 10 == 0) {
		d /= 10;
		e++;
	}
	return (decimal){d, e};
}

/* The decimal with the fewest digits that reads back as v = c * 2^q, the closest to v when
 * several do (ties to even). The reals reading back as v fill [4c - 2, 4c + 2] * 2^(q-2),
 * ends included when c is even (ties go to even), or [4c - 1, 4c + 2] * 2^(q-2) when
 * irregular (c a power of two above the smallest exponent, with a predecessor half as
 * far away as the successor). */
static decimal shortest(uint64_t c, int q, bool irregular)
{
	/* k makes the interval 1 to 10 units of 10^k wide: it then holds an integer (one of
	 * those next to v) and at most one multiple of ten. */
	int k = irregular ? flog10_3_4_pow2(q) : flog10pow2(q);
	int h = q + flog2pow10(-k) + 1; /* 1 to 4 */
	u128 g = scale_table[k - K_MIN];
	uint64_t cb = c << 2, open = c & 1;
	/* Four times v and the interval ends in units of 10^k, rounded to odd: comparisons
	 * with even integers (four times the candidates) stay exact. */
	uint64_t vb = round_to_odd(g, cb << h);
	uint64_t vbl = round_to_odd(g, (cb - 2 + irregular) << h);
	uint64_t vbr = round_to_odd(g, (cb + 2) << h);
	uint64_t s = vb >> 2, t = s + 1;
	/* A multiple of ten in the interval is the shortest, and alone in having its length,
	 * except that 10 ties with the one-digit numbers: below 10 (s < 10) the nearest of
	 * s, t decides instead. */
	if (s >= 10) {
		uint64_t u10 = s / 10 * 10, w10 = u10 + 10;
		if (vbl + open <= u10 << 2)
			return strip_zeros(u10, k);
		if ((w10 << 2) + open <= vbr)
			return strip_zeros(w10, k);
	}
	/* Otherwise the nearest of s, t in the interval, ties to even. Neither ends in a zero
	 * (the multiple-of-ten test above would have caught it) unless s < 10. */
	bool s_in = vbl + open <= s << 2, t_in = (t << 2) + open <= vbr;
	uint64_t mid = (s << 2) + 2;
	uint64_t d = s_in != t_in ? (s_in ? s : t) : vb < mid || (vb == mid && !(s & 1)) ? s : t;
	return s >= 10 ? (decimal){d, k} : strip_zeros(d, k);
}

/* ---- layout ----------------------------------------------------------------------- */

/* 10^0 .. 10^19, and "00" .. "99" for writing two digits at once. */
static const uint64_t pow10_u64[20] = {
	UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
	UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
	UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000), UINT64_C(10000000000000),
	UINT64_C(100000000000000), UINT64_C(1000000000000000), UINT64_C(10000000000000000),
	UINT64_C(100000000000000000), UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				     "8081828384858687888990919293949596979899";

/* Decimal digits of d > 0. With b its bit length, d has t or t + 1 digits for
 * t = floor(b * 1233 / 4096) (checked for every b <= 64); one comparison decides,
 * without data-dependent branches. */
static int count_digits(uint64_t d)
{
#if defined(__GNUC__) || defined(__clang__)
	int b = 64 - __builtin_clzll(d | 1);
#else
	int b = 1;
	while (b < 64 && d >> b)
		b++;
#endif
	int t = b * 1233 >> 12; /* 1233 / 4096 is log10(2) to 5e-6 */
	return t + (d >= pow10_u64[t]);
}

/* Writes the n low decimal digits of d < 10^8, zero-padded. */
static void put_small(char *p, uint32_t d, int n)
{
	for (; n >= 2; d /= 100) {
		n -= 2;
		memcpy(p + n, digit_pairs + 2 * (d % 100), 2);
	}
	if (n)
		p[0] = (char)('0' + d % 10);
}

/* Writes the n low decimal digits of d, zero-padded; returns the end. Eight-digit
 * chunks in 32-bit arithmetic keep the division chains short. */
static char *put_digits(char *p, uint64_t d, int n)
{
	if (n > 8) {
		put_digits(p, d / 100000000, n - 8);
		put_small(p + n - 8, (uint32_t)(d % 100000000), 8);
	} else {
		put_small(p, (uint32_t)(d % 100000000), n);
	}
	return p + n;
}

/* d has n digits; value d * 10^(e - n + 1): "d.ddde+XX". */
static char *put_scientific(char *p, uint64_t d, int n, int e)
{
	put_digits(p + 1, d, n);
	p[0] = p[1];
	p[1] = '.';
	p += n > 1 ? n + 1 : 1;
	*p++ = 'e';
	*p++ = e < 0 ? '-' : '+';
	int a = e < 0 ? -e : e;
	return put_digits(p, (uint64_t)a, a >= 100 ? 3 : 2);
}

/* d has n digits, value d * 10^(e - n + 1) with e < n - 1: a fraction is shown. */
static char *put_fixed(char *p, uint64_t d, int n, int e)
{
	if (e >= 0) { /* split at the point rather than shift digits: no memmove call */
		uint64_t scale = pow10_u64[n - 1 - e], ip = d / scale;
		p = put_digits(p, ip, e + 1);
		*p++ = '.';
		return put_digits(p, d - ip * scale, n - 1 - e);
	}
	*p++ = '0';
	*p++ = '.';
	memset(p, '0', (size_t)(-e - 1));
	return put_digits(p - e - 1, d, n);
}

/* The exact integer c * 2^q. Fixed notation only wins up to 10^22, so the value has at
 * most 74 bits: three base-10^9 chunks. */
static char *put_integer(char *p, uint64_t c, int q)
{
	if (q <= 0)
		return put_digits(p, c >> -q, count_digits(c >> -q));
	if (q < 64 && c >> (64 - q) == 0)
		return put_digits(p, c << q, count_digits(c << q));
	big x = {.w = {(uint32_t)c, (uint32_t)(c >> 32)}, .n = c >> 32 ? 2 : 1};
	for (; q > 0; q -= 16)
		big_mul_small(&x, 1u << (q < 16 ? q : 16));
	uint32_t chunk[4];
	int n = 0;
	while (x.n > 0 && n < 4)
		chunk[n++] = big_div_small(&x, 1000000000);
	p = put_digits(p, chunk[n - 1], count_digits(chunk[n - 1]));
	while (--n > 0)
		p = put_digits(p, chunk[n - 1], 9);
	return p;
}

/* Fixed or scientific, whichever is shorter, fixed on a tie. Fixed integers print the
 * exact value of v (c * 2^q): same length as the shortest digits padded with zeros, and
 * to_chars takes the closest of equally short forms. */
static char *put_decimal(char *p, decimal d, uint64_t c, int q)
{
	int n = count_digits(d.digits);
	int e = d.exp10 + n - 1;
	int sci = n + (n > 1) + 2 + (e <= -100 || e >= 100 ? 3 : 2);
	int fixed = e >= n - 1 ? e + 1 : e >= 0 ? n + 1 : n + 1 - e;
	if (fixed > sci)
		return put_scientific(p, d.digits, n, e);
	if (e >= n - 1)
		return put_integer(p, c, q);
	return put_fixed(p, d.digits, n, e);
}

/* ---- entry points ------------------------------------------------------------------- */

/* An IEEE binary format with mbits stored significand bits and ebits exponent bits. */
static size_t format(char *buf, uint64_t bits, int mbits, int ebits)
{
	uint64_t m = bits & ((UINT64_C(1) << mbits) - 1);
	unsigned be = (unsigned)(bits >> mbits) & ((1u << ebits) - 1);
	char *p = buf;
	if (bits >> (mbits + ebits) & 1)
		*p++ = '-';
	if (be == (1u << ebits) - 1) {
		memcpy(p, m ? "nan" : "inf", 3);
		p += 3;
	} else if (be == 0 && m == 0) {
		*p++ = '0';
	} else {
		int qmin = 2 - (1 << (ebits - 1)) - mbits;
		uint64_t c = be ? m | UINT64_C(1) << mbits : m;
		int q = qmin + (be ? (int)be - 1 : 0);
		p = put_decimal(p, shortest(c, q, be > 1 && m == 0), c, q);
	}
	*p = '\0';
	return (size_t)(p - buf);
}

size_t ox_fmt_double(double v, char *buf)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return format(buf, bits, 52, 11);
}

size_t ox_fmt_float(float v, char *buf)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	return format(buf, bits, 23, 8);
}
