/* onnxtxt run and onnxtxt test: the evaluator on the command line. */
#define _XOPEN_SOURCE 700 /* POSIX 2008: scandir, clock_gettime */
#define _DEFAULT_SOURCE   /* alphasort */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- shared ------------------------------------------------------------------------------ */

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Index of the input named name, or of the n-th input without an initializer. */
static long input_index(const OnnxSession *s, const char *name)
{
	for (size_t i = 0; i < OnnxSession_InputCount(s); i++) {
		const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, NULL);
		if (vi->name && strcmp(vi->name, name) == 0)
			return (long)i;
	}
	return -1;
}

static long nth_required_input(const OnnxSession *s, size_t n)
{
	for (size_t i = 0; i < OnnxSession_InputCount(s); i++) {
		int optional;
		OnnxSession_Input(s, i, &optional);
		if (!optional && n-- == 0)
			return (long)i;
	}
	return -1;
}

static OnnxValueKind kind_of(const Onnx__TypeProto *t)
{
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
		return ONNXTXT_VALUE_SEQUENCE;
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
		return ONNXTXT_VALUE_OPTIONAL;
	return ONNXTXT_VALUE_TENSOR;
}

/* Binds the .pb file at path to input i. */
static OnnxStatus bind_file(OnnxSession *s, long i, const char *path, OnnxError *err)
{
	OnnxValue *v;
	OnnxStatus st = OnnxValue_ReadFile(path, OnnxSession_InputKind(s, (size_t)i), &v, err);
	if (st != ONNXTXT_OK)
		return st;
	st = OnnxSession_SetInput(s, OnnxSession_Input(s, (size_t)i, NULL)->name, v, err);
	OnnxValue_Free(v);
	return st;
}

/* Binds the "#@ input" lines of a text model. */
static OnnxStatus bind_case_inputs(OnnxSession *s, const OnnxCaseItem *items, size_t n, OnnxError *err)
{
	for (size_t i = 0; i < n; i++) {
		if (items[i].expect)
			continue;
		OnnxStatus st = OnnxSession_SetInput(s, items[i].name, items[i].value, err);
		if (st != ONNXTXT_OK) {
			err->line = items[i].line;
			err->column = 0;
			return st;
		}
	}
	return ONNXTXT_OK;
}

/* ---- run --------------------------------------------------------------------------------- */

static const char run_help[] =
	"Usage: onnxtxt run MODEL [--input NAME=VALUE]... [--input-dir DIR] [--output-dir DIR]\n"
	"Evaluate a model (text or binary) and print its outputs in the textual syntax.\n"
	"\n"
	"  MODEL              model file, or - for standard input\n"
	"  -i, --input NAME=VALUE\n"
	"                     bind input NAME to VALUE: a tensor constant of the textual syntax\n"
	"                     ('float[2, 2] {1, 2, 3, 4}'), a sequence '[VALUE, ...]', 'none' (an\n"
	"                     empty optional), or the path of a .pb file (a serialized TensorProto,\n"
	"                     SequenceProto or OptionalProto)\n"
	"  -i, --input FILE.pb\n"
	"                     bind a .pb file to the input its name field names, or else to the\n"
	"                     next input without a value\n"
	"  --input-dir DIR    bind DIR/input_N.pb to the N-th input without an initializer (the\n"
	"                     ONNX backend test layout)\n"
	"  --output-dir DIR   also write each output N to DIR/output_N.pb\n"
	CLI_COMMON_HELP
	"\n"
	"A self-contained test case binds the inputs its '#@ input' lines give; --input-dir and\n"
	"--input override them. Outputs print one per line as NAME = VALUE.\n"
	"Exit status: 0 success, 1 the model is invalid or fails to evaluate, 2 usage error,\n"
	"3 file error.\n";

enum { OPT_INPUT_DIR = 2000, OPT_OUTPUT_DIR };

