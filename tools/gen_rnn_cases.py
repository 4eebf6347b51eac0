#!/usr/bin/python3
"""Writes the RNN, GRU and LSTM cases of corpus/eval: random inputs (fixed seed, so the files
come out the same every run), expected outputs from a numpy reference that follows the
equations of the ONNX operator specification literally, one batch entry at a time.
Usage: tools/gen_rnn_cases.py [OUTDIR]   (default: corpus/eval beside this script)"""
import os
import sys

import numpy as np

FUNCS = {  # name: (uses alpha, uses beta, default alpha, default beta)
    'relu': (0, 0, 0, 0), 'tanh': (0, 0, 0, 0), 'sigmoid': (0, 0, 0, 0),
    'affine': (1, 1, 1.0, 0.0), 'leakyrelu': (1, 0, 0.01, 0), 'thresholdedrelu': (1, 0, 1.0, 0),
    'scaledtanh': (1, 1, 1.0, 1.0), 'hardsigmoid': (1, 1, 0.2, 0.5), 'elu': (1, 0, 1.0, 0),
    'softsign': (0, 0, 0, 0), 'softplus': (0, 0, 0, 0),
}

def f_apply(name, x, a, b):
    n = name.lower()
    if n == 'relu': return np.maximum(0, x)
    if n == 'tanh': return np.tanh(x)
    if n == 'sigmoid': return 1 / (1 + np.exp(-x))
    if n == 'affine': return a * x + b
    if n == 'leakyrelu': return np.where(x >= 0, x, a * x)
    if n == 'thresholdedrelu': return np.where(x >= a, x, 0)
    if n == 'scaledtanh': return a * np.tanh(b * x)
    if n == 'hardsigmoid': return np.minimum(np.maximum(a * x + b, 0), 1)
    if n == 'elu': return np.where(x >= 0, x, a * (np.exp(x) - 1))
    if n == 'softsign': return x / (1 + np.abs(x))
    if n == 'softplus': return np.log(1 + np.exp(x))
    raise ValueError(name)

def make_acts(names, alphas, betas):
    """activation_alpha/beta are consumed in order by the functions that take them."""
    alphas = list(alphas or []); betas = list(betas or [])
    out = []
    for n in names:
        ua, ub, da, db = FUNCS[n.lower()]
        a = alphas.pop(0) if ua and alphas else da
        b = betas.pop(0) if ub and betas else db
        out.append((n, a, b))
    return out

