/* The operator registry: every operator the evaluator runs, one X(OpType) entry each, by
 * family. The kernel of X(Foo) is ox_op_Foo; registry.c builds the lookup table and the
 * declarations from this one list, so the two cannot drift apart. OX_OPS lists the default
 * domain ("" or "ai.onnx"), OX_OPS_ML the ai.onnx.ml domain (kernels ox_ml_Foo), and the
 * other domains have one list (OX_DOMAIN_OPS), whose entries are D(domain, OpType). Keep
 * each family's list sorted. */
#ifndef OX_EVAL_OPS_H
#define OX_EVAL_OPS_H

#define OX_OPS(X) \
	OX_OPS_CORE(X) \
	OX_OPS_ELEMENTWISE(X) \
	OX_OPS_LINALG(X) \
	OX_OPS_NN(X) \
	OX_OPS_TENSOR(X) \
	OX_OPS_SEQUENCE(X) \
	OX_OPS_CONTROL(X) \
	OX_OPS_RNN(X) \
	OX_OPS_QUANT(X) \
	OX_OPS_RESAMPLE(X) \
	OX_OPS_SIGNAL(X) \
	OX_OPS_RANDOM(X) \
	OX_OPS_ATTENTION(X) \
	OX_OPS_OTHER(X)

/* core.c */
#define OX_OPS_CORE(X) \
	X(Constant) \
	X(Identity)

/* elementwise.c: unary, binary, variadic, comparison, logic, activations, Where, Clip;
 * cast.c: Cast, CastLike; gated.c: SwiGLU */
#define OX_OPS_ELEMENTWISE(X) \
	X(Abs) \
	X(Acos) \
	X(Acosh) \
	X(Add) \
	X(And) \
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
	X(Cast) \
	X(CastLike) \
	X(Ceil) \
	X(Celu) \
	X(Clip) \
	X(Cos) \
	X(Cosh) \
	X(Div) \
	X(Elu) \
	X(Equal) \
	X(Erf) \
	X(Exp) \
	X(Floor) \
	X(Gelu) \
	X(Greater) \
	X(GreaterOrEqual) \
	X(HardSigmoid) \
	X(HardSwish) \
	X(IsInf) \
	X(IsNaN) \
	X(LeakyRelu) \
	X(Less) \
	X(LessOrEqual) \
	X(Log) \
	X(Max) \
	X(Mean) \
	X(Min) \
	X(Mish) \
	X(Mod) \
	X(Mul) \
	X(Neg) \
	X(Not) \
	X(Or) \
	X(PRelu) \
	X(Pow) \
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
	X(Sub) \
	X(Sum) \
	X(SwiGLU) \
	X(Swish) \
	X(Tan) \
	X(Tanh) \
	X(ThresholdedRelu) \
	X(Where) \
	X(Xor)

/* linalg.c, conv.c: MatMul, Gemm, Conv, ConvTranspose */
#define OX_OPS_LINALG(X) \
	X(Conv) \
	X(ConvInteger) \
	X(ConvTranspose) \
	X(Gemm) \
	X(MatMul) \
	X(MatMulInteger)

/* pool.c, norm.c, reduce.c: pooling, normalization, softmax, reductions; ssm.c: the
 * stateful causal convolution of state space models */
#define OX_OPS_NN(X) \
	X(ArgMax) \
	X(ArgMin) \
	X(AveragePool) \
	X(BatchNormalization) \
	X(CausalConvWithState) \
	X(CumProd) \
	X(CumSum) \
	X(Dropout) \
	X(GlobalAveragePool) \
	X(GlobalLpPool) \
	X(GlobalMaxPool) \
	X(GroupNormalization) \
	X(Hardmax) \
	X(InstanceNormalization) \
	X(LRN) \
	X(LayerNormalization) \
	X(LogSoftmax) \
	X(LpNormalization) \
	X(LpPool) \
	X(MaxPool) \
	X(MaxRoiPool) \
	X(MaxUnpool) \
	X(MeanVarianceNormalization) \
	X(RMSNormalization) \
	X(ReduceL1) \
	X(ReduceL2) \
	X(ReduceLogSum) \
	X(ReduceLogSumExp) \
	X(ReduceMax) \
	X(ReduceMean) \
	X(ReduceMin) \
	X(ReduceProd) \
	X(ReduceSum) \
	X(ReduceSumSquare) \
	X(RoiAlign) \
	X(Softmax) \
	X(TopK)

/* shape.c, index.c, unique.c, pad.c, matrix.c: shape and index manipulation */
#define OX_OPS_TENSOR(X) \
	X(CenterCropPad) \
	X(Col2Im) \
	X(Compress) \
	X(Concat) \
	X(ConstantOfShape) \
	X(DepthToSpace) \
	X(Det) \
	X(Expand) \
	X(EyeLike) \
	X(Flatten) \
	X(Gather) \
	X(GatherElements) \
	X(GatherND) \
	X(NonZero) \
	X(OneHot) \
	X(Pad) \
	X(Range) \
	X(Reshape) \
	X(ReverseSequence) \
	X(Scatter) \
	X(ScatterElements) \
	X(ScatterND) \
	X(Shape) \
	X(Size) \
	X(Slice) \
	X(SpaceToDepth) \
	X(Split) \
	X(Squeeze) \
	X(TensorScatter) \
	X(Tile) \
	X(Transpose) \
	X(Trilu) \
	X(Unique) \
	X(Unsqueeze)

/* sequence.c, string.c */
#define OX_OPS_SEQUENCE(X) \
	X(ConcatFromSequence) \
	X(Optional) \
	X(OptionalGetElement) \
	X(OptionalHasElement) \
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
#define OX_OPS_CONTROL(X) \
	X(If) \
	X(Loop) \
	X(Scan) \
	X(SequenceMap)

/* rnn.c: recurrent layers */
#define OX_OPS_RNN(X) \
	X(GRU) \
	X(LSTM) \
	X(RNN)

/* quant.c: quantization */
#define OX_OPS_QUANT(X) \
	X(DequantizeLinear) \
	X(DynamicQuantizeLinear) \
	X(QLinearConv) \
	X(QLinearMatMul) \
	X(QuantizeLinear)

/* resize.c, gridsample.c: resampling */
#define OX_OPS_RESAMPLE(X) \
	X(AffineGrid) \
	X(GridSample) \
	X(Resize) \
	X(Upsample)

/* signal.c: transforms and windows */
#define OX_OPS_SIGNAL(X) \
	X(BlackmanWindow) \
	X(DFT) \
	X(HammingWindow) \
	X(HannWindow) \
	X(MelWeightMatrix) \
	X(STFT)

/* random.c: seeded generators */
#define OX_OPS_RANDOM(X) \
	X(Bernoulli) \
	X(Multinomial) \
	X(RandomNormal) \
	X(RandomNormalLike) \
	X(RandomUniform) \
	X(RandomUniformLike)

/* attention.c */
#define OX_OPS_ATTENTION(X) \
	X(Attention) \
	X(LinearAttention) \
	X(RotaryEmbedding)

/* einsum.c, deformconv.c, loss.c, detection.c, tfidf.c, image.c */
#define OX_OPS_OTHER(X) \
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
#define OX_OPS_ML(X) \
	X(ArrayFeatureExtractor) \
	X(Binarizer) \
	X(CastMap) \
	X(CategoryMapper) \
	X(DictVectorizer) \
	X(FeatureVectorizer) \
	X(Imputer) \
	X(LabelEncoder) \
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
