/* Inference rules of the neural-network operators: Conv, ConvInteger, QLinearConv, DeformConv,
 * ConvTranspose and the pools (window sizes by window.h, the evaluator's own arithmetic), the
 * global pools, the Softmax family and the normalisations. */
#include <stdio.h>
#include <string.h>

#include "infer/rules.h"
#include "window.h"

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

static int auto_pad(ox_ictx *x)
{
	const char *s = ox_iattr_str(x, "auto_pad", "NOTSET");
	static const char *const names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return ox_ierr(x, OX_P_OP, 0, "attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, not '%s'", s);
}

/* An INTS attribute of n values (def for each when absent), each at least lo. */
static int window_ints(ox_ictx *x, const char *name, int n, int64_t lo, int64_t def, int64_t *out)
{
	const int64_t *v;
	int64_t c = ox_iattr_ints(x, name, &v);
	for (int i = 0; i < n; i++)
		out[i] = def;
	if (c <= 0)
		return 0;
	if (c != n)
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %lld values; expected %d", name, (long long)c, n);
	for (int i = 0; i < n; i++) {
		if (v[i] < lo)
			return ox_ierr(x, OX_P_OP, 0, "attribute '%s' value %lld is less than %lld", name, (long long)v[i],
				       (long long)lo);
		out[i] = v[i];
	}
	return 0;
}

/* The spatial output dims of a window of kernel k over x's dims 2.. (pools, Conv). */
static int window_out(ox_ictx *x, const ox_type *in, const int64_t *k, bool ceil_mode, ox_type *out)
{
	int n = in->rank - 2, ap = auto_pad(x);
	int64_t s[OX_INFER_MAX_RANK], d[OX_INFER_MAX_RANK], p[2 * OX_INFER_MAX_RANK];
	if (ap < 0 || window_ints(x, "strides", n, 1, 1, s) < 0 || window_ints(x, "dilations", n, 1, 1, d) < 0 ||
	    window_ints(x, "pads", 2 * n, 0, 0, p) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		ox_dim dim = in->dims[i + 2];
		int64_t ext = ox_window_extent(k[i], d[i]), p0, p1;
		if (!ox_dim_known(dim)) {
			out->dims[i + 2] = OX_DIM_UNKNOWN;
			continue;
		}
		if (ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
			out->dims[i + 2] = ox_dim_num(ox_same_pads(dim.v, s[i], ext, ap == PAD_SAME_LOWER, &p0, &p1));
			continue;
		}
		p0 = ap == PAD_VALID ? 0 : p[i];
		p1 = ap == PAD_VALID ? 0 : p[n + i];
		int64_t o = ox_window_out(dim.v, p0, p1, ext, s[i], ceil_mode && ap == PAD_NOTSET);
		if (o < 0)
			return ox_ierr(x, OX_P_OP, 0, "spatial axis %d: the padded input (%lld) is smaller than the %s (%lld)", i,
				       (long long)(dim.v + p0 + p1), d[i] > 1 ? "dilated kernel" : "kernel", (long long)ext);
		out->dims[i + 2] = ox_dim_num(o);
	}
	return 0;
}

/* X of rank 3 or more ([N, C, spatial...]), or NULL (output unknown, set here). */
static const ox_type *image(ox_ictx *x, int rank_out)
{
	const ox_type *in = ox_input_ranked(x, 0);
	if (!in) {
		for (size_t i = 0; i < x->n_out; i++)
			ox_set_out(x, i, ox_type_tensor(x, ox_out_elem(x, i), rank_out));
		return NULL;
	}
	if (in->rank < 3) {
		ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [N, C, spatial...] (rank 3 or more)",
			x->node->input[0], in->rank);
		return NULL;
	}
	return in;
}

