/* The operator registry: every operator the evaluator runs, by family. OX_OPS lists the
 * default domain ("" or "ai.onnx"), OX_OPS_ML the ai.onnx.ml domain (kernels ox_ml_Foo
 * instead of ox_op_Foo), and the other domains have one list (OX_DOMAIN_OPS), whose entries
 * are D(domain, OpType). registry.c builds the lookup table and kernel.h the declarations
 * from these lists, so the two cannot drift apart. Keep each family's list sorted.
 *
 * An operator has either
 *   X(Foo)          one kernel, ox_op_Foo, for every version of Foo; or
 *   XV(Foo, N) ...  one entry per behaviour: kernel ox_op_Foo_N runs the versions of Foo
 *                   from N up to the next entry's (all later ones for the last).
 * N is a since_version of the operator's schema (src/schema/operators.txt; the registry
 * tests of tests/check_eval.c check that). At session build the executor takes the schema version in force
 * for the node's opset (the newest since_version <= opset) and picks the entry with the
 * largest N <= it, once; a version older than the first entry is refused ("operator Foo
 * version 1 is not supported"). So kernels do not test the opset for behaviour: when an
 * operator version changes what a kernel must do (an attribute became an input, a mode was
 * added), give it XV entries whose kernels are thin wrappers over shared static helpers,
 * one OX_KERNEL line each (kernel.h). A version that only adds attributes needs no
 * entry: the session refuses attributes the schema in force lacks and gives defaults.
 * k->version (the imported opset) stays for what the schema version does not decide. */
#ifndef OX_EVAL_OPS_H
#define OX_EVAL_OPS_H

#define OX_OPS(X, XV) \
	OX_OPS_CORE(X, XV) \
	OX_OPS_ELEMENTWISE(X, XV) \
	OX_OPS_LINALG(X, XV) \
	OX_OPS_NN(X, XV) \
	OX_OPS_TENSOR(X, XV) \
	OX_OPS_SEQUENCE(X, XV) \
	OX_OPS_CONTROL(X, XV) \
	OX_OPS_RNN(X, XV) \
	OX_OPS_QUANT(X, XV) \
	OX_OPS_RESAMPLE(X, XV) \
	OX_OPS_SIGNAL(X, XV) \
	OX_OPS_RANDOM(X, XV) \
	OX_OPS_ATTENTION(X, XV) \
	OX_OPS_OTHER(X, XV)

/* core.c */
#define OX_OPS_CORE(X, XV) \
	X(Constant) \
	X(Identity)

/* elementwise.c: unary, binary, variadic, comparison, logic, activations, Where, Clip;
 * cast.c: Cast, CastLike; gated.c: SwiGLU */
#define OX_OPS_ELEMENTWISE(X, XV) \
	X(Abs) \
	X(Acos) \
	X(Acosh) \
	XV(Add, 1) \
	XV(Add, 7) \
	XV(And, 1) \
	XV(And, 7) \
	X(Asin) \
	X(Asinh) \
	X(Atan) \
	X(Atanh) \
	X(BitCast) \
	X(BitShift) \
	X(BitwiseAnd) \
	X(BitwiseNot) \
	X(BitwiseOr) \
	X(BitwiseXor) \
	XV(Cast, 1) \
	XV(Cast, 6) \
	X(CastLike) \
	X(Ceil) \
	X(Celu) \
	XV(Clip, 1) \
	XV(Clip, 11) \
	XV(Clip, 12) \
	X(Cos) \
	X(Cosh) \
	XV(Div, 1) \
	XV(Div, 7) \
	X(Elu) \
	XV(Equal, 1) \
	XV(Equal, 7) \
	X(Erf) \
	X(Exp) \
	X(Floor) \
	X(Gelu) \
	XV(Greater, 1) \
	XV(Greater, 7) \
	X(GreaterOrEqual) \
	X(HardSigmoid) \
	X(HardSwish) \
	X(IsInf) \
	X(IsNaN) \
	X(LeakyRelu) \
	XV(Less, 1) \
	XV(Less, 7) \
	X(LessOrEqual) \
	X(Log) \
	X(Max) \
	X(Mean) \
	X(Min) \
	X(Mish) \
	X(Mod) \
	XV(Mul, 1) \
	XV(Mul, 7) \
	X(Neg) \
	X(Not) \
	XV(Or, 1) \
	XV(Or, 7) \
	XV(PRelu, 1) \
	XV(PRelu, 7) \
	XV(Pow, 1) \
	XV(Pow, 7) \
	X(Reciprocal) \
	X(Relu) \
	X(Round) \
	X(Selu) \
	X(Shrink) \
	X(Sigmoid) \
	X(Sign) \
	X(Sin) \
	X(Sinh) \
	X(Softplus) \
	X(Softsign) \
	X(Sqrt) \
	XV(Sub, 1) \
	XV(Sub, 7) \
	X(Sum) \
	X(SwiGLU) \
	X(Swish) \
	X(Tan) \
	X(Tanh) \
	X(ThresholdedRelu) \
	X(Where) \
	XV(Xor, 1) \
	XV(Xor, 7)

