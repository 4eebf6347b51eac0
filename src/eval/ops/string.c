/* String ops: StringNormalizer, StringConcat, StringSplit and RegexFullMatch. Case
 * mapping is ASCII (the C locale; en_US maps ASCII letters the same way). */
#define _GNU_SOURCE /* newlocale, uselocale; REG_STARTEND */
#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "eval/move.h"

static const char *str_bytes(const ox_str *s)
{
	return s->p ? s->p : "";
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static char ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

/* ---- StringNormalizer ------------------------------------------------------------ */

static bool same_word(const char *a, size_t an, const char *b, size_t bn, bool sensitive)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (sensitive ? a[i] != b[i] : ascii_lower(a[i]) != ascii_lower(b[i]))
			return false;
	return true;
}

static bool is_stopword(const Onnx__AttributeProto *sw, const ox_str *s, bool sensitive)
{
	for (size_t i = 0; sw && i < sw->n_strings; i++)
		if (same_word((const char *)sw->strings[i].data, sw->strings[i].len, str_bytes(s), s->n, sensitive))
			return true;
	return false;
}

/* Input 0, which must be a string tensor; NULL after failing. */
static ox_val *string_input(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (x && x->type != OX_STRING) {
		ox_kfail(k, "input must be a string tensor, not %s", ox_elem_label(x->type));
		return NULL;
	}
	return x;
}

/* The locales whose case mapping of ASCII letters this kernel reproduces. */
static int check_locale(ox_k *k)
{
	static const char *const ok[] = {"", "C", "POSIX", "C.UTF-8", "en_US", "en_US.UTF-8", "en_US.utf8"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (ox_attr_str_is(k, "locale", "", ok[i]))
			return 0;
	size_t n;
	const char *l = ox_attr_str(k, "locale", "", &n);
	return ox_kfail(k, "locale '%.*s' is not supported: only en_US and the C locale (ASCII case mapping)",
			(int)(n > 64 ? 64 : n), l);
}

int ox_op_StringNormalizer(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || check_locale(k) < 0)
		return -1;
	if (x->type != OX_STRING)
		return ox_kfail(k, "input must be a string tensor, not %s", ox_elem_label(x->type));
	if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
		return ox_kfail(k, "input must have shape [C] or [1, C]");
	int action = ox_attr_str_is(k, "case_change_action", "NONE", "LOWER")   ? 1
		     : ox_attr_str_is(k, "case_change_action", "NONE", "UPPER") ? 2
										 : 0;
	if (!action && !ox_attr_str_is(k, "case_change_action", "NONE", "NONE"))
		return ox_kfail(k, "case_change_action must be NONE, LOWER or UPPER");
	bool sensitive = ox_attr_int(k, "is_case_sensitive", 0) != 0;
	const Onnx__AttributeProto *sw = ox_attr(k, "stopwords");
	const ox_str *xs = x->data;
	int64_t kept = 0;
	for (int64_t i = 0; i < x->count; i++)
		kept += !is_stopword(sw, &xs[i], sensitive);
	/* all dropped: one empty string, [1] or [1, 1] */
	int64_t dims[2] = {1, kept ? kept : 1};
	ox_val *y = ox_out_tensor(k, 0, OX_STRING, x->rank, x->rank == 1 ? dims + 1 : dims);
	if (!y)
		return -1;
	ox_str *ys = y->data;
	for (int64_t i = 0, j = 0; i < x->count; i++) {
		if (is_stopword(sw, &xs[i], sensitive))
			continue;
		if (!ox_str_set(&ys[j], str_bytes(&xs[i]), xs[i].n))
			return ox_kfail(k, "out of memory");
		for (size_t c = 0; c < ys[j].n; c++)
			ys[j].p[c] = action == 1 ? ascii_lower(ys[j].p[c]) : action == 2 ? ascii_upper(ys[j].p[c]) : ys[j].p[c];
		j++;
	}
	return 0;
}

/* ---- StringConcat ---------------------------------------------------------------- */

