/* The property test of type and shape inference against the evaluator: for every self-contained
 * case of corpus/eval and every ONNX backend case of ../shared/onnx-backend-data, (a) the
 * inferred types of the graph outputs agree with the expected outputs, and (b) no value a run
 * gives (the bound inputs and every output of every node of the main graph) contradicts its
 * inferred type: same kind and element type, same rank, equal numbers where inference has a
 * number, one value per named dim in a run, and the values inference knows statically.
 * TAP: one line per case (a skip, with its reason, for a case the evaluator cannot run), one
 * per backend folder missing; every disagreement as a diagnostic naming the case, the value,
 * the inferred type and the run's value; the totals at the end. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check.h"
#include "eval/exec.h"
#include "eval/value.h"
#include "infer/infer.h"
#include "names.h"
#include "testutil.h"

#define VAL(v) ((const ox_val *)(v))

/* ---- the totals ------------------------------------------------------------------------- */

static int tap_n, failed_cases;
static long cases_run, values, untyped, disagreements;

typedef struct skip_reason {
	char why[120];
	long n;
} skip_reason;
static skip_reason skips[32];
static size_t nskips;

static void count_skip(const char *why)
{
	size_t i = 0;
	while (i < nskips && strcmp(skips[i].why, why))
		i++;
	if (i == nskips && nskips < sizeof skips / sizeof *skips)
		snprintf(skips[nskips++].why, sizeof skips[0].why, "%s", why);
	if (i < nskips)
		skips[i].n++;
}

/* ---- one run: the case, its inference, the values of its named dims --------------------- */

typedef struct run {
	const char *name;     /* the case, for messages */
	const ox_infer *e;
	ox_names dims;        /* dim parameter -> its value + 1 in this run */
	int in_seq;           /* > 0: comparing a sequence's items, whose named dims are each
			       * item's own (seq(float[N]) holds tensors of different lengths) */
	int bad;              /* disagreements in this case */
	long first;           /* the count of values compared when the case began */
} run;

