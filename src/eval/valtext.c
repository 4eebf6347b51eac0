/* Values as text (tensor constants of the textual syntax, "[...]" sequences, "none",
 * "map(K, V) {k: v, ...}" maps),
 * comparison with tolerances, and the "#@ input" / "#@ expect" lines of self-contained
 * test cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "convert.h"
#include "file.h"
#include "diag.h"
#include "kernel.h"
#include "literal.h"
#include "types.h"

#define VAL(v) ((ox_val *)(v))

typedef struct scan {
	const char *t;
	size_t len, pos;
	OnnxError *err;
} scan;

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(scan *S)
{
	while (S->pos < S->len && is_space(S->t[S->pos]))
		S->pos++;
}

static int scan_fail(scan *S, OnnxStatus code, size_t at, const char *fmt, const char *what)
{
	ox_error_set(S->err, code, fmt, what);
	S->err->offset = at;
	ox_locate(S->t, S->len, at, &S->err->line, &S->err->column);
	return -1;
}

/* The end of a tensor constant starting at S->pos: just past the '}' matching its first
 * '{', skipping string literals. */
static int tensor_end(scan *S, size_t *end)
{
	size_t i = S->pos;
	int depth = 0, dims = 0; /* inside {} and, before them, inside the [] of the dims */
	bool quoted = false;
	for (; i < S->len; i++) {
		char c = S->t[i];
		if (quoted) {
			if (c == '\\')
				i++;
			else if (c == '"')
				quoted = false;
		} else if (c == '"') {
			quoted = true;
		} else if (c == '{') {
			depth++;
		} else if (c == '}' && --depth == 0) {
			*end = i + 1;
			return 0;
		} else if (depth == 0 && c == '[') {
			dims++;
		} else if (depth == 0 && c == ']' && dims) {
			dims--;
		} else if (depth == 0 && !dims && (c == ',' || c == ']')) {
			break;
		}
	}
	return scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected a value such as %s",
			 "'float[2] {1, 2}', '[...]' or 'none'");
}

static ox_val *parse_tensor(scan *S)
{
	size_t end;
	if (tensor_end(S, &end) < 0)
		return NULL;
	Onnx__TensorProto *tp;
	size_t start = S->pos;
	if (OnnxParser_ParseTensor(S->t + start, end - start, &tp, S->err) != ONNXTXT_OK) {
		S->err->offset += start;
		ox_locate(S->t, S->len, S->err->offset, &S->err->line, &S->err->column);
		return NULL;
	}
	char msg[OX_MSG];
	ox_val *v = ox_val_from_tensor_proto(tp, msg);
	OnnxProto_Free(tp);
	if (!v)
		scan_fail(S, ox_convert_status(msg, ONNXTXT_ERR_VALUE), start, "%s", msg);
	S->pos = end;
	return v;
}

/* An element type name at S->pos (after spaces); 0 after failing. */
static int elem_type_at(scan *S, const char *what)
{
	skip_space(S);
	size_t b = S->pos;
	while (S->pos < S->len && (((S->t[S->pos] | 32) >= 'a' && (S->t[S->pos] | 32) <= 'z') ||
				   (S->t[S->pos] >= '0' && S->t[S->pos] <= '9')))
		S->pos++;
	int type = ox_elem_lookup(S->t + b, S->pos - b);
	if (!type)
		scan_fail(S, ONNXTXT_ERR_SYNTAX, b, "expected an element type as %s", what);
	return type;
}

static bool expect_char(scan *S, char c, const char *what)
{
	skip_space(S);
	if (S->pos < S->len && S->t[S->pos] == c) {
		S->pos++;
		return true;
	}
	scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s", what);
	return false;
}

/* Appends the literal at S->pos, up to stop, ',' or '}' outside quotes or the end of the
 * text, to b (with a ", " before all but the first); false when it is empty. */
static bool map_literal(scan *S, char stop, ox_text *b, size_t n)
{
	skip_space(S);
	size_t i = S->pos;
	bool quoted = false;
	for (; i < S->len && (quoted || (S->t[i] != stop && S->t[i] != '}' && S->t[i] != ',')); i++)
		if (quoted && S->t[i] == '\\')
			i++;
		else if (S->t[i] == '"')
			quoted = !quoted;
	size_t e = i;
	while (e > S->pos && is_space(S->t[e - 1]))
		e--;
	if (e == S->pos)
		return false;
	if (n)
		ox_text_put(b, ", ", 2);
	ox_text_put(b, S->t + S->pos, e - S->pos);
	S->pos = i;
	return true;
}

