/* Benchmark of ox_fmt_float / ox_fmt_double against snprintf("%.9g") / ("%.17g"), the
 * printf precisions that always round-trip. Not a test: prints ns per value and MB/s of
 * text produced, per CPU second (so other load on the machine matters less), for random
 * bit patterns (all exponents) and for values uniform in [-1000, 1000) (typical weights).
 *
 * Build and run from the source root:
 *   cc -O2 -std=c11 -Isrc tools/bench/fmtfloat_bench.c src/print/fmtfloat.c -lpthread \
 *      -o /tmp/fmtfloat_bench && /tmp/fmtfloat_bench [count]
 * count defaults to 4000000 values per distribution. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "print/fmtfloat.h"

static uint64_t state = 0x2545f4914f6cdd1du;

static uint64_t rnd(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef size_t (*fmt_fn)(const void *values, size_t i, char *buf);

static size_t ox_f(const void *v, size_t i, char *buf)
{
	return ox_fmt_float(((const float *)v)[i], buf);
}

static size_t printf_f(const void *v, size_t i, char *buf)
{
	return (size_t)snprintf(buf, OX_FMT_FLOAT_BUF, "%.9g", ((const float *)v)[i]);
}

static size_t ox_d(const void *v, size_t i, char *buf)
{
	return ox_fmt_double(((const double *)v)[i], buf);
}

static size_t printf_d(const void *v, size_t i, char *buf)
{
	return (size_t)snprintf(buf, OX_FMT_FLOAT_BUF, "%.17g", ((const double *)v)[i]);
}

/* Formats every value once into a scratch buffer; the byte total keeps the work alive. */
static void run(const char *name, fmt_fn fn, const void *values, size_t n)
{
	char buf[OX_FMT_FLOAT_BUF];
	fn(values, 0, buf); /* warms the caches: not part of the timing */
	double t0 = now();
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += fn(values, i, buf);
	double dt = now() - t0;
	printf("  %-22s %7.1f ns/value %8.1f MB/s  (%.2f bytes/value)\n", name, dt * 1e9 / (double)n,
	       (double)bytes / dt / 1e6, (double)bytes / (double)n);
}

static void fill(float *f, double *d, size_t n, int uniform)
{
	for (size_t i = 0; i < n; i++) {
		if (uniform) {
			d[i] = ((double)(rnd() >> 11) * 0x1p-53 - 0.5) * 2000.0;
			f[i] = (float)d[i];
			continue;
		}
		do {
			uint32_t b = (uint32_t)rnd();
			memcpy(&f[i], &b, sizeof b);
		} while (!isfinite(f[i]));
		do {
			uint64_t b = rnd();
			memcpy(&d[i], &b, sizeof b);
		} while (!isfinite(d[i]));
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
	float *f = malloc(n * sizeof *f);
	double *d = malloc(n * sizeof *d);
	if (!n || !f || !d)
		return 1;
	for (int uniform = 0; uniform < 2; uniform++) {
		fill(f, d, n, uniform);
		printf("%zu %s\n", n, uniform ? "values uniform in [-1000, 1000)" : "random finite bit patterns");
		run("float  ox_fmt_float", ox_f, f, n);
		run("float  snprintf %.9g", printf_f, f, n);
		run("double ox_fmt_double", ox_d, d, n);
		run("double snprintf %.17g", printf_d, d, n);
	}
	free(f);
	free(d);
	return 0;
}
