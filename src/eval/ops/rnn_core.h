/* The arithmetic of RNN, GRU and LSTM in one floating type. rnn.c includes this file twice:
 * for float (float, float16 and bfloat16 tensors) and for double, with REAL the type,
 * NAME(x) the name of x for it and M(f) the <math.h> function f for it. */

/* ---- activation functions ---------------------------------------------------------------- */

static REAL NAME(sigmoid)(REAL x)
{
	return x >= 0 ? 1 / (1 + M(exp)(-x)) : M(exp)(x) / (1 + M(exp)(x));
}

static void NAME(apply)(const act *a, REAL *x, int64_t n)
{
	REAL al = a->alpha, be = a->beta, zero = 0, one = 1;
	switch (a->f) {
	case F_RELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] > 0 ? x[i] : 0; break;
	case F_TANH: for (int64_t i = 0; i < n; i++) x[i] = M(tanh)(x[i]); break;
	case F_SIGMOID: for (int64_t i = 0; i < n; i++) x[i] = NAME(sigmoid)(x[i]); break;
	case F_AFFINE: for (int64_t i = 0; i < n; i++) x[i] = al * x[i] + be; break;
	case F_LEAKYRELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : al * x[i]; break;
	case F_THRESHOLDEDRELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= al ? x[i] : 0; break;
	case F_SCALEDTANH: for (int64_t i = 0; i < n; i++) x[i] = al * M(tanh)(be * x[i]); break;
	case F_HARDSIGMOID: for (int64_t i = 0; i < n; i++) x[i] = M(fmin)(M(fmax)(al * x[i] + be, zero), one); break;
	case F_ELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : al * M(expm1)(x[i]); break;
	case F_SOFTSIGN: for (int64_t i = 0; i < n; i++) x[i] = x[i] / (1 + M(fabs)(x[i])); break;
	case F_SOFTPLUS:
		for (int64_t i = 0; i < n; i++)
			x[i] = M(fmax)(x[i], zero) + M(log1p)(M(exp)(-M(fabs)(x[i])));
		break;
	}
}

/* The activation a of x[0..n), its input first bounded to [-clip, clip] (the "cell clip"
 * of the operators; clip is infinite when not given). */
static void NAME(activate)(const act *a, REAL clip, REAL *x, int64_t n)
{
	if (clip < INFINITY)
		for (int64_t i = 0; i < n; i++)
			x[i] = x[i] < -clip ? -clip : x[i] > clip ? clip : x[i];
	NAME(apply)(a, x, n);
}

/* ---- one direction ------------------------------------------------------------------------- */

typedef struct NAME(dir) {
	int d;
	bool rev;
	const act *acts;
	REAL clip;
	const REAL *r;   /* R of this direction [G*hid, hid] */
	const REAL *rbh; /* GRU with linear_before_reset: Rb of the hidden gate, or NULL */
	REAL *xw;        /* [seq * batch, G*hid]: X * W^T plus the biases that can go there */
	REAL *g;         /* [batch, G*hid]: the gates of one step */
	REAL *h, *c;     /* [batch, hid]: the state */
	REAL *tmp;       /* [batch, hid]: GRU r (.) H; LSTM the clipped C */
	REAL *hh;        /* [batch, hid]: GRU (r (.) H) * Rh^T */
} NAME(dir);

/* Hidden state of batch entry b at time t into Y. */
static void NAME(emit)(rnn *R, const NAME(dir) *D, int64_t t, int64_t b)
{
	if (R->y)
		memcpy((REAL *)R->y + ((t * R->ndir + D->d) * R->batch + b) * R->hid, D->h + b * R->hid,
		       (size_t)R->hid * sizeof(REAL));
}

/* Adds the biases that do not depend on the state (Wb + Rb, except GRU's Rbh with
 * linear_before_reset) to every row of xw. */
static int NAME(add_biases)(rnn *R, NAME(dir) *D)
{
	int64_t gw = gates_width(R);
	if (!R->b)
		return 0;
	const REAL *wb = (const REAL *)R->b + D->d * 2 * gw, *rb = wb + gw;
	REAL *sum = buf(R, gw, 1, 1);
	if (!sum)
		return -1;
	for (int64_t j = 0; j < gw; j++)
		sum[j] = wb[j] + (R->lbr && j >= 2 * R->hid ? 0 : rb[j]);
	if (R->lbr)
		D->rbh = rb + 2 * R->hid;
	for (int64_t i = 0; i < R->seq * R->batch; i++)
		for (int64_t j = 0; j < gw; j++)
			D->xw[i * gw + j] += sum[j];
	free(sum);
	return 0;
}

