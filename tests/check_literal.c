/* Unit tests for src/literal.c: range-checked integers, correctly rounded and
 * locale-independent float/double conversion (checked against glibc's strtof/strtod in
 * the C locale), rounding into the narrow float formats straight from the decimal value,
 * and string unescaping. Expectations come from SYNTAX.md §1.4-§1.5 and
 * SYNTAX-DECISIONS.md P2/P4. */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "literal.h"
#include "print/out.h"
#include "types.h"
#include "testutil.h"

#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x

static locale_t c_locale(void)
{
	static locale_t loc;
	if (!loc)
		loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	ck_assert_ptr_nonnull(loc);
	return loc;
}

/* ---- deterministic random numbers ------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

/* ---- integers --------------------------------------------------------------------- */

typedef struct {
	const char *s;
	ox_num_status st;
	int64_t v;
} i64_case;

static const i64_case i64_cases[] = {
	{"0", OX_NUM_OK, 0},
	{"-0", OX_NUM_OK, 0},
	{"7", OX_NUM_OK, 7},
	{"-7", OX_NUM_OK, -7},
	{"007", OX_NUM_OK, 7}, /* leading zeros are plain decimal, not octal */
	{"-007", OX_NUM_OK, -7},
	{"000000000000000000000000000000000000042", OX_NUM_OK, 42},
	{"9223372036854775807", OX_NUM_OK, INT64_MAX},
	{"0009223372036854775807", OX_NUM_OK, INT64_MAX},
	{"9223372036854775808", OX_NUM_RANGE, 0},
	{"-9223372036854775808", OX_NUM_OK, INT64_MIN},
	{"-0009223372036854775808", OX_NUM_OK, INT64_MIN},
	{"-9223372036854775809", OX_NUM_RANGE, 0},
	{"18446744073709551615", OX_NUM_RANGE, 0},
	{"18446744073709551616", OX_NUM_RANGE, 0},
	{"99999999999999999999999999999", OX_NUM_RANGE, 0},
	{"-99999999999999999999999999999", OX_NUM_RANGE, 0},
	{"", OX_NUM_SYNTAX, 0},
	{"-", OX_NUM_SYNTAX, 0},
	{"+1", OX_NUM_SYNTAX, 0},
	{"1a", OX_NUM_SYNTAX, 0},
	{"1.0", OX_NUM_SYNTAX, 0},
	{"1e3", OX_NUM_SYNTAX, 0},
	{" 1", OX_NUM_SYNTAX, 0},
	{"1 ", OX_NUM_SYNTAX, 0},
};

START_TEST(i64_table)
{
	const i64_case *c = &i64_cases[_i];
	int64_t v = 12345;
	ox_num_status st = ox_parse_i64(c->s, strlen(c->s), &v);
	ck_assert_msg(st == c->st, "'%s': status %d, want %d", c->s, st, c->st);
	if (c->st == OX_NUM_OK)
		ck_assert_msg(v == c->v, "'%s': %lld, want %lld", c->s, (long long)v, (long long)c->v);
}
END_TEST

typedef struct {
	const char *s;
	ox_num_status st;
	uint64_t v;
} u64_case;

static const u64_case u64_cases[] = {
	{"0", OX_NUM_OK, 0},
	{"42", OX_NUM_OK, 42},
	{"0042", OX_NUM_OK, 42},
	{"9223372036854775808", OX_NUM_OK, 9223372036854775808ull},
	{"18446744073709551615", OX_NUM_OK, UINT64_MAX},
	{"000018446744073709551615", OX_NUM_OK, UINT64_MAX},
	{"18446744073709551616", OX_NUM_RANGE, 0},
	{"99999999999999999999999", OX_NUM_RANGE, 0},
	/* P3: negative values are errors for unsigned types (HEAD wraps -1 to 2^64-1). */
	{"-1", OX_NUM_RANGE, 0},
	/* "-0" is the INT literal 0 (SYNTAX.md §1.5), not a negative value */
	{"-0", OX_NUM_OK, 0},
	{"-000", OX_NUM_OK, 0},
	{"-", OX_NUM_SYNTAX, 0},
	{"-18446744073709551615", OX_NUM_RANGE, 0},
	{"", OX_NUM_SYNTAX, 0},
	{"+1", OX_NUM_SYNTAX, 0},
	{"1x", OX_NUM_SYNTAX, 0},
	{"1.5", OX_NUM_SYNTAX, 0},
};

START_TEST(u64_table)
{
	const u64_case *c = &u64_cases[_i];
	uint64_t v = 12345;
	ox_num_status st = ox_parse_u64(c->s, strlen(c->s), &v);
	ck_assert_msg(st == c->st, "'%s': status %d, want %d", c->s, st, c->st);
	if (c->st == OX_NUM_OK)
		ck_assert_msg(v == c->v, "'%s': %llu, want %llu", c->s, (unsigned long long)v,
			      (unsigned long long)c->v);
}
END_TEST

/* The length argument is honoured: nothing past it is read. */
START_TEST(int_length_bounds)
{
	int64_t v;
	uint64_t u;
	ck_assert_int_eq(ox_parse_i64("123456", 3, &v), OX_NUM_OK);
	ck_assert_int_eq(v, 123);
	ck_assert_int_eq(ox_parse_u64("9x", 1, &u), OX_NUM_OK);
	ck_assert_uint_eq(u, 9);
	ck_assert_int_eq(ox_parse_i64("-5", 1, &v), OX_NUM_SYNTAX);
}
END_TEST

/* ---- float / double: against glibc in the C locale -------------------------------- */

