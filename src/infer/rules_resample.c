/* Inference rules of resampling and region operators (Resize, Upsample, GridSample, AffineGrid,
 * RoiAlign, MaxRoiPool, MaxUnpool, Col2Im, CenterCropPad, NonMaxSuppression) and of the
 * spectral ones (DFT, STFT). Output sizes follow the evaluator's (src/eval/ops/resize.c). */
#include <math.h>

#include "infer/rules.h"

/* Input i's values as doubles when all are known (float tensors: fvals; integers: vals). */
static int64_t known_reals(const ox_ictx *x, size_t i, const double **f)
{
	const ox_type *t = ox_input(x, i);
	if (!t || !t->fvals || t->known)
		return -1;
	*f = t->fvals;
	return t->nvals;
}

/* The resized axes: attribute 'axes' (Resize 18 on) normalised into ax, else every axis. */
static int resize_axes(ox_ictx *x, int rank, int *ax)
{
	const int64_t *v;
	int64_t n = x->schema->since >= 18 ? ox_iattr_ints(x, "axes", &v) : -1;
	for (int i = 0; n < 0 && i < rank; i++)
		ax[i] = i;
	if (n < 0)
		return rank;
	if (n > rank)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'axes' has %lld values for an input of rank %d", (long long)n, rank);
	for (int64_t i = 0; i < n; i++)
		if (ox_infer_axis(x, v[i], rank, 0, "attribute 'axes'", &ax[i]) < 0)
			return -1;
	return (int)n;
}

/* The dim v rounds down to; an error when int64 cannot hold it. */
static int scaled_dim(ox_ictx *x, size_t input, int axis, double v, ox_dim *d)
{
	if (!(v < 0x1p63))
		return ox_ierr(x, OX_P_INPUT, input, "output dim %d would be %g, past what int64 holds", axis, v);
	*d = ox_dim_num((int64_t)v);
	return 0;
}

/* Output dims from sizes: stretched, or by keep_aspect_ratio_policy's one scale (rounded as
 * the evaluator rounds). */
static int from_sizes(ox_ictx *x, const ox_type *in, const int64_t *sz, const int *ax, int n, ox_type *out)
{
	const char *pol = ox_iattr_str(x, "keep_aspect_ratio_policy", "stretch");
	bool stretch = x->schema->since < 18 || pol[0] == 's', larger = pol[0] == 'n' && pol[4] == 's';
	double keep = larger ? 0 : INFINITY;
	for (int i = 0; i < n; i++) {
		if (sz[i] < 0)
			return ox_ierr(x, OX_P_INPUT, 3, "sizes[%d] is %lld; sizes must not be negative", i, (long long)sz[i]);
		out->dims[ax[i]] = ox_dim_num(sz[i]);
		if (!stretch && !ox_dim_known(in->dims[ax[i]])) {
			for (int j = 0; j < n; j++) /* one scale for all: unknown with any input size */
				out->dims[ax[j]] = OX_DIM_UNKNOWN;
			return 0;
		}
		double s = !stretch && in->dims[ax[i]].v ? (double)sz[i] / (double)in->dims[ax[i]].v : 1;
		keep = larger ? fmax(keep, s) : fmin(keep, s);
	}
	for (int i = 0; !stretch && i < n; i++)
		if (scaled_dim(x, 3, ax[i], floor(keep * (double)in->dims[ax[i]].v + 0.5), &out->dims[ax[i]]) < 0)
			return -1;
	return 0;
}

static int from_scales(ox_ictx *x, size_t input, const ox_type *in, const double *s, const int *ax, int n, ox_type *out)
{
	for (int i = 0; i < n; i++) {
		if (!(s[i] > 0) || isinf(s[i]))
			return ox_ierr(x, OX_P_INPUT, input, "scales[%d] is %g; scales must be positive", i, s[i]);
		ox_dim d = in->dims[ax[i]];
		if (!ox_dim_known(d))
			out->dims[ax[i]] = s[i] == 1 ? d : OX_DIM_UNKNOWN;
		else if (scaled_dim(x, input, ax[i], floor(s[i] * (double)d.v), &out->dims[ax[i]]) < 0)
			return -1;
	}
	return 0;
}