/* "TYPE[n] {body}" through the tensor parser; errors point at the map. */
static ox_val *map_column(scan *S, int type, size_t n, const ox_text *body, size_t at, const char *what)
{
	ox_text t = {0};
	char head[64];
	snprintf(head, sizeof head, "%s[%zu] {", ox_elem_label(type), n);
	ox_text_put(&t, head, strlen(head));
	ox_text_put(&t, body->p ? body->p : "", body->n);
	ox_text_put(&t, "}", 1);
	ox_val *v = NULL;
	Onnx__TensorProto *tp = NULL;
	char msg[OX_MSG];
	if (t.failed || body->failed) {
		scan_fail(S, ONNXTXT_ERR_NOMEM, at, "%s", "out of memory");
	} else if (OnnxParser_ParseTensor(t.p, t.n, &tp, S->err) != ONNXTXT_OK) {
		snprintf(msg, sizeof msg, "the map's %s: %s", what, S->err->message);
		scan_fail(S, S->err->code, at, "%s", msg);
	} else if (!(v = ox_val_from_tensor_proto(tp, msg))) {
		scan_fail(S, ox_convert_status(msg, ONNXTXT_ERR_VALUE), at, "%s", msg);
	}
	OnnxProto_Free(tp);
	free(t.p);
	return v;
}

/* Whether the keys of a map are unique; fails naming the first repeated one. */
static bool keys_unique(scan *S, const ox_val *keys, size_t at)
{
	for (int64_t i = 1; i < keys->count; i++)
		for (int64_t j = 0; j < i; j++) {
			bool same = keys->type == OX_STRING
					    ? ((ox_str *)keys->data)[i].n == ((ox_str *)keys->data)[j].n &&
						      (!((ox_str *)keys->data)[i].n ||
						       !memcmp(((ox_str *)keys->data)[i].p, ((ox_str *)keys->data)[j].p,
							       ((ox_str *)keys->data)[i].n))
					    : ox_get_i64(keys, i) == ox_get_i64(keys, j);
			if (same) {
				char what[32];
				snprintf(what, sizeof what, "%lld", (long long)i);
				scan_fail(S, ONNXTXT_ERR_VALUE, at, "map key %s repeats an earlier key", what);
				return false;
			}
		}
	return true;
}

/* The entries up to the closing '}': the keys' literals into kb, the values' into vb. */
static bool map_entries(scan *S, ox_text *kb, ox_text *vb, size_t *n)
{
	skip_space(S);
	while (S->pos < S->len && S->t[S->pos] != '}') {
		if (!map_literal(S, ':', kb, *n) || !expect_char(S, ':', "':' after a map key")) {
			scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s", "a map entry 'KEY: VALUE'");
			return false;
		}
		if (!map_literal(S, ',', vb, *n)) {
			scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s", "a value after ':' in a map");
			return false;
		}
		(*n)++;
		skip_space(S);
		if (S->pos < S->len && S->t[S->pos] == ',')
			S->pos++, skip_space(S);
		else if (S->pos >= S->len || S->t[S->pos] != '}')
			break;
	}
	return expect_char(S, '}', "',' or '}' in a map");
}

/* "map(K, V) {k: v, ...}": maps of scalars, as the ai.onnx.ml operators use them. */
static ox_val *parse_map(scan *S)
{
	size_t at = S->pos, n = 0;
	S->pos += 3;
	int kt, vt;
	if (!expect_char(S, '(', "'(' after 'map'") || !(kt = elem_type_at(S, "the map's key type")) ||
	    !expect_char(S, ',', "',' after the map's key type") || !(vt = elem_type_at(S, "the map's value type")) ||
	    !expect_char(S, ')', "')' after the map's value type") || !expect_char(S, '{', "'{' to open the map"))
		return NULL;
	if (!ox_map_key_ok(kt)) {
		scan_fail(S, ONNXTXT_ERR_VALUE, at, "a map key is an integer of 8 to 64 bits or a string, not %s",
			  ox_elem_label(kt));
		return NULL;
	}
	ox_text kb = {0}, vb = {0};
	ox_val *keys = NULL, *vals = NULL, *m = NULL;
	if (map_entries(S, &kb, &vb, &n) && (keys = map_column(S, kt, n, &kb, at, "keys")) &&
	    (vals = map_column(S, vt, n, &vb, at, "values")) && keys_unique(S, keys, at)) {
		m = ox_map_new(keys, vals); /* takes both, even when it fails */
		keys = vals = NULL;
		if (!m)
			scan_fail(S, ONNXTXT_ERR_NOMEM, at, "%s", "out of memory");
	}
	ox_val_unref(keys);
	ox_val_unref(vals);
	free(kb.p);
	free(vb.p);
	return m;
}

