/* Ops on the last two dims as matrices: Trilu, EyeLike and Det. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/move.h"

/* Empties elements [i, i + n) of y: zero bits, which is 0 for every numeric type and ""
 * for strings. */
static void zero_elems(ox_val *y, int64_t i, int64_t n)
{
	if (n <= 0)
		return;
	size_t es = ox_elem_size(y->type);
	if (y->type == OX_STRING)
		for (int64_t j = i; j < i + n; j++)
			free(((ox_str *)y->data)[j].p);
	memset((char *)y->data + i * (int64_t)es, 0, (size_t)n * es);
}

int ox_op_Trilu(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input must have rank >= 2, not %d", x->rank);
	int64_t kk = 0;
	if (ox_in(k, 1)) {
		int64_t n = ox_in_ints(k, 1, &kk, 1, "input 1 (k)");
		if (n < 0)
			return -1;
		if (n != 1)
			return ox_kfail(k, "input 1 (k) must hold one value");
	}
	bool upper = ox_attr_int(k, "upper", 1) != 0;
	int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1];
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	if (!y)
		return -1;
	if (!ox_tensor_copy_data(y, x))
		return ox_kfail(k, "out of memory");
	if (!y->count)
		return 0;
	/* clamped so that i + k cannot overflow; beyond rows + cols it changes nothing */
	kk = kk < -(rows + cols) ? -(rows + cols) : kk > rows + cols ? rows + cols : kk;
	for (int64_t m = 0; m < y->count / (rows * cols); m++)
		for (int64_t i = 0; i < rows; i++) {
			int64_t base = (m * rows + i) * cols, d = i + kk; /* the diagonal's column */
			if (upper) /* keep j >= i + k */
				zero_elems(y, base, d < cols ? d : cols);
			else /* keep j <= i + k */
				zero_elems(y, base + (d + 1 > 0 ? d + 1 : 0), cols - (d + 1 > 0 ? d + 1 : 0));
		}
	return 0;
}

int ox_op_EyeLike(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (x->rank != 2)
		return ox_kfail(k, "input must have rank 2, not %d", x->rank);
	int type = (int)ox_attr_int(k, "dtype", x->type);
	if (type == OX_STRING || !ox_elem_size(type))
		return ox_kfail(k, "EyeLike cannot make %s", ox_elem_label(type));
	int64_t diag = ox_attr_int(k, "k", 0);
	ox_val *y = ox_out_tensor(k, 0, type, 2, x->dims);
	if (!y)
		return -1;
	zero_elems(y, 0, y->count);
	for (int64_t i = 0; i < x->dims[0]; i++) {
		int64_t j = i + (diag < -x->dims[0] ? -x->dims[0] : diag > x->dims[1] ? x->dims[1] : diag);
		if (j >= 0 && j < x->dims[1])
			ox_set_i64(y, i * x->dims[1] + j, 1);
	}
	return 0;
}

/* The determinant of the n x n matrix a (destroyed) by LU with partial pivoting. */
static double det_lu(double *a, int64_t n)
{
	double det = 1;
	for (int64_t c = 0; c < n; c++) {
		int64_t p = c;
		for (int64_t r = c + 1; r < n; r++)
			if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
				p = r;
		if (a[p * n + c] == 0)
			return 0;
		if (p != c) {
			for (int64_t j = 0; j < n; j++) {
				double t = a[c * n + j];
				a[c * n + j] = a[p * n + j];
				a[p * n + j] = t;
			}
			det = -det;
		}
		det *= a[c * n + c];
		for (int64_t r = c + 1; r < n; r++) {
			double f = a[r * n + c] / a[c * n + c];
			for (int64_t j = c + 1; j < n; j++)
				a[r * n + j] -= f * a[c * n + j];
		}
	}
	return det;
}

int ox_op_Det(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (!ox_elem_is_float(x->type))
		return ox_kfail(k, "Det takes floating-point tensors, not %s", ox_elem_label(x->type));
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return ox_kfail(k, "input must be square matrices [*, M, M]");
	int64_t n = x->dims[x->rank - 1];
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank - 2, x->dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	double *a = malloc((size_t)(n > 0 ? n * n : 1) * sizeof *a);
	if (!a)
		return ox_kfail(k, "out of memory");
	for (int64_t m = 0; m < y->count; m++) {
		for (int64_t i = 0; i < n * n; i++)
			a[i] = ox_get_f64(x, m * n * n + i);
		ox_set_f64(y, m, det_lu(a, n));
	}
	free(a);
	return 0;
}
