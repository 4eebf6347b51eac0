/* Unit tests for src/diag.c: byte offsets to line:column (columns count UTF-8
 * characters, a tab counts one), OnnxError_Format (GNU style, the source line, a caret
 * and '~' under the offending span), and syntax messages end to end. Expectations follow
 * SYNTAX-DECISIONS.md §E and the API contract in include/onnxtxt/onnxtxt.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "testutil.h"

/* ---- ox_locate -------------------------------------------------------------------------- */

static const struct {
	const char *text;
	size_t off;
	unsigned line, col;
} locations[] = {
	{"", 0, 1, 1},
	{"abc\ndef", 0, 1, 1},
	{"abc\ndef", 2, 1, 3},
	{"abc\ndef", 3, 1, 4}, /* the newline itself ends line 1 */
	{"abc\ndef", 4, 2, 1},
	{"abc\ndef", 7, 2, 4},   /* end of input */
	{"abc\ndef", 100, 2, 4}, /* beyond the end: clamped */
	{"\n\n\n", 3, 4, 1},
	{"\tx", 1, 1, 2},           /* a tab is one column */
	{"\t\t x", 3, 1, 4},
	{"\xc3\xa9 x", 3, 1, 3},    /* é: 2 bytes, 1 character */
	{"\xe4\xb8\xadx", 3, 1, 2}, /* 中: 3 bytes */
	{"\xf0\x9f\x98\x80x", 4, 1, 2}, /* 😀: 4 bytes */
	{"a\n\"\xc3\xa9\xe4\xb8\xad\" x", 10, 2, 6},
	{"a\r\nb", 1, 1, 2}, /* CR is an ordinary character */
	{"a\r\nb", 3, 2, 1},
	{"a\rb", 2, 2, 1},   /* a lone CR ends a line (CR-only files) */
	{"a\rb", 1, 1, 2},
	{"a\r\rb", 3, 3, 1},
	{"\xef\xbb\xbf" "ab", 4, 1, 2}, /* a byte-order mark is not a column */
	{"\xef\xbb\xbf" "ab", 3, 1, 1},
	{"\xef\xbb\xbf", 0, 1, 1},
};

START_TEST(locate)
{
	unsigned line = 0, col = 0;
	ox_locate(locations[_i].text, strlen(locations[_i].text), locations[_i].off, &line, &col);
	ck_assert_msg(line == locations[_i].line && col == locations[_i].col, "'%s' at %zu: %u:%u, want %u:%u",
		      locations[_i].text, locations[_i].off, line, col, locations[_i].line, locations[_i].col);
}
END_TEST

/* ---- OnnxError_Format --------------------------------------------------------------------- */

/* An error at byte offset off, length n, of text, with its position filled in. */
static OnnxError at(const char *text, size_t off, size_t n, const char *msg)
{
	OnnxError e;
	memset(&e, 0, sizeof e);
	e.code = ONNXTXT_ERR_SYNTAX;
	e.offset = off;
	e.length = n;
	snprintf(e.message, sizeof e.message, "%s", msg);
	ox_locate(text, strlen(text), off, &e.line, &e.column);
	return e;
}

static void expect_format(const OnnxError *e, const char *file, const char *text, const char *want)
{
	char buf[4096];
	size_t n = OnnxError_Format(e, file, text, text ? strlen(text) : 0, buf, sizeof buf);
	ck_assert_msg(strcmp(buf, want) == 0, "got:\n%s\nwant:\n%s", buf, want);
	ck_assert_uint_eq(n, strlen(want));
}

START_TEST(format_without_position)
{
	OnnxError e;
	memset(&e, 0, sizeof e);
	e.code = ONNXTXT_ERR_NOMEM;
	strcpy(e.message, "out of memory");
	expect_format(&e, NULL, NULL, "<stdin>: error: out of memory\n");
	expect_format(&e, "m.onnxtxt", NULL, "m.onnxtxt: error: out of memory\n");
	/* with text but no position: no source line */
	expect_format(&e, "m.onnxtxt", "g () => () {}", "m.onnxtxt: error: out of memory\n");
}
END_TEST