static void disagree(run *r, const char *value, const ox_type *t, const ox_val *v, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void disagree(run *r, const char *value, const ox_type *t, const ox_val *v, const char *fmt, ...)
{
	char inferred[200], got[200], why[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	ox_type_str(t, inferred, sizeof inferred);
	printf("# %s: value '%s': inferred %s, the run gives %s: %s\n", r->name, value, inferred,
	       ox_val_describe(v, got, sizeof got), why);
	r->bad++;
	disagreements++;
}

/* A named dim meets a number: the first one in a run binds it, the others must agree. */
static bool bind_dim(run *r, const char *param, int64_t v, int64_t *was)
{
	const intptr_t *old = ox_names_get(&r->dims, param);
	if (r->in_seq)
		return true;
	if (old) {
		*was = (int64_t)*old - 1;
		return *was == v;
	}
	if (!ox_names_put(&r->dims, param, (intptr_t)v + 1))
		abort();
	return true;
}

static bool same_dim(run *r, const char *value, const ox_type *t, const ox_val *v, int k)
{
	ox_dim d = t->dims[k];
	int64_t was;
	if (ox_dim_known(d) && d.v != v->dims[k]) {
		disagree(r, value, t, v, "dim %d", k);
		return false;
	}
	if (d.param && !bind_dim(r, d.param, v->dims[k], &was)) {
		disagree(r, value, t, v, "dim %d is %s, which is %lld elsewhere in this run", k, d.param, (long long)was);
		return false;
	}
	return true;
}

/* The values inference knows of a tensor against the run's. */
static void same_values(run *r, const char *value, const ox_type *t, const ox_val *v)
{
	if (t->nvals <= 0)
		return;
	if (v->count != t->nvals) {
		disagree(r, value, t, v, "inference knows %lld values", (long long)t->nvals);
		return;
	}
	bool numeric = v->type != OX_STRING && v->type != OX_COMPLEX64 && v->type != OX_COMPLEX128;
	for (int64_t i = 0; numeric && i < t->nvals; i++) {
		int64_t was;
		if (t->known && !t->known[i]) {
			const char *p = t->sym ? t->sym[i] : NULL;
			if (p && !bind_dim(r, p, ox_get_i64(v, i), &was)) {
				disagree(r, value, t, v, "element %lld stands for %s, which is %lld elsewhere", (long long)i, p,
					 (long long)was);
				return;
			}
			continue;
		}
		if (t->fvals) {
			double a = t->fvals[i], b = ox_get_f64(v, i);
			if (!(a == b || fabs(a - b) <= 1e-5 * fmax(1, fabs(b)) || (isnan(a) && isnan(b)))) {
				disagree(r, value, t, v, "element %lld is %g, inferred %g", (long long)i, b, a);
				return;
			}
		} else if (t->vals && t->vals[i] != ox_get_i64(v, i)) {
			disagree(r, value, t, v, "element %lld is %lld, inferred %lld", (long long)i,
				 (long long)ox_get_i64(v, i), (long long)t->vals[i]);
			return;
		}
	}
}

static void compare(run *r, const char *value, const ox_type *t, const ox_val *v);

static void compare_tensor(run *r, const char *value, const ox_type *t, const ox_val *v)
{
	if (v->kind != OX_TENSOR) {
		disagree(r, value, t, v, "not a tensor");
		return;
	}
	if (t->elem && t->elem != v->type) {
		disagree(r, value, t, v, "element type");
		return;
	}
	if (t->rank >= 0 && t->rank != v->rank) {
		disagree(r, value, t, v, "rank");
		return;
	}
	for (int k = 0; k < t->rank; k++)
		if (!same_dim(r, value, t, v, k))
			return;
	same_values(r, value, t, v);
}

static void compare(run *r, const char *value, const ox_type *t, const ox_val *v)
{
	static const int kinds[] = {[OX_T_TENSOR] = OX_TENSOR, [OX_T_SEQ] = OX_SEQUENCE, [OX_T_MAP] = OX_MAP,
				    [OX_T_OPT] = OX_OPTIONAL};
	if (!t || !v || t->kind == OX_T_UNKNOWN || t->kind == OX_T_SPARSE)
		return;
	if (t->kind == OX_T_TENSOR) {
		compare_tensor(r, value, t, v);
		return;
	}
	if (v->kind != kinds[t->kind]) {
		disagree(r, value, t, v, "kind");
		return;
	}
	if (t->kind == OX_T_MAP) {
		if (t->key && t->key != v->type)
			disagree(r, value, t, v, "key type");
		else if (t->inner && t->inner->kind == OX_T_TENSOR && t->inner->elem && t->inner->elem != v->items[1]->type)
			disagree(r, value, t, v, "value type");
		return;
	}
	int bad = r->bad; /* one disagreement per value is enough */
	r->in_seq += t->kind == OX_T_SEQ;
	for (size_t i = 0; i < v->nitems && r->bad == bad; i++)
		compare(r, value, t->inner, v->items[i]);
	r->in_seq -= t->kind == OX_T_SEQ;
}

/* A given value (an input bound, an expected output) against the inferred type: a case
 * writes the content of an optional (a tensor or a sequence), not the optional itself. */
static void compare_given(run *r, const char *value, const ox_type *t, const ox_val *v)
{
	values++;
	if (t && t->kind == OX_T_OPT && v->kind != OX_OPTIONAL)
		t = t->inner;
	compare(r, value, t, v);
}

static void observed(void *ctx, const char *name, const ox_val *v)
{
	run *r = ctx;
	const ox_type *t = ox_infer_type_of(r->e, name);
	values++;
	untyped += !t || t->kind == OX_T_UNKNOWN || (t->kind == OX_T_TENSOR && t->rank < 0);
	compare(r, name, t, v);
}

/* ---- setting a case up ------------------------------------------------------------------ */

/* Sessions without the session-time work: a Conv that does the BatchNormalization and Relu
 * after it would leave their own outputs unseen. */
static const OnnxSessionOptions plain = {.no_optimize = 1};

/* The inference of m, or NULL: after printing inference's errors (a disagreement: the
 * evaluator runs the model), or with *skip set when the structural check rejects the model
 * (the evaluator is more lenient: the cases of corpus/eval that run what onnx forbids). */
static ox_infer *infer(run *r, const Onnx__ModelProto *m, OnnxError *skip)
{
	ox_infer *e = NULL;
	OnnxError *problems = NULL;
	size_t n = 0;
	OnnxStatus st = ox_check_infer(m, &e, &problems, &n, skip);
	for (size_t i = 0; st != ONNXTXT_OK && e && i < n; i++)
		if (problems[i].code != ONNXTXT_WARNING) {
			printf("# %s: inference rejects a model the evaluator runs: %s\n", r->name, problems[i].message);
			r->bad++;
			disagreements++;
		}
	free(problems);
	if (st == ONNXTXT_OK)
		return e;
	ox_infer_free(e);
	if (e || st == ONNXTXT_ERR_NOMEM)
		r->bad += !r->bad;
	return NULL;
}

/* A case that cannot run or has nothing to compare: counted by what (the reason in
 * general), shown with its message. */
static void skip_case(const char *name, const char *what, const OnnxError *err)
{
	count_skip(what);
	printf("ok %d - %s # SKIP %s: %s\n", ++tap_n, name, what, err->message);
}

static void report(const run *r)
{
	cases_run++;
	failed_cases += r->bad > 0;
	printf("%s %d - %s: %ld values compared\n", r->bad ? "not ok" : "ok", ++tap_n, r->name, values - r->first);
}

/* ---- corpus/eval ------------------------------------------------------------------------ */

static void bind_text_inputs(run *r, OnnxSession *s, const OnnxCaseItem *items, size_t n, OnnxError *err, bool *ok)
{
	for (size_t i = 0; i < n && *ok; i++) {
		if (items[i].expect)
			continue;
		*ok = OnnxSession_SetInput(s, items[i].name, items[i].value, err) == ONNXTXT_OK;
		compare_given(r, items[i].name, ox_infer_type_of(r->e, items[i].name), VAL(items[i].value));
	}
}

/* A case's session and inference, or the line that says why it goes no further: true when
 * its runs can be watched. */
static bool start_case(run *r, Onnx__ModelProto *m, OnnxSession **s, OnnxError *err)
{
	if (OnnxSession_NewWithOptions(m, &plain, s, err) != ONNXTXT_OK) {
		skip_case(r->name, err->code == ONNXTXT_ERR_UNSUPPORTED ? "an operator the evaluator does not have" : "no session",
			  err);
	} else if (!(r->e = infer(r, m, err)) && !r->bad) {
		skip_case(r->name, "the structural check rejects it", err);
	} else if (!r->e) {
		report(r);
	} else {
		ox_session_observe(*s, observed, r);
		return true;
	}
	return false;
}

static void text_case(const char *dir, const char *file)
{
	char path[4200], name[300];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	snprintf(name, sizeof name, "corpus/eval/%s", file);
	size_t len, n = 0;
	char *text = tu_read(path, &len);
	Onnx__ModelProto *m = NULL;
	OnnxCaseItem *items = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	run r = {.name = name, .first = values};
	if (!text || OnnxParser_Parse(text, len, &m, &err) != ONNXTXT_OK ||
	    OnnxCase_Parse(text, len, &items, &n, &err) != ONNXTXT_OK) {
		printf("not ok %d - %s: does not read\n", ++tap_n, name);
		failed_cases++;
	} else if (start_case(&r, m, &s, &err)) {
		bool ok = true;
		bind_text_inputs(&r, s, items, n, &err, &ok);
		if ((!ok || OnnxSession_Run(s, &err) != ONNXTXT_OK) && !r.bad) {
			skip_case(name, "the run fails", &err);
		} else {
			for (size_t i = 0; ok && i < n; i++)
				if (items[i].expect)
					compare_given(&r, items[i].name, ox_infer_type_of(r.e, items[i].name),
							 VAL(items[i].value));
			report(&r);
		}
	}
	ox_names_free(&r.dims);
	ox_infer_free((ox_infer *)r.e);
	OnnxSession_Free(s);
	OnnxCase_Free(items, n);
	OnnxProto_Free(m);
	free(text);
}

static void eval_corpus(void)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", tu_path(tu_source_root(), "corpus/eval"));
	char **files = tu_list(dir, ".onnxtxt");
	for (size_t i = 0; files && files[i]; i++)
		text_case(dir, files[i]);
	tu_free_list(files);
}

/* ---- the backend cases ------------------------------------------------------------------- */

/* Binds set/input_K.pb to the K-th input without an initializer, as onnxtxt test does. */
static bool bind_set(run *r, OnnxSession *s, const char *set, OnnxError *err)
{
	for (size_t k = 0, i = 0; i < OnnxSession_InputCount(s); i++) {
		int optional;
		const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, &optional);
		char file[4300];
		snprintf(file, sizeof file, "%s/input_%zu.pb", set, k);
		if (optional)
			continue;
		k++;
		OnnxValue *v;
		struct stat st;
		if (stat(file, &st) != 0)
			return true;
		if (OnnxValue_ReadFile(file, OnnxSession_InputKind(s, i), &v, err) != ONNXTXT_OK)
			return false;
		bool ok = OnnxSession_SetInput(s, vi->name, v, err) == ONNXTXT_OK;
		compare_given(r, vi->name, ox_infer_type_of(r->e, vi->name), VAL(v));
		OnnxValue_Free(v);
		if (!ok)
			return false;
	}
	return true;
}

