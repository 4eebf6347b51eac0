/* Shape manipulation: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split,
 * Slice, Expand, Tile, Shape, Size, ConstantOfShape, Range, DepthToSpace, SpaceToDepth.
 * Pure reshapes share their input's data; the rest are byte moves over element size. */
#include <math.h>
#include <string.h>

#include "eval/move.h"
#include "eval/threads.h"

/* ---- reshapes -------------------------------------------------------------------- */

/* Resolves Reshape's 0 (copy the input's dim, unless allowzero) and -1 (infer). */
static int reshape_dims(ox_k *k, const ox_val *x, int n, int64_t *shape, bool allowzero)
{
	int infer = -1;
	int64_t known = 1;
	for (int i = 0; i < n; i++) {
		if (shape[i] == 0 && !allowzero) {
			if (i >= x->rank)
				return ox_kfail(k, "shape[%d] is 0 (copy the input's dim), but the input has rank %d", i,
						x->rank);
			shape[i] = x->dims[i];
		} else if (shape[i] == -1) {
			if (infer >= 0)
				return ox_kfail(k, "shape has more than one -1 (at %d and %d)", infer, i);
			infer = i;
			continue;
		} else if (shape[i] < 0) {
			return ox_kfail(k, "shape[%d] is %lld; dims must be >= -1", i, (long long)shape[i]);
		}
		if (shape[i] && known > OX_MAX_ELEMENTS / shape[i])
			return ox_kfail(k, "shape has too many elements");
		known *= shape[i];
	}
	if (infer >= 0) {
		if (known == 0 || x->count % known)
			return ox_kfail(k, "cannot infer the -1 of shape[%d]: %lld elements are not a multiple of %lld",
					infer, (long long)x->count, (long long)known);
		shape[infer] = x->count / known;
		known = x->count;
	}
	if (known != x->count) {
		char a[128], b[128];
		return ox_kfail(k, "cannot reshape %s (%lld elements) to %s", ox_fmt_dims(a, sizeof a, x->rank, x->dims),
				(long long)x->count, ox_fmt_dims(b, sizeof b, n, shape));
	}
	return 0;
}

/* The shape is an attribute at version 1, input 1 from 5 (allowzero, from 14, is an
 * attribute the session refuses before). */
static int reshape(ox_k *k, bool from_input)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int64_t shape[OX_MAX_RANK];
	int64_t n = ox_ints_arg(k, from_input, 1, "shape", shape, OX_MAX_RANK);
	if (n == -2)
		return ox_kfail(k, from_input ? "input 1 (shape) is required" : "attribute 'shape' is required");
	if (n < 0)
		return -1;
	bool allowzero = ox_attr_int(k, "allowzero", 0);
	if (reshape_dims(k, x, (int)n, shape, allowzero) < 0)
		return -1;
	return ox_out_view(k, x, (int)n, shape);
}

OX_KERNEL(ox_op_Reshape_1, reshape(k, false))
OX_KERNEL(ox_op_Reshape_5, reshape(k, true))

/* A negative axis counts from the end from version 11 on. */
static int flatten(ox_k *k, bool negative)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int64_t axis = ox_attr_int(k, "axis", 1);
	if (axis < 0 && negative)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return ox_kfail(k, "axis %lld is out of range for rank %d (0..%d)", (long long)ox_attr_int(k, "axis", 1),
				x->rank, x->rank);
	int64_t d[2] = {ox_shape_count((int)axis, x->dims), ox_shape_count(x->rank - (int)axis, x->dims + axis)};
	if (d[0] < 0 || d[1] < 0)
		return ox_kfail(k, "the flattened dims are too large");
	return ox_out_view(k, x, 2, d);
}

OX_KERNEL(ox_op_Flatten_1, flatten(k, false))
OX_KERNEL(ox_op_Flatten_11, flatten(k, true))

/* Marks each of the n axes (normalized against rank) in seen; fails on repeats. */
static int mark_axes(ox_k *k, const int64_t *axes, int64_t n, int rank, bool *seen)
{
	memset(seen, 0, (size_t)OX_MAX_RANK * sizeof *seen);
	for (int64_t i = 0; i < n; i++) {
		int a = ox_axis(k, axes[i], rank);
		if (a < 0)
			return -1;
		if (seen[a])
			return ox_kfail(k, "axis %lld is given twice", (long long)axes[i]);
		seen[a] = true;
	}
	return 0;
}