START_TEST(format_caret)
{
	const char *t = "g (x) => (y) {}";
	OnnxError e = at(t, 6, 2, "msg");
	expect_format(&e, "f.onnxtxt", t, "f.onnxtxt:1:7: error: msg\ng (x) => (y) {}\n      ^~\n");
	e = at(t, 0, 1, "first");
	expect_format(&e, NULL, t, "<stdin>:1:1: error: first\ng (x) => (y) {}\n^\n");
	e = at(t, 14, 1, "last");
	expect_format(&e, NULL, t, "<stdin>:1:15: error: last\ng (x) => (y) {}\n              ^\n");
	/* a zero-length span still gets its caret */
	e = at(t, 3, 0, "empty");
	expect_format(&e, NULL, t, "<stdin>:1:4: error: empty\ng (x) => (y) {}\n   ^\n");
	/* the line of the error, not the first or last line */
	const char *m = "a\nbb = cc\nd";
	e = at(m, 7, 2, "middle");
	expect_format(&e, NULL, m, "<stdin>:2:6: error: middle\nbb = cc\n     ^~\n");
}
END_TEST

/* A span running past the end of its line (a string with a newline) is cut there. */
START_TEST(format_span_clipped)
{
	const char *t = "x = \"ab\ncd\" y";
	OnnxError e = at(t, 4, 7, "span");
	expect_format(&e, NULL, t, "<stdin>:1:5: error: span\nx = \"ab\n    ^~~\n");
	const char *u = "abc";
	e = at(u, 1, 50, "long");
	expect_format(&e, NULL, u, "<stdin>:1:2: error: long\nabc\n ^~\n");
}
END_TEST

/* A very long line (a whole model on one line) is shown 200 bytes either side of the
 * place, cut with "...", so that 100 problems on it do not print it 100 times whole; a
 * warning says so. */
START_TEST(format_long_line)
{
	static char t[1200];
	memset(t, 'a', sizeof t - 1);
	memcpy(t + 600, "XY", 2);
	OnnxError e = at(t, 600, 2, "here");
	char want[1024], line[101];
	memcpy(line, t + 560, 100); /* 40 characters before the caret, 100 in all */
	line[100] = '\0';
	snprintf(want, sizeof want, "<stdin>:1:601: error: here\n...%s...\n%*s^~\n", line, 43, "");
	expect_format(&e, NULL, t, want);
	e = at(t, 0, 1, "start");
	memcpy(line, t, 100);
	snprintf(want, sizeof want, "<stdin>:1:1: error: start\n%s...\n^\n", line);
	expect_format(&e, NULL, t, want);
	e.code = ONNXTXT_WARNING;
	snprintf(want, sizeof want, "<stdin>:1:1: warning: start\n%s...\n^\n", line);
	expect_format(&e, NULL, t, want);
}
END_TEST

/* Tabs are kept in the caret line so that the caret lines up however tabs are shown. */
START_TEST(format_tabs)
{
	const char *t = "\tx =\t@r";
	OnnxError e = at(t, 5, 2, "tab");
	ck_assert_uint_eq(e.column, 6);
	expect_format(&e, NULL, t, "<stdin>:1:6: error: tab\n\tx =\t@r\n\t   \t^~\n");
}
END_TEST

/* Columns and the caret count characters, not bytes, both before and inside the span. */
START_TEST(format_utf8)
{
	const char *t = "\"\xc3\xa9\xe4\xb8\xad\" x";
	OnnxError e = at(t, 8, 1, "after");
	ck_assert_uint_eq(e.column, 6);
	expect_format(&e, NULL, t, "<stdin>:1:6: error: after\n\"\xc3\xa9\xe4\xb8\xad\" x\n     ^\n");
	e = at(t, 0, 7, "inside");
	expect_format(&e, NULL, t, "<stdin>:1:1: error: inside\n\"\xc3\xa9\xe4\xb8\xad\" x\n^~~~\n");
	const char *u = "a \xf0\x9f\x98\x80\xf0\x9f\x98\x80 b";
	e = at(u, 11, 1, "emoji");
	expect_format(&e, NULL, u, "<stdin>:1:6: error: emoji\na \xf0\x9f\x98\x80\xf0\x9f\x98\x80 b\n     ^\n");
}
END_TEST

/* What OnnxError_Format writes is UTF-8: a message quoting a name of a binary model, or a
 * source line, that holds a byte that is not shows U+FFFD in its place. */
