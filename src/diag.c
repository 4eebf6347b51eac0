/* Diagnostics: byte offsets become line:column only when an error is reported; syntax
 * errors list what the grammar expected; OnnxError_Format renders the source line with a
 * caret under the offending text. */
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "literal.h"
#include "text/build.h"
#include "onnx.h"
#include "types.h"

/* Bytes of a UTF-8 byte-order mark at the start of text (0 or 3): not a column. */
static size_t bom_at(const char *src, size_t len, size_t i)
{
	return i == 0 && len >= 3 && !memcmp(src, "\xef\xbb\xbf", 3) ? 3 : 0;
}

/* Whether a line ends at byte i: LF, or a CR not followed by LF (CR-only files). */
static int line_end(const char *src, size_t len, size_t i)
{
	return src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'));
}

void ox_locate(const char *src, size_t len, size_t off, unsigned *line, unsigned *col)
{
	if (off > len)
		off = len;
	unsigned l = 1, c = 1;
	for (size_t i = bom_at(src, len, 0) <= off ? bom_at(src, len, 0) : 0; i < off; i++) {
		if (line_end(src, len, i)) {
			l++;
			c = 1;
		} else if (((unsigned char)src[i] & 0xc0) != 0x80) {
			c++; /* UTF-8: continuation bytes do not start a character */
		}
	}
	*line = l;
	*col = c;
}

OnnxError *ox_error_reset(OnnxError *err, OnnxError *local)
{
	if (!err)
		err = local;
	memset(err, 0, sizeof *err);
	return err;
}

OnnxStatus ox_error_null(OnnxError *err)
{
	ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: NULL pointer");
	return ONNXTXT_ERR_ARG;
}

void ox_error_set(OnnxError *err, OnnxStatus code, const char *fmt, ...)
{
	if (!err)
		return;
	memset(err, 0, sizeof *err);
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
}

void ox_error_io(OnnxError *err, int errnum, const char *what)
{
	errnum = errnum ? errnum : EIO; /* a stream's error flag without a reason */
	ox_error_set(err, ONNXTXT_ERR_IO, "%s: %s", what, strerror(errnum));
	err->sys_errno = errnum;
}

/* Tokens of an annotation block point into its joined copy; errors point into the
 * "#@" lines of the source. */
static const char *in_source(const ox_parser *P, const char *p)
{
	if (!P->ann_text || p < P->ann_text || p > P->ann_text + P->ann_len)
		return p;
	size_t off = (size_t)(p - P->ann_text), i = P->ann_lines - 1;
	while (i > 0 && P->ann_line_start[i] > off)
		i--;
	return P->ann_line_src[i] + (off - P->ann_line_start[i]);
}

static void set_error(ox_parser *P, const ox_tok *at, OnnxStatus code, const char *msg)
{
	OnnxError *e = P->err;
	memset(e, 0, sizeof *e);
	e->code = code;
	snprintf(e->message, sizeof e->message, "%s", msg);
	if (at && at->p) {
		e->offset = (size_t)(in_source(P, at->p) - P->src);
		e->length = at->n;
		ox_locate(P->src, P->len, e->offset, &e->line, &e->column);
	}
}

static _Noreturn void fail_at(ox_parser *P, const ox_tok *at, OnnxStatus code, const char *msg)
{
	set_error(P, at, code, msg);
	longjmp(*P->fail, 1);
}

void ox_fail(ox_parser *P, const ox_tok *at, OnnxStatus code, const char *fmt, ...)
{
	char msg[sizeof P->err->message];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fail_at(P, at, code, msg);
}

void ox_fail_memory(ox_parser *P)
{
	bool over = ox_arena_over(P->model_arena) || (P->node_arena && ox_arena_over(P->node_arena));
	if (!over)
		ox_fail(P, NULL, ONNXTXT_ERR_NOMEM, "out of memory");
	ox_fail(P, &P->cur, ONNXTXT_ERR_LIMIT,
		"the model would take more than %zu MiB of memory (%d bytes per byte of text, plus %u MiB)",
		ox_memory_limit(P->len) >> 20, ONNXTXT_MAX_EXPANSION, (unsigned)(ox_memory_base >> 20));
}

void ox_fail_depth(ox_parser *P)
{
	ox_fail(P, &P->cur, ONNXTXT_ERR_LIMIT, "nesting too deep: more than %d levels of brackets",
		ONNXTXT_MAX_DEPTH);
}

/* ---- syntax errors ------------------------------------------------------------------- */