def layer(kind, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, direction='forward', layout=0,
          acts=None, alphas=None, betas=None, clip=None, lbr=0, input_forget=0):
    X = X.astype(np.float64); W = W.astype(np.float64); R = R.astype(np.float64)
    if layout == 1:
        X = X.swapaxes(0, 1)
        h0 = None if h0 is None else h0.swapaxes(0, 1)
        c0 = None if c0 is None else c0.swapaxes(0, 1)
    seq, batch, _ = X.shape
    nd = 2 if direction == 'bidirectional' else 1
    G = {'rnn': 1, 'gru': 3, 'lstm': 4}[kind]
    H = R.shape[-1]
    count = {'rnn': 1, 'gru': 2, 'lstm': 3}[kind]
    dflt = {'rnn': ['Tanh'], 'gru': ['Sigmoid', 'Tanh'], 'lstm': ['Sigmoid', 'Tanh', 'Tanh']}[kind]
    if acts is None:
        fl = [(n, 0, 0) for n in dflt * nd]
    else:
        names = acts if len(acts) == count * nd else acts * nd
        fl = make_acts(names, alphas, betas)
        if len(acts) != count * nd:
            fl = fl[:count] * nd
    if B is None: B = np.zeros((nd, 2 * G * H))
    if P is None and kind == 'lstm': P = np.zeros((nd, 3 * H))
    if h0 is None: h0 = np.zeros((nd, batch, H))
    if c0 is None: c0 = np.zeros((nd, batch, H))
    if lens is None: lens = [seq] * batch
    Y = np.zeros((seq, nd, batch, H)); Yh = np.zeros((nd, batch, H)); Yc = np.zeros((nd, batch, H))
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    for d in range(nd):
        rev = (direction == 'reverse') or d == 1
        F = [(lambda v, n=n, a=a, b=b: f_apply(n, cl(v), a, b)) for (n, a, b) in fl[d * count:(d + 1) * count]]
        Wd, Rd, Bd = W[d], R[d], B[d].astype(np.float64)
        Wb, Rb = Bd[:G * H], Bd[G * H:]
        for b in range(batch):
            L = int(lens[b])
            h = h0[d, b].astype(np.float64); c = c0[d, b].astype(np.float64)
            for t in (reversed(range(L)) if rev else range(L)):
                x = X[t, b]
                if kind == 'rnn':
                    h = F[0](x @ Wd.T + h @ Rd.T + Wb + Rb)
                elif kind == 'gru':
                    Wz, Wr, Wh = np.split(Wd, 3); Rz, Rr, Rh = np.split(Rd, 3)
                    Wbz, Wbr, Wbh = np.split(Wb, 3); Rbz, Rbr, Rbh = np.split(Rb, 3)
                    z = F[0](x @ Wz.T + h @ Rz.T + Wbz + Rbz)
                    r = F[0](x @ Wr.T + h @ Rr.T + Wbr + Rbr)
                    if lbr:
                        hh = F[1](x @ Wh.T + r * (h @ Rh.T + Rbh) + Wbh)
                    else:
                        hh = F[1](x @ Wh.T + (r * h) @ Rh.T + Rbh + Wbh)
                    h = (1 - z) * hh + z * h
                else:
                    Wi, Wo, Wf, Wc = np.split(Wd, 4); Ri, Ro, Rf, Rc = np.split(Rd, 4)
                    Wbi, Wbo, Wbf, Wbc = np.split(Wb, 4); Rbi, Rbo, Rbf, Rbc = np.split(Rb, 4)
                    Pi, Po, Pf = np.split(P[d].astype(np.float64), 3)
                    i = F[0](x @ Wi.T + h @ Ri.T + Pi * c + Wbi + Rbi)
                    if input_forget:
                        f = 1 - i
                    else:
                        f = F[0](x @ Wf.T + h @ Rf.T + Pf * c + Wbf + Rbf)
                    cc = F[1](x @ Wc.T + h @ Rc.T + Wbc + Rbc)
                    c = f * c + i * cc
                    o = F[0](x @ Wo.T + h @ Ro.T + Po * c + Wbo + Rbo)
                    h = o * F[2](c)
                Y[t, d, b] = h
            if L > 0:
                Yh[d, b] = h; Yc[d, b] = c
    if layout == 1:
        Y = Y.transpose(2, 0, 1, 3); Yh = Yh.swapaxes(0, 1); Yc = Yc.swapaxes(0, 1)
    return Y, Yh, Yc

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "eval")
rng = np.random.default_rng(20240617)

def rnd(*shape, scale=1.0):
    return np.round(rng.uniform(-1, 1, size=shape) * scale, 2).astype(np.float32)

def fmt_val(a, dt, digits):
    flat = a.reshape(-1)
    if dt == 'int32':
        body = ', '.join(str(int(v)) for v in flat)
    else:
        body = ', '.join(('%.*g' % (digits, float(v))) if v != 0 else '0' for v in flat)
    dims = ', '.join(str(d) for d in a.shape)
    return f'{dt}[{dims}] {{{body}}}'

def fmt_attr(k, v):
    if isinstance(v, str): return f'{k} = "{v}"'
    if isinstance(v, list):
        if all(isinstance(x, str) for x in v): return k + ' = [' + ', '.join(f'"{x}"' for x in v) + ']'
        if all(isinstance(x, float) for x in v): return k + ' = [' + ', '.join(repr(x) for x in v) + ']'
    if isinstance(v, float): return f'{k} = {v!r}'
    return f'{k} = {v}'

INPUT_NAMES = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P']
OUTPUT_NAMES = ['Y', 'Y_h', 'Y_c']

