#!/bin/sh
# Errors of the operators added by issue 14 (ImageDecoder, the preview.training optimizers,
# SwiGLU, LinearAttention, FlexAttention): each bad input fails run with exit status 1 and a
# message naming what is wrong.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"

# decode NAME PIXEL_FORMAT BYTES...: a model decoding the given stream
decode() {
	name=$1 fmt=$2
	shift 2
	bytes=$(echo "$@" | sed 's/ /, /g')
	cat >"$name.onnxtxt" <<END
#@ input s = uint8[$#] {$bytes}
<ir_version: 10, opset_import: ["" : 20]>
g (uint8[$#] s) => (uint8[?, ?, ?] y) {
  y = ImageDecoder <pixel_format = "$fmt"> (s)
}
END
}

# fails NAME DESCRIPTION MESSAGE: running NAME.onnxtxt fails with MESSAGE on stderr
fails() {
	if run 1 "$2" run "$1.onnxtxt"; then
		check "$2: message" "has err.txt \"$3\""
	fi
}

decode tiff RGB 73 73 42 0 8 0 0 0
fails tiff "a TIFF stream" "TIFF images are not supported (JPEG and PNG are)"
decode webp RGB 82 73 70 70 4 0 0 0 87 69 66 80
fails webp "a WebP stream" "WebP images are not supported"
decode junk RGB 1 2 3 4 5
fails junk "bytes of no image format" "encoded_stream is not an image in a known format"
decode empty RGB
fails empty "an empty stream" "encoded_stream is not an image in a known format"
# a build without libpng/libjpeg skips the case of decoded images (exit 77): then the
# codecs' own errors cannot be seen either
"$cli" test "$root/corpus/eval/ImageDecoder_png_jpeg.onnxtxt" >out.txt 2>err.txt
if [ $? -eq 77 ]; then
	skip "decoding errors of PNG and JPEG" "built without libpng or libjpeg"
	check "the skip says why" "has out.txt 'not supported: built without'"
else
	decode png_cut RGB 137 80 78 71 13 10 26 10 0 0 0 13 73 72
	fails png_cut "a PNG cut short" "PNG stream: "
	decode jpeg_cut RGB 255 216 255 224 0 16 74 70
	fails jpeg_cut "a JPEG cut short" "JPEG stream: "
	# the JPEG of corpus/eval/ImageDecoder_png_jpeg.onnxtxt without its last 12 bytes: libjpeg
	# would fill the rest with gray and warn; a cut stream is an error
	jpeg=$(sed -n 's/^#@ input jrgb = uint8\[[0-9]*\] {\(.*\)}$/\1/p' "$root/corpus/eval/ImageDecoder_png_jpeg.onnxtxt" | tr -d ,)
	# shellcheck disable=SC2086
	decode jpeg_trunc RGB $(echo $jpeg | awk '{ for (i = 1; i <= NF - 12; i++) printf "%s ", $i }')
	fails jpeg_trunc "a JPEG whose scan is cut short" "JPEG stream: Premature end of JPEG file"
fi
decode fmt RGBA 255 216 255
fails fmt "an unknown pixel_format" "pixel_format must be RGB, BGR or Grayscale"

cat >adam.onnxtxt <<'END'
#@ input r = float {0.1}
#@ input t = int64 {0}
#@ input x = float[2] {1, 2}
#@ input g = float[3] {1, 2, 3}
#@ input v = float[2] {1, 2}
#@ input h = float[2] {1, 2}
<ir_version: 10, opset_import: ["" : 20, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[3] g, float[2] v, float[2] h) => (float[2] y) {
  y = ai.onnx.preview.training.Adam (r, t, x, g, v, h)
}
END
fails adam "Adam with a gradient of another shape" "input 3 must have the shape of input 2"
sed 's/(r, t, x, g, v, h)/(r, t, x, v, h)/' adam.onnxtxt >adam5.onnxtxt
fails adam5 "Adam with inputs that are not 4 groups" "expected R, T and 4 groups of as many tensors, not 5 inputs"
cat >mom.onnxtxt <<'END'
#@ input r = float {0.1}
#@ input t = int64 {0}
#@ input x = float[2] {1, 2}
<ir_version: 10, opset_import: ["" : 20, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x) => (float[2] y) {
  y = ai.onnx.preview.training.Momentum <alpha = 0.9, beta = 0.1, norm_coefficient = 0.0> (r, t, x, x, x)
}
END
fails mom "Momentum without mode" "required attribute 'mode' is missing"

cat >swiglu.onnxtxt <<'END'
#@ input a = float[2] {1, 2}
#@ input b = float[1] {1}
<ir_version: 11, opset_import: ["" : 28]>
g (float[2] a, float[1] b) => (float[2] y) {
  y = SwiGLU (a, b)
}
END
fails swiglu "SwiGLU with shapes that differ" "A and B must have the same shape (SwiGLU does not broadcast)"

cat >grad.onnxtxt <<'END'
#@ input x = float[3] {1, 2, 3}
<ir_version: 10, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (float[3] x) => (float[3] dx) {
  s = Softmax (x)
  y = ReduceSum (s)
  dx = ai.onnx.preview.training.Gradient <xs = ["x"], y = "y"> (x)
}
END
fails grad "Gradient through Softmax" "cannot differentiate operator Softmax (node 0)"
sed 's/xs = \["x"\]/xs = ["q"]/' grad.onnxtxt >grad_q.onnxtxt
fails grad_q "Gradient of an unknown xs name" "xs names 'q', which the graph does not define"
sed 's/y = "y"/y = "nope"/' grad.onnxtxt >grad_y.onnxtxt
fails grad_y "Gradient of an unknown y" "y names 'nope', which the graph does not define"

cat >cconv.onnxtxt <<'END'
#@ input x = float[1, 2, 3] {1, 2, 3, 4, 5, 6}
#@ input w = float[2, 2, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
<ir_version: 11, opset_import: ["" : 27]>
g (float[1, 2, 3] x, float[2, 2, 3] w) => (float[1, 2, 3] y) {
  y = CausalConvWithState (x, w)
}
END
fails cconv "CausalConvWithState with a weight that is not depthwise" "weight must be \\[2, 1, k\\] with k >= 1 (depthwise)"

# linear NAME ATTRIBUTES INPUTS: a LinearAttention model over q [1, 2, 4], k [1, 2, 4],
# v [1, 2, 2], past p [1, 2, 2, 1], decay g [1, 2, 2], beta b [1, 2, 1], q16 float16 [1, 2, 4],
# q4 [1, 2, 1, 4] and q5 [1, 2, 5]
linear() {
	cat >"$1.onnxtxt" <<END
#@ input q = float[1, 2, 4] {1, 2, 3, 4, 5, 6, 7, 8}
#@ input k = float[1, 2, 4] {1, 0, 0, 1, 0, 1, 1, 0}
#@ input v = float[1, 2, 2] {1, 2, 3, 4}
#@ input p = float[1, 2, 2, 1] {0, 0, 0, 0}
#@ input g = float[1, 2, 2] {-1, -1, -1, -1}
#@ input b = float[1, 2, 1] {0.5, 0.5}
#@ input q16 = float16[1, 2, 4] {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}
#@ input q4 = float[1, 2, 1, 4] {1, 2, 3, 4, 5, 6, 7, 8}
#@ input q5 = float[1, 2, 5] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
<ir_version: 13, opset_import: ["" : 27]>
g (float[1, 2, 4] q, float[1, 2, 4] k, float[1, 2, 2] v, float[1, 2, 2, 1] p, float[1, 2, 2] g, float[1, 2, 1] b,
   float16[1, 2, 4] q16, float[1, 2, 1, 4] q4, float[1, 2, 5] q5) => (float[?, ?, ?] y, float[?, ?, ?, ?] s) {
  y, s = LinearAttention <q_num_heads = 2, kv_num_heads = 2$2> ($3)
}
END
}

linear la_rule ', update_rule = "fast"' 'q, k, v'
fails la_rule "LinearAttention with an unknown update_rule" 'update_rule must be .linear., .gated., .delta. or .gated_delta., not .fast.'
linear la_nodecay ', update_rule = "gated"' 'q, k, v'
fails la_nodecay "LinearAttention gated without decay" 'update_rule .gated. needs the decay input'
linear la_beta ', update_rule = "linear"' 'q, k, v, , , b'
fails la_beta "LinearAttention linear with beta" 'update_rule .linear. does not take the beta input'
linear la_nobeta '' 'q, k, v, , g'
fails la_nobeta "LinearAttention gated_delta (the default) without beta" 'update_rule .gated_delta. needs the beta input'
sed 's/q_num_heads = 2, kv_num_heads = 2/q_num_heads = 3, kv_num_heads = 2/' la_nobeta.onnxtxt >la_heads.onnxtxt
fails la_heads "LinearAttention with query heads that do not group" "q_num_heads (3) must be a positive multiple of kv_num_heads (2)"
linear la_rank ', update_rule = "linear"' 'q4, k, v'
fails la_rank "LinearAttention with a 4-D query" "query must have rank 3 \\[batch, sequence, heads \\* head size\\], not 4"
linear la_div ', update_rule = "linear"' 'q5, k, v'
fails la_div "LinearAttention with a query not split into heads" "query's last dimension (5) is not a multiple of q_num_heads (2)"
linear la_type ', update_rule = "linear"' 'q16, k, v'
fails la_type "LinearAttention with key and query of different types" "key must have query's element type float16, not float"
linear la_key ', update_rule = "linear"' 'q, v, v'
fails la_key "LinearAttention with a key of the wrong head size" "key must be \\[1, 2, 4\\] (q_num_heads 2, kv_num_heads 2, head sizes 2 and 1), not \\[1, 2, 2\\]"
linear la_decay ', update_rule = "gated"' 'q, k, v, , b'
fails la_decay "LinearAttention with a decay of the wrong shape" "decay must be \\[1, 2, 2\\] or \\[1, 2, 4\\]"
linear la_bshape ', update_rule = "delta"' 'q, k, v, , , k'
fails la_bshape "LinearAttention with a beta of the wrong shape" "beta must be \\[1, 2, 2\\] or \\[1, 2, 1\\]"
linear la_past ', update_rule = "linear"' 'q, k, v, g'
fails la_past "LinearAttention with a past_state of the wrong shape" "past_state must be \\[batch, kv_num_heads, head size of key, head size of value\\] = \\[1, 2, 2, 1\\]"

# flex NAME ATTRIBUTES INPUTS: a FlexAttention model over q [1, 1, 2, 4], k [1, 1, 3, 4],
# v [1, 1, 3, 2], k3 [1, 1, 3, 3], q3 [1, 3, 2, 4], k2 [1, 2, 3, 4] and x [1, 2, 4]
flex() {
	cat >"$1.onnxtxt" <<END
#@ input q = float[1, 1, 2, 4] {1, 2, 3, 4, 5, 6, 7, 8}
#@ input k = float[1, 1, 3, 4] {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1}
#@ input v = float[1, 1, 3, 2] {1, 2, 3, 4, 5, 6}
#@ input k3 = float[1, 1, 3, 3] {1, 0, 0, 1, 0, 1, 1, 0, 1}
#@ input q3 = float[1, 3, 2, 4] {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}
#@ input k2 = float[1, 2, 3, 4] {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1}
#@ input x = float[1, 2, 4] {1, 2, 3, 4, 5, 6, 7, 8}
<ir_version: 13, opset_import: ["" : 26, "ai.onnx.preview" : 1]>
g (float[1, 1, 2, 4] q, float[1, 1, 3, 4] k, float[1, 1, 3, 2] v, float[1, 1, 3, 3] k3, float[1, 3, 2, 4] q3,
   float[1, 2, 3, 4] k2, float[1, 2, 4] x) => (float[?, ?, ?, ?] y) {
  y = ai.onnx.preview.FlexAttention $2 ($3)
}
END
}

flex fa_rank '' 'x, k, v'
fails fa_rank "FlexAttention with a 3-D Q" "Q must have rank 4 \\[batch, heads, sequence, head size\\], not 3"
flex fa_prec '<softmax_precision = 7>' 'q, k, v'
fails fa_prec "FlexAttention with softmax_precision int64" "softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16), not 7"
flex fa_head '' 'q, k3, v'
fails fa_head "FlexAttention with K's head size unlike Q's" "K's head size (3) must be Q's (4)"
flex fa_kv '' 'q, k, q'
fails fa_kv "FlexAttention with K and V of different lengths" "K and V must have the same heads and sequence length"
flex fa_gqa '' 'q3, k2, k2'
fails fa_gqa "FlexAttention with query heads that do not group" "the 3 query heads cannot be grouped over 2 key/value heads"
flex fa_arity '<score_mod = two (float[1, 1, 2, 3] s, float t) => (float[1, 1, 2, 3] o) { o = Add (s, t) }>' 'q, k, v'
fails fa_arity "FlexAttention with a score_mod of two inputs" "attribute 'score_mod' must have one input and one output, not 2 and 1"
flex fa_shape '<score_mod = sum (float[1, 1, 2, 3] s) => (float[1, 1, 2] o) { a = Constant <value = int64[1] {3}> () o = ReduceSum <keepdims = 0> (s, a) }>' 'q, k, v'
fails fa_shape "FlexAttention with a score_mod that changes the shape" "attribute 'score_mod' must return a tensor of its input's type and shape, float\\[1,1,2,3\\], not float\\[1,1,2\\]"
flex fa_type '<prob_mod = wide (float[1, 1, 2, 3] p) => (double[1, 1, 2, 3] o) { o = Cast <to = 11> (p) }>' 'q, k, v'
fails fa_type "FlexAttention with a prob_mod of another type" "attribute 'prob_mod' must return a tensor of its input's type and shape, float\\[1,1,2,3\\], not double\\[1,1,2,3\\]"
flex fa_inner '<score_mod = bad (float[1, 1, 2, 3] s) => (float[1, 1, 2, 3] o) { o = Add (s, x) }>' 'q, k, v'
fails fa_inner "FlexAttention whose score_mod fails" "in attribute 'score_mod': .*Add"

echo "1..$n"
[ "$failed" -eq 0 ]
