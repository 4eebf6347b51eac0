/* Signal processing: DFT (opsets 17 and 20), STFT, the Hann, Hamming and Blackman
 * windows, and MelWeightMatrix. Transforms run in double: radix-2 FFT for power-of-two
 * lengths, Bluestein's chirp-z transform (through a radix-2 FFT) for the others. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"


#define PI 3.14159265358979323846

/* ---- FFT --------------------------------------------------------------------------- */

typedef struct cplx {
	double re, im;
} cplx;

static cplx cmul(cplx a, cplx b)
{
	return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* An in-place radix-2 FFT of n (a power of two) values; sign -1 forward, +1 backward. */
static void fft2(cplx *a, int64_t n, int sign)
{
	for (int64_t i = 1, j = 0; i < n; i++) {
		int64_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			cplx t = a[i];
			a[i] = a[j], a[j] = t;
		}
	}
	for (int64_t len = 2; len <= n; len <<= 1) {
		double ang = sign * 2 * PI / (double)len;
		for (int64_t i = 0; i < n; i += len)
			for (int64_t j = 0; j < len / 2; j++) {
				cplx w = {cos(ang * (double)j), sin(ang * (double)j)};
				cplx u = a[i + j], v = cmul(a[i + j + len / 2], w);
				a[i + j] = (cplx){u.re + v.re, u.im + v.im};
				a[i + j + len / 2] = (cplx){u.re - v.re, u.im - v.im};
			}
	}
}

/* A plan for transforms of length n: Bluestein's chirp and the transformed kernel when n
 * is not a power of two. */
typedef struct plan {
	int64_t n, m; /* m: the padded power-of-two length, 0 when n is one itself */
	int sign;
	cplx *chirp, *kernel, *work;
} plan;