static uint64_t dbits(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

static uint32_t fbits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

/* A decimal literal in the syntax's form: -? digits ('.' digits*)? ([eE] [+-]? digits)? */
static void random_decimal(char *buf, int elo, int ehi)
{
	char *p = buf;
	if (below(4) == 0)
		*p++ = '-';
	int k;
	switch (below(5)) {
	case 0: k = 1 + (int)below(8); break;
	case 1: k = 9 + (int)below(8); break;
	case 2: case 3: k = 17 + (int)below(9); break; /* 17-25 digit mantissas */
	default: k = 1 + (int)below(60); break;
	}
	int lead = below(8) == 0 ? 1 + (int)below(4) : 0;
	int total = lead + k;
	int dot = below(3) == 0 ? -1 : 1 + (int)below((uint64_t)total); /* digits before the dot */
	for (int i = 0; i < total; i++) {
		if (i == dot)
			*p++ = '.';
		*p++ = i < lead ? '0' : (char)('0' + below(10));
	}
	if (dot == total)
		*p++ = '.'; /* "1." */
	if (below(5) != 0) {
		*p++ = below(2) ? 'e' : 'E';
		int r = (int)below(3);
		int e = elo + (int)below((uint64_t)(ehi - elo + 1));
		if (e < 0 || r == 0)
			*p++ = e < 0 ? '-' : '+';
		if (below(10) == 0)
			*p++ = '0';
		p += sprintf(p, "%d", abs(e));
	}
	*p = '\0';
}

static void check_double_vs_glibc(const char *s)
{
	double want = strtod_l(s, NULL, c_locale()), got = 0;
	ox_num_status st = ox_parse_double(s, strlen(s), &got);
	if (isinf(want)) {
		REQUIRE(st == OX_NUM_RANGE, "'%s': status %d, want OX_NUM_RANGE (overflow)", s, st);
		return;
	}
	REQUIRE(st == OX_NUM_OK, "'%s': status %d", s, st);
	REQUIRE(dbits(got) == dbits(want), "'%s': got %a, strtod %a", s, got, want);
}

static void check_float_vs_glibc(const char *s)
{
	float want = strtof_l(s, NULL, c_locale()), got = 0;
	ox_num_status st = ox_parse_float(s, strlen(s), &got);
	if (isinf(want)) {
		REQUIRE(st == OX_NUM_RANGE, "'%s': status %d, want OX_NUM_RANGE (overflow)", s, st);
		return;
	}
	REQUIRE(st == OX_NUM_OK, "'%s': status %d", s, st);
	REQUIRE(fbits(got) == fbits(want), "'%s': got %a, strtof %a", s, got, want);
}

START_TEST(double_random_vs_strtod)
{
	char buf[128];
	rng = 0x1234567887654321ull;
	for (int i = 0; i < tu_rounds(150000); i++) {
		random_decimal(buf, i % 2 ? -345 : -30, i % 2 ? 330 : 30);
		check_double_vs_glibc(buf);
	}
}
END_TEST

START_TEST(float_random_vs_strtof)
{
	char buf[128];
	rng = 0x0fedcba987654321ull;
	for (int i = 0; i < tu_rounds(150000); i++) {
		random_decimal(buf, i % 2 ? -70 : -12, i % 2 ? 50 : 12);
		check_float_vs_glibc(buf);
	}
}
END_TEST

/* Random doubles and floats printed with 1-25 significant digits: the shortest and the
 * not-quite-shortest forms that printers produce. */
START_TEST(printed_values_vs_glibc)
{
	char buf[64];
	rng = 0xa5a5a5a55a5a5a5aull;
	for (int i = 0; i < tu_rounds(100000); i++) {
		uint64_t b = rnd();
		double d;
		memcpy(&d, &b, sizeof d);
		if (!isfinite(d))
			continue;
		snprintf(buf, sizeof buf, "%.*g", 1 + (int)below(25), d);
		check_double_vs_glibc(buf);
		float f;
		uint32_t fb = (uint32_t)b;
		memcpy(&f, &fb, sizeof f);
		if (!isfinite(f))
			continue;
		snprintf(buf, sizeof buf, "%.*g", 1 + (int)below(12), (double)f);
		check_float_vs_glibc(buf);
	}
}
END_TEST

/* Exact decimal expansion of v (glibc prints binary floating point exactly) as its
 * significant digits and a decimal exponent: v = 0.DIGITS x 10^exp10. */
/* Whether long double holds the 64-bit mantissas the double midpoints need: x87 does, but
 * valgrind (tu_slow()) computes it in 64-bit doubles. */
static bool exact_long_double(void)
{
	return LDBL_MANT_DIG >= 64 && !tu_slow();
}

static void exact_digits(long double v, char *digits, size_t cap, long *exp10)
{
	static char tmp[1300];
	snprintf(tmp, sizeof tmp, "%.1150Le", fabsl(v));
	char *e = strchr(tmp, 'e');
	REQUIRE(e != NULL, "no exponent");
	long x = strtol(e + 1, NULL, 10);
	size_t n = 0;
	for (char *p = tmp; p < e; p++)
		if (*p >= '0' && *p <= '9') {
			REQUIRE(n + 1 < cap, "%s", "n + 1 < cap");
			digits[n++] = *p;
		}
	REQUIRE(e[-1] == '0' || n < 1150, "precision too small for an exact expansion");
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*exp10 = x + 1;
}

/* Formats "D.DDDD" + tail + "e<exp>" from digits with value 0.DIGITS x 10^exp10. */
static void format_digits(char *out, const char *sign, const char *digits, const char *tail, long exp10)
{
	sprintf(out, "%s%c.%s%se%ld", sign, digits[0], digits + 1, tail, exp10 - 1);
}

enum hair { EXACT, ABOVE, BELOW };

/* The decimal text of v itself, or of v moved by about 10^-40 of its value, far less
 * than one ulp of double or long double. */
static void decimal_near(char *out, const char *sign, long double v, enum hair h)
{
	static char digits[1300];
	long e;
	exact_digits(v, digits, sizeof digits, &e);
	if (h == EXACT) {
		format_digits(out, sign, digits, "", e);
	} else if (h == ABOVE) {
		format_digits(out, sign, digits, "0000000000000000000000000000000000000001", e);
	} else {
		size_t n = strlen(digits);
		REQUIRE(digits[n - 1] != '0', "%s", "digits[n - 1] != '0'");
		digits[n - 1]--;
		format_digits(out, sign, digits, "9999999999999999999999999999999999999999", e);
	}
}

/* Halfway between two adjacent floats (all such midpoints are doubles): the exact
 * decimal ties to even; a hair above or below decides by the exact decimal value. */
START_TEST(float_midpoints)
{
	static char s[1400];
	rng = 0x77777777deadbeefull;
	for (int i = 0; i < tu_rounds(4000); i++) {
		uint32_t lo_bits = (uint32_t)below(0x7f7fffff); /* up to the float below FLT_MAX */
		if (i < 40)
			lo_bits = (uint32_t)i; /* zero and the smallest subnormals */
		float lo, hi;
		memcpy(&lo, &lo_bits, 4);
		hi = nextafterf(lo, INFINITY);
		double mid = ((double)lo + (double)hi) / 2;
		uint32_t even = (lo_bits & 1) ? fbits(hi) : lo_bits;
		for (int neg = 0; neg < 2; neg++) {
			const char *sign = neg ? "-" : "";
			uint32_t sb = neg ? 0x80000000u : 0;
			struct {
				enum hair h;
				uint32_t want;
			} cases[] = {{EXACT, even}, {ABOVE, fbits(hi)}, {BELOW, lo_bits}};
			for (int c = 0; c < 3; c++) {
				decimal_near(s, sign, mid, cases[c].h);
				float got;
				REQUIRE(ox_parse_float(s, strlen(s), &got) == OX_NUM_OK, "'%s'", s);
				REQUIRE(fbits(got) == (cases[c].want | sb), "'%s': got %a, want bits %08x", s, got,
					      cases[c].want | sb);
				check_float_vs_glibc(s);
			}
		}
	}
}
END_TEST

/* Midpoints cut to 12-19 significant digits: short enough for a fast path, and often so
 * close that their first rounding to double lands exactly on the midpoint; the float
 * must still round by the decimal value (down when truncated, up when the last digit is
 * rounded up). */
START_TEST(float_near_midpoints_short)
{
	static char digits[1300], s[64];
	rng = 0x3141592653589793ull;
	int tested = 0;
	for (int i = 0; i < tu_rounds(20000); i++) {
		/* normal floats; half of them between 2^-20 and 2^60, where the fast path applies */
		uint32_t lo_bits = i % 2 ? 0x00800000u + (uint32_t)below(0x7f000000u - 0x00800000u)
					 : ((127u - 20) << 23) + (uint32_t)below(80u << 23);
		float lo, hi;
		memcpy(&lo, &lo_bits, 4);
		hi = nextafterf(lo, INFINITY);
		double mid = ((double)lo + (double)hi) / 2;
		long e;
		exact_digits(mid, digits, sizeof digits, &e);
		size_t n = strlen(digits);
		for (size_t keep = 12; keep <= 19; keep++) {
			if (n <= keep)
				continue;
			char cut[32];
			memcpy(cut, digits, keep);
			cut[keep] = '\0';
			sprintf(s, "%c.%se%ld", cut[0], cut + 1, e - 1);
			float got;
			REQUIRE(ox_parse_float(s, strlen(s), &got) == OX_NUM_OK, "'%s': not OK", s);
			REQUIRE(fbits(got) == lo_bits, "'%s' (below a midpoint): got %a, want %a", s, got, lo);
			/* round the last kept digit up */
			int k = (int)keep - 1;
			while (k >= 0 && cut[k] == '9')
				cut[k--] = '0';
			if (k < 0)
				continue;
			cut[k]++;
			sprintf(s, "%c.%se%ld", cut[0], cut + 1, e - 1);
			REQUIRE(ox_parse_float(s, strlen(s), &got) == OX_NUM_OK, "'%s': not OK", s);
			REQUIRE(fbits(got) == fbits(hi), "'%s' (above a midpoint): got %a, want %a", s, got, hi);
			tested++;
		}
	}
	ck_assert_int_gt(tested, tu_rounds(20000) * 5);
}
END_TEST

/* The same for doubles, with midpoints computed exactly in x87 long double. */
START_TEST(double_midpoints)
{
	static char s[1400];
	if (!exact_long_double())
		return;
	rng = 0x5555aaaa1234abcdull;
	for (int i = 0; i < 1500; i++) {
		uint64_t lo_bits = below(0x7fefffffffffffffull);
		if (i < 20)
			lo_bits = (uint64_t)i;
		double lo, hi;
		memcpy(&lo, &lo_bits, 8);
		hi = nextafter(lo, INFINITY);
		long double mid = ((long double)lo + (long double)hi) / 2;
		uint64_t even = (lo_bits & 1) ? dbits(hi) : lo_bits;
		struct {
			enum hair h;
			uint64_t want;
		} cases[] = {{EXACT, even}, {ABOVE, dbits(hi)}, {BELOW, lo_bits}};
		for (int c = 0; c < 3; c++) {
			decimal_near(s, i % 2 ? "-" : "", mid, cases[c].h);
			double got;
			REQUIRE(ox_parse_double(s, strlen(s), &got) == OX_NUM_OK, "'%s'", s);
			uint64_t want = cases[c].want | (i % 2 ? 1ull << 63 : 0);
			REQUIRE(dbits(got) == want, "'%s': got %a", s, got);
			check_double_vs_glibc(s);
		}
	}
}
END_TEST

/* Overflow just past the largest finite value; everything below it rounds down. */
START_TEST(overflow_boundaries)
{
	static char s[1400];
	float f;
	double d;
	/* FLT_MAX and the midpoint to 2^128, which ties to the even 2^128 = overflow */
	long double fmid = ((long double)FLT_MAX + 0x1p128L) / 2;
	decimal_near(s, "", fmid, EXACT);
	ck_assert_int_eq(ox_parse_float(s, strlen(s), &f), OX_NUM_RANGE);
	decimal_near(s, "-", fmid, ABOVE);
	ck_assert_int_eq(ox_parse_float(s, strlen(s), &f), OX_NUM_RANGE);
	decimal_near(s, "", fmid, BELOW);
	ck_assert_int_eq(ox_parse_float(s, strlen(s), &f), OX_NUM_OK);
	ck_assert(f == FLT_MAX);
	decimal_near(s, "-", fmid, BELOW);
	ck_assert_int_eq(ox_parse_float(s, strlen(s), &f), OX_NUM_OK);
	ck_assert(f == -FLT_MAX);

	if (exact_long_double()) {
		long double dmid = ((long double)DBL_MAX + 0x1p1024L) / 2;
		decimal_near(s, "", dmid, EXACT);
		ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_RANGE);
		decimal_near(s, "", dmid, BELOW);
		ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_OK);
		ck_assert(d == DBL_MAX);
	}

	static const struct {
		const char *s;
		int is_float;
		ox_num_status st;
	} t[] = {
		{"3e40", 1, OX_NUM_RANGE},
		{"-3e40", 1, OX_NUM_RANGE},
		{"1e39", 1, OX_NUM_RANGE},
		{"1e400", 1, OX_NUM_RANGE},
		{"340282356779733661637539395458142568448", 1, OX_NUM_RANGE},
		{"340282356779733661637539395458142568447", 1, OX_NUM_OK},
		{"3.4028235e38", 1, OX_NUM_OK},
		{"3.4028235677973366e38", 1, OX_NUM_OK},
		{"3.4028235677973367e38", 1, OX_NUM_RANGE},
		{"1e309", 0, OX_NUM_RANGE},
		{"-1e309", 0, OX_NUM_RANGE},
		{"1.7976931348623157e308", 0, OX_NUM_OK},
		{"1.7976931348623158e308", 0, OX_NUM_OK},
		{"1.7976931348623159e308", 0, OX_NUM_RANGE},
		{"1e99999999999999999999", 0, OX_NUM_RANGE},
		{"1e99999999999999999999", 1, OX_NUM_RANGE},
		{"1e-99999999999999999999", 0, OX_NUM_OK},
		{"0e99999999999999999999", 0, OX_NUM_OK},
		{"0e99999999999999999999", 1, OX_NUM_OK},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		ox_num_status st = t[i].is_float ? ox_parse_float(t[i].s, strlen(t[i].s), &f)
						 : ox_parse_double(t[i].s, strlen(t[i].s), &d);
		ck_assert_msg(st == t[i].st, "'%s' as %s: status %d, want %d", t[i].s, t[i].is_float ? "float" : "double",
			      st, t[i].st);
		if (t[i].is_float)
			check_float_vs_glibc(t[i].s);
		else
			check_double_vs_glibc(t[i].s);
	}
}
END_TEST

