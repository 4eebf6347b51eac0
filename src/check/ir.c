/* The structural check's IR-version rules: element types, types and fields a model's
 * ir_version does not have yet (after onnx's IR.md and Versioning.md), the opset/IR pairing
 * of the official releases (a warning); and declared types as the operator rules compare
 * them. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "schema/schema.h"
#include "types.h"

#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define problem(c, ...) ox_check_report(c, ONNXTXT_ERR_INVALID, __VA_ARGS__)

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ---- declared types as numbers ---------------------------------------------------------------- */

static int tensor_elem(const Onnx__TypeProto *t)
{
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type->has_elem_type)
		return 0;
	return ox_elem_name(t->tensor_type->elem_type) ? t->tensor_type->elem_type : 0;
}

intptr_t ox_check_type_code(const Onnx__TypeProto *t)
{
	int e;
	if (!t)
		return 0;
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		return (e = tensor_elem(t)) ? OX_KIND_TENSOR << 8 | e : 0;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		return (e = tensor_elem(t->sequence_type->elem_type)) ? OX_KIND_SEQ << 8 | e : 0;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
		const Onnx__TypeProto *in = t->optional_type->elem_type;
		if ((e = tensor_elem(in)))
			return OX_KIND_OPT << 8 | e;
		if (in && in->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && (e = tensor_elem(in->sequence_type->elem_type)))
			return OX_KIND_OPTSEQ << 8 | e;
		return 0;
	}
	default:
		/* maps, opaque types; sparse tensors, which no operator's constraints name, yet
		 * runtimes (and onnx's checker) take where a tensor goes */
		return 0;
	}
}

void ox_check_type_name(intptr_t code, char *buf, size_t size)
{
	static const char *const forms[] = {"tensor(%s)", "seq(tensor(%s))", "optional(tensor(%s))",
					    "optional(seq(tensor(%s)))", "sparse_tensor(%s)"};
	size_t kind = (size_t)(code >> 8);
	const char *e = ox_elem_name((int)(code & 0xff));
	snprintf(buf, size, kind < 5 ? forms[kind] : "%s", e ? e : "?");
}

intptr_t ox_check_type_of(const ox_scope *sc, const char *name)
{
	for (; sc && name; sc = sc->up) {
		const intptr_t *t = ox_names_get(&sc->types, name);
		if (t)
			return *t;
		if (ox_names_get(&sc->defs, name))
			return 0; /* defined here without a declared type */
	}
	return 0;
}

/* ---- what each IR version brought -------------------------------------------------------------- */

/* The IR version that brought an element type (IR.md: float8 types 9, 4-bit integers 10,
 * float4e2m1 11, float8e8m0 12, 2-bit integers 13; bfloat16 4; the rest 1 to 3). */
static int elem_ir(int dt)
{
	switch (dt) {
	case DT(BFLOAT16): return 4;
	case DT(FLOAT8E4M3FN): case DT(FLOAT8E4M3FNUZ): case DT(FLOAT8E5M2): case DT(FLOAT8E5M2FNUZ): return 9;
	case DT(UINT4): case DT(INT4): return 10;
	case DT(FLOAT4E2M1): return 11;
	case DT(FLOAT8E8M0): return 12;
	case DT(UINT2): case DT(INT2): return 13;
	default: return 1;
	}
}

/* A rule "this needs IR version need": a problem when the model's is older (a model
 * without ir_version has that reported already). */
static bool too_old(const ox_check *c, int need)
{
	return c->ir_version > 0 && c->ir_version < need;
}

void ox_check_ir_elem(ox_check *c, int elem_type, const void *at, const char *what)
{
	int need = elem_ir(elem_type);
	if (too_old(c, need))
		problem(c, at, OX_P_ALL, 0, "'%s' has element type %s, which needs IR version %d (the model has %lld)", what,
			ox_elem_name(elem_type), need, (long long)c->ir_version);
}

static void check_elem(ox_check *c, int dt, bool has, const void *at, const char *name)
{
	if (has && dt && !ox_elem_name(dt))
		problem(c, at, OX_P_ALL, 0, "'%s' has an unknown element type (elem_type %d)", name, dt);
	else if (has && dt)
		ox_check_ir_elem(c, dt, at, name);
}

static void need_ir(ox_check *c, int need, const void *at, const char *name, const char *what)
{
	if (too_old(c, need))
		problem(c, at, OX_P_ALL, 0, "'%s' has %s, which needs IR version %d (the model has %lld)", name, what, need,
			(long long)c->ir_version);
}