static bool pow2(int64_t n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

static int plan_init(ox_k *k, plan *p, int64_t n, int sign)
{
	memset(p, 0, sizeof *p);
	p->n = n, p->sign = sign;
	int64_t m = 1;
	if (!pow2(n)) {
		while (m < 2 * n - 1)
			m <<= 1;
		p->m = m;
	}
	int64_t wn = p->m ? p->m : n;
	if (!(p->work = ox_scratch(k, wn, sizeof(cplx), "FFT buffer")))
		return -1;
	if (!p->m)
		return 0;
	if (!(p->chirp = ox_scratch(k, n, sizeof(cplx), "FFT chirp")) ||
	    !(p->kernel = ox_scratch(k, m, sizeof(cplx), "FFT kernel")))
		return -1;
	for (int64_t i = 0; i < n; i++) {
		/* i*i mod 2n keeps the angle exact for long transforms */
		double ang = sign * PI * (double)((i * i) % (2 * n)) / (double)n;
		p->chirp[i] = (cplx){cos(ang), sin(ang)};
	}
	memset(p->kernel, 0, (size_t)m * sizeof(cplx));
	for (int64_t i = 0; i < n; i++) {
		cplx c = {p->chirp[i].re, -p->chirp[i].im};
		p->kernel[i] = c;
		if (i)
			p->kernel[m - i] = c;
	}
	fft2(p->kernel, m, -1);
	return 0;
}

static void plan_free(plan *p)
{
	free(p->chirp), free(p->kernel), free(p->work);
}

/* Transforms a[0..n) in place (unnormalized). */
static void plan_run(plan *p, cplx *a)
{
	if (!p->m) {
		fft2(a, p->n, p->sign);
		return;
	}
	cplx *w = p->work;
	memset(w, 0, (size_t)p->m * sizeof *w);
	for (int64_t i = 0; i < p->n; i++)
		w[i] = cmul(a[i], p->chirp[i]);
	fft2(w, p->m, -1);
	for (int64_t i = 0; i < p->m; i++)
		w[i] = cmul(w[i], p->kernel[i]);
	fft2(w, p->m, 1);
	for (int64_t i = 0; i < p->n; i++) {
		cplx v = {w[i].re / (double)p->m, w[i].im / (double)p->m};
		a[i] = cmul(v, p->chirp[i]);
	}
}

/* ---- DFT --------------------------------------------------------------------------- */

static const int dft_types[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};

typedef struct dft {
	int64_t outer, len, inner; /* the signal seen as [outer, len, inner, c] around the axis */
	int64_t n, keep;           /* transform length and the bins kept */
	int c;                     /* 1 real, 2 complex */
	bool inverse;
} dft;

/* Transforms every line of x along the axis into y ([outer, keep, inner, 2]). */
static int dft_lines(ox_k *k, const dft *d, const double *x, double *y)
{
	plan p;
	cplx *line = ox_scratch(k, d->n, sizeof *line, "DFT line");
	int rc = line ? plan_init(k, &p, d->n, d->inverse ? 1 : -1) : -1;
	for (int64_t o = 0; rc == 0 && o < d->outer; o++)
		for (int64_t i = 0; i < d->inner; i++) {
			for (int64_t t = 0; t < d->n; t++) {
				const double *v = x + ((o * d->len + t) * d->inner + i) * d->c;
				line[t] = t < d->len ? (cplx){v[0], d->c == 2 ? v[1] : 0} : (cplx){0, 0};
			}
			plan_run(&p, line);
			double scale = d->inverse ? 1.0 / (double)d->n : 1.0;
			for (int64_t t = 0; t < d->keep; t++) {
				double *v = y + ((o * d->keep + t) * d->inner + i) * 2;
				v[0] = line[t].re * scale, v[1] = line[t].im * scale;
			}
		}
	if (line)
		plan_free(&p);
	free(line);
	return rc;
}

/* The axis: an attribute (default 1) at version 17, an optional input (default -2) from 20
 * (axis_input); counted among the signal dims, which exclude the last (real/imaginary) one. */
static int dft_axis(ox_k *k, bool axis_input, const ox_val *x)
{
	int64_t axis = axis_input ? -2 : ox_attr_int(k, "axis", 1);
	if (axis_input && ox_in(k, 2)) {
		int64_t v;
		if (ox_in_int(k, 2, &v, "axis") < 0)
		return -1;
		axis = v;
	}
	int r = x->rank;
	int64_t a = axis < 0 ? axis + r : axis;
	if (a < 0 || a >= r - 1)
		return ox_kfail(k, "axis %lld is out of range for an input of rank %d (the last dimension holds the "
				   "real and imaginary parts)", (long long)axis, r);
	return (int)a;
}

static int dft_run(ox_k *k, bool axis_input)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_check_type(k, x, "input", dft_types) < 0)
		return -1;
	if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
		return ox_kfail(k, "the input's last dimension must be 1 (real) or 2 (complex)");
	int axis = dft_axis(k, axis_input, x);
	if (axis < 0)
		return -1;
	dft d = {1, x->dims[axis], 1, 0, 0, (int)x->dims[x->rank - 1], ox_attr_int(k, "inverse", 0) != 0};
	for (int i = 0; i < axis; i++)
		d.outer *= x->dims[i];
	for (int i = axis + 1; i < x->rank - 1; i++)
		d.inner *= x->dims[i];
	d.n = d.len;
	if (ox_in(k, 1)) {
		if (ox_in_int(k, 1, &d.n, "dft_length") < 0)
		return -1;
		if (d.n < 1 || d.n > OX_MAX_ELEMENTS)
			return ox_kfail(k, "dft_length must be in [1, %lld], not %lld", (long long)OX_MAX_ELEMENTS,
					(long long)d.n);
	}
	d.keep = ox_attr_int(k, "onesided", 0) ? d.n / 2 + 1 : d.n;
	int64_t dims[OX_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	dims[axis] = d.keep, dims[x->rank - 1] = 2;
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	double *xd = y ? ox_load_f64(k, x, "input") : NULL;
	double *yd = xd ? ox_scratch(k, y->count, sizeof *yd, "output") : NULL;
	int rc = yd && (d.outer * d.inner == 0 || dft_lines(k, &d, xd, yd) == 0) ? 0 : -1;
	if (rc == 0)
		ox_store_f64(y, yd);
	free(xd), free(yd);
	return rc;
}

OX_KERNEL(ox_op_DFT_17, dft_run(k, false))
OX_KERNEL(ox_op_DFT_20, dft_run(k, true))

/* ---- STFT -------------------------------------------------------------------------- */

typedef struct stft {
	int64_t batch, slen, step, flen, frames, bins;
	int c;
	const double *window; /* NULL: rectangular */
} stft;

