/* Parser driver: feeds the re2c scanner's tokens to the lemon parser, tracks bracket depth,
 * and turns the result into a root message that owns its arena. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "diag.h"
#include "file.h"
#include "literal.h"
#include "onnx.h"
#include "stream.h"

/* lemon's generated interface (%name ox_lemon) */
void *ox_lemonAlloc(void *(*alloc)(size_t), ox_parser *P);
void ox_lemonFree(void *parser, void (*dealloc)(void *));
void ox_lemon(void *parser, int major, ox_tok minor);
int ox_lemon_expected(void *parser, unsigned char *ok, int size);
int ox_lemon_data_brace(void *parser);
int ox_lemon_can_shift(void *parser, const int *tokens, int count);

static const char *const lex_errors[] = {
	[OX_LEX_BAD_CHAR] = "unexpected character",
	[OX_LEX_SINGLE_QUOTE] = "strings use double quotes, not '",
	[OX_LEX_UNTERMINATED_STRING] = "unterminated string: no closing '\"' before the end of input",
	[OX_LEX_NUL] = "NUL byte outside a string literal",
	[OX_LEX_LONE_MINUS] = "'-' must be followed directly by a number, with no space",
	[OX_LEX_BAD_EXPONENT] = "malformed number: the exponent has no digits",
	[OX_LEX_BAD_NUMBER] = "malformed number",
	[OX_LEX_BAD_SPECIAL] = "malformed number: after '-' only digits, inf, infinity or nan may follow",
	[OX_LEX_TOO_LONG] = "token longer than 4 GiB",
};

static const char *bad_number_reason(const ox_tok *t)
{
	const char *p = t->p + (t->p[0] == '-');
	if (p[0] == '0' && (p[1] | 0x20) == 'x')
		return "there are no hexadecimal literals";
	const char *dot = memchr(p, '.', t->n - (size_t)(p - t->p));
	if (dot && memchr(dot + 1, '.', t->n - (size_t)(dot + 1 - t->p)))
		return "a number has at most one '.'";
	return "a number cannot run into letters, '_' or '.'";
}

static _Noreturn void lex_error(ox_parser *P, ox_tok *t)
{
	unsigned char c = (unsigned char)t->p[0];
	if (t->v == OX_LEX_BAD_CHAR) { /* the token is the whole UTF-8 character */
		if (c >= 0x20 && c != 0x7f)
			ox_fail(P, t, ONNXTXT_ERR_SYNTAX, "unexpected character '%.*s'", (int)t->n, t->p);
		ox_fail(P, t, ONNXTXT_ERR_SYNTAX, "unexpected control character 0x%02x", c);
	}
	if (t->v == OX_LEX_BAD_UTF8)
		ox_fail(P, t, ONNXTXT_ERR_SYNTAX, OX_BAD_UTF8_MESSAGE, c, c);
	if (t->v == OX_LEX_UNTERMINATED_STRING)
		t->n = 1;
	if (t->v == OX_LEX_BAD_NUMBER)
		ox_fail(P, t, ONNXTXT_ERR_SYNTAX, "malformed number '%.*s': %s", (int)(t->n > 30 ? 30 : t->n), t->p,
			bad_number_reason(t));
	ox_fail(P, t, ONNXTXT_ERR_SYNTAX, "%s", lex_errors[t->v]);
}

static void track_depth(ox_parser *P, int code)
{
	switch (code) {
	case TK_LT: case TK_LPAREN: case TK_LBRACKET: case TK_LBRACE:
		if (++P->depth > ONNXTXT_MAX_DEPTH)
			ox_fail_depth(P);
		break;
	case TK_GT: case TK_RPAREN: case TK_RBRACKET: case TK_RBRACE:
		if (P->depth > 0)
			P->depth--;
		break;
	}
}

static bool is_literal(int code)
{
	return code == TK_INT || code == TK_FLOAT || code == TK_FLOATWORD || code == TK_STRING;
}

static _Noreturn void data_syntax_error(ox_parser *P, ox_tok t, bool after_value)
{
	unsigned char ok[TK_OVERLOAD + 1] = {0};
	if (after_value) {
		ok[TK_COMMA] = ok[TK_RBRACE] = 1;
	} else {
		bool strings = P->td.t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
		ok[TK_INT] = ok[TK_FLOAT] = !strings;
		ok[TK_STRING] = strings;
		ok[TK_RBRACE] = P->prev.p && P->prev.p[0] == '{';
	}
	if (t.code == OX_TOK_EOF)
		t.code = 0;
	ox_syntax_message(P, t.code, &t, ok, (int)sizeof ok);
}

