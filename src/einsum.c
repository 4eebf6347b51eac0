/* Reading Einsum equations against their inputs' ranks (einsum.h), for the evaluator and
 * shape inference alike. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "einsum.h"

#define NLETTERS OX_EINSUM_LETTERS
#define MAXL OX_EINSUM_MAXL

/* Records the problem (about input `input`, or -1 for the whole equation) and fails. */
#define FAIL(E, input, ...) (snprintf((E)->err, sizeof(E)->err, __VA_ARGS__), (E)->bad = (input), -1)

static int letter(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return 26 + c - 'A';
	return -1;
}

char ox_einsum_label_char(int l)
{
	return (char)(l >= NLETTERS ? '.' : l < 26 ? 'a' + l : 'A' + l - 26);
}

/* Labels of the term s[0..n) of input `input` of rank `rank` (or of the output when input
 * < 0), ellipsis dims as NLETTERS + j right-aligned against E->nell. */
static int parse_term(ox_einsum *E, const char *s, size_t n, int input, int rank, int *lab, int *nl)
{
	int letters = 0, ell = -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (ell >= 0 || i + 2 >= n || s[i + 1] != '.' || s[i + 2] != '.')
				return FAIL(E, input, "equation: a lone '.' or a second ellipsis in term '%.*s'", (int)n, s);
			ell = letters;
			i += 2;
		} else if (letter(s[i]) < 0) {
			return FAIL(E, input, "equation: '%c' is not a letter", s[i]);
		} else {
			letters++;
		}
	}
	int e = input < 0 ? E->nell : rank - letters;
	if (input < 0 && ell < 0 && e > 0)
		return FAIL(E, -1, "equation: the output term '%.*s' has no ellipsis for the %d dims the inputs' ellipses "
			    "stand for", (int)n, s, e);
	if (e < 0 || (ell < 0 && e > 0))
		return FAIL(E, input, "equation: term '%.*s' has %d labels for an input of rank %d", (int)n, s, letters,
			    rank);
	if (ell < 0)
		e = 0;
	if (letters + e > MAXL)
		return FAIL(E, input, "equation: term '%.*s' has too many labels", (int)n, s);
	int j = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			for (int d = 0; d < e; d++)
				lab[j++] = NLETTERS + (E->nell - e) + d;
			i += 2;
		} else {
			lab[j++] = letter(s[i]);
		}
	}
	*nl = j;
	return 0;
}

/* The implicit output: ellipsis dims, then the letters used exactly once, in ASCII order. */
static void implicit_output(ox_einsum *E, bool any_ell)
{
	E->nout = 0;
	for (int d = 0; any_ell && d < E->nell; d++)
		E->out[E->nout++] = NLETTERS + d;
	for (int i = 0; i < NLETTERS; i++) { /* 'A'..'Z' (labels 26..51), then 'a'..'z' */
		int l = (i + 26) % NLETTERS;
		if (E->uses[l] == 1)
			E->out[E->nout++] = l;
	}
}

/* Copies the equation without spaces; fails when it is too long. */
static int squeeze_spaces(ox_einsum *E, const char *eq, size_t n, char *buf, size_t cap)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (eq[i] != ' ') {
			if (m + 1 >= cap)
				return FAIL(E, -1, "equation is longer than %zu characters", cap - 1);
			buf[m++] = eq[i];
		}
	buf[m] = 0;
	return 0;
}

static int parse_inputs(ox_einsum *E, const char *s, size_t len, const int *ranks)
{
	const char *p = s;
	for (int i = 0; i < E->nin; i++) {
		const char *end = memchr(p, ',', (size_t)(s + len - p));
		if (!end)
			end = s + len;
		if ((i < E->nin - 1) != (end < s + len))
			return FAIL(E, -1, "equation has a different number of terms than the %d inputs", E->nin);
		if (parse_term(E, p, (size_t)(end - p), i, ranks[i], E->lab[i], &E->nl[i]) < 0)
			return -1;
		p = end + 1;
	}
	return 0;
}

/* Ellipsis labels were aligned to the largest input rank; renumber them against the most
 * ellipsis dims any term has, so that label NLETTERS is the output's first one. */
static void align_ellipsis(ox_einsum *E)
{
	int maxe = 0;
	for (int i = 0; i < E->nin; i++)
		for (int j = 0; j < E->nl[i]; j++)
			if (E->lab[i][j] >= NLETTERS && E->nell - (E->lab[i][j] - NLETTERS) > maxe)
				maxe = E->nell - (E->lab[i][j] - NLETTERS);
	for (int i = 0; i < E->nin; i++)
		for (int j = 0; j < E->nl[i]; j++)
			E->lab[i][j] -= E->lab[i][j] >= NLETTERS ? E->nell - maxe : 0;
	E->nell = maxe;
}

static int explicit_output(ox_einsum *E, const char *s)
{
	if (parse_term(E, s, strlen(s), -1, -1, E->out, &E->nout) < 0)
		return -1;
	for (int j = 0; j < E->nout; j++) {
		int l = E->out[j];
		if (!E->uses[l])
			return FAIL(E, -1, "equation: output label '%c' appears in no input", ox_einsum_label_char(l));
		for (int i = 0; i < j; i++)
			if (E->out[i] == E->out[j])
				return FAIL(E, -1, "equation: an output label is repeated");
	}
	return 0;
}

int ox_einsum_parse(ox_einsum *E, const char *eq, size_t n, const int *ranks)
{
	char buf[1024];
	E->bad = -1;
	E->err[0] = 0;
	if (squeeze_spaces(E, eq, n, buf, sizeof buf) < 0)
		return -1;
	const char *arrow = strstr(buf, "->");
	E->nell = 0;
	for (int i = 0; i < E->nin; i++) {
		if (ranks[i] < 0 || ranks[i] > OX_EINSUM_MAX_RANK)
			return FAIL(E, i, "input %d has rank %d; Einsum takes ranks 0 to %d", i, ranks[i], OX_EINSUM_MAX_RANK);
		E->nell = ranks[i] > E->nell ? ranks[i] : E->nell;
	}
	if (parse_inputs(E, buf, arrow ? (size_t)(arrow - buf) : strlen(buf), ranks) < 0)
		return -1;
	align_ellipsis(E);
	memset(E->uses, 0, sizeof E->uses);
	for (int i = 0; i < E->nin; i++)
		for (int j = 0; j < E->nl[i]; j++)
			E->uses[E->lab[i][j]]++;
	if (arrow)
		return explicit_output(E, arrow + 2);
	implicit_output(E, strstr(buf, "...") != NULL);
	return 0;
}
