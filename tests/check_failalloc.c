/* Allocation failure: the library's allocating calls are wrapped at link time (-Wl,--wrap),
 * the N-th one fails, and every N of an operation must end in a clean result or
 * ONNXTXT_ERR_NOMEM, with nothing leaked and no output file damaged. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* Each test sweeps N over all allocations of one operation (parse, stream, print, format, dot,
 * check, read, write, write a file, external data, evaluation) on a few representative
 * inputs, in two modes: only the N-th fails; the N-th and all later ones fail. */

/* ---- the wrapped allocator ----------------------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_asprintf(char **out, const char *fmt, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

/* volatile: the compiler takes malloc for the C library's, which touches no globals of
 * ours, and would otherwise move stores to these across calls to it */
static volatile bool armed;        /* failures are injected only inside the operation under test */
static volatile long calls;        /* allocations made while armed */
static volatile long fail_at;      /* the first allocation to fail (1-based); 0: none */
static volatile bool fail_onwards; /* every allocation after fail_at fails too */
static volatile long failed;       /* allocations refused */

static bool refuse(void)
{
	if (!armed)
		return false;
	calls++;
	bool no = fail_at && (calls == fail_at || (fail_onwards && calls > fail_at));
	failed += no;
	return no;
}

/* Live blocks, by address, in an open-addressing set that itself never allocates: a free
 * only counts for a block the wrappers handed out, so memory that libc allocates inside
 * (stdio buffers, open_memstream) does not disturb the count. */
#define SLOTS (1u << 16)
static volatile uintptr_t live[SLOTS];
static volatile long nlive;
#define TOMBSTONE ((uintptr_t)1)

static size_t slot_of(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> 48) & (SLOTS - 1);
}

static void track(void *p)
{
	if (!p)
		return;
	size_t i = slot_of((uintptr_t)p);
	while (live[i] > TOMBSTONE)
		i = (i + 1) & (SLOTS - 1);
	live[i] = (uintptr_t)p;
	nlive++;
	if (nlive >= SLOTS / 2)
		abort(); /* not ck_assert: Check's own bookkeeping allocates */
}

static void untrack(void *p)
{
	if (!p)
		return;
	for (size_t i = slot_of((uintptr_t)p); live[i]; i = (i + 1) & (SLOTS - 1))
		if (live[i] == (uintptr_t)p) {
			live[i] = TOMBSTONE;
			nlive--;
			return;
		}
}

void *__wrap_malloc(size_t n)
{
	void *p = refuse() ? NULL : __real_malloc(n);
	track(p);
	return p;
}

void *__wrap_calloc(size_t k, size_t n)
{
	void *p = refuse() ? NULL : __real_calloc(k, n);
	track(p);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	if (refuse())
		return NULL;
	void *q = __real_realloc(p, n);
	if (q || n == 0)
		untrack(p);
	track(q);
	return q;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	void *p = refuse() ? NULL : __real_aligned_alloc(align, n);
	track(p);
	return p;
}

void __wrap_free(void *p)
{
	untrack(p);
	__real_free(p);
}

char *__wrap_strdup(const char *s)
{
	char *p = refuse() ? NULL : __real_strdup(s);
	track(p);
	return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
	char *p = refuse() ? NULL : __real_strndup(s, n);
	track(p);
	return p;
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	if (refuse()) {
		*out = NULL;
		return -1;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n >= 0)
		track(*out);
	return n;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_ANONYMOUS) && refuse()) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	void *p = __real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED)
		track(p);
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	untrack(addr);
	return __real_munmap(addr, len);
}

/* ---- operations ------------------------------------------------------------------------------ */

/* One operation on one input: run() returns the status of the library call and leaves its
 * result in op->out; check() compares a success with the result of the unarmed run; clean()
 * releases the result. */
