/* ImageDecoder (opset 20): decodes a JPEG (libjpeg-turbo) or PNG (libpng) stream into a
 * [H, W, C] uint8 tensor in RGB, BGR or Grayscale; the other formats the spec lists, and
 * codecs the build was configured without, fail with a message saying which. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"

#ifdef OX_HAVE_JPEG
#include <jpeglib.h>
#endif
#ifdef OX_HAVE_PNG
#include <png.h>
#endif

/* A decoded image: 8-bit samples, 1 (gray) or 3 (RGB) channels, row-major. */
typedef struct image {
	int64_t h, w;
	int channels;
	unsigned char *px;
} image;

/* Largest decoded image (pixels), so that a small stream cannot ask for gigabytes. */
#define MAX_PIXELS (INT64_C(1) << 28)

#if defined(OX_HAVE_JPEG) || defined(OX_HAVE_PNG)
static int alloc_pixels(ox_k *k, image *im)
{
	if (im->h <= 0 || im->w <= 0 || im->h > MAX_PIXELS / im->w)
		return ox_kfail(k, "image of %lld x %lld pixels is empty or too large", (long long)im->w,
				(long long)im->h);
	im->px = ox_scratch(k, im->h * im->w * im->channels, 1, "decoded image");
	return im->px ? 0 : -1;
}
#endif

#ifdef OX_HAVE_JPEG
typedef struct jpeg_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
	char msg[JMSG_LENGTH_MAX];
} jpeg_err;

/* libjpeg's default exits the process: keep the message and jump back instead. */
static void jpeg_fail(j_common_ptr c)
{
	jpeg_err *e = (jpeg_err *)c->err;
	c->err->format_message(c, e->msg);
	longjmp(e->jump, 1);
}

/* Level -1 is a warning about corrupt data (a stream cut short decodes to gray filler):
 * an error here, as the reference's PIL refuses truncated images; the rest is tracing. */
static void jpeg_warn(j_common_ptr c, int level)
{
	if (level < 0)
		jpeg_fail(c);
}

static int jpeg_rows(struct jpeg_decompress_struct *d, image *im)
{
	while (d->output_scanline < d->output_height) {
		JSAMPROW row = im->px + (int64_t)d->output_scanline * im->w * im->channels;
		jpeg_read_scanlines(d, &row, 1);
	}
	return 0;
}

static int decode_jpeg(ox_k *k, const unsigned char *s, size_t n, image *im)
{
	struct jpeg_decompress_struct d;
	jpeg_err e;
	d.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = jpeg_fail, e.mgr.emit_message = jpeg_warn;
	jpeg_create_decompress(&d);
	if (setjmp(e.jump)) {
		jpeg_destroy_decompress(&d);
		free(im->px), im->px = NULL;
		return ox_kfail(k, "JPEG stream: %s", e.msg);
	}
	jpeg_mem_src(&d, s, (unsigned long)n);
	jpeg_read_header(&d, TRUE);
	if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
		jpeg_destroy_decompress(&d);
		return ox_kfail(k, "JPEG stream: CMYK images are not supported");
	}
	d.out_color_space = d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_start_decompress(&d);
	*im = (image){d.output_height, d.output_width, d.output_components, NULL};
	if (alloc_pixels(k, im) < 0) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	jpeg_rows(&d, im);
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);
	return 0;
}
#endif

#ifdef OX_HAVE_PNG
typedef struct png_src {
	const unsigned char *p;
	size_t n, at;
	char msg[200];
} png_src;

static void png_read_mem(png_structp png, png_bytep out, size_t n)
{
	png_src *s = png_get_io_ptr(png);
	if (n > s->n - s->at)
		png_error(png, "the stream ends inside the image");
	memcpy(out, s->p + s->at, n);
	s->at += n;
}

static void png_fail(png_structp png, png_const_charp msg)
{
	png_src *s = png_get_error_ptr(png);
	snprintf(s->msg, sizeof s->msg, "%s", msg);
	png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
	(void)png, (void)msg;
}

/* To 8-bit gray or RGB whatever the stored form (palette, 1-16 bits, alpha and tRNS
 * dropped, as a conversion to RGB or L drops them). */
static void png_normalize(png_structp png, png_infop info, image *im)
{
	int type = png_get_color_type(png, info);
	png_set_strip_16(png);
	png_set_packing(png);
	if (type == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	png_set_strip_alpha(png);
	png_set_interlace_handling(png);
	png_read_update_info(png, info);
	*im = (image){png_get_image_height(png, info), png_get_image_width(png, info),
		      png_get_channels(png, info), NULL};
}

static int png_body(ox_k *k, png_structp png, png_infop info, image *im, png_bytep *volatile *rows)
{
	png_read_info(png, info);
	png_normalize(png, info, im);
	if (im->channels != 1 && im->channels != 3)
		return ox_kfail(k, "PNG stream: %d channels after conversion", im->channels);
	if (alloc_pixels(k, im) < 0 || !(*rows = ox_scratch(k, im->h, sizeof **rows, "PNG rows")))
		return -1;
	for (int64_t y = 0; y < im->h; y++)
		(*rows)[y] = im->px + y * im->w * im->channels;
	png_read_image(png, *rows);
	png_read_end(png, NULL);
	return 0;
}

static int decode_png(ox_k *k, const unsigned char *s, size_t n, image *im)
{
	png_src src = {s, n, 0, ""};
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_fail, png_quiet);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	png_bytep *volatile rows = NULL;
	int rc;
	if (!info) {
		png_destroy_read_struct(&png, NULL, NULL);
		return ox_kfail(k, "out of memory");
	}
	if (setjmp(png_jmpbuf(png))) {
		free(im->px), im->px = NULL;
		rc = ox_kfail(k, "PNG stream: %s", src.msg);
	} else {
		png_set_read_fn(png, &src, png_read_mem);
		rc = png_body(k, png, info, im, &rows);
	}
	free(rows);
	png_destroy_read_struct(&png, &info, NULL);
	return rc;
}
#endif