static int NAME(dir_open)(rnn *R, NAME(dir) *D, int d)
{
	int64_t gw = gates_width(R), H = R->hid, B = R->batch;
	*D = (NAME(dir)){d, R->ndir == 2 ? d == 1 : R->reverse, R->acts[d], R->clip, (const REAL *)R->r + d * gw * H,
			 NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	if (!(D->xw = buf(R, R->seq * B, gw, 1)) || !(D->g = buf(R, B, gw, 1)) || !(D->h = buf(R, B, H, 1)) ||
	    !(D->c = buf(R, B, H, 1)) || !(D->tmp = buf(R, B, H, 1)) || !(D->hh = buf(R, B, H, 1)))
		return -1;
	if (NAME(mm_bt)(R, R->seq * B, gw, R->in, R->x, R->in, (const REAL *)R->w + d * gw * R->in, R->in, D->xw, gw) < 0)
		return -1;
	if (R->h0)
		memcpy(D->h, (const REAL *)R->h0 + d * B * H, (size_t)(B * H) * sizeof(REAL));
	if (R->c0)
		memcpy(D->c, (const REAL *)R->c0 + d * B * H, (size_t)(B * H) * sizeof(REAL));
	return NAME(add_biases)(R, D);
}

static void NAME(dir_close)(NAME(dir) *D)
{
	REAL *bufs[] = {D->xw, D->g, D->h, D->c, D->tmp, D->hh};
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		free(bufs[i]);
}

/* Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi) */
static int NAME(step_rnn)(rnn *R, NAME(dir) *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch;
	if (NAME(mm_bt)(R, B, H, H, D->h, H, D->r, H, D->g, H) < 0)
		return -1;
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D->rev, b, s);
		REAL *g = D->g + b * H;
		const REAL *xw = D->xw + (t * B + b) * H;
		for (int64_t j = 0; j < H; j++)
			g[j] += xw[j];
		NAME(activate)(&D->acts[0], D->clip, g, H);
		memcpy(D->h + b * H, g, (size_t)H * sizeof *g);
		NAME(emit)(R, D, t, b);
	}
	return 0;
}

/* zt and rt of the active batch entries, in place in D->g; without linear_before_reset
 * also rt (.) Ht-1 into D->tmp. */
static void NAME(gru_gates)(rnn *R, NAME(dir) *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch, gw = 3 * H;
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		REAL *g = D->g + b * gw;
		const REAL *xw = D->xw + (time_of(R, D->rev, b, s) * B + b) * gw;
		for (int64_t j = 0; j < 2 * H; j++)
			g[j] += xw[j];
		NAME(activate)(&D->acts[0], D->clip, g, 2 * H);
		for (int64_t j = 0; !R->lbr && j < H; j++)
			D->tmp[b * H + j] = g[H + j] * D->h[b * H + j];
	}
}

/* zt = f(Xt*(Wz^T) + Ht-1*(Rz^T) + Wbz + Rbz)
 * rt = f(Xt*(Wr^T) + Ht-1*(Rr^T) + Wbr + Rbr)
 * ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh + Wbh), or with linear_before_reset
 * ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh)
 * Ht = (1 - zt) (.) ht + zt (.) Ht-1 */
static int NAME(step_gru)(rnn *R, NAME(dir) *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch, gw = 3 * H;
	if (NAME(mm_bt)(R, B, R->lbr ? gw : 2 * H, H, D->h, H, D->r, H, D->g, gw) < 0)
		return -1;
	NAME(gru_gates)(R, D, s);
	if (!R->lbr && NAME(mm_bt)(R, B, H, H, D->tmp, H, D->r + 2 * H * H, H, D->hh, H) < 0)
		return -1;
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D->rev, b, s);
		REAL *z = D->g + b * gw, *r = z + H, *n = r + H, *h = D->h + b * H;
		const REAL *xw = D->xw + (t * B + b) * gw + 2 * H;
		for (int64_t j = 0; j < H; j++)
			n[j] = xw[j] + (R->lbr ? r[j] * (n[j] + (D->rbh ? D->rbh[j] : 0)) : D->hh[b * H + j]);
		NAME(activate)(&D->acts[1], D->clip, n, H);
		for (int64_t j = 0; j < H; j++)
			h[j] = (1 - z[j]) * n[j] + z[j] * h[j];
		NAME(emit)(R, D, t, b);
	}
	return 0;
}