int ox_op_StringConcat(ox_k *k)
{
	ox_val *a = ox_in_tensor(k, 0, true), *b = ox_in_tensor(k, 1, true);
	if (!a || !b)
		return -1;
	if (a->type != OX_STRING || b->type != OX_STRING)
		return ox_kfail(k, "inputs must be string tensors");
	int64_t dims[OX_MAX_RANK], sa[OX_MAX_RANK], sb[OX_MAX_RANK];
	int r;
	if (ox_broadcast_shape(k, a->rank, a->dims, b->rank, b->dims, &r, dims) < 0)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, OX_STRING, r, dims);
	if (!y)
		return -1;
	ox_broadcast_strides(a->rank, a->dims, r, dims, sa);
	ox_broadcast_strides(b->rank, b->dims, r, dims, sb);
	const ox_str *as = a->data, *bs = b->data;
	ox_str *ys = y->data;
	for (int64_t o = 0; o < y->count; o++) {
		int64_t rest = o, ia = 0, ib = 0;
		for (int d = r - 1; d >= 0; d--) {
			ia += rest % dims[d] * sa[d];
			ib += rest % dims[d] * sb[d];
			rest /= dims[d];
		}
		size_t n = as[ia].n + bs[ib].n;
		char *c = malloc(n + 1);
		if (!c)
			return ox_kfail(k, "out of memory");
		memcpy(c, str_bytes(&as[ia]), as[ia].n);
		memcpy(c + as[ia].n, str_bytes(&bs[ib]), bs[ib].n);
		c[n] = '\0';
		ys[o].p = c;
		ys[o].n = n;
	}
	return 0;
}

/* ---- StringSplit ----------------------------------------------------------------- */

/* Python's str.isspace() for ASCII; other Unicode spaces (U+00A0, U+2000...) are not
 * separators here. */
static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Splits s as Python's str.split(sep, maxsplit) does (sep NULL: runs of whitespace,
 * none at the ends; maxsplit < 0: no limit), storing the pieces in out when given.
 * Returns the number of pieces, or -1 when out of memory. */
static int64_t split_one(const ox_str *s, const char *sep, size_t sn, int64_t maxsplit, ox_str *out)
{
	const char *p = str_bytes(s), *end = p + s->n;
	int64_t n = 0;
	while (true) {
		if (!sep)
			while (p < end && is_space((unsigned char)*p))
				p++;
		if (!sep && p == end)
			return n;
		const char *q = p;
		if (maxsplit >= 0 && n == maxsplit)
			q = end;
		else if (sep)
			q = sn > (size_t)(end - p) ? NULL : memmem(p, (size_t)(end - p), sep, sn);
		else
			while (q < end && !is_space((unsigned char)*q))
				q++;
		if (!q)
			q = end;
		if (out && !ox_str_set(&out[n], p, (size_t)(q - p)))
			return -1;
		n++;
		if (q == end)
			return n;
		p = q + (sep ? sn : 1);
		if (sep && p == end) { /* a separator at the very end leaves one empty piece */
			if (out && !ox_str_set(&out[n], "", 0))
				return -1;
			return n + 1;
		}
	}
}

int ox_op_StringSplit(ox_k *k)
{
	ox_val *x = string_input(k);
	if (!x)
		return -1;
	if (x->rank >= OX_MAX_RANK)
		return ox_kfail(k, "the output's rank exceeds the limit of %d", OX_MAX_RANK);
	size_t sn;
	const char *sep = ox_attr_str(k, "delimiter", "", &sn);
	if (!sn)
		sep = NULL;
	int64_t maxsplit = ox_attr_int(k, "maxsplit", -1), most = 0, dims[OX_MAX_RANK];
	const ox_str *xs = x->data;
	for (int64_t i = 0; i < x->count; i++) {
		int64_t c = split_one(&xs[i], sep, sn, maxsplit, NULL);
		most = c > most ? c : most;
	}
	memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
	dims[x->rank] = most;
	ox_val *y = ox_out_tensor(k, 0, OX_STRING, x->rank + 1, dims);
	ox_val *z = y && ox_out_wanted(k, 1) ? ox_out_tensor(k, 1, OX_INT64, x->rank, x->dims) : NULL;
	if (!y || (ox_out_wanted(k, 1) && !z))
		return -1;
	for (int64_t i = 0; i < x->count; i++) {
		/* no pieces at all: y has no data to point into */
		int64_t c = split_one(&xs[i], sep, sn, maxsplit, most ? (ox_str *)y->data + i * most : NULL);
		if (c < 0)
			return ox_kfail(k, "out of memory");
		if (z)
			((int64_t *)z->data)[i] = c;
	}
	return 0;
}

