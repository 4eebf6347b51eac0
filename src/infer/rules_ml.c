/* Inference rules of ai.onnx.ml: the elementwise transforms keep their input's shape, the
 * regressors give [N, targets], ZipMap a sequence of maps. N is the input's first dim when
 * it is a matrix, 1 when it is a vector (one row, as the evaluator takes it), else unknown.
 * ArrayFeatureExtractor picks columns, CastMap and DictVectorizer turn maps (their key and
 * value types checked) into rows, TreeEnsemble checks that its node and leaf attributes agree. */
#include <stdio.h>
#include <string.h>

#include "infer/rules.h"

static int input_elem(const ox_ictx *x, size_t i)
{
	const ox_type *t = ox_input(x, i);
	return t && t->kind == OX_T_TENSOR ? t->elem : 0;
}

/* Binarizer, Imputer: the input's element type and shape. */
int ox_rule_same(ox_ictx *x)
{
	ox_out_like(x, 0, input_elem(x, 0), 0);
	return 0;
}

/* Normalizer, Scaler: float, the input's shape. */
int ox_rule_to_float(ox_ictx *x)
{
	ox_out_like(x, 0, OX_FLOAT, 0);
	return 0;
}

/* CategoryMapper: strings to int64 and back, the same shape. */
int ox_rule_category_mapper(ox_ictx *x)
{
	int e = input_elem(x, 0);
	ox_out_like(x, 0, e == OX_STRING ? OX_INT64 : e == OX_INT64 ? OX_STRING : 0, 0);
	return 0;
}

/* LabelEncoder: the output's element type is the values attribute's. */
int ox_rule_label_encoder(ox_ictx *x)
{
	int e = 0;
	if (x->schema && x->schema->since < 2) /* version 1 maps strings to int64 or back */
		e = input_elem(x, 0) == OX_STRING ? OX_INT64 : input_elem(x, 0) == OX_INT64 ? OX_STRING : 0;
	else if (ox_iattr(x, "values_strings"))
		e = OX_STRING;
	else if (ox_iattr(x, "values_int64s"))
		e = OX_INT64;
	else if (ox_iattr(x, "values_floats"))
		e = OX_FLOAT;
	else if (ox_iattr_tensor(x, "values_tensor"))
		e = ox_iattr_tensor(x, "values_tensor")->data_type;
	ox_out_like(x, 0, e ? e : ox_out_elem(x, 0), 0);
	return 0;
}

/* OneHotEncoder: float, the input's shape and one more dim, the categories. */
int ox_rule_one_hot_encoder(ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0);
	const int64_t *v;
	int64_t n = ox_iattr_ints(x, "cats_int64s", &v);
	if (n < 0)
		n = ox_iattr(x, "cats_strings") ? (int64_t)ox_iattr(x, "cats_strings")->n_strings : -1;
	ox_type *o = ox_type_tensor(x, OX_FLOAT, t ? t->rank + 1 : -1);
	for (int k = 0; o && t && k < t->rank; k++)
		o->dims[k] = t->dims[k];
	if (o && t)
		o->dims[t->rank] = n >= 0 ? ox_dim_num(n) : OX_DIM_UNKNOWN;
	ox_set_out(x, 0, o);
	return 0;
}

/* N, the rows of input 0. */
static ox_dim batch(const ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0);
	return !t ? OX_DIM_UNKNOWN : t->rank == 2 ? t->dims[0] : t->rank == 1 ? ox_dim_num(1) : OX_DIM_UNKNOWN;
}

/* A float [N, width] result. */
static void rows(ox_ictx *x, size_t out, ox_dim width)
{
	ox_type *o = ox_type_tensor(x, OX_FLOAT, 2);
	if (!o)
		return;
	o->dims[0] = batch(x);
	o->dims[1] = width;
	ox_set_out(x, out, o);
}

int ox_rule_linear_regressor(ox_ictx *x)
{
	rows(x, 0, ox_dim_num(ox_iattr_int(x, "targets", 1)));
	return 0;
}

int ox_rule_svm_regressor(ox_ictx *x)
{
	rows(x, 0, ox_dim_num(1));
	return 0;
}

int ox_rule_tree_ensemble_regressor(ox_ictx *x)
{
	rows(x, 0, ox_dim_num(ox_iattr_int(x, "n_targets", 1)));
	return 0;
}