START_TEST(format_invalid_utf8)
{
	OnnxError e;
	memset(&e, 0, sizeof e);
	e.code = ONNXTXT_ERR_INVALID;
	snprintf(e.message, sizeof e.message, "input 'x\xff\xc3' (\xe4\xb8\xad) is not defined");
	expect_format(&e, "m.onnx", NULL, "m.onnx: error: input 'x\xef\xbf\xbd\xef\xbf\xbd' (\xe4\xb8\xad) is not defined\n");
	const char *t = "y = Relu(\"x\xff\") # \xed\xa0\x80";
	e = at(t, 11, 1, "bad byte");
	expect_format(&e, NULL, t,
		      "<stdin>:1:12: error: bad byte\ny = Relu(\"x\xef\xbf\xbd\") # \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n"
		      "           ^\n");
}
END_TEST

/* At the end of the input the caret stands just past the last character. */
START_TEST(format_end_of_input)
{
	const char *t = "g () => () {";
	OnnxError e = at(t, 12, 0, "eof");
	expect_format(&e, NULL, t, "<stdin>:1:13: error: eof\ng () => () {\n            ^\n");
	/* after a final newline the end is on the (empty) next line */
	const char *u = "g () => () {\n";
	e = at(u, 13, 0, "eof");
	expect_format(&e, NULL, u, "<stdin>:2:1: error: eof\n\n^\n");
	/* an offset beyond the text: the header only */
	e = at(t, 12, 0, "beyond");
	e.offset = 99;
	expect_format(&e, NULL, t, "<stdin>:1:13: error: beyond\n");
	/* empty text */
	e = at("", 0, 0, "empty");
	expect_format(&e, NULL, "", "<stdin>:1:1: error: empty\n\n^\n");
}
END_TEST

/* CRLF files: the line and column are right, and the echoed line ends before its CR. */
START_TEST(format_crlf)
{
	const char *t = "a = 1\r\nb = @\r\nc";
	OnnxError e = at(t, 11, 1, "crlf");
	ck_assert_uint_eq(e.line, 2);
	ck_assert_uint_eq(e.column, 5);
	expect_format(&e, NULL, t, "<stdin>:2:5: error: crlf\nb = @\n    ^\n");
	e = at(t, 14, 1, "last line");
	expect_format(&e, NULL, t, "<stdin>:3:1: error: last line\nc\n^\n");
}
END_TEST

/* Like snprintf: the return value is the length needed; a short buffer gets a prefix of
 * the output, always NUL-terminated; size 0 writes nothing. */
START_TEST(format_short_buffer)
{
	const char *t = "g (\xc3\xa9 x) => (y) {}";
	OnnxError e = at(t, 9, 2, "a message");
	char full[512];
	size_t need = OnnxError_Format(&e, "file.onnxtxt", t, strlen(t), full, sizeof full);
	ck_assert_uint_eq(need, strlen(full));
	ck_assert_uint_gt(need, 40);
	ck_assert_uint_eq(OnnxError_Format(&e, "file.onnxtxt", t, strlen(t), NULL, 0), need);
	for (size_t size = 1; size <= need + 2; size++) {
		char *buf = malloc(size); /* exactly sized: ASan catches any write past it */
		memset(buf, 'Z', size);
		size_t n = OnnxError_Format(&e, "file.onnxtxt", t, strlen(t), buf, size);
		ck_assert_msg(n == need, "size %zu: returned %zu, want %zu", size, n, need);
		size_t kept = size - 1 < need ? size - 1 : need;
		ck_assert_msg(buf[kept] == '\0', "size %zu: not terminated", size);
		ck_assert_msg(memcmp(buf, full, kept) == 0, "size %zu: not a prefix", size);
		free(buf);
	}
	char one = 'Z';
	ck_assert_uint_eq(OnnxError_Format(&e, NULL, t, strlen(t), &one, 1),
			  OnnxError_Format(&e, NULL, t, strlen(t), NULL, 0));
	ck_assert_int_eq(one, '\0');
}
END_TEST

/* The longest message the struct holds comes out whole. */
START_TEST(format_long_message)
{
	OnnxError e;
	memset(&e, 0, sizeof e);
	memset(e.message, 'm', sizeof e.message - 1);
	e.line = 1;
	e.column = 1;
	char want[1024];
	snprintf(want, sizeof want, "x.onnxtxt:1:1: error: %s\nabc\n^\n", e.message);
	expect_format(&e, "x.onnxtxt", "abc", want);
}
END_TEST

