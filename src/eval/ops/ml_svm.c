/* ai.onnx.ml support vector machines: SVMRegressor and SVMClassifier (one-vs-one voting
 * over support vectors, or a linear model when there are none; Platt probabilities with
 * prob_a and prob_b), after libsvm as the ONNX reference implementation follows it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../simd/ml_simd.h"
#include "ml.h"

typedef struct svm {
	int kernel; /* 0 LINEAR, 1 POLY, 2 RBF, 3 SIGMOID */
	double gamma, coef0, degree;
	int64_t c;  /* features */
	const ox_ml_vec *v;
} svm;

static int svm_setup(ox_k *k, svm *m)
{
	size_t len;
	const char *kt = ox_attr_str(k, "kernel_type", "LINEAR", &len);
	static const char *const names[] = {"LINEAR", "POLY", "RBF", "SIGMOID"};
	m->kernel = -1;
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && !memcmp(kt, names[i], len))
			m->kernel = i;
	if (m->kernel < 0)
		return ox_kfail(k, "kernel_type '%.*s' is not LINEAR, POLY, RBF or SIGMOID", (int)len, kt);
	const float *p;
	int64_t np = ox_attr_floats(k, "kernel_params", &p);
	m->gamma = np > 0 ? p[0] : 0, m->coef0 = np > 1 ? p[1] : 0, m->degree = np > 2 ? (double)(int64_t)p[2] : 0;
	m->v = ox_ml_vec_get();
	return 0;
}

/* Whether total == rows * cols, without overflowing. */
static bool is_product(int64_t total, int64_t rows, int64_t cols)
{
	return cols ? total >= 0 && total % cols == 0 && total / cols == rows : total == 0 || rows == 0;
}

static double kernel_dot(const svm *m, int kernel, const double *a, const float *b)
{
	if (kernel == 2)
		return exp(-m->gamma * m->v->sqdist(a, b, m->c));
	double s = m->v->dot(a, b, m->c);
	if (kernel == 1)
		return pow(s * m->gamma + m->coef0, m->degree);
	if (kernel == 3)
		return tanh(s * m->gamma + m->coef0);
	return s;
}

int ox_ml_SVMRegressor(ox_k *k)
{
	svm m;
	int64_t n, ns = ox_attr_int(k, "n_supports", 0);
	int pt = ox_ml_post_transform(k);
	ox_val *xv = ox_in_tensor(k, 0, true);
	if (pt < 0 || !xv || svm_setup(k, &m) < 0)
		return -1;
	double *x = ox_ml_rows(k, xv, &n, &m.c);
	if (!x)
		return -1;
	const float *coef, *sv, *rho;
	int64_t ncoef = ox_attr_floats(k, "coefficients", &coef), nsv = ox_attr_floats(k, "support_vectors", &sv);
	int64_t nrho = ox_attr_floats(k, "rho", &rho);
	bool one = ox_attr_int(k, "one_class", 0) != 0;
	if (ns < 0 || nrho < 1 || ncoef != (ns > 0 ? ns : m.c) || (ns > 0 && !is_product(nsv, ns, m.c))) {
		free(x);
		return ox_kfail(k, "%lld coefficients, %lld support vector values and %lld rho do not fit %lld supports of "
				"%lld features", (long long)ncoef, (long long)nsv, (long long)nrho, (long long)ns, (long long)m.c);
	}
	double *s = malloc((size_t)(n ? n : 1) * sizeof *s);
	if (!s) {
		free(x);
		return ox_kfail(k, "out of memory");
	}
	for (int64_t r = 0; r < n; r++) {
		double acc = 0;
		if (ns > 0)
			for (int64_t j = 0; j < ns; j++)
				acc += coef[j] * kernel_dot(&m, m.kernel, x + r * m.c, sv + j * m.c);
		else
			acc = kernel_dot(&m, 0, x + r * m.c, coef);
		acc += rho[0];
		s[r] = one ? (acc > 0 ? 1 : -1) : acc;
		ox_ml_post(pt, s + r, 1);
	}
	int rc = ox_ml_out_scores(k, 0, s, n, 1);
	free(s);
	free(x);
	return rc;
}

/* ---- classifier ------------------------------------------------------------------- */

typedef struct svc {
	svm m;
	int64_t ncls, nvec, *start; /* classes, support vectors, first vector of each class */
	const int64_t *per;         /* vectors_per_class */
	const float *coef, *sv, *rho, *pa, *pb;
	int64_t ncoef, nrho, npa;
} svc;

/* One-vs-one decision values scores[ncls*(ncls-1)/2] and votes[ncls] of row x. */
static void svc_row(const svc *S, const double *x, double *kern, double *scores, double *votes)
{
	for (int64_t j = 0; j < S->nvec; j++)
		kern[j] = kernel_dot(&S->m, S->m.kernel, x, S->sv + j * S->m.c);
	memset(votes, 0, (size_t)S->ncls * sizeof *votes);
	int64_t e = 0;
	for (int64_t i = 0; i < S->ncls; i++)
		for (int64_t j = i + 1; j < S->ncls; j++, e++) {
			double s = S->rho[e];
			for (int64_t v = 0; v < S->per[i]; v++)
				s += S->coef[(j - 1) * S->nvec + S->start[i] + v] * kern[S->start[i] + v];
			for (int64_t v = 0; v < S->per[j]; v++)
				s += S->coef[i * S->nvec + S->start[j] + v] * kern[S->start[j] + v];
			scores[e] = s;
			votes[s > 0 ? i : j] += 1;
		}
}