/* LinearClassifier's score columns in *w, as the evaluator counts them: a row of
 * coefficients per class (their count over the features, else the intercepts' when there are
 * more than one), two columns for one row and two class labels (binary); unknown when
 * neither says. Coefficients that do not fit the features, or intercepts neither 1 nor one
 * per row, are errors. */
static int linear_classes(ox_ictx *x, ox_dim *w)
{
	const ox_type *t = ox_input_ranked(x, 0);
	const Onnx__AttributeProto *co = ox_iattr(x, "coefficients"), *ic = ox_iattr(x, "intercepts");
	const Onnx__AttributeProto *ls = ox_iattr(x, "classlabels_strings"), *li = ox_iattr(x, "classlabels_ints");
	int64_t nc = co ? (int64_t)co->n_floats : 0, ni = ic ? (int64_t)ic->n_floats : 0, rows = ni > 1 ? ni : -1;
	ox_dim c = t && (t->rank == 1 || t->rank == 2) ? t->dims[t->rank - 1] : OX_DIM_UNKNOWN;
	if (ox_dim_known(c) && c.v > 0 && nc % c.v)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'coefficients' has %lld values, not a row per class of the %lld features of '%s'",
			       (long long)nc, (long long)c.v, x->node->input[0]);
	if (ox_dim_known(c) && c.v > 0)
		rows = nc / c.v;
	if (rows >= 0 && ni > 1 && ni != rows)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'intercepts' has %lld values; expected 1 or %lld, one per row of coefficients",
			       (long long)ni, (long long)rows);
	int64_t labels = ls && ls->n_strings ? (int64_t)ls->n_strings : li ? (int64_t)li->n_ints : 0;
	*w = rows < 0 ? OX_DIM_UNKNOWN : ox_dim_num(rows == 1 && labels == 2 ? 2 : rows);
	return 0;
}

/* The classifiers: labels [N] (strings or int64, as the class labels are), scores [N, ?]
 * (the number of columns depends on binary versus multi-class post-processing: known for
 * LinearClassifier). */
int ox_rule_classifier(ox_ictx *x)
{
	ox_dim w = OX_DIM_UNKNOWN;
	if (!strcmp(x->node->op_type, "LinearClassifier") && linear_classes(x, &w) < 0)
		return -1;
	ox_type *y = ox_type_tensor(x, ox_iattr(x, "classlabels_strings") ? OX_STRING : OX_INT64, 1);
	if (y)
		y->dims[0] = batch(x);
	ox_set_out(x, 0, y);
	rows(x, 1, w);
	return 0;
}

/* FeatureVectorizer: the inputs' columns side by side. */
int ox_rule_feature_vectorizer(ox_ictx *x)
{
	const int64_t *v;
	int64_t n = ox_iattr_ints(x, "inputdimensions", &v);
	ox_dim w = n >= 0 ? ox_dim_num(0) : OX_DIM_UNKNOWN;
	for (int64_t i = 0; i < n; i++)
		w = v[i] >= 0 ? ox_dim_add(w, ox_dim_num(v[i])) : OX_DIM_UNKNOWN;
	rows(x, 0, w);
	return 0;
}

/* ZipMap: a sequence of maps from the class labels (strings or int64) to float. */
int ox_rule_zip_map(ox_ictx *x)
{
	ox_type *m = ox_type_new(x, OX_T_MAP), *s = ox_type_new(x, OX_T_SEQ);
	if (!m || !s)
		return 0;
	m->key = ox_iattr(x, "classlabels_int64s") ? OX_INT64 : OX_STRING;
	m->inner = ox_type_tensor(x, OX_FLOAT, 0);
	s->inner = m;
	ox_set_out(x, 0, s);
	return 0;
}

/* ArrayFeatureExtractor: X's last axis picked by the indices Y, so X's dims with the last one
 * Y's element count; a 1-D X is one row ([1, count], as the evaluator gives it). Known
 * indices must lie in the last axis. */
