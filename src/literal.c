/* Number and string literal conversions: range-checked integers, correctly rounded
 * locale-independent floats (a Clinger fast path, strtod_l otherwise), and rounding
 * into the narrow float formats straight from the decimal value. */
#define _GNU_SOURCE
#include "literal.h"
#include "types.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

ox_num_status ox_parse_u64(const char *p, size_t n, uint64_t *out)
{
	if (n && p[0] == '-') { /* "-0" is zero; any other negative number is out of range */
		for (size_t i = 1; i < n; i++)
			if (p[i] != '0')
				return p[i] >= '1' && p[i] <= '9' ? OX_NUM_RANGE : OX_NUM_SYNTAX;
		if (n == 1)
			return OX_NUM_SYNTAX;
		*out = 0;
		return OX_NUM_OK;
	}
	if (n == 0)
		return OX_NUM_SYNTAX;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)p[i] - '0';
		if (d > 9)
			return OX_NUM_SYNTAX;
		if (v > (UINT64_MAX - d) / 10)
			return OX_NUM_RANGE;
		v = v * 10 + d;
	}
	*out = v;
	return OX_NUM_OK;
}

ox_num_status ox_parse_i64(const char *p, size_t n, int64_t *out)
{
	bool neg = n > 0 && p[0] == '-';
	uint64_t mag;
	ox_num_status st = ox_parse_u64(p + neg, n - neg, &mag);
	if (st != OX_NUM_OK)
		return st;
	if (mag > (uint64_t)INT64_MAX + neg)
		return OX_NUM_RANGE;
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return OX_NUM_OK;
}

/* ---- decimal text ---------------------------------------------------------------- */

typedef struct decimal {
	bool neg;
	bool special;     /* inf or nan */
	bool nan;
	uint64_t w;       /* first 19 significant digits */
	int ndigits;      /* significant digits seen (w is exact when <= 19) */
	long e10;         /* value = w * 10^e10 when exact */
} decimal;

bool ox_word_is(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w);
	if (n != k)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((p[i] | 0x20) != w[i])
			return false;
	return true;
}

static bool parse_decimal(const char *p, size_t n, decimal *d)
{
	memset(d, 0, sizeof *d);
	size_t i = 0;
	if (i < n && p[i] == '-') {
		d->neg = true;
		i++;
	}
	if (i < n && ((p[i] | 0x20) == 'i' || (p[i] | 0x20) == 'n')) {
		d->special = true;
		d->nan = ox_word_is(p + i, n - i, "nan");
		return d->nan || ox_word_is(p + i, n - i, "inf") || ox_word_is(p + i, n - i, "infinity");
	}
	bool any = false, dot = false;
	long dropped = 0; /* integer digits beyond the 19 kept */
	for (; i < n; i++) {
		char c = p[i];
		if (c == '.' && !dot) {
			dot = true;
			continue;
		}
		if (c < '0' || c > '9')
			break;
		any = true;
		if (d->ndigits == 0 && c == '0') {
			if (dot)
				d->e10--;
			continue;
		}
		if (d->ndigits < 19) {
			d->w = d->w * 10 + (uint64_t)(c - '0');
			if (dot)
				d->e10--;
		} else if (!dot) {
			dropped++;
		}
		d->ndigits++;
	}
	if (!any)
		return false;
	d->e10 += dropped;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			eneg = p[i++] == '-';
		if (i == n)
			return false;
		long e = 0;
		for (; i < n; i++) {
			if (p[i] < '0' || p[i] > '9')
				return false;
			if (e < 100000000)
				e = e * 10 + (p[i] - '0');
		}
		d->e10 += eneg ? -e : e;
	}
	return i == n;
}

static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Clinger's fast path: exact when the significand and the power of ten are both exact
 * doubles, so one IEEE operation rounds correctly. */
static bool fast_double(const decimal *d, double *out)
{
	if (d->ndigits > 19 || d->w > (1ull << 53) || d->e10 < -22 || d->e10 > 22)
		return false;
	double v = (double)d->w;
	v = d->e10 >= 0 ? v * pow10_exact[d->e10] : v / pow10_exact[-d->e10];
	*out = d->neg ? -v : v;
	return true;
}

/* Eight ASCII digits at p? Each byte must have high nibble 3 and stay below 0x40 when
 * 6 is added (so its low nibble is at most 9). */
static inline bool eight_digits(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return ((v & 0xf0f0f0f0f0f0f0f0) | (((v + 0x0606060606060606) & 0xf0f0f0f0f0f0f0f0) >> 4)) ==
	       0x3333333333333333;
}