/* Pairwise coupling of Platt probabilities into class probabilities (libsvm); R has
 * room for 2 K^2 + K doubles. */
static void svc_proba(const svc *S, const double *scores, double *P, double *R)
{
	int64_t K = S->ncls, e = 0;
	double *Q = R + K * K, *Qp = Q + K * K;
	memset(R, 0, (size_t)(K * K * 2 + K) * sizeof *R);
	for (int64_t i = 0; i < K; i++)
		for (int64_t j = i + 1; j < K; j++, e++) {
			double v = 1 - ox_ml_logistic(scores[e] * S->pa[e] + S->pb[e]);
			v = v < 1e-7 ? 1e-7 : v > 1 - 1e-7 ? 1 - 1e-7 : v;
			R[i * K + j] = v, R[j * K + i] = 1 - v;
		}
	for (int64_t t = 0; t < K; t++) {
		P[t] = 1.0 / (double)K;
		Q[t * K + t] = 0;
		for (int64_t j = 0; j < K; j++)
			if (j != t)
				Q[t * K + t] += R[j * K + t] * R[j * K + t];
		for (int64_t j = 0; j < K; j++)
			if (j != t)
				Q[t * K + j] = -R[j * K + t] * R[t * K + j];
	}
	for (int64_t it = 0, max = K > 100 ? K : 100; it < max; it++) {
		double pQp = 0, err = 0;
		for (int64_t t = 0; t < K; t++) {
			Qp[t] = 0;
			for (int64_t j = 0; j < K; j++)
				Qp[t] += Q[t * K + j] * P[j];
			pQp += P[t] * Qp[t];
		}
		for (int64_t t = 0; t < K; t++)
			err = fabs(Qp[t] - pQp) > err ? fabs(Qp[t] - pQp) : err;
		if (err < 0.005 / (double)K)
			break;
		for (int64_t t = 0; t < K; t++) {
			double diff = (-Qp[t] + pQp) / Q[t * K + t];
			P[t] += diff;
			pQp = (pQp + diff * (diff * Q[t * K + t] + 2 * Qp[t])) / (1 + diff) / (1 + diff);
			for (int64_t j = 0; j < K; j++) {
				Qp[j] = (Qp[j] + diff * Q[t * K + j]) / (1 + diff);
				P[j] /= 1 + diff;
			}
		}
	}
}

static int svc_setup(ox_k *k, svc *S)
{
	const Onnx__AttributeProto *ai = ox_attr(k, "classlabels_ints"), *as = ox_attr(k, "classlabels_strings");
	S->ncls = as && as->n_strings ? (int64_t)as->n_strings : ai ? (int64_t)ai->n_ints : 0;
	if (S->ncls < 1)
		S->ncls = 1;
	int64_t nper = ox_attr_ints(k, "vectors_per_class", &S->per);
	S->ncoef = ox_attr_floats(k, "coefficients", &S->coef);
	S->nrho = ox_attr_floats(k, "rho", &S->rho);
	S->npa = ox_attr_floats(k, "prob_a", &S->pa);
	int64_t nsv = ox_attr_floats(k, "support_vectors", &S->sv), npb = ox_attr_floats(k, "prob_b", &S->pb);
	if (nper > 0 && nper != S->ncls)
		return ox_kfail(k, "vectors_per_class has %lld entries for %lld classes", (long long)nper, (long long)S->ncls);
	if (!(S->start = malloc((size_t)(S->ncls + 1) * sizeof *S->start)))
		return ox_kfail(k, "out of memory");
	for (int64_t i = 0; nper > 0 && i < S->ncls; i++) {
		if (S->per[i] < 0 || S->per[i] > nsv - S->nvec)
			return ox_kfail(k, "vectors_per_class[%lld] is %lld: negative, or more vectors than support_vectors "
					   "holds", (long long)i, (long long)S->per[i]);
		S->start[i] = S->nvec, S->nvec += S->per[i];
	}
	int64_t pairs = S->ncls * (S->ncls - 1) / 2;
	if (S->nvec > 0 && (!is_product(nsv, S->nvec, S->m.c) || !is_product(S->ncoef, S->nvec, S->ncls - 1) ||
			    S->nrho < pairs))
		return ox_kfail(k, "support vectors (%lld values), coefficients (%lld) and rho (%lld) do not fit %lld "
				"vectors of %lld features in %lld classes", (long long)nsv, (long long)S->ncoef,
				(long long)S->nrho, (long long)S->nvec, (long long)S->m.c, (long long)S->ncls);
	if (S->nvec == 0 && (!is_product(S->ncoef, S->ncls, S->m.c) || S->nrho < 1))
		return ox_kfail(k, "%lld coefficients and %lld rho do not fit a linear model of %lld classes over %lld features",
				(long long)S->ncoef, (long long)S->nrho, (long long)S->ncls, (long long)S->m.c);
	if (S->npa > 0 && (S->npa < pairs || npb < pairs))
		return ox_kfail(k, "prob_a and prob_b need %lld values each", (long long)pairs);
	return 0;
}