def case(fname, comment, opset, kind, attrs, ins, want, dt='float', tol=''):
    op = {'rnn': 'RNN', 'gru': 'GRU', 'lstm': 'LSTM'}[kind]
    if dt == 'double':  # the values the text says, not their float32 neighbours
        ins = {k: v if k == 'sequence_lens' else np.round(v.astype(np.float64), 2) for k, v in ins.items()}
    digits = 17 if dt == 'double' else 7
    kw = {}
    for k, v in attrs.items():
        if k == 'direction': kw['direction'] = v
        elif k == 'layout': kw['layout'] = v
        elif k == 'activations': kw['acts'] = v
        elif k == 'activation_alpha': kw['alphas'] = v
        elif k == 'activation_beta': kw['betas'] = v
        elif k == 'clip': kw['clip'] = v
        elif k == 'linear_before_reset': kw['lbr'] = v
        elif k == 'input_forget': kw['input_forget'] = v
    names = {'B': 'B', 'sequence_lens': 'lens', 'initial_h': 'h0', 'initial_c': 'c0', 'P': 'P'}
    for k, v in ins.items():
        if k in names: kw[names[k]] = v
    Y, Yh, Yc = layer(kind, ins['X'], ins['W'], ins['R'], **kw)
    res = {'Y': Y, 'Y_h': Yh, 'Y_c': Yc}
    lines = ['# ' + l for l in comment.strip().split('\n')]
    sig_in, node_in = [], []
    last = max(i for i, n in enumerate(INPUT_NAMES) if n in ins)
    for i, n in enumerate(INPUT_NAMES[:last + 1]):
        if n in ins:
            a = ins[n]
            t = 'int32' if n == 'sequence_lens' else dt
            lines.append(f'#@ input {n} = ' + fmt_val(np.asarray(a), t, 6))
            sig_in.append(f'{t}[' + ', '.join(str(d) for d in np.asarray(a).shape) + f'] {n}')
            node_in.append(n)
        else:
            node_in.append('')
    sig_out, node_out = [], []
    for n in OUTPUT_NAMES:
        if n in want:
            v = res[n]
            lines.append(f'#@ expect {n} = ' + fmt_val(v, dt, digits) + tol)
            sig_out.append(f'{dt}[' + ', '.join(str(d) for d in v.shape) + f'] {n}')
            node_out.append(n)
        else:
            node_out.append('')
    while node_out and node_out[-1] == '': node_out.pop()
    lines.append(f'<ir_version: 8, opset_import: ["" : {opset}]>')
    lines.append(f'{fname.lower()} (' + ', '.join(sig_in) + ') => (' + ', '.join(sig_out) + ') {')
    at = ', '.join(fmt_attr(k, v) for k, v in attrs.items())
    outs = ', '.join(node_out)  # an omitted output is an empty name before a comma
    lines.append(f'  {outs} = {op} <{at}> (' + ', '.join(node_in) + ')')
    lines.append('}')
    with open(f'{OUT}/{fname}.onnxtxt', 'w') as f:
        f.write('\n'.join(lines) + '\n')

S = 'Expected values: numpy, from the equations of the ONNX operator specification'

# ---------------- RNN
X = rnd(3, 2, 2); W = rnd(1, 3, 2); R = rnd(1, 3, 3)
case('RNN_defaults', f'''RNN with only X, W and R: forward, f = Tanh, no bias, zero initial state; Y and Y_h.
{S} (RNN: Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi)).''',
     14, 'rnn', {'hidden_size': 3}, {'X': X, 'W': W, 'R': R}, ['Y', 'Y_h'])

X = rnd(4, 2, 3); W = rnd(1, 2, 3); R = rnd(1, 2, 2); B = rnd(1, 4); h0 = rnd(1, 2, 2)
case('RNN_reverse_bias_initial_h', f'''RNN direction "reverse" with B and initial_h: the sequence is read from its last step,
Y keeps time order, Y_h is the state after step 0. Opset 7 (no layout attribute).
{S} (RNN-7).''',
     7, 'rnn', {'hidden_size': 2, 'direction': 'reverse'}, {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0}, ['Y', 'Y_h'])

X = rnd(3, 2, 2); W = rnd(2, 3, 2); R = rnd(2, 3, 3); B = rnd(2, 6)
case('RNN_bidirectional_activations', f'''Bidirectional RNN with activations ["Relu", "LeakyRelu"] (one per direction) and
activation_alpha [0.3], consumed by LeakyRelu, the first function that takes an alpha.
{S} (RNN; activation functions listed in the RNN spec).''',
     14, 'rnn', {'hidden_size': 3, 'direction': 'bidirectional', 'activations': ['Relu', 'LeakyRelu'],
                 'activation_alpha': [0.3]}, {'X': X, 'W': W, 'R': R, 'B': B}, ['Y', 'Y_h'])