/* Resize (scales or sizes), Upsample (scales, an attribute in version 7). */
int ox_rule_resize(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	bool upsample = x->node->op_type[0] == 'U';
	size_t si = upsample || x->schema->since < 11 ? 1 : 2;
	int elem = ox_out_elem(x, 0), ax[OX_INFER_MAX_RANK], n;
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	if ((n = resize_axes(x, in->rank, ax)) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, elem, in->rank);
	for (int k = 0; out && k < in->rank; k++)
		out->dims[k] = in->dims[k];
	for (int i = 0; out && i < n; i++)
		out->dims[ax[i]] = OX_DIM_UNKNOWN;
	const int64_t *sz = NULL;
	const double *s = NULL;
	int64_t ns, nsz = !upsample && si == 2 && ox_has_input(x, 3) ? ox_input_values(x, 3, &sz) : -1;
	double as[OX_INFER_MAX_RANK];
	const float *af;
	if (upsample && x->schema->since < 9) {
		const Onnx__AttributeProto *a = ox_iattr(x, "scales");
		ns = a ? (int64_t)a->n_floats : -1;
		af = a ? a->floats : NULL;
		for (int64_t i = 0; i < ns && i < OX_INFER_MAX_RANK; i++)
			as[i] = af[i];
		s = as;
	} else
		ns = ox_has_input(x, si) ? known_reals(x, si, &s) : -1;
	int r = 0;
	if (out && nsz >= 0 && nsz != n)
		return ox_ierr(x, OX_P_INPUT, 3, "sizes has %lld values; expected %d (one per resized axis)", (long long)nsz, n);
	if (out && nsz < 0 && ns > 0 && ns != n)
		return ox_ierr(x, OX_P_INPUT, si, "scales has %lld values; expected %d (one per resized axis)", (long long)ns, n);
	if (out && nsz >= 0)
		r = from_sizes(x, in, sz, ax, n, out);
	else if (out && ns > 0)
		r = from_scales(x, si, in, s, ax, n, out);
	if (r < 0)
		return -1;
	ox_set_out(x, 0, out);
	return 0;
}

static ox_dim dim_of(const ox_type *t, int k)
{
	return t && k < t->rank ? t->dims[k] : OX_DIM_UNKNOWN;
}

/* GridSample: [N, C] of X, then the grid's spatial dims ([N, out..., r - 2]). */
int ox_rule_grid_sample(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0), *g = ox_input_ranked(x, 1);
	int r = in ? in->rank : g ? g->rank : -1;
	if (in && g && in->rank != g->rank)
		return ox_ierr(x, OX_P_INPUT, 1, "grid '%s' has rank %d, but X has rank %d", x->node->input[1], g->rank,
			       in->rank);
	ox_dim d[OX_INFER_MAX_RANK];
	if (r < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		return 0;
	}
	d[0] = dim_of(in, 0), d[1] = dim_of(in, 1);
	for (int k = 2; k < r; k++)
		d[k] = dim_of(g, k - 1);
	ox_set_out(x, 0, ox_type_dims(x, ox_out_elem(x, 0), r, d));
	return 0;
}

/* AffineGrid: size [N, C, H, W] gives [N, H, W, 2]; [N, C, D, H, W] gives [N, D, H, W, 3]. */
int ox_rule_affine_grid(ox_ictx *x)
{
	const int64_t *sz = NULL;
	int64_t n = ox_input_values(x, 1, &sz);
	ox_dim d[5];
	if (n < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		return 0;
	}
	if (n != 4 && n != 5)
		return ox_ierr(x, OX_P_INPUT, 1, "size '%s' has %lld values; expected 4 ([N, C, H, W]) or 5", x->node->input[1],
			       (long long)n);
	d[0] = ox_dim_num(sz[0]);
	for (int k = 2; k < n; k++)
		d[k - 1] = ox_dim_num(sz[k]);
	d[n - 1] = ox_dim_num(n - 2);
	ox_set_out(x, 0, ox_type_dims(x, ox_out_elem(x, 0), (int)n, d));
	return 0;
}

/* The number of rois: rois [num_rois, 4] (MaxRoiPool's: [num_rois, 5]), and RoiAlign's
 * batch_indices [num_rois] agreeing with it. */
static int roi_count(ox_ictx *x, bool align, ox_dim *n)
{
	const ox_type *rois = ox_input_ranked(x, 1), *bi = align ? ox_input_ranked(x, 2) : NULL;
	ox_dim c = ox_dim_num(align ? 4 : 5);
	if (rois && (rois->rank != 2 || !ox_dim_unify(rois->dims[1], c, &c))) {
		char t[160];
		ox_type_str(rois, t, sizeof t);
		return ox_ierr(x, OX_P_INPUT, 1, "rois '%s' is %s; expected [num_rois, %d]", x->node->input[1], t, align ? 4 : 5);
	}
	if (bi && bi->rank != 1)
		return ox_ierr(x, OX_P_INPUT, 2, "batch_indices '%s' has rank %d; expected 1 ([num_rois])", x->node->input[2],
			       bi->rank);
	if (!ox_dim_unify(dim_of(rois, 0), dim_of(bi, 0), n)) {
		char a[64], b[64];
		ox_dim_str(dim_of(bi, 0), a, sizeof a);
		ox_dim_str(dim_of(rois, 0), b, sizeof b);
		return ox_ierr(x, OX_P_INPUT, 2, "batch_indices '%s' has %s values, but rois '%s' has %s rois", x->node->input[2], a,
			       x->node->input[1], b);
	}
	return 0;
}