/* Underflow is accepted (PR #8195): tiny values become subnormals or zero, keeping the
 * sign. */
START_TEST(underflow_and_subnormals)
{
	static const char *const fl[] = {
		"1e-46", "-1e-46", "1e-45", "1.401298464324817e-45", "7e-46", "7.1e-46", "1.1754942e-38",
		"1.17549435e-38", "5e-40", "-5e-40", "1e-400", "-1e-400", "1e-99999999999", "2.2e-44",
	};
	static const char *const dl[] = {
		"1e-330", "-1e-330", "4.9406564584124654e-324", "2.4703282292062327e-324",
		"2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072014e-308", "1e-320",
		"-1e-400", "1e-99999999999",
	};
	for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
		check_float_vs_glibc(fl[i]);
	for (size_t i = 0; i < sizeof dl / sizeof dl[0]; i++)
		check_double_vs_glibc(dl[i]);
	float f;
	ck_assert_int_eq(ox_parse_float("1e-46", 5, &f), OX_NUM_OK);
	ck_assert(f == 0 && !signbit(f));
	ck_assert_int_eq(ox_parse_float("-1e-46", 6, &f), OX_NUM_OK);
	ck_assert(f == 0 && signbit(f));
	ck_assert_int_eq(ox_parse_float("1e-45", 5, &f), OX_NUM_OK);
	ck_assert_uint_eq(fbits(f), 1); /* the smallest subnormal */
	double d;
	ck_assert_int_eq(ox_parse_double("4.9406564584124654e-324", 23, &d), OX_NUM_OK);
	ck_assert_uint_eq(dbits(d), 1);
}
END_TEST