X = rnd(4, 3, 2); W = rnd(2, 2, 2); R = rnd(2, 2, 2); B = rnd(2, 4); L = np.array([4, 2, 0], np.int32)
h0 = rnd(2, 3, 2)
case('RNN_sequence_lens', f'''Bidirectional RNN with sequence_lens [4, 2, 0]: Y is zero beyond each sequence's length, the
reverse direction starts at each sequence's own last step, Y_h is the last valid state (zero
for the empty sequence, as onnxruntime gives).
{S} (RNN; sequence_lens).''',
     14, 'rnn', {'hidden_size': 2, 'direction': 'bidirectional'},
     {'X': X, 'W': W, 'R': R, 'B': B, 'sequence_lens': L, 'initial_h': h0}, ['Y', 'Y_h'])

X = rnd(2, 3, 2); W = rnd(2, 3, 2); R = rnd(2, 3, 3); h0 = rnd(2, 2, 3)
case('RNN_layout1', f'''RNN with layout = 1 (opset 14): X is [batch, seq, input], initial_h [batch, num_directions,
hidden], Y [batch, seq, num_directions, hidden], Y_h [batch, num_directions, hidden]; bidirectional.
{S} (RNN-14 layout).''',
     14, 'rnn', {'hidden_size': 3, 'direction': 'bidirectional', 'layout': 1},
     {'X': X, 'W': W, 'R': R, 'initial_h': h0}, ['Y', 'Y_h'])

X = rnd(3, 1, 2, scale=3); W = rnd(1, 3, 2, scale=2); R = rnd(1, 3, 3)
case('RNN_clip_sigmoid', f'''RNN with clip = 0.5 and activations ["Sigmoid"]: the input of the activation is bounded to
[-0.5, 0.5] first.
{S} (RNN; clip "is applied to the input of activations").''',
     14, 'rnn', {'hidden_size': 3, 'clip': 0.5, 'activations': ['Sigmoid']}, {'X': X, 'W': W, 'R': R}, ['Y', 'Y_h'])

X = rnd(3, 2, 2); W = rnd(1, 2, 2); R = rnd(1, 2, 2); B = rnd(1, 4)
case('RNN_only_Y_h', f'''RNN whose node names only Y_h (Y omitted): the final state alone.
{S}.''',
     14, 'rnn', {'hidden_size': 2}, {'X': X, 'W': W, 'R': R, 'B': B}, ['Y_h'])

X = rnd(3, 2, 2); W = rnd(1, 3, 2); R = rnd(1, 3, 3); B = rnd(1, 6)
case('RNN_double', f'''RNN on double tensors (T allows float, double and float16), computed in double: the
expectations hold to rtol 1e-12.
{S}.''',
     14, 'rnn', {'hidden_size': 3, 'activations': ['Softsign']}, {'X': X, 'W': W, 'R': R, 'B': B}, ['Y', 'Y_h'], dt='double',
     tol=' rtol=1e-12 atol=1e-15')

X = rnd(2, 1, 2); W = rnd(1, 2, 2); R = rnd(1, 2, 2)
case('RNN_float16', f'''RNN on float16 tensors, with activations ["Softplus"]; computed in float, rounded to float16.
{S}.''',
     14, 'rnn', {'hidden_size': 2, 'activations': ['Softplus']}, {'X': X, 'W': W, 'R': R}, ['Y', 'Y_h'], dt='float16',
     tol=' rtol=0.01 atol=0.001')

# ---------------- GRU
X = rnd(3, 2, 2); W = rnd(1, 9, 2); R = rnd(1, 9, 3); B = rnd(1, 18)
case('GRU_defaults_bias', f'''GRU forward with B: f = Sigmoid, g = Tanh, linear_before_reset = 0; Y and Y_h.
{S} (GRU: zt, rt, ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh + Wbh), Ht = (1 - zt) (.) ht + zt (.) Ht-1).''',
     14, 'gru', {'hidden_size': 3}, {'X': X, 'W': W, 'R': R, 'B': B}, ['Y', 'Y_h'])

X = rnd(3, 2, 3); W = rnd(1, 6, 3); R = rnd(1, 6, 2); B = rnd(1, 12); h0 = rnd(1, 2, 2)
case('GRU_linear_before_reset', f'''GRU with linear_before_reset = 1: ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh).
{S} (GRU).''',
     14, 'gru', {'hidden_size': 2, 'linear_before_reset': 1}, {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0},
     ['Y', 'Y_h'])

