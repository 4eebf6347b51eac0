/* Helpers shared by the ai.onnx.ml kernels: inputs as rows of doubles, attribute lists
 * read in one shape, post_transform, class labels. */
#ifndef OX_EVAL_OPS_ML_H
#define OX_EVAL_OPS_ML_H

#include "../kernel.h"

/* post_transform of the models: the string values, and TreeEnsemble's integers (whose
 * numbering is the spec's: 0 NONE, 1 SOFTMAX, 2 LOGISTIC, 3 SOFTMAX_ZERO, 4 PROBIT). */
enum { OX_PT_NONE, OX_PT_SOFTMAX, OX_PT_LOGISTIC, OX_PT_SOFTMAX_ZERO, OX_PT_PROBIT };

/* float, double, int64 or int32: the numbers the ml operators take. */
bool ox_ml_numeric(int type);
/* 0 when tensor x (input X) holds such numbers, else -1 after failing. */
int ox_ml_check_numeric(ox_k *k, const ox_val *x);
/* Input 0, a numeric tensor of rank 1 (one row) or 2 (rows): its rows and columns, and
 * its elements as doubles (malloc'd; NULL after failing). */
double *ox_ml_rows(ox_k *k, const ox_val *x, int64_t *n, int64_t *c);
/* The same for any numeric element type. */
double *ox_ml_rows_any(ox_k *k, const ox_val *x, int64_t *n, int64_t *c);
/* The post_transform attribute (a string); -1 after failing on an unknown name. */
int ox_ml_post_transform(ox_k *k);
/* Applies a post_transform to one row of scores in place. */
void ox_ml_post(int pt, double *s, int64_t n);
double ox_ml_logistic(double x);
/* The two columns of a binary model that scores only the positive class s: [1 - s, s]
 * for NONE and PROBIT, else [-s, s], then transformed (as onnxruntime and the ONNX
 * reference implementation write them). */
void ox_ml_binary_scores(double s, int pt, double *out);
double ox_ml_probit(double p);
/* The index of the first largest of the n >= 1 scores s (by >: a NaN wins only in first place). */
int64_t ox_ml_argmax(const double *s, int64_t n);

/* A FLOATS attribute, or the doubles of its "_as_tensor" TENSOR form (opset 3 of the
 * tree ensembles): a malloc'd array of *n doubles (NULL with *n = 0 when absent; -1
 * after failing). */
int ox_ml_floats(ox_k *k, const char *name, double **v, int64_t *n);

/* The string of STRINGS attribute a at i. */
static inline const char *ox_ml_str(const Onnx__AttributeProto *a, size_t i, size_t *len)
{
	*len = a->strings[i].len;
	return a->strings[i].data ? (const char *)a->strings[i].data : "";
}

/* Output i: the labels labels_ints[idx[r]] or labels_strings[idx[r]] (whichever the node
 * has), shape [n]; with neither, the indices themselves as int64. */
int ox_ml_labels(ox_k *k, int i, const int64_t *idx, int64_t n, const char *ints, const char *strings);
/* Output i: a float tensor [n, c] of the doubles s. */
int ox_ml_out_scores(ox_k *k, int i, const double *s, int64_t n, int64_t c);
/* A classifier's outputs: the labels of idx (from ints or classlabels_strings) and, when
 * the node asks for it, the scores s [n, w]. */
int ox_ml_classifier_out(ox_k *k, const int64_t *idx, const double *s, int64_t n, int64_t w, const char *ints);

#endif