/* A file name of any length comes out whole, with the position and message after it. */
START_TEST(format_long_file_name)
{
	char name[1001], want[1100];
	memset(name, 'f', 1000);
	name[1000] = '\0';
	OnnxError e = at("abc", 1, 1, "m");
	snprintf(want, sizeof want, "%s:1:2: error: m\nabc\n ^\n", name);
	expect_format(&e, name, "abc", want);
}
END_TEST

/* A long line is shown as a window of 100 characters around the caret with "..." where it
 * was cut (40 characters before the caret when there are that many), so an error in a 5 MB
 * one-line model prints a few hundred bytes, not the line and 5 MB of spaces. */
START_TEST(format_long_line_clipped)
{
	size_t len = 5u << 20;
	char *t = malloc(len + 1);
	for (size_t i = 0; i < len; i++)
		t[i] = (char)('a' + i % 26);
	t[len] = '\0';
	OnnxError e = at(t, len / 2, 3, "middle");
	char want[512], *buf = malloc(1024);
	size_t ws = len / 2 - 40;
	int n = snprintf(want, sizeof want, "<stdin>:1:%zu: error: middle\n...%.100s...\n%44s~~\n", len / 2 + 1,
			 t + ws, "^");
	ck_assert_uint_eq(OnnxError_Format(&e, NULL, t, len, buf, 1024), (size_t)n);
	ck_assert_str_eq(buf, want);
	/* near the start: no "..." before; near the end: the window ends with the line */
	e = at(t, 10, 1, "start");
	snprintf(want, sizeof want, "<stdin>:1:11: error: start\n%.100s...\n%11s\n", t, "^");
	OnnxError_Format(&e, NULL, t, len, buf, 1024);
	ck_assert_str_eq(buf, want);
	e = at(t, len - 5, 9, "end");
	snprintf(want, sizeof want, "<stdin>:1:%zu: error: end\n...%s\n%99s~~~~\n", len - 4, t + len - 100, "^");
	OnnxError_Format(&e, NULL, t, len, buf, 1024);
	ck_assert_str_eq(buf, want);
	free(buf);
	free(t);
}
END_TEST

/* The window counts characters, not bytes, and never cuts a UTF-8 sequence; a line of
 * exactly 100 characters is shown whole. */
START_TEST(format_long_line_utf8)
{
	char t[1024] = "", want[2048];
	for (int i = 0; i < 150; i++)
		strcat(t, "\xc3\xa9"); /* 150 x 'é', 300 bytes */
	OnnxError e = at(t, 200, 2, "utf8");
	ck_assert_uint_eq(e.column, 101);
	char body[512] = "";
	for (int i = 0; i < 100; i++)
		strcat(body, "\xc3\xa9");
	snprintf(want, sizeof want, "<stdin>:1:101: error: utf8\n...%s\n%54s\n", body, "^");
	expect_format(&e, NULL, t, want);
	t[200] = '\0'; /* 100 characters */
	e = at(t, 0, 2, "whole");
	snprintf(want, sizeof want, "<stdin>:1:1: error: whole\n%s\n^\n", t);
	expect_format(&e, NULL, t, want);
}
END_TEST

/* A UTF-8 byte-order mark at the start is skipped: the text parses, and positions and
 * the echoed line are as without it. */