/* linalg.c, conv.c: MatMul, Gemm, Conv, ConvTranspose */
#define OX_OPS_LINALG(X, XV) \
	X(Conv) \
	X(ConvInteger) \
	X(ConvTranspose) \
	XV(Gemm, 1) \
	XV(Gemm, 7) \
	XV(Gemm, 11) \
	X(MatMul) \
	X(MatMulInteger)

/* pool.c, norm.c, reduce.c: pooling, normalization, softmax, reductions; ssm.c: the
 * stateful causal convolution of state space models */
#define OX_OPS_NN(X, XV) \
	X(ArgMax) \
	X(ArgMin) \
	X(AveragePool) \
	XV(BatchNormalization, 1) \
	XV(BatchNormalization, 7) \
	XV(BatchNormalization, 14) \
	X(CausalConvWithState) \
	X(CumProd) \
	X(CumSum) \
	XV(Dropout, 1) \
	XV(Dropout, 7) \
	XV(Dropout, 10) \
	XV(Dropout, 12) \
	X(GlobalAveragePool) \
	X(GlobalLpPool) \
	X(GlobalMaxPool) \
	X(GroupNormalization) \
	XV(Hardmax, 1) \
	XV(Hardmax, 13) \
	X(InstanceNormalization) \
	X(LRN) \
	X(LayerNormalization) \
	XV(LogSoftmax, 1) \
	XV(LogSoftmax, 13) \
	X(LpNormalization) \
	X(LpPool) \
	X(MaxPool) \
	X(MaxRoiPool) \
	X(MaxUnpool) \
	X(MeanVarianceNormalization) \
	X(RMSNormalization) \
	XV(ReduceL1, 1) \
	XV(ReduceL1, 18) \
	XV(ReduceL2, 1) \
	XV(ReduceL2, 18) \
	XV(ReduceLogSum, 1) \
	XV(ReduceLogSum, 18) \
	XV(ReduceLogSumExp, 1) \
	XV(ReduceLogSumExp, 18) \
	XV(ReduceMax, 1) \
	XV(ReduceMax, 18) \
	XV(ReduceMean, 1) \
	XV(ReduceMean, 18) \
	XV(ReduceMin, 1) \
	XV(ReduceMin, 18) \
	XV(ReduceProd, 1) \
	XV(ReduceProd, 18) \
	XV(ReduceSum, 1) \
	XV(ReduceSum, 13) \
	XV(ReduceSumSquare, 1) \
	XV(ReduceSumSquare, 18) \
	XV(RoiAlign, 10) \
	XV(RoiAlign, 16) \
	XV(Softmax, 1) \
	XV(Softmax, 13) \
	XV(TopK, 1) \
	XV(TopK, 10)

/* shape.c, index.c, unique.c, pad.c, matrix.c: shape and index manipulation */
#define OX_OPS_TENSOR(X, XV) \
	X(CenterCropPad) \
	X(Col2Im) \
	X(Compress) \
	X(Concat) \
	X(ConstantOfShape) \
	X(DepthToSpace) \
	X(Det) \
	X(Expand) \
	X(EyeLike) \
	XV(Flatten, 1) \
	XV(Flatten, 11) \
	X(Gather) \
	X(GatherElements) \
	X(GatherND) \
	X(NonZero) \
	XV(OneHot, 9) \
	XV(OneHot, 11) \
	XV(Pad, 1) \
	XV(Pad, 2) \
	XV(Pad, 11) \
	XV(Pad, 18) \
	XV(Pad, 19) \
	X(Range) \
	XV(Reshape, 1) \
	XV(Reshape, 5) \
	X(ReverseSequence) \
	X(Scatter) \
	XV(ScatterElements, 11) \
	XV(ScatterElements, 18) \
	XV(ScatterND, 11) \
	XV(ScatterND, 18) \
	X(Shape) \
	X(Size) \
	XV(Slice, 1) \
	XV(Slice, 10) \
	X(SpaceToDepth) \
	XV(Split, 1) \
	XV(Split, 2) \
	XV(Split, 13) \
	XV(Split, 18) \
	XV(Squeeze, 1) \
	XV(Squeeze, 13) \
	X(TensorScatter) \
	XV(Tile, 1) \
	XV(Tile, 6) \
	X(Transpose) \
	X(Trilu) \
	X(Unique) \
	XV(Unsqueeze, 1) \
	XV(Unsqueeze, 13)

