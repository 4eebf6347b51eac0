/* Annotations ("#@" lines): not read yet. */
#include <stdlib.h>

#include "build.h"

static void none(ox_parser *P, size_t mark)
{
	if (P->nannots > mark)
		ox_fail(P, &P->annots[mark], ONNXTXT_ERR_SYNTAX, "annotations are not supported yet");
}

void ox_annot_push(ox_parser *P, ox_tok t)
{
	if (P->nannots == P->capannots) {
		size_t cap = P->capannots ? 2 * P->capannots : 16;
		ox_tok *a = realloc(P->annots, cap * sizeof *a);
		if (!a)
			ox_fail(P, NULL, ONNXTXT_ERR_NOMEM, "out of memory");
		P->annots = a;
		P->capannots = cap;
	}
	P->annots[P->nannots++] = t;
}

void ox_annotate_model(ox_parser *P, ox_mhead *H, Onnx__GraphProto *g) { (void)g; none(P, H->ann); }
void ox_annotate_graph(ox_parser *P, Onnx__GraphProto *g, size_t mark) { (void)g; none(P, mark); }
void ox_annotate_function(ox_parser *P, Onnx__FunctionProto *f, size_t mark) { (void)f; none(P, mark); }
void ox_annotate_node(ox_parser *P, Onnx__NodeProto *n, size_t mark) { (void)n; none(P, mark); }
void ox_annotate_attr(ox_parser *P, Onnx__AttributeProto *a, size_t mark) { (void)a; none(P, mark); }
void ox_annotate_value_info(ox_parser *P, Onnx__ValueInfoProto *vi, Onnx__TensorProto *init, size_t mark)
{
	(void)vi;
	(void)init;
	none(P, mark);
}