/* Reads a tensor's "value, value, ... }" after the grammar shifted its '{'; returns the
 * closing '}' for the grammar. */
static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether a number token ends before p (in data, where a comma, a blank or the closing
 * brace follows it); anything else makes it a longer token, or a bad one. */
static bool ends_number(const char *p, const char *end)
{
	return p == end || is_space(*p) || *p == ',' || *p == '}';
}

/* The number token at p, as the lexer reads it, when it is a plain one ("-"? digits
 * ("." digits?)? ([eE] [+-]? digits)?) followed by a byte that ends it; else n = 0. */
static ox_tok plain_number(const char *p, const char *end)
{
	const char *q = p + (p < end && *p == '-');
	const char *digits = q;
	ox_tok t = {p, 0, TK_INT, 0};
	while (q < end && (unsigned)(*q - '0') < 10)
		q++;
	if (q == digits)
		return t;
	if (q < end && *q == '.') {
		t.code = TK_FLOAT;
		for (q++; q < end && (unsigned)(*q - '0') < 10; q++)
			;
	}
	if (q < end && (*q | 0x20) == 'e') {
		t.code = TK_FLOAT;
		q += q + 1 < end && (q[1] == '-' || q[1] == '+');
		const char *exp = ++q;
		while (q < end && (unsigned)(*q - '0') < 10)
			q++;
		if (q == exp)
			return t;
	}
	if (!ends_number(q, end))
		return t; /* "1x", "1.5.3", "1#": the lexer says what is wrong */
	t.n = (uint32_t)(q - p);
	return t;
}

/* Reads "v, v, ..." straight from the text while it holds nothing but plain numbers,
 * commas and blanks, which is nearly all tensor data; stops before anything else (a
 * comment, a word, a string, a mistake), which the lexer then reads as usual. Returns
 * whether a value comes next. */
static bool read_plain_values(ox_parser *P, ox_lexer *L, bool value_next)
{
	const char *p = L->cur, *end = L->lim;
	bool floats = ox_tdata_floats(P);
	for (;; value_next = !value_next) {
		while (p < end && is_space(*p))
			p++;
		ox_tok t = {p, 1, TK_COMMA, 0};
		float f;
		size_t n;
		if (value_next && floats && p < end && (n = ox_scan_float(p, end, &f)) && ends_number(p + n, end)) {
			t = (ox_tok){p, (uint32_t)n, TK_FLOAT, 0}; /* scanned and converted at once */
			ox_tdata_float(P, f);
		} else if (value_next) {
			t = plain_number(p, end);
			if (!t.n)
				break;
			ox_tdata_value(P, t.code, t);
		} else if (p == end || *p != ',') {
			break;
		}
		p += t.n;
		P->prev = t;
		L->cur = p;
	}
	return value_next;
}

static ox_tok read_values(ox_parser *P, ox_lexer *L, ox_tok brace)
{
	ox_tdata_open(P, brace);
	for (bool value_next = true;; value_next = !value_next) {
		value_next = read_plain_values(P, L, value_next);
		ox_tok t = ox_lex(L);
		if (t.code == OX_TOK_ERROR)
			lex_error(P, &t);
		if (t.code == TK_RBRACE && (!value_next || P->prev.p[0] == '{'))
			return t;
		if (value_next ? !is_literal(t.code) : t.code != TK_COMMA)
			data_syntax_error(P, t, !value_next);
		if (value_next)
			ox_tdata_value(P, t.code == TK_FLOATWORD ? TK_FLOAT : t.code, t);
		P->prev = t;
	}
}

/* Feeds every token to the grammar; a replay (stop != NULL) feeds only the tokens
 * before stop, the token a first pass could not shift. */