/* Very long texts and exponents that cancel the digit count. */
START_TEST(long_texts)
{
	static char s[2200];
	/* 0.000...001e401 = 1 */
	strcpy(s, "0.");
	memset(s + 2, '0', 400);
	strcpy(s + 402, "1e401");
	check_double_vs_glibc(s);
	check_float_vs_glibc(s);
	double d;
	ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_OK);
	ck_assert(d == 1.0);
	/* 1000...000e-400 = 1 */
	s[0] = '1';
	memset(s + 1, '0', 400);
	strcpy(s + 401, "e-400");
	check_double_vs_glibc(s);
	check_float_vs_glibc(s);
	ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_OK);
	ck_assert(d == 1.0);
	/* beyond 800 significant digits only whether a nonzero digit follows can matter: the
	 * midpoint between 1 and its successor (1 + 2^-53, 54 digits) is a tie, to even; a 1
	 * a thousand digits later tips it up */
	strcpy(s, "1.00000000000000011102230246251565404236316680908203125");
	check_double_vs_glibc(s);
	ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_OK);
	ck_assert(d == 1.0);
	size_t len = strlen(s);
	memset(s + len, '0', 1000);
	strcpy(s + len + 1000, "1");
	check_double_vs_glibc(s);
	ck_assert_int_eq(ox_parse_double(s, strlen(s), &d), OX_NUM_OK);
	ck_assert(d == 1.0 + 0x1p-52);
	/* many leading zeros in the fraction: underflow to zero, not an error */
	strcpy(s, "0.");
	memset(s + 2, '0', 2100);
	strcpy(s + 2102, "1");
	check_double_vs_glibc(s);
	/* 2000 random digits with a dot in the middle, a few times */
	rng = 42;
	for (int r = 0; r < 50; r++) {
		for (int i = 0; i < 2000; i++)
			s[i] = (char)('0' + below(10));
		s[0] = (char)('1' + below(9));
		s[1000] = '.';
		sprintf(s + 2000, "e%d", (int)below(40) - 1020);
		check_double_vs_glibc(s);
		check_float_vs_glibc(s);
	}
}
END_TEST

typedef struct {
	const char *s;
	int cls; /* 1 +inf, -1 -inf, 2 nan, -2 nan with the sign bit */
} special_case;

static const special_case specials[] = {
	{"inf", 1},       {"INF", 1},       {"Inf", 1},        {"iNf", 1},       {"infinity", 1},
	{"INFINITY", 1},  {"Infinity", 1},  {"inFINity", 1},   {"-inf", -1},     {"-INF", -1},
	{"-Infinity", -1}, {"-infinity", -1}, {"nan", 2},      {"NaN", 2},       {"NAN", 2},
	{"nAn", 2},       {"-nan", -2},     {"-NaN", -2},      {"-NAN", -2},
};

START_TEST(special_values)
{
	const special_case *c = &specials[_i];
	double d;
	float f;
	ck_assert_msg(ox_parse_double(c->s, strlen(c->s), &d) == OX_NUM_OK, "'%s' as double", c->s);
	ck_assert_msg(ox_parse_float(c->s, strlen(c->s), &f) == OX_NUM_OK, "'%s' as float", c->s);
	if (abs(c->cls) == 1) {
		ck_assert(isinf(d) && isinf(f));
	} else {
		ck_assert(isnan(d) && isnan(f));
	}
	/* '-nan' is NaN with the sign bit set (SYNTAX.md §1.5) */
	ck_assert_msg(!!signbit(d) == (c->cls < 0) && !!signbit(f) == (c->cls < 0), "'%s': sign", c->s);
}
END_TEST

static const char *const malformed[] = {
	"",      "-",     "+1",     "+inf",  "- 1",    "inf1",   "infin",  "infinityy", "nan0",  "nan_g",
	"in",    "na",    "-in",    "1e",    "1e+",    "1e-",    "1.5.3",  ".",         "e5",    "1..2",
	"0x10",  "1e5x",  " 1",     "1 ",    "1,5",    "--1",    "1e5.0",  "1f",        "-.",    "inf ",
};

START_TEST(malformed_numbers)
{
	const char *s = malformed[_i];
	double d;
	float f;
	ck_assert_msg(ox_parse_double(s, strlen(s), &d) == OX_NUM_SYNTAX, "'%s' as double", s);
	ck_assert_msg(ox_parse_float(s, strlen(s), &f) == OX_NUM_SYNTAX, "'%s' as float", s);
}
END_TEST

START_TEST(signed_zero)
{
	static const struct {
		const char *s;
		int neg;
	} t[] = {
		{"0", 0}, {"0.0", 0}, {"0e10", 0}, {"000.000", 0}, {"-0", 1}, {"-0.0", 1},
		{"-0.", 1}, {"-0e10", 1}, {"-0.000e-400", 1}, {"-000", 1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double d = 1;
		float f = 1;
		ck_assert_int_eq(ox_parse_double(t[i].s, strlen(t[i].s), &d), OX_NUM_OK);
		ck_assert_int_eq(ox_parse_float(t[i].s, strlen(t[i].s), &f), OX_NUM_OK);
		ck_assert_msg(d == 0 && !!signbit(d) == t[i].neg, "'%s' as double: %a", t[i].s, d);
		ck_assert_msg(f == 0 && !!signbit(f) == t[i].neg, "'%s' as float: %a", t[i].s, (double)f);
	}
}
END_TEST

/* Switches to a locale whose decimal point is ',': an installed one, or else de_DE
 * compiled with localedef into a temporary LOCPATH (this runs in Check's forked child,
 * so the environment change stays there). NULL when neither works. */
static char locale_dir[] = "/tmp/onnxtxt-locale-XXXXXX";
static bool made_locale_dir;

static const char *comma_locale(void)
{
	static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
	for (int attempt = 0; attempt < 2; attempt++) {
		const char *found = NULL;
		for (size_t i = 0; i < sizeof names / sizeof names[0] && !found; i++)
			if (setlocale(LC_ALL, names[i]) && strcmp(localeconv()->decimal_point, ",") == 0)
				found = names[i];
		if (made_locale_dir) { /* loaded (or not): the files are no longer needed */
			char cmd[256];
			snprintf(cmd, sizeof cmd, "rm -rf %s", locale_dir);
			int rc = system(cmd);
			(void)rc;
		}
		if (found || attempt == 1)
			return found;
		if (!mkdtemp(locale_dir))
			return NULL;
		made_locale_dir = true;
		char cmd[256];
		snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", locale_dir);
		int rc = system(cmd);
		(void)rc; /* localedef warns with a non-zero status even when it succeeds */
		setenv("LOCPATH", locale_dir, 1);
	}
	return NULL;
}

/* Parsing must not depend on the process locale (issue #8111). */
START_TEST(locale_independent)
{
	static const char *const texts[] = {
		"1.5", "-2.25e3", "0.1", "3.14159265358979323846264338327950288419716939937510",
		"1.00000000000000000000000000001", "2.2250738585072011e-308", "1e-45", "123456789012345678901234.5",
	};
	enum { N = sizeof texts / sizeof texts[0] };
	double want_d[N];
	float want_f[N];
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(ox_parse_double(texts[i], strlen(texts[i]), &want_d[i]), OX_NUM_OK);
		ck_assert_int_eq(ox_parse_float(texts[i], strlen(texts[i]), &want_f[i]), OX_NUM_OK);
	}
	const char *used = comma_locale();
	if (!used) {
		fprintf(stderr, "# locale_independent: no locale with a decimal comma available, check skipped\n");
		return;
	}
	for (int i = 0; i < N; i++) {
		double d;
		float f;
		ck_assert_msg(ox_parse_double(texts[i], strlen(texts[i]), &d) == OX_NUM_OK, "%s: '%s'", used, texts[i]);
		ck_assert_msg(ox_parse_float(texts[i], strlen(texts[i]), &f) == OX_NUM_OK, "%s: '%s'", used, texts[i]);
		ck_assert_msg(dbits(d) == dbits(want_d[i]) && fbits(f) == fbits(want_f[i]), "%s: '%s'", used,
			      texts[i]);
	}
	double d;
	ck_assert_int_eq(ox_parse_double("1,5", 3, &d), OX_NUM_SYNTAX);
	setlocale(LC_ALL, "C");
}
END_TEST

