/* Inference rules of the quantization operators, the random generators, the recurrent layers
 * (RNN, GRU, LSTM), the signal windows, Det, the string operators, ImageDecoder and
 * TfIdfVectorizer. */
#include <string.h>

#include "infer/rules.h"

/* ---- quantization ---------------------------------------------------------------------------- */

/* QuantizeLinear: x's shape; the zero point's element type, else output_dtype, else uint8. */
int ox_rule_quantize(ox_ictx *x)
{
	const ox_type *zp = ox_input(x, 2);
	int elem = zp && zp->elem ? zp->elem : (int)ox_iattr_int(x, "output_dtype", 0);
	ox_out_like(x, 0, elem ? elem : OX_UINT8, 0);
	return 0;
}

/* DequantizeLinear: x's shape; the scale's element type (float before opset 19), or
 * output_dtype when given. */
int ox_rule_dequantize(ox_ictx *x)
{
	const ox_type *s = ox_input(x, 1);
	int elem = (int)ox_iattr_int(x, "output_dtype", 0);
	if (!elem)
		elem = x->schema->since < 19 ? OX_FLOAT : s && s->elem ? s->elem : ox_out_elem(x, 0);
	ox_out_like(x, 0, elem, 0);
	return 0;
}

int ox_rule_dynamic_quantize(ox_ictx *x)
{
	ox_out_like(x, 0, OX_UINT8, 0);
	ox_set_out(x, 1, ox_type_tensor(x, OX_FLOAT, 0));
	ox_set_out(x, 2, ox_type_tensor(x, OX_UINT8, 0));
	return 0;
}

/* ---- random generators ----------------------------------------------------------------------- */