/* ---- RegexFullMatch -------------------------------------------------------------- */

/* The pattern is RE2 syntax; it runs on glibc's POSIX extended regexes in the C.UTF-8
 * locale (so '.' and brackets see code points, as RE2's UTF-8 mode does), anchored as
 * ^(...)$. The translation keeps what both express alike and rejects the rest rather
 * than match differently:
 *  - POSIX is leftmost-longest, RE2 leftmost-first; for a full match only the set of
 *    matching strings counts, so greedy and non-greedy (*? +? ?? {n,m}?) agree and the
 *    '?' is dropped.
 *  - RE2's '.' excludes \n unless (?s); it becomes [^\n]. (?:...) and named groups
 *    become plain groups; a leading (?i) becomes REG_ICASE, (?s) a plain '.'.
 *  - \d \w \s (and \D \W \S outside brackets) and [[:alpha:]]-style classes are ASCII
 *    in RE2, so they become explicit ASCII sets (glibc's classes would take in non-ASCII
 *    letters in a UTF-8 locale); \n \t \r \f \v \a \xHH \x{...} become the characters;
 *    \A and \z become ^ and $; \Q...\E quotes.
 *  - Inside brackets POSIX has no escapes, so the set is rebuilt with ']' first and '-'
 *    last.
 *  - \b and \B have no POSIX form; glibc's GNU operator of the same name agrees with
 *    RE2 on ASCII text only (it counts non-ASCII letters as word characters), so they
 *    are used and a subject with a non-ASCII byte is refused.
 *  - Rejected: \pN \p{..} \PN (Unicode classes), \C, backreferences, [[:^class:]],
 *    flags other than a leading (?i)/(?s), repeated quantifiers (a** is an error in RE2
 *    but not in glibc), counts above 1000, NUL in the pattern.
 *  - Refused before regcomp, as RE2 refuses them: counts nested in each other whose
 *    product exceeds 1000 (glibc expands ((a{1000}){1000}){1000} into 10^9 copies and
 *    grows without bound), and groups nested deeper than 1000. */

#define RX_MAX_REPEAT 1000 /* RE2's kMaxRepeat, for one count and for nested products */
#define RX_MAX_DEPTH 1000  /* RE2's maximum nesting depth */

typedef struct rx {
	ox_text ere;     /* what the pattern translates to, so far */
	const char *err;
	int flags;       /* REG_ICASE */
	bool dotall;
	bool boundary;   /* \b or \B: subjects must be ASCII */
	/* nested repetition: prod[d] is the largest product of counts inside the group open
	 * at depth d, last the product of the atom a count would apply to */
	long prod[RX_MAX_DEPTH + 1];
	long last;
	int depth;
} rx;

static void rx_putc(rx *b, char c)
{
	ox_text_put(&b->ere, &c, 1);
}

/* A literal character outside brackets, escaped when special in ERE. */
static void rx_lit(rx *b, unsigned char c)
{
	if (c < 0x80 && strchr(".[]()*+?{}|^$\\", c) && c)
		rx_putc(b, '\\');
	rx_putc(b, (char)c);
}