/* "NAME=VALUE" or "FILE.pb". */
static OnnxStatus bind_arg(OnnxSession *s, const char *arg, size_t *next_free, OnnxError *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq || is_file(arg)) {
		OnnxValue *v;
		long i = -1;
		while (*next_free < OnnxSession_InputCount(s) && i < 0) {
			int optional;
			OnnxSession_Input(s, *next_free, &optional);
			if (!optional)
				i = (long)*next_free;
			(*next_free)++;
		}
		if (OnnxValue_ReadFile(arg, i >= 0 ? OnnxSession_InputKind(s, (size_t)i) : ONNXTXT_VALUE_TENSOR, &v,
				       err) != ONNXTXT_OK)
			return err->code;
		void *m = NULL;
		OnnxValue_ToProto(v, NULL, &m, NULL);
		OnnxValue_Free(v);
		/* the file's own name field, when it names an input, wins over the position */
		Onnx__TensorProto *t = m;
		long named = t && t->base.descriptor == &onnx__tensor_proto__descriptor && t->name ? input_index(s, t->name)
												    : -1;
		OnnxProto_Free(m);
		if (named >= 0)
			i = named;
		if (i < 0) {
			snprintf(err->message, sizeof err->message, "%s: no input is left to bind it to", arg);
			return err->code = ONNXTXT_ERR_ARG;
		}
		return bind_file(s, i, arg, err);
	}
	char *name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return err->code = ONNXTXT_ERR_NOMEM;
	long i = input_index(s, name);
	OnnxStatus st;
	if (i < 0) {
		snprintf(err->message, sizeof err->message, "the model has no input named '%s'", name);
		st = err->code = ONNXTXT_ERR_ARG;
	} else if (strlen(eq + 1) > 3 && strcmp(eq + 1 + strlen(eq + 1) - 3, ".pb") == 0 && is_file(eq + 1)) {
		st = bind_file(s, i, eq + 1, err);
	} else {
		OnnxValue *v;
		st = OnnxValue_Parse(eq + 1, strlen(eq + 1), &v, err);
		if (st == ONNXTXT_OK) {
			st = OnnxSession_SetInput(s, name, v, err);
			OnnxValue_Free(v);
		} else {
			char m[sizeof err->message];
			snprintf(m, sizeof m, "--input %s: column %u: %s", name, err->column, err->message);
			memcpy(err->message, m, sizeof m);
		}
	}
	free(name);
	return st;
}

static OnnxStatus bind_dir(OnnxSession *s, const char *dir, OnnxError *err)
{
	for (size_t n = 0;; n++) {
		char file[64];
		snprintf(file, sizeof file, "input_%zu.pb", n);
		char *path = join(dir, file);
		if (!path)
			return err->code = ONNXTXT_ERR_NOMEM;
		long i = is_file(path) ? nth_required_input(s, n) : -2;
		OnnxStatus st = i >= 0 ? bind_file(s, i, path, err) : ONNXTXT_OK;
		if (i == -1) {
			snprintf(err->message, sizeof err->message, "%s: the model has only %zu inputs without initializers",
				 path, n);
			st = err->code = ONNXTXT_ERR_ARG;
		}
		free(path);
		if (st != ONNXTXT_OK || i == -2)
			return st;
	}
}