typedef struct op op;
struct op {
	const char *name;
	OnnxStatus (*run)(op *o, OnnxError *err);
	void (*check)(op *o);
	void (*clean)(op *o);
	const char *text; /* the input */
	size_t len;
	void *model;      /* a parsed model, for operations that start from one */
	void *bytes;      /* the packed model */
	size_t nbytes;
	void *out;        /* the result */
	size_t nout;
	void *want;       /* the result without failures */
	size_t nwant;
	char dir[4096];   /* scratch directory, for file operations */
	OnnxError want_err; /* for inputs that fail anyway: the error without failures */
};

static void free_out(op *o)
{
	free(o->out);
	o->out = NULL;
}

static void free_model_out(op *o)
{
	OnnxProto_Free(o->out);
	o->out = NULL;
}

/* the result packs to the bytes of the unarmed run */
static void check_packed(op *o)
{
	size_t n;
	unsigned char *got = tu_pack(o->out, &n);
	ck_assert_msg(n == o->nwant && memcmp(got, o->want, n) == 0, "%s: a different message", o->name);
	free(got);
}

static void check_bytes(op *o)
{
	ck_assert_msg(o->nout == o->nwant && memcmp(o->out, o->want, o->nout) == 0, "%s: different bytes", o->name);
}

static void save_packed(op *o)
{
	o->want = tu_pack(o->out, &o->nwant);
}

static void save_bytes(op *o)
{
	o->want = malloc(o->nout + 1);
	memcpy(o->want, o->out, o->nout);
	o->nwant = o->nout;
}

static OnnxStatus run_parse(op *o, OnnxError *err)
{
	return OnnxParser_Parse(o->text, o->len, (Onnx__ModelProto **)&o->out, err);
}

static OnnxStatus run_stream(op *o, OnnxError *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		abort(); /* not ck_assert while armed: Check's bookkeeping allocates */
	OnnxStatus st = OnnxParser_ParseToBinary(o->text, o->len, f, err);
	fclose(f);
	/* open_memstream's buffer comes from libc: copy it into a block the wrappers know */
	armed = false;
	o->out = malloc(n + 1);
	memcpy(o->out, buf, n);
	o->nout = n;
	armed = true;
	__real_free(buf);
	return st;
}

static OnnxStatus run_read(op *o, OnnxError *err)
{
	return OnnxBinary_Read(o->bytes, o->nbytes, (Onnx__ModelProto **)&o->out, err);
}

static OnnxStatus run_write(op *o, OnnxError *err)
{
	return OnnxBinary_Write(o->model, &o->out, &o->nout, err);
}

static OnnxStatus print_with(op *o, unsigned flags, OnnxError *err)
{
	return OnnxPrinter_Print(o->model, flags, (char **)&o->out, &o->nout, err);
}

static OnnxStatus run_print(op *o, OnnxError *err)
{
	return print_with(o, 0, err);
}

/* fmt's formatting of the text, comments kept (every input has some) */
static OnnxStatus run_format(op *o, OnnxError *err)
{
	return OnnxPrinter_Format(o->text, o->len, 0, (char **)&o->out, &o->nout, err);
}

static OnnxStatus run_print_plain(op *o, OnnxError *err)
{
	return print_with(o, ONNXTXT_PRINT_NO_ANNOTATIONS | ONNXTXT_PRINT_FLOAT_LITERALS, err);
}

/* Draws the model into memory (open_memstream's buffer is libc's: copied as in run_stream). */
static OnnxStatus run_dot(op *o, OnnxError *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		abort(); /* not ck_assert while armed: Check's bookkeeping allocates */
	OnnxStatus st = OnnxPrinter_Dot(o->model, f, err);
	fclose(f);
	armed = false;
	o->out = malloc(n + 1);
	memcpy(o->out, buf, n);
	o->nout = n;
	armed = true;
	__real_free(buf);
	return st;
}

/* Checks the text; a model with problems counts as a result too: the result is the status
 * and every problem, one a line. */