/* The formats of the spec's list (and GIF), by their leading bytes. */
static const char *format_of(const unsigned char *s, size_t n)
{
	static const struct {
		const char *name;
		size_t off, len;
		const char *magic;
	} magics[] = {
		{"JPEG", 0, 3, "\xff\xd8\xff"},         {"PNG", 0, 8, "\x89PNG\r\n\x1a\n"},
		{"BMP", 0, 2, "BM"},                    {"TIFF", 0, 4, "II*\0"},
		{"TIFF", 0, 4, "MM\0*"},                {"WebP", 8, 4, "WEBP"},
		{"JPEG 2000", 4, 4, "jP  "},            {"JPEG 2000", 0, 4, "\xff\x4f\xff\x51"},
		{"GIF", 0, 4, "GIF8"},
	};
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (n >= magics[i].off + magics[i].len && !memcmp(s + magics[i].off, magics[i].magic, magics[i].len))
			return magics[i].name;
	if (n >= 2 && s[0] == 'P' && s[1] >= '1' && s[1] <= '6')
		return "PNM";
	return NULL;
}

#ifndef OX_HAVE_JPEG
#define decode_jpeg NULL
#endif
#ifndef OX_HAVE_PNG
#define decode_png NULL
#endif

static int decode(ox_k *k, const unsigned char *s, size_t n, image *im)
{
	/* the formats there is code for; a NULL decoder when built without its library */
	static const struct {
		const char *format, *lib;
		int (*decode)(ox_k *k, const unsigned char *s, size_t n, image *im);
	} decoders[] = {{"JPEG", "libjpeg", decode_jpeg}, {"PNG", "libpng", decode_png}};
	const char *f = format_of(s, n);
	if (!f)
		return ox_kfail(k, "encoded_stream is not an image in a known format (JPEG, PNG, BMP, TIFF, WebP, "
				   "JPEG 2000, PNM)");
	for (size_t i = 0; i < sizeof decoders / sizeof *decoders; i++)
		if (!strcmp(f, decoders[i].format))
			return decoders[i].decode ? decoders[i].decode(k, s, n, im)
						  : ox_kfail(k, "%s images are not supported: built without %s", f,
							     decoders[i].lib);
	return ox_kfail(k, "%s images are not supported (JPEG and PNG are)", f);
}

/* Gray from RGB with the ITU-R 601-2 luma weights in 16-bit fixed point, as PIL's
 * convert("L") (the spec's reference) computes it. */
static unsigned char luma(const unsigned char *p)
{
	return (unsigned char)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
}

static void convert(const image *im, unsigned char *out, int channels, bool bgr)
{
	for (int64_t i = 0; i < im->h * im->w; i++) {
		const unsigned char *p = im->px + i * im->channels;
		if (channels == 1)
			out[i] = im->channels == 1 ? p[0] : luma(p);
		else
			for (int c = 0; c < 3; c++)
				out[i * 3 + c] = im->channels == 1 ? p[0] : p[bgr ? 2 - c : c];
	}
}

int ox_op_ImageDecoder(ox_k *k)
{
	static const int stream_types[] = {OX_UINT8, 0};
	ox_val *s = ox_in_tensor(k, 0, true);
	if (!s || ox_check_type(k, s, "encoded_stream", stream_types) < 0)
		return -1;
	if (s->rank != 1)
		return ox_kfail(k, "encoded_stream must be 1-D, not of rank %d", s->rank);
	bool rgb = ox_attr_str_is(k, "pixel_format", "RGB", "RGB"), bgr = ox_attr_str_is(k, "pixel_format", "RGB", "BGR");
	if (!rgb && !bgr && !ox_attr_str_is(k, "pixel_format", "RGB", "Grayscale"))
		return ox_kfail(k, "pixel_format must be RGB, BGR or Grayscale");
	image im = {0};
	if (decode(k, s->data, (size_t)s->count, &im) < 0)
		return -1;
	int channels = rgb || bgr ? 3 : 1;
	int64_t dims[3] = {im.h, im.w, channels};
	ox_val *y = ox_out_tensor(k, 0, OX_UINT8, 3, dims);
	if (y)
		convert(&im, y->data, channels, bgr);
	free(im.px);
	return y ? 0 : -1;
}