static void feed(ox_parser *P, void *lemon, int entry, const char *stop)
{
	ox_lexer L;
	/* a UTF-8 byte-order mark (editors on Windows write one) is skipped, not a token */
	size_t bom = P->len >= 3 && !memcmp(P->src, "\xef\xbb\xbf", 3) ? 3 : 0;
	ox_lex_init(&L, P->src + bom, P->len - bom);
	ox_tok t = {P->src, 0, (int16_t)entry, 0};
	ox_lemon(lemon, entry, t);
	for (;;) {
		t = ox_lex(&L);
		int code = t.code;
		if (code == OX_TOK_ERROR)
			lex_error(P, &t);
		if (stop && (t.p >= stop || code == OX_TOK_EOF))
			return;
		static const int arrow[] = {TK_ARROW}, eq_gt[] = {TK_EQ, TK_GT};
		if (code == TK_ARROW && !ox_lemon_can_shift(lemon, arrow, 1) && ox_lemon_can_shift(lemon, eq_gt, 2)) {
			/* "w =>" is "w =" (an initializer without data) then '>', as the reference
			 * reads it */
			ox_tok eq = {t.p, 1, TK_EQ, 0};
			ox_lemon(lemon, TK_EQ, eq);
			P->prev = eq;
			t.p++;
			t.n = 1;
			t.code = code = TK_GT;
		}
		P->cur = t;
		track_depth(P, code);
		ox_lemon(lemon, code, t);
		if (code == OX_TOK_EOF)
			return;
		P->prev = t;
		if (code == TK_LBRACE && ox_lemon_data_brace(lemon)) {
			t = read_values(P, &L, t);
			if (stop && t.p >= stop)
				return;
			P->cur = t;
			track_depth(P, TK_RBRACE);
			ox_lemon(lemon, TK_RBRACE, t);
			P->prev = t;
		}
	}
}

void ox_parse_nested(ox_parser *P, int entry, const char *text, size_t len)
{
	void *lemon = P->nested = ox_lemonAlloc(malloc, P);
	if (!lemon)
		ox_fail_memory(P);
	ox_tok prev = P->prev, cur = P->cur;
	int depth = P->depth;
	ox_lexer L;
	ox_lex_init(&L, text, len);
	ox_tok t = {text, 0, (int16_t)entry, 0};
	ox_lemon(lemon, entry, t);
	do {
		t = ox_lex(&L);
		if (t.code == OX_TOK_ERROR)
			lex_error(P, &t);
		P->cur = t;
		track_depth(P, t.code);
		ox_lemon(lemon, t.code, t);
		P->prev = t;
	} while (t.code != OX_TOK_EOF);
	ox_lemonFree(lemon, free);
	P->nested = NULL;
	P->prev = prev;
	P->cur = cur;
	P->depth = depth;
}

/* Kept apart from run() so that no local of the caller changes between setjmp and longjmp. */
static int guarded(ox_parser *P, void *lemon, int entry, const char *stop)
{
	jmp_buf fail;
	P->fail = &fail;
	if (setjmp(fail))
		return 0;
	feed(P, lemon, entry, stop);
	return 1;
}

/* Fills the error for an allocation that failed outside the grammar's actions: out of
 * memory, or the input's limit (kept apart from run() for the same reason as guarded()). */
static void record_memory_error(ox_parser *P)
{
	jmp_buf fail;
	P->fail = &fail;
	if (!setjmp(fail))
		ox_fail_memory(P);
}

/* Rewrites a syntax error with what the grammar expected, from a replay that stops just
 * before the offending token (the failed parse already reduced past that state). */
static void explain_syntax_error(ox_parser *P, int entry)
{
	int major = P->syntax_major;
	ox_tok found = P->syntax_tok;
	P->top = P->nannots = 0;
	P->depth = 0;
	P->prev.p = NULL;
	P->prev.n = 0;
	void *lemon = ox_lemonAlloc(malloc, P);
	if (!lemon) { /* a bare "syntax error" would hide the real cause */
		ox_error_set(P->err, ONNXTXT_ERR_NOMEM, "out of memory");
		return;
	}
	const char *stop = major ? found.p : P->src + P->len;
	if (guarded(P, lemon, entry, stop)) {
		unsigned char ok[128] = {0};
		int n = ox_lemon_expected(lemon, ok, (int)sizeof ok);
		jmp_buf fail;
		P->fail = &fail;
		if (!setjmp(fail))
			ox_syntax_message(P, major, &found, ok, n);
	}
	ox_lemonFree(lemon, free);
}

/* Parses text from the entry point; with a sink, the main graph's nodes stream into it
 * (and are not in the result). */