static bool at_word(const scan *S, const char *w)
{
	size_t n = strlen(w);
	return S->len - S->pos >= n && memcmp(S->t + S->pos, w, n) == 0 &&
	       (S->len - S->pos == n || !((S->t[S->pos + n] | 32) >= 'a' && (S->t[S->pos + n] | 32) <= 'z'));
}

static ox_val *parse_value(scan *S, int depth);

static ox_val *parse_sequence(scan *S, int depth)
{
	size_t n = 0, cap = 0;
	ox_val **items = NULL, *v = NULL;
	S->pos++; /* '[' */
	skip_space(S);
	while (S->pos < S->len && S->t[S->pos] != ']') {
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			ox_val **g = realloc(items, cap * sizeof *g);
			if (!g) {
				scan_fail(S, ONNXTXT_ERR_NOMEM, S->pos, "%s", "out of memory");
				goto out;
			}
			items = g;
		}
		if (!(items[n] = parse_value(S, depth + 1)))
			goto out;
		n++;
		skip_space(S);
		if (S->pos < S->len && S->t[S->pos] == ',') {
			S->pos++;
			skip_space(S);
		} else if (S->pos >= S->len || S->t[S->pos] != ']') {
			scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s in a sequence", "',' or ']'");
			goto out;
		}
	}
	if (S->pos >= S->len) {
		scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s to close the sequence", "']'");
		goto out;
	}
	S->pos++;
	if (!(v = ox_sequence_new(n ? items[0]->type : 0, 0))) {
		scan_fail(S, ONNXTXT_ERR_NOMEM, S->pos, "%s", "out of memory");
		goto out;
	}
	v->items = items;
	v->nitems = n;
	if (n)
		v->elem_kind = items[0]->kind;
	return v;
out:
	for (size_t i = 0; i < n; i++)
		ox_val_unref(items[i]);
	free(items);
	return NULL;
}

static ox_val *parse_value(scan *S, int depth)
{
	skip_space(S);
	if (depth > ONNXTXT_MAX_DEPTH) {
		scan_fail(S, ONNXTXT_ERR_LIMIT, S->pos, "sequences nest deeper than %s", OX_STR(ONNXTXT_MAX_DEPTH));
		return NULL;
	}
	if (S->pos < S->len && S->t[S->pos] == '[')
		return parse_sequence(S, depth);
	if (at_word(S, "map"))
		return parse_map(S);
	if (at_word(S, "none")) {
		S->pos += 4;
		ox_val *v = ox_optional_new(OX_TENSOR, 0, NULL);
		if (!v)
			scan_fail(S, ONNXTXT_ERR_NOMEM, S->pos, "%s", "out of memory");
		return v;
	}
	return parse_tensor(S);
}

/* The value the rest of the text holds, and nothing after it but blanks; NULL after
 * failing. */
static ox_val *whole_value(scan *S)
{
	ox_val *v = parse_value(S, 0);
	skip_space(S);
	if (v && S->pos < S->len) {
		scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "unexpected text after the value%s", "");
		ox_val_unref(v);
		v = NULL;
	}
	return v;
}

OnnxStatus OnnxValue_Parse(const char *text, size_t len, OnnxValue **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!text || !out)
		return ox_error_null(err);
	scan S = {text, len, 0, err};
	ox_val *v = whole_value(&S);
	*out = (OnnxValue *)v;
	return v ? ONNXTXT_OK : err->code;
}

/* ---- printing ---------------------------------------------------------------------------- */

/* The printer's tensor text on one line: its line breaks only ever separate values, or
 * a value from the braces around them, which take no space ("{1, 2}" as when short). */