static void stft_frames(const stft *s, const double *x, plan *p, cplx *line, double *y)
{
	for (int64_t b = 0; b < s->batch; b++)
		for (int64_t f = 0; f < s->frames; f++) {
			for (int64_t t = 0; t < s->flen; t++) {
				const double *v = x + (b * s->slen + f * s->step + t) * s->c;
				double w = s->window ? s->window[t] : 1.0;
				line[t] = (cplx){v[0] * w, s->c == 2 ? v[1] * w : 0};
			}
			plan_run(p, line);
			for (int64_t t = 0; t < s->bins; t++) {
				double *o = y + ((b * s->frames + f) * s->bins + t) * 2;
				o[0] = line[t].re, o[1] = line[t].im;
			}
		}
}

static int stft_params(ox_k *k, const ox_val *x, const ox_val *win, stft *s)
{
	if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
		return ox_kfail(k, "signal must have shape [batch_size, signal_length, 1 or 2]");
	s->batch = x->dims[0], s->slen = x->dims[1], s->c = (int)x->dims[2];
	if (ox_in_int(k, 1, &s->step, "frame_step") < 0)
		return -1;
	if (win && win->rank != 1)
		return ox_kfail(k, "window must be 1-D");
	s->flen = win ? win->dims[0] : -1;
	if (ox_in(k, 3)) {
		if (ox_in_int(k, 3, &s->flen, "frame_length") < 0)
		return -1;
		if (win && win->dims[0] != s->flen)
			return ox_kfail(k, "the window has %lld values but frame_length is %lld", (long long)win->dims[0],
					(long long)s->flen);
	}
	if (s->flen < 0)
		return ox_kfail(k, "one of window and frame_length is required");
	if (s->step < 1 || s->flen < 1 || s->flen > s->slen)
		return ox_kfail(k, "frame_step must be positive and frame_length in [1, signal_length %lld]; got %lld and %lld",
				(long long)s->slen, (long long)s->step, (long long)s->flen);
	s->frames = (s->slen - s->flen) / s->step + 1;
	s->bins = ox_attr_int(k, "onesided", 1) ? s->flen / 2 + 1 : s->flen;
	if (s->c == 2 && s->bins != s->flen)
		return ox_kfail(k, "onesided output is not possible for a complex signal");
	return 0;
}

int ox_op_STFT(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *win = ox_in_tensor(k, 2, false);
	stft s;
	if (!x || (!win && ox_in(k, 2)) || ox_check_type(k, x, "signal", dft_types) < 0 ||
	    (win && ox_check_type(k, win, "window", dft_types) < 0) || stft_params(k, x, win, &s) < 0)
		return -1;
	int64_t dims[4] = {s.batch, s.frames, s.bins, 2};
	ox_val *y = ox_out_tensor(k, 0, x->type, 4, dims);
	double *xd = y ? ox_load_f64(k, x, "signal") : NULL;
	double *wd = xd && win ? ox_load_f64(k, win, "window") : NULL;
	double *yd = xd && (wd || !win) ? ox_scratch(k, y->count, sizeof *yd, "output") : NULL;
	cplx *line = yd ? ox_scratch(k, s.flen, sizeof *line, "frame") : NULL;
	plan p;
	int rc = -1;
	if (line && plan_init(k, &p, s.flen, -1) == 0) {
		s.window = wd;
		stft_frames(&s, xd, &p, line, yd);
		ox_store_f64(y, yd);
		rc = 0;
	}
	if (line)
		plan_free(&p);
	free(xd), free(wd), free(yd), free(line);
	return rc;
}

/* ---- windows ----------------------------------------------------------------------- */

/* w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1. */
static int window(ox_k *k, double a0, double a1, double a2)
{
	int64_t size;
	if (ox_in_int(k, 0, &size, "size") < 0)
		return -1;
	if (size < 0)
		return ox_kfail(k, "size must not be negative, not %lld", (long long)size);
	int type = (int)ox_attr_int(k, "output_datatype", OX_FLOAT);
	if (!ox_elem_is_float(type) && !ox_elem_is_int(type))
		return ox_kfail(k, "output_datatype must be a numeric type, not %s", ox_elem_label(type));
	ox_val *y = ox_out_tensor(k, 0, type, 1, &size);
	double *w = y ? ox_scratch(k, size, sizeof *w, "window") : NULL;
	if (!w)
		return -1;
	double n1 = (double)(ox_attr_int(k, "periodic", 1) ? size : size - 1);
	for (int64_t n = 0; n < size; n++) {
		double t = n1 > 0 ? 2 * PI * (double)n / n1 : 0;
		w[n] = a0 - a1 * cos(t) + a2 * cos(2 * t);
	}
	ox_store_f64(y, w);
	free(w);
	return 0;
}