static OnnxStatus run(int entry, const char *text, size_t len, void **out, ox_sink *sink, ox_spans *spans,
		      OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (out)
		*out = NULL;
	if (!out || (!text && len)) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s is NULL", out ? "text" : "out");
		return err->code;
	}
	if (len > ONNXTXT_MAX_TEXT) {
		ox_error_set(err, ONNXTXT_ERR_LIMIT, "text longer than %u bytes", ONNXTXT_MAX_TEXT);
		return err->code;
	}
	ox_parser P = {.src = text ? text : "", .len = len, .err = err, .syntax_major = -1, .sink = sink,
		     .spans = spans};
	P.arena = P.model_arena = ox_arena_new();
	P.node_arena = sink ? ox_arena_new() : NULL;
	void *lemon = P.arena && (!sink || P.node_arena) ? ox_lemonAlloc(malloc, &P) : NULL;
	if (lemon) {
		ox_arena_set_limit(P.model_arena, ox_memory_limit(len));
		if (P.node_arena)
			ox_arena_set_limit(P.node_arena, ox_memory_limit(len));
	}
	if (lemon && guarded(&P, lemon, entry, NULL)) {
		const ProtobufCMessage *r = P.result;
		void *root = ox_arena_root(P.model_arena, r->descriptor->sizeof_message);
		if (root) {
			memcpy(root, r, r->descriptor->sizeof_message);
			ox_arena_set_limit(P.model_arena, 0); /* the limit was for building from the text */
			*out = root;
		} else {
			record_memory_error(&P);
		}
	} else if (!lemon) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
	} else if (P.syntax_major >= 0) {
		P.arena = P.model_arena;
		P.sink = NULL; /* the replay only needs the grammar's state */
		P.stream_body = 0;
		explain_syntax_error(&P, entry);
	}
	if (lemon)
		ox_lemonFree(lemon, free);
	if (P.nested)
		ox_lemonFree(P.nested, free);
	free(P.stack);
	free(P.annots);
	free(P.td.buf);
	ox_arena_free(P.node_arena);
	if (!*out)
		ox_arena_free(P.model_arena);
	return *out ? ONNXTXT_OK : err->code;
}

/* The entry points differ only in the grammar's start token and the message type. */
#define ENTRY(name, type, token)                                                          \
	OnnxStatus OnnxParser_##name(const char *text, size_t len, type **out, OnnxError *err) \
	{                                                                                      \
		return run(token, text, len, (void **)out, NULL, NULL, err);                    \
	}
ENTRY(Parse, Onnx__ModelProto, TK_ENTRY_MODEL)
ENTRY(ParseGraph, Onnx__GraphProto, TK_ENTRY_GRAPH)
ENTRY(ParseFunction, Onnx__FunctionProto, TK_ENTRY_FUNCTION)
ENTRY(ParseNode, Onnx__NodeProto, TK_ENTRY_NODE)
ENTRY(ParseNodeList, Onnx__GraphProto, TK_ENTRY_NODES)
ENTRY(ParseType, Onnx__TypeProto, TK_ENTRY_TYPE)
ENTRY(ParseTensor, Onnx__TensorProto, TK_ENTRY_TENSOR)
ENTRY(ParseAttribute, Onnx__AttributeProto, TK_ENTRY_ATTRIBUTE)
ENTRY(ParseValueInfo, Onnx__ValueInfoProto, TK_ENTRY_VALUE_INFO)
#undef ENTRY

OnnxStatus ox_parse_model_spans(const char *text, size_t len, Onnx__ModelProto **out, ox_spans *spans,
				OnnxError *err)
{
	OnnxStatus st = run(TK_ENTRY_MODEL, text, len, (void **)out, NULL, spans, err);
	ox_spans_sort(spans);
	return st;
}

OnnxStatus OnnxParser_ParseToBinary(const char *text, size_t len, FILE *f, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	if (!f) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: file is NULL");
		return err->code;
	}
	ox_sink sink = {0};
	Onnx__ModelProto *m;
	OnnxStatus st = run(TK_ENTRY_MODEL, text, len, (void **)&m, &sink, NULL, err);
	if (st == ONNXTXT_OK) {
		errno = 0;
		if (!ox_sink_write_model(&sink, m, f) || fflush(f) != 0) {
			ox_error_io(err, errno, "cannot write the model");
			st = err->code;
		}
		OnnxProto_Free(m);
	}
	ox_sink_free(&sink);
	return st;
}

static int convert(FILE *f, void *ctx, OnnxError *err)
{
	const ox_write_job *job = ctx; /* the text to convert */
	return OnnxParser_ParseToBinary(job->p, job->n, f, err) == ONNXTXT_OK;
}

OnnxStatus OnnxParser_ParseToBinaryFile(const char *text, size_t len, const char *path, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!path) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: path is NULL");
		return err->code;
	}
	ox_write_job job = {text, len};
	return ox_write_atomic(path, convert, &job, err);
}

void OnnxProto_Free(const void *message)
{
	if (message)
		ox_arena_free(ox_root_arena(message));
}

const char *OnnxLibrary_Version(void)
{
	return ONNXTXT_VERSION;
}