static const char *describe(int code)
{
	switch (code) {
	case 0: return "end of input";
	case TK_LT: return "'<'";
	case TK_GT: return "'>'";
	case TK_LPAREN: return "'('";
	case TK_RPAREN: return "')'";
	case TK_LBRACKET: return "'['";
	case TK_RBRACKET: return "']'";
	case TK_LBRACE: return "'{'";
	case TK_RBRACE: return "'}'";
	case TK_COMMA: return "','";
	case TK_COLON: return "':'";
	case TK_EQ: return "'='";
	case TK_ARROW: return "'=>'";
	case TK_DOT: return "'.'";
	case TK_AT: return "'@'";
	case TK_QUESTION: return "'?'";
	case TK_ID: return "an identifier";
	case TK_STRING: return "a string";
	case TK_INT: return "an integer";
	case TK_FLOAT: return "a number";
	case TK_ELEMTYPE: return "an element type";
	case TK_SEQ: return "'seq'";
	case TK_MAP: return "'map'";
	case TK_OPTIONAL: return "'optional'";
	case TK_SPARSE_TENSOR: return "'sparse_tensor'";
	case TK_OPAQUE: return "'opaque'";
	case TK_IR_VERSION: return "'ir_version'";
	case TK_OPSET_IMPORT: return "'opset_import'";
	case TK_PRODUCER_NAME: return "'producer_name'";
	case TK_PRODUCER_VERSION: return "'producer_version'";
	case TK_DOMAIN: return "'domain'";
	case TK_MODEL_VERSION: return "'model_version'";
	case TK_DOC_STRING: return "'doc_string'";
	case TK_METADATA_PROPS: return "'metadata_props'";
	case TK_OVERLOAD: return "'overload'";
	default: return NULL; /* entry tokens, annotations, FLOATWORD (a number) */
	}
}

/* Builds "A, B or C" from the acceptable tokens, grouping the ones that read as one. */
static void expected_list(const unsigned char *ok0, int ntok, char *out, size_t size)
{
	unsigned char ok[128] = {0};
	memcpy(ok, ok0, (size_t)ntok < sizeof ok ? (size_t)ntok : sizeof ok);
	int type_start = ok[TK_ELEMTYPE] && ok[TK_SEQ] && ok[TK_MAP] && ok[TK_OPTIONAL] && ok[TK_SPARSE_TENSOR] &&
			 ok[TK_OPAQUE];
	if (type_start)
		ok[TK_ELEMTYPE] = ok[TK_SEQ] = ok[TK_MAP] = ok[TK_OPTIONAL] = ok[TK_SPARSE_TENSOR] = ok[TK_OPAQUE] = 0;
	if (ok[TK_INT] && ok[TK_FLOAT])
		ok[TK_INT] = 0;
	const char *items[64];
	int n = 0;
	for (int t = 0; t < ntok && n < 63; t++)
		if (ok[t] && describe(t))
			items[n++] = describe(t);
	if (type_start)
		items[n++] = "a type";
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < n && used < size; i++) {
		const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
		used += (size_t)snprintf(out + used, size - used, "%s%s", sep, items[i]);
	}
}

static void show_token(const ox_tok *t, int major, char *out, size_t size)
{
	if (major == 0) {
		snprintf(out, size, "end of input");
	} else if (t->n > 32) {
		int n = 29; /* cut at a character boundary, not inside a UTF-8 sequence */
		while (n > 0 && ((unsigned char)t->p[n] & 0xc0) == 0x80)
			n--;
		snprintf(out, size, "'%.*s...'", n, t->p);
	} else {
		snprintf(out, size, "'%.*s'", (int)t->n, t->p);
	}
}

static char fold(char c, bool fold_case)
{
	return fold_case && c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
}

size_t ox_edit_distance(const char *a, size_t la, const char *b, size_t lb, bool fold_case)
{
	size_t d[3][64];
	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	size_t *two = d[0], *one = d[1], *row = d[2];
	for (size_t j = 0; j <= lb; j++)
		one[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			char ai = fold(a[i - 1], fold_case), bj = fold(b[j - 1], fold_case);
			size_t best = one[j - 1] + (ai != bj);
			if (one[j] + 1 < best)
				best = one[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && ai == fold(b[j - 2], fold_case) && fold(a[i - 2], fold_case) == bj &&
			    two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			row[j] = best;
		}
		size_t *t = two;
		two = one;
		one = row;
		row = t;
	}
	return one[lb];
}

