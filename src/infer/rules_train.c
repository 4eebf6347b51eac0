/* Inference rules of ai.onnx.preview.training: Gradient's outputs have the types of the
 * values they differentiate with respect to; each optimizer's new tensor has the type of
 * the tensor it updates. Adagrad and Momentum take R, T, then n each of X, G and H (or V)
 * and give n new X then n new H (V); Adam takes X, G, V, H and gives X, V, H. */
#include "infer/rules.h"

/* Output i of groups of n: which input group (after R and T) each output group copies. */
static int updated(ox_ictx *x, const int *from, int ngroups_in, int ngroups_out)
{
	if (x->n_in < 2 || (x->n_in - 2) % (size_t)ngroups_in)
		return ox_ierr(x, OX_P_OP, 0, "%zu inputs: R, T and %d groups of the same count expected", x->n_in,
			       ngroups_in);
	size_t n = (x->n_in - 2) / (size_t)ngroups_in;
	for (size_t i = 0; i < x->n_out && n && i / n < (size_t)ngroups_out; i++) {
		const ox_type *t = ox_input(x, 2 + (size_t)from[i / n] * n + i % n);
		ox_out_like(x, i, t && t->kind == OX_T_TENSOR ? t->elem : ox_out_elem(x, i), 2 + (size_t)from[i / n] * n + i % n);
	}
	return 0;
}

int ox_rule_two_state(ox_ictx *x)
{
	static const int from[] = {0, 2};
	return updated(x, from, 3, 2);
}

int ox_rule_adam(ox_ictx *x)
{
	static const int from[] = {0, 2, 3};
	return updated(x, from, 4, 3);
}

/* Gradient: its inputs are the values xs then zs name; output i, the gradient of y with
 * respect to xs[i], has the type of input i. */
int ox_rule_gradient(ox_ictx *x)
{
	const Onnx__AttributeProto *xs = ox_iattr(x, "xs"), *zs = ox_iattr(x, "zs");
	size_t nx = xs ? xs->n_strings : 0, nz = zs ? zs->n_strings : 0;
	if (x->n_in != nx + nz)
		return ox_ierr(x, OX_P_OP, 0, "%zu inputs for %zu names in xs and zs (the inputs, in their order)", x->n_in,
			       nx + nz);
	if (x->n_out > nx)
		return ox_ierr(x, OX_P_OUTPUT, nx, "%zu outputs, but xs names %zu value%s (one gradient each)", x->n_out, nx,
			       nx == 1 ? "" : "s");
	for (size_t i = 0; i < x->n_out; i++) {
		const ox_type *t = ox_input(x, i);
		ox_out_like(x, i, t && t->kind == OX_T_TENSOR ? t->elem : ox_out_elem(x, i), i);
	}
	return 0;
}