/* W (input wi)'s channels against X's and group; kernel_shape against W. */
static int conv_weights(ox_ictx *x, const ox_type *in, const ox_type *w, size_t wi, int64_t group, bool transpose,
			int64_t *k)
{
	int n = in->rank - 2;
	if (w->rank != in->rank)
		return ox_ierr(x, OX_P_INPUT, wi, "input '%s' (the weights) has rank %d, but X has rank %d", x->node->input[wi],
			       w->rank, in->rank);
	ox_dim c = in->dims[1], wc = w->dims[transpose ? 0 : 1];
	if (ox_dim_known(c) && ox_dim_known(wc) && (transpose ? wc.v != c.v : wc.v * group != c.v))
		return transpose ? ox_ierr(x, OX_P_INPUT, wi, "X has %lld channels, but the weights take %lld", (long long)c.v,
					   (long long)wc.v)
				 : ox_ierr(x, OX_P_INPUT, wi, "X has %lld channels, but the weights take %lld (%lld per group, "
					   "group %lld)", (long long)c.v, (long long)(wc.v * group), (long long)wc.v,
					   (long long)group);
	int64_t ks[OX_INFER_MAX_RANK];
	if (window_ints(x, "kernel_shape", n, 1, 1, ks) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		ox_dim kd = w->dims[i + 2];
		if (ox_attr_given(x, "kernel_shape") && ox_dim_known(kd) && kd.v != ks[i])
			return ox_ierr(x, OX_P_OP, 0, "kernel_shape[%d] is %lld but the weights' spatial dimension is %lld", i,
				       (long long)ks[i], (long long)kd.v);
		k[i] = ox_attr_given(x, "kernel_shape") ? ks[i] : ox_dim_known(kd) ? kd.v : -1;
	}
	return 0;
}

/* The output of a convolution of X (input 0) by the weights (input wi), [N, M, spatial...],
 * in *res, and the kernel's taps per spatial axis in k (-1: unknown); Conv, ConvInteger,
 * QLinearConv and DeformConv share it. *res is NULL when X is unknown (the outputs are set
 * unknown then); the weights unknown leave its dims unknown. */
