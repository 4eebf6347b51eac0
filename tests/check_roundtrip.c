/* Round trips through text. Every shared backend model: binary -> text -> binary gives
 * the original bytes. Every valid corpus file: print(parse(f)) is a fixed point, and
 * both parses serialize alike; without annotations the text still parses. All printed
 * text has the canonical layout: no trailing spaces, a final newline. Every golden
 * corpus file prints exactly as its .txt files (one per flag set) say. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char **backend, **corpus, **golden;
static char corpus_dir[4096], golden_dir[4096];

/* No line ends in a space, and the text ends with a newline. */
static void check_layout(const char *text, size_t len, const char *name)
{
	ck_assert_msg(len > 0 && text[len - 1] == '\n', "%s: printed text does not end with a newline", name);
	for (size_t i = 1, line = 1; i < len; i++) {
		if (text[i] == '\n') {
			ck_assert_msg(text[i - 1] != ' ', "%s: printed line %zu ends in a space", name, line);
			line++;
		}
	}
}

static char *print_or_fail(const void *m, unsigned flags, size_t *len, const char *name)
{
	char *text = NULL;
	OnnxError err;
	OnnxStatus st = OnnxPrinter_Print(m, flags, &text, len, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%s: print failed: %s", name, err.message);
	check_layout(text, *len, name);
	return text;
}

static void *parse_or_fail(const char *kind, const char *text, size_t len, const char *name)
{
	void *m = NULL;
	OnnxError err;
	OnnxStatus st = tu_parse(kind, text, len, &m, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%s: printed text does not parse: %u:%u: %s", name, err.line, err.column,
		      err.message);
	return m;
}

START_TEST(backend_binary_text_binary)
{
	const char *path = backend[_i];
	size_t n;
	char *bytes = tu_read(path, &n);
	ck_assert_msg(bytes, "cannot read %s", path);
	Onnx__ModelProto *m;
	ck_assert_int_eq(OnnxBinary_Read(bytes, n, &m, NULL), ONNXTXT_OK);
	size_t tlen;
	char *text = print_or_fail(m, 0, &tlen, path);
	Onnx__ModelProto *back = parse_or_fail("model", text, tlen, path);
	size_t n2;
	unsigned char *again = tu_pack(back, &n2);
	ck_assert_msg(n2 == n && memcmp(again, bytes, n) == 0, "%s: text -> binary differs from the original", path);
	/* without annotations the text is plainer but still valid */
	size_t plen;
	char *plain = print_or_fail(m, ONNXTXT_PRINT_NO_ANNOTATIONS, &plen, path);
	OnnxProto_Free(parse_or_fail("model", plain, plen, path));
	free(plain);
	free(again);
	free(text);
	free(bytes);
	OnnxProto_Free(back);
	OnnxProto_Free(m);
}
END_TEST

static const char *entry_of(const char *text)
{
	static char kind[32];
	const char *p = strstr(text, "# entry: ");
	if (!p)
		return "model";
	sscanf(p + 9, "%31s", kind);
	return kind;
}

START_TEST(corpus_fixed_point)
{
	const char *name = corpus[_i];
	size_t len;
	char *text = tu_read(tu_path(corpus_dir, name), &len);
	char kind[32];
	snprintf(kind, sizeof kind, "%s", entry_of(text));
	void *first = parse_or_fail(kind, text, len, name);
	if (strcmp(kind, "nodes") == 0)
		strcpy(kind, "graph"); /* a node list comes back in a graph, and prints as one */
	size_t l1, l2;
	char *t1 = print_or_fail(first, 0, &l1, name);
	void *second = parse_or_fail(kind, t1, l1, name);
	char *t2 = print_or_fail(second, 0, &l2, name);
	ck_assert_msg(l1 == l2 && memcmp(t1, t2, l1) == 0, "%s: printing is not idempotent:\n%s\n---\n%s", name, t1, t2);
	size_t b1, b2;
	unsigned char *p1 = tu_pack(first, &b1), *p2 = tu_pack(second, &b2);
	ck_assert_msg(b1 == b2 && memcmp(p1, p2, b1) == 0, "%s: the reparsed text is another message", name);
	size_t pl;
	char *plain = print_or_fail(first, ONNXTXT_PRINT_NO_ANNOTATIONS, &pl, name);
	OnnxProto_Free(parse_or_fail(kind, plain, pl, name));
	free(plain);
	free(p1);
	free(p2);
	free(t1);
	free(t2);
	free(text);
	OnnxProto_Free(first);
	OnnxProto_Free(second);
}
END_TEST

/* corpus/golden/NAME.onnxtxt prints as NAME.txt, and with flags as NAME.FLAG.txt when
 * that file exists; each expected text is itself a fixed point. */
START_TEST(golden_output)
{
	static const struct {
		const char *suffix;
		unsigned flags;
	} variants[] = {{".txt", 0},
			{".no-annotations.txt", ONNXTXT_PRINT_NO_ANNOTATIONS},
			{".float-literals.txt", ONNXTXT_PRINT_FLOAT_LITERALS}};
	const char *name = golden[_i];
	size_t len;
	char *text = tu_read(tu_path(golden_dir, name), &len);
	void *m = parse_or_fail(entry_of(text), text, len, name);
	size_t stem = strlen(name) - strlen(".onnxtxt");
	int found = 0;
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
		char want_name[512];
		snprintf(want_name, sizeof want_name, "%.*s%s", (int)stem, name, variants[v].suffix);
		size_t wlen;
		char *want = tu_read(tu_path(golden_dir, want_name), &wlen);
		if (!want) {
			ck_assert_msg(v > 0, "%s: no expected output %s", name, want_name);
			continue;
		}
		found++;
		size_t glen;
		char *got = print_or_fail(m, variants[v].flags, &glen, want_name);
		ck_assert_msg(glen == wlen && memcmp(got, want, wlen) == 0, "%s differs from the printed text:\n%s", want_name,
			      got);
		void *again = parse_or_fail("model", want, wlen, want_name);
		size_t alen;
		char *reprinted = print_or_fail(again, variants[v].flags, &alen, want_name);
		ck_assert_msg(alen == wlen && memcmp(reprinted, want, wlen) == 0, "%s is not a fixed point", want_name);
		free(reprinted);
		OnnxProto_Free(again);
		free(got);
		free(want);
	}
	ck_assert_int_ge(found, 1);
	OnnxProto_Free(m);
	free(text);
}
END_TEST

