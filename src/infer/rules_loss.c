/* Inference rules of the losses: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss take
 * scores [N, C, d1, ...] and labels [N, d1, ...]; the loss is a scalar, or [N, d1, ...] with
 * reduction "none". */
#include <string.h>

#include "infer/rules.h"

/* The labels' dims must be the scores' without C. */
static int check_labels(ox_ictx *x, const ox_type *s, const ox_type *l)
{
	if (!s || !l)
		return 0;
	if (l->rank != s->rank - 1)
		return ox_ierr(x, OX_P_INPUT, 1, "the labels have rank %d, the scores %d: the labels need rank %d", l->rank,
			       s->rank, s->rank - 1);
	for (int k = 0; k < l->rank; k++) {
		ox_dim d;
		if (!ox_dim_unify(l->dims[k], s->dims[k ? k + 1 : 0], &d)) {
			char a[32], b[32];
			ox_dim_str(l->dims[k], a, sizeof a);
			ox_dim_str(s->dims[k ? k + 1 : 0], b, sizeof b);
			return ox_ierr(x, OX_P_INPUT, 1, "the labels' dimension %d is %s, but the scores' dimension %d is %s", k, a,
				       k ? k + 1 : 0, b);
		}
	}
	return 0;
}

int ox_rule_loss(ox_ictx *x)
{
	const ox_type *s = ox_input_ranked(x, 0), *l = ox_input_ranked(x, 1);
	if (s && s->rank < 2)
		return ox_ierr(x, OX_P_INPUT, 0, "the scores have rank %d, at least 2 needed ([N, C, ...])", s->rank);
	if (check_labels(x, s, l) < 0)
		return -1;
	int elem = ox_input(x, 0) ? ox_input(x, 0)->elem : ox_out_elem(x, 0);
	if (strcmp(ox_iattr_str(x, "reduction", "mean"), "none")) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, 0));
	} else if (s) {
		ox_type *o = ox_type_tensor(x, elem, s->rank - 1);
		for (int k = 0; o && k < o->rank; k++)
			o->dims[k] = s->dims[k ? k + 1 : 0];
		ox_set_out(x, 0, o);
	}
	if (x->n_out > 1)
		ox_out_like(x, 1, elem, 0); /* SoftmaxCrossEntropyLoss's log_prob: the scores' shape */
	return 0;
}
