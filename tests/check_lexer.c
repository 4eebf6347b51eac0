/* Unit tests for the re2c scanner (grammar/lexer.re): token sequences, keywords and
 * element types (the set the lexer knows must be exactly src/types.c's table), the
 * special-float words, numbers, strings, comments and annotations, whitespace, offsets,
 * and lexing every truncation of sample texts inside exactly-sized buffers (ASan finds
 * any read past the end). Expectations follow SYNTAX.md §1 and SYNTAX-DECISIONS.md P3. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/lexer.h"
#include "onnx.h" /* token codes */
#include "testutil.h"
#include "types.h"

#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define END (-100) /* ends a list of expected codes */
#define ERR OX_TOK_ERROR

static const char *code_name(int code)
{
	static char buf[32];
	switch (code) {
	case OX_TOK_EOF: return "EOF";
	case OX_TOK_ERROR: return "ERROR";
	case TK_LT: return "LT";
	case TK_GT: return "GT";
	case TK_LPAREN: return "LPAREN";
	case TK_RPAREN: return "RPAREN";
	case TK_LBRACKET: return "LBRACKET";
	case TK_RBRACKET: return "RBRACKET";
	case TK_LBRACE: return "LBRACE";
	case TK_RBRACE: return "RBRACE";
	case TK_COMMA: return "COMMA";
	case TK_COLON: return "COLON";
	case TK_EQ: return "EQ";
	case TK_ARROW: return "ARROW";
	case TK_DOT: return "DOT";
	case TK_AT: return "AT";
	case TK_QUESTION: return "QUESTION";
	case TK_ID: return "ID";
	case TK_STRING: return "STRING";
	case TK_INT: return "INT";
	case TK_FLOAT: return "FLOAT";
	case TK_FLOATWORD: return "FLOATWORD";
	case TK_ANNOT: return "ANNOT";
	case OX_TOK_COMMENT: return "COMMENT";
	case TK_ELEMTYPE: return "ELEMTYPE";
	default: snprintf(buf, sizeof buf, "code %d", code); return buf;
	}
}

/* Lexes text[0..len) and compares the codes with the END-terminated list (EOF implied
 * at the end unless the list stops at an error). */
static void expect_codes_n(const char *text, size_t len, const int *want)
{
	ox_lexer L;
	ox_lex_init(&L, text, len);
	for (int i = 0;; i++) {
		ox_tok t = ox_lex(&L);
		int w = want[i] == END ? OX_TOK_EOF : want[i];
		ck_assert_msg(t.code == w, "'%.*s': token %d is %s ('%.*s'), want %s", (int)len, text, i,
			      code_name(t.code), (int)t.n, t.p, code_name(w));
		if (t.code == OX_TOK_EOF || t.code == OX_TOK_ERROR)
			return;
	}
}

#define EXPECT(text, ...) expect_codes_n((text), strlen(text), (const int[]){__VA_ARGS__, END})

/* The first token of text. */
static ox_tok first(const char *text, size_t len)
{
	ox_lexer L;
	ox_lex_init(&L, text, len);
	return ox_lex(&L);
}

/* text is exactly one token of the given code (and, for ELEMTYPE, element type). */
static void expect_single(const char *text, int code, int v)
{
	size_t len = strlen(text);
	ox_lexer L;
	ox_lex_init(&L, text, len);
	ox_tok t = ox_lex(&L);
	REQUIRE(t.code == code && t.p == text && t.n == len, "'%s': %s of length %u, want %s of length %zu", text,
		code_name(t.code), t.n, code_name(code), len);
	if (code == TK_ELEMTYPE)
		REQUIRE(t.v == v, "'%s': element type %d, want %d", text, t.v, v);
	t = ox_lex(&L);
	REQUIRE(t.code == OX_TOK_EOF, "'%s': more than one token (%s)", text, code_name(t.code));
}

static void expect_error(const char *text, int kind, size_t offset)
{
	size_t len = strlen(text);
	ox_lexer L;
	ox_lex_init(&L, text, len);
	for (;;) {
		ox_tok t = ox_lex(&L);
		ck_assert_msg(t.code != OX_TOK_EOF, "'%s': no error, want kind %d at %zu", text, kind, offset);
		if (t.code == OX_TOK_ERROR) {
			ck_assert_msg(t.v == kind && (size_t)(t.p - text) == offset, "'%s': error kind %d at %td, want %d at %zu",
				      text, t.v, t.p - text, kind, offset);
			return;
		}
	}
}

/* ---- token sequences --------------------------------------------------------------- */

