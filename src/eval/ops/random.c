/* Random generators: RandomUniform(Like), RandomNormal(Like), Bernoulli, Multinomial.
 * The generator is xoshiro256** (Blackman and Vigna) with its state filled by splitmix64
 * from the bits of the float32 `seed` attribute, so a node with a seed produces the same
 * values on every run and every machine. Without a seed, each call draws a fresh seed
 * from a process-wide counter mixed with the clock. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "eval/kernel.h"


typedef struct rng {
	uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int n)
{
	return (x << n) | (x >> (64 - n));
}

static uint64_t next(rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* A uniform double in [0, 1). */
static double uniform(rng *r)
{
	return (double)(next(r) >> 11) * 0x1.0p-53;
}

static void rng_init(const ox_k *k, rng *r)
{
	static atomic_uint_fast64_t counter;
	uint64_t x;
	const Onnx__AttributeProto *a = ox_attr(k, "seed");
	if (a) {
		uint32_t bits;
		memcpy(&bits, &a->f, sizeof bits);
		x = bits;
	} else {
		struct timespec ts;
		timespec_get(&ts, TIME_UTC);
		x = atomic_fetch_add(&counter, 1) ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec;
	}
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* A standard normal value (Box-Muller; the second value of each pair is dropped so that
 * element i does not depend on whether the count is odd). */
static double normal(rng *r)
{
	double u1 = 1.0 - uniform(r), u2 = uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- RandomUniform, RandomNormal and their Like forms ---------------------------------- */

static const int real_types[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};

static int real_dtype(ox_k *k, int64_t dtype)
{
	for (const int *p = real_types; *p; p++)
		if (*p == dtype)
			return (int)dtype;
	return ox_kfail(k, "dtype must be float, float16, double or bfloat16, not %s", ox_elem_label((int)dtype));
}

/* Fills y from the uniform (normal == false) or normal distribution with the node's
 * parameters (low and high, or mean and scale). */
static void fill_from_attrs(ox_k *k, ox_val *y, bool is_normal)
{
	double a = is_normal ? ox_attr_float(k, "mean", 0) : ox_attr_float(k, "low", 0);
	double b = is_normal ? ox_attr_float(k, "scale", 1) : ox_attr_float(k, "high", 1);
	rng r;
	rng_init(k, &r);
	for (int64_t i = 0; i < y->count; i++) {
		double v = is_normal ? a + b * normal(&r) : a + (b - a) * uniform(&r);
		ox_set_f64(y, i, v);
		/* rounding to a narrow type may reach high, which the interval excludes */
		if (!is_normal && b > a && ox_get_f64(y, i) >= b)
			ox_set_f64(y, i, a);
	}
}

static int random_shape(ox_k *k, bool is_normal)
{
	const int64_t *shape;
	int64_t rank = ox_attr_ints(k, "shape", &shape);
	if (rank < 0)
		return ox_kfail(k, "attribute 'shape' is required");
	if (rank > OX_MAX_RANK)
		return ox_kfail(k, "shape has %lld dimensions; at most %d are supported", (long long)rank, OX_MAX_RANK);
	int type = real_dtype(k, ox_attr_int(k, "dtype", OX_FLOAT));
	ox_val *y = type < 0 ? NULL : ox_out_tensor(k, 0, type, (int)rank, shape);
	if (!y)
		return -1;
	fill_from_attrs(k, y, is_normal);
	return 0;
}

static int random_like(ox_k *k, bool is_normal)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int type = real_dtype(k, ox_attr_int(k, "dtype", x->type));
	ox_val *y = type < 0 ? NULL : ox_out_tensor(k, 0, type, x->rank, x->dims);
	if (!y)
		return -1;
	fill_from_attrs(k, y, is_normal);
	return 0;
}

OX_KERNEL(ox_op_RandomUniform, random_shape(k, false))
OX_KERNEL(ox_op_RandomNormal, random_shape(k, true))
OX_KERNEL(ox_op_RandomUniformLike, random_like(k, false))
OX_KERNEL(ox_op_RandomNormalLike, random_like(k, true))

/* ---- Bernoulli, Multinomial ------------------------------------------------------------ */

int ox_op_Bernoulli(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_check_type(k, x, "input", real_types) < 0)
		return -1;
	int type = (int)ox_attr_int(k, "dtype", x->type);
	if (type != OX_BOOL && !ox_elem_is_float(type) && !ox_elem_is_int(type))
		return ox_kfail(k, "dtype must be a numeric type or bool, not %s", ox_elem_label(type));
	ox_val *y = ox_out_tensor(k, 0, type, x->rank, x->dims);
	if (!y)
		return -1;
	rng r;
	rng_init(k, &r);
	for (int64_t i = 0; i < x->count; i++)
		ox_set_f64(y, i, uniform(&r) < ox_get_f64(x, i) ? 1 : 0);
	return 0;
}

/* One row of Multinomial: the cumulative distribution of softmax(logits) in cdf. */
static void row_cdf(const ox_val *x, int64_t off, int64_t n, double *cdf)
{
	double mx = -INFINITY, sum = 0;
	for (int64_t j = 0; j < n; j++)
		mx = fmax(mx, ox_get_f64(x, off + j));
	for (int64_t j = 0; j < n; j++) {
		sum += isinf(mx) && mx < 0 ? 1 : exp(ox_get_f64(x, off + j) - mx);
		cdf[j] = sum;
	}
	for (int64_t j = 0; j < n; j++)
		cdf[j] /= sum;
}

/* The first class whose cumulative probability exceeds u. */
static int64_t draw(const double *cdf, int64_t n, double u)
{
	int64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t mid = (lo + hi) / 2;
		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int ox_op_Multinomial(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_check_type(k, x, "input", real_types) < 0)
		return -1;
	if (x->rank != 2)
		return ox_kfail(k, "input must have rank 2 ([batch_size, class_size]), not %d", x->rank);
	int type = (int)ox_attr_int(k, "dtype", OX_INT32);
	int64_t n = ox_attr_int(k, "sample_size", 1), classes = x->dims[1];
	if (type != OX_INT32 && type != OX_INT64)
		return ox_kfail(k, "dtype must be int32 or int64, not %s", ox_elem_label(type));
	if (n < 0)
		return ox_kfail(k, "sample_size must not be negative, not %lld", (long long)n);
	int64_t dims[2] = {x->dims[0], n};
	ox_val *y = ox_out_tensor(k, 0, type, 2, dims);
	if (!y)
		return -1;
	if (y->count && !classes)
		return ox_kfail(k, "cannot sample from zero classes");
	double *cdf = ox_scratch(k, classes, sizeof *cdf, "probabilities");
	if (!cdf)
		return -1;
	rng r;
	rng_init(k, &r);
	for (int64_t b = 0; b < dims[0] && n; b++) {
		row_cdf(x, b * classes, classes, cdf);
		for (int64_t s = 0; s < n; s++)
			ox_set_i64(y, b * n + s, draw(cdf, classes, uniform(&r)));
	}
	free(cdf);
	return 0;
}