/* Their value, combining neighbours in parallel lanes: pairs, then quads, then all
 * eight (the first digit is the lowest byte). */
static inline uint64_t eight_value(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v -= 0x3030303030303030;
	v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ff;
	v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffff;
	return (v * 10000 + (v >> 32)) & 0xffffffff;
}

/* Appends the digits at *pp to w, eight at a time where possible. */
static inline void digits_into(const char **pp, const char *end, uint64_t *w)
{
	const char *p = *pp;
	while (end - p >= 8 && eight_digits(p)) {
		*w = *w * 100000000 + eight_value(p);
		p += 8;
	}
	while (p < end && (unsigned)(*p - '0') < 10)
		*w = *w * 10 + (uint64_t)(*p++ - '0');
	*pp = p;
}

/* One pass over the common shape of a number at p: at most 19 digits and a power of ten
 * that Clinger's fast path covers. *out is the correctly rounded double and *stop where
 * the number ends; false means "use the general path" (long or extreme numbers, inf,
 * nan). */
static inline bool quick_scan(const char *p, const char *end, double *out, const char **stop)
{
	bool neg = p < end && *p == '-';
	p += neg;
	const char *start = p;
	uint64_t w = 0;
	digits_into(&p, end, &w);
	long digits = p - start, e10 = 0;
	if (digits == 0)
		return false;
	if (p < end && *p == '.') {
		const char *frac = ++p;
		digits_into(&p, end, &w);
		digits += p - frac;
		e10 = -(p - frac);
	}
	if (p < end && (*p | 0x20) == 'e') {
		p++;
		bool eneg = p < end && *p == '-';
		p += p < end && (*p == '-' || *p == '+');
		long e = 0;
		const char *exp = p;
		while (p < end && (unsigned)(*p - '0') < 10 && p - exp < 6)
			e = e * 10 + (*p++ - '0');
		if (p == exp)
			return false;
		e10 += eneg ? -e : e;
	}
	if (digits > 19 || w > (1ull << 53) || e10 < -22 || e10 > 22)
		return false;
	double v = (double)w;
	v = e10 >= 0 ? v * pow10_exact[e10] : v / pow10_exact[-e10];
	*out = neg ? -v : v;
	*stop = p;
	return true;
}

static inline bool quick_double(const char *p, size_t n, double *out)
{
	const char *stop;
	return quick_scan(p, p + n, out, &stop) && stop == p + n;
}

/* Whether a double lies exactly halfway between two adjacent normal floats, where a
 * second rounding could go the wrong way. */
static inline bool float_midpoint(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	unsigned exp = (unsigned)(bits >> 52) & 0x7ff;
	if (exp < 1023 - 126 || exp > 1023 + 127)
		return true; /* not in the normal float range: let strtof decide */
	return (bits & 0x1fffffff) == 0x10000000;
}

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

#define COMPACT_MAX 840 /* sign, "0.", 800 digits, a sticky digit, "e-1000000" */

static void make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The digits and point of decimal text, as 0.DIGITS x 10^point. */
typedef struct digit_scan {
	size_t nd;    /* significant digits kept */
	long point;
	bool started; /* a nonzero digit was seen (else the value is zero) */
	bool more;    /* a nonzero digit beyond the cap was dropped: the value is larger */
} digit_scan;

/* Scans digits and '.' from p[i]: the significant digits (leading zeros dropped, at most
 * cap) into digits. Returns the index after them. */
static size_t scan_digits(const char *p, size_t n, size_t i, char *digits, size_t cap, digit_scan *d)
{
	bool frac = false;
	*d = (digit_scan){0};
	for (; i < n && (p[i] == '.' || (p[i] >= '0' && p[i] <= '9')); i++) {
		if (p[i] == '.') {
			frac = true;
		} else if (!d->started && p[i] == '0') {
			d->point -= frac;
		} else {
			d->started = true;
			d->point += !frac;
			if (d->nd < cap)
				digits[d->nd++] = p[i];
			else
				d->more |= p[i] != '0';
		}
	}
	return i;
}

/* Rewrites a decimal literal as "[-]0.DIGITSe[-]EXP" with at most 800 significant digits,
 * then a sticky '1' for any nonzero digit dropped: the same correctly rounded double or
 * float (767 digits decide any binary64 rounding), in a buffer of bounded size. Returns
 * the length, or 0 when the text is not such a literal. */