static int print_outputs(const OnnxSession *s, const char *outdir)
{
	for (size_t i = 0; i < OnnxSession_OutputCount(s); i++) {
		const OnnxValue *v = OnnxSession_Output(s, i);
		OnnxError err;
		char *text;
		if (OnnxValue_Print(v, &text, NULL, &err) != ONNXTXT_OK) {
			fail("%s", err.message);
			return exit_for(err.code);
		}
		printf("%s = %s\n", OnnxSession_OutputName(s, i), text);
		free(text);
		if (outdir) {
			char file[64];
			snprintf(file, sizeof file, "output_%zu.pb", i);
			char *path = join(outdir, file);
			OnnxStatus st = path ? OnnxValue_WriteFile(v, OnnxSession_OutputName(s, i), path, &err)
					     : ONNXTXT_ERR_NOMEM;
			if (st != ONNXTXT_OK)
				fail("%s", path ? err.message : "out of memory");
			free(path);
			if (st != ONNXTXT_OK)
				return exit_for(st);
		}
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
}

typedef struct run_opts {
	const char **inputs;
	size_t ninputs;
	const char *input_dir, *output_dir;
} run_opts;

/* Loads a model for evaluation: either format, with external data read in. */
static int load_eval_model(const char *path, Onnx__ModelProto **m, char **text, size_t *len)
{
	int rc = load_model(path, m, text, len);
	if (rc != EXIT_OK)
		return rc;
	OnnxError err;
	if (OnnxModel_EmbedExternalData(*m, strcmp(path, "-") ? path : NULL, &err) != ONNXTXT_OK) {
		fail_at(display_name(path), "%s", err.message);
		return exit_for(err.code);
	}
	return EXIT_OK;
}

static int run_model(const char *path, const run_opts *o)
{
	Onnx__ModelProto *m;
	char *text;
	size_t len, nitems = 0, next_free = 0;
	OnnxCaseItem *items = NULL;
	OnnxSession *s = NULL;
	OnnxError err = {0};
	int rc = load_eval_model(path, &m, &text, &len);
	if (rc == EXIT_OK && !looks_binary(text, len) && OnnxCase_Parse(text, len, &items, &nitems, &err) != ONNXTXT_OK)
		report(&err, display_name(path), text, len), rc = exit_for(err.code);
	if (rc == EXIT_OK && OnnxSession_New(m, &s, &err) != ONNXTXT_OK)
		fail_at(display_name(path), "%s", err.message), rc = exit_for(err.code);
	if (rc == EXIT_OK && bind_case_inputs(s, items, nitems, &err) != ONNXTXT_OK)
		fail_at(display_name(path), "line %u: %s", err.line, err.message), rc = exit_for(err.code);
	if (rc == EXIT_OK && o->input_dir && bind_dir(s, o->input_dir, &err) != ONNXTXT_OK)
		fail("%s", err.message), rc = exit_for(err.code);
	for (size_t i = 0; rc == EXIT_OK && i < o->ninputs; i++)
		if (bind_arg(s, o->inputs[i], &next_free, &err) != ONNXTXT_OK)
			fail("%s", err.message), rc = exit_for(err.code);
	if (rc == EXIT_OK && OnnxSession_Run(s, &err) != ONNXTXT_OK)
		fail_at(display_name(path), "%s", err.message), rc = exit_for(err.code);
	if (rc == EXIT_OK)
		rc = print_outputs(s, o->output_dir);
	OnnxSession_Free(s);
	OnnxCase_Free(items, nitems);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {{"input", required_argument, NULL, 'i'},
					     {"input-dir", required_argument, NULL, OPT_INPUT_DIR},
					     {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	run_opts o = {calloc((size_t)argc + 1, sizeof(char *)), 0, NULL, NULL};
	if (!o.inputs)
		return fail("out of memory"), EXIT_INPUT;
	int c, r, rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, ":i:hq", opts, NULL)) != -1) {
		if (c == 'i')
			o.inputs[o.ninputs++] = optarg;
		else if (c == OPT_INPUT_DIR)
			o.input_dir = optarg;
		else if (c == OPT_OUTPUT_DIR)
			o.output_dir = optarg;
		else if (c == 'h')
			rc = (fputs(run_help, stdout), EXIT_OK);
		else if ((r = cli_common_option(c, optarg)) != 0)
			rc = r < 0 ? EXIT_USAGE : rc;
		else
			rc = cli_bad_option("run", c, argv);
	}
	if (rc < 0 && optind != argc - 1)
		rc = usage_error(optind < argc ? "run: one MODEL is expected, not %s" : "run: missing MODEL%s",
				 optind < argc ? "several" : "");
	if (rc < 0)
		rc = run_model(argv[optind], &o);
	free(o.inputs);
	return rc;
}