static char *names[4096];
static int nnames;

static void add_cases(Suite *s, char **files, const char *prefix, const TTest *test)
{
	for (int i = 0; files[i] && nnames < 4096; i++) {
		const char *shown = files[i];
		const char *cut = strstr(shown, "onnx-backend-data/");
		if (asprintf(&names[nnames], "%s%s", prefix, cut ? cut + 18 : shown) < 0)
			abort();
		TCase *tc = tcase_create(names[nnames++]);
		tcase_set_timeout(tc, 120);
		_tcase_add_test(tc, test, 0, 0, i, i + 1);
		suite_add_tcase(s, tc);
	}
}

int main(void)
{
	snprintf(corpus_dir, sizeof corpus_dir, "%s", tu_path(tu_source_root(), "corpus/valid"));
	corpus = tu_list(corpus_dir, ".onnxtxt");
	snprintf(golden_dir, sizeof golden_dir, "%s", tu_path(tu_source_root(), "corpus/golden"));
	golden = tu_list(golden_dir, ".onnxtxt");
	char data[4096];
	snprintf(data, sizeof data, "%s", tu_path(tu_shared(), "onnx-backend-data"));
	backend = tu_find(data, "model.onnx");
	Suite *s = suite_create("roundtrip");
	add_cases(s, backend, "backend/", backend_binary_text_binary);
	add_cases(s, corpus, "valid/", corpus_fixed_point);
	add_cases(s, golden, "golden/", golden_output);
	int rc = tu_run(s);
	tu_free_list(backend);
	tu_free_list(corpus);
	tu_free_list(golden);
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	return rc;
}