OX_KERNEL(ox_op_HannWindow, window(k, 0.5, 0.5, 0))
OX_KERNEL(ox_op_HammingWindow, window(k, 25.0 / 46.0, 21.0 / 46.0, 0))
OX_KERNEL(ox_op_BlackmanWindow, window(k, 0.42, 0.5, 0.08))

/* ---- MelWeightMatrix --------------------------------------------------------------- */

/* The integer bin of each of the nmel + 2 points spaced evenly on the mel scale between
 * the edges (the spec's formulas, float32 where its reference computes in float32). */
static void mel_points(int64_t nmel, int64_t dft_len, int64_t rate, float lo, float hi, int64_t *bins)
{
	float lo_mel = 2595.0f * log10f(1.0f + lo / 700.0f), hi_mel = 2595.0f * log10f(1.0f + hi / 700.0f);
	double step = (double)((hi_mel - lo_mel) / (float)(nmel + 2));
	for (int64_t i = 0; i < nmel + 2; i++) {
		double hz = 700.0 * (pow(10.0, ((double)i * step + lo_mel) / 2595.0) - 1.0);
		double b = floor((double)(dft_len + 1) * hz / (double)rate), big = 0x1p50;
		bins[i] = isnan(b) ? -1 : (int64_t)(b < -big ? -big : b > big ? big : b);
	}
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Triangle i rises from bin f[i] to f[i + 1] and falls to f[i + 2]; only the bins in
 * [0, nbins) are visited. */
static void mel_fill(int64_t nmel, int64_t nbins, const int64_t *f, double *out)
{
	memset(out, 0, (size_t)(nbins * nmel) * sizeof *out);
	for (int64_t i = 0; i < nmel; i++) {
		int64_t lo = f[i], c = f[i + 1], hi = f[i + 2];
		if (c == lo && c >= 0 && c < nbins)
			out[c * nmel + i] = 1;
		for (int64_t j = max64(lo, 0); c > lo && j <= min64(c, nbins - 1); j++)
			out[j * nmel + i] = (double)(j - lo) / (double)(c - lo);
		for (int64_t j = max64(c, 0); hi > c && j < min64(hi, nbins); j++)
			out[j * nmel + i] = (double)(hi - j) / (double)(hi - c);
	}
}

int ox_op_MelWeightMatrix(ox_k *k)
{
	int64_t nmel, dft_len, rate;
	ox_val *lo = ox_in_tensor(k, 3, true), *hi = ox_in_tensor(k, 4, true);
	if (ox_in_int(k, 0, &nmel, "num_mel_bins") < 0 || ox_in_int(k, 1, &dft_len, "dft_length") < 0 ||
	    ox_in_int(k, 2, &rate, "sample_rate") < 0 || !lo || !hi)
		return -1;
	if (nmel < 0 || dft_len < 1 || rate < 1 || lo->count != 1 || hi->count != 1)
		return ox_kfail(k, "num_mel_bins must not be negative, dft_length and sample_rate must be positive, "
				   "and the edges scalars");
	int type = (int)ox_attr_int(k, "output_datatype", OX_FLOAT);
	if (!ox_elem_is_float(type) && !ox_elem_is_int(type))
		return ox_kfail(k, "output_datatype must be a numeric type, not %s", ox_elem_label(type));
	int64_t dims[2] = {dft_len / 2 + 1, nmel};
	ox_val *y = ox_out_tensor(k, 0, type, 2, dims);
	int64_t *f = y ? ox_scratch(k, nmel + 2, sizeof *f, "mel points") : NULL;
	double *out = f ? ox_scratch(k, y->count, sizeof *out, "output") : NULL;
	if (out) {
		mel_points(nmel, dft_len, rate, (float)ox_get_f64(lo, 0), (float)ox_get_f64(hi, 0), f);
		mel_fill(nmel, dims[0], f, out);
		ox_store_f64(y, out);
	}
	free(f), free(out);
	return out ? 0 : -1;
}