static OnnxStatus run_check(op *o, OnnxError *err)
{
	OnnxError *problems = NULL;
	size_t count = 0;
	OnnxStatus st = OnnxModel_CheckText(o->text, o->len, &problems, &count, err);
	if (st != ONNXTXT_OK && st != ONNXTXT_ERR_INVALID) {
		free(problems);
		return st;
	}
	armed = false;
	size_t cap = 64 + count * (sizeof problems->message + 32);
	char *out = malloc(cap);
	size_t n = (size_t)snprintf(out, cap, "status %d\n", st);
	for (size_t i = 0; i < count; i++)
		n += (size_t)snprintf(out + n, cap - n, "%u:%u: %s\n", problems[i].line, problems[i].column,
				      problems[i].message);
	o->out = out;
	o->nout = n;
	armed = true;
	free(problems);
	return ONNXTXT_OK;
}

/* ---- file operations: the target holds "old" before; after a failure it still does ------------ */

static char *target(op *o)
{
	static char path[4200];
	snprintf(path, sizeof path, "%s/out.bin", o->dir);
	return path;
}

static OnnxStatus run_write_file(op *o, OnnxError *err)
{
	return OnnxBinary_WriteFile(o->model, target(o), err);
}

static OnnxStatus run_print_file(op *o, OnnxError *err)
{
	return OnnxPrinter_WriteFile(o->model, 0, target(o), err);
}

static OnnxStatus run_stream_file(op *o, OnnxError *err)
{
	return OnnxParser_ParseToBinaryFile(o->text, o->len, target(o), err);
}

/* the target file's contents become the result */
static void read_target(op *o)
{
	size_t n;
	char *data = tu_read(target(o), &n);
	ck_assert(data);
	o->out = data;
	o->nout = n;
}

static void check_file(op *o)
{
	read_target(o);
	check_bytes(o);
	free_out(o);
}

static void save_file(op *o)
{
	read_target(o);
	save_bytes(o);
	free_out(o);
}

static void reset_file(op *o)
{
	FILE *f = fopen(target(o), "w");
	ck_assert(f);
	fputs("old", f);
	fclose(f);
}

/* After a failure: the old file is intact and no temporary file is left. */
static void check_untouched(op *o)
{
	size_t n;
	char *data = tu_read(target(o), &n);
	ck_assert_msg(data && n == 3 && memcmp(data, "old", 3) == 0, "%s: the target was changed by a failure",
		      o->name);
	free(data);
	DIR *d = opendir(o->dir);
	ck_assert(d);
	for (struct dirent *e; (e = readdir(d));)
		ck_assert_msg(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "out.bin"),
			      "%s: %s left behind", o->name, e->d_name);
	closedir(d);
}

/* ---- external data -------------------------------------------------------------------------- */

static char *model_path(op *o)
{
	static char path[4200];
	snprintf(path, sizeof path, "%s/model.onnx", o->dir);
	return path;
}

/* Externalizes a fresh copy of the model (the call changes it): the result is the model. */
static OnnxStatus run_externalize(op *o, OnnxError *err)
{
	armed = false;
	ck_assert_int_eq(OnnxBinary_Read(o->bytes, o->nbytes, (Onnx__ModelProto **)&o->out, err), ONNXTXT_OK);
	armed = true;
	return OnnxModel_ExternalizeData(o->out, model_path(o), "weights.bin", 16, err);
}

/* Embeds the data back into a fresh copy of the externalized model (in bytes): the result is
 * the model. */
static OnnxStatus run_embed(op *o, OnnxError *err)
{
	armed = false;
	ck_assert_int_eq(OnnxBinary_Read(o->bytes, o->nbytes, (Onnx__ModelProto **)&o->out, err), ONNXTXT_OK);
	armed = true;
	return OnnxModel_EmbedExternalData(o->out, model_path(o), err);
}

/* ---- evaluation -------------------------------------------------------------------------------- */

/* A session over the model with the case's inputs, run: the result is the outputs printed
 * one a line (malloc'd text). */
