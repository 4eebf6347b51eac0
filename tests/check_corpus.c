/* Corpus loops: every file in corpus/valid must parse (and survive a pack/unpack round
 * trip); every file in corpus/errors must fail with exactly the "LINE:COL: MESSAGE" its
 * first line names. Each file is its own test case. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char **valid, **errors;
static char valid_dir[4096], errors_dir[4096];

/* Value of a "# key: value" line in the file's leading comment block, or NULL. */
static char *directive(const char *text, const char *key)
{
	static char buf[600];
	size_t k = strlen(key);
	for (const char *p = text; *p == '#';) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > k + 3 && strncmp(p + 2, key, k) == 0 && p[2 + k] == ':') {
			const char *v = p + 3 + k;
			while (*v == ' ')
				v++;
			snprintf(buf, sizeof buf, "%.*s", (int)(n - (size_t)(v - p)), v);
			return buf;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return NULL;
}

static const char *entry_of(const char *text)
{
	const char *e = directive(text, "entry");
	return e ? e : "model";
}

START_TEST(parses)
{
	const char *name = valid[_i];
	size_t len;
	char *text = tu_read(tu_path(valid_dir, name), &len);
	ck_assert_msg(text, "cannot read %s", name);
	char kind[32];
	snprintf(kind, sizeof kind, "%s", entry_of(text));
	void *msg = NULL;
	OnnxError err;
	OnnxStatus st = tu_parse(kind, text, len, &msg, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%s:%u:%u: %s", name, err.line, err.column, err.message);
	if (strcmp(kind, "model") == 0) {
		size_t n;
		unsigned char *bytes = tu_pack(msg, &n);
		Onnx__ModelProto *back;
		ck_assert_int_eq(OnnxBinary_Read(bytes, n, &back, &err), ONNXTXT_OK);
		size_t n2;
		unsigned char *again = tu_pack(back, &n2);
		ck_assert_msg(n == n2 && memcmp(bytes, again, n) == 0, "%s: pack/unpack/pack differs", name);
		free(bytes);
		free(again);
		OnnxProto_Free(back);
	}
	OnnxProto_Free(msg);
	free(text);
}
END_TEST

START_TEST(fails_as_expected)
{
	const char *name = errors[_i];
	size_t len;
	char *text = tu_read(tu_path(errors_dir, name), &len);
	ck_assert_msg(text, "cannot read %s", name);
	char want[600];
	const char *w = directive(text, "error");
	ck_assert_msg(w, "%s: first lines must say '# error: LINE:COL: MESSAGE'", name);
	snprintf(want, sizeof want, "%s", w);
	char kind[32];
	snprintf(kind, sizeof kind, "%s", entry_of(text));
	void *msg = NULL;
	OnnxError err;
	OnnxStatus st = tu_parse(kind, text, len, &msg, &err);
	ck_assert_msg(st != ONNXTXT_OK, "%s: parsed, but should fail with: %s", name, want);
	char got[700];
	snprintf(got, sizeof got, "%u:%u: %s", err.line, err.column, err.message);
	ck_assert_msg(strcmp(got, want) == 0, "%s:\n  want %s\n  got  %s", name, want, got);
	free(text);
}
END_TEST

/* Check keeps the names without owning them; they are freed after the run. */
static char *names[4096];
static int nnames;

static void add_cases(Suite *s, char **files, const char *dir, const TTest *test)
{
	for (int i = 0; files[i] && nnames < 4096; i++) {
		if (asprintf(&names[nnames], "%s/%s", dir, files[i]) < 0)
			abort();
		TCase *tc = tcase_create(names[nnames++]);
		_tcase_add_test(tc, test, 0, 0, i, i + 1);
		suite_add_tcase(s, tc);
	}
}

int main(void)
{
	snprintf(valid_dir, sizeof valid_dir, "%s", tu_path(tu_source_root(), "corpus/valid"));
	snprintf(errors_dir, sizeof errors_dir, "%s", tu_path(tu_source_root(), "corpus/errors"));
	valid = tu_list(valid_dir, ".onnxtxt");
	errors = tu_list(errors_dir, ".onnxtxt");
	Suite *s = suite_create("corpus");
	add_cases(s, valid, "valid", parses);
	add_cases(s, errors, "errors", fails_as_expected);
	int rc = tu_run(s);
	tu_free_list(valid);
	tu_free_list(errors);
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	return rc;
}