static void put_tensor(ox_text *b, const ox_val *v, OnnxError *err)
{
	void *m;
	char *s;
	size_t n;
	if (OnnxValue_ToProto((const OnnxValue *)v, NULL, &m, err) != ONNXTXT_OK) {
		b->failed = true;
		return;
	}
	OnnxStatus st = OnnxPrinter_Print(m, ONNXTXT_PRINT_NO_ANNOTATIONS | ONNXTXT_PRINT_FLOAT_LITERALS, &s, &n, err);
	OnnxProto_Free(m);
	if (st != ONNXTXT_OK) {
		b->failed = true;
		return;
	}
	for (size_t i = 0; i < n;) {
		if (s[i] == '\n') {
			while (i < n && is_space(s[i]))
				i++;
			if (i < n && s[i] != '}' && !(b->n && b->p[b->n - 1] == '{'))
				ox_text_put(b, " ", 1);
			continue;
		}
		size_t j = i;
		while (j < n && s[j] != '\n')
			j++;
		ox_text_put(b, s + i, j - i);
		i = j;
	}
	free(s);
}

/* Element i of t as the tensor printer writes it: the text between its braces. */
static void put_element(ox_text *b, const ox_val *t, int64_t i, OnnxError *err)
{
	ox_val *e = ox_tensor_scalar(t->type, (const char *)t->data + (size_t)i * ox_elem_size(t->type));
	ox_text one = {0};
	if (!e) {
		b->failed = true;
		return;
	}
	put_tensor(&one, e, err);
	ox_val_unref(e);
	char *open = one.p ? strchr(one.p, '{') : NULL, *close = one.p ? strrchr(one.p, '}') : NULL;
	if (one.failed || !open || !close || close < open)
		b->failed = true;
	else
		ox_text_put(b, open + 1, (size_t)(close - open - 1));
	free(one.p);
}

static void put_map(ox_text *b, const ox_val *v, OnnxError *err)
{
	const ox_val *keys = v->items[0], *vals = v->items[1];
	char head[64];
	snprintf(head, sizeof head, "map(%s, %s) {", ox_elem_label(keys->type), ox_elem_label(vals->type));
	ox_text_put(b, head, strlen(head));
	for (int64_t i = 0; i < keys->count && !b->failed; i++) {
		if (i)
			ox_text_put(b, ", ", 2);
		put_element(b, keys, i, err);
		ox_text_put(b, ": ", 2);
		put_element(b, vals, i, err);
	}
	ox_text_put(b, "}", 1);
}

static void put_value(ox_text *b, const ox_val *v, OnnxError *err)
{
	if (v->kind == OX_TENSOR) {
		put_tensor(b, v, err);
	} else if (v->kind == OX_MAP) {
		put_map(b, v, err);
	} else if (v->kind == OX_OPTIONAL) {
		if (v->nitems)
			put_value(b, v->items[0], err);
		else
			ox_text_put(b, "none", 4);
	} else {
		ox_text_put(b, "[", 1);
		for (size_t i = 0; i < v->nitems; i++) {
			if (i)
				ox_text_put(b, ", ", 2);
			put_value(b, v->items[i], err);
		}
		ox_text_put(b, "]", 1);
	}
}

OnnxStatus OnnxValue_Print(const OnnxValue *v, char **text, size_t *len, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!v || !text)
		return ox_error_null(err);
	ox_text b = {0};
	put_value(&b, VAL(v), err);
	ox_text_put(&b, "", 0);
	if (b.failed) {
		free(b.p);
		if (!err->code)
			ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	*text = b.p;
	if (len)
		*len = b.n;
	return ONNXTXT_OK;
}

/* ---- comparison -------------------------------------------------------------------------- */

static void index_text(const ox_val *v, int64_t flat, char *out, size_t size)
{
	int64_t idx[OX_MAX_RANK];
	for (int d = v->rank - 1; d >= 0; d--) {
		idx[d] = v->dims[d] ? flat % v->dims[d] : 0;
		flat = v->dims[d] ? flat / v->dims[d] : 0;
	}
	size_t n = (size_t)snprintf(out, size, "[");
	for (int d = 0; d < v->rank && n < size; d++)
		n += (size_t)snprintf(out + n, size - n, "%s%lld", d ? "," : "", (long long)idx[d]);
	if (n < size)
		snprintf(out + n, size - n, "]");
}

