/* 16 x 16 float transposes in AVX-512 registers, for the GEMM's packers and the direct
 * convolution's tile stores. */
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
#endif

#endif