static const char *const header_words[] = {
	[TK_IR_VERSION] = "ir_version",       [TK_OPSET_IMPORT] = "opset_import",
	[TK_PRODUCER_NAME] = "producer_name", [TK_PRODUCER_VERSION] = "producer_version",
	[TK_DOMAIN] = "domain",               [TK_MODEL_VERSION] = "model_version",
	[TK_DOC_STRING] = "doc_string",       [TK_METADATA_PROPS] = "metadata_props",
	[TK_OVERLOAD] = "overload",           [TK_SEQ] = "seq",
	[TK_MAP] = "map",                     [TK_OPTIONAL] = "optional",
	[TK_SPARSE_TENSOR] = "sparse_tensor", [TK_OPAQUE] = "opaque",
};

/* The closest keyword to a misspelled word, among the acceptable ones (all element types
 * when any type is acceptable); NULL when nothing is close. */
static const char *closest(const ox_tok *w, const unsigned char *ok, int ntok, int types)
{
	const char *best = NULL;
	size_t bestd = w->n <= 3 ? 1 : 2;
	for (int t = 0; t < ntok && t < (int)(sizeof header_words / sizeof *header_words); t++) {
		if (!ok[t] || !header_words[t])
			continue;
		size_t d = ox_edit_distance(w->p, w->n, header_words[t], strlen(header_words[t]), false);
		if (d <= bestd && d > 0) {
			bestd = d;
			best = header_words[t];
		}
	}
	for (int dt = 1; types && dt <= OX_MAX_ELEM_TYPE; dt++) {
		const char *name = ox_elem_name(dt);
		size_t d = ox_edit_distance(w->p, w->n, name, strlen(name), false);
		if (d <= bestd && d > 0) {
			bestd = d;
			best = name;
		}
	}
	return best;
}

static const char *case_match(const ox_tok *w)
{
	for (int dt = 1; dt <= OX_MAX_ELEM_TYPE; dt++) {
		const char *name = ox_elem_name(dt);
		if (strlen(name) == w->n && strncasecmp(name, w->p, w->n) == 0)
			return name;
	}
	return NULL;
}

/* Names other ecosystems use for element types. */
static const char *alias(const ox_tok *w)
{
	static const char *const pairs[][2] = {
		{"int", "int32' or 'int64"}, {"long", "int64"}, {"float32", "float"}, {"float64", "double"},
		{"fp32", "float"}, {"fp64", "double"}, {"fp16", "float16"}, {"half", "float16"},
		{"bf16", "bfloat16"}, {"boolean", "bool"}, {"str", "string"}, {"uint", "uint32"},
		{"sequence", "seq"}, {"tensor", "a type such as 'float[N]'"},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		if (strlen(pairs[i][0]) == w->n && memcmp(pairs[i][0], w->p, w->n) == 0)
			return pairs[i][1];
	return NULL;
}

/* A hint's fix-it: replace the n bytes at p with text (n == 0: no fix-it). */
typedef struct fixit {
	const char *p;
	size_t n;
	char text[64];
} fixit;

static void set_fix(fixit *fix, const ox_tok *t, size_t n, const char *text)
{
	fix->p = t->p;
	fix->n = n;
	snprintf(fix->text, sizeof fix->text, "%s", text);
}

/* A misspelled word: the closest keyword, replacing the word itself or the word before. */
static const char *guess(const ox_parser *P, int major, const ox_tok *found, const unsigned char *ok, int ntok,
			 fixit *fix)
{
	const ox_tok *prev = &P->prev;
	const char *word = major == TK_ID ? closest(found, ok, ntok, ok[TK_ELEMTYPE]) : NULL;
	if (word) {
		set_fix(fix, found, found->n, word);
		return word;
	}
	/* "(flaot16[3] x)": a misspelled type reads as a name; the error comes at its '['
	 * (or at the value's name, for a type that differs only in case: "Float x") */
	if (prev->code == TK_ID && (major == TK_LBRACKET || major == TK_ID))
		word = major == TK_LBRACKET && alias(prev) ? alias(prev) : case_match(prev);
	if (!word && major == TK_LBRACKET && prev->code == TK_ID)
		word = closest(prev, ok, 0, 1);
	if (word && !strchr(word, ' ')) /* an alias of two types is no single fix */
		set_fix(fix, prev, prev->n, word);
	return word;
}

static void hint(const ox_parser *P, int major, const ox_tok *found, const unsigned char *ok, int ntok, char *out,
		 size_t size, fixit *fix)
{
	const ox_tok *prev = &P->prev;
	out[0] = '\0';
	if (major == TK_EQ && ok[TK_ARROW]) {
		const char *q = found->p + 1, *end = P->src + P->len;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '>') {
			snprintf(out, size, "; '=>' is one token, write it without a space");
			set_fix(fix, found, (size_t)(q + 1 - found->p), "=>");
			return;
		}
	}
	/* "(float)": a keyword taken as the start of a type, where a plain name was meant */
	if ((ok[TK_ID] || ok[TK_LBRACKET]) && (major == TK_RPAREN || major == TK_COMMA || major == TK_GT) &&
	    prev->code >= TK_ELEMTYPE && prev->code <= TK_OPAQUE) {
		snprintf(out, size, "; to name a value '%.*s', quote it: \"%.*s\"", (int)prev->n, prev->p, (int)prev->n,
			 prev->p);
		char quoted[64];
		snprintf(quoted, sizeof quoted, "\"%.*s\"", (int)prev->n, prev->p);
		set_fix(fix, prev, prev->n, quoted);
		return;
	}
	const char *word = guess(P, major, found, ok, ntok, fix);
	if (word)
		snprintf(out, size, "; did you mean '%s'?", word);
}

