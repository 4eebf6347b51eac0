/* Every family of inference rules (rules_FAMILY.c), each an array ended by op NULL; rules.c
 * lists them in ox_rule_families. A new family adds its line here and there. */
#ifndef OX_INFER_RULES_H
#define OX_INFER_RULES_H

#include "infer/infer.h"

extern const ox_rule ox_rules_elementwise[]; /* unary and broadcasting ops, comparisons, Where */
extern const ox_rule ox_rules_shape[];       /* Shape, Reshape, Concat, Gather, Slice, ... with values */
extern const ox_rule ox_rules_nn[];          /* Conv, ConvTranspose, pools, Softmax, normalisations */
extern const ox_rule ox_rules_reduce[];      /* Reduce*, ArgMax, ArgMin */
extern const ox_rule ox_rules_control[];     /* If, Loop, Scan */
extern const ox_rule ox_rules_linalg[];      /* MatMul, MatMulInteger, Gemm */
extern const ox_rule ox_rules_index[];       /* gathers, scatters, TopK, Unique, Range, Pad, ... */
extern const ox_rule ox_rules_misc[];        /* quantization, random, RNN/GRU/LSTM, windows, Det, strings */
extern const ox_rule ox_rules_resample[];    /* Resize, GridSample, RoiAlign, MaxUnpool, Col2Im, DFT, STFT, ... */

extern const ox_rule ox_rules_seq[];         /* sequences and optionals */
extern const ox_rule ox_rules_loss[];        /* SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss */
extern const ox_rule ox_rules_ml[];          /* ai.onnx.ml */
extern const ox_rule ox_rules_train[];       /* ai.onnx.preview.training optimizers */
extern const ox_rule ox_rules_attention[];   /* RotaryEmbedding */

#endif
