/* onnxtxt run and onnxtxt test: the evaluator on the command line. */
#define _XOPEN_SOURCE 700 /* POSIX 2008: scandir, clock_gettime */
#define _DEFAULT_SOURCE   /* alphasort */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- shared ------------------------------------------------------------------------------ */

/* --threads: the sessions' option (0 until given: one thread per processor). */
static OnnxSessionOptions session_opts;

#define THREADS_HELP \
	"  --threads N        threads for the big kernels (GEMM, convolution, ...): default\n" \
	"                     one per processor; 1 runs on one thread. Results are the same bits\n" \
	"                     whatever N\n"

/* Parses --threads N (1 to 1024); -1 after a usage error. */
static int threads_option(const char *cmd, const char *arg)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1 || n > 1024)
		return usage_error("%s: --threads takes a whole number from 1 to 1024, not '%s'", cmd, arg), -1;
	session_opts.threads = (int)n;
	return 0;
}

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

/* --max-memory and --timeout of run and test, given to every session. */
static struct {
	int has_memory;
	uint64_t memory;
	double timeout;
} limits;

enum { OPT_MAX_MEMORY = 1900, OPT_TIMEOUT, OPT_THREADS };

#define LIMIT_OPTIONS {"max-memory", required_argument, NULL, OPT_MAX_MEMORY}, {"timeout", required_argument, NULL, OPT_TIMEOUT}

#define LIMIT_HELP \
	"  --max-memory SIZE  fail a run whose tensors would take more than SIZE bytes at once\n" \
	"                     (K, M, G, T: powers of 1024; 0: no limit; default: half of the\n" \
	"                     physical memory)\n" \
	"  --timeout SECONDS  fail a run that takes longer (default: no limit)\n"

/* "512M", "2G", "1048576": bytes; -1 when arg is none of those. */
static int parse_size(const char *arg, uint64_t *out)
{
	static const char units[] = "KMGT";
	char *end;
	errno = 0;
	double n = strtod(arg, &end);
	if (end == arg || errno || !(n >= 0) || *arg == '-' || *arg == '+')
		return -1;
	double scale = 1;
	const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	if (u) {
		scale = ldexp(1, 10 * (int)(u - units + 1));
		end += 1 + (end[1] == 'i' && end[2] == 'B');
	}
	end += *end == 'B';
	if (*end || n * scale >= 18446744073709551616.0)
		return -1;
	*out = (uint64_t)(n * scale);
	return 0;
}

/* 1: c was --max-memory or --timeout, now handled; 0: it was not; -1: a usage error. */
static int limit_option(const char *cmd, int c, const char *arg)
{
	if (c == OPT_MAX_MEMORY) {
		if (parse_size(arg, &limits.memory) < 0)
			return usage_error("%s: --max-memory takes a size such as 512M or 2G, not '%s'", cmd, arg), -1;
		limits.has_memory = 1;
		return 1;
	}
	if (c != OPT_TIMEOUT)
		return 0;
	char *end;
	errno = 0;
	limits.timeout = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(limits.timeout) || limits.timeout < 0)
		return usage_error("%s: --timeout takes a number of seconds, not '%s'", cmd, arg), -1;
	return 1;
}

