/* Tokens as the re2c scanner produces them: a code, a slice of the input, and for some
 * kinds a small value (the element type of a type keyword, the kind of a lexical error). */
#ifndef OX_LEXER_H
#define OX_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 16 bytes, so ox_lex returns it in two registers. */
typedef struct ox_tok {
	const char *p;
	uint32_t n;
	int16_t code; /* token code; OX_TOK_ERROR for a lexical error */
	int16_t v;    /* element type of an ELEMTYPE token; ox_lex_error of an error token */
} ox_tok;

typedef struct ox_lexer {
	const char *cur, *lim;
	bool comments; /* return comments as OX_TOK_COMMENT tokens instead of skipping them */
} ox_lexer;

/* Token codes come from lemon's generated header; these three never reach the parser. */
#define OX_TOK_EOF 0
#define OX_TOK_ERROR (-1)
#define OX_TOK_COMMENT (-2) /* only when asked for (ox_lexer.comments), as the formatter does */

/* ox_tok.v of an OX_TOK_ERROR token. */
enum ox_lex_error {
	OX_LEX_BAD_CHAR = 1,
	OX_LEX_SINGLE_QUOTE,
	OX_LEX_UNTERMINATED_STRING,
	OX_LEX_NUL,
	OX_LEX_LONE_MINUS,
	OX_LEX_BAD_EXPONENT,
	OX_LEX_BAD_NUMBER,
	OX_LEX_BAD_SPECIAL,
	OX_LEX_TOO_LONG,
	OX_LEX_BAD_UTF8, /* a byte that is not part of well-formed UTF-8 */
};

void ox_lex_init(ox_lexer *L, const char *text, size_t len);
ox_tok ox_lex(ox_lexer *L);

#endif
