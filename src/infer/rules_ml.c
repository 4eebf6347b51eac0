/* Inference rules of ai.onnx.ml: the elementwise transforms keep their input's shape, the
 * regressors give [N, targets], ZipMap a sequence of maps. N is the input's first dim when
 * it is a matrix, else unknown (a vector is one row). */
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

/* A float [N, width] result. */
static void rows(ox_ictx *x, size_t out, ox_dim width)
{
	const ox_type *t = ox_input_ranked(x, 0);
	ox_type *o = ox_type_tensor(x, OX_FLOAT, 2);
	if (!o)
		return;
	o->dims[0] = t && t->rank == 2 ? t->dims[0] : OX_DIM_UNKNOWN;
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

/* The classifiers: labels [N] (strings or int64, as the class labels are), scores [N, ?]
 * (the number of columns depends on binary versus multi-class post-processing). */
int ox_rule_classifier(ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0);
	ox_type *y = ox_type_tensor(x, ox_iattr(x, "classlabels_strings") ? OX_STRING : OX_INT64, 1);
	if (y)
		y->dims[0] = t && t->rank == 2 ? t->dims[0] : OX_DIM_UNKNOWN;
	ox_set_out(x, 0, y);
	rows(x, 1, OX_DIM_UNKNOWN);
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