static size_t compact_decimal(const char *p, size_t n, char out[COMPACT_MAX])
{
	size_t i = 0, o = 0;
	if (i < n && p[i] == '-')
		out[o++] = p[i++];
	out[o++] = '0';
	out[o++] = '.';
	digit_scan d;
	i = scan_digits(p, n, i, out + o, 800, &d);
	o += d.nd;
	out[o++] = d.started && d.more ? '1' : '0';
	long exp10 = d.point < 1000000 ? d.point : 1000000; /* beyond any float's range */
	long e = 0;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		bool neg = ++i < n && p[i] == '-';
		i += i < n && (p[i] == '-' || p[i] == '+');
		if (i == n)
			return 0;
		for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			e = e < 1000000 ? e * 10 + (p[i] - '0') : e; /* beyond any float's range */
		e = neg ? -e : e;
	}
	if (i != n)
		return 0;
	if (exp10 < -1000000)
		exp10 = -1000000; /* so many leading zeros: zero, as the exponent says anyway */
	return o + (size_t)snprintf(out + o, COMPACT_MAX - o, "e%ld", exp10 + e);
}

/* strtod/strtof under the C locale, on a NUL-terminated copy of the text (compacted when
 * long, so that no allocation is needed). */
static ox_num_status slow_parse(const char *p, size_t n, double *dv, float *fv)
{
	pthread_once(&c_locale_once, make_c_locale);
	if (!c_locale)
		return OX_NUM_SYNTAX;
	char buf[COMPACT_MAX];
	if (n < 128) {
		memcpy(buf, p, n);
	} else if (!(n = compact_decimal(p, n, buf))) {
		return OX_NUM_SYNTAX;
	}
	buf[n] = '\0';
	errno = 0;
	char *end;
	if (dv)
		*dv = strtod_l(buf, &end, c_locale);
	else
		*fv = strtof_l(buf, &end, c_locale);
	bool overflow = errno == ERANGE && (dv ? isinf(*dv) : isinf(*fv));
	if (end != buf + n)
		return OX_NUM_SYNTAX;
	return overflow ? OX_NUM_RANGE : OX_NUM_OK;
}

static double special_value(const decimal *d)
{
	double v = d->nan ? NAN : INFINITY;
	return d->neg ? -v : v;
}

ox_num_status ox_parse_double(const char *p, size_t n, double *out)
{
	if (quick_double(p, n, out))
		return OX_NUM_OK;
	decimal d;
	if (!parse_decimal(p, n, &d))
		return OX_NUM_SYNTAX;
	if (d.special) {
		*out = special_value(&d);
		return OX_NUM_OK;
	}
	return fast_double(&d, out) ? OX_NUM_OK : slow_parse(p, n, out, NULL);
}

size_t ox_scan_float(const char *p, const char *end, float *out)
{
	double v;
	const char *stop;
	if (!quick_scan(p, end, &v, &stop) || (v != 0 && float_midpoint(v)))
		return 0;
	*out = (float)v;
	return (size_t)(stop - p);
}

ox_num_status ox_parse_float(const char *p, size_t n, float *out)
{
	double v;
	if (quick_double(p, n, &v) && (v == 0 || !float_midpoint(v))) {
		/* Rounding the correctly rounded double again to float is exact unless the
		 * double sits on a midpoint between two floats (all of which are doubles). */
		*out = (float)v;
		return OX_NUM_OK;
	}
	decimal d;
	if (!parse_decimal(p, n, &d))
		return OX_NUM_SYNTAX;
	if (!d.special)
		return slow_parse(p, n, NULL, out);
	*out = (float)special_value(&d);
	return OX_NUM_OK;
}

/* ---- narrow float formats --------------------------------------------------------- */

/* Splits decimal text into its significant digits and k, with value 0.d1d2... x 10^k. */
static size_t normalise(const char *s, size_t len, char *digits, size_t cap, long *k, bool *more)
{
	size_t i = len && s[0] == '-';
	digit_scan d;
	i = scan_digits(s, len, i, digits, cap, &d);
	size_t nd = d.nd;
	*more = d.more;
	long e = 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
		e = strtol(s + i + 1, NULL, 10);
	while (nd && digits[nd - 1] == '0')
		nd--;
	*k = d.started ? d.point + e : 0;
	return nd;
}

/* Compares the decimal text's exact magnitude with |v|: <0, 0, >0. Only used to break
 * ties that the first rounding to double may have hidden, so speed does not matter. */