static bool element_equal(const ox_val *g, const ox_val *e, int64_t i, double rtol, double atol, char *got,
			  char *want)
{
	if (g->type == OX_STRING) {
		const ox_str *a = &((const ox_str *)g->data)[i], *b = &((const ox_str *)e->data)[i];
		snprintf(got, 64, "\"%.*s\"", (int)(a->n < 40 ? a->n : 40), a->p ? a->p : "");
		snprintf(want, 64, "\"%.*s\"", (int)(b->n < 40 ? b->n : 40), b->p ? b->p : "");
		return a->n == b->n && (!a->n || memcmp(a->p, b->p, a->n) == 0);
	}
	if (!ox_elem_is_float(g->type) && g->type != OX_COMPLEX64 && g->type != OX_COMPLEX128) {
		int64_t a = ox_get_i64(g, i), b = ox_get_i64(e, i);
		snprintf(got, 64, g->type == OX_UINT64 ? "%llu" : "%lld", (long long)a);
		snprintf(want, 64, g->type == OX_UINT64 ? "%llu" : "%lld", (long long)b);
		return a == b;
	}
	for (int part = 0; part < (g->type == OX_COMPLEX64 || g->type == OX_COMPLEX128 ? 2 : 1); part++) {
		double a, b;
		if (part == 0) {
			a = ox_get_f64(g, i), b = ox_get_f64(e, i);
		} else {
			bool d = g->type == OX_COMPLEX128;
			a = d ? ((const double *)g->data)[2 * i + 1] : ((const float *)g->data)[2 * i + 1];
			b = d ? ((const double *)e->data)[2 * i + 1] : ((const float *)e->data)[2 * i + 1];
		}
		snprintf(got, 64, "%.9g", a);
		snprintf(want, 64, "%.9g", b);
		if (isnan(a) || isnan(b)) {
			if (isnan(a) != isnan(b))
				return false;
		} else if (a != b && !(fabs(a - b) <= atol + rtol * fabs(b))) {
			return false;
		}
	}
	return true;
}

static int say(char *msg, size_t size, const char *fmt, const char *a, const char *b)
{
	if (msg && size && snprintf(msg, size, fmt, a, b) < 0)
		msg[0] = '\0';
	return 0;
}

static void shape_text(const ox_val *v, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "%s[", ox_elem_label(v->type));
	for (int d = 0; d < v->rank && n < size; d++)
		n += (size_t)snprintf(out + n, size - n, "%s%lld", d ? "," : "", (long long)v->dims[d]);
	if (n < size)
		snprintf(out + n, size - n, "]");
}

static int tensor_equal(const ox_val *g, const ox_val *e, double rtol, double atol, char *msg, size_t size)
{
	char a[128], b[128];
	shape_text(g, a, sizeof a);
	shape_text(e, b, sizeof b);
	if (g->type != e->type || g->rank != e->rank ||
	    (g->rank && memcmp(g->dims, e->dims, (size_t)g->rank * sizeof *g->dims) != 0))
		return say(msg, size, "got %s, expected %s", a, b);
	for (int64_t i = 0; i < g->count; i++) {
		char got[64], want[64], where[160], line[400];
		if (element_equal(g, e, i, rtol, atol, got, want))
			continue;
		index_text(g, i, where, sizeof where);
		if (snprintf(line, sizeof line, "element %s (index %lld): got %s", where, (long long)i, got) < 0)
			line[0] = '\0';
		return say(msg, size, "%s, expected %s", line, want);
	}
	return 1;
}

static bool key_equal(const ox_val *a, int64_t i, const ox_val *b, int64_t j)
{
	if (a->type != OX_STRING)
		return ox_get_i64(a, i) == ox_get_i64(b, j);
	const ox_str *x = &((const ox_str *)a->data)[i], *y = &((const ox_str *)b->data)[j];
	return x->n == y->n && (!x->n || memcmp(x->p, y->p, x->n) == 0);
}

/* Maps match when they have the same types and keys, and the values of each key match;
 * the order of the entries does not matter. */
static int map_equal(const ox_val *g, const ox_val *e, double rtol, double atol, char *msg, size_t size)
{
	const ox_val *gk = g->items[0], *gv = g->items[1], *ek = e->items[0], *ev = e->items[1];
	char a[64], b[64];
	snprintf(a, sizeof a, "map(%s, %s) of %lld", ox_elem_label(gk->type), ox_elem_label(gv->type), (long long)gk->count);
	snprintf(b, sizeof b, "map(%s, %s) of %lld", ox_elem_label(ek->type), ox_elem_label(ev->type), (long long)ek->count);
	if (gk->type != ek->type || gv->type != ev->type || gk->count != ek->count)
		return say(msg, size, "got %s, expected %s", a, b);
	for (int64_t j = 0; j < ek->count; j++) {
		int64_t i = 0;
		while (i < gk->count && !key_equal(gk, i, ek, j))
			i++;
		char key[64], got[64], want[64], line[200];
		element_equal(ek, ek, j, 0, 0, key, want);
		if (i == gk->count)
			return say(msg, size, "map: key %s is missing%s", key, "");
		ox_val *x = ox_tensor_scalar(gv->type, (const char *)gv->data + (size_t)i * ox_elem_size(gv->type));
		ox_val *y = ox_tensor_scalar(ev->type, (const char *)ev->data + (size_t)j * ox_elem_size(ev->type));
		bool ok = x && y && element_equal(x, y, 0, rtol, atol, got, want);
		ox_val_unref(x);
		ox_val_unref(y);
		if (!x || !y)
			return say(msg, size, "%s%s", "out of memory", "");
		if (!ok) {
			snprintf(line, sizeof line, "map: key %s: got %s", key, got);
			return say(msg, size, "%s, expected %s", line, want);
		}
	}
	return 1;
}