/* ---- narrow floats ------------------------------------------------------------------- */

typedef struct {
	int dtype;
	const char *name;
	int width;
	bool has_inf, has_nan, has_sign, fnuz;
	uint32_t max_bits;
} narrow;

static const narrow formats[] = {
	{DT(FLOAT16), "float16", 16, true, true, true, false, 0x7bff},
	{DT(BFLOAT16), "bfloat16", 16, true, true, true, false, 0x7f7f},
	{DT(FLOAT8E4M3FN), "float8e4m3fn", 8, false, true, true, false, 0x7e},
	{DT(FLOAT8E4M3FNUZ), "float8e4m3fnuz", 8, false, true, true, true, 0x7f},
	{DT(FLOAT8E5M2), "float8e5m2", 8, true, true, true, false, 0x7b},
	{DT(FLOAT8E5M2FNUZ), "float8e5m2fnuz", 8, false, true, true, true, 0x7f},
	{DT(FLOAT8E8M0), "float8e8m0", 8, false, true, false, false, 0xfe},
	{DT(FLOAT4E2M1), "float4e2m1", 4, false, false, true, false, 0x7},
};
enum { NFORMATS = sizeof formats / sizeof formats[0] };

/* Independent decoders written from the format definitions (IEEE 754 binary16, bfloat16,
 * the OCP FP8 formats, the fnuz variants of Graphcore/AMD, OCP MX E8M0 and FP4). */
static double ref_decode(int dtype, uint32_t b)
{
	double s = 1;
	switch (dtype) {
	case DT(FLOAT16): {
		s = b >> 15 ? -1 : 1;
		uint32_t e = b >> 10 & 31, m = b & 1023;
		if (e == 31)
			return m ? NAN : s * INFINITY;
		return s * (e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24));
	}
	case DT(BFLOAT16): {
		uint32_t w = b << 16;
		float f;
		memcpy(&f, &w, 4);
		return isnan(f) ? NAN : f;
	}
	case DT(FLOAT8E4M3FN): {
		s = b >> 7 ? -1 : 1;
		uint32_t e = b >> 3 & 15, m = b & 7;
		if ((b & 0x7f) == 0x7f)
			return NAN;
		return s * (e ? ldexp(8 + m, (int)e - 10) : ldexp(m, -9));
	}
	case DT(FLOAT8E4M3FNUZ): {
		if (b == 0x80)
			return NAN;
		s = b >> 7 ? -1 : 1;
		uint32_t e = b >> 3 & 15, m = b & 7;
		return s * (e ? ldexp(8 + m, (int)e - 11) : ldexp(m, -10));
	}
	case DT(FLOAT8E5M2): {
		s = b >> 7 ? -1 : 1;
		uint32_t e = b >> 2 & 31, m = b & 3;
		if (e == 31)
			return m ? NAN : s * INFINITY;
		return s * (e ? ldexp(4 + m, (int)e - 17) : ldexp(m, -16));
	}
	case DT(FLOAT8E5M2FNUZ): {
		if (b == 0x80)
			return NAN;
		s = b >> 7 ? -1 : 1;
		uint32_t e = b >> 2 & 31, m = b & 3;
		return s * (e ? ldexp(4 + m, (int)e - 18) : ldexp(m, -17));
	}
	case DT(FLOAT8E8M0):
		return b == 0xff ? NAN : ldexp(1, (int)b - 127);
	case DT(FLOAT4E2M1): {
		s = b >> 3 ? -1 : 1;
		uint32_t e = b >> 1 & 3, m = b & 1;
		return s * (e ? ldexp(2 + m, (int)e - 2) : m * 0.5);
	}
	}
	ck_abort_msg("unknown format %d", dtype);
	return 0;
}

static bool same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static uint32_t sign_mask(const narrow *f)
{
	return f->has_sign ? 1u << (f->width - 1) : 0;
}

START_TEST(narrow_decode_matches_definition)
{
	const narrow *f = &formats[_i];
	for (uint32_t b = 0; b < 1u << f->width; b++) {
		double got = ox_narrow_to_double(f->dtype, b), want = ref_decode(f->dtype, b);
		REQUIRE(same_value(got, want), "%s 0x%x: got %a, want %a", f->name, b, got, want);
	}
	REQUIRE(ox_elem_narrow(f->dtype) != NULL, "%s has a narrow-float format", f->name);
}
END_TEST

/* Every bit pattern, printed with %.17g, parses back to itself; NaNs to a NaN. */
START_TEST(narrow_round_trip_exhaustive)
{
	const narrow *f = &formats[_i];
	char s[64];
	for (uint32_t b = 0; b < 1u << f->width; b++) {
		double v = ref_decode(f->dtype, b);
		snprintf(s, sizeof s, "%.17g", v);
		uint32_t got = 0xdeadbeef;
		ox_num_status st = ox_parse_narrow_float(f->dtype, s, strlen(s), &got);
		REQUIRE(st == OX_NUM_OK, "%s 0x%x ('%s'): status %d", f->name, b, s, st);
		if (isnan(v))
			REQUIRE(isnan(ref_decode(f->dtype, got)), "%s '%s': got 0x%x, not a NaN", f->name, s, got);
		else
			REQUIRE(got == b, "%s '%s': got 0x%x, want 0x%x", f->name, s, got, b);
	}
}
END_TEST

/* The finite non-negative values of a format in increasing order, with their bits. */
static size_t grid(const narrow *f, double *val, uint32_t *bits)
{
	size_t n = 0;
	for (uint32_t b = 0; b < 1u << f->width; b++) {
		if (b & sign_mask(f))
			continue;
		double v = ref_decode(f->dtype, b);
		if (!isfinite(v))
			continue;
		val[n] = v;
		bits[n++] = b;
	}
	for (size_t i = 1; i < n; i++)
		REQUIRE(val[i] > val[i - 1], "%s: values not increasing with the bits", f->name);
	return n;
}

/* On an exact midpoint the result is the neighbour with an even encoding. float8e8m0 has
 * no mantissa bits; its ties round up, as ONNX's "nearest" conversion for E8M0 does
 * (numpy_helper.to_float8e8m0(round_mode="nearest")). */