static OnnxStatus run_eval(op *o, OnnxError *err)
{
	OnnxCaseItem *items = NULL;
	size_t n = 0;
	OnnxSession *s = NULL;
	OnnxStatus st = OnnxCase_Parse(o->text, o->len, &items, &n, err);
	if (st == ONNXTXT_OK)
		st = OnnxSession_New(o->model, &s, err);
	for (size_t i = 0; st == ONNXTXT_OK && i < n; i++)
		if (!items[i].expect)
			st = OnnxSession_SetInput(s, items[i].name, items[i].value, err);
	if (st == ONNXTXT_OK)
		st = OnnxSession_Run(s, err);
	char *all = NULL;
	size_t len = 0;
	for (size_t i = 0; st == ONNXTXT_OK && i < OnnxSession_OutputCount(s); i++) {
		char *text = NULL;
		size_t k = 0;
		st = OnnxValue_Print(OnnxSession_Output(s, i), &text, &k, err);
		char *more = st == ONNXTXT_OK ? realloc(all, len + k + 2) : NULL;
		if (st == ONNXTXT_OK && !more) {
			/* the test's own allocation, refused like the library's: as the library would */
			memset(err, 0, sizeof *err);
			err->code = st = ONNXTXT_ERR_NOMEM;
			snprintf(err->message, sizeof err->message, "out of memory");
		} else if (more) {
			all = more;
			memcpy(all + len, text, k);
			len += k;
			all[len++] = '\n';
			all[len] = '\0';
		}
		free(text);
	}
	OnnxSession_Free(s);
	OnnxCase_Free(items, n);
	if (st != ONNXTXT_OK) {
		free(all);
		return st;
	}
	o->out = all;
	o->nout = len;
	return st;
}

/* ---- the sweep ------------------------------------------------------------------------------ */

static long total_failed;

/* One armed run: fail at n (0: never) and check the outcome; returns the allocations made. */
static long attempt(op *o, long n, bool onwards, bool file)
{
	if (file)
		reset_file(o);
	long before = nlive;
	OnnxError err;
	memset(&err, 0, sizeof err);
	calls = failed = 0;
	fail_at = n;
	fail_onwards = onwards;
	armed = true;
	OnnxStatus st = o->run(o, &err);
	armed = false;
	long made = calls, refused = failed;
	total_failed += refused;
	if (o->want_err.code && st == o->want_err.code) {
		ck_assert_msg(strcmp(err.message, o->want_err.message) == 0 && err.offset == o->want_err.offset,
			      "%s, allocation %ld failing%s: %s at %zu instead of %s", o->name, n,
			      onwards ? " onwards" : "", err.message, err.offset, o->want_err.message);
	} else if (st == ONNXTXT_OK) {
		if (o->check)
			o->check(o);
	} else {
		ck_assert_msg(refused > 0, "%s: failed with no allocation refused: %s", o->name, err.message);
		ck_assert_msg(st == ONNXTXT_ERR_NOMEM && err.code == st,
			      "%s, allocation %ld failing%s: status %d, not out of memory: %s", o->name, n,
			      onwards ? " onwards" : "", st, err.message);
		ck_assert_msg(strstr(err.message, "out of memory"), "%s: message %s", o->name, err.message);
		if (file)
			check_untouched(o);
	}
	if (o->clean)
		o->clean(o);
	ck_assert_msg(nlive == before, "%s, allocation %ld failing%s: %ld blocks leaked", o->name, n,
		      onwards ? " onwards" : "", nlive - before);
	return made;
}

/* The unarmed run gives the expected result and the number of allocations; then each of
 * them fails in turn, alone and with all that follow. */