/* RoiAlign and MaxRoiPool: [rois, C, output height, output width]. */
int ox_rule_roi_pool(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *ps;
	ox_dim d[4] = {OX_DIM_UNKNOWN, dim_of(in, 1), OX_DIM_UNKNOWN, OX_DIM_UNKNOWN};
	if (in && in->rank != 4)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [N, C, H, W]", x->node->input[0], in->rank);
	if (roi_count(x, x->node->op_type[0] == 'R', &d[0]) < 0)
		return -1;
	if (x->node->op_type[0] == 'R') {
		d[2] = ox_dim_num(ox_iattr_int(x, "output_height", 1));
		d[3] = ox_dim_num(ox_iattr_int(x, "output_width", 1));
	} else if (ox_iattr_ints(x, "pooled_shape", &ps) == 2) {
		d[2] = ox_dim_num(ps[0]);
		d[3] = ox_dim_num(ps[1]);
	}
	ox_set_out(x, 0, ox_type_dims(x, ox_out_elem(x, 0), 4, d));
	return 0;
}

int ox_rule_non_max_suppression(ox_ictx *x)
{
	ox_dim d[2] = {OX_DIM_UNKNOWN, ox_dim_num(3)};
	ox_set_out(x, 0, ox_type_dims(x, OX_INT64, 2, d));
	return 0;
}

/* MaxUnpool: output_shape's values when given, else (in - 1) * stride - pads + kernel. */
int ox_rule_max_unpool(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *os, *k, *st, *p;
	int elem = ox_out_elem(x, 0);
	int64_t n = ox_has_input(x, 2) ? ox_input_values(x, 2, &os) : -2;
	if (n >= 0) {
		ox_dim d[OX_INFER_MAX_RANK];
		for (int64_t i = 0; i < n && i < OX_INFER_MAX_RANK; i++)
			d[i] = ox_dim_num(os[i]);
		ox_set_out(x, 0, ox_type_dims(x, elem, n < OX_INFER_MAX_RANK ? (int)n : -1, d));
		return 0;
	}
	int64_t nk = ox_iattr_ints(x, "kernel_shape", &k), ns = ox_iattr_ints(x, "strides", &st);
	int64_t np = ox_iattr_ints(x, "pads", &p);
	if (!in || n == -1 || nk != in->rank - 2) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, in ? in->rank : -1));
		return 0;
	}
	ox_type *out = ox_type_tensor(x, elem, in->rank);
	for (int i = 0; out && i < in->rank; i++) {
		ox_dim d = in->dims[i];
		int64_t s = ns == nk && i >= 2 ? st[i - 2] : 1, pad = np == 2 * nk && i >= 2 ? p[i - 2] + p[i - 2 + nk] : 0;
		out->dims[i] = i < 2 || !ox_dim_known(d) ? (i < 2 ? d : OX_DIM_UNKNOWN)
						       : ox_dim_num((d.v - 1) * s - pad + k[i - 2]);
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* Col2Im: [N, C * prod(block), L] to [N, C, image...]. */
int ox_rule_col2im(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *img, *blk;
	int64_t ni = ox_input_values(x, 1, &img), nb = ox_input_values(x, 2, &blk);
	int elem = ox_out_elem(x, 0);
	if (in && in->rank != 3)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [N, C * prod(block_shape), L]",
			       x->node->input[0], in->rank);
	if (ni >= 0 && nb >= 0 && ni != nb)
		return ox_ierr(x, OX_P_INPUT, 2, "block_shape has %lld values, but image_shape has %lld", (long long)nb,
			       (long long)ni);
	if (ni < 0 || ni + 2 > OX_INFER_MAX_RANK) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	ox_dim d[OX_INFER_MAX_RANK] = {dim_of(in, 0), OX_DIM_UNKNOWN};
	int64_t prod = 1;
	for (int64_t i = 0; nb >= 0 && i < nb; i++)
		prod *= blk[i];
	ox_dim c = dim_of(in, 1);
	if (nb >= 0 && prod > 0 && ox_dim_known(c)) {
		if (c.v % prod)
			return ox_ierr(x, OX_P_INPUT, 0, "dimension 1 of '%s' is %lld, not a multiple of the block size %lld",
				       x->node->input[0], (long long)c.v, (long long)prod);
		d[1] = ox_dim_num(c.v / prod);
	}
	for (int64_t i = 0; i < ni; i++)
		d[i + 2] = ox_dim_num(img[i]);
	ox_set_out(x, 0, ox_type_dims(x, elem, (int)ni + 2, d));
	return 0;
}