/* UTF-8 encoding of code point u into s; returns the length (0 when invalid). */
static int utf8(uint32_t u, char *s)
{
	if (u < 0x80) {
		s[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		s[0] = (char)(0xc0 | u >> 6);
		s[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		s[0] = (char)(0xe0 | u >> 12);
		s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[2] = (char)(0x80 | (u & 0x3f));
		return (u >= 0xd800 && u < 0xe000) ? 0 : 3;
	}
	if (u < 0x110000) {
		s[0] = (char)(0xf0 | u >> 18);
		s[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[3] = (char)(0x80 | (u & 0x3f));
		return 4;
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* \xHH or \x{H...} at p (after the x): the code point, advancing *i; -1 when invalid. */
static int64_t rx_hex(const char *p, size_t n, size_t *i)
{
	int64_t u = 0;
	if (*i < n && p[*i] == '{') {
		size_t j = *i + 1;
		for (; j < n && p[j] != '}'; j++) {
			if (hexval(p[j]) < 0 || u > 0x10ffff)
				return -1;
			u = u * 16 + hexval(p[j]);
		}
		if (j >= n || j == *i + 1)
			return -1;
		*i = j + 1;
		return u;
	}
	if (*i + 2 > n || hexval(p[*i]) < 0 || hexval(p[*i + 1]) < 0)
		return -1;
	u = hexval(p[*i]) * 16 + hexval(p[*i + 1]);
	*i += 2;
	return u;
}

/* The single character an escape stands for (\n, \t, \xHH, \. ...), as UTF-8 into s;
 * returns its length, 0 when the escape is not a single character. */
static int rx_escape_char(const char *p, size_t n, size_t *i, char *s)
{
	char c = p[*i];
	static const char from[] = "ntrfva", to[] = "\n\t\r\f\v\a";
	const char *f = strchr(from, c);
	if (c && f) {
		(*i)++;
		s[0] = to[f - from];
		return 1;
	}
	if (c == 'x') {
		(*i)++;
		int64_t u = rx_hex(p, n, i);
		return u > 0 ? utf8((uint32_t)u, s) : 0;
	}
	if ((unsigned char)c < 0x80 && c && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')) {
		(*i)++;
		s[0] = c;
		return 1;
	}
	return 0;
}

/* ---- bracket expressions ---- */

typedef struct rx_set {
	uint8_t ascii[16]; /* bit per ASCII character */
	ox_text raw;       /* non-ASCII characters and ranges, as written */
} rx_set;

static void set_range(rx_set *s, unsigned lo, unsigned hi)
{
	for (unsigned c = lo; c <= hi && c < 128; c++)
		s->ascii[c / 8] |= (uint8_t)(1u << (c % 8));
}

static bool set_has(const rx_set *s, unsigned c)
{
	return s->ascii[c / 8] & (1u << (c % 8));
}

/* One UTF-8 character at p[*i] (or an escape) into s; its length, 0 when invalid. */
static int rx_class_char(const char *p, size_t n, size_t *i, char *s)
{
	if (p[*i] == '\\') {
		(*i)++;
		return *i < n ? rx_escape_char(p, n, i, s) : 0;
	}
	unsigned char c = (unsigned char)p[*i];
	int len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	if (*i + (size_t)len > n)
		return 0;
	memcpy(s, p + *i, (size_t)len);
	*i += (size_t)len;
	return len;
}

/* \d \w \s inside brackets: their ASCII sets. */
static bool rx_class_escape(rx_set *s, char c)
{
	switch (c) {
	case 'd': set_range(s, '0', '9'); return true;
	case 'w': set_range(s, '0', '9'); set_range(s, 'A', 'Z'); set_range(s, 'a', 'z'); set_range(s, '_', '_'); return true;
	case 's': set_range(s, '\t', '\n'); set_range(s, '\f', '\r'); set_range(s, ' ', ' '); return true;
	default: return false;
	}
}

/* [:name:] as RE2 defines it (ASCII): up to four ranges each. */
static bool rx_posix_class(rx_set *s, const char *name, size_t n)
{
	static const struct {
		const char *name, ranges[9];
	} classes[] = {
		{"alnum", "09AZaz"}, {"alpha", "AZaz"}, {"ascii", "\x01\x7f"}, {"blank", "\t\t  "},
		{"cntrl", "\x01\x1f\x7f\x7f"}, {"digit", "09"}, {"graph", "!~"}, {"lower", "az"}, {"print", " ~"},
		{"punct", "!/:@[`{~"}, {"space", "\t\r  "}, {"upper", "AZ"}, {"word", "09AZaz__"}, {"xdigit", "09AFaf"},
	};
	for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
		if (strlen(classes[c].name) != n || memcmp(classes[c].name, name, n))
			continue;
		for (const char *r = classes[c].ranges; *r; r += 2)
			set_range(s, (unsigned char)r[0], (unsigned char)r[1]);
		return true;
	}
	return false;
}

/* Writes the set as a POSIX bracket expression: ']' first, '[' after the plain
 * characters, '^' not first and '-' last. */
static void rx_set_emit(rx *b, rx_set *s, bool neg)
{
	rx_putc(b, '[');
	if (neg)
		rx_putc(b, '^');
	size_t start = b->ere.n;
	if (set_has(s, ']'))
		rx_putc(b, ']');
	for (unsigned c = 1; c < 128; c++) {
		if (!set_has(s, c) || strchr("]^-[", (int)c))
			continue;
		unsigned e = c;
		while (e + 1 < 128 && set_has(s, e + 1) && !strchr("]^-[", (int)(e + 1)))
			e++;
		rx_putc(b, (char)c);
		if (e >= c + 2) {
			rx_putc(b, '-');
			rx_putc(b, (char)e);
		} else if (e == c + 1) {
			rx_putc(b, (char)e);
		}
		c = e;
	}
	if (set_has(s, '['))
		rx_putc(b, '[');
	if (s->raw.n)
		ox_text_put(&b->ere, s->raw.p, s->raw.n);
	bool empty = b->ere.n == start;
	if (set_has(s, '-') && empty) /* "[-^]": a leading '-' is literal, and so is '^' after it */
		rx_putc(b, '-');
	if (set_has(s, '^'))
		rx_putc(b, '^');
	if (set_has(s, '-') && !empty)
		rx_putc(b, '-');
	rx_putc(b, ']');
}

/* One item of a bracket expression at p[*i]: a [:class:], an escape class, a character
 * or a range. Returns NULL, or what is wrong. */
static const char *rx_class_item(rx_set *s, const char *p, size_t n, size_t *i)
{
	if (p[*i] == '[' && *i + 1 < n && p[*i + 1] == ':') {
		const char *e = memmem(p + *i, n - *i, ":]", 2);
		size_t at = *i + 2;
		if (!e || !rx_posix_class(s, p + at, (size_t)(e - (p + at))))
			return "an unknown, negated or unterminated [:class:]";
		*i = (size_t)(e + 2 - p);
		return NULL;
	}
	if (p[*i] == '\\' && *i + 1 < n && rx_class_escape(s, p[*i + 1])) {
		*i += 2;
		return NULL;
	}
	char lo[4], hi[4];
	int ln = rx_class_char(p, n, i, lo), hn = 0;
	if (ln && *i + 1 < n && p[*i] == '-' && p[*i + 1] != ']') {
		(*i)++;
		if (!(hn = rx_class_char(p, n, i, hi)))
			ln = 0;
	}
	if (!ln)
		return "an escape in brackets that POSIX cannot express (\\D \\W \\S \\p ... or an invalid one)";
	if (ln == 1 && hn <= 1) {
		if (hn && (unsigned char)hi[0] < (unsigned char)lo[0])
			return "a bracket range out of order";
		set_range(s, (unsigned char)lo[0], (unsigned char)(hn ? hi[0] : lo[0]));
		return NULL;
	}
	if (ln == 1 || hn == 1)
		return "a bracket range between an ASCII and a non-ASCII character";
	ox_text_put(&s->raw, lo, (size_t)ln);
	if (hn) {
		ox_text_put(&s->raw, "-", 1);
		ox_text_put(&s->raw, hi, (size_t)hn);
	}
	return NULL;
}

/* A bracket expression at p[*i] (after '['). A lone '^' cannot be written as a POSIX
 * bracket ("[^]" negates), so it becomes an escaped character. */
static void rx_class(rx *b, const char *p, size_t n, size_t *i)
{
	rx_set s = {{0}, {0}};
	bool neg = *i < n && p[*i] == '^';
	*i += neg;
	for (bool first = true; !b->err && *i < n && (p[*i] != ']' || first); first = false)
		b->err = rx_class_item(&s, p, n, i);
	if (!b->err && *i >= n)
		b->err = "an unterminated bracket expression";
	(*i)++;
	if (!b->err) {
		bool only_caret = !s.raw.n && set_has(&s, '^');
		for (unsigned c = 0; only_caret && c < 128; c++)
			only_caret = c == '^' || !set_has(&s, c);
		if (only_caret && !neg)
			ox_text_put(&b->ere, "\\^", 2);
		else
			rx_set_emit(b, &s, neg);
	}
	b->ere.failed |= s.raw.failed;
	free(s.raw.p);
}

/* ---- the pattern ---- */

/* After a quantifier: drops a non-greedy '?', rejects a second quantifier. */
static void rx_after_quant(rx *b, const char *p, size_t n, size_t *i)
{
	if (*i < n && p[*i] == '?')
		(*i)++;
	if (*i < n && (p[*i] == '*' || p[*i] == '+' || p[*i] == '?'))
		b->err = "a repeated quantifier (RE2 rejects it)";
}

/* {n}, {n,} or {n,m} at p[*i] ('{'): its length, 0 when it is a literal '{' in RE2; *rep
 * gets the count that bounds the copies (m, or n when unbounded). */
static size_t rx_count(rx *b, const char *p, size_t n, size_t i, long *rep)
{
	size_t j = i + 1;
	long lo = 0, hi = -1;
	if (j >= n || p[j] < '0' || p[j] > '9')
		return 0;
	while (j < n && p[j] >= '0' && p[j] <= '9' && lo <= 100000)
		lo = lo * 10 + (p[j++] - '0');
	if (j < n && p[j] == ',') {
		j++;
		if (j < n && p[j] >= '0' && p[j] <= '9')
			for (hi = 0; j < n && p[j] >= '0' && p[j] <= '9' && hi <= 100000; j++)
				hi = hi * 10 + (p[j] - '0');
	} else {
		hi = lo;
	}
	if (j >= n || p[j] != '}')
		return 0;
	if (lo > RX_MAX_REPEAT || hi > RX_MAX_REPEAT || (hi >= 0 && hi < lo))
		b->err = "a repetition count above 1000 or out of order";
	*rep = hi >= 0 ? hi : lo;
	return j - i + 1;
}

/* The copies a count makes multiply with those of the counts around it. */
static void rx_repeat(rx *b, long rep)
{
	b->last *= rep > 1 ? rep : 1;
	if (b->last > b->prod[b->depth])
		b->prod[b->depth] = b->last;
	if (b->last > RX_MAX_REPEAT)
		b->err = "repetition counts nested in each other multiply to more than 1000 (RE2's limit)";
}

static void rx_open(rx *b)
{
	if (b->depth == RX_MAX_DEPTH) {
		b->err = "groups nest deeper than 1000 (RE2's limit)";
		return;
	}
	b->prod[++b->depth] = 1;
	b->last = 0;
}

/* A closing group is the atom a following count applies to. */
static void rx_close(rx *b)
{
	if (b->depth == 0) {
		b->last = 1; /* unbalanced: regcomp says so */
		return;
	}
	b->last = b->prod[b->depth--];
	if (b->last > b->prod[b->depth])
		b->prod[b->depth] = b->last;
}

/* (?...) at p[*i] (after '('): groups and leading flags. */
static void rx_group(rx *b, const char *p, size_t n, size_t *i, size_t open)
{
	size_t j = *i + 1;
	if (j < n && p[j] == ':') {
		*i = j + 1;
		rx_putc(b, '(');
		rx_open(b);
		return;
	}
	if (j < n && (p[j] == '<' || (p[j] == 'P' && j + 1 < n && p[j + 1] == '<'))) {
		const char *e = memchr(p + j, '>', n - j);
		if (!e) {
			b->err = "an unterminated group name";
			return;
		}
		*i = (size_t)(e + 1 - p);
		rx_putc(b, '(');
		rx_open(b);
		return;
	}
	for (; j < n && (p[j] == 'i' || p[j] == 's'); j++) {
		b->flags |= p[j] == 'i' ? REG_ICASE : 0;
		b->dotall |= p[j] == 's';
	}
	if (open != 0 || j >= n || p[j] != ')' || j == *i + 1) {
		b->err = "flags other than a leading (?i) or (?s)";
		return;
	}
	*i = j + 1;
}

/* \Q...\E at p[*i] (at the Q): the text up to \E (or the end) as literals. */
static void rx_quote(rx *b, const char *p, size_t n, size_t *i)
{
	const char *e = n - *i > 1 ? memmem(p + *i + 1, n - *i - 1, "\\E", 2) : NULL;
	size_t end = e ? (size_t)(e - p) : n;
	for (size_t k = *i + 1; k < end; k++)
		if (p[k])
			rx_lit(b, (unsigned char)p[k]);
		else
			b->err = "a NUL byte in the pattern";
	*i = e ? end + 2 : n;
}

/* An escape outside brackets at p[*i] (after the backslash). */
static void rx_escape(rx *b, const char *p, size_t n, size_t *i)
{
	static const char *const subst[] = {"d[0-9]", "D[^0-9]", "w[0-9A-Za-z_]", "W[^0-9A-Za-z_]", "s[\t\n\f\r ]",
					    "S[^\t\n\f\r ]", "A^", "z$", "b\\b", "B\\B"};
	char c = *i < n ? p[*i] : '\0', s[4];
	for (size_t k = 0; c && k < sizeof subst / sizeof subst[0]; k++)
		if (c == subst[k][0]) {
			ox_text_put(&b->ere, subst[k] + 1, strlen(subst[k] + 1));
			b->boundary |= c == 'b' || c == 'B';
			(*i)++;
			return;
		}
	if (c == 'Q') {
		rx_quote(b, p, n, i);
		return;
	}
	int len = *i < n ? rx_escape_char(p, n, i, s) : 0;
	if (!len)
		b->err = "an escape POSIX cannot express (\\p \\P \\C, a backreference) or an invalid one";
	else if (len == 1)
		rx_lit(b, (unsigned char)s[0]);
	else
		ox_text_put(&b->ere, s, (size_t)len);
}

/* One step of the translation at p[*i]. */
static void rx_step(rx *b, const char *p, size_t n, size_t *i)
{
	char c = p[(*i)++];
	long rep;
	if (c != '(' && c != ')' && c != '|' && c != '{' && c != '*' && c != '+' && c != '?')
		b->last = 1; /* an atom, for a count after it */
	switch (c) {
	case '\\': rx_escape(b, p, n, i); break;
	case '[': rx_class(b, p, n, i); break;
	case '.': ox_text_put(&b->ere, b->dotall ? "." : "[^\n]", b->dotall ? 1 : 4); break;
	case '(':
		if (*i < n && p[*i] == '?') {
			rx_group(b, p, n, i, *i - 1);
		} else {
			rx_putc(b, '(');
			rx_open(b);
		}
		break;
	case ')':
		rx_putc(b, ')');
		rx_close(b);
		break;
	case '|':
		rx_putc(b, '|');
		b->last = 0;
		break;
	case '*': case '+': case '?':
		rx_putc(b, c);
		rx_after_quant(b, p, n, i);
		break;
	case '{': {
		size_t len = rx_count(b, p, n, *i - 1, &rep);
		if (!len) {
			ox_text_put(&b->ere, "\\{", 2);
			b->last = 1;
			break;
		}
		rx_repeat(b, rep);
		ox_text_put(&b->ere, p + *i - 1, len);
		*i += len - 1;
		rx_after_quant(b, p, n, i);
		break;
	}
	case '}': ox_text_put(&b->ere, "\\}", 2); break;
	case '\0': b->err = "a NUL byte in the pattern"; break;
	default: rx_putc(b, c);
	}
}

/* The ERE for an RE2 pattern, anchored; NULL with the reason in *err. */
static char *rx_translate(const char *p, size_t n, int *flags, bool *boundary, const char **err)
{
	/* the state is large (the nesting stack): on the heap, not the kernel's stack */
	rx *b = calloc(1, sizeof *b);
	if (!b) {
		*err = "out of memory";
		return NULL;
	}
	b->prod[0] = 1;
	ox_text_put(&b->ere, "^(", 2);
	for (size_t i = 0; i < n && !b->err && !b->ere.failed;)
		rx_step(b, p, n, &i);
	ox_text_put(&b->ere, ")$", 2);
	*flags = b->flags;
	*boundary = b->boundary;
	*err = b->ere.failed ? "out of memory" : b->err;
	char *ere = *err ? NULL : b->ere.p;
	if (*err)
		free(b->ere.p);
	free(b);
	return ere;
}

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
	utf8_locale = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
	if (!utf8_locale)
		utf8_locale = newlocale(LC_ALL_MASK, "en_US.UTF-8", (locale_t)0);
}

static bool is_ascii(const ox_str *s)
{
	for (size_t i = 0; i < s->n; i++)
		if ((unsigned char)s->p[i] >= 0x80)
			return false;
	return true;
}

/* Matches every element (REG_STARTEND: strings may hold NUL bytes). */
static int rx_match_all(ox_k *k, regex_t *re, bool boundary, const ox_val *x, ox_val *y)
{
	const ox_str *xs = x->data;
	for (int64_t i = 0; i < x->count; i++) {
		if (boundary && !is_ascii(&xs[i]))
			return ox_kfail(k, "element %lld is not ASCII, and the pattern uses \\b or \\B, whose word "
					   "characters differ between RE2 (ASCII) and glibc (Unicode)",
					(long long)i);
		regmatch_t m[1] = {{0, (regoff_t)xs[i].n}};
		int rc = regexec(re, str_bytes(&xs[i]), 1, m, REG_STARTEND);
		if (rc != 0 && rc != REG_NOMATCH)
			return ox_kfail(k, "regexec failed on element %lld", (long long)i);
		((uint8_t *)y->data)[i] = rc == 0;
	}
	return 0;
}

int ox_op_RegexFullMatch(ox_k *k)
{
	ox_val *x = string_input(k);
	if (!x)
		return -1;
	if (!ox_attr(k, "pattern"))
		return ox_kfail(k, "attribute 'pattern' is required");
	size_t n;
	const char *pat = ox_attr_str(k, "pattern", "", &n), *err;
	int flags;
	bool boundary;
	char *ere = rx_translate(pat, n, &flags, &boundary, &err);
	if (!ere)
		return ox_kfail(k, "pattern /%.*s/: %s", (int)(n > 80 ? 80 : n), pat, err);
	ox_val *y = ox_out_tensor(k, 0, OX_BOOL, x->rank, x->dims);
	pthread_once(&utf8_once, utf8_init);
	locale_t old = utf8_locale ? uselocale(utf8_locale) : (locale_t)0;
	regex_t re;
	int rc = y ? regcomp(&re, ere, REG_EXTENDED | REG_NOSUB | flags) : -1;
	if (y && rc != 0) {
		char msg[128];
		regerror(rc, &re, msg, sizeof msg);
		ox_kfail(k, "pattern /%.*s/ is not valid: %s", (int)(n > 80 ? 80 : n), pat, msg);
	}
	int ret = rc == 0 ? rx_match_all(k, &re, boundary, x, y) : -1;
	if (rc == 0)
		regfree(&re);
	if (old)
		uselocale(old);
	free(ere);
	return ret;
}