/* sequence.c, string.c */
#define OX_OPS_SEQUENCE(X, XV) \
	X(ConcatFromSequence) \
	X(Optional) \
	XV(OptionalGetElement, 15) \
	XV(OptionalGetElement, 18) \
	XV(OptionalHasElement, 15) \
	XV(OptionalHasElement, 18) \
	X(RegexFullMatch) \
	X(SequenceAt) \
	X(SequenceConstruct) \
	X(SequenceEmpty) \
	X(SequenceErase) \
	X(SequenceInsert) \
	X(SequenceLength) \
	X(SplitToSequence) \
	X(StringConcat) \
	X(StringNormalizer) \
	X(StringSplit)

/* control.c: If, Loop, Scan, SequenceMap */
#define OX_OPS_CONTROL(X, XV) \
	X(If) \
	X(Loop) \
	XV(Scan, 8) \
	XV(Scan, 9) \
	X(SequenceMap)

/* rnn.c: recurrent layers */
#define OX_OPS_RNN(X, XV) \
	X(GRU) \
	X(LSTM) \
	X(RNN)

/* quant.c: quantization */
#define OX_OPS_QUANT(X, XV) \
	XV(DequantizeLinear, 10) \
	XV(DequantizeLinear, 13) \
	X(DynamicQuantizeLinear) \
	X(QLinearConv) \
	X(QLinearMatMul) \
	XV(QuantizeLinear, 10) \
	XV(QuantizeLinear, 13)

/* resize.c, gridsample.c: resampling */
#define OX_OPS_RESAMPLE(X, XV) \
	X(AffineGrid) \
	XV(GridSample, 16) \
	XV(GridSample, 20) \
	XV(Resize, 10) \
	XV(Resize, 11) \
	XV(Resize, 13) \
	XV(Resize, 19) \
	XV(Upsample, 1) \
	XV(Upsample, 7) \
	XV(Upsample, 9)

/* signal.c: transforms and windows */
#define OX_OPS_SIGNAL(X, XV) \
	X(BlackmanWindow) \
	XV(DFT, 17) \
	XV(DFT, 20) \
	X(HammingWindow) \
	X(HannWindow) \
	X(MelWeightMatrix) \
	X(STFT)

/* random.c: seeded generators */
#define OX_OPS_RANDOM(X, XV) \
	X(Bernoulli) \
	X(Multinomial) \
	X(RandomNormal) \
	X(RandomNormalLike) \
	X(RandomUniform) \
	X(RandomUniformLike)

/* attention.c */
#define OX_OPS_ATTENTION(X, XV) \
	X(Attention) \
	X(LinearAttention) \
	X(RotaryEmbedding)

/* einsum.c, deformconv.c, loss.c, detection.c, tfidf.c, image.c */
#define OX_OPS_OTHER(X, XV) \
	X(DeformConv) \
	X(Einsum) \
	X(ImageDecoder) \
	X(NegativeLogLikelihoodLoss) \
	X(NonMaxSuppression) \
	X(SoftmaxCrossEntropyLoss) \
	X(TfIdfVectorizer)

/* The ai.onnx.ml domain. ml_feature.c: feature transforms; ml_encode.c: encoders;
 * ml_map.c: ZipMap, CastMap, DictVectorizer; ml_linear.c, ml_svm.c, ml_tree.c: the models
 * (ml.h, ml_util.c: shared helpers) */
#define OX_OPS_ML(X, XV) \
	X(ArrayFeatureExtractor) \
	X(Binarizer) \
	X(CastMap) \
	X(CategoryMapper) \
	X(DictVectorizer) \
	X(FeatureVectorizer) \
	X(Imputer) \
	XV(LabelEncoder, 1) \
	XV(LabelEncoder, 2) \
	XV(LabelEncoder, 4) \
	X(LinearClassifier) \
	X(LinearRegressor) \
	X(Normalizer) \
	X(OneHotEncoder) \
	X(SVMClassifier) \
	X(SVMRegressor) \
	X(Scaler) \
	X(TreeEnsemble) \
	X(TreeEnsembleClassifier) \
	X(TreeEnsembleRegressor) \
	X(ZipMap)

/* Other domains: D(domain, OpType). training.c, gradient.c: ai.onnx.preview.training;
 * attention.c: ai.onnx.preview */
#define OX_DOMAIN_OPS(D) \
	D("ai.onnx.preview", FlexAttention) \
	D("ai.onnx.preview.training", Adagrad) \
	D("ai.onnx.preview.training", Adam) \
	D("ai.onnx.preview.training", Gradient) \
	D("ai.onnx.preview.training", Momentum)

#endif
