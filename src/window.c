/* Window arithmetic along one axis (window.h), one copy for the evaluator and inference. */
#include "window.h"

int64_t ox_same_pads(int64_t in, int64_t s, int64_t ext, bool lower, int64_t *pad0, int64_t *pad1)
{
	int64_t out = (in + s - 1) / s;
	int64_t total = out ? (out - 1) * s + ext - in : 0;
	if (total < 0)
		total = 0;
	*pad0 = lower ? total - total / 2 : total / 2;
	*pad1 = total - *pad0;
	return out;
}

int64_t ox_window_out(int64_t in, int64_t pad0, int64_t pad1, int64_t ext, int64_t s, bool ceil_mode)
{
	int64_t num = in + pad0 + pad1 - ext;
	if (num < 0)
		return -1;
	int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
	if (ceil_mode && out > 1 && (out - 1) * s >= in + pad0)
		out--; /* rounding up may not add a window starting in the end padding */
	return out;
}
