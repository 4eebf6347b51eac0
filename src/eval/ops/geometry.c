/* Window geometry shared by Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv
 * and the pooling operators (geometry.h). */
#include <string.h>

#include "geometry.h"

int ox_window_ints(ox_k *k, const char *name, int n, int64_t lo, int64_t def, int64_t *out)
{
	const int64_t *v;
	int64_t c = ox_attr_ints(k, name, &v);
	if (c <= 0) {
		for (int i = 0; i < n; i++)
			out[i] = def;
		return 0;
	}
	if (c != n)
		return ox_kfail(k, "attribute '%s' has %lld values; expected %d", name, (long long)c, n);
	for (int i = 0; i < n; i++) {
		if (v[i] < lo || v[i] > OX_WINDOW_MAX)
			return ox_kfail(k, "attribute '%s' value %lld is out of range [%lld, %lld]", name,
					(long long)v[i], (long long)lo, (long long)OX_WINDOW_MAX);
		out[i] = v[i];
	}
	return 0;
}

int ox_auto_pad(ox_k *k)
{
	static const char *const names[] = {
		[OX_PAD_NOTSET] = "NOTSET", [OX_PAD_SAME_UPPER] = "SAME_UPPER",
		[OX_PAD_SAME_LOWER] = "SAME_LOWER", [OX_PAD_VALID] = "VALID"};
	for (int i = 0; i < 4; i++)
		if (ox_attr_str_is(k, "auto_pad", "NOTSET", names[i]))
			return i;
	return ox_kfail(k, "attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or SAME_LOWER");
}

int ox_conv_attrs(ox_k *k, const ox_val *x, const ox_val *w, ox_conv_geom *g)
{
	int n = g->nsp = x->rank - 2;
	int64_t ks[OX_MAX_RANK], pads[2 * OX_MAX_RANK];
	for (int i = 0; i < n; i++) {
		g->in[i] = x->dims[i + 2];
		g->kernel[i] = w->dims[i + 2];
		if (g->kernel[i] < 1)
			return ox_kfail(k, "W's spatial dimension %d is %lld; expected at least 1", i,
					(long long)g->kernel[i]);
	}
	if (ox_window_ints(k, "kernel_shape", n, 1, 1, ks) < 0)
		return -1;
	for (int i = 0; ox_attr(k, "kernel_shape") && i < n; i++)
		if (ks[i] != g->kernel[i])
			return ox_kfail(k, "kernel_shape[%d] is %lld but W's spatial dimension is %lld", i,
					(long long)ks[i], (long long)g->kernel[i]);
	if (ox_window_ints(k, "strides", n, 1, 1, g->stride) < 0 || ox_window_ints(k, "dilations", n, 1, 1, g->dil) < 0 ||
	    ox_window_ints(k, "pads", 2 * n, 0, 0, pads) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		g->pad0[i] = pads[i];
		g->pad1[i] = pads[n + i];
	}
	return 0;
}

int ox_conv_out(ox_k *k, ox_conv_geom *g)
{
	int ap = ox_auto_pad(k);
	if (ap < 0)
		return -1;
	for (int i = 0; i < g->nsp; i++) {
		int64_t dk = ox_window_extent(g->kernel[i], g->dil[i]), s = g->stride[i];
		if (ap == OX_PAD_SAME_UPPER || ap == OX_PAD_SAME_LOWER) {
			g->out[i] = ox_same_pads(g->in[i], s, dk, ap == OX_PAD_SAME_LOWER, &g->pad0[i], &g->pad1[i]);
			continue;
		}
		if (ap == OX_PAD_VALID)
			g->pad0[i] = g->pad1[i] = 0;
		g->out[i] = ox_window_out(g->in[i], g->pad0[i], g->pad1[i], dk, s, false);
		if (g->out[i] < 0)
			return ox_kfail(k, "spatial axis %d: the padded input (%lld) is smaller than the dilated kernel (%lld)",
					i, (long long)(g->in[i] + g->pad0[i] + g->pad1[i]), (long long)dk);
	}
	return 0;
}