/* Squeeze's and Unsqueeze's input, and their axes (an input from version 13, an attribute
 * before) in axes[0..*n), *n as ox_ints_arg gives it. */
static ox_val *axes_and_input(ox_k *k, bool from_input, int64_t *axes, int64_t *n)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (x)
		*n = ox_ints_arg(k, from_input, 1, "axes", axes, OX_MAX_RANK);
	return x;
}

static int squeeze(ox_k *k, bool from_input)
{
	int64_t axes[OX_MAX_RANK], dims[OX_MAX_RANK], n;
	bool seen[OX_MAX_RANK];
	ox_val *x = axes_and_input(k, from_input, axes, &n);
	if (!x || n == -1)
		return -1;
	if (n >= 0 && mark_axes(k, axes, n, x->rank, seen) < 0)
		return -1;
	int r = 0;
	for (int i = 0; i < x->rank; i++) {
		bool drop = n >= 0 ? seen[i] : x->dims[i] == 1;
		if (drop && x->dims[i] != 1)
			return ox_kfail(k, "cannot squeeze axis %d: its dim is %lld, not 1", i, (long long)x->dims[i]);
		if (!drop)
			dims[r++] = x->dims[i];
	}
	return ox_out_view(k, x, r, dims);
}

OX_KERNEL(ox_op_Squeeze_1, squeeze(k, false))
OX_KERNEL(ox_op_Squeeze_13, squeeze(k, true))

static int unsqueeze(ox_k *k, bool from_input)
{
	int64_t axes[OX_MAX_RANK], dims[OX_MAX_RANK], n;
	bool seen[OX_MAX_RANK];
	ox_val *x = axes_and_input(k, from_input, axes, &n);
	if (!x)
		return -1;
	if (n == -2)
		return ox_kfail(k, from_input ? "input 1 (axes) is required" : "attribute 'axes' is required");
	if (n < 0)
		return -1;
	int r = x->rank + (int)n;
	if (r > OX_MAX_RANK)
		return ox_kfail(k, "the output's rank %d exceeds the limit of %d", r, OX_MAX_RANK);
	if (mark_axes(k, axes, n, r, seen) < 0)
		return -1;
	for (int i = 0, j = 0; i < r; i++)
		dims[i] = seen[i] ? 1 : x->dims[j++];
	return ox_out_view(k, x, r, dims);
}

OX_KERNEL(ox_op_Unsqueeze_1, unsqueeze(k, false))
OX_KERNEL(ox_op_Unsqueeze_13, unsqueeze(k, true))

/* ---- Transpose ------------------------------------------------------------------- */

int ox_op_Transpose(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int perm[OX_MAX_RANK];
	int64_t dims[OX_MAX_RANK];
	bool seen[OX_MAX_RANK] = {false}, identity = true;
	const int64_t *p;
	int64_t n = ox_attr_ints(k, "perm", &p);
	if (n >= 0 && n != x->rank)
		return ox_kfail(k, "perm has %lld values for an input of rank %d", (long long)n, x->rank);
	for (int i = 0; i < x->rank; i++) {
		int64_t a = n >= 0 ? p[i] : x->rank - 1 - i;
		if (a < 0 || a >= x->rank || seen[a])
			return ox_kfail(k, "perm is not a permutation of 0..%d (perm[%d] is %lld)", x->rank - 1, i,
					(long long)a);
		seen[a] = true;
		perm[i] = (int)a;
		dims[i] = x->dims[a];
		identity &= a == i;
	}
	if (identity) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y)
		return -1;
	ox_transpose(y->data, x->data, ox_elem_size(x->type), x->rank, x->dims, perm);
	return ox_out_own(k, y);
}

/* ---- Concat and Split ------------------------------------------------------------ */

