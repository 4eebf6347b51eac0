/* ox_fmt_float / ox_fmt_double: the std::to_chars examples, bit-exact round trips through
 * ox_parse_float / ox_parse_double over random and special bit patterns, shortest and
 * closest digits against a slow reference built on printf and strtod, and the choice of
 * fixed or scientific notation at every decimal exponent.
 * ONNXTXT_FMTFLOAT_SCALE (default 1) multiplies the sample sizes. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print/fmtfloat.h"
#include "literal.h"
#include "testutil.h"

/* ---- helpers ---------------------------------------------------------------------- */

static double scale = 1;

static long sample(long n)
{
	return (long)(n * scale);
}

/* splitmix64: a fixed seed keeps failures reproducible. */
static uint64_t rng_state = 0x6f6e6e787478u;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static float f_of(uint32_t b)
{
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

static uint32_t bits_f(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

static double d_of(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static uint64_t bits_d(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

/* ---- (a) the examples --------------------------------------------------------------- */

static const struct {
	double v;
	const char *want;
} double_examples[] = {
	{0.1, "0.1"},
	{100000, "1e+05"},
	{1000000, "1e+06"},
	{1000, "1000"},
	{0.001, "0.001"},
	{0.0001, "1e-04"},
	{-0.0, "-0"},
	{0.0, "0"},
	{2.0, "2"},
	{INFINITY, "inf"},
	{-INFINITY, "-inf"},
	{5e-324, "5e-324"},
	{1.7976931348623157e308, "1.7976931348623157e+308"},
	{-1.7976931348623157e308, "-1.7976931348623157e+308"},
	{2.2250738585072014e-308, "2.2250738585072014e-308"},
	{1e23, "1e+23"},
	{0.3, "0.3"},
	{1.0 / 3, "0.3333333333333333"},
	{9007199254740993.0, "9007199254740992"},
	/* exactly halfway between the two nearest shortest candidates: the even digit */
	{1125899906842624.25, "1125899906842624.2"},
	{1125899906842624.75, "1125899906842624.8"},
	{1125899906842625.25, "1125899906842625.2"},
};

static const struct {
	float v;
	const char *want;
} float_examples[] = {
	{0.1f, "0.1"},
	{100000.0f, "1e+05"},
	{1000000.0f, "1e+06"},
	{1000.0f, "1000"},
	{0.001f, "0.001"},
	{0.0001f, "1e-04"},
	{123456789.0f, "123456792"},
	{1.0f / 3, "0.33333334"},
	{3.4028235e38f, "3.4028235e+38"},
	{-0.0f, "-0"},
	{2.0f, "2"},
	{INFINITY, "inf"},
	{-INFINITY, "-inf"},
	{1e-45f, "1e-45"},
	{1.17549435e-38f, "1.1754944e-38"},
	{16777216.0f, "16777216"},
	{2097152.25f, "2097152.2"},
	{2097152.75f, "2097152.8"},
};

START_TEST(examples)
{
	char buf[OX_FMT_FLOAT_BUF];
	for (size_t i = 0; i < sizeof double_examples / sizeof double_examples[0]; i++) {
		size_t n = ox_fmt_double(double_examples[i].v, buf);
		ck_assert_str_eq(buf, double_examples[i].want);
		ck_assert_uint_eq(n, strlen(buf));
	}
	for (size_t i = 0; i < sizeof float_examples / sizeof float_examples[0]; i++) {
		size_t n = ox_fmt_float(float_examples[i].v, buf);
		ck_assert_str_eq(buf, float_examples[i].want);
		ck_assert_uint_eq(n, strlen(buf));
	}
}
END_TEST

START_TEST(nan_sign)
{
	char buf[OX_FMT_FLOAT_BUF];
	ck_assert_uint_eq(ox_fmt_double(d_of(0x7ff8000000000000u), buf), 3);
	ck_assert_str_eq(buf, "nan");
	ox_fmt_double(d_of(0xfff8000000000000u), buf);
	ck_assert_str_eq(buf, "-nan");
	ox_fmt_double(d_of(0x7ff0000000000001u), buf); /* signalling, payload 1 */
	ck_assert_str_eq(buf, "nan");
	ox_fmt_double(d_of(0xffffffffffffffffu), buf);
	ck_assert_str_eq(buf, "-nan");
	ox_fmt_float(f_of(0x7fc00000u), buf);
	ck_assert_str_eq(buf, "nan");
	ck_assert_uint_eq(ox_fmt_float(f_of(0xffc00000u), buf), 4);
	ck_assert_str_eq(buf, "-nan");
	ox_fmt_float(f_of(0x7f800001u), buf);
	ck_assert_str_eq(buf, "nan");
	ox_fmt_float(f_of(0xff800001u), buf);
	ck_assert_str_eq(buf, "-nan");
}
END_TEST

/* ---- (b) round trips ---------------------------------------------------------------- */

/* Same bits, or both NaN with the same sign (the parser does not keep payloads). */
static bool same_f(uint32_t a, uint32_t b)
{
	if (isnan(f_of(a)))
		return isnan(f_of(b)) && (a >> 31) == (b >> 31);
	return a == b;
}

static bool same_d(uint64_t a, uint64_t b)
{
	if (isnan(d_of(a)))
		return isnan(d_of(b)) && (a >> 63) == (b >> 63);
	return a == b;
}

/* Formats, parses back and compares; ck_assert only on failure, as every passing
 * assertion costs Check a message to the parent process. */
static void round_trip_f(uint32_t b)
{
	char buf[OX_FMT_FLOAT_BUF];
	size_t n = ox_fmt_float(f_of(b), buf);
	float back;
	if (n != strlen(buf) || ox_parse_float(buf, n, &back) != OX_NUM_OK || !same_f(b, bits_f(back)))
		ck_abort_msg("float 0x%08" PRIx32 " -> \"%s\" does not read back", b, buf);
}

static void round_trip_d(uint64_t b)
{
	char buf[OX_FMT_FLOAT_BUF];
	size_t n = ox_fmt_double(d_of(b), buf);
	double back;
	if (n != strlen(buf) || ox_parse_double(buf, n, &back) != OX_NUM_OK || !same_d(b, bits_d(back)))
		ck_abort_msg("double 0x%016" PRIx64 " -> \"%s\" does not read back", b, buf);
}

/* Significands that stress the edges of each exponent: zero (powers of two, and the
 * irregular spacing below them), one, all ones, the halfway patterns. */
static uint64_t edge_significand(int i, int mbits)
{
	uint64_t all = (UINT64_C(1) << mbits) - 1;
	switch (i) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 2;
	case 3: return all;
	case 4: return all - 1;
	case 5: return UINT64_C(1) << (mbits - 1);
	case 6: return (UINT64_C(1) << (mbits - 1)) - 1;
	default: return rnd() & all;
	}
}

#define EDGE_KINDS 10

START_TEST(float_special_classes)
{
	for (uint32_t sign = 0; sign < 2; sign++)
		for (uint32_t e = 0; e < 256; e++)
			for (int i = 0; i < EDGE_KINDS; i++)
				round_trip_f(sign << 31 | e << 23 | (uint32_t)edge_significand(i, 23));
	for (uint32_t m = 0; m < (1u << 16); m++) { /* the smallest subnormals */
		round_trip_f(m);
		round_trip_f(m | 0x80000000u);
	}
	for (int p = -46; p <= 39; p++) { /* powers of ten and their neighbours */
		char s[16];
		snprintf(s, sizeof s, "1e%d", p);
		uint32_t b = bits_f(strtof(s, NULL));
		for (int d = -2; d <= 2; d++)
			round_trip_f(b + (uint32_t)d);
	}
}
END_TEST

START_TEST(float_random)
{
	long n = sample(20000000);
	for (long i = 0; i < n; i++)
		round_trip_f((uint32_t)rnd());
}
END_TEST

START_TEST(double_special_classes)
{
	for (uint64_t sign = 0; sign < 2; sign++)
		for (uint64_t e = 0; e < 2048; e++)
			for (int i = 0; i < EDGE_KINDS; i++)
				round_trip_d(sign << 63 | e << 52 | edge_significand(i, 52));
	for (uint64_t m = 0; m < (1u << 16); m++) {
		round_trip_d(m);
		round_trip_d(m | UINT64_C(1) << 63);
	}
	for (int p = -325; p <= 309; p++) {
		char s[16];
		snprintf(s, sizeof s, "1e%d", p);
		uint64_t b = bits_d(strtod(s, NULL));
		for (int d = -2; d <= 2; d++)
			round_trip_d(b + (uint64_t)(int64_t)d);
	}
	for (int64_t i = -100000; i <= 100000; i++) /* small integers */
		round_trip_d(bits_d((double)i));
}
END_TEST

START_TEST(double_random)
{
	long n = sample(5000000);
	for (long i = 0; i < n; i++)
		round_trip_d(rnd());
}
END_TEST

/* ---- (c) shortest and closest, against a slow reference ------------------------------ */

/* v > 0 is a double, or a float widened to double. */
static double read_as(const char *s, bool is_float)
{
	return is_float ? (double)strtof(s, NULL) : strtod(s, NULL);
}

typedef struct ref_decimal {
	uint64_t d;
	int exp10; /* value d * 10^exp10 */
} ref_decimal;

/* "D.DDDDe+XX" with p digits after the point, as d * 10^exp10. */
static ref_decimal parse_sci(const char *s, int p)
{
	ref_decimal r = {0, 0};
	for (; *s != 'e'; s++)
		if (*s != '.')
			r.d = r.d * 10 + (uint64_t)(*s - '0');
	r.exp10 = atoi(s + 1) - p;
	return r;
}

static bool decimal_reads_back(ref_decimal r, double v, bool is_float)
{
	char s[40];
	snprintf(s, sizeof s, "%" PRIu64 "e%d", r.d, r.exp10);
	return read_as(s, is_float) == v;
}

/* The fewest significant digits reading back as v > 0, nearest to v. For each length,
 * v lies between two neighbouring decimals of that length, and if any decimal of the
 * length reads back as v, one of those two does (the reals reading back as v form an
 * interval around it). printf's %.*e gives the nearer one (ties to even); when it does
 * not read back, the other one, on v's side of it, is tried. */
static ref_decimal ref_shortest(double v, bool is_float)
{
	for (int p = 0;; p++) {
		char s[40];
		snprintf(s, sizeof s, "%.*e", p, v);
		ref_decimal r = parse_sci(s, p);
		if (read_as(s, is_float) == v)
			return r;
		uint64_t low = 1; /* 10^p: the smallest (p+1)-digit mantissa */
		for (int i = 0; i < p; i++)
			low *= 10;
		if (read_as(s, is_float) < v)
			r.d++;
		else if (r.d == low) /* below a power of ten the spacing is ten times finer */
			r = (ref_decimal){10 * low - 1, r.exp10 - 1};
		else
			r.d--;
		if (decimal_reads_back(r, v, is_float))
			return r;
	}
}

/* What std::to_chars writes, built from the reference digits: fixed or scientific,
 * whichever is shorter, fixed on a tie; a fixed integer is the exact value (printf's
 * %.0f), the closest of the equally short forms. */
static void ref_format(double v, bool is_float, char *out, size_t cap)
{
	const char *sign = signbit(v) ? "-" : "";
	double a = fabs(v);
	if (a == 0 || isinf(a) || isnan(a)) {
		snprintf(out, cap, "%s%s", sign, a == 0 ? "0" : isinf(a) ? "inf" : "nan");
		return;
	}
	ref_decimal r = ref_shortest(a, is_float);
	while (r.d % 10 == 0) {
		r.d /= 10;
		r.exp10++;
	}
	char dg[24], sci[48], fixed[360]; /* "0." and 323 zeros at most */
	int n = snprintf(dg, sizeof dg, "%" PRIu64, r.d);
	int e = r.exp10 + n - 1;
	snprintf(sci, sizeof sci, "%c%s%se%c%02d", dg[0], n > 1 ? "." : "", dg + 1,
		 e < 0 ? '-' : '+', abs(e));
	if (e >= n - 1) {
		snprintf(fixed, sizeof fixed, "%.0f", a);
	} else if (e >= 0) {
		snprintf(fixed, sizeof fixed, "%.*s.%s", e + 1, dg, dg + e + 1);
	} else {
		char zeros[330] = "";
		memset(zeros, '0', (size_t)(-e - 1));
		snprintf(fixed, sizeof fixed, "0.%s%s", zeros, dg);
	}
	snprintf(out, cap, "%s%s", sign, strlen(fixed) <= strlen(sci) ? fixed : sci);
}

static void against_reference_f(float v)
{
	char got[OX_FMT_FLOAT_BUF], want[400];
	ox_fmt_float(v, got);
	ref_format(v, true, want, sizeof want);
	if (strcmp(got, want) != 0)
		ck_abort_msg("float 0x%08" PRIx32 ": got \"%s\", want \"%s\"", bits_f(v), got, want);
}

static void against_reference_d(double v)
{
	char got[OX_FMT_FLOAT_BUF], want[400];
	ox_fmt_double(v, got);
	ref_format(v, false, want, sizeof want);
	if (strcmp(got, want) != 0)
		ck_abort_msg("double 0x%016" PRIx64 ": got \"%s\", want \"%s\"", bits_d(v), got, want);
}

/* A random decimal of 1 to 17 digits and exponent in [-30, 30]: values whose shortest
 * form is short, where trailing zeros and the multiple-of-ten candidate matter. */
static double random_short_decimal(int maxdigits)
{
	char s[48];
	uint64_t d = rnd() % 100000000000000000u;
	int digits = 1 + (int)(rnd() % (uint64_t)maxdigits);
	while (d >= 10 && snprintf(s, sizeof s, "%" PRIu64, d) > digits)
		d /= 10;
	snprintf(s, sizeof s, "%" PRIu64 "e%d", d, (int)(rnd() % 61) - 30);
	return strtod(s, NULL);
}

START_TEST(float_shortest)
{
	long n = sample(200000);
	for (long i = 0; i < n; i++) {
		float v = f_of((uint32_t)rnd());
		if (i % 4 == 0)
			v = (float)random_short_decimal(9);
		if (isfinite(v))
			against_reference_f(v);
	}
}
END_TEST

START_TEST(double_shortest)
{
	long n = sample(200000);
	for (long i = 0; i < n; i++) {
		double v = d_of(rnd());
		if (i % 4 == 0)
			v = random_short_decimal(17);
		if (isfinite(v))
			against_reference_d(v);
	}
}
END_TEST

/* Powers of two: the interval below them is half as wide (the irregular case). */
START_TEST(powers_of_two)
{
	for (int e = -149; e <= 127; e++)
		against_reference_f(ldexpf(1.0f, e));
	for (int e = -1074; e <= 1023; e++)
		against_reference_d(ldexp(1.0, e));
}
END_TEST

/* ---- (d) fixed or scientific --------------------------------------------------------- */

static const struct {
	double v;
	const char *want;
} double_layouts[] = {
	{1e-5, "1e-05"},
	{1.5e-5, "1.5e-05"},
	{1.2345e-5, "1.2345e-05"},
	{1e-4, "1e-04"},
	{1.2e-4, "0.00012"},
	{1.23e-4, "0.000123"},
	{0.00012345678901234567, "0.00012345678901234567"},
	{0.0012345, "0.0012345"},
	{0.01, "0.01"},
	{12.5, "12.5"},
	{1e4, "10000"},
	{1.2e4, "12000"},
	{1.5e5, "150000"},
	{123456, "123456"},
	{1234567, "1234567"},
	{1e15, "1e+15"},
	{1.5e15, "1.5e+15"},
	{1e16, "1e+16"},
	{9007199254740994.0, "9007199254740994"},
	{1.2345678901234567e16, "12345678901234568"},
	{1e17, "1e+17"},
	{1.2345678901234567e17, "123456789012345664"},
	{1.2345678901234567e18, "1234567890123456768"},
	{1.2345678901234567e19, "12345678901234567168"},
	{18446744073709551616.0, "18446744073709551616"},
	{36893488147419103232.0, "36893488147419103232"},
	{1e20, "1e+20"},
	{1.2345678901234567e20, "123456789012345667584"},
	{1.234567890123456e20, "123456789012345602048"},
	{1.23456789012345e20, "1.23456789012345e+20"},
	{4.35e20, "4.35e+20"},
	{1e21, "1e+21"},
	{1.5e21, "1.5e+21"},
	{1.2345678901234567e21, "1234567890123456774144"},
	{1.234567890123456e21, "1.234567890123456e+21"},
	{1.2345678901234567e22, "1.2345678901234568e+22"},
	{1e100, "1e+100"},
	{1.5e-100, "1.5e-100"},
	{1e-99, "1e-99"},
};

static const struct {
	float v;
	const char *want;
} float_layouts[] = {
	{1e-5f, "1e-05"},
	{1.5e-5f, "1.5e-05"},
	{1e-4f, "1e-04"},
	{1.2e-4f, "0.00012"},
	{0.00012345f, "0.00012345"},
	{1.2345678e-4f, "0.00012345678"},
	{1e4f, "10000"},
	{1e5f, "1e+05"},
	{12345678.0f, "12345678"},
	{16777218.0f, "16777218"},
	{1.2345678e9f, "1234567808"},
	{4294967296.0f, "4294967296"},
	{1e10f, "1e+10"},
	{3e10f, "3e+10"},
	{1.2345678e10f, "12345677824"},
	{1.2345678e12f, "1234567823360"},
	{1.2345678e13f, "1.2345678e+13"},
	{9.999999e12f, "9.999999e+12"},
	{1e13f, "1e+13"},
	{1e30f, "1e+30"},
};

START_TEST(layout_boundaries)
{
	char buf[OX_FMT_FLOAT_BUF];
	for (size_t i = 0; i < sizeof double_layouts / sizeof double_layouts[0]; i++) {
		ox_fmt_double(double_layouts[i].v, buf);
		ck_assert_str_eq(buf, double_layouts[i].want);
		ox_fmt_double(-double_layouts[i].v, buf);
		ck_assert(buf[0] == '-' && strcmp(buf + 1, double_layouts[i].want) == 0);
	}
	for (size_t i = 0; i < sizeof float_layouts / sizeof float_layouts[0]; i++) {
		ox_fmt_float(float_layouts[i].v, buf);
		ck_assert_str_eq(buf, float_layouts[i].want);
	}
}
END_TEST

/* Mantissas of every length from 1 to 17 digits, at every decimal exponent, and the
 * neighbouring floating-point values, against the reference layout. */
static const char *const mantissas[] = {
	"1", "1.5", "9", "1.2", "9.9", "1.25", "1.234", "1.2345", "1.23456", "1.234567",
	"1.2345678", "1.23456789", "9.87654321", "1.234567891", "1.2345678912",
	"1.23456789123", "1.234567891234", "1.2345678912345", "1.23456789123456",
	"1.234567891234567", "9.999999999999999",
};

START_TEST(layout_every_exponent)
{
	char s[48];
	for (size_t m = 0; m < sizeof mantissas / sizeof mantissas[0]; m++) {
		for (int p = -46; p <= 39; p++) {
			snprintf(s, sizeof s, "%se%d", mantissas[m], p);
			float f = strtof(s, NULL);
			for (int d = -1; d <= 1; d++)
				if (isfinite(f_of(bits_f(f) + (uint32_t)d)))
					against_reference_f(f_of(bits_f(f) + (uint32_t)d));
		}
		for (int p = -325; p <= 309; p++) {
			snprintf(s, sizeof s, "%se%d", mantissas[m], p);
			double v = strtod(s, NULL);
			for (int d = -1; d <= 1; d++)
				if (isfinite(d_of(bits_d(v) + (uint64_t)(int64_t)d)))
					against_reference_d(d_of(bits_d(v) + (uint64_t)(int64_t)d));
		}
	}
}
END_TEST

/* ---- several threads at once ------------------------------------------------------- */

/* The formatter keeps no state: threads formatting at once, from the first call on (Check
 * runs each test in a fresh child), agree with the reference. */
static void *format_some(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 20000; i++) {
		char got[OX_FMT_FLOAT_BUF], want[400];
		x = x * 6364136223846793005u + 1442695040888963407u;
		double v = d_of(x);
		if (!isfinite(v))
			continue;
		ox_fmt_double(v, got);
		if (i % 100 == 0) {
			ref_format(v, false, want, sizeof want);
			if (strcmp(got, want) != 0)
				return (void *)1;
		}
	}
	return NULL;
}

START_TEST(concurrent_first_use)
{
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, format_some, (void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++) {
		void *bad;
		pthread_join(th[i], &bad);
		ck_assert_msg(bad == NULL, "thread %d formatted a value wrongly", i);
	}
}
END_TEST

/* ---- the suite -------------------------------------------------------------------------- */

static void add(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

int main(void)
{
	const char *env = getenv("ONNXTXT_FMTFLOAT_SCALE");
	if (env && atof(env) > 0)
		scale = atof(env);
	Suite *s = suite_create("fmtfloat");
	add(s, "examples", examples);
	add(s, "nan_sign", nan_sign);
	add(s, "float_special_classes", float_special_classes);
	add(s, "double_special_classes", double_special_classes);
	add(s, "float_random_round_trip", float_random);
	add(s, "double_random_round_trip", double_random);
	add(s, "float_shortest_closest", float_shortest);
	add(s, "double_shortest_closest", double_shortest);
	add(s, "powers_of_two", powers_of_two);
	add(s, "layout_boundaries", layout_boundaries);
	add(s, "layout_every_exponent", layout_every_exponent);
	add(s, "concurrent_first_use", concurrent_first_use);
	return tu_run(s);
}