START_TEST(sequences)
{
	EXPECT("", END);
	EXPECT("   \n\t ", END);
	EXPECT("g (float[N] x) => (y) {}", TK_ID, TK_LPAREN, TK_ELEMTYPE, TK_LBRACKET, TK_ID, TK_RBRACKET, TK_ID,
	       TK_RPAREN, TK_ARROW, TK_LPAREN, TK_ID, TK_RPAREN, TK_LBRACE, TK_RBRACE);
	EXPECT("<ir_version: 8, opset_import: [\"\" : 18]>", TK_LT, TK_IR_VERSION, TK_COLON, TK_INT, TK_COMMA,
	       TK_OPSET_IMPORT, TK_COLON, TK_LBRACKET, TK_STRING, TK_COLON, TK_INT, TK_RBRACKET, TK_GT);
	EXPECT("[lbl] y = com.ms.Op:ov <a = 1.5, b = @c, t = float[2] {1, -2}> (x, ,\"q r\")", TK_LBRACKET, TK_ID,
	       TK_RBRACKET, TK_ID, TK_EQ, TK_ID, TK_DOT, TK_ID, TK_DOT, TK_ID, TK_COLON, TK_ID, TK_LT, TK_ID, TK_EQ,
	       TK_FLOAT, TK_COMMA, TK_ID, TK_EQ, TK_AT, TK_ID, TK_COMMA, TK_ID, TK_EQ, TK_ELEMTYPE, TK_LBRACKET,
	       TK_INT, TK_RBRACKET, TK_LBRACE, TK_INT, TK_COMMA, TK_INT, TK_RBRACE, TK_GT, TK_LPAREN, TK_ID,
	       TK_COMMA, TK_COMMA, TK_STRING, TK_RPAREN);
	EXPECT("x: seq(map(int64, optional(sparse_tensor(float[?]))))", TK_ID, TK_COLON, TK_SEQ, TK_LPAREN, TK_MAP,
	       TK_LPAREN, TK_ELEMTYPE, TK_COMMA, TK_OPTIONAL, TK_LPAREN, TK_SPARSE_TENSOR, TK_LPAREN, TK_ELEMTYPE,
	       TK_LBRACKET, TK_QUESTION, TK_RBRACKET, TK_RPAREN, TK_RPAREN, TK_RPAREN, TK_RPAREN);
	EXPECT("opaque(a.b, c)", TK_OPAQUE, TK_LPAREN, TK_ID, TK_DOT, TK_ID, TK_COMMA, TK_ID, TK_RPAREN);
	EXPECT("a . b", TK_ID, TK_DOT, TK_ID);
	EXPECT("x = inf, y = -nan", TK_ID, TK_EQ, TK_FLOATWORD, TK_COMMA, TK_ID, TK_EQ, TK_FLOAT);
}
END_TEST