START_TEST(byte_order_mark)
{
	Onnx__GraphProto *g;
	OnnxError e;
	const char *ok = "\xef\xbb\xbf" "g () => () {}";
	ck_assert_int_eq(OnnxParser_ParseGraph(ok, strlen(ok), &g, &e), ONNXTXT_OK);
	OnnxProto_Free(g);
	const char *bad = "\xef\xbb\xbf" "g (x => (y) {}";
	ck_assert_int_eq(OnnxParser_ParseGraph(bad, strlen(bad), &g, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(e.line, 1);
	ck_assert_uint_eq(e.column, 6);
	ck_assert_uint_eq(e.offset, 8);
	char buf[256];
	OnnxError_Format(&e, NULL, bad, strlen(bad), buf, sizeof buf);
	ck_assert_str_eq(buf, "<stdin>:1:6: error: expected ')', ',' or '=' after 'x', found '=>'\n"
			      "g (x => (y) {}\n"
			      "     ^~\n");
	/* only at the start: elsewhere it is an unexpected character */
	const char *mid = "g () => () {}\xef\xbb\xbf";
	ck_assert_int_eq(OnnxParser_ParseGraph(mid, strlen(mid), &g, &e), ONNXTXT_ERR_SYNTAX);
}
END_TEST

/* CR-only line ends (old Mac files) count as lines, and end comments and annotations. */
START_TEST(cr_only_lines)
{
	Onnx__GraphProto *g;
	OnnxError e;
	const char *t = "# a comment\rg (x) => (y)\r{\r  y = Foo <a = 1e> (x)\r}";
	ck_assert_int_eq(OnnxParser_ParseGraph(t, strlen(t), &g, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(e.line, 4);
	ck_assert_uint_eq(e.column, 16);
	char buf[256];
	OnnxError_Format(&e, "m.onnxtxt", t, strlen(t), buf, sizeof buf);
	ck_assert_str_eq(buf, "m.onnxtxt:4:16: error: malformed number: the exponent has no digits\n"
			      "  y = Foo <a = 1e> (x)\n"
			      "               ^~\n");
	const char *ok = "# c\r#@ doc_string: \"d\"\rg (x) => (y)\r{\r  y = Relu (x)\r}\r";
	ck_assert_int_eq(OnnxParser_ParseGraph(ok, strlen(ok), &g, &e), ONNXTXT_OK);
	ck_assert_str_eq(g->doc_string, "d");
	ck_assert_uint_eq(g->n_node, 1);
	OnnxProto_Free(g);
}
END_TEST

/* ---- syntax messages, end to end ------------------------------------------------------------ */

static const struct {
	const char *kind, *text, *want;
} messages[] = {
	/* '=>' written with a space */
	{"model", "g (x) = > (y) {}",
	 "1:7: expected '=>' after ')', found '='; '=>' is one token, write it without a space"},
	/* single quotes */
	{"model", "<ir_version: 8, opset_import: ['': 18]> g () => () {}",
	 "1:32: strings use double quotes, not '"},
	{"graph", "g (float[N] x) => (y) { y = Foo <s = 'a'> (x) }", "1:38: strings use double quotes, not '"},
	/* misspelled element type and header keys */
	{"model", "g (flaot16[N] x) => (y) {}",
	 "1:11: expected ')', ',' or '=' after 'flaot16', found '['; did you mean 'float16'?"},
	{"graph", "g () => () { y = Foo <t = flaot[2] {1, 2}> (x) }",
	 "1:32: expected '(' or '=>' after 'flaot', found '['; did you mean 'float'?"},
	{"model", "<ir_verson: 8> g () => () {}",
	 "1:2: expected 'ir_version', 'opset_import', 'producer_name', 'producer_version', 'domain', "
	 "'model_version', 'doc_string' or 'metadata_props' after '<', found 'ir_verson'; did you mean "
	 "'ir_version'?"},
	{"function", "<domian: \"x\"> f () => () {}",
	 "1:2: expected 'opset_import', 'domain', 'doc_string' or 'overload' after '<', found 'domian'; did you "
	 "mean 'domain'?"},
	/* found vs expected */
	{"model", "g (x => (y) {}", "1:6: expected ')', ',' or '=' after 'x', found '=>'"},
	{"model", "g () => () { y = Foo(X Add) }", "1:24: expected ')' or ',' after 'X', found 'Add'"},
	{"graph", "g () => () {", "1:13: expected '[', '}', ',', '=', an identifier or a string after '{', found end of input"},
	{"graph", "g () => (float) {}", "1:15: expected '[', an identifier or a string after 'float', found ')'; to name a value 'float', "
	 "quote it: \"float\""},
	/* trailing text (P3) */
	{"graph", "g () => () {} x", "1:15: expected end of input after '}', found 'x'"},
	{"function", "f () => () {} g", "1:15: expected end of input after '}', found 'g'"},
	{"node", "y = Relu(x) z", "1:13: expected end of input or '<' after ')', found 'z'"},
	/* lexical errors */
	{"graph", "g () => () { y = Foo <a = \"abc> (x) }",
	 "1:27: unterminated string: no closing '\"' before the end of input"},
	{"graph", "g () => () { y = Foo <a = - 2> (x) }", "1:27: '-' must be followed directly by a number, with no space"},
	{"graph", "g () => () { y = Foo <a = 1e> (x) }", "1:27: malformed number: the exponent has no digits"},
	{"graph", "g (\xc3\xa9) => () {}", "1:4: unexpected character '\xc3\xa9'"},
	/* values (P2, P3) */
	{"graph", "g () => () { y = Foo <a = 9223372036854775808> (x) }",
	 "1:27: integer 9223372036854775808 does not fit in 64 bits"},
	{"graph", "g () => () { y = Foo <a = 3e40> (x) }", "1:27: 3e40 is out of range for a float"},
	{"graph", "g () => () { y = Foo <a = []> (x) }", "1:27: an empty list needs a type annotation, as in 'a: ints = []'"},
	{"graph", "g () => () { y = Foo <a: ints = 5> (x) }",
	 "1:33: attribute 'a' is declared 'ints' but its value is an integer"},
	{"graph", "g (float[2] w = {1}) => () {}", "1:17: the tensor has 1 value but its shape needs 2"},
	{"graph", "g (int8[1] w = {300}) => () {}", "1:17: value 300 is out of range for int8"},
	/* positions: UTF-8 before the token, tabs, later lines */
	{"graph", "g (\"\xc3\xa9\xe4\xb8\xad\" x) => () {}",
	 "1:9: expected ')', ',' or '=' after '\"\xc3\xa9\xe4\xb8\xad\"', found 'x'"},
	/* a long token is cut on a character boundary */
	{"graph", "g (\"\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad"
		  "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\" x) => () {}",
	 "1:19: expected ')', ',' or '=' after '\"\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad"
	 "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad...', found 'x'"},
	{"graph", "g\t(x) =>\t(y) {\n\ty = Foo(x) <a = 1.5.3>\n}", "2:18: malformed number '1.5.3': a number has at most one '.'"},
};

START_TEST(syntax_messages)
{
	const char *got = tu_error(messages[_i].kind, messages[_i].text);
	ck_assert_msg(strcmp(got, messages[_i].want) == 0, "%s '%s':\n  got  %s\n  want %s", messages[_i].kind,
		      messages[_i].text, got, messages[_i].want);
}
END_TEST

/* The error struct: code, position, byte range, and the rendered form. */
START_TEST(error_struct_end_to_end)
{
	const char *t = "g (x) => (y)\n{\n  y = Foo <a = 1e> (x)\n}";
	void *out = (void *)1;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_ParseGraph(t, strlen(t), (Onnx__GraphProto **)&out, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(e.line, 3);
	ck_assert_uint_eq(e.column, 16);
	ck_assert_uint_eq(e.offset, strstr(t, "1e") - t);
	ck_assert_uint_eq(e.length, 2);
	char buf[512];
	OnnxError_Format(&e, "m.onnxtxt", t, strlen(t), buf, sizeof buf);
	ck_assert_str_eq(buf, "m.onnxtxt:3:16: error: malformed number: the exponent has no digits\n"
			      "  y = Foo <a = 1e> (x)\n"
			      "               ^~\n");
	/* a value error has the value's span and ONNXTXT_ERR_VALUE */
	const char *u = "g () => () { y = Foo <a = 99999999999999999999> (x) }";
	ck_assert_int_eq(OnnxParser_ParseGraph(u, strlen(u), (Onnx__GraphProto **)&out, &e), ONNXTXT_ERR_VALUE);
	ck_assert_uint_eq(e.offset, 26);
	ck_assert_uint_eq(e.length, 20);
	/* a NUL byte outside a string is an error, not the end of the input (P3) */
	static const char nul[] = "g () => () {}\0 junk";
	ck_assert_int_eq(OnnxParser_ParseGraph(nul, sizeof nul - 1, (Onnx__GraphProto **)&out, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(e.offset, 13);
	ck_assert_str_eq(e.message, "NUL byte outside a string literal");
	/* nesting limit (P5) */
	char deep[400] = "";
	for (int i = 0; i < 70; i++)
		strcat(deep, "seq(");
	strcat(deep, "float");
	for (int i = 0; i < 70; i++)
		strcat(deep, ")");
	ck_assert_int_eq(OnnxParser_ParseType(deep, strlen(deep), (Onnx__TypeProto **)&out, &e), ONNXTXT_ERR_LIMIT);
	ck_assert_uint_eq(e.offset, 4 * 65 - 1); /* the 65th '(' */
	ck_assert_str_eq(e.message, "nesting too deep: more than 64 levels of brackets");
	/* no error struct: the status alone */
	ck_assert_int_eq(OnnxParser_ParseGraph(u, strlen(u), (Onnx__GraphProto **)&out, NULL), ONNXTXT_ERR_VALUE);
}
END_TEST

/* Hints and fix-its as fields of their own, for --diagnostics-format: the replacement and
 * the bytes it replaces, which need not be where the error is. */
static const struct {
	const char *text, *hint, *replaced, *fix;
} fixits[] = {
	/* the misspelled word is the offending token */
	{"<ir_verson: 8>\ng () => () {}", "did you mean 'ir_version'?", "ir_verson", "ir_version"},
	/* the type before the '[' the error is at */
	{"g (flaot16[3] x) => () {}", "did you mean 'float16'?", "flaot16", "float16"},
	{"g (long[3] x) => () {}", "did you mean 'int64'?", "long", "int64"},
	/* an alias of two types has a hint but no single fix-it */
	{"g (int[3] x) => () {}", "did you mean 'int32' or 'int64'?", NULL, NULL},
	{"g (x) = > (y) {}", "'=>' is one token, write it without a space", "= >", "=>"},
	{"g (float) => () {}", "to name a value 'float', quote it: \"float\"", "float", "\"float\""},
	/* no hint */
	{"g (x) => (y) { y = Foo(x }", "", NULL, NULL},
};

START_TEST(hint_and_fixit)
{
	const char *t = fixits[_i].text;
	Onnx__ModelProto *m = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_Parse(t, strlen(t), &m, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_str_eq(e.hint, fixits[_i].hint);
	ck_assert_str_eq(e.path, "");
	if (!fixits[_i].fix) {
		ck_assert_int_eq(e.fix_set, 0);
		return;
	}
	ck_assert_int_eq(e.fix_set, 1);
	ck_assert_str_eq(e.fix, fixits[_i].fix);
	ck_assert_uint_eq(e.fix_offset, strstr(t, fixits[_i].replaced) - t);
	ck_assert_uint_eq(e.fix_length, strlen(fixits[_i].replaced));
}
END_TEST

/* A check problem: the element's path alone, and an operator's near miss as a fix-it. */
START_TEST(check_path_and_fixit)
{
	const char *t = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[N] x) => (float[N] y) {\n  y = Reul (x)\n}";
	OnnxError e, *problems = NULL;
	size_t n = 0;
	ck_assert_int_eq(OnnxModel_CheckText(t, strlen(t), &problems, &n, &e), ONNXTXT_ERR_INVALID);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(problems[0].path, "graph.node[0]");
	ck_assert_str_eq(problems[0].hint, "did you mean 'Relu'?");
	ck_assert_int_eq(problems[0].fix_set, 1);
	ck_assert_str_eq(problems[0].fix, "Relu");
	ck_assert_uint_eq(problems[0].fix_offset, strstr(t, "Reul") - t);
	ck_assert_uint_eq(problems[0].fix_length, 4);
	free(problems);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diag");
	TCase *tc = tcase_create("locate");
	tcase_add_loop_test(tc, locate, 0, sizeof locations / sizeof locations[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("fixit");
	tcase_add_loop_test(tc, hint_and_fixit, 0, sizeof fixits / sizeof fixits[0]);
	tcase_add_test(tc, check_path_and_fixit);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, format_without_position);
	tcase_add_test(tc, format_caret);
	tcase_add_test(tc, format_span_clipped);
	tcase_add_test(tc, format_long_line);
	tcase_add_test(tc, format_tabs);
	tcase_add_test(tc, format_utf8);
	tcase_add_test(tc, format_invalid_utf8);
	tcase_add_test(tc, format_end_of_input);
	tcase_add_test(tc, format_crlf);
	tcase_add_test(tc, format_short_buffer);
	tcase_add_test(tc, format_long_message);
	tcase_add_test(tc, format_long_file_name);
	tcase_add_test(tc, format_long_line_clipped);
	tcase_add_test(tc, format_long_line_utf8);
	suite_add_tcase(s, tc);

	tc = tcase_create("messages");
	tcase_add_loop_test(tc, syntax_messages, 0, sizeof messages / sizeof messages[0]);
	tcase_add_test(tc, error_struct_end_to_end);
	tcase_add_test(tc, byte_order_mark);
	tcase_add_test(tc, cr_only_lines);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