/* CenterCropPad: the axes (attribute, default all) take the shape input's values. */
int ox_rule_center_crop_pad(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *sh, *axes;
	int64_t ns = ox_input_values(x, 1, &sh), na = ox_iattr_ints(x, "axes", &axes);
	int a;
	if (!in || ns < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), in ? in->rank : -1));
		return 0;
	}
	if (ns != (na >= 0 ? na : in->rank))
		return ox_ierr(x, OX_P_INPUT, 1, "shape '%s' has %lld values; expected %lld", x->node->input[1], (long long)ns,
			       (long long)(na >= 0 ? na : in->rank));
	ox_type *out = ox_type_copy(x, in);
	for (int64_t i = 0; out && i < ns; i++) {
		if (ox_infer_axis(x, na >= 0 ? axes[i] : i, in->rank, 0, "attribute 'axes'", &a) < 0)
			return -1;
		out->dims[a] = ox_dim_num(sh[i]);
	}
	if (out)
		out->nvals = 0;
	ox_set_out(x, 0, out);
	return 0;
}

/* DFT: the input's shape with the last dimension 2 (complex), the transformed axis of
 * dft_length (when known) or kept, halved + 1 when onesided. */
int ox_rule_dft(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *len, *av;
	int64_t axis = x->schema->since >= 20 ? (ox_input_values(x, 2, &av) == 1 ? av[0] : -2) : ox_iattr_int(x, "axis", 1);
	int a;
	if (!in || (x->schema->since >= 20 && ox_has_input(x, 2) && ox_input_values(x, 2, &av) != 1)) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), in ? in->rank : -1));
		return 0;
	}
	if (in->rank < 2)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [batch, signal..., 1 or 2]",
			       x->node->input[0], in->rank);
	/* the last dimension holds the real and imaginary parts: axes count over the full rank */
	a = (int)(axis < 0 ? axis + in->rank : axis);
	if (a < 0 || a > in->rank - 2)
		return ox_ierr(x, x->schema->since >= 20 ? OX_P_INPUT : OX_P_OP, x->schema->since >= 20 ? 2 : 0,
			       "the axis is %lld, out of range [%d, %d] or [0, %d] for rank %d", (long long)axis,
			       -in->rank, -2, in->rank - 2, in->rank);
	ox_type *out = ox_type_copy(x, in);
	if (!out)
		return 0;
	out->nvals = 0;
	out->dims[in->rank - 1] = ox_dim_num(2);
	ox_dim n = ox_has_input(x, 1) ? (ox_input_values(x, 1, &len) == 1 ? ox_dim_num(len[0]) : OX_DIM_UNKNOWN)
				      : in->dims[a];
	if (ox_iattr_int(x, "onesided", 0))
		n = ox_dim_known(n) ? ox_dim_num(n.v / 2 + 1) : OX_DIM_UNKNOWN;
	out->dims[a] = n;
	ox_set_out(x, 0, out);
	return 0;
}

/* STFT: [batch, frames, bins, 2] with frames = (length - frame_length) / frame_step + 1. */
int ox_rule_stft(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0), *w = ox_input_ranked(x, 2);
	const int64_t *step, *fl;
	ox_dim d[4] = {dim_of(in, 0), OX_DIM_UNKNOWN, OX_DIM_UNKNOWN, ox_dim_num(2)};
	ox_dim len = ox_has_input(x, 3) ? (ox_input_values(x, 3, &fl) == 1 ? ox_dim_num(fl[0]) : OX_DIM_UNKNOWN)
					: dim_of(w, 0);
	if (in && in->rank != 3)
		return ox_ierr(x, OX_P_INPUT, 0, "signal '%s' has rank %d; expected [batch, length, 1 or 2]",
			       x->node->input[0], in->rank);
	if (ox_input_values(x, 1, &step) == 1 && step[0] > 0 && ox_dim_known(len) && ox_dim_known(dim_of(in, 1))) {
		if (len.v > in->dims[1].v)
			return ox_ierr(x, OX_P_INPUT, 0, "the frame length %lld is longer than the signal (%lld)",
				       (long long)len.v, (long long)in->dims[1].v);
		d[1] = ox_dim_num((in->dims[1].v - len.v) / step[0] + 1);
	}
	if (ox_dim_known(len))
		d[2] = ox_dim_num(ox_iattr_int(x, "onesided", 1) ? len.v / 2 + 1 : len.v);
	ox_set_out(x, 0, ox_type_dims(x, ox_out_elem(x, 0), 4, d));
	return 0;
}