static uint32_t tie_winner(const narrow *f, uint32_t lo, uint32_t hi)
{
	if (f->dtype == DT(FLOAT8E8M0))
		return hi;
	return (lo & 1) ? hi : lo;
}

static uint32_t with_sign(const narrow *f, uint32_t b, bool neg)
{
	if (!neg)
		return b;
	if (f->fnuz && b == 0)
		return 0; /* no negative zero: 0x80 is NaN */
	return b | sign_mask(f);
}

static void expect_narrow(const narrow *f, const char *s, ox_num_status st, uint32_t bits)
{
	uint32_t got = 0xdeadbeef;
	ox_num_status r = ox_parse_narrow_float(f->dtype, s, strlen(s), &got);
	REQUIRE(r == st, "%s '%.80s': status %d, want %d", f->name, s, r, st);
	if (st == OX_NUM_OK)
		REQUIRE(got == bits, "%s '%.80s': got 0x%x, want 0x%x", f->name, s, got, bits);
}

START_TEST(narrow_midpoints)
{
	const narrow *f = &formats[_i];
	static double val[1 << 16];
	static uint32_t bits[1 << 16];
	static char s[1400];
	size_t n = grid(f, val, bits);
	size_t step = n > 2000 ? n / 1500 : 1; /* 16-bit formats: a sample of every region */
	for (size_t i = 0; i + 1 < n; i += step) {
		double mid = (val[i] + val[i + 1]) / 2; /* exact: one more bit than the format */
		for (int neg = 0; neg <= f->has_sign; neg++) {
			const char *sign = neg ? "-" : "";
			decimal_near(s, sign, mid, EXACT);
			expect_narrow(f, s, OX_NUM_OK, with_sign(f, tie_winner(f, bits[i], bits[i + 1]), neg));
			decimal_near(s, sign, mid, ABOVE);
			expect_narrow(f, s, OX_NUM_OK, with_sign(f, bits[i + 1], neg));
			decimal_near(s, sign, mid, BELOW);
			expect_narrow(f, s, OX_NUM_OK, with_sign(f, bits[i], neg));
		}
	}
}
END_TEST

/* The largest finite value, and the first decimal that rounds beyond it (an error, even
 * where the format has an infinity: SYNTAX-DECISIONS P2). */
/* A tie decided by a digit far beyond the first thousand: float4e2m1's 0.25 lies halfway
 * between 0 and 0.5 (a tie, to the even 0), and any nonzero digit after it rounds up. */
START_TEST(narrow_tie_decided_late)
{
	static char s[1400];
	strcpy(s, "0.25");
	memset(s + 4, '0', 1200);
	strcpy(s + 1204, "1");
	uint32_t bits;
	ck_assert_int_eq(ox_parse_narrow_float(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT4E2M1, s, strlen(s), &bits),
			 OX_NUM_OK);
	ck_assert_uint_eq(bits, 1);
	s[1204] = '\0';
	ck_assert_int_eq(ox_parse_narrow_float(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT4E2M1, s, strlen(s), &bits),
			 OX_NUM_OK);
	ck_assert_uint_eq(bits, 0);
}
END_TEST

START_TEST(narrow_max_and_overflow)
{
	const narrow *f = &formats[_i];
	static char s[1400];
	double max = ref_decode(f->dtype, f->max_bits);
	double next; /* where the next value would be with an unbounded exponent */
	if (f->dtype == DT(FLOAT8E8M0)) {
		next = 2 * max;
	} else {
		double prev = ref_decode(f->dtype, f->max_bits - 1);
		next = max + (max - prev);
	}
	double mid = (max + next) / 2;
	bool tie_up = f->dtype == DT(FLOAT8E8M0) || (f->max_bits & 1);
	for (int neg = 0; neg <= f->has_sign; neg++) {
		const char *sign = neg ? "-" : "";
		snprintf(s, sizeof s, "%s%.17g", sign, max);
		expect_narrow(f, s, OX_NUM_OK, with_sign(f, f->max_bits, neg));
		decimal_near(s, sign, mid, BELOW);
		expect_narrow(f, s, OX_NUM_OK, with_sign(f, f->max_bits, neg));
		decimal_near(s, sign, mid, EXACT);
		expect_narrow(f, s, tie_up ? OX_NUM_RANGE : OX_NUM_OK, with_sign(f, f->max_bits, neg));
		decimal_near(s, sign, mid, ABOVE);
		expect_narrow(f, s, OX_NUM_RANGE, 0);
		snprintf(s, sizeof s, "%s%.17g", sign, next);
		expect_narrow(f, s, OX_NUM_RANGE, 0);
		snprintf(s, sizeof s, "%s1e300", sign);
		expect_narrow(f, s, OX_NUM_RANGE, 0);
		snprintf(s, sizeof s, "%s1e400", sign);
		expect_narrow(f, s, OX_NUM_RANGE, 0);
	}
}
END_TEST

START_TEST(narrow_specials)
{
	const narrow *f = &formats[_i];
	static const char *const infs[] = {"inf", "INF", "Infinity", "-inf", "-Infinity"};
	static const char *const nans[] = {"nan", "NaN", "-nan", "NAN"};
	for (size_t i = 0; i < sizeof infs / sizeof infs[0]; i++) {
		uint32_t b;
		ox_num_status st = ox_parse_narrow_float(f->dtype, infs[i], strlen(infs[i]), &b);
		bool neg = infs[i][0] == '-';
		if (f->has_inf) {
			ck_assert_msg(st == OX_NUM_OK, "%s '%s'", f->name, infs[i]);
			double v = ref_decode(f->dtype, b);
			ck_assert_msg(isinf(v) && !!signbit(v) == neg, "%s '%s': 0x%x", f->name, infs[i], b);
		} else {
			ck_assert_msg(st != OX_NUM_OK, "%s has no infinity, but '%s' gave 0x%x", f->name, infs[i], b);
		}
	}
	for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
		uint32_t b;
		ox_num_status st = ox_parse_narrow_float(f->dtype, nans[i], strlen(nans[i]), &b);
		if (f->has_nan) {
			ck_assert_msg(st == OX_NUM_OK, "%s '%s'", f->name, nans[i]);
			ck_assert_msg(isnan(ref_decode(f->dtype, b)), "%s '%s': 0x%x is not NaN", f->name, nans[i], b);
		} else {
			ck_assert_msg(st != OX_NUM_OK, "%s has no NaN, but '%s' gave 0x%x", f->name, nans[i], b);
		}
	}
	ck_assert_int_eq(ox_parse_narrow_float(f->dtype, "inf1", 4, &(uint32_t){0}), OX_NUM_SYNTAX);
	ck_assert_int_eq(ox_parse_narrow_float(f->dtype, "1e", 2, &(uint32_t){0}), OX_NUM_SYNTAX);
	ck_assert_int_eq(ox_parse_narrow_float(f->dtype, "", 0, &(uint32_t){0}), OX_NUM_SYNTAX);
}
END_TEST

/* Zeros: '-0' keeps its sign where the format has a negative zero; fnuz formats have
 * none (0x80 is their NaN), so '-0' and negative underflow give 0x00. */