int ox_lemon_expected(void *parser, unsigned char *ok, int size);

void ox_syntax_error(ox_parser *P, int major, const ox_tok *found, void *lemon)
{
	if (P->ann_text) {
		/* no replay inside an annotation block: its lists are simple enough */
		unsigned char ok[128] = {0};
		int n = ox_lemon_expected(lemon, ok, (int)sizeof ok);
		ox_syntax_message(P, major, found, ok, n);
	}
	P->syntax_major = major;
	P->syntax_tok = *found;
	fail_at(P, found, ONNXTXT_ERR_SYNTAX, "syntax error");
}

void ox_syntax_message(ox_parser *P, int major, const ox_tok *found, const unsigned char *ok, int ntok)
{
	if (major == TK_ANNOT)
		ox_fail(P, found, ONNXTXT_ERR_SYNTAX,
			"an annotation ('#@' line) must come right before a model header, graph, node, "
			"attribute, value info, initializer or function; write plain comments as '# ...'");
	char want[400], got[48], after[64] = "", tip[64];
	expected_list(ok, ntok, want, sizeof want);
	show_token(found, major, got, sizeof got);
	if (P->prev.p && P->prev.n) {
		char prev[48];
		show_token(&P->prev, 1, prev, sizeof prev);
		snprintf(after, sizeof after, " after %s", prev);
	}
	fixit fix = {0};
	hint(P, major, found, ok, ntok, tip, sizeof tip, &fix);
	ox_tok at = *found;
	if (major == 0 && P->prev.p && !P->ann_text) {
		/* right after the last token, not on a blank line at the end of the file */
		at.p = P->prev.p + P->prev.n;
		at.n = 0;
	}
	char msg[sizeof P->err->message];
	snprintf(msg, sizeof msg, "expected %s%s, found %s%s", want, after, got, tip);
	set_error(P, &at, ONNXTXT_ERR_SYNTAX, msg);
	if (tip[0])
		snprintf(P->err->hint, sizeof P->err->hint, "%s", tip + 2); /* without "; " */
	if (fix.p) {
		P->err->fix_set = 1;
		P->err->fix_offset = (size_t)(in_source(P, fix.p) - P->src);
		P->err->fix_length = fix.n;
		snprintf(P->err->fix, sizeof P->err->fix, "%s", fix.text);
	}
	longjmp(*P->fail, 1);
}

/* ---- rendering ----------------------------------------------------------------------- */

static size_t put(char *buf, size_t size, size_t used, const char *s, size_t n)
{
	if (used < size) {
		size_t room = size - used - 1;
		memcpy(buf + used, s, n < room ? n : room);
		buf[used + (n < room ? n : room)] = '\0';
	}
	return used + n;
}

/* A long line (minified, generated) is shown as a window of this many characters around
 * the caret, with "..." where it was cut, as gcc and clang do: one error in a 5 MB line must
 * not print the whole line and 5 MB of spaces under it. */
#define LINE_WINDOW 100
#define LINE_BEFORE 40 /* characters kept before the caret, when the line allows */

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* s[0..n) with each byte that is not part of well-formed UTF-8 as U+FFFD: a message may
 * quote a name of a binary model, which may hold any bytes. */