/* Whether g matches e; when not, msg says where and how. */
static int values_equal(const ox_val *g, const ox_val *e, double rtol, double atol, char *msg, size_t size)
{
	/* an optional holding a value matches that value */
	if (g->kind == OX_OPTIONAL && e->kind != OX_OPTIONAL && g->nitems)
		g = g->items[0];
	if (e->kind == OX_OPTIONAL && g->kind != OX_OPTIONAL && e->nitems)
		e = e->items[0];
	static const char *const kinds[] = {"?", "a tensor", "a sequence", "an optional", "a map"};
	if (g->kind != e->kind)
		return say(msg, size, "got %s, expected %s", kinds[g->kind], kinds[e->kind]);
	if (g->kind == OX_TENSOR)
		return tensor_equal(g, e, rtol, atol, msg, size);
	if (g->kind == OX_MAP)
		return map_equal(g, e, rtol, atol, msg, size);
	if (g->nitems != e->nitems) {
		char a[32], b[32];
		snprintf(a, sizeof a, "%zu", g->nitems);
		snprintf(b, sizeof b, "%zu", e->nitems);
		return say(msg, size, g->kind == OX_SEQUENCE ? "got %s items, expected %s" : "got %s values, expected %s", a,
			   b);
	}
	for (size_t i = 0; i < g->nitems; i++) {
		char inner[400];
		if (!values_equal(g->items[i], e->items[i], rtol, atol, inner, sizeof inner)) {
			char at[32];
			if (snprintf(at, sizeof at, "item %zu", i) < 0)
				at[0] = '\0';
			return say(msg, size, "%s: %s", at, inner);
		}
	}
	return 1;
}

OnnxStatus OnnxValue_Equal(const OnnxValue *got, const OnnxValue *expected, double rtol, double atol,
			   OnnxError *err)
{
	const ox_val *g = VAL(got), *e = VAL(expected);
	if (!g || !e) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: a value is NULL");
		return ONNXTXT_ERR_ARG;
	}
	char msg[sizeof err->message];
	if (values_equal(g, e, rtol, atol, msg, sizeof msg))
		return ONNXTXT_OK;
	ox_error_set(err, ONNXTXT_ERR_MISMATCH, "%s", msg);
	return ONNXTXT_ERR_MISMATCH;
}

/* ---- test-case lines ------------------------------------------------------------------- */

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       c == '/' || c == ':' || c == '-';
}

/* The end of a quoted name at S->pos, up to eol: its closing quote, or eol after failing
 * (unterminated, or a byte that is not UTF-8). */
static size_t quoted_end(scan *S, size_t eol)
{
	size_t i = S->pos + 1, k;
	for (; i < eol && S->t[i] != '"'; i += k) {
		if (S->t[i] == '\\' && i + 1 < eol)
			i++;
		if (!(k = ox_utf8_len(S->t + i, eol - i))) {
			char msg[OX_MSG];
			snprintf(msg, sizeof msg, OX_BAD_UTF8_MESSAGE, (unsigned char)S->t[i], (unsigned char)S->t[i]);
			scan_fail(S, ONNXTXT_ERR_SYNTAX, i, "%s", msg);
			return eol;
		}
	}
	if (i >= eol)
		scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "%s", "unterminated name");
	return i;
}