/* it = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Pi (.) Ct-1 + Wbi + Rbi)
 * ft = f(Xt*(Wf^T) + Ht-1*(Rf^T) + Pf (.) Ct-1 + Wbf + Rbf), or 1 - it with input_forget
 * ct = g(Xt*(Wc^T) + Ht-1*(Rc^T) + Wbc + Rbc)
 * Ct = ft (.) Ct-1 + it (.) ct
 * ot = f(Xt*(Wo^T) + Ht-1*(Ro^T) + Po (.) Ct + Wbo + Rbo)
 * Ht = ot (.) h(Ct)                      (gates in the order i, o, f, c) */
static void NAME(lstm_entry)(rnn *R, NAME(dir) *D, int64_t b, int64_t t)
{
	int64_t H = R->hid, gw = 4 * H;
	REAL *gi = D->g + b * gw, *go = gi + H, *gf = go + H, *gc = gf + H, *c = D->c + b * H, *tmp = D->tmp + b * H;
	const REAL *xw = D->xw + (t * R->batch + b) * gw, *p = R->p ? (const REAL *)R->p + D->d * 3 * H : NULL;
	for (int64_t j = 0; j < gw; j++)
		gi[j] += xw[j];
	for (int64_t j = 0; p && j < H; j++) {
		gi[j] += p[j] * c[j];
		gf[j] += p[2 * H + j] * c[j];
	}
	NAME(activate)(&D->acts[0], D->clip, gi, H);
	if (R->couple)
		for (int64_t j = 0; j < H; j++)
			gf[j] = 1 - gi[j];
	else
		NAME(activate)(&D->acts[0], D->clip, gf, H);
	NAME(activate)(&D->acts[1], D->clip, gc, H);
	for (int64_t j = 0; j < H; j++)
		c[j] = gf[j] * c[j] + gi[j] * gc[j];
	for (int64_t j = 0; p && j < H; j++)
		go[j] += p[H + j] * c[j];
	NAME(activate)(&D->acts[0], D->clip, go, H);
	memcpy(tmp, c, (size_t)H * sizeof *tmp);
	NAME(activate)(&D->acts[2], D->clip, tmp, H);
	for (int64_t j = 0; j < H; j++)
		D->h[b * H + j] = go[j] * tmp[j];
}

static int NAME(step_lstm)(rnn *R, NAME(dir) *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch;
	if (NAME(mm_bt)(R, B, 4 * H, H, D->h, H, D->r, H, D->g, 4 * H) < 0)
		return -1;
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D->rev, b, s);
		NAME(lstm_entry)(R, D, b, t);
		NAME(emit)(R, D, t, b);
	}
	return 0;
}

/* Runs direction d over every step; the final states go to yh and yc (zeros for
 * sequences of length 0, as onnxruntime gives). */
static int NAME(run_direction)(rnn *R, int d)
{
	NAME(dir) D;
	if (NAME(dir_open)(R, &D, d) < 0) {
		NAME(dir_close)(&D);
		return -1;
	}
	int64_t longest = 0, H = R->hid, B = R->batch;
	for (int64_t b = 0; b < B; b++)
		longest = R->lens[b] > longest ? R->lens[b] : longest;
	int rc = 0;
	for (int64_t s = 0; s < longest && rc == 0; s++)
		rc = R->kind == RNN_PLAIN ? NAME(step_rnn)(R, &D, s)
		     : R->kind == RNN_GRU ? NAME(step_gru)(R, &D, s)
					  : NAME(step_lstm)(R, &D, s);
	for (int64_t b = 0; rc == 0 && b < B; b++)
		if (R->lens[b]) {
			memcpy((REAL *)R->yh + (d * B + b) * H, D.h + b * H, (size_t)H * sizeof(REAL));
			memcpy((REAL *)R->yc + (d * B + b) * H, D.c + b * H, (size_t)H * sizeof(REAL));
		}
	NAME(dir_close)(&D);
	return rc;
}
