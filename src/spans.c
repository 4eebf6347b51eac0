/* Positions of parsed elements for the structural check: recorded while parsing when
 * asked for, then sorted by message address for lookups. */
#include <stdlib.h>

#include "text/build.h"
#include "diag.h"

void ox_span_add(ox_parser *P, const void *msg, const char *start, const char *end)
{
	ox_spans *s = P->spans;
	if (!s)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		ox_span *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			ox_fail(P, NULL, ONNXTXT_ERR_NOMEM, "out of memory");
		s->v = v;
		s->cap = cap;
	}
	/* tokens of annotation blocks point into a copy; those spans are not wanted */
	if (start < P->src || end > P->src + P->len || end < start)
		return;
	ox_span sp = {msg, (uint32_t)(start - P->src), (uint32_t)(end - P->src)};
	s->v[s->n++] = sp;
}

void ox_span_tok(ox_parser *P, const void *msg, ox_tok t)
{
	if (P->spans && t.p)
		ox_span_add(P, msg, t.p, t.p + t.n);
}

static int by_msg(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const ox_span *)a)->msg, y = (uintptr_t)((const ox_span *)b)->msg;
	return x < y ? -1 : x > y;
}

void ox_spans_sort(ox_spans *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, by_msg);
}

const ox_span *ox_span_find(const ox_spans *s, const void *msg)
{
	if (!s || !s->n)
		return NULL;
	ox_span key = {msg, 0, 0};
	return bsearch(&key, s->v, s->n, sizeof *s->v, by_msg);
}

void ox_spans_free(ox_spans *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