/* Checks that input i matches the first one except along axis. */
static int concat_check(ox_k *k, const ox_val *a, const ox_val *b, int64_t i, int axis)
{
	if (b->type != a->type)
		return ox_kfail(k, "input %lld is %s, but input 0 is %s", (long long)i, ox_elem_label(b->type),
				ox_elem_label(a->type));
	if (b->rank != a->rank)
		return ox_kfail(k, "input %lld has rank %d, but input 0 has rank %d", (long long)i, b->rank, a->rank);
	for (int d = 0; d < a->rank; d++)
		if (d != axis && b->dims[d] != a->dims[d])
			return ox_kfail(k, "input %lld has dim %lld on axis %d, but input 0 has %lld", (long long)i,
					(long long)b->dims[d], d, (long long)a->dims[d]);
	return 0;
}

/* An input made in place (exec.c: placement) is where its copy would go, and is not
 * copied. Another may lie in the output too, elsewhere: a Concat's input that a Concat
 * before, made in place, holds (densenet reads its blocks twice so), which its copy reads
 * from a part nothing writes to. One placed by the shapes of another run may lie where
 * copies go (inputs before it changed size and the output did not): the output then takes
 * memory of its own. */
static bool placed_right(const ox_val *y, ox_val *const *xs, int64_t n, int64_t outer, size_t es)
{
	const char *o = y->data;
	size_t size = y->count * es;
	for (int64_t i = 0; i < n; i++) {
		const char *x = xs[i]->data;
		size_t b = xs[i]->count * es, at = 0;
		if (!b || x >= o + size || o >= x + b)
			continue;
		if (outer != 1)
			return false;
		bool inside = false; /* an input in place holds it */
		for (int64_t j = 0; j < n && !inside; j++) {
			size_t bj = xs[j]->count * es;
			inside = xs[j]->data == o + at && x >= o + at && x + b <= o + at + bj;
			at += bj;
		}
		if (!inside)
			return false;
	}
	return true;
}