X = rnd(4, 3, 2); W = rnd(2, 6, 2); R = rnd(2, 6, 2); B = rnd(2, 12); L = np.array([3, 4, 1], np.int32)
h0 = rnd(2, 3, 2)
case('GRU_bidirectional_sequence_lens', f'''Bidirectional GRU with sequence_lens [3, 4, 1] and initial_h: zeros beyond each length,
reverse direction from each sequence's last valid step, Y_h the last valid state.
{S} (GRU).''',
     14, 'gru', {'hidden_size': 2, 'direction': 'bidirectional'},
     {'X': X, 'W': W, 'R': R, 'B': B, 'sequence_lens': L, 'initial_h': h0}, ['Y', 'Y_h'])

X = rnd(2, 3, 2); W = rnd(1, 9, 2); R = rnd(1, 9, 3); B = rnd(1, 18); h0 = rnd(2, 1, 3)
case('GRU_layout1_reverse', f'''GRU with layout = 1 and direction "reverse": batch-first X, initial_h, Y and Y_h.
{S} (GRU-14 layout).''',
     14, 'gru', {'hidden_size': 3, 'direction': 'reverse', 'layout': 1},
     {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0}, ['Y', 'Y_h'])

X = rnd(3, 2, 2, scale=2); W = rnd(2, 6, 2, scale=2); R = rnd(2, 6, 2); B = rnd(2, 12)
case('GRU_activations_clip', f'''Bidirectional GRU with activations ["HardSigmoid", "Softsign", "Sigmoid", "ScaledTanh"],
activation_alpha [0.3, 0.8] and activation_beta [0.4, 1.5] (consumed in order by HardSigmoid, then
ScaledTanh), and clip = 1.0 on every activation input.
{S} (GRU; activation functions and clip).''',
     14, 'gru', {'hidden_size': 2, 'direction': 'bidirectional',
                 'activations': ['HardSigmoid', 'Softsign', 'Sigmoid', 'ScaledTanh'],
                 'activation_alpha': [0.3, 0.8], 'activation_beta': [0.4, 1.5], 'clip': 1.0},
     {'X': X, 'W': W, 'R': R, 'B': B}, ['Y', 'Y_h'])

# ---------------- LSTM
X = rnd(3, 2, 2); W = rnd(1, 12, 2); R = rnd(1, 12, 3)
case('LSTM_defaults', f'''LSTM with only X, W and R: forward, f = Sigmoid, g = h = Tanh; Y, Y_h and Y_c.
{S} (LSTM: gates in the order i, o, f, c).''',
     14, 'lstm', {'hidden_size': 3}, {'X': X, 'W': W, 'R': R}, ['Y', 'Y_h', 'Y_c'])

X = rnd(3, 2, 3); W = rnd(1, 8, 3); R = rnd(1, 8, 2); B = rnd(1, 16); h0 = rnd(1, 2, 2); c0 = rnd(1, 2, 2)
P = rnd(1, 6)
case('LSTM_peepholes', f'''LSTM with every optional input: B, initial_h, initial_c and the peepholes P (Pi and Pf on
Ct-1, Po on Ct).
{S} (LSTM).''',
     14, 'lstm', {'hidden_size': 2}, {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0, 'initial_c': c0, 'P': P},
     ['Y', 'Y_h', 'Y_c'])

X = rnd(4, 1, 2); W = rnd(1, 12, 2); R = rnd(1, 12, 3); B = rnd(1, 24); c0 = rnd(1, 1, 3)
case('LSTM_reverse_input_forget', f'''LSTM direction "reverse" with input_forget = 1: the forget gate is coupled to the input
gate, ft = 1 - it (as onnxruntime computes it). Opset 7.
{S} (LSTM).''',
     7, 'lstm', {'hidden_size': 3, 'direction': 'reverse', 'input_forget': 1},
     {'X': X, 'W': W, 'R': R, 'B': B, 'initial_c': c0}, ['Y', 'Y_h', 'Y_c'])