/* NAME: an identifier-like word or a quoted string (escaped as in the text syntax). */
static char *case_name(scan *S, size_t eol)
{
	size_t start = S->pos;
	if (S->pos < eol && S->t[S->pos] == '"') {
		size_t end = quoted_end(S, eol);
		char *s = end < eol ? malloc(end - start) : NULL;
		if (s) {
			s[ox_unescape(s, S->t + start + 1, end - start - 1)] = '\0';
			S->pos = end + 1;
		} else if (end < eol) {
			scan_fail(S, ONNXTXT_ERR_NOMEM, start, "%s", "out of memory");
		}
		return s;
	}
	while (S->pos < eol && is_name_char(S->t[S->pos]))
		S->pos++;
	if (S->pos == start) {
		scan_fail(S, ONNXTXT_ERR_SYNTAX, start, "expected %s after 'input' or 'expect'", "a name");
		return NULL;
	}
	char *s = malloc(S->pos - start + 1);
	if (!s) {
		scan_fail(S, ONNXTXT_ERR_NOMEM, start, "%s", "out of memory");
		return NULL;
	}
	memcpy(s, S->t + start, S->pos - start);
	s[S->pos - start] = '\0';
	return s;
}

/* "rtol=R" and "atol=A" after an expected value. */
static int tolerances(scan *S, size_t eol, OnnxCaseItem *it)
{
	for (;;) {
		while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t' || S->t[S->pos] == '\r'))
			S->pos++;
		if (S->pos >= eol)
			return 0;
		size_t at = S->pos;
		bool r = eol - at > 5 && memcmp(S->t + at, "rtol=", 5) == 0;
		bool a = eol - at > 5 && memcmp(S->t + at, "atol=", 5) == 0;
		if (!it->expect || (!r && !a))
			return scan_fail(S, ONNXTXT_ERR_SYNTAX, at, "unexpected text after the value%s",
					 it->expect ? " (only rtol=R and atol=A may follow)" : "");
		char num[64];
		size_t k = 0;
		for (S->pos = at + 5; S->pos < eol && !is_space(S->t[S->pos]) && k < sizeof num - 1; S->pos++)
			num[k++] = S->t[S->pos];
		num[k] = '\0';
		char *end;
		double x = strtod(num, &end);
		if (!k || *end || !(x >= 0))
			return scan_fail(S, ONNXTXT_ERR_VALUE, at + 5, "expected %s", "a non-negative number");
		*(r ? &it->rtol : &it->atol) = x;
	}
}

/* One line that starts with "#@ input " or "#@ expect "; the lexer treats the same lines
 * as comments. Returns 1 for an item, 0 for any other line, -1 on error. */
static int case_line(scan *S, size_t eol, OnnxCaseItem *it)
{
	while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t'))
		S->pos++;
	if (eol - S->pos < 2 || memcmp(S->t + S->pos, "#@", 2) != 0)
		return 0;
	S->pos += 2;
	while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t'))
		S->pos++;
	size_t rest = eol - S->pos;
	int kw = rest > 6 && memcmp(S->t + S->pos, "input", 5) == 0 && (S->t[S->pos + 5] == ' ' || S->t[S->pos + 5] == '\t')
			 ? 5
		 : rest > 7 && memcmp(S->t + S->pos, "expect", 6) == 0 && (S->t[S->pos + 6] == ' ' || S->t[S->pos + 6] == '\t')
			 ? 6
			 : 0;
	if (!kw)
		return 0;
	*it = (OnnxCaseItem){kw == 6, NULL, NULL, ONNXTXT_DEFAULT_RTOL, ONNXTXT_DEFAULT_ATOL, 0};
	ox_locate(S->t, S->len, S->pos, &it->line, &(unsigned){0});
	S->pos += (size_t)kw;
	while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t'))
		S->pos++;
	if (!(it->name = case_name(S, eol)))
		return -1;
	while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t'))
		S->pos++;
	if (S->pos >= eol || S->t[S->pos] != '=')
		return scan_fail(S, ONNXTXT_ERR_SYNTAX, S->pos, "expected %s after the name", "'='");
	S->pos++;
	scan line = {S->t, eol, S->pos, S->err};
	ox_val *v = parse_value(&line, 0);
	if (!v)
		return -1;
	it->value = (OnnxValue *)v;
	S->pos = line.pos;
	return tolerances(S, eol, it) < 0 ? -1 : 1;
}

void OnnxCase_Free(OnnxCaseItem *items, size_t n)
{
	for (size_t i = 0; items && i < n; i++) {
		free(items[i].name);
		OnnxValue_Free(items[i].value);
	}
	free(items);
}

