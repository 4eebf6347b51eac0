/* Inference rules of the indexing operators: gathers and scatters, OneHot, NonZero, Compress,
 * TopK, Unique, Trilu, the cumulative ops, Range, EyeLike, Pad and the depth/space moves. */
#include "infer/rules.h"

/* Output 0 has input 0's shape and element type (Trilu, CumSum, the scatters, ...). */
int ox_rule_like_data(ox_ictx *x)
{
	const ox_type *in = ox_input(x, 0);
	ox_out_like(x, 0, in && in->elem ? in->elem : ox_out_elem(x, 0), 0);
	return 0;
}

int ox_rule_gather_elements(ox_ictx *x)
{
	const ox_type *d = ox_input_ranked(x, 0), *ix = ox_input_ranked(x, 1);
	int a;
	if (d && ix && d->rank != ix->rank)
		return ox_ierr(x, OX_P_INPUT, 1, "indices '%s' have rank %d, but the data has rank %d", x->node->input[1],
			       ix->rank, d->rank);
	if (d && ox_infer_axis(x, ox_iattr_int(x, "axis", 0), d->rank, 0, "attribute 'axis'", &a) < 0)
		return -1;
	ox_out_like(x, 0, ox_out_elem(x, 0), 1);
	return 0;
}

/* GatherND: indices[:-1] + data[batch_dims + indices[-1]:]. */
int ox_rule_gather_nd(ox_ictx *x)
{
	const ox_type *d = ox_input_ranked(x, 0), *ix = ox_input_ranked(x, 1);
	int64_t b = ox_iattr_int(x, "batch_dims", 0);
	int elem = ox_out_elem(x, 0);
	if (!d || !ix || ix->rank < 1 || !ox_dim_known(ix->dims[ix->rank - 1])) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	int64_t last = ix->dims[ix->rank - 1].v;
	if (b < 0 || b >= d->rank || b >= ix->rank)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'batch_dims' is %lld; the data has rank %d, the indices %d",
			       (long long)b, d->rank, ix->rank);
	if (last < 1 || last > d->rank - b)
		return ox_ierr(x, OX_P_INPUT, 1, "indices '%s' index %lld dimensions, but the data has %lld after %lld "
			       "batch dimensions", x->node->input[1], (long long)last, (long long)(d->rank - b), (long long)b);
	int r = ix->rank - 1 + d->rank - (int)b - (int)last;
	ox_type *out = ox_type_tensor(x, elem, r);
	for (int k = 0; out && k < ix->rank - 1; k++)
		out->dims[k] = ix->dims[k];
	for (int k = (int)(b + last), j = ix->rank - 1; out && k < d->rank; k++)
		out->dims[j++] = d->dims[k];
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_one_hot(ox_ictx *x)
{
	const ox_type *ix = ox_input_ranked(x, 0), *val = ox_input(x, 2);
	const int64_t *depth;
	int elem = val && val->elem ? val->elem : ox_out_elem(x, 0), a;
	if (!ix) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", -1), ix->rank + 1, 0, "attribute 'axis' (an axis of the result)", &a) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, elem, ix->rank + 1);
	for (int k = 0, j = 0; out && k <= ix->rank; k++)
		out->dims[k] = k == a ? OX_DIM_UNKNOWN : ix->dims[j++];
	if (out && ox_input_values(x, 1, &depth) == 1) {
		if (depth[0] < 1)
			return ox_ierr(x, OX_P_INPUT, 1, "depth '%s' is %lld; it must be positive", x->node->input[1],
				       (long long)depth[0]);
		out->dims[a] = ox_dim_num(depth[0]);
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_non_zero(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	ox_type *out = ox_type_tensor(x, OX_INT64, 2);
	if (out && in)
		out->dims[0] = ox_dim_num(in->rank);
	ox_set_out(x, 0, out);
	return 0;
}

/* Output 0: input 0's shape with dimension axis unknown, or 1-D of unknown length without an
 * axis (Compress, Unique's Y). */
static int select_along(ox_ictx *x, const ox_type *in, int elem, int *axis)
{
	*axis = -1;
	if (!in || !ox_attr_given(x, "axis")) {
		ox_type *o = ox_type_tensor(x, elem, in || !ox_attr_given(x, "axis") ? 1 : -1);
		ox_set_out(x, 0, o);
		return 0;
	}
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 0), in->rank, 0, "attribute 'axis'", axis) < 0)
		return -1;
	ox_type *out = ox_type_copy(x, in);
	if (out) {
		out->elem = elem;
		out->nvals = 0;
		out->dims[*axis] = OX_DIM_UNKNOWN;
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_compress(ox_ictx *x)
{
	const ox_type *c = ox_input_ranked(x, 1);
	int a;
	if (c && c->rank != 1)
		return ox_ierr(x, OX_P_INPUT, 1, "condition '%s' has rank %d; it must be 1-D", x->node->input[1], c->rank);
	return select_along(x, ox_input_ranked(x, 0), ox_out_elem(x, 0), &a);
}

int ox_rule_unique(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int a;
	if (select_along(x, in, ox_out_elem(x, 0), &a) < 0)
		return -1;
	ox_type *inv = ox_type_tensor(x, OX_INT64, 1);
	if (inv && in)
		inv->dims[0] = a >= 0 ? in->dims[a] : ox_dim_num(ox_type_count(in));
	for (size_t i = 1; i < 4; i++)
		ox_set_out(x, i, i == 2 ? inv : ox_type_tensor(x, OX_INT64, 1));
	return 0;
}

int ox_rule_top_k(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *kv;
	int64_t k = -1;
	int a;
	if (x->schema->since < 10)
		k = ox_iattr_int(x, "k", -1);
	else if (ox_input_values(x, 1, &kv) == 1)
		k = kv[0];
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		ox_set_out(x, 1, ox_type_tensor(x, OX_INT64, -1));
		return 0;
	}
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", -1), in->rank, 0, "attribute 'axis'", &a) < 0)
		return -1;
	if (k >= 0 && ox_dim_known(in->dims[a]) && k > in->dims[a].v)
		return ox_ierr(x, OX_P_INPUT, 1, "K is %lld, but axis %d has only %lld elements", (long long)k, a,
			       (long long)in->dims[a].v);
	ox_type *out = ox_type_copy(x, in);
	if (!out)
		return 0;
	out->nvals = 0;
	out->dims[a] = k >= 0 ? ox_dim_num(k) : OX_DIM_UNKNOWN;
	ox_set_out_indexed(x, out);
	return 0;
}