int ox_rule_array_feature_extractor(ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0), *y = ox_input_ranked(x, 1);
	if (t && t->rank == 0)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' is a scalar; expected rank 1 or more", x->node->input[0]);
	const int64_t *v;
	int64_t n = ox_input_values(x, 1, &v);
	ox_dim last = t ? t->dims[t->rank - 1] : OX_DIM_UNKNOWN, count = y ? ox_dim_num(1) : OX_DIM_UNKNOWN;
	for (int64_t j = 0; ox_dim_known(last) && j < n; j++)
		if (v[j] < 0 || v[j] >= last.v)
			return ox_ierr(x, OX_P_INPUT, 1, "index %lld (Y[%lld]) is out of range for the last axis of X, of size %lld",
				       (long long)v[j], (long long)j, (long long)last.v);
	for (int d = 0; y && d < y->rank; d++)
		count = ox_dim_mul(count, y->dims[d]);
	ox_type *out = ox_type_tensor(x, input_elem(x, 0), t ? (t->rank == 1 ? 2 : t->rank) : -1);
	for (int d = 0; out && t && d < out->rank - 1; d++)
		out->dims[d] = t->rank == 1 ? ox_dim_num(1) : t->dims[d];
	if (out && t)
		out->dims[out->rank - 1] = count;
	ox_set_out(x, 0, out);
	return 0;
}

/* Input 0 as a map whose key and value element types are one of pairs (n of them; "what"
 * lists them), or NULL: unknown, or an error (x->failed). */
static const ox_type *map_input(ox_ictx *x, const int (*pairs)[2], size_t n, const char *what)
{
	const ox_type *m = ox_input(x, 0);
	if (!m)
		return NULL;
	int val = m->kind == OX_T_MAP && m->inner && m->inner->kind == OX_T_TENSOR ? m->inner->elem : 0;
	for (size_t i = 0; m->kind == OX_T_MAP && i < n; i++)
		if ((!m->key || m->key == pairs[i][0]) && (!val || val == pairs[i][1]))
			return m;
	char have[160];
	if (m->kind == OX_T_MAP)
		snprintf(have, sizeof have, "map(%s, %s)", m->key ? ox_elem_label(m->key) : "unknown",
			 val ? ox_elem_label(val) : "unknown");
	else
		ox_type_str(m, have, sizeof have);
	ox_ierr(x, OX_P_INPUT, 0, "input '%s' is %s; %s takes %s", x->node->input[0], have, x->node->op_type, what);
	return NULL;
}

/* CastMap: a map from int64 to [1, the map's size] (DENSE) or [1, max_map] (SPARSE) of the
 * type cast_to names. */
int ox_rule_cast_map(ox_ictx *x)
{
	static const int pairs[][2] = {{OX_INT64, OX_STRING}, {OX_INT64, OX_FLOAT}};
	if (!map_input(x, pairs, 2, "map(int64, string) or map(int64, float)") && x->failed)
		return -1;
	const char *to = ox_iattr_str(x, "cast_to", "TO_FLOAT"), *form = ox_iattr_str(x, "map_form", "DENSE");
	int e = !strcmp(to, "TO_FLOAT") ? OX_FLOAT : !strcmp(to, "TO_STRING") ? OX_STRING : !strcmp(to, "TO_INT64") ? OX_INT64 : 0;
	if (!e)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, not '%s'", to);
	bool sparse = !strcmp(form, "SPARSE");
	if (!sparse && strcmp(form, "DENSE"))
		return ox_ierr(x, OX_P_OP, 0, "attribute 'map_form' must be DENSE or SPARSE, not '%s'", form);
	int64_t max = ox_iattr_int(x, "max_map", 1);
	if (sparse && max < 0)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'max_map' is %lld; a SPARSE map_form needs the output's length",
			       (long long)max);
	ox_dim d[2] = {ox_dim_num(1), sparse ? ox_dim_num(max) : OX_DIM_UNKNOWN};
	ox_set_out(x, 0, ox_type_dims(x, e, 2, d));
	return 0;
}

