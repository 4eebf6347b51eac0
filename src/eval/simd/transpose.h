/* 16 x 16 float transposes in AVX-512 registers, for the GEMM's packers, the direct
 * convolution's tile stores and the kernels that take small planes sixteen at a time. */
#ifndef OX_EVAL_TRANSPOSE_H
#define OX_EVAL_TRANSPOSE_H

#include "cpu.h"

#if OX_X86
#include <immintrin.h>
#include <string.h>

/* r[i] lane j becomes r[j] lane i: 32-bit, then 64-bit elements interleaved, then 128-bit
 * lanes shuffled twice. */
OX_TARGET_AVX512 static inline void ox_transpose16(__m512 r[16])
{
	__m512 t[16];
	for (int i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	for (int i = 0; i < 4; i++)
		for (int c = 0; c < 4; c++) {
			__m512d x = _mm512_castps_pd(t[4 * i + (c >> 1)]), y = _mm512_castps_pd(t[4 * i + 2 + (c >> 1)]);
			r[4 * i + c] = _mm512_castpd_ps(c & 1 ? _mm512_unpackhi_pd(x, y) : _mm512_unpacklo_pd(x, y));
		}
	for (int c = 0; c < 4; c++) {
		__m512 v = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88), w = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
		__m512 v1 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd), w1 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
		t[c] = _mm512_shuffle_f32x4(v, w, 0x88);
		t[8 + c] = _mm512_shuffle_f32x4(v, w, 0xdd);
		t[4 + c] = _mm512_shuffle_f32x4(v1, w1, 0x88);
		t[12 + c] = _mm512_shuffle_f32x4(v1, w1, 0xdd);
	}
	memcpy(r, t, sizeof t);
}

/* n positions of nc <= 16 planes (x, step floats apart) turned round into t, position-major
 * with 16 floats a position (lanes from nc on 0), or with out back from t into the planes
 * (its first nc lanes): sixteen planes of a small image then go through a kernel as
 * vectors of one position of each. Nothing past the n positions is read or written. */
OX_TARGET_AVX512 static inline void ox_turn16(float *x, int64_t step, int nc, float *t, int64_t n, bool out)
{
	for (int64_t p0 = 0; p0 < n; p0 += 16) {
		__mmask16 m = n - p0 >= 16 ? 0xffff : (__mmask16)((1u << (n - p0)) - 1);
		__m512 r[16];
		for (int i = 0; i < 16; i++)
			r[i] = !out ? (i < nc ? _mm512_maskz_loadu_ps(m, x + i * step + p0) : _mm512_setzero_ps())
			       : p0 + i < n ? _mm512_loadu_ps(t + (p0 + i) * 16) : _mm512_setzero_ps();
		ox_transpose16(r);
		for (int i = 0; i < 16; i++)
			if (out && i < nc)
				_mm512_mask_storeu_ps(x + i * step + p0, m, r[i]);
			else if (!out && p0 + i < n)
				_mm512_storeu_ps(t + (p0 + i) * 16, r[i]);
	}
}
#endif

#endif
