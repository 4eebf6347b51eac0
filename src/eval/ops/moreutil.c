/* Helpers shared by the quantization, resampling, Einsum, signal, random and remaining
 * kernels (see moreutil.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreutil.h"

void *ox_more_alloc(ox_k *k, int64_t n, size_t size, const char *what)
{
	if (n < 0 || (n > 0 && (uint64_t)n > OX_MAX_BYTES / size)) {
		ox_kfail(k, "%s: %lld elements of %zu bytes are more than the %zu bytes allowed", what, (long long)n,
			 size, (size_t)OX_MAX_BYTES);
		return NULL;
	}
	void *p = malloc(n ? (size_t)n * size : 1);
	if (!p)
		ox_kfail(k, "%s: out of memory", what);
	return p;
}

double *ox_more_load(ox_k *k, const ox_val *t, const char *what)
{
	double *d = ox_more_alloc(k, t->count, sizeof *d, what);
	if (!d)
		return NULL;
	ox_to_f64(t, d);
	return d;
}

/* Truncation toward zero, saturated to [lo, hi]; NaN becomes 0. */
static double trunc_sat(double x, double lo, double hi)
{
	if (isnan(x))
		return 0;
	x = trunc(x);
	return x < lo ? lo : x > hi ? hi : x;
}

static bool int_range(int type, double *lo, double *hi)
{
	switch (type) {
	case OX_INT8: *lo = -128, *hi = 127; return true;
	case OX_UINT8: *lo = 0, *hi = 255; return true;
	case OX_INT16: *lo = -32768, *hi = 32767; return true;
	case OX_UINT16: *lo = 0, *hi = 65535; return true;
	case OX_INT32: *lo = -2147483648.0, *hi = 2147483647.0; return true;
	case OX_UINT32: *lo = 0, *hi = 4294967295.0; return true;
	case OX_INT4: *lo = -8, *hi = 7; return true;
	case OX_UINT4: *lo = 0, *hi = 15; return true;
	case OX_INT2: *lo = -2, *hi = 1; return true;
	case OX_UINT2: *lo = 0, *hi = 3; return true;
	default: return false;
	}
}

void ox_more_store(ox_val *t, const double *src)
{
	int64_t n = t->count;
	double lo, hi;
	if (t->type == OX_FLOAT) {
		for (int64_t i = 0; i < n; i++)
			((float *)t->data)[i] = (float)src[i];
	} else if (t->type == OX_DOUBLE) {
		if (n)
			memcpy(t->data, src, (size_t)n * sizeof *src);
	} else if (int_range(t->type, &lo, &hi)) {
		for (int64_t i = 0; i < n; i++)
			ox_set_i64(t, i, (int64_t)trunc_sat(src[i], lo, hi));
	} else if (t->type == OX_UINT64) {
		for (int64_t i = 0; i < n; i++)
			ox_set_f64(t, i, src[i] < 0 || isnan(src[i]) ? 0 : src[i]);
	} else {
		/* int64 saturates in ox_set_f64; float types round there */
		for (int64_t i = 0; i < n; i++)
			ox_set_f64(t, i, src[i]);
	}
}

bool ox_more_is_real(int type)
{
	return type == OX_FLOAT || type == OX_DOUBLE || type == OX_FLOAT16 || type == OX_BFLOAT16;
}

int ox_more_check_type(ox_k *k, const ox_val *t, const char *what, const int *types)
{
	for (const int *p = types; *p; p++)
		if (t->type == *p)
			return 0;
	char list[256];
	size_t len = 0;
	list[0] = 0;
	for (const int *p = types; *p && len < sizeof list - 32; p++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", p == types ? "" : ", ",
					ox_elem_label(*p));
	return ox_kfail(k, "%s has element type %s; expected one of %s", what, ox_elem_label(t->type), list);
}

double ox_more_scalar_f64(const ox_val *t)
{
	return t->count ? ox_get_f64(t, 0) : 0;
}

int64_t ox_more_scalar_i64(const ox_val *t)
{
	return t->count ? ox_get_i64(t, 0) : 0;
}

int ox_more_in_int(ox_k *k, int i, int64_t *v, const char *what)
{
	int64_t n = ox_in_ints(k, i, v, 1, what);
	if (n == 0)
		return ox_kfail(k, "%s must hold one value, not none", what);
	return n < 0 ? -1 : 0;
}

int64_t ox_more_mul(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > OX_MAX_ELEMENTS / b) || a * b > OX_MAX_ELEMENTS)
		return -1;
	return a * b;
}

void ox_more_strides(int rank, const int64_t *dims, int64_t *strides)
{
	int64_t s = 1;
	for (int i = rank - 1; i >= 0; i--) {
		strides[i] = s;
		s *= dims[i];
	}
}