/* DictVectorizer: [1, the vocabulary of the map's key type], of the map's value type. */
int ox_rule_dict_vectorizer(ox_ictx *x)
{
	static const int pairs[][2] = {{OX_STRING, OX_INT64}, {OX_INT64, OX_STRING}, {OX_INT64, OX_FLOAT},
				       {OX_INT64, OX_DOUBLE}, {OX_STRING, OX_FLOAT}, {OX_STRING, OX_DOUBLE}};
	const ox_type *m = map_input(x, pairs, 6, "a map from string or int64 to int64, string, float or double");
	if (!m && x->failed)
		return -1;
	const Onnx__AttributeProto *s = ox_iattr(x, "string_vocabulary"), *i = ox_iattr(x, "int64_vocabulary");
	bool str = m && m->key ? m->key == OX_STRING : s && !i;
	if (m && m->key && !(str ? s : i))
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' is required for %s keys", str ? "string_vocabulary" : "int64_vocabulary",
			       ox_elem_label(m->key));
	ox_dim d[2] = {ox_dim_num(1), OX_DIM_UNKNOWN};
	if ((m && m->key) || !s != !i)
		d[1] = ox_dim_num(str ? (int64_t)s->n_strings : (int64_t)i->n_ints);
	int e = m && m->inner && m->inner->kind == OX_T_TENSOR ? m->inner->elem : ox_out_elem(x, 0);
	ox_set_out(x, 0, ox_type_dims(x, e, 2, d));
	return 0;
}

/* ---- TreeEnsemble (ml 5) ----------------------------------------------------------------------- */

/* A tensor attribute of TreeEnsemble: 1-D, of elem when elem is not 0; its length in *len,
 * -1 when it is absent. */
static int tree_tensor(ox_ictx *x, const char *name, int elem, int64_t *len)
{
	const Onnx__TensorProto *t = ox_iattr_tensor(x, name);
	*len = -1;
	if (!t)
		return 0;
	if (t->n_dims != 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %zu dimensions; it must be 1-D", name, t->n_dims);
	if (elem && t->data_type != elem)
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' is %s, but X is %s", name, ox_elem_label(t->data_type),
			       ox_elem_label(elem));
	*len = t->dims[0];
	return 0;
}

/* Every nodes_* attribute describes the n nodes nodes_splits has (one value each). */
static int tree_nodes(ox_ictx *x, int elem)
{
	static const char *const ints[] = {"nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids",
					   "nodes_trueleafs", "nodes_falseleafs", "nodes_missing_value_tracks_true"};
	static const char *const tensors[] = {"nodes_modes", "nodes_hitrates", "membership_values"};
	int64_t n, len;
	const int64_t *v;
	if (tree_tensor(x, "nodes_splits", elem, &n) < 0)
		return -1;
	if (n < 0)
		return 0; /* required: the structural check says it is missing */
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
		if ((len = ox_iattr_ints(x, ints[i], &v)) >= 0 && len != n)
			return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %lld values, but nodes_splits has %lld (one per node)",
				       ints[i], (long long)len, (long long)n);
	for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) {
		int want = i == 2 ? elem : 0; /* membership values compare with X's features */
		if (tree_tensor(x, tensors[i], want, &len) < 0)
			return -1;
		if (i < 2 && len >= 0 && len != n)
			return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %lld values, but nodes_splits has %lld (one per node)",
				       tensors[i], (long long)len, (long long)n);
	}
	return 0;
}

/* leaf_targetids and leaf_weights describe the same leaves; each target below n_targets. */
static int tree_leaves(ox_ictx *x, int elem, int64_t targets)
{
	const int64_t *ids;
	int64_t n = ox_iattr_ints(x, "leaf_targetids", &ids), w;
	if (tree_tensor(x, "leaf_weights", elem, &w) < 0)
		return -1;
	if (n >= 0 && w >= 0 && n != w)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'leaf_targetids' has %lld values, but leaf_weights has %lld (one per leaf)",
			       (long long)n, (long long)w);
	for (int64_t i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= targets)
			return ox_ierr(x, OX_P_OP, 0, "leaf_targetids[%lld] is %lld; expected 0 to n_targets - 1 = %lld",
				       (long long)i, (long long)ids[i], (long long)(targets - 1));
	return 0;
}

/* TreeEnsemble: X [N, F] (or one row [F]) gives [N, n_targets] of X's type. */
int ox_rule_tree_ensemble(ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0);
	int elem = input_elem(x, 0);
	int64_t targets = ox_iattr_int(x, "n_targets", 0);
	if (t && t->rank != 1 && t->rank != 2)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [N, F] (or one row, [F])", x->node->input[0],
			       t->rank);
	if (targets < 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'n_targets' must be given, 1 or more");
	if (tree_nodes(x, elem) < 0 || tree_leaves(x, elem, targets) < 0)
		return -1;
	ox_dim d[2] = {batch(x), ox_dim_num(targets)};
	ox_set_out(x, 0, ox_type_dims(x, elem ? elem : ox_out_elem(x, 0), 2, d));
	return 0;
}