static int conv_shape(ox_ictx *x, size_t wi, int elem, ox_type **res, int64_t *k)
{
	const ox_type *in = image(x, -1), *w = ox_input_ranked(x, wi);
	*res = NULL;
	if (!in)
		return x->failed ? -1 : 0;
	int64_t group = ox_iattr_int(x, "group", 1);
	if (group < 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'group' is %lld", (long long)group);
	ox_type *out = ox_type_tensor(x, elem, in->rank);
	for (int i = 0; i < in->rank - 2; i++)
		k[i] = -1;
	if (!out || !w) {
		*res = out;
		return 0;
	}
	if (conv_weights(x, in, w, wi, group, false, k) < 0)
		return -1;
	out->dims[0] = in->dims[0];
	out->dims[1] = w->dims[0];
	if (ox_dim_known(w->dims[0]) && w->dims[0].v % group)
		return ox_ierr(x, OX_P_INPUT, wi, "the weights have %lld output channels, not a multiple of group %lld",
			       (long long)w->dims[0].v, (long long)group);
	*res = out;
	for (int i = 0; i < in->rank - 2; i++)
		if (k[i] < 0)
			return 0; /* spatial dims unknown */
	return window_out(x, in, k, false, out);
}

int ox_rule_conv(ox_ictx *x)
{
	ox_type *out;
	int64_t k[OX_INFER_MAX_RANK];
	if (conv_shape(x, 1, ox_out_elem(x, 0), &out, k) < 0)
		return -1;
	ox_set_out(x, 0, out);
	return 0;
}

/* How many values a parameter of a convolution holds (as the evaluator reads them). */
enum { ONE, ONE_OR_PER_CHANNEL, PER_CHANNEL };

/* Input i's value count against mode, m being the output channels: QLinearConv's scales,
 * zero points and bias, DeformConv's bias. */
static int conv_param(ox_ictx *x, size_t i, int mode, ox_dim m)
{
	const ox_type *t = ox_input_ranked(x, i);
	int64_t n = t ? ox_type_count(t) : -1;
	if (n < 0 || (mode != PER_CHANNEL && n == 1) || (mode != ONE && (!ox_dim_known(m) || n == m.v)))
		return 0;
	static const char *const want[] = {"a scalar", "a scalar or one per output channel", "one per output channel"};
	char ms[32] = "";
	if (mode != ONE)
		snprintf(ms, sizeof ms, " (%lld)", (long long)m.v);
	return ox_ierr(x, OX_P_INPUT, i, "input '%s' (%s) has %lld values; expected %s%s", x->node->input[i],
		       x->schema->inputs[i].name, (long long)n, want[mode], ms);
}

/* QLinearConv: Conv's shape of x (input 0) by w (input 3), y_zero_point's element type (x's
 * when it is left out, as the evaluator does); x's and y's scales and zero points are
 * scalars, w's scalars or one per output channel, B one per output channel. */
int ox_rule_qlinear_conv(ox_ictx *x)
{
	const ox_type *in = ox_input(x, 0), *w = ox_input_ranked(x, 3);
	int elem = ox_out_elem(x, 0) ? ox_out_elem(x, 0) : in && in->kind == OX_T_TENSOR ? in->elem : 0;
	ox_dim m = w && w->rank >= 1 ? w->dims[0] : OX_DIM_UNKNOWN;
	static const size_t scalars[] = {1, 2, 6, 7};
	for (size_t i = 0; i < 4; i++)
		if (conv_param(x, scalars[i], ONE, m) < 0)
			return -1;
	if (conv_param(x, 4, ONE_OR_PER_CHANNEL, m) < 0 || conv_param(x, 5, ONE_OR_PER_CHANNEL, m) < 0 ||
	    conv_param(x, 8, PER_CHANNEL, m) < 0)
		return -1;
	ox_type *out;
	int64_t k[OX_INFER_MAX_RANK];
	if (conv_shape(x, 3, elem, &out, k) < 0)
		return -1;
	ox_set_out(x, 0, out);
	return 0;
}

/* DeformConv's offset (input 2: per tap, one displacement per spatial axis) and mask (input
 * 4: one per tap) are [N, offset_group * taps * per, the output's spatial dims...]. */
static int deform_input(ox_ictx *x, size_t i, const ox_type *out, const int64_t *k, int64_t per, const char *layout)
{
	const ox_type *t = ox_input_ranked(x, i);
	if (!t || !out)
		return 0;
	ox_dim want[OX_INFER_MAX_RANK], taps = ox_dim_num(ox_iattr_int(x, "offset_group", 1) * per), r;
	for (int d = 0; d < out->rank - 2; d++)
		taps = k[d] < 0 ? OX_DIM_UNKNOWN : ox_dim_mul(taps, ox_dim_num(k[d]));
	for (int d = 0; d < out->rank; d++)
		want[d] = d == 1 ? taps : out->dims[d];
	bool ok = t->rank == out->rank;
	for (int d = 0; ok && d < out->rank; d++)
		ok = ox_dim_unify(t->dims[d], want[d], &r);
	if (ok)
		return 0;
	char have[160], exp[160];
	ox_type_str(t, have, sizeof have);
	ox_type_str(ox_type_dims(x, t->elem, out->rank, want), exp, sizeof exp);
	return ox_ierr(x, OX_P_INPUT, i, "input '%s' (%s) is %s; expected %s, %s", x->node->input[i],
		       x->schema->inputs[i].name, have, exp, layout);
}

/* DeformConv: Conv's shape (no auto_pad); offset and mask fit the output, B has one value per
 * output channel, offset_group divides X's channels. */
int ox_rule_deform_conv(ox_ictx *x)
{
	ox_type *out;
	int64_t k[OX_INFER_MAX_RANK], og = ox_iattr_int(x, "offset_group", 1);
	const ox_type *in = ox_input_ranked(x, 0), *w = ox_input_ranked(x, 1);
	if (og < 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'offset_group' is %lld", (long long)og);
	if (in && in->rank >= 2 && ox_dim_known(in->dims[1]) && in->dims[1].v % og)
		return ox_ierr(x, OX_P_OP, 0, "X has %lld channels, not a multiple of offset_group %lld",
			       (long long)in->dims[1].v, (long long)og);
	if (conv_shape(x, 1, ox_out_elem(x, 0), &out, k) < 0 ||
	    deform_input(x, 2, out, k, out ? out->rank - 2 : 0,
			 "[N, offset_group * kernel taps * spatial axes, output dims...]") < 0 ||
	    deform_input(x, 4, out, k, 1, "[N, offset_group * kernel taps, output dims...]") < 0 ||
	    conv_param(x, 3, PER_CHANNEL, w && w->rank >= 1 ? w->dims[0] : OX_DIM_UNKNOWN) < 0)
		return -1;
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_conv_transpose(ox_ictx *x)
{
	const ox_type *in = image(x, -1), *w = ox_input_ranked(x, 1);
	if (!in)
		return x->failed ? -1 : 0;
	int n = in->rank - 2, ap = auto_pad(x);
	int64_t group = ox_iattr_int(x, "group", 1), k[OX_INFER_MAX_RANK], s[OX_INFER_MAX_RANK], d[OX_INFER_MAX_RANK];
	int64_t op[OX_INFER_MAX_RANK], p[2 * OX_INFER_MAX_RANK];
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), in->rank);
	if (ap < 0 || group < 1 || !out || !w) {
		ox_set_out(x, 0, out);
		return ap < 0 || group < 1 ? -1 : 0;
	}
	if (conv_weights(x, in, w, 1, group, true, k) < 0 || window_ints(x, "strides", n, 1, 1, s) < 0 ||
	    window_ints(x, "dilations", n, 1, 1, d) < 0 || window_ints(x, "output_padding", n, 0, 0, op) < 0 ||
	    window_ints(x, "pads", 2 * n, 0, 0, p) < 0)
		return -1;
	out->dims[0] = in->dims[0];
	out->dims[1] = ox_dim_mul(w->dims[1], ox_dim_num(group));
	const int64_t *os;
	int64_t nos = ox_iattr_ints(x, "output_shape", &os);
	for (int i = 0; i < n; i++) {
		ox_dim dim = in->dims[i + 2];
		if (nos >= n) {
			out->dims[i + 2] = ox_dim_num(os[nos - n + i]);
		} else if (ox_dim_known(dim) && (ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER)) {
			out->dims[i + 2] = ox_dim_num(dim.v * s[i]);
		} else if (ox_dim_known(dim) && k[i] >= 0) {
			int64_t full = ox_window_transpose_full(dim.v, s[i], ox_window_extent(k[i], d[i]), op[i]);
			int64_t o = ap == PAD_VALID ? full : full - p[i] - p[n + i];
			if (o < 0)
				return ox_ierr(x, OX_P_OP, 0, "spatial axis %d: the pads exceed the output (%lld)", i, (long long)full);
			out->dims[i + 2] = ox_dim_num(o);
		}
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_pool(ox_ictx *x)
{
	const ox_type *in = image(x, -1);
	if (!in)
		return x->failed ? -1 : 0;
	int n = in->rank - 2;
	int64_t k[OX_INFER_MAX_RANK];
	if (!ox_attr_given(x, "kernel_shape"))
		return ox_ierr(x, OX_P_OP, 0, "required attribute 'kernel_shape' is missing");
	if (window_ints(x, "kernel_shape", n, 1, 1, k) < 0)
		return -1;
	ox_type *out = ox_type_copy(x, in);
	if (!out)
		return -1;
	out->elem = ox_out_elem(x, 0);
	out->nvals = 0, out->vals = NULL, out->known = NULL, out->sym = NULL, out->fvals = NULL;
	if (window_out(x, in, k, ox_iattr_int(x, "ceil_mode", 0) != 0, out) < 0)
		return -1;
	ox_set_out_indexed(x, out); /* MaxPool's indices */
	return 0;
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, 1, ...]. */
int ox_rule_global_pool(ox_ictx *x)
{
	const ox_type *in = image(x, -1);
	if (!in)
		return x->failed ? -1 : 0;
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), in->rank);
	for (int i = 0; out && i < in->rank; i++)
		out->dims[i] = i < 2 ? in->dims[i] : ox_dim_num(1);
	ox_set_out(x, 0, out);
	return 0;
}

/* The input's shape; an axis attribute (when the operator has one) in range. */
int ox_rule_same_shape_axis(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int a;
	if (in && x->schema && ox_schema_attr_find(x->schema, "axis") &&
	    ox_infer_axis(x, ox_iattr_int(x, "axis", -1), in->rank, 0, "attribute 'axis'", &a) < 0)
		return -1;
	for (size_t i = 0; i < x->n_out; i++)
		if (x->node->output[i] && *x->node->output[i])
			ox_out_like(x, i, ox_out_elem(x, i) ? ox_out_elem(x, i) : in ? in->elem : 0, 0);
	return 0;
}

/* Scale and bias (and mean and var) of a normalisation: 1-D of C, X's channel dim. */
static int channel_params(ox_ictx *x, size_t first, size_t last)
{
	const ox_type *in = ox_input_ranked(x, 0);
	if (!in || in->rank < 2)
		return 0;
	for (size_t i = first; i <= last && i < x->n_in; i++) {
		const ox_type *p = ox_input_ranked(x, i);
		ox_dim d;
		if (p && p->rank == 1 && !ox_dim_unify(p->dims[0], in->dims[1], &d))
			return ox_ierr(x, OX_P_INPUT, i, "input '%s' has %lld values, but X has %lld channels",
				       x->node->input[i], (long long)p->dims[0].v, (long long)in->dims[1].v);
	}
	return 0;
}

int ox_rule_batch_norm(ox_ictx *x)
{
	if (x->schema->since >= 9 && channel_params(x, 1, 4) < 0)
		return -1;
	ox_out_like(x, 0, ox_out_elem(x, 0), 0);
	for (size_t i = 1; i < x->n_out; i++) /* running mean and var, in training mode */
		if (x->node->output[i] && *x->node->output[i])
			ox_out_like(x, i, ox_out_elem(x, i), 3);
	return 0;
}

int ox_rule_instance_norm(ox_ictx *x)
{
	if (channel_params(x, 1, 2) < 0)
		return -1;
	ox_out_like(x, 0, ox_out_elem(x, 0), 0);
	return 0;
}

/* LayerNormalization: Y like X; Mean and InvStdDev keep the dims before axis, 1 after. */
int ox_rule_layer_norm(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int a = 0;
	ox_out_like(x, 0, ox_out_elem(x, 0), 0);
	if (!in)
		return 0;
	/* axis in [-r, r] (the spec's range): axis r normalises nothing, the statistics keep X's shape */
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", -1), in->rank, 1, "attribute 'axis'", &a) < 0)
		return -1;
	for (size_t i = 1; i < x->n_out; i++) {
		/* U: the stash type, float unless stash_type says otherwise */
		int u = ox_out_elem(x, i) ? ox_out_elem(x, i) : (int)ox_iattr_int(x, "stash_type", OX_FLOAT);
		ox_type *t = ox_type_tensor(x, u, in->rank);
		for (int k = 0; t && k < in->rank; k++)
			t->dims[k] = k < a ? in->dims[k] : ox_dim_num(1);
		ox_set_out(x, i, t);
	}
	return 0;
}