/* The label index of a row and its final scores in place (*w columns; sc has room for
 * two): libsvm's rules for two classes, which write a lone decision value s as the
 * two columns -s, s (transformed by LOGISTIC, SOFTMAX or SOFTMAX_ZERO). */
static int64_t svc_final(const svc *S, int pt, double *sc, int64_t *w, const double *votes, bool proba, bool allpos)
{
	int64_t best = votes ? ox_ml_argmax(votes, S->ncls) : ox_ml_argmax(sc, *w), label = best;
	double maxw = votes ? votes[best] : sc[best];
	bool two = S->nrho == 1 && S->ncls == 2;
	if (two && !proba && allpos && maxw >= 0.5)
		label = 1;
	else if (S->nrho == 1 && S->ncls < 2) /* no second label: 1 for positive, else 0 */
		label = maxw > 0 ? 1 : 0;
	if (*w >= 2 || pt == OX_PT_PROBIT || !two) {
		ox_ml_post(pt, sc, *w);
		return label;
	}
	double v = sc[0];
	sc[0] = -v, sc[1] = v, *w = 2;
	if (pt == OX_PT_LOGISTIC)
		sc[0] = ox_ml_logistic(-v), sc[1] = ox_ml_logistic(v);
	else
		ox_ml_post(pt, sc, 2);
	return label;
}

/* Decision values (and votes) of every row into sc[n * stride]; probabilities instead
 * when prob_a is given. */
static void svc_scores(const svc *S, const double *x, int64_t n, double *sc, int64_t stride, double *votes, double *kern,
		       double *work)
{
	int64_t pairs = S->ncls * (S->ncls - 1) / 2;
	for (int64_t r = 0; r < n; r++) {
		const double *xr = x + r * S->m.c;
		double *o = sc + r * stride;
		if (S->nvec == 0) {
			for (int64_t j = 0; j < S->ncls; j++)
				o[j] = S->rho[0] + kernel_dot(&S->m, 0, xr, S->coef + j * S->m.c);
			continue;
		}
		svc_row(S, xr, kern, kern + S->nvec, votes + r * S->ncls);
		if (S->npa > 0)
			svc_proba(S, kern + S->nvec, o, work);
		else
			memcpy(o, kern + S->nvec, (size_t)pairs * sizeof *o);
	}
}

int ox_ml_SVMClassifier(ox_k *k)
{
	svc S = {0};
	int64_t n;
	int pt = ox_ml_post_transform(k);
	ox_val *xv = ox_in_tensor(k, 0, true);
	if (pt < 0 || !xv || svm_setup(k, &S.m) < 0)
		return -1;
	double *x = ox_ml_rows(k, xv, &n, &S.m.c);
	if (!x)
		return -1;
	int rc = svc_setup(k, &S);
	bool svc_mode = S.nvec > 0, proba = svc_mode && S.npa > 0;
	int64_t pairs = S.ncls * (S.ncls - 1) / 2, w = !svc_mode || proba ? S.ncls : pairs, stride = w < 2 ? 2 : w;
	double *sc = rc ? NULL : calloc((size_t)(n * stride + n * S.ncls + S.nvec + pairs + 2), sizeof *sc);
	double *work = rc ? NULL : malloc((size_t)(2 * S.ncls * S.ncls + S.ncls) * sizeof *work);
	int64_t *idx = rc ? NULL : malloc((size_t)(n ? n : 1) * sizeof *idx), outw = w;
	if (rc == 0 && (!sc || !idx || !work))
		rc = ox_kfail(k, "out of memory");
	if (rc == 0) {
		double *votes = sc + n * stride, *kern = votes + n * S.ncls;
		bool allpos = true;
		for (int64_t i = 0; i < S.ncoef; i++)
			allpos = allpos && S.coef[i] >= 0;
		svc_scores(&S, x, n, sc, stride, votes, kern, work);
		for (int64_t r = 0; r < n; r++) {
			int64_t wr = w;
			idx[r] = svc_final(&S, pt, sc + r * stride, &wr, svc_mode ? votes + r * S.ncls : NULL, proba, allpos);
			outw = wr;
		}
		for (int64_t r = 0; outw != stride && r < n; r++) /* pack the rows */
			memmove(sc + r * outw, sc + r * stride, (size_t)outw * sizeof *sc);
		rc = ox_ml_classifier_out(k, idx, sc, n, outw, "classlabels_ints");
	}
	free(S.start);
	free(work);
	free(idx);
	free(sc);
	free(x);
	return rc;
}