X = rnd(3, 3, 2); W = rnd(2, 8, 2); R = rnd(2, 8, 2); B = rnd(2, 16); L = np.array([1, 3, 2], np.int32)
P = rnd(2, 6)
case('LSTM_bidirectional_sequence_lens', f'''Bidirectional LSTM with sequence_lens [1, 3, 2] and peepholes: Y zero beyond each length,
Y_h and Y_c the last valid states of each direction.
{S} (LSTM).''',
     14, 'lstm', {'hidden_size': 2, 'direction': 'bidirectional'},
     {'X': X, 'W': W, 'R': R, 'B': B, 'sequence_lens': L, 'P': P}, ['Y', 'Y_h', 'Y_c'])

X = rnd(2, 3, 2); W = rnd(2, 8, 2); R = rnd(2, 8, 2); B = rnd(2, 16); h0 = rnd(2, 2, 2); c0 = rnd(2, 2, 2)
case('LSTM_layout1', f'''Bidirectional LSTM with layout = 1 (opset 14): batch-first X, initial_h, initial_c, Y, Y_h and
Y_c.
{S} (LSTM-14 layout).''',
     14, 'lstm', {'hidden_size': 2, 'direction': 'bidirectional', 'layout': 1},
     {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0, 'initial_c': c0}, ['Y', 'Y_h', 'Y_c'])

X = rnd(3, 2, 2, scale=2); W = rnd(1, 8, 2, scale=2); R = rnd(1, 8, 2); B = rnd(1, 16); c0 = rnd(1, 2, 2, scale=3)
case('LSTM_activations_clip', f'''LSTM with activations ["HardSigmoid", "Elu", "Affine"] (f, g, h), activation_alpha
[0.25, 0.9, 0.5] and activation_beta [0.6, 0.1] (HardSigmoid takes alpha and beta, Elu alpha,
Affine alpha and beta), and clip = 1.2 bounding every activation's input, also Ct before h.
{S} (LSTM; activation functions and clip).''',
     14, 'lstm', {'hidden_size': 2, 'activations': ['HardSigmoid', 'Elu', 'Affine'],
                  'activation_alpha': [0.25, 0.9, 0.5], 'activation_beta': [0.6, 0.1], 'clip': 1.2},
     {'X': X, 'W': W, 'R': R, 'B': B, 'initial_c': c0}, ['Y', 'Y_h', 'Y_c'])

X = rnd(2, 2, 2); W = rnd(2, 8, 2); R = rnd(2, 8, 2)
case('LSTM_activations_thresholdedrelu', f'''Bidirectional LSTM with six activations, one triple per direction: ["Sigmoid", "Relu",
"ThresholdedRelu", "Sigmoid", "Tanh", "Softsign"], activation_alpha [0.1] for ThresholdedRelu.
{S} (LSTM).''',
     14, 'lstm', {'hidden_size': 2, 'direction': 'bidirectional',
                  'activations': ['Sigmoid', 'Relu', 'ThresholdedRelu', 'Sigmoid', 'Tanh', 'Softsign'],
                  'activation_alpha': [0.1]},
     {'X': X, 'W': W, 'R': R}, ['Y_h', 'Y_c'])

X = rnd(3, 2, 2); W = rnd(2, 6, 2); R = rnd(2, 6, 2); B = rnd(2, 12); h0 = rnd(2, 2, 2)
case('GRU_double_linear_before_reset', f'''Bidirectional GRU on double tensors with linear_before_reset = 1, computed in double
(rtol 1e-12).
{S} (GRU).''',
     14, 'gru', {'hidden_size': 2, 'direction': 'bidirectional', 'linear_before_reset': 1},
     {'X': X, 'W': W, 'R': R, 'B': B, 'initial_h': h0}, ['Y', 'Y_h'], dt='double', tol=' rtol=1e-12 atol=1e-15')

X = rnd(3, 2, 2); W = rnd(1, 8, 2); R = rnd(1, 8, 2); B = rnd(1, 16); P = rnd(1, 6); L = np.array([3, 2], np.int32)
case('LSTM_double_peepholes', f'''LSTM on double tensors with peepholes and sequence_lens, computed in double (rtol 1e-12).
{S} (LSTM).''',
     14, 'lstm', {'hidden_size': 2}, {'X': X, 'W': W, 'R': R, 'B': B, 'sequence_lens': L, 'P': P},
     ['Y', 'Y_h', 'Y_c'], dt='double', tol=' rtol=1e-12 atol=1e-15')