START_TEST(punctuation)
{
	static const struct {
		const char *s;
		int code;
	} t[] = {
		{"<", TK_LT},       {">", TK_GT},       {"(", TK_LPAREN},   {")", TK_RPAREN},   {"[", TK_LBRACKET},
		{"]", TK_RBRACKET}, {"{", TK_LBRACE},   {"}", TK_RBRACE},   {",", TK_COMMA},    {":", TK_COLON},
		{"=", TK_EQ},       {"=>", TK_ARROW},   {".", TK_DOT},      {"@", TK_AT},       {"?", TK_QUESTION},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		expect_single(t[i].s, t[i].code, 0);
}
END_TEST

/* '=>' is one token of two adjacent characters; nothing may separate them. */
START_TEST(arrow)
{
	EXPECT("=>", TK_ARROW);
	EXPECT("= >", TK_EQ, TK_GT);
	EXPECT("=\n>", TK_EQ, TK_GT);
	EXPECT("=# c\n>", TK_EQ, TK_GT);
	EXPECT("==>", TK_EQ, TK_ARROW);
	EXPECT("=>>", TK_ARROW, TK_GT);
	EXPECT("=>=", TK_ARROW, TK_EQ);
	EXPECT("<=>", TK_LT, TK_ARROW);
	EXPECT(")=>(", TK_RPAREN, TK_ARROW, TK_LPAREN);
	ox_tok t = first("=>", 2);
	ck_assert_uint_eq(t.n, 2);
	t = first("=", 1);
	ck_assert_int_eq(t.code, TK_EQ);
	ck_assert_uint_eq(t.n, 1);
}
END_TEST

/* ---- keywords and element types ---------------------------------------------------- */

/* SYNTAX.md §2.5: the 26 element-type names and their TensorProto.DataType values. */
static const struct {
	const char *name;
	int dtype;
} spec_types[] = {
	{"float", 1},          {"uint8", 2},        {"int8", 3},            {"uint16", 4},      {"int16", 5},
	{"int32", 6},          {"int64", 7},        {"string", 8},          {"bool", 9},        {"float16", 10},
	{"double", 11},        {"uint32", 12},      {"uint64", 13},         {"complex64", 14},  {"complex128", 15},
	{"bfloat16", 16},      {"float8e4m3fn", 17}, {"float8e4m3fnuz", 18}, {"float8e5m2", 19}, {"float8e5m2fnuz", 20},
	{"uint4", 21},         {"int4", 22},        {"float4e2m1", 23},     {"float8e8m0", 24}, {"uint2", 25},
	{"int2", 26},
};
enum { NSPEC_TYPES = sizeof spec_types / sizeof spec_types[0] };

/* The other keywords (SYNTAX.md §1.7) and the token each has. */
static const struct {
	const char *word;
	int code;
} keywords[] = {
	{"seq", TK_SEQ},
	{"map", TK_MAP},
	{"optional", TK_OPTIONAL},
	{"sparse_tensor", TK_SPARSE_TENSOR},
	{"opaque", TK_OPAQUE},
	{"ir_version", TK_IR_VERSION},
	{"opset_import", TK_OPSET_IMPORT},
	{"producer_name", TK_PRODUCER_NAME},
	{"producer_version", TK_PRODUCER_VERSION},
	{"domain", TK_DOMAIN},
	{"model_version", TK_MODEL_VERSION},
	{"doc_string", TK_DOC_STRING},
	{"metadata_props", TK_METADATA_PROPS},
	{"overload", TK_OVERLOAD},
};
enum { NKEYWORDS = sizeof keywords / sizeof keywords[0] };

/* The table in src/types.c is the one in the spec. */
START_TEST(types_table_is_the_spec)
{
	int named = 0;
	for (int t = -2; t <= OX_MAX_ELEM_TYPE + 10; t++)
		named += ox_elem_name(t) != NULL;
	ck_assert_int_eq(named, NSPEC_TYPES);
	ck_assert_ptr_null(ox_elem_name(0)); /* UNDEFINED has no name */
	for (int i = 0; i < NSPEC_TYPES; i++) {
		const char *n = ox_elem_name(spec_types[i].dtype);
		ck_assert_msg(n && strcmp(n, spec_types[i].name) == 0, "type %d is '%s', want '%s'", spec_types[i].dtype,
			      n ? n : "(null)", spec_types[i].name);
		ck_assert_int_eq(ox_elem_lookup(spec_types[i].name, strlen(spec_types[i].name)), spec_types[i].dtype);
	}
}
END_TEST

/* Every name in the table lexes as ELEMTYPE with its enum value. */
START_TEST(every_element_type_name)
{
	int seen = 0;
	for (int t = -2; t <= OX_MAX_ELEM_TYPE + 10; t++) {
		const char *n = ox_elem_name(t);
		if (!n)
			continue;
		expect_single(n, TK_ELEMTYPE, t);
		seen++;
	}
	ck_assert_int_eq(seen, NSPEC_TYPES);
}
END_TEST

START_TEST(every_keyword)
{
	for (int i = 0; i < NKEYWORDS; i++)
		expect_single(keywords[i].word, keywords[i].code, 0);
	/* attribute-type names that are not element types have meaning only after ':' and
	 * are identifiers to the lexer; 'float', 'string' and 'sparse_tensor' are keywords */
	static const char *const attr_ids[] = {"int", "tensor", "graph", "type_proto", "floats", "ints",
					       "strings", "tensors", "graphs", "sparse_tensors", "type_protos"};
	for (size_t i = 0; i < sizeof attr_ids / sizeof attr_ids[0]; i++)
		expect_single(attr_ids[i], TK_ID, 0);
}
END_TEST

/* The code a word must lex to, by the spec's tables. */
static int expected_word_code(const char *w, size_t n, int *dtype)
{
	*dtype = 0;
	for (int i = 0; i < NSPEC_TYPES; i++)
		if (strlen(spec_types[i].name) == n && memcmp(spec_types[i].name, w, n) == 0) {
			*dtype = spec_types[i].dtype;
			return TK_ELEMTYPE;
		}
	for (int i = 0; i < NKEYWORDS; i++)
		if (strlen(keywords[i].word) == n && memcmp(keywords[i].word, w, n) == 0)
			return keywords[i].code;
	static const char *const specials[] = {"inf", "infinity", "nan"};
	for (size_t i = 0; i < 3; i++)
		if (strlen(specials[i]) == n && strncasecmp(specials[i], w, n) == 0)
			return TK_FLOATWORD;
	return TK_ID;
}

static void check_word(const char *w, size_t n)
{
	if (n == 0 || (w[0] >= '0' && w[0] <= '9'))
		return; /* not an identifier */
	int dtype;
	int code = expected_word_code(w, n, &dtype);
	ox_lexer L;
	ox_lex_init(&L, w, n);
	ox_tok t = ox_lex(&L);
	REQUIRE(t.code == code && t.n == n && (code != TK_ELEMTYPE || t.v == dtype),
		"'%.*s': %s (v %d) of length %u, want %s (v %d)", (int)n, w, code_name(t.code), t.v, t.n,
		code_name(code), dtype);
}

/* Near misses of every type name and keyword (one character deleted, inserted, replaced
 * or its case flipped; prefixes; suffixes) are identifiers, unless they happen to be
 * another name of the tables: the lexer knows no element-type word beyond the table. */
START_TEST(near_misses_are_identifiers)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	const char *words[NSPEC_TYPES + NKEYWORDS];
	int nw = 0;
	for (int i = 0; i < NSPEC_TYPES; i++)
		words[nw++] = spec_types[i].name;
	for (int i = 0; i < NKEYWORDS; i++)
		words[nw++] = keywords[i].word;
	char buf[64];
	long checked = 0;
	for (int k = 0; k < nw; k++) {
		const char *w = words[k];
		size_t n = strlen(w);
		for (size_t i = 0; i <= n; i++) {
			check_word(w, i); /* prefix */
			if (i < n) {  /* deletion */
				memcpy(buf, w, i);
				memcpy(buf + i, w + i + 1, n - i - 1);
				check_word(buf, n - 1);
				memcpy(buf, w, n); /* case flip */
				if ((w[i] | 0x20) >= 'a' && (w[i] | 0x20) <= 'z') {
					buf[i] ^= 0x20;
					check_word(buf, n);
				}
			}
			for (const char *c = alphabet; *c; c++) {
				memcpy(buf, w, i); /* insertion */
				buf[i] = *c;
				memcpy(buf + i + 1, w + i, n - i);
				check_word(buf, n + 1);
				if (i < n) { /* substitution */
					memcpy(buf, w, n);
					buf[i] = *c;
					check_word(buf, n);
				}
				checked += 2;
			}
		}
	}
	static const char *const notable[] = {
		"float32", "float64", "int", "uint", "bfloat", "float8", "complex", "FLOAT", "Float16", "float8e4m3",
		"float8e5m2fnu", "float4", "int1", "uint1", "undefined", "tensor", "fp16", "half", "float8e8m0fnu",
		"float4e2m1fn", "e4m3", "float8e4m3fnuzz", "int44", "boolean", "str", "strings", "uint128", "complex32",
		"bf16", "f16", "float8_e4m3fn", "float8e4m3b11fnuz", "int8_t", "Seq", "MAP", "IR_VERSION", "opaque_",
		"_map", "mapping", "domains", "doc", "metadata", "Optional",
	};
	for (size_t i = 0; i < sizeof notable / sizeof notable[0]; i++)
		expect_single(notable[i], TK_ID, 0);
	ck_assert_int_gt(checked, 10000);
}
END_TEST