/* ---- test -------------------------------------------------------------------------------- */

static const char test_help[] =
	"Usage: onnxtxt test PATH...\n"
	"Run test cases and report one line per case: PASS, FAIL (with the first mismatch) or\n"
	"SKIP (with the operator the evaluator does not support), then a summary line.\n"
	"\n"
	"  PATH               a self-contained text case (a model with '#@ input' and '#@ expect'\n"
	"                     lines), an ONNX backend test folder (model.onnx, test_data_set_N/ with\n"
	"                     input_N.pb and output_N.pb, optional data.json with rtol and atol), or\n"
	"                     a folder searched for both (*.onnxtxt files, folders with model.onnx)\n"
	CLI_COMMON_HELP
	"\n"
	"With --quiet, only failed and skipped cases and the summary are printed.\n"
	"Tolerances default to rtol 1e-3 and atol 1e-7: |got - expected| <= atol + rtol *\n"
	"|expected|. Exit status: 0 nothing failed, 1 a case failed, 2 usage error, 77 every\n"
	"case was skipped.\n";

enum verdict { PASS, FAIL, SKIP };

typedef struct result {
	enum verdict v;
	char msg[1024];
} result;

static enum verdict set(result *r, enum verdict v, const char *fmt, const char *a, const char *b)
{
	r->v = v;
	snprintf(r->msg, sizeof r->msg, fmt, a, b);
	return v;
}

static enum verdict session_verdict(result *r, const OnnxError *err)
{
	return set(r, err->code == ONNXTXT_ERR_UNSUPPORTED ? SKIP : FAIL, "%s%s", err->message, "");
}

/* Compares output o of s with expected; false after recording a failure. */
static int check_output(const OnnxSession *s, long o, const OnnxValue *expected, double rtol, double atol,
			const char *where, result *r)
{
	char head[300];
	OnnxError err;
	if (OnnxValue_Equal(OnnxSession_Output(s, (size_t)o), expected, rtol, atol, &err) == ONNXTXT_OK)
		return 1;
	snprintf(head, sizeof head, "%soutput '%s'", where, OnnxSession_OutputName(s, (size_t)o));
	set(r, FAIL, "%s: %s", head, err.message);
	return 0;
}

static long output_index(const OnnxSession *s, const char *name)
{
	for (size_t i = 0; i < OnnxSession_OutputCount(s); i++)
		if (strcmp(OnnxSession_OutputName(s, i), name) == 0)
			return (long)i;
	return -1;
}

static enum verdict text_case(const char *path, result *r)
{
	size_t len, n = 0;
	char *text = slurp(path, &len);
	if (!text)
		return set(r, FAIL, "cannot read the file%s%s", "", "");
	Onnx__ModelProto *m = NULL;
	OnnxCaseItem *items = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	char where[64];
	enum verdict v = PASS;
	if (OnnxParser_Parse(text, len, &m, &err) != ONNXTXT_OK || OnnxCase_Parse(text, len, &items, &n, &err) != ONNXTXT_OK) {
		snprintf(where, sizeof where, "%u:%u: ", err.line, err.column);
		v = set(r, FAIL, "%s%s", where, err.message);
	} else if (OnnxSession_New(m, &s, &err) != ONNXTXT_OK) {
		v = session_verdict(r, &err);
	} else if (bind_case_inputs(s, items, n, &err) != ONNXTXT_OK) {
		snprintf(where, sizeof where, "%u: ", err.line);
		v = set(r, FAIL, "%s%s", where, err.message);
	} else if (OnnxSession_Run(s, &err) != ONNXTXT_OK) {
		/* unsupported at run time: a codec the build was configured without */
		v = set(r, err.code == ONNXTXT_ERR_UNSUPPORTED ? SKIP : FAIL, "%s%s", err.message, "");
	}
	size_t expects = 0;
	for (size_t i = 0; v == PASS && i < n; i++) {
		if (!items[i].expect)
			continue;
		expects++;
		long o = output_index(s, items[i].name);
		snprintf(where, sizeof where, "%u: ", items[i].line);
		if (o < 0)
			v = set(r, FAIL, "%sthe graph has no output named '%s'", where, items[i].name);
		else if (!check_output(s, o, items[i].value, items[i].rtol, items[i].atol, where, r))
			v = FAIL;
	}
	if (v == PASS && !expects)
		v = set(r, FAIL, "no '#@ expect' lines: the case checks nothing%s%s", "", "");
	OnnxSession_Free(s);
	OnnxCase_Free(items, n);
	OnnxProto_Free(m);
	free(text);
	return v;
}

