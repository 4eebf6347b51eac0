#!/bin/sh
# Errors of the operators added by issue 14 (ImageDecoder, the preview.training optimizers,
# SwiGLU): each bad input fails run with exit status 1 and a message naming what is wrong.
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

echo "1..$n"
[ "$failed" -eq 0 ]