static int cmp_decimal_double(const char *p, size_t n, double v)
{
	char exact[1100], da[1100], db[1100];
	snprintf(exact, sizeof exact, "%.1070e", fabs(v)); /* glibc prints doubles exactly */
	long ka, kb;
	bool more_a, more_b; /* exact has at most 1071 digits: more_b stays false */
	size_t na = normalise(p, n, da, sizeof da, &ka, &more_a);
	size_t nb = normalise(exact, strlen(exact), db, sizeof db, &kb, &more_b);
	if (na == 0 || nb == 0)
		return (na != 0) - (nb != 0);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	for (size_t i = 0; i < na || i < nb; i++) {
		char ca = i < na ? da[i] : '0', cb = i < nb ? db[i] : '0';
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return more_a - more_b;
}

/* Rounds a > 0 to the format's grid (ties to even); *tie is set when a was exactly
 * halfway between *lo and *hi. */
static double round_to_grid(const ox_float_format *f, double a, bool *tie, double *lo, double *hi)
{
	int e;
	frexp(a, &e); /* a = m * 2^e with m in [0.5, 1) */
	e -= 1;
	if (e < f->emin && f->has_subnormal)
		e = f->emin;
	double quantum = ldexp(1.0, e - f->mbits);
	double q = a / quantum; /* exact: a scaling by a power of two */
	double fl = floor(q);
	*lo = fl * quantum;
	*hi = (fl + 1) * quantum;
	*tie = q - fl == 0.5;
	return nearbyint(q) * quantum;
}

static uint32_t sign_bit(const ox_float_format *f, bool neg)
{
	return neg && f->has_sign ? 1u << (f->ebits + f->mbits) : 0;
}

/* r is a finite value on the format's grid. */
static uint32_t encode_narrow(const ox_float_format *f, bool neg, double r)
{
	if (r == 0)
		return f->nan == OX_NAN_FNUZ ? 0 : sign_bit(f, neg);
	int e;
	double m = frexp(r, &e);
	e -= 1;
	uint32_t expf, mant;
	if (e < f->emin) {
		expf = 0;
		mant = (uint32_t)ldexp(r, f->mbits - f->emin);
	} else {
		expf = (uint32_t)(e - f->emin + (f->has_subnormal ? 1 : 0));
		mant = (uint32_t)(ldexp(m, f->mbits + 1) - ldexp(1.0, f->mbits));
	}
	return sign_bit(f, neg) | expf << f->mbits | mant;
}

static ox_num_status narrow_special(const ox_float_format *f, const decimal *d, uint32_t *bits)
{
	if (d->nan) {
		if (f->nan == OX_NAN_NONE)
			return OX_NUM_RANGE;
		*bits = f->nan == OX_NAN_FNUZ ? f->nan_bits : f->nan_bits | sign_bit(f, d->neg);
		return OX_NUM_OK;
	}
	if (f->nan != OX_NAN_IEEE)
		return OX_NUM_RANGE; /* the format has no infinity */
	*bits = sign_bit(f, d->neg) | ((1u << f->ebits) - 1) << f->mbits;
	return OX_NUM_OK;
}

ox_num_status ox_parse_narrow_float(int dtype, const char *p, size_t n, uint32_t *bits)
{
	const ox_float_format *f = ox_elem_narrow(dtype);
	decimal d;
	if (!f || !parse_decimal(p, n, &d))
		return OX_NUM_SYNTAX;
	if (d.special)
		return narrow_special(f, &d, bits);
	if (d.neg && !f->has_sign)
		return OX_NUM_RANGE;
	double v;
	if (!fast_double(&d, &v) && slow_parse(p, n, &v, NULL) != OX_NUM_OK)
		return OX_NUM_RANGE;
	double a = fabs(v);
	if (a == 0) {
		if (!f->has_subnormal)
			return OX_NUM_RANGE; /* float8e8m0 has no zero */
		*bits = encode_narrow(f, d.neg, 0);
		return OX_NUM_OK;
	}
	bool tie;
	double lo, hi;
	double r = round_to_grid(f, a, &tie, &lo, &hi);
	if (tie) {
		int c = cmp_decimal_double(p, n, a);
		if (c != 0)
			r = c > 0 ? hi : lo;
		/* an exact tie stays as nearbyint put it: to the even multiple of the quantum,
		 * which for float8e8m0 (no mantissa) is upward, as onnx's numpy_helper rounds */
	}
	if (r > f->max || (!f->has_subnormal && r < ldexp(1.0, f->emin)))
		return OX_NUM_RANGE;
	*bits = encode_narrow(f, d.neg, r);
	return OX_NUM_OK;
}

static bool narrow_is_nan(const ox_float_format *f, uint32_t bits)
{
	uint32_t magnitude = bits & ~sign_bit(f, true);
	uint32_t emax = (1u << f->ebits) - 1;
	switch (f->nan) {
	case OX_NAN_IEEE:
		return (magnitude >> f->mbits) == emax && (magnitude & ((1u << f->mbits) - 1));
	case OX_NAN_ALL_ONES:
		return magnitude == f->nan_bits;
	case OX_NAN_FNUZ:
		return bits == f->nan_bits;
	case OX_NAN_NONE:
		break;
	}
	return false;
}

double ox_narrow_to_double(int dtype, uint32_t bits)
{
	const ox_float_format *f = ox_elem_narrow(dtype);
	if (!f)
		return NAN;
	int width = f->ebits + f->mbits + f->has_sign;
	bits &= (1u << width) - 1;
	bool neg = (bits & sign_bit(f, true)) != 0;
	if (narrow_is_nan(f, bits))
		return neg ? -NAN : NAN;
	uint32_t expf = bits >> f->mbits & ((1u << f->ebits) - 1);
	uint32_t mant = bits & ((1u << f->mbits) - 1);
	double v;
	if (f->nan == OX_NAN_IEEE && expf == (1u << f->ebits) - 1)
		v = INFINITY;
	else if (!f->has_subnormal)
		v = ldexp(1.0, (int)expf + f->emin);
	else if (expf == 0)
		v = ldexp((double)mant, f->emin - f->mbits);
	else
		v = ldexp((double)(mant | 1u << f->mbits), (int)expf - 1 + f->emin - f->mbits);
	return neg ? -v : v;
}

size_t ox_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (n == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	/* the second byte's range depends on the first: that excludes overlong forms
	 * (C0, C1, E0 80-9F, F0 80-8F), surrogates (ED A0-BF) and beyond U+10FFFF (F4 90-, F5-) */
	size_t k = u[0] >= 0xc2 && u[0] <= 0xdf ? 2 : u[0] >= 0xe0 && u[0] <= 0xef ? 3 : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	unsigned lo = u[0] == 0xe0 ? 0xa0 : u[0] == 0xf0 ? 0x90 : 0x80;
	unsigned hi = u[0] == 0xed ? 0x9f : u[0] == 0xf4 ? 0x8f : 0xbf;
	if (k == 0 || n < k || u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

size_t ox_unescape(char *dst, const char *src, size_t n)
{
	size_t i = 0, j = 0;
	for (;;) { /* runs without a backslash are copied whole */
		const char *b = memchr(src + i, '\\', n - i);
		size_t run = b ? (size_t)(b - src) - i : n - i;
		memcpy(dst + j, src + i, run);
		i += run, j += run;
		if (i + 1 >= n) { /* the end, or a backslash that ends the text: kept */
			if (i < n)
				dst[j++] = src[i];
			return j;
		}
		int hi, lo;
		if (src[++i] == 'x' && i + 2 < n && (hi = hex_digit(src[i + 1])) >= 0 && (lo = hex_digit(src[i + 2])) >= 0) {
			dst[j++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			dst[j++] = src[i++];
		}
	}
}

size_t ox_escape_char(char **d, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = (unsigned char)*s;
	size_t k = c < 0x80 ? 1 : ox_utf8_len(s, n);
	if (c == '"' || c == '\\')
		*(*d)++ = '\\';
	if (k == 0) {
		memcpy(*d, (const char[]){'\\', 'x', hex[c >> 4], hex[c & 15]}, 4);
		*d += 4;
		return 1;
	}
	memcpy(*d, s, k);
	*d += k;
	return k;
}

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t ox_base64_encode(char *dst, const unsigned char *src, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)src[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)src[i + 1] << 8;
		if (i + 2 < n)
			v |= src[i + 2];
		dst[j++] = b64_alphabet[v >> 18];
		dst[j++] = b64_alphabet[v >> 12 & 63];
		dst[j++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
		dst[j++] = i + 2 < n ? b64_alphabet[v & 63] : '=';
	}
	return j;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;
	return p ? (int)(p - b64_alphabet) : -1;
}

size_t ox_base64_decode(unsigned char *dst, const char *src, size_t n)
{
	if (n % 4)
		return SIZE_MAX;
	size_t j = 0;
	for (size_t i = 0; i < n; i += 4) {
		int pad = (src[i + 3] == '=') + (src[i + 2] == '=');
		if (pad && i + 4 != n)
			return SIZE_MAX;
		uint32_t v = 0;
		for (int k = 0; k < 4; k++) {
			int d = k >= 4 - pad ? 0 : b64_value(src[i + k]);
			if (d < 0 || (k == 2 && pad == 2 && src[i + 2] != '='))
				return SIZE_MAX;
			v = v << 6 | (uint32_t)d;
		}
		dst[j++] = (unsigned char)(v >> 16);
		if (pad < 2)
			dst[j++] = (unsigned char)(v >> 8);
		if (pad < 1)
			dst[j++] = (unsigned char)v;
	}
	return j;
}