int ox_concat(ox_k *k, ox_val *const *xs, int64_t n, int64_t axis_attr, bool new_axis)
{
	if (n < 1 || !xs[0])
		return ox_kfail(k, "nothing to concatenate");
	ox_val *a = xs[0];
	if (a->rank == 0 && !new_axis)
		return ox_kfail(k, "cannot concatenate scalars");
	if (new_axis && a->rank >= OX_MAX_RANK)
		return ox_kfail(k, "the output's rank exceeds the limit of %d", OX_MAX_RANK);
	int axis = ox_axis(k, axis_attr, a->rank + new_axis);
	if (axis < 0)
		return -1;
	int64_t dims[OX_MAX_RANK];
	for (int64_t i = 0; i < n; i++)
		if (!xs[i] || xs[i]->kind != OX_TENSOR)
			return ox_kfail(k, "input %lld must be a tensor", (long long)i);
		else if (concat_check(k, a, xs[i], i, new_axis ? -1 : axis) < 0)
			return -1;
	/* with new_axis every input is seen with a 1 inserted at axis */
	memcpy(dims, a->dims, (size_t)axis * sizeof *dims);
	memcpy(dims + axis + new_axis, a->dims + axis, (size_t)(a->rank - axis) * sizeof *dims);
	dims[axis] = 0;
	for (int64_t i = 0; i < n; i++)
		dims[axis] += new_axis ? 1 : xs[i]->dims[axis];
	int r = a->rank + new_axis;
	ox_val *y = ox_out_tensor(k, 0, a->type, r, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(a->type);
	int64_t outer = ox_shape_count(axis, dims), inner = ox_shape_count(r - axis - 1, dims + axis + 1);
	const char *why;
	if (!placed_right(y, xs, n, outer, es)) {
		if (!(y = ox_tensor_new(a->type, r, dims, &why)))
			return ox_kfail(k, "output 0: %s", why);
		ox_out_set(k, 0, y);
	}
	char *o = y->data;
	for (int64_t j = 0; j < outer; j++)
		for (int64_t i = 0; i < n; i++) {
			int64_t m = (new_axis ? 1 : xs[i]->dims[axis]) * inner;
			if (m == 0)
				continue; /* an empty input has no data pointer to offset */
			const char *src = (const char *)xs[i]->data + j * m * (int64_t)es;
			if (src != o) /* else the input was made in place (exec.c: placement) */
				ox_copy_elems(o, src, es, m);
			o += m * (int64_t)es;
		}
	return ox_out_own(k, y);
}

/* axis, optional (default 1) at version 1, is required from 4 on: the session refuses a
 * node without it. */
int ox_op_Concat(ox_k *k)
{
	for (int i = 0; i < k->nin; i++)
		if (!ox_in_tensor(k, i, true))
			return -1;
	return ox_concat(k, k->in, k->nin, ox_attr_int(k, "axis", 1), false);
}

ox_val *ox_split_part(ox_val *x, int axis, int64_t offset, int64_t size, const char **why)
{
	int64_t dims[OX_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	dims[axis] = size;
	ox_val *y = ox_tensor_new(x->type, x->rank, dims, why);
	if (!y || !y->count)
		return y;
	size_t es = ox_elem_size(x->type);
	int64_t inner = ox_shape_count(x->rank - axis - 1, dims + axis + 1);
	int64_t d[2] = {ox_shape_count(axis, dims), size * inner}, s[2] = {x->dims[axis] * inner, 1};
	ox_copy_strided(y->data, (const char *)x->data + offset * inner * (int64_t)es, es, 2, d, s);
	if (!ox_tensor_own(y)) {
		ox_val_unref(y);
		*why = "out of memory";
		return NULL;
	}
	return y;
}

/* Where Split's sizes come from, by version: at 1 the attribute or input 1, at 2 and 11 the
 * attribute, at 13 input 1; at 18 too, and equal parts (num_outputs) may end smaller. */
enum { SPLIT_EITHER, SPLIT_ATTR, SPLIT_INPUT, SPLIT_UNEVEN };

/* Split's sizes when neither the split list nor (at 18) num_outputs gives them: equal
 * parts, the last one smaller when uneven. */
static int split_even(ox_k *k, int64_t dim, int64_t n, bool uneven, int64_t *sizes)
{
	if (n <= 0)
		return ox_kfail(k, "num_outputs must be positive, not %lld", (long long)n);
	if (n != k->nout)
		return ox_kfail(k, "num_outputs is %lld, but the node has %d outputs", (long long)n, k->nout);
	int64_t chunk = uneven ? (dim + n - 1) / n : dim / n;
	if (!uneven && dim % n)
		return ox_kfail(k, "dim %lld cannot be split into %lld equal parts", (long long)dim, (long long)n);
	if (chunk * (n - 1) > dim)
		return ox_kfail(k, "dim %lld cannot be split into %lld parts of %lld with a smaller last one",
				(long long)dim, (long long)n, (long long)chunk);
	for (int64_t i = 0; i < n; i++)
		sizes[i] = i < n - 1 ? chunk : dim - chunk * (n - 1);
	return 0;
}

/* The split list, from where form says. */
static int64_t split_list(ox_k *k, int form, int64_t *sizes, int64_t cap)
{
	int64_t n = ox_ints_arg(k, form >= SPLIT_INPUT, 1, "split", sizes, cap);
	if (n == -2 && form == SPLIT_EITHER && ox_in(k, 1))
		n = ox_in_ints(k, 1, sizes, cap, "input 1 (split)");
	return n;
}

static int split(ox_k *k, int form)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	int axis = x ? ox_axis_attr(k, x, "split") : -1;
	if (axis < 0)
		return -1;
	int64_t sizes[256], dim = x->dims[axis];
	if (k->nout > 256)
		return ox_kfail(k, "%d outputs are more than the 256 supported", k->nout);
	int64_t n = split_list(k, form, sizes, k->nout);
	if (n == -1)
		return -1;
	if (n == -2) {
		/* num_outputs exists from version 18: before, the session refuses it */
		int64_t no = ox_attr_int(k, "num_outputs", k->nout);
		if (split_even(k, dim, no, form == SPLIT_UNEVEN, sizes) < 0)
			return -1;
		n = no;
	}
	if (n != k->nout)
		return ox_kfail(k, "split has %lld sizes for %d outputs", (long long)n, k->nout);
	if (ox_split_check(k, x, axis, sizes, NULL, n) < 0)
		return -1;
	int64_t start = 0;
	for (int i = 0; i < n; start += sizes[i++]) {
		const char *why;
		if (!ox_out_wanted(k, i))
			continue;
		ox_val *y = ox_split_part(x, axis, start, sizes[i], &why);
		if (!y)
			return ox_kfail(k, "output %d: %s", i, why);
		ox_out_set(k, i, y);
	}
	return 0;
}

OX_KERNEL(ox_op_Split_1, split(k, SPLIT_EITHER))
OX_KERNEL(ox_op_Split_2, split(k, SPLIT_ATTR))
OX_KERNEL(ox_op_Split_13, split(k, SPLIT_INPUT))
OX_KERNEL(ox_op_Split_18, split(k, SPLIT_UNEVEN))

/* ---- Slice ----------------------------------------------------------------------- */

typedef struct slice_args {
	int64_t starts[OX_MAX_RANK], ends[OX_MAX_RANK], axes[OX_MAX_RANK], steps[OX_MAX_RANK];
	int64_t n;
} slice_args;

/* Attributes at version 1 (no steps), inputs from 10. */
static int slice_read(ox_k *k, bool from_input, slice_args *a)
{
	int64_t ne, na, ns;
	a->n = ox_ints_arg(k, from_input, 1, "starts", a->starts, OX_MAX_RANK);
	ne = ox_ints_arg(k, from_input, 2, "ends", a->ends, OX_MAX_RANK);
	na = ox_ints_arg(k, from_input, 3, "axes", a->axes, OX_MAX_RANK);
	ns = from_input ? ox_ints_arg(k, true, 4, "steps", a->steps, OX_MAX_RANK) : -2;
	if (a->n == -1 || ne == -1 || na == -1 || ns == -1)
		return -1;
	if (a->n == -2 || ne == -2)
		return ox_kfail(k, from_input ? "inputs 1 (starts) and 2 (ends) are required"
						    : "attributes 'starts' and 'ends' are required");
	if (ne != a->n || (na >= 0 && na != a->n) || (ns >= 0 && ns != a->n))
		return ox_kfail(k, "starts, ends, axes and steps must have the same length (%lld, %lld, %lld, %lld)",
				(long long)a->n, (long long)ne, (long long)na, (long long)ns);
	for (int64_t i = 0; i < a->n; i++) {
		if (na < 0)
			a->axes[i] = i;
		if (ns < 0)
			a->steps[i] = 1;
	}
	return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* One axis of a slice: its first index *start, its step (clamped so that step * stride
 * cannot overflow) and its length. */
static int64_t slice_axis(int64_t dim, int64_t s, int64_t e, int64_t *step, int64_t *start)
{
	int64_t st = clamp64(*step, -dim - 1, dim + 1);
	*step = st;
	*start = 0;
	if (dim == 0)
		return 0;
	if (s < 0)
		s += dim;
	if (e < 0)
		e += dim;
	if (st > 0) {
		s = clamp64(s, 0, dim);
		e = clamp64(e, 0, dim);
		*start = s;
		return e > s ? (e - s + st - 1) / st : 0;
	}
	s = clamp64(s, 0, dim - 1);
	e = clamp64(e, -1, dim - 1);
	*start = s;
	return s > e ? (s - e - st - 1) / -st : 0;
}

static int slice(ox_k *k, bool from_input)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	slice_args a;
	if (!x || slice_read(k, from_input, &a) < 0)
		return -1;
	int64_t istr[OX_MAX_RANK], dims[OX_MAX_RANK], sstr[OX_MAX_RANK], off = 0;
	bool seen[OX_MAX_RANK], whole = true;
	if (mark_axes(k, a.axes, a.n, x->rank, seen) < 0)
		return -1;
	ox_strides(x->rank, x->dims, istr);
	memcpy(dims, x->dims, sizeof dims);
	memcpy(sstr, istr, sizeof sstr);
	for (int64_t i = 0; i < a.n; i++) {
		int ax = ox_axis(k, a.axes[i], x->rank);
		int64_t step = a.steps[i], start;
		if (step == 0)
			return ox_kfail(k, "steps[%lld] is 0", (long long)i);
		dims[ax] = slice_axis(x->dims[ax], a.starts[i], a.ends[i], &step, &start);
		off += start * istr[ax];
		sstr[ax] = step * istr[ax];
		whole &= dims[ax] == x->dims[ax] && start == 0 && (step == 1 || dims[ax] <= 1);
	}
	if (whole) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(x->type);
	ox_copy_strided(y->data, (const char *)x->data + off * (int64_t)es, es, x->rank, dims, sstr);
	return ox_out_own(k, y);
}

OX_KERNEL(ox_op_Slice_1, slice(k, false))
OX_KERNEL(ox_op_Slice_10, slice(k, true))

/* ---- Expand and Tile ------------------------------------------------------------- */

int ox_op_Expand(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int64_t shape[OX_MAX_RANK], dims[OX_MAX_RANK], str[OX_MAX_RANK];
	int64_t n = ox_in_ints(k, 1, shape, OX_MAX_RANK, "input 1 (shape)");
	int r;
	if (n < 0 || ox_broadcast_shape(k, x->rank, x->dims, (int)n, shape, &r, dims) < 0)
		return -1;
	if (r == x->rank && !memcmp(dims, x->dims, (size_t)r * sizeof *dims)) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	ox_val *y = ox_out_tensor(k, 0, x->type, r, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	ox_broadcast_strides(x->rank, x->dims, r, dims, str);
	ox_copy_strided(y->data, x->data, ox_elem_size(x->type), r, dims, str);
	return ox_out_own(k, y);
}

/* Tile-1's repeats: one count for one axis, both scalar inputs. */
static int tile1_repeats(ox_k *k, const ox_val *x, int64_t *rep)
{
	int64_t t[1], ax[1];
	int64_t nt = ox_in_ints(k, 1, t, 1, "input 1 (tiles)");
	int64_t na = nt < 0 ? -1 : ox_in_ints(k, 2, ax, 1, "input 2 (axis)");
	if (na < 0)
		return -1;
	if (nt != 1 || na != 1)
		return ox_kfail(k, "inputs 1 (tiles) and 2 (axis) must hold one value each");
	int a = ox_axis(k, ax[0], x->rank);
	if (a < 0)
		return -1;
	for (int i = 0; i < x->rank; i++)
		rep[i] = i == a ? t[0] : 1;
	return 0;
}

/* Version 6 on: input 1 holds one repeat count per axis. */
static int tile6_repeats(ox_k *k, const ox_val *x, int64_t *rep)
{
	int64_t n = ox_in_ints(k, 1, rep, OX_MAX_RANK, "input 1 (repeats)");
	if (n < 0)
		return -1;
	if (n != x->rank)
		return ox_kfail(k, "repeats has %lld values for an input of rank %d", (long long)n, x->rank);
	return 0;
}

/* x repeated rep[i] times along each axis i. */
static int tile_run(ox_k *k, ox_val *x, const int64_t *rep)
{
	int64_t dims[OX_MAX_RANK], istr[OX_MAX_RANK];
	int64_t vd[OX_MOVE_MAX_RANK], vs[OX_MOVE_MAX_RANK];
	ox_strides(x->rank, x->dims, istr);
	for (int i = 0; i < x->rank; i++) {
		if (rep[i] < 0)
			return ox_kfail(k, "repeats[%d] is negative (%lld)", i, (long long)rep[i]);
		if (x->dims[i] && rep[i] > OX_MAX_ELEMENTS / x->dims[i])
			return ox_kfail(k, "repeats[%d] makes the output too large", i);
		dims[i] = x->dims[i] * rep[i];
		/* the output seen as [rep0, d0, rep1, d1, ...]: the rep axes re-read the input */
		vd[2 * i] = rep[i];
		vd[2 * i + 1] = x->dims[i];
		vs[2 * i] = 0;
		vs[2 * i + 1] = istr[i];
	}
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	ox_copy_strided(y->data, x->data, ox_elem_size(x->type), 2 * x->rank, vd, vs);
	return ox_out_own(k, y);
}

/* The repeats: inputs 1 and 2 (tiles, axis) at version 1, input 1 from 6 (v6). */
static int tile(ox_k *k, bool v6)
{
	int64_t rep[OX_MAX_RANK];
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || (v6 ? tile6_repeats(k, x, rep) : tile1_repeats(k, x, rep)) < 0)
		return -1;
	return tile_run(k, x, rep);
}

OX_KERNEL(ox_op_Tile_1, tile(k, false))
OX_KERNEL(ox_op_Tile_6, tile(k, true))

/* ---- Shape, Size, ConstantOfShape, Range ----------------------------------------- */

int ox_op_Shape(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	/* start and end exist from version 15: before, the session refuses them */
	int64_t r = x->rank, start = ox_attr_int(k, "start", 0), end = ox_attr_int(k, "end", r);
	start = clamp64(start < 0 ? start + r : start, 0, r);
	end = clamp64(end < 0 ? end + r : end, 0, r);
	int64_t n = end > start ? end - start : 0;
	ox_val *y = ox_out_tensor(k, 0, OX_INT64, 1, &n);
	if (y && n)
		memcpy(y->data, x->dims + start, (size_t)n * sizeof(int64_t));
	return y ? 0 : -1;
}

int ox_op_Size(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, OX_INT64, 0, NULL);
	if (y)
		*(int64_t *)y->data = x->count;
	return y ? 0 : -1;
}