static void sweep(op *o, void (*save)(op *o), bool file)
{
	OnnxError err;
	calls = 0;
	fail_at = 0;
	armed = true;
	OnnxStatus st = o->run(o, &err);
	armed = false;
	long total = calls;
	ck_assert_msg(total > 0, "%s: no allocation seen", o->name);
	if (save) {
		ck_assert_msg(st == ONNXTXT_OK, "%s: %s", o->name, err.message);
		save(o);
	} else {
		ck_assert_msg(st != ONNXTXT_OK, "%s: parsed", o->name);
		o->want_err = err;
	}
	if (o->clean)
		o->clean(o);
	for (long n = 1; n <= total; n++) {
		attempt(o, n, false, file);
		attempt(o, n, true, file);
	}
	printf("# %s: %ld allocations, each failed alone and onwards\n", o->name, total);
	free(o->want);
	o->want = NULL;
}

/* ---- inputs ----------------------------------------------------------------------------------- */

static const char *const inputs[] = {
	"corpus/valid/golden_sample.onnxtxt",
	"corpus/valid/model_attention.onnxtxt",
	"corpus/valid/annotations.onnxtxt",
	"corpus/valid/attr_graph_nested.onnxtxt",
	"corpus/valid/model_quantized.onnxtxt",
};
#define NINPUTS (sizeof inputs / sizeof *inputs)

static void load(op *o, const char *name, int i)
{
	memset(o, 0, sizeof *o);
	o->text = tu_read(tu_path(tu_source_root(), inputs[i]), &o->len);
	ck_assert_msg(o->text, "cannot read %s", inputs[i]);
	OnnxError err;
	ck_assert_int_eq(OnnxParser_Parse(o->text, o->len, (Onnx__ModelProto **)&o->model, &err), ONNXTXT_OK);
	o->bytes = tu_pack(o->model, &o->nbytes);
	static char label[300];
	snprintf(label, sizeof label, "%s of %s", name, inputs[i]);
	o->name = label;
}

static void unload(op *o)
{
	OnnxProto_Free(o->model);
	free(o->bytes);
	free((char *)o->text);
}

START_TEST(t_parse)
{
	op o;
	load(&o, "parse", _i);
	o.run = run_parse, o.check = check_packed, o.clean = free_model_out;
	sweep(&o, save_packed, false);
	unload(&o);
}
END_TEST

static const char *const bad_inputs[] = {
	"corpus/errors/attr_graph_error_inside.onnxtxt",
	"corpus/errors/header_unknown_key_hint.onnxtxt",
	"corpus/errors/graph_missing_closing_brace.onnxtxt",
	"corpus/errors/attr_tensor_mismatch.onnxtxt",
	"corpus/errors/attr_unknown_annotation.onnxtxt",
};

/* Inputs with an error: the same error, or out of memory. */
START_TEST(t_parse_errors)
{
	op o;
	memset(&o, 0, sizeof o);
	o.text = tu_read(tu_path(tu_source_root(), bad_inputs[_i]), &o.len);
	ck_assert(o.text);
	char label[300];
	snprintf(label, sizeof label, "parse of %s", bad_inputs[_i]);
	o.name = label;
	o.run = run_parse, o.clean = free_model_out;
	sweep(&o, NULL, false);
	o.name = "parse to binary of the same", o.run = run_stream, o.clean = free_out;
	memset(&o.want_err, 0, sizeof o.want_err);
	sweep(&o, NULL, false);
	free((char *)o.text);
}
END_TEST

/* The evaluation cases of corpus/eval: parsed, inputs bound, run. */
#define MAX_EVAL_CASES 24
START_TEST(t_eval)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", tu_path(tu_source_root(), "corpus/eval"));
	char **names = tu_list(dir, ".onnxtxt");
	int total = 0, count = 0;
	while (names[total])
		total++;
	/* at most MAX_EVAL_CASES of them, spread over the list */
	int step = total > MAX_EVAL_CASES ? (total + MAX_EVAL_CASES - 1) / MAX_EVAL_CASES : 1;
	for (int i = 0; i < total; i += step, count++) {
		op o;
		memset(&o, 0, sizeof o);
		char path[4400], label[300];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		o.text = tu_read(path, &o.len);
		ck_assert(o.text);
		OnnxError err;
		ck_assert_int_eq(OnnxParser_Parse(o.text, o.len, (Onnx__ModelProto **)&o.model, &err), ONNXTXT_OK);
		snprintf(label, sizeof label, "evaluation of corpus/eval/%s", names[i]);
		o.name = label;
		o.run = run_eval, o.check = check_bytes, o.clean = free_out;
		sweep(&o, save_bytes, false);
		OnnxProto_Free(o.model);
		free((char *)o.text);
	}
	tu_free_list(names);
	ck_assert_msg(count > 0, "no evaluation cases in %s", dir);
}
END_TEST