OnnxStatus OnnxCase_Parse(const char *text, size_t len, OnnxCaseItem **items, size_t *n, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!text || !items || !n)
		return ox_error_null(err);
	*items = NULL;
	*n = 0;
	size_t cap = 0;
	scan S = {text, len, 0, err};
	while (S.pos < len) {
		const char *nl = memchr(text + S.pos, '\n', len - S.pos);
		size_t eol = nl ? (size_t)(nl - text) : len;
		OnnxCaseItem it = {0};
		int rc = case_line(&S, eol, &it);
		if (rc == 1) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 8;
				OnnxCaseItem *g = realloc(*items, cap * sizeof *g);
				if (!g) { /* it is freed below, with the items so far */
					scan_fail(&S, ONNXTXT_ERR_NOMEM, S.pos, "%s", "out of memory");
					rc = -1;
				} else {
					*items = g;
				}
			}
			if (rc >= 0)
				(*items)[(*n)++] = it;
		}
		if (rc < 0) {
			free(it.name);
			OnnxValue_Free(it.value);
			OnnxCase_Free(*items, *n);
			*items = NULL;
			*n = 0;
			return err->code;
		}
		S.pos = eol + 1;
	}
	return ONNXTXT_OK;
}

/* ---- named values: what to-text prints for a .pb file ------------------------------------- */

static bool bare_name(const char *name)
{
	for (const char *p = name; *p; p++)
		if (!is_name_char(*p))
			return false;
	return *name != '\0';
}

OnnxStatus OnnxValue_PrintNamed(const OnnxValue *v, const char *name, char **text, size_t *len, OnnxError *err)
{
	OnnxError local;
	err = err ? err : &local;
	char *value;
	size_t n;
	if (!text || OnnxValue_Print(v, &value, &n, err) != ONNXTXT_OK)
		return text ? err->code : (ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: NULL pointer"), err->code);
	ox_text b = {0};
	if (name && *name) {
		bool bare = bare_name(name);
		if (!bare)
			ox_text_put(&b, "\"", 1);
		for (size_t i = 0, nl = strlen(name); i < nl;) {
			char tmp[8], *d = tmp;
			i += ox_escape_char(&d, name + i, nl - i);
			ox_text_put(&b, tmp, (size_t)(d - tmp));
		}
		ox_text_put(&b, bare ? " = " : "\" = ", bare ? 3 : 4);
	}
	ox_text_put(&b, value, n);
	ox_text_put(&b, "\n", 1);
	free(value);
	if (b.failed) {
		free(b.p);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	*text = b.p;
	if (len)
		*len = b.n;
	return ONNXTXT_OK;
}

OnnxStatus OnnxValue_PrintNamedFile(const OnnxValue *v, const char *name, const char *path, OnnxError *err)
{
	OnnxError local;
	err = err ? err : &local;
	char *text;
	if (!path) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: path is NULL");
		return err->code;
	}
	if (OnnxValue_PrintNamed(v, name, &text, NULL, err) != ONNXTXT_OK)
		return err->code;
	ox_write_job job = {text, strlen(text)};
	OnnxStatus st = ox_write_atomic(path, ox_write_bytes, &job, err);
	free(text);
	return st;
}

/* "NAME =" at S->pos, or nothing (then S->pos stays and *name is ""). */
static char *value_name(scan *S)
{
	size_t start = S->pos, eol = S->pos;
	while (eol < S->len && S->t[eol] != '\n')
		eol++;
	if (S->pos < S->len && (S->t[S->pos] == '"' || is_name_char(S->t[S->pos]))) {
		char *name = case_name(S, eol);
		if (!name)
			return NULL;
		while (S->pos < eol && (S->t[S->pos] == ' ' || S->t[S->pos] == '\t'))
			S->pos++;
		if (S->pos < eol && S->t[S->pos] == '=') {
			S->pos++;
			return name;
		}
		free(name);
	}
	S->pos = start;
	char *none = malloc(1);
	if (none)
		*none = '\0';
	else
		scan_fail(S, ONNXTXT_ERR_NOMEM, start, "%s", "out of memory");
	return none;
}

OnnxStatus OnnxValue_ParseNamed(const char *text, size_t len, OnnxValue **out, char **name, OnnxError *err)
{
	OnnxError local;
	err = err ? err : &local;
	memset(err, 0, sizeof *err);
	if (!text || !out || !name)
		return ox_error_null(err);
	*out = NULL;
	scan S = {text, len, 0, err};
	skip_space(&S);
	*name = value_name(&S);
	if (!*name)
		return err->code;
	ox_val *v = whole_value(&S);
	if (!v) {
		free(*name);
		*name = NULL;
		return err->code;
	}
	*out = (OnnxValue *)v;
	return ONNXTXT_OK;
}