static OnnxStatus apply_limits(OnnxSession *s, OnnxError *err)
{
	if (limits.has_memory && OnnxSession_SetMaxMemory(s, limits.memory, err) != ONNXTXT_OK)
		return err->code;
	return OnnxSession_SetTimeout(s, limits.timeout, err);
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char run_help[] =
	"Usage: onnxtxt run MODEL [--input NAME=VALUE]... [--input-dir DIR] [--output-dir DIR]\n"
	"                   [--threads N]\n"
	"Evaluate a model (text or binary) and print its outputs in the textual syntax.\n"
	"\n"
	"  MODEL              model file, or - for standard input\n"
	"  -i, --input NAME=VALUE\n"
	"                     bind input NAME to VALUE: a tensor constant of the textual syntax\n"
	"                     ('float[2, 2] {1, 2, 3, 4}'), a sequence '[VALUE, ...]', 'none' (an\n"
	"                     empty optional), a map 'map(int64, float) {1: 0.5}', or the path of\n"
	"                     a .pb file (a serialized TensorProto, SequenceProto, OptionalProto\n"
	"                     or MapProto)\n"
	"  -i, --input FILE.pb\n"
	"                     bind a .pb file to the input its name field names, or else to the\n"
	"                     next input without a value\n"
	"  --input-dir DIR    bind DIR/input_N.pb to the N-th input without an initializer (the\n"
	"                     ONNX backend test layout)\n"
	"  --output-dir DIR   also write each output N to DIR/output_N.pb; DIR must exist\n"
	"                     (it is checked before the model runs)\n"
	"  --repeat N         run the model N times after one warm-up run (outputs of the last)\n"
	"  --time             print the session's set-up time (with the folding and packing it\n"
	"                     does before the first run) and the minimum and median time of\n"
	"                     the runs to standard error (one warm-up run, then N of --repeat)\n"
	LIMIT_HELP
	THREADS_HELP
	CLI_COMMON_HELP
	"\n"
	"A self-contained test case binds the inputs its '#@ input' lines give; --input-dir and\n"
	"--input override them. Outputs print one per line as NAME = VALUE.\n"
	"Exit status: 0 success, 1 the model is invalid or fails to evaluate, 2 usage error,\n"
	"3 file error.\n";

enum { OPT_INPUT_DIR = 2000, OPT_OUTPUT_DIR, OPT_REPEAT, OPT_TIME };

/* Whether an --input argument without a known input name is a value (a tensor constant,
 * a sequence or none) whose "NAME=" was forgotten. */
static int looks_like_value(const char *arg)
{
	return strchr(arg, '{') || arg[strspn(arg, " \t")] == '[' || strcmp(arg, "none") == 0;
}

static OnnxStatus unnamed_value(const char *arg, OnnxError *err)
{
	snprintf(err->message, sizeof err->message,
		 "--input '%s': a value needs the name of the input it is for: --input NAME=VALUE", arg);
	return err->code = ONNXTXT_ERR_ARG;
}

/* "NAME=VALUE" or "FILE.pb". */
static OnnxStatus bind_arg(OnnxSession *s, const char *arg, size_t *next_free, OnnxError *err)
{
	const char *eq = strchr(arg, '=');
	if (!is_file(arg) && looks_like_value(eq ? "" : arg))
		return unnamed_value(arg, err);
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
	if (i < 0 && looks_like_value(name)) {
		st = unnamed_value(arg, err);
	} else if (i < 0) {
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
		size_t len;
		/* "NAME = VALUE" as '#@ expect' lines write it: a name that is not UTF-8 as \xHH */
		if (OnnxValue_PrintNamed(v, OnnxSession_OutputName(s, i), &text, &len, &err) != ONNXTXT_OK) {
			fail("%s", err.message);
			return exit_for(err.code);
		}
		print_code(text, len);
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
	return fflush(stdout) == 0 ? EXIT_OK : cli_stdout_error(errno);
}

typedef struct run_opts {
	const char **inputs;
	size_t ninputs;
	const char *input_dir, *output_dir;
	long repeat; /* 0: one run, no warm-up */
	int time;
} run_opts;

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* "1.234 ms", or "0.512 us" below a millisecond: one-node models run in microseconds. */
static const char *duration(double seconds, char *buf, size_t size)
{
	if (seconds >= 1e-3)
		snprintf(buf, size, "%.3f ms", 1e3 * seconds);
	else
		snprintf(buf, size, "%.3f us", 1e6 * seconds);
	return buf;
}

/* "onnxtxt: 10 runs after 1 warm-up: min 1.234 ms, median 1.250 ms", after the set-up
 * time, as onnxruntime's perf tool reports them. */
static void print_times(double setup, double *t, long n)
{
	char a[32], b[32];
	qsort(t, (size_t)n, sizeof *t, by_value);
	double median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	fprintf(stderr, "%s: session set-up %s\n", prog, duration(setup, a, sizeof a));
	fprintf(stderr, "%s: %ld run%s after 1 warm-up: min %s, median %s\n", prog, n, n == 1 ? "" : "s",
		duration(t[0], a, sizeof a), duration(median, b, sizeof b));
}

static int eval_error(const OnnxError *e, const char *path, const char *text, size_t len);

/* One run; with --repeat or --time, one warm-up run and then N measured ones. A failing
 * run's error is shown at its node. */
static int run_timed(OnnxSession *s, const run_opts *o, double setup, const char *path, const char *text, size_t len)
{
	long n = o->repeat ? o->repeat : 1, total = o->repeat || o->time ? n + 1 : 1;
	double *t = calloc((size_t)n, sizeof *t);
	if (!t)
		return fail("out of memory"), EXIT_INPUT;
	OnnxError err;
	for (long i = 0; i < total; i++) {
		double t0 = now();
		if (OnnxSession_Run(s, &err) != ONNXTXT_OK) {
			free(t);
			return eval_error(&err, path, text, len);
		}
		if (total > 1 && i > 0)
			t[i - 1] = now() - t0;
	}
	if (o->time)
		print_times(setup, t, n);
	free(t);
	return EXIT_OK;
}

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

/* An evaluator error in GNU form: at the node's place with the line and a caret for a text
 * model, else "FILE: error: graph.node[1] (Gather): ..." (binary models have no lines). */
static int eval_error(const OnnxError *e, const char *path, const char *text, size_t len)
{
	OnnxError err = *e;
	if (text && !looks_binary(text, len) && err.path[0] && OnnxModel_LocateText(text, len, &err) == ONNXTXT_OK)
		report(&err, display_name(path), text, len);
	else
		fail_at(display_name(path), "%s", err.message);
	return exit_for(err.code);
}

/* "FILE:LINE" for an error about a test-case line ("#@ input ..."). */
static void case_line_error(const OnnxError *err, const char *path)
{
	char where[4200];
	snprintf(where, sizeof where, "%s:%u", display_name(path), err->line);
	fail_at(where, "%s", err->message);
}

/* What a message says after its "PLACE (Op): " head, up to its second quote (the name it
 * is about): "unknown attribute 'alpah'". */
static size_t gist(const char *msg, const char **start)
{
	const char *p = strstr(msg, "): ");
	*start = p ? p + 3 : msg;
	const char *q = strchr(*start, '\'');
	q = q ? strchr(q + 1, '\'') : NULL;
	return q ? (size_t)(q - *start) + 1 : strlen(*start);
}

/* A session refused a text model: when it is about an attribute (unknown, mistyped, a
 * required one missing) and the structural check finds the same problem, show that at
 * FILE:LINE:COL at the attribute instead; else the session's error at its node. */
static int session_failed(const char *path, const char *text, size_t len, const OnnxError *err)
{
	OnnxError cerr, *problems = NULL;
	size_t count = 0;
	const char *want, *got;
	size_t nwant = gist(err->message, &want);
	bool attribute = strstr(want, "attribute '") && strstr(want, "attribute '") < want + nwant;
	if (attribute && !looks_binary(text, len) &&
	    OnnxModel_CheckText(text, len, &problems, &count, &cerr) == ONNXTXT_ERR_INVALID)
		for (size_t i = 0; i < count; i++)
			if (problems[i].code != ONNXTXT_WARNING && problems[i].line && gist(problems[i].message, &got) == nwant &&
			    !strncmp(got, want, nwant)) {
				report(&problems[i], display_name(path), text, len);
				free(problems);
				return exit_for(err->code);
			}
	free(problems);
	return eval_error(err, path, text, len);
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
	double t0 = now();
	if (rc == EXIT_OK && OnnxSession_NewWithOptions(m, &session_opts, &s, &err) != ONNXTXT_OK)
		rc = session_failed(path, text, len, &err);
	if (rc == EXIT_OK && apply_limits(s, &err) != ONNXTXT_OK)
		fail("%s", err.message), rc = exit_for(err.code);
	/* the set-up includes the session-time work (folding, packed weights), as
	 * onnxruntime's session creation does */
	if (rc == EXIT_OK && OnnxSession_Prepare(s, &err) != ONNXTXT_OK)
		fail("%s", err.message), rc = exit_for(err.code);
	double setup = now() - t0;
	if (rc == EXIT_OK && bind_case_inputs(s, items, nitems, &err) != ONNXTXT_OK)
		case_line_error(&err, path), rc = exit_for(err.code);
	if (rc == EXIT_OK && o->input_dir && bind_dir(s, o->input_dir, &err) != ONNXTXT_OK)
		fail("%s", err.message), rc = exit_for(err.code);
	for (size_t i = 0; rc == EXIT_OK && i < o->ninputs; i++)
		if (bind_arg(s, o->inputs[i], &next_free, &err) != ONNXTXT_OK)
			fail("%s", err.message), rc = exit_for(err.code);
	if (rc == EXIT_OK)
		rc = run_timed(s, o, setup, path, text, len);
	if (rc == EXIT_OK)
		rc = print_outputs(s, o->output_dir);
	OnnxSession_Free(s);
	OnnxCase_Free(items, nitems);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

/* --output-dir must be a writable folder before anything runs: a typo then costs no
 * evaluation, and no outputs are printed for a command that fails. */
static int check_output_dir(const char *dir)
{
	struct stat st;
	int e = stat(dir, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : access(dir, W_OK | X_OK) ? errno : 0;
	if (!e)
		return EXIT_OK;
	fail("--output-dir %s: %s", dir, strerror(e));
	return EXIT_IO;
}

/* --repeat N: a count of runs from 1 to a billion; -1 (go on) or a usage error. */
static int parse_repeat(const char *arg, long *n)
{
	char *end;
	errno = 0;
	*n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || *n < 1 || *n > 1000000000)
		return usage_error("run: --repeat takes a number of runs from 1 to 1000000000, not '%s'", arg);
	return -1;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {{"input", required_argument, NULL, 'i'},
					     {"input-dir", required_argument, NULL, OPT_INPUT_DIR},
					     {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
					     {"repeat", required_argument, NULL, OPT_REPEAT},
					     {"time", no_argument, NULL, OPT_TIME},
					     LIMIT_OPTIONS,
					     {"threads", required_argument, NULL, OPT_THREADS},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	run_opts o = {calloc((size_t)argc + 1, sizeof(char *)), 0, NULL, NULL, 0, 0};
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
		else if (c == OPT_REPEAT)
			rc = parse_repeat(optarg, &o.repeat);
		else if (c == OPT_TIME)
			o.time = 1;
		else if ((r = limit_option("run", c, optarg)) != 0)
			rc = r < 0 ? EXIT_USAGE : rc;
		else if (c == OPT_THREADS)
			rc = threads_option("run", optarg) < 0 ? EXIT_USAGE : rc;
		else if (c == 'h')
			rc = (fputs(run_help, stdout), EXIT_OK);
		else if ((r = cli_common_option(c, optarg)) != 0)
			rc = r < 0 ? EXIT_USAGE : rc;
		else
			rc = cli_bad_option("run", c, argv, opts);
	}
	if (rc < 0 && optind != argc - 1)
		rc = usage_error(optind < argc ? "run: one MODEL is expected, not %s" : "run: missing MODEL%s",
				 optind < argc ? "several" : "");
	if (rc < 0 && o.output_dir)
		rc = check_output_dir(o.output_dir) == EXIT_OK ? -1 : EXIT_IO;
	if (rc < 0)
		rc = run_model(argv[optind], &o);
	free(o.inputs);
	return rc;
}

/* ---- test -------------------------------------------------------------------------------- */

static const char test_help[] =
	"Usage: onnxtxt test [--threads N] [--junit FILE] [--time] PATH...\n"
	"Run test cases and report one line per case: PASS, FAIL (with the first mismatch) or\n"
	"SKIP (with the operator the evaluator does not support), then a summary line.\n"
	"\n"
	"  PATH               a self-contained text case (a model with '#@ input' and '#@ expect'\n"
	"                     lines), an ONNX backend test folder (model.onnx, test_data_set_N/ with\n"
	"                     input_N.pb and output_N.pb, optional data.json with rtol and atol), or\n"
	"                     a folder searched for both (*.onnxtxt files, folders with model.onnx;\n"
	"                     a folder reached twice through links is searched once), or a binary\n"
	"                     model (told by its content) run with the test_data_set_N beside it\n"
	LIMIT_HELP
	"  --threads N        threads: several cases run at once, each on one thread; a single\n"
	"                     case's kernels use them all. Default one per processor\n"
	"  --junit FILE       also write the results as JUnit XML to FILE (atomically): one\n"
	"                     testsuite per PATH, one testcase per case, with <failure> or\n"
	"                     <skipped> and the message\n"
	"  --time             after each case, print on standard error where its time went:\n"
	"                     reading the model and the .pb files, setting up the session\n"
	"                     (with its folding and packing), running, comparing\n"
	CLI_COMMON_HELP
	"\n"
	"With --quiet, only failed and skipped cases and the summary are printed.\n"
	"Tolerances default to rtol 1e-3 and atol 1e-7: |got - expected| <= atol + rtol *\n"
	"|expected|. Exit status: 0 nothing failed, 1 a case failed, 2 usage error, 3 a PATH\n"
	"could not be read or holds no test case, 77 every case was skipped.\n";

enum verdict { PASS, FAIL, SKIP };
enum { OPT_JUNIT = 3000, OPT_TEST_TIME };
static int test_time; /* --time */


/* Where a case's time went, in seconds (--time). */
enum phase { READ, SETUP, RUN, COMPARE, NPHASES };

typedef struct result {
	double t[NPHASES];
	enum verdict v;
	char where[32]; /* ":LINE:COL" or ":LINE" after the file name, or "" */
	char msg[1024];
	unsigned line, col; /* where in a text case, for --diagnostics-format; 0 if nowhere */
} result;

/* Adds the time since *t0 to phase p of r, and restarts the clock. */
static void lap(result *r, enum phase p, double *t0)
{
	double t = now();
	r->t[p] += t - *t0;
	*t0 = t;
}

static enum verdict set(result *r, enum verdict v, const char *fmt, const char *a, const char *b)
{
	r->v = v;
	snprintf(r->msg, sizeof r->msg, fmt, a, b);
	return v;
}

/* An evaluator error; in a text model, placed at the node it is about. */
static enum verdict session_verdict(result *r, const OnnxError *e, const char *text, size_t len)
{
	OnnxError err = *e;
	if (text && err.path[0] && OnnxModel_LocateText(text, len, &err) == ONNXTXT_OK) {
		snprintf(r->where, sizeof r->where, ":%u:%u", err.line, err.column);
		r->line = err.line, r->col = err.column;
	}
	return set(r, err.code == ONNXTXT_ERR_UNSUPPORTED ? SKIP : FAIL, "%s%s", err.message, "");
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

/* A new session's limits, then its session-time work: timed as the set-up, with the
 * session's creation before them. */
static OnnxStatus limits_and_prepare(OnnxSession *s, OnnxError *err, result *r, double *t0)
{
	OnnxStatus st = apply_limits(s, err);
	if (st == ONNXTXT_OK)
		st = OnnxSession_Prepare(s, err);
	lap(r, SETUP, t0);
	return st;
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
	double t0 = now();
	char *text = slurp(path, &len);
	if (!text)
		return set(r, FAIL, "cannot read the file%s%s", "", "");
	Onnx__ModelProto *m = NULL;
	OnnxCaseItem *items = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	char where[64];
	enum verdict v = PASS;
	bool parsed = OnnxParser_Parse(text, len, &m, &err) == ONNXTXT_OK &&
		      OnnxCase_Parse(text, len, &items, &n, &err) == ONNXTXT_OK;
	lap(r, READ, &t0);
	if (!parsed) {
		snprintf(r->where, sizeof r->where, ":%u:%u", err.line, err.column);
		v = set(r, FAIL, "%s%s", "", err.message);
		r->line = err.line, r->col = err.column;
	} else if (OnnxSession_NewWithOptions(m, &session_opts, &s, &err) != ONNXTXT_OK) {
		v = session_verdict(r, &err, text, len);
	} else if (limits_and_prepare(s, &err, r, &t0) != ONNXTXT_OK) {
		v = set(r, FAIL, "%s%s", err.message, "");
	} else if (bind_case_inputs(s, items, n, &err) != ONNXTXT_OK) {
		snprintf(r->where, sizeof r->where, ":%u", err.line);
		v = set(r, FAIL, "%s%s", "", err.message);
		r->line = err.line;
	} else if (OnnxSession_Run(s, &err) != ONNXTXT_OK) {
		v = session_verdict(r, &err, text, len);
	}
	lap(r, RUN, &t0);
	size_t expects = 0;
	for (size_t i = 0; v == PASS && i < n; i++) {
		if (!items[i].expect)
			continue;
		expects++;
		long o = output_index(s, items[i].name);
		snprintf(r->where, sizeof r->where, ":%u", items[i].line);
		where[0] = '\0';
		r->line = items[i].line;
		if (o < 0)
			v = set(r, FAIL, "%sthe graph has no output named '%s'", where, items[i].name);
		else if (!check_output(s, o, items[i].value, items[i].rtol, items[i].atol, where, r))
			v = FAIL;
	}
	if (v == PASS && !expects)
		v = set(r, FAIL, "no '#@ expect' lines: the case checks nothing%s%s", "", "");
	lap(r, COMPARE, &t0);
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
			     result *r, double *t0)
{
	OnnxError err;
	OnnxStatus st = bind_dir(s, dir, &err);
	lap(r, READ, t0);
	if (st != ONNXTXT_OK)
		return set(r, FAIL, "%s%s", err.message, "");
	st = OnnxSession_Run(s, &err);
	lap(r, RUN, t0);
	if (st != ONNXTXT_OK)
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
		OnnxValue *want = NULL;
		if (o >= OnnxSession_OutputCount(s)) {
			v = set(r, FAIL, "%s: the model has no output %s", path, file);
		} else {
			st = OnnxValue_ReadFile(path, OnnxSession_OutputKind(s, o), &want, &err);
			lap(r, READ, t0);
			if (st != ONNXTXT_OK)
				v = set(r, FAIL, "%s%s", err.message, "");
		}
		if (want) {
			snprintf(where, sizeof where, "%s: ", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
			if (!check_output(s, (long)o, want, rtol, atol, where, r))
				v = FAIL;
			OnnxValue_Free(want);
			lap(r, COMPARE, t0);
		}
		free(path);
	}
	return v;
}

/* An ONNX backend case: the binary model at path (dir/model.onnx) with dir's data sets. */
static enum verdict backend_case(const char *dir, char *path, result *r)
{
	Onnx__ModelProto *m = NULL;
	OnnxSession *s = NULL;
	OnnxError err;
	struct dirent **sets = NULL;
	int nsets = 0;
	enum verdict v = PASS;
	double rtol = ONNXTXT_DEFAULT_RTOL, atol = ONNXTXT_DEFAULT_ATOL, t0 = now();
	tolerances(dir, &rtol, &atol);
	bool read = path && OnnxBinary_ReadFile(path, &m, &err) == ONNXTXT_OK &&
		    OnnxModel_EmbedExternalData(m, path, &err) == ONNXTXT_OK;
	lap(r, READ, &t0);
	if (!read)
		v = set(r, FAIL, "%s%s", path ? err.message : "out of memory", "");
	else if (OnnxSession_NewWithOptions(m, &session_opts, &s, &err) != ONNXTXT_OK)
		v = session_verdict(r, &err, NULL, 0);
	else if (limits_and_prepare(s, &err, r, &t0) != ONNXTXT_OK)
		v = set(r, FAIL, "%s%s", err.message, "");
	else if ((nsets = scandir(dir, &sets, data_set_filter, alphasort)) <= 0)
		v = set(r, FAIL, "no test_data_set_N folders%s%s", "", "");
	for (int i = 0; v == PASS && i < nsets; i++) {
		char *sd = join(dir, sets[i]->d_name);
		v = sd ? data_set(s, m, sd, rtol, atol, r, &t0) : set(r, FAIL, "out of memory%s%s", "", "");
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

/* A file given as a PATH: a text case, or a binary model (told by its content, as every
 * command does) whose folder holds its test_data_set_N folders. */
static enum verdict file_case(const char *path, result *r)
{
	char head[4096];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (!looks_binary(head, n))
		return text_case(path, r);
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	struct dirent **sets = NULL;
	int nsets = dir ? scandir(dir, &sets, data_set_filter, alphasort) : -1;
	for (int i = 0; i < nsets; i++)
		free(sets[i]);
	free(sets);
	enum verdict v;
	if (nsets > 0)
		v = backend_case(dir, strdup(path), r);
	else
		v = set(r, FAIL, "a binary model without test data: its folder has no test_data_set_N folders "
			"(the ONNX backend test layout)%s%s", "", "");
	free(dir);
	return v;
}

/* ---- finding cases ---------------------------------------------------------------------- */

/* The folders searched so far, by device and inode: a link back up the tree (self -> .)
 * is not followed twice. */
typedef struct dir_id {
	dev_t dev;
	ino_t ino;
} dir_id;

typedef struct cases {
	char **paths;
	size_t n, cap;
	char **suites;  /* the PATH arguments; suite s holds cases [ends[s-1], ends[s]) */
	size_t *ends, nsuites;
	dir_id *seen;
	size_t nseen, seen_cap;
} cases;

/* 1 when path was searched before, 0 when it is new (and now recorded), -1 on error. */
static int seen_before(cases *c, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	for (size_t i = 0; i < c->nseen; i++)
		if (c->seen[i].dev == st.st_dev && c->seen[i].ino == st.st_ino)
			return 1;
	if (c->nseen == c->seen_cap) {
		size_t cap = c->seen_cap ? 2 * c->seen_cap : 64;
		dir_id *g = realloc(c->seen, cap * sizeof *g);
		if (!g)
			return -1;
		c->seen = g, c->seen_cap = cap;
	}
	c->seen[c->nseen++] = (dir_id){st.st_dev, st.st_ino};
	return 0;
}

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
	int seen = seen_before(c, path);
	if (seen)
		return seen < 0 ? (fail("cannot read %s: %s", path, strerror(errno)), -1) : 0;
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

/* Cases run on several threads at once, each case's session on one thread; results are
 * printed in the cases' order as they come in. */
typedef struct case_pool {
	const cases *c;
	result *r;
	double *ms;
	char *done;
	size_t next;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} case_pool;

static void run_case(const char *p, result *r, double *ms)
{
	double t0 = now();
	r->v = PASS;
	r->msg[0] = '\0';
	r->v = is_dir(p) ? backend_case(p, join(p, "model.onnx"), r) : file_case(p, r);
	*ms = 1e3 * (now() - t0);
}

static void *case_worker(void *arg)
{
	case_pool *P = arg;
	for (;;) {
		pthread_mutex_lock(&P->mu);
		size_t i = P->next < P->c->n ? P->next++ : P->c->n;
		pthread_mutex_unlock(&P->mu);
		if (i == P->c->n)
			return NULL;
		run_case(P->c->paths[i], &P->r[i], &P->ms[i]);
		pthread_mutex_lock(&P->mu);
		P->done[i] = 1;
		pthread_cond_broadcast(&P->cv);
		pthread_mutex_unlock(&P->mu);
	}
}

/* Starts up to `workers` threads over the cases; returns how many started (0: run them
 * here, one by one). */
static int start_cases(case_pool *P, pthread_t *th, int workers)
{
	int n = 0;
	while (n < workers && pthread_create(&th[n], NULL, case_worker, P) == 0)
		n++;
	return n;
}

static void wait_case(case_pool *P, size_t i, int threaded)
{
	if (!threaded) {
		run_case(P->c->paths[i], &P->r[i], &P->ms[i]);
		return;
	}
	pthread_mutex_lock(&P->mu);
	while (!P->done[i])
		pthread_cond_wait(&P->cv, &P->mu);
	pthread_mutex_unlock(&P->mu);
}

static void print_case(const char *p, const result *r, double ms, size_t *count)
{
	static const char *const words[] = {"PASS", "FAIL", "SKIP"};
	count[r->v]++;
	if (r->v == PASS && !cli_quiet)
		printf("PASS %s (%.1f ms)\n", p, ms);
	else if (r->v != PASS) {
		printf("%s %s%s: ", words[r->v], p, r->where);
		cli_put_text(stdout, r->msg); /* it may quote a name of a binary model */
		putchar('\n');
	}
	fflush(stdout);
}

/* --time: "onnxtxt: PATH: read 0.312 ms, set-up 41.020 ms, run 12.101 ms, compare
 * 0.150 ms", after the case's line (standard output is flushed first, so the two keep
 * their order on a terminal). */
static void print_phases(const char *path, const result *r)
{
	char b[NPHASES][32];
	for (int p = 0; p < NPHASES; p++)
		duration(r->t[p], b[p], sizeof b[p]);
	fprintf(stderr, "%s: %s: read %s, set-up %s, run %s, compare %s\n", prog, path, b[READ], b[SETUP], b[RUN],
		b[COMPARE]);
}

/* For --diagnostics-format json or sarif: a failed or skipped case. */
static void diagnose(const char *path, enum verdict v, const result *r)
{
	if (cli_diag_format != DIAG_TEXT && v != PASS)
		diag_message(v == FAIL ? RULE_TEST_FAILED : RULE_TEST_SKIPPED, v == FAIL ? "error" : "note", path, r->line,
			     r->col, r->msg);
}

static int run_cases(const cases *c, const char *junit)
{
	size_t count[3] = {0, 0, 0};
	junit_case *jc = junit ? calloc(c->n + 1, sizeof *jc) : NULL;
	if (junit && !jc)
		return fail("out of memory"), EXIT_IO;
	int progress = isatty(STDERR_FILENO) && !cli_quiet;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = session_opts.threads ? session_opts.threads : cpus > 1 ? (int)(cpus < 64 ? cpus : 64) : 1;
	case_pool P = {c, calloc(c->n + 1, sizeof(result)), calloc(c->n + 1, sizeof(double)), calloc(c->n + 1, 1), 0,
		       PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
	pthread_t th[64];
	if (!P.r || !P.ms || !P.done)
		return free(P.r), free(P.ms), free(P.done), fail("out of memory"), EXIT_INPUT;
	OnnxSessionOptions saved = session_opts;
	int started = 0;
	if (c->n > 1 && threads > 1) {
		session_opts.threads = 1; /* the cases share the threads, not each case's kernels */
		started = start_cases(&P, th, threads);
	}
	for (size_t i = 0; i < c->n; i++) {
		if (progress)
			fprintf(stderr, "\r\033[K[%zu/%zu] %s", i + 1, c->n, c->paths[i]), fflush(stderr);
		wait_case(&P, i, started);
		if (progress)
			fputs("\r\033[K", stderr);
		diagnose(c->paths[i], P.r[i].v, &P.r[i]);
		if (jc)
			jc[i] = (junit_case){c->paths[i], strdup(P.r[i].msg), (int)P.r[i].v, P.ms[i] / 1e3};
		print_case(c->paths[i], &P.r[i], P.ms[i], count);
		if (test_time)
			print_phases(c->paths[i], &P.r[i]);
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	session_opts = saved;
	free(P.r), free(P.ms), free(P.done);
	printf("%zu passed, %zu failed, %zu skipped\n", count[PASS], count[FAIL], count[SKIP]);
	int rc = junit ? junit_write(junit, c->suites, c->ends, c->nsuites, jc) : EXIT_OK;
	for (size_t i = 0; jc && i < c->n; i++)
		free((char *)jc[i].message);
	free(jc);
	if (rc != EXIT_OK)
		return rc;
	if (count[FAIL])
		return EXIT_INPUT;
	return count[SKIP] && !count[PASS] ? EXIT_SKIP : EXIT_OK;
}

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {{"junit", required_argument, NULL, OPT_JUNIT},
					     {"time", no_argument, NULL, OPT_TEST_TIME},
					     {"help", no_argument, NULL, 'h'},
					     {"threads", required_argument, NULL, OPT_THREADS},
					     LIMIT_OPTIONS,
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *junit = NULL;
	int c, r;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (c == OPT_JUNIT) {
			junit = optarg;
			continue;
		}
		if (c == OPT_TEST_TIME) {
			test_time = 1;
			continue;
		}
		if (c == 'h')
			return fputs(test_help, stdout), EXIT_OK;
		if (c == OPT_THREADS) {
			if (threads_option("test", optarg) < 0)
				return EXIT_USAGE;
			continue;
		}
		if ((r = limit_option("test", c, optarg)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		if (r == 0)
			return cli_bad_option("test", c, argv, opts);
	}
	if (optind >= argc)
		return usage_error("test: missing PATH%s", "");
	cases cs = {0};
	cs.suites = argv + optind;
	cs.ends = calloc((size_t)(argc - optind), sizeof *cs.ends);
	int rc = cs.ends ? EXIT_OK : (fail("out of memory"), EXIT_IO);
	for (int i = optind; i < argc && rc == EXIT_OK; i++) {
		size_t before = cs.n;
		if (access(argv[i], F_OK) != 0) {
			fail("%s: %s", argv[i], strerror(errno));
			rc = EXIT_IO;
		} else if (find_cases(&cs, argv[i], 1) < 0) {
			rc = EXIT_IO;
		} else if (cs.n == before) {
			/* a mistyped or empty folder must not pass in CI as "0 failed" */
			fail("%s: no test case here (*.onnxtxt files, folders with model.onnx)", argv[i]);
			rc = EXIT_IO;
		}
		if (rc == EXIT_OK)
			cs.ends[cs.nsuites++] = cs.n;
	}
	if (rc == EXIT_OK)
		rc = run_cases(&cs, junit);
	for (size_t i = 0; i < cs.n; i++)
		free(cs.paths[i]);
	free(cs.paths);
	free(cs.ends);
	free(cs.seen);
	return rc;
}
