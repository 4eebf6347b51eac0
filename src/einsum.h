/* Einsum equations read against the ranks of their inputs, shared by the evaluator's kernel
 * (src/eval/ops/einsum.c) and shape inference (src/infer/rules_linalg.c), so that run time
 * and inference read an equation alike: its terms, ellipses and implicit output. */
#ifndef OX_EINSUM_H
#define OX_EINSUM_H

#include <stddef.h>

#define OX_EINSUM_LETTERS 52 /* a-z, then A-Z */
#define OX_EINSUM_MAX_RANK 64 /* the most dims an input (and so an ellipsis) may have */
#define OX_EINSUM_MAXL (OX_EINSUM_LETTERS + OX_EINSUM_MAX_RANK) /* labels: letters, then ellipsis dims */

/* An equation read: per input i, its nl[i] labels lab[i] (one a dim: a letter, or ellipsis
 * dim j as OX_EINSUM_LETTERS + j, right-aligned so that ellipsis dim 0 is the output's first
 * one); the output's labels (after "->", else the ellipsis dims and then the letters used
 * once, in ASCII order); how often each label occurs over the inputs. The caller gives lab
 * and nl room for nin inputs. */
typedef struct ox_einsum {
	int nin;
	int (*lab)[OX_EINSUM_MAXL];
	int *nl;
	int nell; /* the output's ellipsis dims: the most any input's ellipsis stands for */
	int nout, out[OX_EINSUM_MAXL];
	int uses[OX_EINSUM_MAXL];
	int bad; /* after an error: the input the error is about, or -1 (the whole equation) */
	char err[192];
} ox_einsum;

/* Reads the equation eq[0..n) (spaces ignored) for inputs of ranks[0..nin). Returns 0, or
 * -1 with the problem in E->err and E->bad. */
int ox_einsum_parse(ox_einsum *E, const char *eq, size_t n, const int *ranks);

/* A label as the equation spells it: its letter, or '.' for an ellipsis dim. */
char ox_einsum_label_char(int label);

#endif