int ox_rule_random_shape(ox_ictx *x)
{
	const int64_t *shape;
	int64_t n = ox_iattr_ints(x, "shape", &shape);
	ox_type *out = ox_type_tensor(x, (int)ox_iattr_int(x, "dtype", OX_FLOAT), n < 0 ? -1 : (int)n);
	for (int64_t k = 0; out && k < n; k++) {
		if (shape[k] < 0)
			return ox_ierr(x, OX_P_OP, 0, "attribute 'shape' has %lld at index %lld; dimensions cannot be negative", (long long)shape[k],
				       (long long)k);
		out->dims[k] = ox_dim_num(shape[k]);
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape, dtype or its type. */
int ox_rule_random_like(ox_ictx *x)
{
	const ox_type *in = ox_input(x, 0);
	ox_out_like(x, 0, (int)ox_iattr_int(x, "dtype", in && in->elem ? in->elem : ox_out_elem(x, 0)), 0);
	return 0;
}

int ox_rule_multinomial(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	if (in && in->rank != 2)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [batch_size, class_size]",
			       x->node->input[0], in->rank);
	ox_type *out = ox_type_tensor(x, (int)ox_iattr_int(x, "dtype", OX_INT32), 2);
	if (out) {
		out->dims[0] = in ? in->dims[0] : OX_DIM_UNKNOWN;
		out->dims[1] = ox_dim_num(ox_iattr_int(x, "sample_size", 1));
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- recurrent layers ------------------------------------------------------------------------ */

/* RNN, GRU, LSTM: X is [seq, batch, input] ([batch, seq, input] with layout 1); Y is [seq,
 * dirs, batch, hidden] ([batch, seq, dirs, hidden]); Y_h and LSTM's Y_c [dirs, batch, hidden]
 * ([batch, dirs, hidden]). hidden_size is the attribute, else R's last dimension. */
int ox_rule_recurrent(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0), *r = ox_input_ranked(x, 2);
	const char *dir = ox_iattr_str(x, "direction", "forward");
	bool layout = ox_iattr_int(x, "layout", 0) != 0;
	int elem = ox_out_elem(x, 0);
	if (in && in->rank != 3)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [seq_length, batch_size, input_size]",
			       x->node->input[0], in->rank);
	ox_dim seq = in ? in->dims[layout] : OX_DIM_UNKNOWN, batch = in ? in->dims[!layout] : OX_DIM_UNKNOWN;
	ox_dim dirs = ox_dim_num(dir[0] == 'b' ? 2 : 1), hidden = OX_DIM_UNKNOWN;
	if (ox_attr_given(x, "hidden_size"))
		hidden = ox_dim_num(ox_iattr_int(x, "hidden_size", 0));
	if (r && r->rank == 3 && !ox_dim_unify(hidden, r->dims[2], &hidden))
		return ox_ierr(x, OX_P_INPUT, 2, "R '%s' has hidden size %lld, but attribute 'hidden_size' is %lld",
			       x->node->input[2], (long long)r->dims[2].v, (long long)ox_iattr_int(x, "hidden_size", 0));
	ox_dim y[4] = {seq, dirs, batch, hidden}, yl[4] = {batch, seq, dirs, hidden};
	ox_dim h[3] = {dirs, batch, hidden}, hl[3] = {batch, dirs, hidden};
	ox_set_out(x, 0, ox_type_dims(x, elem, 4, layout ? yl : y));
	for (size_t i = 1; i < x->n_out; i++)
		ox_set_out(x, i, ox_type_dims(x, elem, 3, layout ? hl : h));
	return 0;
}

/* ---- signal windows -------------------------------------------------------------------------- */

/* HannWindow, HammingWindow, BlackmanWindow: 1-D of the size input's value. */
int ox_rule_window(ox_ictx *x)
{
	const int64_t *n;
	ox_type *out = ox_type_tensor(x, (int)ox_iattr_int(x, "output_datatype", OX_FLOAT), 1);
	if (out && ox_input_values(x, 0, &n) == 1) {
		if (n[0] < 0)
			return ox_ierr(x, OX_P_INPUT, 0, "size '%s' is %lld; a window cannot have a negative size", x->node->input[0], (long long)n[0]);
		out->dims[0] = ox_dim_num(n[0]);
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins]. */
int ox_rule_mel_weight_matrix(ox_ictx *x)
{
	const int64_t *bins, *len;
	ox_type *out = ox_type_tensor(x, (int)ox_iattr_int(x, "output_datatype", OX_FLOAT), 2);
	if (out && ox_input_values(x, 1, &len) == 1)
		out->dims[0] = ox_dim_num(len[0] / 2 + 1);
	if (out && ox_input_values(x, 0, &bins) == 1)
		out->dims[1] = ox_dim_num(bins[0]);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Det and strings --------------------------------------------------------------------------- */

/* Det: [*, M, M] gives [*]. */
int ox_rule_det(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	ox_dim m;
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		return 0;
	}
	if (in->rank < 2)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; Det needs [*, M, M]", x->node->input[0], in->rank);
	if (!ox_dim_unify(in->dims[in->rank - 2], in->dims[in->rank - 1], &m))
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' is not square: its last dimensions are %lld and %lld",
			       x->node->input[0], (long long)in->dims[in->rank - 2].v, (long long)in->dims[in->rank - 1].v);
	ox_set_out(x, 0, ox_type_dims(x, ox_out_elem(x, 0), in->rank - 2, in->dims));
	return 0;
}

/* StringNormalizer: [C] or [1, C]; stop words may remove elements. */
int ox_rule_string_normalizer(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const Onnx__AttributeProto *stop = ox_iattr(x, "stopwords");
	if (in && (in->rank < 1 || in->rank > 2))
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [C] or [1, C]", x->node->input[0], in->rank);
	if (in && stop && stop->n_strings) {
		ox_type *out = ox_type_tensor(x, OX_STRING, in->rank);
		if (out && in->rank == 2)
			out->dims[0] = in->dims[0];
		ox_set_out(x, 0, out);
		return 0;
	}
	ox_out_like(x, 0, OX_STRING, 0);
	return 0;
}

int ox_rule_string_concat(ox_ictx *x)
{
	static const size_t ins[] = {0, 1};
	ox_type *out = ox_broadcast(x, ins, 2, OX_STRING);
	if (!out)
		return x->failed ? -1 : 0;
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_regex_full_match(ox_ictx *x)
{
	ox_out_like(x, 0, OX_BOOL, 0);
	return 0;
}

/* StringSplit: Y adds a dimension of unknown length (the most substrings); Z counts them. */
int ox_rule_string_split(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	ox_type *y = ox_type_tensor(x, OX_STRING, in ? in->rank + 1 : -1);
	for (int k = 0; y && in && k < in->rank; k++)
		y->dims[k] = in->dims[k];
	ox_set_out(x, 0, y);
	ox_out_like(x, 1, OX_INT64, 0);
	return 0;
}

/* ---- ImageDecoder and TfIdfVectorizer ----------------------------------------------------------- */

/* ImageDecoder: a 1-D stream decodes to uint8 [height, width, channels], height and width
 * known only at run time, channels 3 (RGB, BGR) or 1 (Grayscale). */
int ox_rule_image_decoder(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const char *f = ox_iattr_str(x, "pixel_format", "RGB");
	if (in && in->rank != 1)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; an encoded stream is 1-D", x->node->input[0],
			       in->rank);
	int c = !strcmp(f, "RGB") || !strcmp(f, "BGR") ? 3 : !strcmp(f, "Grayscale") ? 1 : 0;
	if (!c)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'pixel_format' must be RGB, BGR or Grayscale, not '%s'", f);
	ox_dim d[3] = {OX_DIM_UNKNOWN, OX_DIM_UNKNOWN, ox_dim_num(c)};
	ox_set_out(x, 0, ox_type_dims(x, OX_UINT8, 3, d));
	return 0;
}

/* TfIdfVectorizer's attributes as the evaluator needs them: a mode it knows, gram lengths
 * 1 <= min <= max, a pool of the input's kind, no negative column. *cols: the greatest
 * column plus one. */
static int tfidf_attrs(ox_ictx *x, const ox_type *in, int64_t *cols)
{
	const char *mode = ox_iattr_str(x, "mode", "");
	if (strcmp(mode, "TF") && strcmp(mode, "IDF") && strcmp(mode, "TFIDF"))
		return ox_ierr(x, OX_P_OP, 0, "attribute 'mode' must be TF, IDF or TFIDF, not '%s'", mode);
	int64_t lo = ox_iattr_int(x, "min_gram_length", 1), hi = ox_iattr_int(x, "max_gram_length", 1);
	if (lo < 1 || hi < lo || ox_iattr_int(x, "max_skip_count", 0) < 0)
		return ox_ierr(x, OX_P_OP, 0, "min_gram_length %lld and max_gram_length %lld must satisfy 1 <= min <= max, "
			       "and max_skip_count (%lld) cannot be negative", (long long)lo, (long long)hi,
			       (long long)ox_iattr_int(x, "max_skip_count", 0));
	bool strings = in && in->elem == OX_STRING;
	if (in && in->elem && !ox_attr_given(x, strings ? "pool_strings" : "pool_int64s"))
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' is required for %s input", strings ? "pool_strings" : "pool_int64s",
			       ox_elem_label(in->elem));
	const int64_t *idx;
	int64_t n = ox_iattr_ints(x, "ngram_indexes", &idx);
	*cols = 0;
	for (int64_t i = 0; i < n; i++) {
		if (idx[i] < 0)
			return ox_ierr(x, OX_P_OP, 0, "ngram_indexes[%lld] is %lld; a column cannot be negative", (long long)i,
				       (long long)idx[i]);
		*cols = idx[i] + 1 > *cols ? idx[i] + 1 : *cols;
	}
	return 0;
}

/* TfIdfVectorizer: float [C] for [any] input, [N, C] for [N, any], C the greatest of
 * ngram_indexes plus one. */
int ox_rule_tfidf_vectorizer(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int64_t cols = 0;
	if (in && (in->rank < 1 || in->rank > 2))
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' has rank %d; expected [C] or [N, C]", x->node->input[0], in->rank);
	if (tfidf_attrs(x, in, &cols) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, OX_FLOAT, in ? in->rank : -1);
	if (out && in) {
		out->dims[0] = in->dims[0];
		out->dims[in->rank - 1] = ox_dim_num(cols);
	}
	ox_set_out(x, 0, out);
	return 0;
}
