/* The one list of inference rules, family by family (each family's functions live in
 * rules_FAMILY.c as ox_rule_NAME). rules.c builds the table from it and declares the rule
 * functions here, so the list and the functions cannot drift apart. A new rule adds one entry
 * to its family's part.
 *
 * An entry R(domain, Op, since, until, NAME) makes ox_rule_NAME the rule of the schemas of Op
 * whose since version lies in [since, until] (until 0: no upper bound); the first entry that
 * matches wins (the broadcasting binary ops have two: broadcast from opset 7, legacy_binary
 * before). */
#ifndef OX_INFER_RULES_H
#define OX_INFER_RULES_H

#include "infer/infer.h"

#define OX_INFER_RULES(R) \
	/* rules_elementwise.c: unary and broadcasting ops, comparisons, Where */ \
	R("", Abs, 1, 0, unary) \
	R("", Neg, 1, 0, unary) \
	R("", Relu, 1, 0, unary) \
	R("", Sigmoid, 1, 0, unary) \
	R("", Tanh, 1, 0, unary) \
	R("", Exp, 1, 0, unary) \
	R("", Log, 1, 0, unary) \
	R("", Sqrt, 1, 0, unary) \
	R("", Reciprocal, 1, 0, unary) \
	R("", Floor, 1, 0, unary) \
	R("", Ceil, 1, 0, unary) \
	R("", Round, 1, 0, unary) \
	R("", Sign, 1, 0, unary) \
	R("", Sin, 1, 0, unary) \
	R("", Cos, 1, 0, unary) \
	R("", Tan, 1, 0, unary) \
	R("", Asin, 1, 0, unary) \
	R("", Acos, 1, 0, unary) \
	R("", Atan, 1, 0, unary) \
	R("", Sinh, 1, 0, unary) \
	R("", Cosh, 1, 0, unary) \
	R("", Asinh, 1, 0, unary) \
	R("", Acosh, 1, 0, unary) \
	R("", Atanh, 1, 0, unary) \
	R("", Erf, 1, 0, unary) \
	R("", Not, 1, 0, unary) \
	R("", IsNaN, 1, 0, unary) \
	R("", IsInf, 1, 0, unary) \
	R("", Elu, 1, 0, unary) \
	R("", Selu, 1, 0, unary) \
	R("", LeakyRelu, 1, 0, unary) \
	R("", ThresholdedRelu, 1, 0, unary) \
	R("", HardSigmoid, 1, 0, unary) \
	R("", HardSwish, 1, 0, unary) \
	R("", Softplus, 1, 0, unary) \
	R("", Softsign, 1, 0, unary) \
	R("", Celu, 1, 0, unary) \
	R("", Mish, 1, 0, unary) \
	R("", Gelu, 1, 0, unary) \
	R("", Shrink, 1, 0, unary) \
	R("", BitwiseNot, 1, 0, unary) \
	R("", Clip, 1, 0, unary) \
	R("", Swish, 1, 0, unary) \
	R("", Add, 7, 0, broadcast) \
	R("", Add, 1, 6, legacy_binary) \
	R("", Sub, 7, 0, broadcast) \
	R("", Sub, 1, 6, legacy_binary) \
	R("", Mul, 7, 0, broadcast) \
	R("", Mul, 1, 6, legacy_binary) \
	R("", Div, 7, 0, broadcast) \
	R("", Div, 1, 6, legacy_binary) \
	R("", Pow, 7, 0, broadcast) \
	R("", Pow, 1, 6, legacy_binary) \
	R("", And, 7, 0, broadcast) \
	R("", And, 1, 6, legacy_binary) \
	R("", Or, 7, 0, broadcast) \
	R("", Or, 1, 6, legacy_binary) \
	R("", Xor, 7, 0, broadcast) \
	R("", Xor, 1, 6, legacy_binary) \
	R("", Equal, 7, 0, broadcast) \
	R("", Equal, 1, 6, legacy_binary) \
	R("", Less, 7, 0, broadcast) \
	R("", Less, 1, 6, legacy_binary) \
	R("", Greater, 7, 0, broadcast) \
	R("", Greater, 1, 6, legacy_binary) \
	R("", PRelu, 7, 0, broadcast) \
	R("", PRelu, 1, 6, legacy_binary) \
	R("", LessOrEqual, 1, 0, broadcast) \
	R("", GreaterOrEqual, 1, 0, broadcast) \
	R("", Mod, 1, 0, broadcast) \
	R("", BitShift, 1, 0, broadcast) \
	R("", BitwiseAnd, 1, 0, broadcast) \
	R("", BitwiseOr, 1, 0, broadcast) \
	R("", BitwiseXor, 1, 0, broadcast) \
	R("", Where, 1, 0, broadcast) \
	R("", Max, 8, 0, broadcast) \
	R("", Min, 8, 0, broadcast) \
	R("", Sum, 8, 0, broadcast) \
	R("", Mean, 8, 0, broadcast) \
	R("", Max, 1, 7, legacy_binary) \
	R("", Min, 1, 7, legacy_binary) \
	R("", Sum, 1, 7, legacy_binary) \
	R("", Mean, 1, 7, legacy_binary) \
	R("", Identity, 1, 0, identity) \
	R("", Cast, 1, 0, cast) \
	R("", CastLike, 1, 0, cast_like) \
	R("", BitCast, 26, 0, bitcast) \
	R("", Dropout, 1, 0, dropout) \
	/* rules_shape.c: Shape, Reshape, Concat, Gather, Slice, ... with values */ \
	R("", Shape, 1, 0, shape) \
	R("", Size, 1, 0, size) \
	R("", Constant, 1, 0, constant) \
	R("", ConstantOfShape, 1, 0, constant_of_shape) \
	R("", Reshape, 1, 0, reshape) \
	R("", Flatten, 1, 0, flatten) \
	R("", Transpose, 1, 0, transpose) \
	R("", Concat, 1, 0, concat) \
	R("", Squeeze, 1, 0, squeeze) \
	R("", Unsqueeze, 1, 0, unsqueeze) \
	R("", Gather, 1, 0, gather) \
	R("", Slice, 1, 0, slice) \
	R("", Expand, 1, 0, expand) \
	R("", Tile, 1, 0, tile) \
	R("", Split, 1, 0, split) \
	/* rules_linalg.c: MatMul, MatMulInteger, Gemm */ \
	R("", MatMul, 1, 0, matmul) \
	R("", MatMulInteger, 1, 0, matmul) \
	R("", Gemm, 1, 0, gemm) \
	R("", Einsum, 12, 0, einsum) \
	R("", QLinearMatMul, 10, 0, qlinear_matmul) \
	/* rules_nn.c: Conv, ConvTranspose, pools, Softmax, normalisations */ \
	R("", Conv, 1, 0, conv) \
	R("", ConvInteger, 1, 0, conv) \
	R("", ConvTranspose, 1, 0, conv_transpose) \
	R("", QLinearConv, 10, 0, qlinear_conv) \
	R("", DeformConv, 19, 0, deform_conv) \
	R("", MaxPool, 1, 0, pool) \
	R("", AveragePool, 1, 0, pool) \
	R("", LpPool, 1, 0, pool) \
	R("", GlobalAveragePool, 1, 0, global_pool) \
	R("", GlobalMaxPool, 1, 0, global_pool) \
	R("", GlobalLpPool, 1, 0, global_pool) \
	R("", Softmax, 1, 0, same_shape_axis) \
	R("", LogSoftmax, 1, 0, same_shape_axis) \
	R("", Hardmax, 1, 0, same_shape_axis) \
	R("", LpNormalization, 1, 0, same_shape_axis) \
	R("", LRN, 1, 0, same_shape_axis) \
	R("", MeanVarianceNormalization, 1, 0, same_shape_axis) \
	R("", BatchNormalization, 1, 0, batch_norm) \
	R("", InstanceNormalization, 1, 0, instance_norm) \
	R("", LayerNormalization, 1, 0, layer_norm) \
	R("", GroupNormalization, 1, 0, same_shape_axis) \
	/* rules_reduce.c: Reduce*, ArgMax, ArgMin */ \
	R("", ReduceSum, 1, 0, reduce) \
	R("", ReduceMean, 1, 0, reduce) \
	R("", ReduceMax, 1, 0, reduce) \
	R("", ReduceMin, 1, 0, reduce) \
	R("", ReduceProd, 1, 0, reduce) \
	R("", ReduceL1, 1, 0, reduce) \
	R("", ReduceL2, 1, 0, reduce) \
	R("", ReduceLogSum, 1, 0, reduce) \
	R("", ReduceLogSumExp, 1, 0, reduce) \
	R("", ReduceSumSquare, 1, 0, reduce) \
	R("", ArgMax, 1, 0, arg_reduce) \
	R("", ArgMin, 1, 0, arg_reduce) \
	/* rules_control.c: If, Loop, Scan */ \
	R("", If, 1, 0, if) \
	R("", Loop, 1, 0, loop) \
	R("", Scan, 9, 0, scan) \
	R("", Scan, 8, 8, scan) \
	/* rules_index.c: gathers, scatters, TopK, Unique, Range, Pad, ... */ \
	R("", GatherElements, 1, 0, gather_elements) \
	R("", GatherND, 1, 0, gather_nd) \
	R("", ScatterElements, 1, 0, like_data) \
	R("", ScatterND, 1, 0, like_data) \
	R("", Scatter, 1, 0, like_data) \
	R("", TensorScatter, 1, 0, like_data) \
	R("", Trilu, 1, 0, like_data) \
	R("", CumSum, 1, 0, like_data) \
	R("", CumProd, 1, 0, like_data) \
	R("", ReverseSequence, 1, 0, like_data) \
	R("", OneHot, 1, 0, one_hot) \
	R("", NonZero, 1, 0, non_zero) \
	R("", Compress, 1, 0, compress) \
	R("", Unique, 1, 0, unique) \
	R("", TopK, 1, 0, top_k) \
	R("", Range, 1, 0, range) \
	R("", EyeLike, 1, 0, eye_like) \
	R("", Pad, 1, 0, pad) \
	R("", DepthToSpace, 1, 0, depth_to_space) \
	R("", SpaceToDepth, 1, 0, space_to_depth) \
	/* rules_misc.c: quantization, random, RNN/GRU/LSTM, windows, Det, strings */ \
	R("", QuantizeLinear, 1, 0, quantize) \
	R("", DequantizeLinear, 1, 0, dequantize) \
	R("", DynamicQuantizeLinear, 1, 0, dynamic_quantize) \
	R("", RandomNormal, 1, 0, random_shape) \
	R("", RandomUniform, 1, 0, random_shape) \
	R("", RandomNormalLike, 1, 0, random_like) \
	R("", RandomUniformLike, 1, 0, random_like) \
	R("", Bernoulli, 1, 0, random_like) \
	R("", Multinomial, 1, 0, multinomial) \
	R("", RNN, 1, 0, recurrent) \
	R("", GRU, 1, 0, recurrent) \
	R("", LSTM, 1, 0, recurrent) \
	R("", HannWindow, 1, 0, window) \
	R("", HammingWindow, 1, 0, window) \
	R("", BlackmanWindow, 1, 0, window) \
	R("", MelWeightMatrix, 1, 0, mel_weight_matrix) \
	R("", Det, 1, 0, det) \
	R("", StringNormalizer, 1, 0, string_normalizer) \
	R("", StringConcat, 1, 0, string_concat) \
	R("", RegexFullMatch, 1, 0, regex_full_match) \
	R("", StringSplit, 1, 0, string_split) \
	/* rules_misc.c too: ImageDecoder, TfIdfVectorizer */ \
	R("", ImageDecoder, 20, 0, image_decoder) \
	R("", TfIdfVectorizer, 9, 0, tfidf_vectorizer) \
	/* rules_resample.c: Resize, GridSample, RoiAlign, MaxUnpool, Col2Im, DFT, STFT, ... */ \
	R("", Resize, 1, 0, resize) \
	R("", Upsample, 1, 0, resize) \
	R("", GridSample, 1, 0, grid_sample) \
	R("", AffineGrid, 1, 0, affine_grid) \
	R("", RoiAlign, 1, 0, roi_pool) \
	R("", MaxRoiPool, 1, 0, roi_pool) \
	R("", NonMaxSuppression, 1, 0, non_max_suppression) \
	R("", MaxUnpool, 1, 0, max_unpool) \
	R("", Col2Im, 1, 0, col2im) \
	R("", CenterCropPad, 1, 0, center_crop_pad) \
	R("", DFT, 1, 0, dft) \
	R("", STFT, 1, 0, stft) \
	/* rules_seq.c: sequences and optionals */ \
	R("", SequenceEmpty, 11, 0, sequence_empty) \
	R("", SequenceConstruct, 11, 0, sequence_construct) \
	R("", SequenceAt, 11, 0, sequence_at) \
	R("", SequenceInsert, 11, 0, sequence_insert) \
	R("", SequenceErase, 11, 0, sequence_erase) \
	R("", SequenceLength, 11, 0, sequence_length) \
	R("", SplitToSequence, 11, 0, split_to_sequence) \
	R("", ConcatFromSequence, 11, 0, concat_from_sequence) \
	R("", SequenceMap, 17, 0, sequence_map) \
	R("", Optional, 15, 0, optional) \
	R("", OptionalHasElement, 15, 0, optional_has_element) \
	R("", OptionalGetElement, 15, 0, optional_get_element) \
	/* rules_loss.c: SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss */ \
	R("", SoftmaxCrossEntropyLoss, 12, 0, loss) \
	R("", NegativeLogLikelihoodLoss, 12, 0, loss) \
	/* rules_ml.c: ai.onnx.ml */ \
	R("ai.onnx.ml", Binarizer, 1, 0, same) \
	R("ai.onnx.ml", Imputer, 1, 0, same) \
	R("ai.onnx.ml", Normalizer, 1, 0, to_float) \
	R("ai.onnx.ml", Scaler, 1, 0, to_float) \
	R("ai.onnx.ml", CategoryMapper, 1, 0, category_mapper) \
	R("ai.onnx.ml", LabelEncoder, 1, 0, label_encoder) \
	R("ai.onnx.ml", OneHotEncoder, 1, 0, one_hot_encoder) \
	R("ai.onnx.ml", LinearRegressor, 1, 0, linear_regressor) \
	R("ai.onnx.ml", SVMRegressor, 1, 0, svm_regressor) \
	R("ai.onnx.ml", TreeEnsembleRegressor, 1, 0, tree_ensemble_regressor) \
	R("ai.onnx.ml", LinearClassifier, 1, 0, classifier) \
	R("ai.onnx.ml", SVMClassifier, 1, 0, classifier) \
	R("ai.onnx.ml", TreeEnsembleClassifier, 1, 0, classifier) \
	R("ai.onnx.ml", FeatureVectorizer, 1, 0, feature_vectorizer) \
	R("ai.onnx.ml", ZipMap, 1, 0, zip_map) \
	R("ai.onnx.ml", ArrayFeatureExtractor, 1, 0, array_feature_extractor) \
	R("ai.onnx.ml", CastMap, 1, 0, cast_map) \
	R("ai.onnx.ml", DictVectorizer, 1, 0, dict_vectorizer) \
	R("ai.onnx.ml", TreeEnsemble, 5, 0, tree_ensemble) \
	/* rules_train.c: ai.onnx.preview.training optimizers */ \
	R("ai.onnx.preview.training", Adagrad, 1, 0, two_state) \
	R("ai.onnx.preview.training", Momentum, 1, 0, two_state) \
	R("ai.onnx.preview.training", Adam, 1, 0, adam) \
	R("ai.onnx.preview.training", Gradient, 1, 0, gradient) \
	/* rules_attention.c: RotaryEmbedding */ \
	R("", Attention, 23, 0, attention) \
	R("", RMSNormalization, 23, 0, rms_norm) \
	R("", SwiGLU, 28, 0, swiglu) \
	R("", LinearAttention, 27, 0, linear_attention) \
	R("", CausalConvWithState, 27, 0, causal_conv) \
	R("ai.onnx.preview", FlexAttention, 1, 0, flex_attention) \
	R("", RotaryEmbedding, 23, 0, rotary_embedding)

#define OX_RULE_DECLARE(domain, op, since, until, name) int ox_rule_##name(ox_ictx *x);
OX_INFER_RULES(OX_RULE_DECLARE)
#undef OX_RULE_DECLARE

#endif