START_TEST(narrow_zeros)
{
	const narrow *f = &formats[_i];
	if (f->dtype == DT(FLOAT8E8M0))
		return; /* no zero at all */
	static const char *const pos[] = {"0", "0.0", "0e5", "1e-300", "1e-99999"};
	static const char *const neg[] = {"-0", "-0.0", "-0e-5", "-1e-300", "-1e-99999"};
	for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
		expect_narrow(f, pos[i], OX_NUM_OK, 0);
		expect_narrow(f, neg[i], OX_NUM_OK, f->fnuz ? 0 : sign_mask(f));
	}
}
END_TEST

/* float8e8m0 has no sign bit: negative values cannot be written. */
START_TEST(narrow_e8m0_unsigned)
{
	const narrow *f = &formats[6];
	ck_assert_int_eq(f->dtype, DT(FLOAT8E8M0));
	expect_narrow(f, "1", OX_NUM_OK, 127);
	expect_narrow(f, "0.5", OX_NUM_OK, 126);
	expect_narrow(f, "5.877471754111438e-39", OX_NUM_OK, 0); /* 2^-127 */
	expect_narrow(f, "1.7014118346046923e38", OX_NUM_OK, 0xfe);
	uint32_t b;
	ck_assert_int_ne(ox_parse_narrow_float(f->dtype, "-1", 2, &b), OX_NUM_OK);
	ck_assert_int_ne(ox_parse_narrow_float(f->dtype, "-2.5", 4, &b), OX_NUM_OK);
}
END_TEST

/* Decides like ONNX's converters would, from the exact decimal text: find the two grid
 * neighbours of strtod's correctly rounded double; only when that double is exactly a
 * midpoint must the decimal text itself be compared with it. */
static int cmp_decimal_exact(const char *text, double v)
{
	char a[1300], b[1300];
	size_t na = 0;
	long ea = 0, point = 0;
	bool started = false, dot = false;
	const char *p = text + (*text == '-');
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		if (!started && *p == '0') {
			point -= dot;
			continue;
		}
		started = true;
		point += !dot;
		a[na++] = *p;
	}
	if (*p)
		ea = strtol(p + 1, NULL, 10);
	while (na && a[na - 1] == '0')
		na--;
	a[na] = '\0';
	long eb;
	exact_digits(v, b, sizeof b, &eb);
	ea += point;
	if (na == 0)
		return -1;
	if (ea != eb)
		return ea < eb ? -1 : 1;
	int c = strcmp(a, b);
	return c < 0 ? -1 : c > 0;
}

START_TEST(narrow_random_vs_reference)
{
	const narrow *f = &formats[_i];
	static double val[1 << 16];
	static uint32_t bits[1 << 16];
	size_t n = grid(f, val, bits);
	double lo_mag = val[1] / 4, hi_mag = val[n - 1] * 1.01;
	if (f->dtype == DT(FLOAT8E8M0))
		lo_mag = val[0];
	rng = 0xfeedface00000000ull + (uint64_t)f->dtype;
	char s[64];
	for (int i = 0; i < tu_rounds(30000); i++) {
		double u = (double)below(1u << 30) / (1u << 30);
		double a = exp(log(lo_mag) + u * (log(hi_mag) - log(lo_mag)));
		bool neg = f->has_sign && below(2);
		snprintf(s, sizeof s, "%s%.*g", neg ? "-" : "", 1 + (int)below(19), a);
		double v = fabs(strtod_l(s, NULL, c_locale()));
		if (v < val[0])
			continue; /* below float8e8m0's smallest value */
		size_t lo = 0, hi = n - 1;
		if (v > val[n - 1])
			continue; /* covered by narrow_max_and_overflow */
		while (hi - lo > 1) {
			size_t m = (lo + hi) / 2;
			if (val[m] <= v)
				lo = m;
			else
				hi = m;
		}
		uint32_t want;
		if (v == val[lo]) {
			want = bits[lo];
		} else if (v == val[hi]) {
			want = bits[hi];
		} else {
			double mid = (val[lo] + val[hi]) / 2;
			int c = v < mid ? -1 : v > mid ? 1 : cmp_decimal_exact(s, mid);
			want = c < 0 ? bits[lo] : c > 0 ? bits[hi] : tie_winner(f, bits[lo], bits[hi]);
		}
		expect_narrow(f, s, OX_NUM_OK, with_sign(f, want, neg));
	}
}
END_TEST

START_TEST(narrow_not_narrow)
{
	static const int others[] = {0, DT(FLOAT), DT(DOUBLE), DT(INT8), DT(UINT8), DT(INT4), DT(UINT4),
				     DT(INT2), DT(UINT2), DT(COMPLEX64), DT(STRING), DT(BOOL), 27, -1};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		ck_assert_msg(!ox_elem_narrow(others[i]), "%d", others[i]);
		uint32_t b;
		ck_assert_int_ne(ox_parse_narrow_float(others[i], "1", 1, &b), OX_NUM_OK);
	}
}
END_TEST

/* ---- strings ----------------------------------------------------------------------- */

START_TEST(unescape)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
		size_t m;
	} t[] = {
		{"", 0, "", 0},
		{"abc", 3, "abc", 3},
		{"a\\\"b", 4, "a\"b", 3},
		{"a\\\\b", 4, "a\\b", 3},
		{"\\n", 2, "n", 1}, /* not a newline: a backslash takes the next byte literally */
		{"\\t\\x41\\u0041", 12, "tAu0041", 7}, /* \xHH is a byte: onnx reads x41 */
		{"\\xff\\x00\\xAb\\x7F", 16, "\xff\0\xab\x7f", 4},   /* either case */
		{"\\xg1\\x4\\x", 9, "xg1x4x", 6},           /* not two hex digits: x itself */
		{"\\\\xff", 5, "\\xff", 4},                 /* an escaped backslash, then xff */
		{"\\\\\\\"", 4, "\\\"", 2},
		{"line\nnext", 9, "line\nnext", 9}, /* raw newline kept */
		{"a\0b", 3, "a\0b", 3},             /* NUL kept */
		{"\\\0", 2, "\0", 1},
		{"\xc3\xa9\\\xe4\xb8\xad", 6, "\xc3\xa9\xe4\xb8\xad", 5}, /* bytes, not characters */
		{"#not a comment", 14, "#not a comment", 14},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char buf[64];
		memset(buf, 0x5a, sizeof buf);
		size_t m = ox_unescape(buf, t[i].in, t[i].n);
		ck_assert_msg(m == t[i].m && memcmp(buf, t[i].out, m) == 0, "case %zu: length %zu", i, m);
		ck_assert_msg((unsigned char)buf[m] == 0x5a || m == t[i].n, "case %zu: wrote past the result", i);
	}
}
END_TEST

/* Every class of byte sequence that is not well-formed UTF-8, and the edges of the valid
 * ranges next to each. */