int ox_op_ConstantOfShape(ox_k *k)
{
	int64_t dims[OX_MAX_RANK];
	int64_t n = ox_in_ints(k, 0, dims, OX_MAX_RANK, "input 0 (shape)");
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (dims[i] < 0)
			return ox_kfail(k, "shape[%d] is negative (%lld)", i, (long long)dims[i]);
	ox_val *v = NULL;
	const Onnx__TensorProto *t = ox_attr_tensor(k, "value");
	if (t && !(v = ox_val_from_attr_tensor(k, t)))
		return -1;
	if (v && (v->count != 1 || v->type == OX_STRING)) {
		ox_val_unref(v);
		return ox_kfail(k, "attribute 'value' must hold one number or bool");
	}
	ox_val *y = ox_out_tensor(k, 0, v ? v->type : OX_FLOAT, (int)n, dims);
	if (y)
		ox_tensor_fill(y, v ? v->data : NULL);
	int rc = y ? ox_out_own(k, y) : -1;
	ox_val_unref(v);
	return rc;
}

/* The number of elements of Range: max(ceil((limit - start) / delta), 0). */
static int range_count(ox_k *k, const ox_val *s, const ox_val *l, const ox_val *d, int64_t *n)
{
	double c;
	if (ox_elem_is_int(s->type)) {
		int64_t a = ox_get_i64(s, 0), b = ox_get_i64(l, 0), st = ox_get_i64(d, 0), diff;
		if (st == 0)
			return ox_kfail(k, "delta is 0");
		if (__builtin_sub_overflow(b, a, &diff))
			return ox_kfail(k, "limit - start overflows");
		/* ceiling division; -1 is apart because INT64_MIN / -1 overflows */
		c = st == -1 ? -(double)diff : (double)(diff / st + (diff % st != 0 && (diff < 0) == (st < 0)));
	} else {
		double st = ox_get_f64(d, 0);
		if (st == 0)
			return ox_kfail(k, "delta is 0");
		c = ceil((ox_get_f64(l, 0) - ox_get_f64(s, 0)) / st);
		if (isnan(c))
			return ox_kfail(k, "start, limit and delta give no count (NaN)");
	}
	if (c > (double)OX_MAX_ELEMENTS)
		return ox_kfail(k, "Range would have %.0f elements, more than the limit of 2^36", c);
	*n = c > 0 ? (int64_t)c : 0;
	return 0;
}

