/* DeformConv: a convolution whose taps are moved by learned offsets (bilinear sampling)
 * and scaled by an optional mask, computed in double through an im2col of the moved taps. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "eval/kernel.h"
#include "eval/move.h"

typedef struct deform {
	ox_conv_geom g;
	int64_t n, c, m, group, ogroup, insz, outsz, ksz;
	int64_t istr[OX_MAX_RANK];
	const double *x, *w, *off, *mask, *bias;
} deform;

/* The kernel tap kk of output position o, displaced by its offsets, sampled bilinearly
 * (zero outside) in every channel of offset group og of image n: col[c][kk][o]. */
static void deform_tap(const deform *D, int64_t n, int64_t og, int64_t o, int64_t kk, double *col)
{
	const ox_conv_geom *g = &D->g;
	int r = g->nsp;
	int64_t base[OX_MAX_RANK], oc = o, kc = kk;
	double frac[OX_MAX_RANK];
	bool inside = true;
	for (int d = r - 1; d >= 0; d--) {
		int64_t od = oc % g->out[d], kd = kc % g->kernel[d];
		oc /= g->out[d], kc /= g->kernel[d];
		int64_t ch = ((og * D->ksz + kk) * r + d);
		double p = (double)(od * g->stride[d] - g->pad0[d] + kd * g->dil[d]) +
			   D->off[((n * D->ogroup * D->ksz * r) + ch) * D->outsz + o];
		inside = inside && p > -1 && p < (double)g->in[d];
		double f = inside ? floor(p) : 0;
		base[d] = (int64_t)f, frac[d] = p - f;
	}
	double m = D->mask ? D->mask[(n * D->ogroup * D->ksz + og * D->ksz + kk) * D->outsz + o] : 1;
	int64_t cpg = D->c / D->ogroup;
	for (int64_t c = og * cpg; c < (og + 1) * cpg; c++) {
		double v = 0;
		const double *src = D->x + (n * D->c + c) * D->insz;
		for (int64_t corner = 0; inside && corner < ((int64_t)1 << r); corner++) {
			double wt = 1;
			int64_t at = 0;
			for (int d = 0; d < r && wt != 0; d++) {
				int64_t i = base[d] + ((corner >> d) & 1);
				wt *= (corner >> d) & 1 ? frac[d] : 1 - frac[d];
				wt = i < 0 || i >= g->in[d] ? 0 : wt;
				at += i * D->istr[d];
			}
			v += wt != 0 ? wt * src[at] : 0;
		}
		col[(c * D->ksz + kk) * D->outsz + o] = v * m;
	}
}

static void deform_image(const deform *D, int64_t n, double *col, double *y)
{
	for (int64_t og = 0; og < D->ogroup; og++)
		for (int64_t kk = 0; kk < D->ksz; kk++)
			for (int64_t o = 0; o < D->outsz; o++)
				deform_tap(D, n, og, o, kk, col);
	int64_t cg = D->c / D->group, mg = D->m / D->group, rows = cg * D->ksz;
	for (int64_t m = 0; m < D->m; m++) {
		double *out = y + (n * D->m + m) * D->outsz;
		const double *cols = col + (m / mg) * rows * D->outsz;
		for (int64_t o = 0; o < D->outsz; o++)
			out[o] = D->bias ? D->bias[m] : 0;
		for (int64_t r = 0; r < rows; r++) {
			double wv = D->w[m * rows + r];
			for (int64_t o = 0; wv != 0 && o < D->outsz; o++)
				out[o] += wv * cols[r * D->outsz + o];
		}
	}
}

static int deform_shape(ox_k *k, const ox_val *x, const ox_val *w, const ox_val *off, const ox_val *mask,
			const ox_val *b, deform *D)
{
	if (x->rank < 3 || w->rank != x->rank || off->rank != x->rank)
		return ox_kfail(k, "X, W and offset must have the same rank, 3 or more");
	D->n = x->dims[0], D->c = x->dims[1], D->m = w->dims[0];
	D->group = ox_attr_int(k, "group", 1), D->ogroup = ox_attr_int(k, "offset_group", 1);
	if (D->group < 1 || D->ogroup < 1 || D->c % D->group || D->m % D->group || w->dims[1] * D->group != D->c ||
	    D->c % D->ogroup)
		return ox_kfail(k, "group and offset_group must divide the channels, and W must have C / group inputs");
	if (ox_conv_attrs(k, x, w, &D->g) < 0 || ox_conv_out(k, &D->g) < 0)
		return -1;
	D->insz = D->outsz = D->ksz = 1;
	for (int d = 0; d < D->g.nsp; d++) {
		if (off->dims[2 + d] != D->g.out[d])
			return ox_kfail(k, "offset's spatial dims must be the output's (%lld at dim %d)",
					(long long)D->g.out[d], d);
		D->insz *= D->g.in[d], D->outsz *= D->g.out[d], D->ksz *= D->g.kernel[d];
	}
	ox_strides(D->g.nsp, D->g.in, D->istr);
	if (off->dims[0] != D->n || off->dims[1] != D->ogroup * D->ksz * D->g.nsp)
		return ox_kfail(k, "offset must have shape [N, offset_group * kernel size * %d, output dims...]", D->g.nsp);
	if (mask && mask->count != D->n * D->ogroup * D->ksz * D->outsz)
		return ox_kfail(k, "mask must have shape [N, offset_group * kernel size, output dims...]");
	if (b && b->count != D->m)
		return ox_kfail(k, "B must have one value per output channel");
	return 0;
}

int ox_op_DeformConv(ox_k *k)
{
	static const int ft[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};
	ox_val *x = ox_in_tensor(k, 0, true), *w = ox_in_tensor(k, 1, true), *off = ox_in_tensor(k, 2, true);
	ox_val *b = ox_in_tensor(k, 3, false), *mask = ox_in_tensor(k, 4, false);
	deform D = {0};
	if (!x || !w || !off || ox_check_type(k, x, "X", ft) < 0 || deform_shape(k, x, w, off, mask, b, &D) < 0)
		return -1;
	int64_t dims[OX_MAX_RANK] = {D.n, D.m};
	for (int d = 0; d < D.g.nsp; d++)
		dims[2 + d] = D.g.out[d];
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	double *xd = y ? ox_load_f64(k, x, "X") : NULL, *wd = xd ? ox_load_f64(k, w, "W") : NULL;
	double *od = wd ? ox_load_f64(k, off, "offset") : NULL;
	double *md = od && mask ? ox_load_f64(k, mask, "mask") : NULL, *bd = od && b ? ox_load_f64(k, b, "B") : NULL;
	bool ok = od && (!mask || md) && (!b || bd);
	int64_t ncol = ox_mul_count(ox_mul_count(D.c, D.ksz), D.outsz);
	double *col = ok && ncol >= 0 ? ox_scratch(k, ncol, 8, "columns") : NULL;
	double *yd = col ? ox_scratch(k, y->count, sizeof *yd, "output") : NULL;
	if (yd) {
		D.x = xd, D.w = wd, D.off = od, D.mask = md, D.bias = bd;
		for (int64_t n = 0; n < D.n; n++)
			deform_image(&D, n, col, yd);
		ox_store_f64(y, yd);
	} else if (ok && ncol < 0) {
		ox_kfail(k, "the column buffer would have more than %lld elements", (long long)OX_MAX_ELEMENTS);
	}
	free(xd), free(wd), free(od), free(md), free(bd), free(col), free(yd);
	return yd ? 0 : -1;
}