/* ---- special floats: inf, infinity, nan ------------------------------------------- */

START_TEST(special_floats)
{
	static const char *const words[] = {"inf", "INF", "Inf", "iNF", "infinity", "Infinity", "INFINITY",
					    "nan", "NaN", "NAN", "nAN"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		expect_single(words[i], TK_FLOATWORD, 0);
	static const char *const negative[] = {"-inf", "-INF", "-Infinity", "-infinity", "-nan", "-NaN"};
	for (size_t i = 0; i < sizeof negative / sizeof negative[0]; i++)
		expect_single(negative[i], TK_FLOAT, 0);
	/* a trailing digit or '_' makes a word an identifier (SYNTAX-DECISIONS P3: an
	 * attribute graph may be named nan_g) */
	static const char *const ids[] = {"inf1", "nan0", "infinity2", "naninf", "inf_x", "nan_g", "infinit",
					  "infinityy", "Inf_", "NaN_", "in", "na", "infi", "_inf", "xnan", "NAN9"};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		expect_single(ids[i], TK_ID, 0);
	/* after '-' only a number or a special float may follow */
	expect_error("-inf1", OX_LEX_BAD_SPECIAL, 0);
	expect_error("-nan0", OX_LEX_BAD_SPECIAL, 0);
	expect_error("-nan_g", OX_LEX_BAD_SPECIAL, 0);
	expect_error("-infinit", OX_LEX_BAD_SPECIAL, 0);
	expect_error("-abc", OX_LEX_BAD_SPECIAL, 0);
	EXPECT("-inf,", TK_FLOAT, TK_COMMA);
	EXPECT("{inf}", TK_LBRACE, TK_FLOATWORD, TK_RBRACE);
	EXPECT("-inf}", TK_FLOAT, TK_RBRACE);
}
END_TEST

/* ---- numbers ------------------------------------------------------------------------ */

START_TEST(numbers)
{
	static const char *const ints[] = {"0", "7", "123", "-0", "-12", "007", "-007",
					   "99999999999999999999999999"}; /* range is checked later */
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		expect_single(ints[i], TK_INT, 0);
	static const char *const floats[] = {"1.", "1.5", "-1.5", "1e5", "1E5", "1e+5", "1e-5", "1.5e3", "1.e3",
					     "-0.0", "0.000", "-0.", "1E-05", "123.456e+007", "0e0"};
	for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
		expect_single(floats[i], TK_FLOAT, 0);
	EXPECT("1,2", TK_INT, TK_COMMA, TK_INT);
	EXPECT("1]", TK_INT, TK_RBRACKET);
	EXPECT("{1.5}", TK_LBRACE, TK_FLOAT, TK_RBRACE);
	EXPECT("1.5,-2", TK_FLOAT, TK_COMMA, TK_INT);
	EXPECT("-1e-5>", TK_FLOAT, TK_GT);
	EXPECT(".5", TK_DOT, TK_INT); /* a leading dot is not part of a literal */
	EXPECT("1 2", TK_INT, TK_INT);
	EXPECT("[N,3]", TK_LBRACKET, TK_ID, TK_COMMA, TK_INT, TK_RBRACKET);
}
END_TEST

/* Malformed numbers are lexical errors of the right kind, at the literal's start. */
START_TEST(malformed_numbers)
{
	static const struct {
		const char *s;
		int kind;
	} t[] = {
		{"1e", OX_LEX_BAD_EXPONENT},   {"1e+", OX_LEX_BAD_EXPONENT},   {"1.5E-", OX_LEX_BAD_EXPONENT},
		{"-1e", OX_LEX_BAD_EXPONENT},  {"1e,", OX_LEX_BAD_EXPONENT},   {"2.e}", OX_LEX_BAD_EXPONENT},
		{"1x", OX_LEX_BAD_NUMBER},     {"0x10", OX_LEX_BAD_NUMBER},    {"1.5.3", OX_LEX_BAD_NUMBER},
		{"1e5x", OX_LEX_BAD_NUMBER},   {"12abc", OX_LEX_BAD_NUMBER},   {"1_000", OX_LEX_BAD_NUMBER},
		{"1e5.3", OX_LEX_BAD_NUMBER},  {"-2a", OX_LEX_BAD_NUMBER},     {"- 2", OX_LEX_LONE_MINUS},
		{"-", OX_LEX_LONE_MINUS},      {"-.5", OX_LEX_LONE_MINUS},     {"-,", OX_LEX_LONE_MINUS},
		{"-#c\n2", OX_LEX_LONE_MINUS}, {"+2", OX_LEX_BAD_CHAR},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		expect_error(t[i].s, t[i].kind, 0);
	/* the error token covers the malformed literal */
	ox_tok e = first("0x10,", 5);
	ck_assert_int_eq(e.code, ERR);
	ck_assert_uint_eq(e.n, 4);
	expect_error("x = 1e", OX_LEX_BAD_EXPONENT, 4);
	expect_error("[1, 2, 3e+]", OX_LEX_BAD_EXPONENT, 7);
}
END_TEST

/* ---- strings -------------------------------------------------------------------------- */

START_TEST(strings)
{
	expect_single("\"abc\"", TK_STRING, 0);
	expect_single("\"\"", TK_STRING, 0);
	expect_single("\"a\\\"b\"", TK_STRING, 0);           /* "a\"b" */
	expect_single("\"a\\\\\"", TK_STRING, 0);            /* "a\\" */
	expect_single("\"line1\nline2\r\n\"", TK_STRING, 0); /* raw newlines kept */
	expect_single("\"tab\there\"", TK_STRING, 0);
	expect_single("\"#not a comment\"", TK_STRING, 0);
	expect_single("\"#@ not an annotation\"", TK_STRING, 0);
	expect_single("\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"", TK_STRING, 0); /* UTF-8 bytes */
	expect_single("\"\\n\\x41\"", TK_STRING, 0);
	EXPECT("\"a\\\\\" \"b\"", TK_STRING, TK_STRING);
	EXPECT("\"a\"\"b\"", TK_STRING, TK_STRING);
	EXPECT("x=\"s\",", TK_ID, TK_EQ, TK_STRING, TK_COMMA);
	ox_tok t = first("\"a\\\"b\" c", 8);
	ck_assert_uint_eq(t.n, 6);
}
END_TEST

/* P3: a NUL byte inside a string literal is kept; anywhere else it is an error, not the
 * end of the input. */
START_TEST(nul_bytes)
{
	static const char in_string[] = "\"a\0b\" c";
	ox_lexer L;
	ox_lex_init(&L, in_string, sizeof in_string - 1);
	ox_tok t = ox_lex(&L);
	ck_assert_int_eq(t.code, TK_STRING);
	ck_assert_uint_eq(t.n, 5);
	t = ox_lex(&L);
	ck_assert_int_eq(t.code, TK_ID);
	static const char escaped[] = "\"\\\0\"";
	t = first(escaped, sizeof escaped - 1);
	ck_assert_int_eq(t.code, TK_STRING);
	ck_assert_uint_eq(t.n, 4);

	static const struct {
		const char *s;
		size_t n, off;
	} outside[] = {
		{"\0", 1, 0},
		{"a\0b", 3, 1},
		{"g () => () {}\0", 14, 13},
		{"# comment \0 more\nx", 18, 10},
		{"#@ annotation\0\n", 15, 13},
		{"x \0", 3, 2},
	};
	for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
		ox_lex_init(&L, outside[i].s, outside[i].n);
		for (;;) {
			t = ox_lex(&L);
			ck_assert_msg(t.code != OX_TOK_EOF, "case %zu: NUL ended the input", i);
			if (t.code == ERR)
				break;
		}
		ck_assert_msg(t.v == OX_LEX_NUL && (size_t)(t.p - outside[i].s) == outside[i].off,
			      "case %zu: error %d at %td", i, t.v, t.p - outside[i].s);
	}
}
END_TEST

START_TEST(bad_strings)
{
	expect_error("\"abc", OX_LEX_UNTERMINATED_STRING, 0);
	expect_error("\"", OX_LEX_UNTERMINATED_STRING, 0);
	expect_error("\"abc\\", OX_LEX_UNTERMINATED_STRING, 0);
	expect_error("\"abc\\\"", OX_LEX_UNTERMINATED_STRING, 0);
	expect_error("x = \"a\nb\nc", OX_LEX_UNTERMINATED_STRING, 4);
	expect_error("'abc'", OX_LEX_SINGLE_QUOTE, 0);
	expect_error("[\"\": 1, 'x': 2]", OX_LEX_SINGLE_QUOTE, 8);
}
END_TEST

/* Text is UTF-8: a byte that is not part of a well-formed character is refused where it
 * is, inside a string, a comment, an annotation or a test-case line alike. */
START_TEST(invalid_utf8)
{
	static const struct {
		const char *s;
		size_t off;
	} bad[] = {
		{"\"a\xff" "z\"", 2},          {"\"\x80\"", 1},                /* a byte, a stray continuation */
		{"\"\xc0\xaf\"", 1},          {"\"\xe0\x80\xaf\"", 1},        /* overlong forms */
		{"\"\xf0\x80\x80\xaf\"", 1},  {"\"\xed\xa0\x80\"", 1},        /* overlong, a surrogate */
		{"\"\xf4\x90\x80\x80\"", 1},  {"\"\xf5\x80\x80\x80\"", 1},    /* beyond U+10FFFF */
		{"\"\xc3\"", 1},             {"\"\xe4\xb8\"", 1},             /* cut short by the quote */
		{"\"ab\xe4\xb8", 3},          {"\"\\\xff\"", 2},              /* by the end; escaped */
		{"x # caf\xe9\nb", 7},       {"#@ doc_string: \"\xfe\"\n", 16}, /* comment, annotation */
		{"#@ input x = string[1] {\"\xff\"}\n", 25},                   /* a test-case line */
		{"#@ d: \"a\\\xff\"\n", 9},  {"\xff", 0},  {"a\x80", 1},       /* escaped; outside */
		{"\"\xe4\xb8\xad\xff\"", 4},                                    /* after a good character */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_error(bad[i].s, OX_LEX_BAD_UTF8, bad[i].off);
	/* the error token is the one byte, so the caret points at it */
	ox_tok t = first("\"\xff\"", 3);
	ck_assert_int_eq(t.code, ERR);
	ck_assert_uint_eq(t.n, 1);
	/* well-formed UTF-8 stays as it is: in strings, escaped, in comments and annotations */
	expect_single("\"\\\xc3\xa9\\\xf4\x8f\xbf\xbf\"", TK_STRING, 0);
	EXPECT("a # \xe4\xb8\xad\xf0\x9f\x98\x80\nb", TK_ID, TK_ID);
	EXPECT("#@ doc_string: \"\xe4\xb8\xad\"\ng", TK_ANNOT, TK_ID);
	EXPECT("#@ input x = string[1] {\"\xc3\xa9\"}\ng", TK_ID);
	EXPECT("\"\\xff\"", TK_STRING); /* the escape is text */
}
END_TEST

/* ---- comments, annotations, whitespace ----------------------------------------------- */

START_TEST(comments_and_annotations)
{
	EXPECT("a # comment\nb", TK_ID, TK_ID);
	EXPECT("a#b\nc", TK_ID, TK_ID);
	EXPECT("# only a comment", END);
	EXPECT("#\n#\n", END);
	EXPECT("# @ not an annotation\nx", TK_ID);
	EXPECT("##@ not an annotation either\nx", TK_ID);
	EXPECT("x = \"#\" # c", TK_ID, TK_EQ, TK_STRING);
	EXPECT("a, # c1\n # c2\n b", TK_ID, TK_COMMA, TK_ID);
	EXPECT("#@ doc_string: \"x\"\ng", TK_ANNOT, TK_ID);
	EXPECT("a #@x", TK_ID, TK_ANNOT);
	EXPECT("#@", TK_ANNOT);
	EXPECT("#@a\n#@b\n", TK_ANNOT, TK_ANNOT);
	/* an annotation runs up to, not including, the line end: LF, CRLF or a lone CR */
	static const char text[] = "  #@ doc: \"a # b\"\r\nx";
	ox_tok t = first(text, sizeof text - 1);
	ck_assert_int_eq(t.code, TK_ANNOT);
	ck_assert_int_eq(t.p - text, 2);
	ck_assert_uint_eq(t.n, strlen("#@ doc: \"a # b\""));
	/* a CR alone ends it too, unless escaped (how the printer writes a CR in a string) */
	EXPECT("#@a\rx", TK_ANNOT, TK_ID);
	EXPECT("#@ d: \"a\\\rb\"\rx", TK_ANNOT, TK_ID);
	EXPECT("# plain\rx", TK_ID);
	t = first("#@", 2);
	ck_assert_uint_eq(t.n, 2);
}
END_TEST

/* With ox_lexer.comments set, as the formatter lexes: comments (test case lines among
 * them) come back as tokens up to the end of their line; annotations stay annotations. */
START_TEST(comments_as_tokens)
{
	static const char text[] = "a # one\n#@ input x = float {1}\n#@ doc: \"d\"\n\"#s\" #two\r\n#";
	static const struct {
		int code;
		const char *s;
	} want[] = {{TK_ID, "a"},         {OX_TOK_COMMENT, "# one"}, {OX_TOK_COMMENT, "#@ input x = float {1}"},
		    {TK_ANNOT, "#@ doc: \"d\""}, {TK_STRING, "\"#s\""}, {OX_TOK_COMMENT, "#two"},
		    {OX_TOK_COMMENT, "#"},   {OX_TOK_EOF, ""}};
	ox_lexer L;
	ox_lex_init(&L, text, sizeof text - 1);
	L.comments = true;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		ox_tok t = ox_lex(&L);
		ck_assert_msg(t.code == want[i].code && t.n == strlen(want[i].s) && !memcmp(t.p, want[i].s, t.n),
			      "token %zu is %s '%.*s', want %s '%s'", i, code_name(t.code), (int)t.n, t.p,
			      code_name(want[i].code), want[i].s);
	}
	/* without the flag (ox_lex_init's default) they are skipped */
	EXPECT(text, TK_ID, TK_ANNOT, TK_STRING);
}
END_TEST

START_TEST(whitespace)
{
	EXPECT(" \t\n\v\f\ra \t\n\v\f\rb \t\n\v\f\r", TK_ID, TK_ID);
	static const struct {
		const char *s;
		size_t off;
	} bad[] = {
		{"a\x01", 1},     {"\x1b", 0},           {"a\x7f", 1},       {"\xc2\xa0x", 0}, /* no-break space */
		{"\xe3\x80\x80", 0}, /* ideographic space */ {"\xc3\xa9t\xc3\xa9", 0}, /* non-ASCII letters */
		{"a$", 1},       {"x = a;", 5},          {"a\\b", 1},        {"`", 0},
		{"a%b", 1},       {"a&", 1},              {"a*", 1},           {"a/", 1},
		{"a|", 1},        {"a~", 1},              {"a^", 1},           {"a!", 1},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_error(bad[i].s, OX_LEX_BAD_CHAR, bad[i].off);
	expect_error("a-b", OX_LEX_BAD_SPECIAL, 1);
}
END_TEST

START_TEST(identifiers)
{
	static const char *const ids[] = {"x", "_", "_x1", "X_Y_9", "a1b2", "__init__", "Relu", "ONNX"};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		expect_single(ids[i], TK_ID, 0);
	EXPECT("a.b", TK_ID, TK_DOT, TK_ID);
	EXPECT("x1.opt", TK_ID, TK_DOT, TK_ID);
	EXPECT("float[N]", TK_ELEMTYPE, TK_LBRACKET, TK_ID, TK_RBRACKET);
	EXPECT("floatx", TK_ID);
	EXPECT("float16x", TK_ID);
	EXPECT("int8[2]", TK_ELEMTYPE, TK_LBRACKET, TK_INT, TK_RBRACKET);
}
END_TEST

/* ---- offsets and lengths --------------------------------------------------------------- */

START_TEST(offsets_and_lengths)
{
	static const char text[] = "  g (float[N] x) => (y)\n{\n  y = a.Relu(x) # c\n  z = \"q\\\"r\"\n}";
	static const struct {
		int code;
		const char *s; /* the token's text */
	} want[] = {
		{TK_ID, "g"},       {TK_LPAREN, "("},   {TK_ELEMTYPE, "float"}, {TK_LBRACKET, "["},
		{TK_ID, "N"},       {TK_RBRACKET, "]"}, {TK_ID, "x"},           {TK_RPAREN, ")"},
		{TK_ARROW, "=>"},   {TK_LPAREN, "("},   {TK_ID, "y"},           {TK_RPAREN, ")"},
		{TK_LBRACE, "{"},   {TK_ID, "y"},       {TK_EQ, "="},           {TK_ID, "a"},
		{TK_DOT, "."},      {TK_ID, "Relu"},    {TK_LPAREN, "("},       {TK_ID, "x"},
		{TK_RPAREN, ")"},   {TK_ID, "z"},       {TK_EQ, "="},           {TK_STRING, "\"q\\\"r\""},
		{TK_RBRACE, "}"},
	};
	ox_lexer L;
	ox_lex_init(&L, text, sizeof text - 1);
	const char *from = text;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		ox_tok t = ox_lex(&L);
		const char *at = strstr(from, want[i].s); /* the next occurrence is the token */
		ck_assert_msg(t.code == want[i].code && t.p == at && t.n == strlen(want[i].s),
			      "token %zu: %s at %td length %u, want %s at %td length %zu", i, code_name(t.code),
			      t.p - text, t.n, code_name(want[i].code), at - text, strlen(want[i].s));
		from = at + t.n;
	}
	ox_tok t = ox_lex(&L);
	ck_assert_int_eq(t.code, OX_TOK_EOF);
	ck_assert_ptr_eq(t.p, text + sizeof text - 1);
	ck_assert_uint_eq(t.n, 0);
	/* EOF again after EOF */
	t = ox_lex(&L);
	ck_assert_int_eq(t.code, OX_TOK_EOF);
}
END_TEST

/* The length bounds the input: text beyond it is never looked at. */
START_TEST(length_is_the_end)
{
	static const struct {
		const char *s;
		size_t n;
		int code;
		size_t tok_n;
	} t[] = {
		{"float16", 5, TK_ELEMTYPE, 5}, {"inf1", 3, TK_FLOATWORD, 3}, {"12345", 2, TK_INT, 2},
		{"1.5e3", 4, ERR, 4},           {"=>", 1, TK_EQ, 1},           {"\"ab\"", 3, ERR, 3},
		{"abc def", 3, TK_ID, 3},       {"-inf", 1, ERR, 1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		ox_tok k = first(t[i].s, t[i].n);
		ck_assert_msg(k.code == t[i].code, "'%.*s': %s", (int)t[i].n, t[i].s, code_name(k.code));
		if (k.code != ERR)
			ck_assert_msg(k.n == t[i].tok_n, "'%.*s': length %u", (int)t[i].n, t[i].s, k.n);
	}
	ck_assert_int_eq(first("1.5e3", 4).v, OX_LEX_BAD_EXPONENT);
}
END_TEST

/* ---- truncation -------------------------------------------------------------------------- */

static const char *const samples[] = {
	"<ir_version: 8, opset_import: [\"\" : 18, \"com.microsoft\": 1], producer_name: \"p\\\"q\">\n"
	"demo (float[N, 3] X, int64[2] shape = {1, -1}) => (float[M] Y)\n"
	"<float[3] bias = {0.5, 1e-3, -2.E+1}, string[1] s = {\"a\\\\b\"}>\n"
	"{\n"
	"  [add1] T = Add(X, bias)       # broadcast add\n"
	"  #@ doc_string: \"x\"\n"
	"  Y = com.ms.Reshape:ov <allowzero = 0, f = -inf, g = NaN, r = @ref, t: tensor = float[1] t {inf}> (T, ,)\n"
	"}\n",
	"f <a: float = 1.5e-7, b = \"\xc3\xa9\\\"\"> (x) => (y) <seq(map(int64, float[?, \"M + N\"])) t> { y = Identity(x) }",
	"x = body = g (x) => (y) { y = Relu(x) }, v = [1, 2, 3], w = [0.5, -1.], e = - 2, q = 1e, s = 'no'",
	"-infinity -INF nan_g inf1 0x10 1.5.3 \"unterminated \\",
	"\"\\",
	"#",
	"#@",
	"-",
	"1e+",
	"=",
};

/* Lexes text[0..len) copied into a buffer of exactly len bytes (no terminator), until
 * the end: every token lies inside the buffer and the lexer always moves forward. */
static void lex_exact(const char *text, size_t len)
{
	char *buf = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, text, len);
	ox_lexer L;
	ox_lex_init(&L, buf, len);
	const char *last = buf;
	for (size_t guard = 0;; guard++) {
		REQUIRE(guard <= len + 1, "length %zu: the lexer does not advance", len);
		ox_tok t = ox_lex(&L);
		REQUIRE(t.p >= buf && t.p + t.n <= buf + len, "length %zu: token outside the buffer", len);
		REQUIRE(t.p >= last, "length %zu: token before the previous one", len);
		if (t.code == OX_TOK_EOF) {
			REQUIRE(t.p == buf + len && t.n == 0, "length %zu: EOF before the end", len);
			break;
		}
		REQUIRE(t.n > 0, "length %zu: empty %s token", len, code_name(t.code));
		REQUIRE(L.cur > last && L.cur <= buf + len, "length %zu: no progress", len);
		last = t.p + t.n;
	}
	free(buf);
}

START_TEST(every_truncation)
{
	const char *text = samples[_i];
	size_t n = strlen(text);
	for (size_t len = 0; len <= n; len++)
		lex_exact(text, len);
	/* and every suffix, so each construct also starts at the buffer's first byte */
	for (size_t start = 0; start < n; start++)
		lex_exact(text + start, n - start);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lexer");
	TCase *tc = tcase_create("tokens");
	tcase_add_test(tc, sequences);
	tcase_add_test(tc, punctuation);
	tcase_add_test(tc, arrow);
	tcase_add_test(tc, identifiers);
	tcase_add_test(tc, offsets_and_lengths);
	tcase_add_test(tc, length_is_the_end);
	suite_add_tcase(s, tc);

	tc = tcase_create("keywords");
	tcase_add_test(tc, types_table_is_the_spec);
	tcase_add_test(tc, every_element_type_name);
	tcase_add_test(tc, every_keyword);
	tcase_add_test(tc, near_misses_are_identifiers);
	tcase_add_test(tc, special_floats);
	suite_add_tcase(s, tc);

	tc = tcase_create("literals");
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, malformed_numbers);
	tcase_add_test(tc, strings);
	tcase_add_test(tc, nul_bytes);
	tcase_add_test(tc, bad_strings);
	tcase_add_test(tc, invalid_utf8);
	suite_add_tcase(s, tc);

	tc = tcase_create("trivia");
	tcase_add_test(tc, comments_and_annotations);
	tcase_add_test(tc, comments_as_tokens);
	tcase_add_test(tc, whitespace);
	suite_add_tcase(s, tc);

	tc = tcase_create("truncation");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_truncation, 0, sizeof samples / sizeof samples[0]);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