int ox_op_Range(ox_k *k)
{
	ox_val *s = ox_in_tensor(k, 0, true), *l = ox_in_tensor(k, 1, true), *d = ox_in_tensor(k, 2, true);
	if (!s || !l || !d)
		return -1;
	if (l->type != s->type || d->type != s->type)
		return ox_kfail(k, "start, limit and delta must have one type (%s, %s, %s)", ox_elem_label(s->type),
				ox_elem_label(l->type), ox_elem_label(d->type));
	if (s->count != 1 || l->count != 1 || d->count != 1)
		return ox_kfail(k, "start, limit and delta must be scalars");
	if (!ox_elem_is_int(s->type) && !ox_elem_is_float(s->type))
		return ox_kfail(k, "Range does not take %s", ox_elem_label(s->type));
	int64_t n;
	if (range_count(k, s, l, d, &n) < 0)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, s->type, 1, &n);
	if (!y)
		return -1;
	if (ox_elem_is_int(s->type)) {
		int64_t a = ox_get_i64(s, 0), st = ox_get_i64(d, 0);
		for (int64_t i = 0; i < n; i++)
			ox_set_i64(y, i, a + i * st);
	} else {
		double a = ox_get_f64(s, 0), st = ox_get_f64(d, 0);
		for (int64_t i = 0; i < n; i++)
			ox_set_f64(y, i, a + (double)i * st);
	}
	return 0;
}

