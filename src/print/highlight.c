/* OnnxPrinter_Highlight: syntax colour for text in the textual syntax, by scanning it again
 * with the parser's own lexer, so the colours follow exactly the token classes it reads. */
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "text/lexer.h"
#include "onnx.h"
#include "out.h"

#define SGR_KEYWORD "35" /* magenta */
#define SGR_TYPE "36"    /* cyan */
#define SGR_NAME "34"    /* blue */
#define SGR_NUMBER "33"  /* yellow */
#define SGR_STRING "32"  /* green */
#define SGR_COMMENT "90" /* grey */

/* The colour of a token class; NULL for punctuation. */
static const char *sgr(int code)
{
	if (code >= TK_ELEMTYPE && code <= TK_OPAQUE)
		return SGR_TYPE; /* element types, seq, map, optional, sparse_tensor, opaque */
	switch (code) {
	case TK_IR_VERSION: case TK_OPSET_IMPORT: case TK_PRODUCER_NAME: case TK_PRODUCER_VERSION:
	case TK_DOMAIN: case TK_MODEL_VERSION: case TK_DOC_STRING: case TK_METADATA_PROPS: case TK_OVERLOAD:
		return SGR_KEYWORD;
	case TK_ID: return SGR_NAME;
	case TK_INT: case TK_FLOAT: case TK_FLOATWORD: return SGR_NUMBER;
	case TK_STRING: return SGR_STRING;
	case TK_ANNOT: return SGR_COMMENT;
	default: return NULL;
	}
}

static void painted(ox_out *o, const char *colour, const char *s, size_t n)
{
	if (!colour || !n) {
		ox_put(o, s, n);
		return;
	}
	ox_puts(o, "\033[");
	ox_puts(o, colour);
	ox_putc(o, 'm');
	ox_put(o, s, n);
	ox_puts(o, "\033[0m");
}

/* What the lexer skips between two tokens: white space, and comments (test case lines
 * among them) up to the end of their line. */
static void gap(ox_out *o, const char *s, const char *end)
{
	while (s < end) {
		const char *p = s;
		if (*s == '#') {
			while (p < end && *p != '\n')
				p++;
			painted(o, SGR_COMMENT, s, (size_t)(p - s));
		} else {
			while (p < end && *p != '#')
				p++;
			ox_put(o, s, (size_t)(p - s));
		}
		s = p;
	}
}

OnnxStatus OnnxPrinter_Highlight(const char *text, size_t len, char **out, size_t *out_len, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!out || (!text && len))
		return ox_error_null(err);
	*out = NULL;
	ox_out o;
	bool nomem = false;
	ox_out_init(&o, NULL, 0, &nomem);
	ox_lexer L;
	ox_lex_init(&L, text ? text : "", len);
	const char *at = text, *end = text + len;
	for (ox_tok t = ox_lex(&L); t.code != OX_TOK_EOF; t = ox_lex(&L)) {
		gap(&o, at, t.p);
		/* what the lexer cannot read (a name that is no identifier) goes out as it is */
		painted(&o, t.code == OX_TOK_ERROR ? NULL : sgr(t.code), t.p, t.n);
		at = t.p + t.n;
	}
	gap(&o, at, end);
	ox_putc(&o, '\0');
	if (o.failed) {
		ox_out_free(&o);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	*out = o.buf;
	if (out_len)
		*out_len = o.len - 1;
	return ONNXTXT_OK;
}