void ox_set_out_indexed(ox_ictx *x, const ox_type *values)
{
	ox_set_out(x, 0, values);
	if (x->n_out > 1) {
		ox_type *ix = ox_type_copy(x, values);
		if (ix)
			ix->elem = OX_INT64;
		ox_set_out(x, 1, ix);
	}
}

/* Range: 1-D of max(ceil((limit - start) / delta), 0) elements, known for integer scalars. */
int ox_rule_range(ox_ictx *x)
{
	const int64_t *s, *l, *d;
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), 1);
	if (out && ox_input_values(x, 0, &s) == 1 && ox_input_values(x, 1, &l) == 1 && ox_input_values(x, 2, &d) == 1) {
		if (d[0] == 0)
			return ox_ierr(x, OX_P_INPUT, 2, "delta '%s' is 0; the range would never end", x->node->input[2]);
		int64_t span = l[0] - s[0], n = span / d[0] + (span % d[0] != 0 && (span < 0) == (d[0] < 0));
		out->dims[0] = ox_dim_num(n > 0 ? n : 0);
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_eye_like(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const ox_type *any = ox_input(x, 0);
	int elem = (int)ox_iattr_int(x, "dtype", any && any->elem ? any->elem : OX_FLOAT);
	if (in && in->rank != 2)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; EyeLike needs rank 2", x->node->input[0], in->rank);
	ox_out_like(x, 0, elem, 0);
	return 0;
}

/* Pad: the pads (attribute 'paddings' in version 1, 'pads' in 2, input 1 since 11; input 3
 * names the axes since 18) add to each padded dimension. */
int ox_rule_pad(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *p = NULL, *axes = NULL;
	int64_t np = x->schema->since >= 11 ? ox_input_values(x, 1, &p)
					    : ox_iattr_ints(x, x->schema->since < 2 ? "paddings" : "pads", &p);
	int64_t na = ox_has_input(x, 3) ? ox_input_values(x, 3, &axes) : -2;
	int elem = ox_out_elem(x, 0), ax[OX_INFER_MAX_RANK];
	if (!in || np < 0 || na == -1) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, in ? in->rank : -1));
		return 0;
	}
	int n = na >= 0 ? (int)na : in->rank;
	if (np != 2 * n)
		return ox_ierr(x, OX_P_INPUT, x->schema->since >= 11 ? 1 : 0, "the pads have %lld values; expected %d (2 per "
			       "padded axis)", (long long)np, 2 * n);
	for (int i = 0; i < n; i++)
		if (na < 0)
			ax[i] = i;
		else if (ox_infer_axis(x, axes[i], in->rank, 0, "the axes", &ax[i]) < 0)
			return -1;
	ox_type *out = ox_type_copy(x, in);
	if (!out)
		return 0;
	out->nvals = 0;
	out->elem = elem;
	for (int i = 0; i < n; i++) {
		int64_t t = p[i] + p[i + n];
		ox_dim d = in->dims[ax[i]];
		if (ox_dim_known(d) && d.v + t < 0)
			return ox_ierr(x, OX_P_OP, 0, "the pads of axis %d remove %lld elements from %lld", ax[i],
				       (long long)-t, (long long)d.v);
		out->dims[ax[i]] = ox_dim_known(d) ? ox_dim_num(d.v + t) : t ? OX_DIM_UNKNOWN : d;
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* DepthToSpace (to_space) and SpaceToDepth over [N, C, H, W] with blocksize b. */
static int depth_space(ox_ictx *x, bool to_space)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int64_t b = ox_iattr_int(x, "blocksize", 0);
	int elem = ox_out_elem(x, 0);
	if (b < 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'blocksize' is %lld; it must be positive", (long long)b);
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, 4));
		return 0;
	}
	if (in->rank != 4)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [N, C, H, W]", x->node->input[0], in->rank);
	ox_type *out = ox_type_tensor(x, elem, 4);
	if (!out)
		return 0;
	out->dims[0] = in->dims[0];
	for (int k = 1; k < 4; k++) {
		ox_dim d = in->dims[k];
		int64_t f = k == 1 ? b * b : b;
		bool divide = (k == 1) == to_space;
		if (divide && ox_dim_known(d) && d.v % f)
			return ox_ierr(x, OX_P_INPUT, 0, "dimension %d of '%s' is %lld, not a multiple of %lld", k,
				       x->node->input[0], (long long)d.v, (long long)f);
		out->dims[k] = !ox_dim_known(d) ? (divide ? OX_DIM_UNKNOWN : ox_dim_mul(d, ox_dim_num(f)))
						: ox_dim_num(divide ? d.v / f : d.v * f);
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_depth_to_space(ox_ictx *x)
{
	return depth_space(x, true);
}

int ox_rule_space_to_depth(ox_ictx *x)
{
	return depth_space(x, false);
}