/* ---- DepthToSpace and SpaceToDepth ----------------------------------------------- */

/* Both are a 6-D transpose of a 4-D tensor seen with the block split out. */
static int block_move(ox_k *k, ox_val *x, const int64_t *view, const int *perm, const int64_t *odims)
{
	ox_val *y = ox_out_tensor(k, 0, x->type, 4, odims);
	if (!y || !y->count)
		return y ? 0 : -1;
	ox_transpose(y->data, x->data, ox_elem_size(x->type), 6, view, perm);
	return ox_out_own(k, y);
}

static int block_input(ox_k *k, ox_val **x, int64_t *bs)
{
	*x = ox_in_tensor(k, 0, true);
	if (!*x)
		return -1;
	if ((*x)->rank != 4)
		return ox_kfail(k, "input must have rank 4 (N, C, H, W), not %d", (*x)->rank);
	*bs = ox_attr_int(k, "blocksize", 0);
	if (*bs <= 0)
		return ox_kfail(k, ox_attr(k, "blocksize") ? "blocksize must be positive" : "attribute 'blocksize' is required");
	if (*bs > 65536)
		return ox_kfail(k, "blocksize %lld is too large", (long long)*bs);
	return 0;
}

int ox_op_DepthToSpace(ox_k *k)
{
	ox_val *x;
	int64_t bs;
	if (block_input(k, &x, &bs) < 0)
		return -1;
	const int64_t *d = x->dims, c = d[1] / (bs * bs);
	if (d[1] % (bs * bs))
		return ox_kfail(k, "channels (%lld) are not a multiple of blocksize^2 (%lld)", (long long)d[1],
				(long long)(bs * bs));
	/* mode exists from version 11: before, the session refuses it */
	bool crd = ox_attr_str_is(k, "mode", "DCR", "CRD");
	if (!crd && !ox_attr_str_is(k, "mode", "DCR", "DCR"))
		return ox_kfail(k, "mode must be DCR or CRD");
	int64_t odims[4] = {d[0], c, d[2] * bs, d[3] * bs};
	int64_t dcr[6] = {d[0], bs, bs, c, d[2], d[3]}, crdv[6] = {d[0], c, bs, bs, d[2], d[3]};
	static const int pdcr[6] = {0, 3, 4, 1, 5, 2}, pcrd[6] = {0, 1, 4, 2, 5, 3};
	return block_move(k, x, crd ? crdv : dcr, crd ? pcrd : pdcr, odims);
}

int ox_op_SpaceToDepth(ox_k *k)
{
	ox_val *x;
	int64_t bs;
	if (block_input(k, &x, &bs) < 0)
		return -1;
	const int64_t *d = x->dims;
	if (d[2] % bs || d[3] % bs)
		return ox_kfail(k, "height %lld and width %lld must be multiples of blocksize %lld", (long long)d[2],
				(long long)d[3], (long long)bs);
	int64_t odims[4] = {d[0], d[1] * bs * bs, d[2] / bs, d[3] / bs};
	int64_t view[6] = {d[0], d[1], d[2] / bs, bs, d[3] / bs, bs};
	static const int perm[6] = {0, 3, 5, 1, 2, 4};
	return block_move(k, x, view, perm, odims);
}