/* The expected outputs of set against the inferred types of the graph's outputs. */
static void expected_outputs(run *r, const OnnxSession *s, const Onnx__GraphProto *g, const char *set)
{
	for (size_t o = 0; o < g->n_output; o++) {
		char file[4300];
		snprintf(file, sizeof file, "%s/output_%zu.pb", set, o);
		OnnxValue *want;
		OnnxError err;
		struct stat st;
		if (stat(file, &st) != 0)
			break;
		if (OnnxValue_ReadFile(file, OnnxSession_OutputKind(s, o), &want, &err) != ONNXTXT_OK)
			continue;
		compare_given(r, g->output[o]->name, ox_infer_type_of(r->e, g->output[o]->name), VAL(want));
		OnnxValue_Free(want);
	}
}

static int data_set_filter(const struct dirent *e)
{
	return strncmp(e->d_name, "test_data_set_", 14) == 0;
}

/* Every data set of the case in dir: each run binds its named dims afresh. */
static bool run_sets(run *r, OnnxSession *s, const Onnx__ModelProto *m, const char *dir, OnnxError *err)
{
	struct dirent **sets = NULL;
	int nsets = scandir(dir, &sets, data_set_filter, alphasort);
	bool ok = nsets > 0;
	for (int i = 0; i < nsets; i++) {
		char set[4200];
		snprintf(set, sizeof set, "%s/%s", dir, sets[i]->d_name);
		ox_names_free(&r->dims);
		r->dims = (ox_names){0};
		if (ok && (!bind_set(r, s, set, err) || OnnxSession_Run(s, err) != ONNXTXT_OK))
			ok = false;
		else if (ok)
			expected_outputs(r, s, m->graph, set);
		free(sets[i]);
	}
	free(sets);
	return ok;
}