START_TEST(t_stream)
{
	op o;
	load(&o, "parse to binary", _i);
	o.run = run_stream, o.check = check_bytes, o.clean = free_out;
	sweep(&o, save_bytes, false);
	unload(&o);
}
END_TEST

START_TEST(t_read)
{
	op o;
	load(&o, "binary read", _i);
	o.run = run_read, o.check = check_packed, o.clean = free_model_out;
	sweep(&o, save_packed, false);
	unload(&o);
}
END_TEST

START_TEST(t_write)
{
	op o;
	load(&o, "binary write", _i);
	o.run = run_write, o.check = check_bytes, o.clean = free_out;
	sweep(&o, save_bytes, false);
	unload(&o);
}
END_TEST

START_TEST(t_print)
{
	op o;
	load(&o, "print", _i);
	o.run = run_print, o.check = check_bytes, o.clean = free_out;
	sweep(&o, save_bytes, false);
	o.name = "print without annotations";
	o.run = run_print_plain;
	sweep(&o, save_bytes, false);
	o.name = "dot";
	o.run = run_dot;
	sweep(&o, save_bytes, false);
	o.name = "check";
	o.run = run_check;
	sweep(&o, save_bytes, false);
	o.name = "format";
	o.run = run_format;
	sweep(&o, save_bytes, false);
	unload(&o);
}
END_TEST

START_TEST(t_files)
{
	static OnnxStatus (*const runs[])(op *, OnnxError *) = {run_write_file, run_print_file, run_stream_file};
	static const char *const names[] = {"binary write to a file", "print to a file", "parse to a binary file"};
	for (size_t i = 0; i < 3; i++) {
		op o;
		load(&o, names[i], _i);
		tu_scratch_dir(o.dir, "failalloc");
		o.run = runs[i], o.check = check_file;
		reset_file(&o);
		sweep(&o, save_file, true);
		tu_remove_tree(o.dir);
		unload(&o);
	}
}
END_TEST

START_TEST(t_external)
{
	op o;
	load(&o, "external data", _i);
	tu_scratch_dir(o.dir, "failalloc");
	o.run = run_externalize, o.check = check_packed, o.clean = free_model_out;
	sweep(&o, save_packed, false);
	/* a data file for embedding, and the model that refers to it */
	OnnxError err;
	Onnx__ModelProto *m;
	ck_assert_int_eq(OnnxBinary_Read(o.bytes, o.nbytes, &m, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, model_path(&o), "weights.bin", 16, &err), ONNXTXT_OK);
	free(o.bytes);
	o.bytes = tu_pack(m, &o.nbytes);
	OnnxProto_Free(m);
	o.name = "embedding external data";
	o.run = run_embed;
	sweep(&o, save_packed, false);
	tu_remove_tree(o.dir);
	unload(&o);
}
END_TEST

static void add(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 300);
	_tcase_add_test(tc, test, 0, 0, 0, (int)NINPUTS);
	suite_add_tcase(s, tc);
}

int main(void)
{
	Suite *s = suite_create("failalloc");
	add(s, "parse", t_parse);
	add(s, "parse to binary", t_stream);
	add(s, "parse errors", t_parse_errors);
	add(s, "binary read", t_read);
	add(s, "binary write", t_write);
	add(s, "print", t_print);
	add(s, "files", t_files);
	add(s, "external data", t_external);
	TCase *tc = tcase_create("evaluation");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, t_eval);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