/* rtol and atol from a backend case's data.json, when it has them. */
static void tolerances(const char *dir, double *rtol, double *atol)
{
	char *path = join(dir, "data.json");
	size_t len;
	FILE *f = path && is_file(path) ? fopen(path, "rb") : NULL;
	char buf[4096];
	len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[len] = '\0';
	if (f)
		fclose(f);
	free(path);
	const char *p;
	if ((p = strstr(buf, "\"rtol\"")) && (p = strchr(p, ':')))
		*rtol = strtod(p + 1, NULL);
	if ((p = strstr(buf, "\"atol\"")) && (p = strchr(p, ':')))
		*atol = strtod(p + 1, NULL);
}

static int data_set_filter(const struct dirent *e)
{
	return strncmp(e->d_name, "test_data_set_", 14) == 0;
}

/* One test_data_set_N folder: bind input_K.pb, run, compare with output_K.pb. */
static enum verdict data_set(OnnxSession *s, const Onnx__ModelProto *m, const char *dir, double rtol, double atol,
			     result *r)
{
	OnnxError err;
	if (bind_dir(s, dir, &err) != ONNXTXT_OK)
		return set(r, FAIL, "%s%s", err.message, "");
	if (OnnxSession_Run(s, &err) != ONNXTXT_OK)
		return set(r, FAIL, "%s%s", err.message, "");
	enum verdict v = PASS;
	for (size_t o = 0; v == PASS; o++) {
		char file[64], where[300];
		snprintf(file, sizeof file, "output_%zu.pb", o);
		char *path = join(dir, file);
		if (!path || !is_file(path)) {
			free(path);
			break;
		}
		OnnxValue *want;
		if (o >= OnnxSession_OutputCount(s))
			v = set(r, FAIL, "%s: the model has no output %s", path, file);
		else if (OnnxValue_ReadFile(path, kind_of(m->graph->output[o]->type), &want, &err) != ONNXTXT_OK)
			v = set(r, FAIL, "%s%s", err.message, "");
		else {
			snprintf(where, sizeof where, "%s: ", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
			if (!check_output(s, (long)o, want, rtol, atol, where, r))
				v = FAIL;
			OnnxValue_Free(want);
		}
		free(path);
	}
	return v;
}

static enum verdict backend_case(const char *dir, result *r)
{
	char *path = join(dir, "model.onnx");
	Onnx__ModelProto *m = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	struct dirent **sets = NULL;
	int nsets = 0;
	enum verdict v = PASS;
	double rtol = ONNXTXT_DEFAULT_RTOL, atol = ONNXTXT_DEFAULT_ATOL;
	tolerances(dir, &rtol, &atol);
	if (!path || OnnxBinary_ReadFile(path, &m, &err) != ONNXTXT_OK ||
	    OnnxModel_EmbedExternalData(m, path, &err) != ONNXTXT_OK)
		v = set(r, FAIL, "%s%s", path ? err.message : "out of memory", "");
	else if (OnnxSession_New(m, &s, &err) != ONNXTXT_OK)
		v = session_verdict(r, &err);
	else if ((nsets = scandir(dir, &sets, data_set_filter, alphasort)) <= 0)
		v = set(r, FAIL, "no test_data_set_N folders%s%s", "", "");
	for (int i = 0; v == PASS && i < nsets; i++) {
		char *sd = join(dir, sets[i]->d_name);
		v = sd ? data_set(s, m, sd, rtol, atol, r) : set(r, FAIL, "out of memory%s%s", "", "");
		free(sd);
	}
	for (int i = 0; i < nsets; i++)
		free(sets[i]);
	free(sets);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	free(path);
	return v;
}

/* ---- finding cases ---------------------------------------------------------------------- */

typedef struct cases {
	char **paths;
	size_t n, cap;
} cases;

static int add_case(cases *c, const char *path)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		char **g = realloc(c->paths, cap * sizeof *g);
		if (!g)
			return -1;
		c->paths = g, c->cap = cap;
	}
	return (c->paths[c->n] = strdup(path)) ? (int)++c->n * 0 : -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A folder with model.onnx is a backend case; any other folder is searched. */