static size_t put_text(char *buf, size_t size, size_t used, const char *s, size_t n)
{
	for (size_t i = 0, k; i < n; i += k ? k : 1) {
		k = ox_utf8_len(s + i, n - i);
		used = k ? put(buf, size, used, s + i, k) : put(buf, size, used, REPLACEMENT, 3);
	}
	return used;
}

static int is_char_start(const char *t, size_t i)
{
	return ((unsigned char)t[i] & 0xc0) != 0x80;
}

/* Moves from pos by n characters, backwards not below lo or forwards not beyond hi. */
static size_t back_chars(const char *t, size_t lo, size_t pos, size_t n)
{
	while (pos > lo && n > 0) {
		pos--;
		if (is_char_start(t, pos))
			n--;
	}
	while (pos > lo && !is_char_start(t, pos))
		pos--;
	return pos;
}

static size_t fwd_chars(const char *t, size_t pos, size_t hi, size_t n)
{
	while (pos < hi && n > 0) {
		pos++;
		while (pos < hi && !is_char_start(t, pos))
			pos++;
		n--;
	}
	return pos;
}

/* The part [*ws, *we) of the line [start, end) to show around byte offset at. */
static void window(const char *t, size_t start, size_t end, size_t at, size_t *ws, size_t *we)
{
	*ws = start;
	*we = end;
	if (fwd_chars(t, start, end, LINE_WINDOW) == end)
		return;
	*ws = back_chars(t, start, at, LINE_BEFORE);
	*we = fwd_chars(t, *ws, end, LINE_WINDOW);
	if (*we == end)
		*ws = back_chars(t, start, end, LINE_WINDOW);
}

static size_t source_line(const OnnxError *err, const char *text, size_t len, char *buf, size_t size,
			  size_t used)
{
	size_t start = err->offset, end = err->offset, ws, we;
	while (start > 0 && !line_end(text, len, start - 1))
		start--;
	if (start < err->offset)
		start += bom_at(text, len, start);
	while (end < len && !line_end(text, len, end))
		end++;
	if (end > start && end < len && text[end - 1] == '\r')
		end--; /* a CRLF line ends before its CR */
	window(text, start, end, err->offset, &ws, &we);
	if (ws > start)
		used = put(buf, size, used, "...", 3);
	/* control bytes (a NUL, a CR before the newline) would garble or cut the line, and a
	 * byte that is not UTF-8 would make the message not text */
	for (size_t i = ws; i < we; i++) {
		unsigned char c = (unsigned char)text[i];
		size_t k = ox_utf8_len(text + i, we - i);
		if (k && (c < 0x20 || c == 0x7f) && c != '\t')
			used = put(buf, size, used, "?", 1);
		else
			used = k ? put(buf, size, used, text + i, k) : put(buf, size, used, REPLACEMENT, 3);
		i += k ? k - 1 : 0;
	}
	if (we < end)
		used = put(buf, size, used, "...", 3);
	used = put(buf, size, used, "\n", 1);
	/* Caret line: keep tabs so the caret lines up, one space per UTF-8 character. */
	if (ws > start)
		used = put(buf, size, used, "   ", 3);
	for (size_t i = ws; i < err->offset; i++)
		if (is_char_start(text, i))
			used = put(buf, size, used, text[i] == '\t' ? "\t" : " ", 1);
	used = put(buf, size, used, "^", 1);
	size_t stop = err->offset + err->length < we ? err->offset + err->length : we;
	for (size_t i = err->offset + 1; i < stop; i++)
		if (is_char_start(text, i))
			used = put(buf, size, used, "~", 1);
	return put(buf, size, used, "\n", 1);
}

size_t OnnxError_Format(const OnnxError *err, const char *file, const char *text, size_t len, char *buf,
			size_t size)
{
	if (!buf)
		size = 0; /* a NULL buffer only measures */
	if (size)
		buf[0] = '\0';
	if (!err)
		return 0; /* no error, nothing to say */
	char pos[32] = "";
	const char *name = file ? file : "<stdin>";
	if (err->line)
		snprintf(pos, sizeof pos, ":%u:%u", err->line, err->column);
	size_t used = put(buf, size, 0, name, strlen(name));
	used = put(buf, size, used, pos, strlen(pos));
	const char *tag = err->code == ONNXTXT_WARNING ? ": warning: " : ": error: ";
	used = put(buf, size, used, tag, strlen(tag));
	used = put_text(buf, size, used, err->message, strlen(err->message));
	used = put(buf, size, used, "\n", 1);
	if (!text || !err->line || err->offset > len)
		return used;
	return source_line(err, text, len, buf, size, used);
}