static void backend_case(const char *path, const char *name)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	Onnx__ModelProto *m = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	run r = {.name = name, .first = values};
	if (OnnxBinary_ReadFile(path, &m, &err) != ONNXTXT_OK || OnnxModel_EmbedExternalData(m, path, &err) != ONNXTXT_OK) {
		printf("not ok %d - %s: %s\n", ++tap_n, name, err.message);
		failed_cases++;
	} else if (start_case(&r, m, &s, &err)) {
		if (!run_sets(&r, s, m, dir, &err) && !r.bad)
			skip_case(name, "the run fails", &err);
		else
			report(&r);
	}
	ox_names_free(&r.dims);
	ox_infer_free((ox_infer *)r.e);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}

static void backend(const char *set)
{
	char root[4096];
	snprintf(root, sizeof root, "%s/onnx-backend-data/%s", tu_shared(), set);
	struct stat st;
	if (stat(root, &st) != 0) {
		printf("ok %d - backend %s # SKIP %s not found\n", ++tap_n, set, root);
		return;
	}
	char **models = tu_find(root, "model.onnx");
	size_t skip = strlen(tu_shared()) + 1;
	for (size_t i = 0; models && models[i]; i++)
		backend_case(models[i], models[i] + skip);
	tu_free_list(models);
}

int main(void)
{
	static const char *const sets[] = {"light", "light-random", "pytorch-converted", "pytorch-operator", "simple",
					   "node"};
	eval_corpus();
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
		backend(sets[i]);
	printf("# %ld cases run, %ld values compared (%ld nodes' outputs of unknown rank to inference), %ld disagreements in %d cases\n",
	       cases_run, values, untyped, disagreements, failed_cases);
	for (size_t i = 0; i < nskips; i++)
		printf("# skipped: %ld cases (%s)\n", skips[i].n, skips[i].why);
	printf("1..%d\n", tap_n);
	return failed_cases ? 1 : 0;
}