START_TEST(utf8_len)
{
	static const struct {
		const char *s;
		size_t n, len;
	} t[] = {
		{"a", 1, 1}, {"\0", 1, 1}, {"\x7f", 1, 1},
		{"\xc3\xa9", 2, 2}, {"\xe4\xb8\xad", 3, 3}, {"\xf0\x9f\x98\x80", 4, 4}, /* é, 中, an emoji */
		{"\xc2\x80", 2, 2}, {"\xdf\xbf", 2, 2},                    /* U+0080, U+07FF */
		{"\xe0\xa0\x80", 3, 3}, {"\xef\xbf\xbf", 3, 3},              /* U+0800, U+FFFF */
		{"\xed\x9f\xbf", 3, 3}, {"\xee\x80\x80", 3, 3},              /* around the surrogates */
		{"\xf0\x90\x80\x80", 4, 4}, {"\xf4\x8f\xbf\xbf", 4, 4},     /* U+10000, U+10FFFF */
		{"\x80", 1, 0}, {"\xbf", 1, 0},                            /* stray continuation bytes */
		{"\xc0\x80", 2, 0}, {"\xc1\xbf", 2, 0},                    /* overlong 2-byte forms */
		{"\xe0\x80\x80", 3, 0}, {"\xe0\x9f\xbf", 3, 0},              /* overlong 3-byte forms */
		{"\xf0\x80\x80\x80", 4, 0}, {"\xf0\x8f\xbf\xbf", 4, 0},     /* overlong 4-byte forms */
		{"\xed\xa0\x80", 3, 0}, {"\xed\xbf\xbf", 3, 0},              /* surrogates */
		{"\xf4\x90\x80\x80", 4, 0}, {"\xf5\x80\x80\x80", 4, 0},     /* beyond U+10FFFF */
		{"\xf8\x88\x80\x80\x80", 5, 0}, {"\xff", 1, 0}, {"\xfe", 1, 0},
		{"\xc3", 1, 0}, {"\xe4\xb8", 2, 0}, {"\xf0\x9f\x98", 3, 0}, /* cut short by the end */
		{"\xc3" "z", 2, 0}, {"\xe4\xb8" "z", 3, 0}, {"\xf0\x9f\x98" "z", 4, 0}, /* cut short by ASCII */
		{"\xe4\xc3\xa9", 3, 0},                                 /* cut short by a lead byte */
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(ox_utf8_len(t[i].s, t[i].n) == t[i].len, "case %zu: %zu, not %zu", i,
			      ox_utf8_len(t[i].s, t[i].n), t[i].len);
}
END_TEST

/* The escape writer: every class of byte that is not well-formed UTF-8 becomes \xHH,
 * well-formed characters stay, quotes and backslashes are escaped, and ox_unescape reads
 * it all back. */
static char *quoted(const char *s, size_t n, size_t *len)
{
	bool nomem = false;
	ox_out o;
	ox_out_init(&o, NULL, 0, &nomem);
	ox_put_string(&o, s, n);
	ck_assert(!o.failed);
	char *r = malloc(o.len + 1);
	memcpy(r, o.buf, o.len);
	r[o.len] = '\0';
	*len = o.len;
	ox_out_free(&o);
	return r;
}

START_TEST(escape)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} t[] = {
		{"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
		{"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 14, "\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\""},
		{"\x80\xbf", 2, "\"\\x80\\xbf\""},                         /* stray continuation bytes */
		{"\xc0\xaf\xe0\x80\xaf", 5, "\"\\xc0\\xaf\\xe0\\x80\\xaf\""}, /* overlong forms */
		{"\xed\xa0\x80", 3, "\"\\xed\\xa0\\x80\""},                  /* a surrogate */
		{"\xf4\x90\x80\x80\xff", 5, "\"\\xf4\\x90\\x80\\x80\\xff\""}, /* beyond U+10FFFF */
		{"\xe4\xb8", 2, "\"\\xe4\\xb8\""},                         /* cut short by the end */
		{"\xe4\xb8" "a\xe4\xb8\xad", 6, "\"\\xe4\\xb8a\xe4\xb8\xad\""},  /* by ASCII, then whole */
		{"\\xff", 4, "\"\\\\xff\""},                              /* text, not a byte */
		{"\n\t\x01", 3, "\"\n\t\x01\""},                            /* control bytes as they are */
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		size_t len;
		char *q = quoted(t[i].in, t[i].n, &len);
		ck_assert_msg(len == strlen(t[i].out) && memcmp(q, t[i].out, len) == 0, "case %zu: %s", i, q);
		char back[64];
		ck_assert_msg(ox_unescape(back, q + 1, len - 2) == t[i].n && memcmp(back, t[i].in, t[i].n) == 0,
			      "case %zu: does not read back", i);
		free(q);
	}
}
END_TEST

/* Any bytes, long enough to cross the writer's chunks: the text is UTF-8 and reads back. */
START_TEST(escape_random_bytes)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)round * 97 % 9000;
		char *s = malloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			s[i] = (char)(round % 2 ? x : (x & 0x3f) | 0x80); /* odd: any; even: mostly tails */
		}
		size_t len;
		char *q = quoted(s, n, &len);
		ck_assert_msg(tu_utf8_bad(q, len) == len, "round %d: not UTF-8 at %zu", round, tu_utf8_bad(q, len));
		char *back = malloc(len);
		ck_assert_msg(ox_unescape(back, q + 1, len - 2) == n && memcmp(back, s, n) == 0, "round %d", round);
		free(back);
		free(q);
		free(s);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("literal");
	TCase *tc = tcase_create("integers");
	tcase_add_loop_test(tc, i64_table, 0, sizeof i64_cases / sizeof i64_cases[0]);
	tcase_add_loop_test(tc, u64_table, 0, sizeof u64_cases / sizeof u64_cases[0]);
	tcase_add_test(tc, int_length_bounds);
	suite_add_tcase(s, tc);

	tc = tcase_create("float_double");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, double_random_vs_strtod);
	tcase_add_test(tc, float_random_vs_strtof);
	tcase_add_test(tc, printed_values_vs_glibc);
	tcase_add_test(tc, float_midpoints);
	tcase_add_test(tc, float_near_midpoints_short);
	tcase_add_test(tc, double_midpoints);
	tcase_add_test(tc, overflow_boundaries);
	tcase_add_test(tc, underflow_and_subnormals);
	tcase_add_test(tc, long_texts);
	tcase_add_loop_test(tc, special_values, 0, sizeof specials / sizeof specials[0]);
	tcase_add_loop_test(tc, malformed_numbers, 0, sizeof malformed / sizeof malformed[0]);
	tcase_add_test(tc, signed_zero);
	tcase_add_test(tc, locale_independent);
	suite_add_tcase(s, tc);

	tc = tcase_create("narrow");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, narrow_decode_matches_definition, 0, NFORMATS);
	tcase_add_loop_test(tc, narrow_round_trip_exhaustive, 0, NFORMATS);
	tcase_add_loop_test(tc, narrow_midpoints, 0, NFORMATS);
	tcase_add_loop_test(tc, narrow_max_and_overflow, 0, NFORMATS);
	tcase_add_test(tc, narrow_tie_decided_late);
	tcase_add_loop_test(tc, narrow_specials, 0, NFORMATS);
	tcase_add_loop_test(tc, narrow_zeros, 0, NFORMATS);
	tcase_add_test(tc, narrow_e8m0_unsigned);
	tcase_add_loop_test(tc, narrow_random_vs_reference, 0, NFORMATS);
	tcase_add_test(tc, narrow_not_narrow);
	suite_add_tcase(s, tc);

	tc = tcase_create("strings");
	tcase_add_test(tc, unescape);
	tcase_add_test(tc, utf8_len);
	tcase_add_test(tc, escape);
	tcase_add_test(tc, escape_random_bytes);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