/* The kinds of type others nest in: the IR version that brought each (IR.md), and how
 * problems name it. */
static const struct {
	int ir;
	const char *what;
} nesting[] = {
	[ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE] = {6, "a sequence type"},
	[ONNX__TYPE_PROTO__VALUE_MAP_TYPE] = {6, "a map type"},
	[ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE] = {8, "an optional type"},
};

/* A type and the types inside it: each nesting kind of its IR version; element types
 * known and of the IR version; opaque types named. */
void ox_check_ir_type(ox_check *c, const Onnx__TypeProto *t, const void *at, const char *name)
{
	for (int depth = 0; t && depth < 64; depth++) {
		size_t k = (size_t)t->value_case;
		if (k < sizeof nesting / sizeof *nesting && nesting[k].ir)
			need_ir(c, nesting[k].ir, at, name, nesting[k].what);
		switch (t->value_case) {
		case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
			check_elem(c, t->tensor_type->elem_type, t->tensor_type->has_elem_type, at, name);
			return;
		case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
			check_elem(c, t->sparse_tensor_type->elem_type, t->sparse_tensor_type->has_elem_type, at, name);
			return;
		case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: t = t->sequence_type->elem_type; break;
		case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: t = t->optional_type->elem_type; break;
		case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
			check_elem(c, t->map_type->key_type, t->map_type->has_key_type, at, name);
			t = t->map_type->value_type;
			break;
		case ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE:
			if (!t->opaque_type->name || !*t->opaque_type->name)
				problem(c, at, OX_P_ALL, 0, "'%s' has an opaque type without a name", name);
			return;
		default:
			return;
		}
	}
}

void ox_check_ir_node(ox_check *c, const Onnx__NodeProto *n)
{
	if (n->n_metadata_props && too_old(c, 10))
		problem(c, n, OX_P_OP, 0, "metadata_props on a node need IR version 10 (the model has %lld)",
			(long long)c->ir_version);
}

void ox_check_ir_function(ox_check *c, const Onnx__FunctionProto *f)
{
	const char *name = str(f->name);
	struct { bool has; int need; const char *what; } rules[] = {
		{true, 8, "model-local functions need"},
		{f->n_attribute_proto > 0, 9, "attribute defaults (attribute_proto) of a function need"},
		{f->overload && *f->overload, 10, "a function's overload needs"},
		{f->n_value_info > 0, 10, "value_info in a function needs"},
		{f->n_metadata_props > 0, 10, "metadata_props on a function need"},
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (rules[i].has && too_old(c, rules[i].need))
			problem(c, f, OX_P_ALL, 0, "function '%s': %s IR version %d (the model has %lld)", name, rules[i].what,
				rules[i].need, (long long)c->ir_version);
}

/* ---- the releases' opset/IR pairing ------------------------------------------------------------ */

/* The first IR version that came with each opset, after the release table of onnx's
 * Versioning.md (onnx.helper.VERSION_TABLE): the default domain from 1.0 (IR 3, opset 1)
 * to 1.22 (IR 13, opset 27); ai.onnx.ml 1 to 5; the training domains 1. */
static int opset_ir(const char *domain, int64_t version)
{
	static const signed char onnx[] = {0, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8, 8, 9, 9,
					   10, 10, 11, 12, 13, 13, 13, 13};
	static const signed char ml[] = {0, 3, 6, 8, 9, 10};
	if (!*domain && version > 0 && version < (int64_t)sizeof onnx)
		return onnx[version];
	if (!strcmp(domain, "ai.onnx.ml") && version > 0 && version < (int64_t)sizeof ml)
		return ml[version];
	if ((!strcmp(domain, "ai.onnx.preview.training") || !strcmp(domain, "ai.onnx.training")) && version == 1)
		return 7;
	return 0;
}

void ox_check_ir_opsets(ox_check *c, const Onnx__ModelProto *m)
{
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *op = m->opset_import[i];
		const char *d = strcmp(str(op->domain), "ai.onnx") ? str(op->domain) : "";
		int need = opset_ir(d, op->version);
		if (c->ir_version >= 3 && too_old(c, need)) /* before 3 no opset imports at all */
			ox_check_report(c, ONNXTXT_WARNING, op, OX_P_ALL, 0,
					"opset %lld of %s%s%s came with IR version %d, but the model has ir_version %lld",
					(long long)op->version, *d ? "domain '" : "the default domain", d, *d ? "'" : "", need,
					(long long)c->ir_version);
	}
}