static int find_cases(cases *c, const char *path, int top)
{
	if (!is_dir(path))
		return top || ends_with(path, ".onnxtxt") ? add_case(c, path) : 0;
	char *model = join(path, "model.onnx");
	int backend = model && is_file(model);
	free(model);
	if (backend)
		return add_case(c, path);
	struct dirent **list;
	int n = scandir(path, &list, NULL, alphasort), rc = 0;
	if (n < 0) {
		fail("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *sub = list[i]->d_name[0] != '.' ? join(path, list[i]->d_name) : NULL;
		if (rc == 0 && sub)
			rc = find_cases(c, sub, 0);
		free(sub);
		free(list[i]);
	}
	free(list);
	return rc;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run_cases(const cases *c)
{
	size_t count[3] = {0, 0, 0};
	int progress = isatty(STDERR_FILENO) && !cli_quiet;
	static const char *const words[] = {"PASS", "FAIL", "SKIP"};
	for (size_t i = 0; i < c->n; i++) {
		const char *p = c->paths[i];
		if (progress)
			fprintf(stderr, "\r\033[K[%zu/%zu] %s", i + 1, c->n, p), fflush(stderr);
		result r = {PASS, ""};
		double t0 = now();
		enum verdict v = is_dir(p) ? backend_case(p, &r) : text_case(p, &r);
		double ms = 1e3 * (now() - t0);
		if (progress)
			fputs("\r\033[K", stderr);
		count[v]++;
		if (v == PASS && !cli_quiet)
			printf("PASS %s (%.1f ms)\n", p, ms);
		else if (v != PASS)
			printf("%s %s: %s\n", words[v], p, r.msg);
		fflush(stdout);
	}
	printf("%zu passed, %zu failed, %zu skipped\n", count[PASS], count[FAIL], count[SKIP]);
	if (count[FAIL])
		return EXIT_INPUT;
	return count[SKIP] && !count[PASS] ? EXIT_SKIP : EXIT_OK;
}

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
	int c, r;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (c == 'h')
			return fputs(test_help, stdout), EXIT_OK;
		if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		if (r == 0)
			return cli_bad_option("test", c, argv);
	}
	if (optind >= argc)
		return usage_error("test: missing PATH%s", "");
	cases cs = {0};
	int rc = EXIT_OK;
	for (int i = optind; i < argc && rc == EXIT_OK; i++) {
		if (access(argv[i], F_OK) != 0) {
			fail("%s: %s", argv[i], strerror(errno));
			rc = EXIT_IO;
		} else if (find_cases(&cs, argv[i], 1) < 0) {
			rc = EXIT_IO;
		}
	}
	if (rc == EXIT_OK)
		rc = run_cases(&cs);
	for (size_t i = 0; i < cs.n; i++)
		free(cs.paths[i]);
	free(cs.paths);
	return rc;
}
