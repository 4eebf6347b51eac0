/* Identity and Constant. */
#include <string.h>

#include "eval/kernel.h"

int ox_op_Identity(ox_k *k)
{
	ox_val *x = ox_in(k, 0);
	if (!x)
		return ox_kfail(k, "input 0 is required");
	ox_out_set(k, 0, ox_val_ref(x));
	return 0;
}

static int constant_list(ox_k *k, int type, int64_t n, const void *src)
{
	int64_t dims[1] = {n};
	ox_val *y = ox_out_tensor(k, 0, type, 1, dims);
	if (y && n)
		memcpy(y->data, src, (size_t)n * ox_elem_size(type));
	return y ? 0 : -1;
}

int ox_op_Constant(ox_k *k)
{
	const Onnx__AttributeProto *a;
	if ((a = ox_attr(k, "value"))) {
		ox_val *v = a->t ? ox_val_from_attr_tensor(k, a->t) : NULL;
		if (!v)
			return a->t ? -1 : ox_kfail(k, "attribute 'value' must be a tensor");
		ox_out_set(k, 0, v);
		return 0;
	}
	if ((a = ox_attr(k, "value_float")))
		return ox_out_set(k, 0, ox_tensor_scalar(OX_FLOAT, &a->f)), k->out[0] ? 0 : ox_kfail(k, "out of memory");
	if ((a = ox_attr(k, "value_int")))
		return ox_out_set(k, 0, ox_tensor_scalar(OX_INT64, &a->i)), k->out[0] ? 0 : ox_kfail(k, "out of memory");
	if ((a = ox_attr(k, "value_floats")))
		return constant_list(k, OX_FLOAT, (int64_t)a->n_floats, a->floats);
	if ((a = ox_attr(k, "value_ints")))
		return constant_list(k, OX_INT64, (int64_t)a->n_ints, a->ints);
	if ((a = ox_attr(k, "value_string"))) {
		ox_str s = {(char *)a->s.data, a->s.len};
		ox_out_set(k, 0, ox_tensor_scalar(OX_STRING, &s));
		return k->out[0] ? 0 : ox_kfail(k, "out of memory");
	}
	if ((a = ox_attr(k, "value_strings"))) {
		int64_t dims[1] = {(int64_t)a->n_strings};
		ox_val *y = ox_out_tensor(k, 0, OX_STRING, 1, dims);
		if (!y)
			return -1;
		for (size_t i = 0; i < a->n_strings; i++)
			if (!ox_str_set(&((ox_str *)y->data)[i], (const char *)a->strings[i].data, a->strings[i].len))
				return ox_kfail(k, "out of memory");
		return 0;
	}
	if (ox_attr(k, "sparse_value"))
		return ox_kfail(k, "sparse_value is not supported");
	return ox_kfail(k, "one of the value attributes is required");
}
