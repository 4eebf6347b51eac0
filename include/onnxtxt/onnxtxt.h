/*
 * onnxtxt: the ONNX textual syntax in C.
 *
 * Parses text (".onnxtxt") into the protobuf-c structs generated from onnx.proto and reads
 * and writes binary ".onnx" files. Everything the library returns lives in one arena per
 * call: release it with OnnxProto_Free(). The library never prints and never aborts;
 * every fallible call returns an OnnxStatus and, when given one, fills an OnnxError.
 *
 *     #include <onnxtxt/onnxtxt.h>
 *     // cc prog.c $(pkg-config --cflags --libs onnxtxt)
 *
 *     Onnx__ModelProto *m;
 *     OnnxError err;
 *     const char *text = "<ir_version: 8, opset_import: [\"\": 18]>\n"
 *                        "g (float[2] x) => (float[2] y) { y = Relu(x) }";
 *     if (OnnxParser_Parse(text, strlen(text), &m, &err) != ONNXTXT_OK) {
 *         fprintf(stderr, "%u:%u: %s\n", err.line, err.column, err.message);
 *         return 1;
 *     }
 *     OnnxBinary_WriteFile(m, "relu.onnx", &err);
 *     OnnxProto_Free(m);
 *
 * Naming: functions are OnnxParser_* (text in), OnnxPrinter_* (text out), OnnxBinary_*
 * (protobuf bytes in and out), OnnxModel_* (whole-model transforms), OnnxProto_*,
 * OnnxValue_*, OnnxSession_*, OnnxCase_* (evaluation), OnnxError_* and OnnxLibrary_*;
 * constants are ONNXTXT_*. The message types are protobuf-c's (Onnx__ModelProto, ...),
 * declared in <onnxtxt/onnx.pb-c.h>.
 *
 * Threads: the library keeps no state between calls beyond process-wide tables it builds
 * once, safely. Every call may run in several threads at once on different arguments.
 * Calls that only read a message (printing, packing, checking, drawing, sessions over a
 * model) may share it between threads, as long as no thread modifies it meanwhile
 * (the external-data calls of OnnxModel_* do). An OnnxValue and an OnnxSession belong to one thread at
 * a time: values are reference-counted without atomics, and a session holds the state of
 * its last run. Distinct sessions over one model may run in parallel.
 */
#ifndef ONNXTXT_H
#define ONNXTXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <onnxtxt/onnx.pb-c.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ONNXTXT_VERSION "0.1.0"

/* The library is built with hidden visibility; only these names are exported. */
#if defined(__GNUC__)
#define ONNXTXT_API __attribute__((visibility("default")))
#else
#define ONNXTXT_API
#endif

/* Limits against hostile input. One bracket of text can nest up to three messages (a
 * graph's '{' holds nodes, whose '<' holds attributes, which hold graphs), so the binary
 * limit is three times the text one: whatever text can say, binary can read back. */
#define ONNXTXT_MAX_DEPTH 64           /* nested brackets in text */
#define ONNXTXT_MAX_MESSAGE_DEPTH 192  /* nested messages in binary */
#define ONNXTXT_MAX_TEXT 0xffffffffu   /* bytes of text in one call */
/* The messages one call builds from its input (text or binary) may take at most
 * ONNXTXT_MAX_EXPANSION bytes of memory per byte of input, plus ONNXTXT_MAX_MEMORY_BASE.
 * Real models need a few (raw tensor data one, a typical node ten or so); input made of
 * empty messages would need hundreds, and is refused with ONNXTXT_ERR_LIMIT instead. */
#define ONNXTXT_MAX_EXPANSION 64
#define ONNXTXT_MAX_MEMORY_BASE (64u << 20)

typedef enum OnnxStatus {
	ONNXTXT_OK = 0,
	ONNXTXT_ERR_SYNTAX,  /* the text does not follow the syntax */
	ONNXTXT_ERR_VALUE,   /* well-formed text with a wrong value: range, type, count */
	ONNXTXT_ERR_LIMIT,   /* a limit against hostile input was reached */
	ONNXTXT_ERR_BINARY,  /* malformed protobuf bytes */
	ONNXTXT_ERR_IO,      /* a file could not be read or written (see sys_errno) */
	ONNXTXT_ERR_NOMEM,   /* out of memory */
	ONNXTXT_ERR_ARG,     /* invalid argument, such as a NULL pointer */
	ONNXTXT_ERR_UNSUPPORTED, /* the evaluator does not support an operator or type */
	ONNXTXT_ERR_EVAL,    /* a model cannot be evaluated: structure, shapes, types */
	ONNXTXT_ERR_INVALID, /* the model breaks a structural rule (OnnxModel_Check) */
	ONNXTXT_ERR_MISMATCH, /* two values differ (OnnxValue_Equal) */
	ONNXTXT_WARNING      /* not a failure: a problem OnnxModel_Check reports as a warning */
} OnnxStatus;

/* Where and why a call failed. Line and column are 1-based (columns count UTF-8
 * characters); both are 0 when the error has no position in text. */
typedef struct OnnxError {
	OnnxStatus code;
	unsigned line, column;
	size_t offset, length; /* byte range of the offending text */
	int sys_errno;         /* for ONNXTXT_ERR_IO */
	char message[512];
	/* The same facts apart, for tools that read diagnostics (the message says them all):
	 * path: the element the problem is about, in check's form ("graph.node[3]",
	 * "graph.initializer[0]"), empty when none: filled by OnnxModel_Check* and by the
	 * evaluator (OnnxSession_New, OnnxSession_Run) for a node or an output of the main graph;
	 * hint: a suggestion ("did you mean 'float16'?"), empty when none;
	 * fix: when fix_set, replacing bytes [fix_offset, fix_offset + fix_length) of the
	 * text with fix would resolve the problem. */
	char path[256];
	char hint[128];
	char fix[64];
	int fix_set;
	size_t fix_offset, fix_length;
} OnnxError;

/* ---- text -> messages ----------------------------------------------------------------
 * Each entry point parses all of text[0..len) (NUL bytes are only allowed inside string
 * literals) and stores a new message in *out; trailing text is an error. */
ONNXTXT_API OnnxStatus OnnxParser_Parse(const char *text, size_t len, Onnx__ModelProto **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseGraph(const char *text, size_t len, Onnx__GraphProto **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseFunction(const char *text, size_t len, Onnx__FunctionProto **out,
				    OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseNode(const char *text, size_t len, Onnx__NodeProto **out, OnnxError *err);
/* A sequence of nodes, optionally in braces; they are returned in (*out)->node of an
 * otherwise empty graph. */
ONNXTXT_API OnnxStatus OnnxParser_ParseNodeList(const char *text, size_t len, Onnx__GraphProto **out,
				    OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseType(const char *text, size_t len, Onnx__TypeProto **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseTensor(const char *text, size_t len, Onnx__TensorProto **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseAttribute(const char *text, size_t len, Onnx__AttributeProto **out,
				     OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseValueInfo(const char *text, size_t len, Onnx__ValueInfoProto **out,
				     OnnxError *err);

/* Text straight to binary: parses a model and writes exactly the bytes OnnxParser_Parse +
 * OnnxBinary_Write would, but each node of the main graph is serialized and forgotten as
 * soon as it is read, so memory stays a fraction of what the whole model takes. The File
 * variant replaces path atomically. */
ONNXTXT_API OnnxStatus OnnxParser_ParseToBinary(const char *text, size_t len, FILE *f, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxParser_ParseToBinaryFile(const char *text, size_t len, const char *path,
						    OnnxError *err);

/* Releases a message returned by any onnxtxt call, with everything it points to.
 * NULL is allowed. Never pass messages from other allocators. */
ONNXTXT_API void OnnxProto_Free(const void *message);

/* ---- binary ----------------------------------------------------------------------------
 * Read checks nesting depth before unpacking and never trusts declared sizes. Write packs
 * exactly the bytes the official protobuf runtime writes for the same message. */
ONNXTXT_API OnnxStatus OnnxBinary_Read(const void *data, size_t len, Onnx__ModelProto **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxBinary_ReadFile(const char *path, Onnx__ModelProto **out, OnnxError *err);
/* Packs into a malloc'd buffer the caller frees. */
ONNXTXT_API OnnxStatus OnnxBinary_Write(const Onnx__ModelProto *model, void **data, size_t *len, OnnxError *err);
/* Writes atomically: a temporary file in the same directory, renamed over path only once
 * complete, so a failure never leaves a partial or truncated file behind. */
ONNXTXT_API OnnxStatus OnnxBinary_WriteFile(const Onnx__ModelProto *model, const char *path, OnnxError *err);

/* ---- external data --------------------------------------------------------------------------
 * Large tensors can live in a data file beside the model (the ONNX external-data layout:
 * "location", "offset", "length"). Locations are relative to the directory of model_path
 * (the model file's path, NULL meaning the current directory) and may not leave it: no
 * absolute paths, no "..", no symbolic links that lead elsewhere. Both calls work on
 * models returned by onnxtxt. */
/* Moves the data of every tensor of at least threshold bytes into the file location
 * (written atomically); the tensors then refer to it. Typed data is stored little-endian,
 * as raw_data would be. */
ONNXTXT_API OnnxStatus OnnxModel_ExternalizeData(Onnx__ModelProto *model, const char *model_path,
						 const char *location, size_t threshold, OnnxError *err);
/* Reads external data back into the tensors (as raw_data), checking every range against
 * the file's real size. A data file must be a regular file: anything else (a FIFO, which
 * would block open() forever, a device, a directory) fails with ONNXTXT_ERR_IO. */
ONNXTXT_API OnnxStatus OnnxModel_EmbedExternalData(Onnx__ModelProto *model, const char *model_path,
						   OnnxError *err);
/* The same, with flags. ONNXTXT_EXTERNAL_ANY_PATH lifts the restriction on locations:
 * absolute paths, ".." and links leading out of the model's directory are then followed
 * (relative locations still start from that directory). Only for models you trust: a
 * hostile model could otherwise read any file the process can. */
#define ONNXTXT_EXTERNAL_ANY_PATH 0x1u
ONNXTXT_API OnnxStatus OnnxModel_EmbedExternalDataWith(Onnx__ModelProto *model, const char *model_path,
						       unsigned flags, OnnxError *err);

/* ---- structural check ----------------------------------------------------------------------
 * Checks a model as the ONNX checker (onnx.checker.check_model) does, without shape
 * inference:
 *   - the header: ir_version set; opset_import present from IR version 3 on, and covering
 *     the domain of every node ("ai.onnx" is the default domain "");
 *   - names: graph inputs, initializers and node outputs in single static assignment
 *     form (no name defined twice, none shadowing an enclosing graph's); every node input
 *     defined before the node (nodes in topological order, sub-graphs seeing the names of
 *     the graphs around them); every graph and function output defined;
 *   - required fields: names (graphs and functions included), op types, nodes with an
 *     input or an output, types with an element type and a shape for the main graph's
 *     inputs and outputs, tensor element types, one data field of the right kind per
 *     tensor;
 *   - attributes: a name, a type, one value of that type, no name twice in a node,
 *     references ("@name") only in functions;
 *   - tensor data: as many values as the shape needs, a known element type, external
 *     data inside the model's directory; what the model's IR version has (element types,
 *     sequences, optionals, functions and their fields); no recursion among model-local
 *     functions, whose opset imports must agree with the model's where an operator differs;
 *   - operators of the standard domains (the schemas of onnx 1.23: ai.onnx 1 to 28,
 *     ai.onnx.ml 1 to 5, ai.onnx.preview, ai.onnx.preview.training): the operator exists
 *     at the imported opset, takes as many inputs and outputs as its schema there, has the
 *     attributes it requires and no others, of the right types, and the element types the
 *     model declares meet its type constraints;
 *   - warnings (code ONNXTXT_WARNING): an opset newer than any known, an opset imported
 *     with an older IR version than the release that brought it.
 * Returns ONNXTXT_OK (warnings alone leave a model valid), or ONNXTXT_ERR_INVALID with the
 * first error in *err. When problems is not NULL, it receives a malloc'd array of every
 * problem and warning found (at most
 * ONNXTXT_MAX_PROBLEMS), in model order, for the caller to free; *count their number.
 * Each message starts with the element's path in the model, as in
 * "graph.node[3] (Relu): input 'h' is not defined (...)"; the nodes of an attribute's
 * graph follow its name ("graph.node[2].then_branch.node[0] (Add): ..."). */
#define ONNXTXT_MAX_PROBLEMS 100
ONNXTXT_API OnnxStatus OnnxModel_Check(const Onnx__ModelProto *model, OnnxError **problems, size_t *count,
				       OnnxError *err);
/* Parses text as OnnxParser_Parse does and checks the model; each problem then also has
 * the line, column and byte range of the text it is about (the node's op type, input or
 * output, the attribute's or the value's name), or line 0 when it has no place there (a
 * missing ir_version). A text that does not parse gives that error, with no problems. */
ONNXTXT_API OnnxStatus OnnxModel_CheckText(const char *text, size_t len, OnnxError **problems, size_t *count,
					   OnnxError *err);
/* The same two with a limit of your own: at most max_problems problems are returned (0: no
 * limit), and *total (when total is not NULL) receives how many were found in all, so that
 * a caller can say how many it leaves out. The checker never stops early: problems past
 * the limit are counted, not formatted. */
ONNXTXT_API OnnxStatus OnnxModel_CheckWith(const Onnx__ModelProto *model, size_t max_problems,
					   OnnxError **problems, size_t *count, size_t *total, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxModel_CheckTextWith(const char *text, size_t len, size_t max_problems,
					       OnnxError **problems, size_t *count, size_t *total, OnnxError *err);

/* ---- type and shape inference -----------------------------------------------------------------
 * By default the checks above also infer the type and shape of every value after a
 * structural check without errors, over the schemas of the standard domains, model-local
 * functions and sub-graphs (outer names visible), and report at the node: element types
 * outside an operator's type constraints or inconsistent within one; shape errors (ranks,
 * broadcasting, matrix and convolution dimensions, Reshape element counts, Squeeze of a
 * dimension other than 1, Concat dimensions off the axis, axes out of range); and every
 * conflict between an inferred type and a declared one (graph outputs, value_info), naming
 * both: "output 'Y' is inferred as float[3,2], but it is declared as float[2,3]". Small
 * integer tensors known statically (initializers, Constant, and what Shape, Gather, Slice,
 * Concat, Squeeze, Unsqueeze, Cast and integer arithmetic compute from them) give the shapes
 * that depend on them (Reshape, Expand, Tile, ConstantOfShape, ...). Operators without a rule
 * get outputs of the element type their type constraints give, shape unknown. */
typedef struct OnnxCheckOptions {
	size_t max_problems; /* problems returned at most; 0: no limit */
	int no_infer;        /* 1: the structural check alone */
	int strict;          /* 1: an operator without an inference rule is an error */
} OnnxCheckOptions;
/* OnnxModel_CheckWith and OnnxModel_CheckTextWith with options (NULL: the defaults, that is
 * inference on, no limit). */
ONNXTXT_API OnnxStatus OnnxModel_CheckOpts(const Onnx__ModelProto *model, const OnnxCheckOptions *opts,
					   OnnxError **problems, size_t *count, size_t *total, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxModel_CheckTextOpts(const char *text, size_t len, const OnnxCheckOptions *opts,
					       OnnxError **problems, size_t *count, size_t *total, OnnxError *err);
/* Checks model as OnnxModel_CheckOpts does (opts->no_infer is ignored) and, when it is valid
 * (warnings alone allowed), writes what inference found into it: a value_info entry for
 * every value of its graphs that inference could type and nothing describes yet, and the
 * types of graph outputs and value_info refined where inference knows more (declared types
 * are kept where it knows less). model must come from the library (OnnxParser_Parse,
 * OnnxBinary_Read, ...): its arena takes the new messages. On ONNXTXT_ERR_INVALID the model
 * is left as it was. */
ONNXTXT_API OnnxStatus OnnxModel_Infer(Onnx__ModelProto *model, const OnnxCheckOptions *opts, OnnxError **problems,
				       size_t *count, size_t *total, OnnxError *err);
/* The same for a text: parses it (a text that does not parse gives that error), checks it
 * with the problems placed in the text as OnnxModel_CheckText does, and on success hands
 * the model with its inferred types to *model (free it with OnnxProto_Free). */
ONNXTXT_API OnnxStatus OnnxModel_InferText(const char *text, size_t len, const OnnxCheckOptions *opts,
					   Onnx__ModelProto **model, OnnxError **problems, size_t *count, size_t *total,
					   OnnxError *err);

/* Places an error about a model (err->path set, as by OnnxSession_Run) in the text the
 * model was parsed from: fills err's line, column, offset and length with the element's
 * place (a node's op type, a graph output's declaration), as OnnxModel_CheckText would.
 * Returns ONNXTXT_OK when the path names a place in the text; otherwise err is left as it
 * was (ONNXTXT_ERR_ARG for NULL arguments, ONNXTXT_ERR_VALUE for a path the text does not
 * have or a text that does not parse). */
ONNXTXT_API OnnxStatus OnnxModel_LocateText(const char *text, size_t len, OnnxError *err);

/* ---- messages -> text ----------------------------------------------------------------------
 * Prints a model, graph, function, node, type, tensor, attribute or value info in the
 * canonical layout. By default the text carries annotations ("#@" lines) for everything
 * the syntax cannot express, so parsing it gives back exactly the same message; the
 * flags below change that. Print returns a malloc'd NUL-terminated string (len may be
 * NULL); Write streams to a FILE; WriteFile replaces path atomically. */
#define ONNXTXT_PRINT_NO_ANNOTATIONS 0x1u /* omit "#@" lines: plainer, but lossy */
#define ONNXTXT_PRINT_FLOAT_LITERALS 0x2u /* float16/bfloat16/float8/float4 data as numbers */
ONNXTXT_API OnnxStatus OnnxPrinter_Print(const void *message, unsigned flags, char **text, size_t *len,
					 OnnxError *err);
ONNXTXT_API OnnxStatus OnnxPrinter_Write(const void *message, unsigned flags, FILE *f, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxPrinter_WriteFile(const void *message, unsigned flags, const char *path,
					     OnnxError *err);

/* Syntax colour for a terminal: text in the textual syntax (what the printer writes, or
 * values such as "Y = float[2] {1, 2}") with each keyword, type, name, number, string and
 * comment wrapped in an ANSI SGR escape sequence ("\033[35m" ... "\033[0m"): header
 * keywords magenta, element types and type keywords cyan, names blue, numbers yellow,
 * strings green, comments and annotations grey. Tokens are those the parser's lexer reads;
 * bytes it cannot read, and white space and punctuation, are copied unchanged, so removing
 * the escape sequences gives text back exactly. Returns a malloc'd NUL-terminated text. */
ONNXTXT_API OnnxStatus OnnxPrinter_Highlight(const char *text, size_t len, char **out, size_t *out_len,
					     OnnxError *err);

/* Formats text in the textual syntax as `onnxtxt fmt` does: parses it as OnnxParser_Parse
 * and prints the model in the canonical layout (with the ONNXTXT_PRINT_* flags), keeping
 * every comment ('#' to the end of the line, a test case's "#@ input" and "#@ expect"
 * lines included) beside the token it stood before, on lines of its own at the canonical
 * indentation, or after the token whose line it ended. Annotations are printed as the
 * printer writes them. Formatting the result again changes nothing, and the model read
 * back is the one read from text. *out is malloc'd and NUL-terminated (out_len may be
 * NULL); FormatFile replaces path atomically instead. */
#define ONNXTXT_FORMAT_DROP_COMMENTS 0x100u /* leave the comments out */
ONNXTXT_API OnnxStatus OnnxPrinter_Format(const char *text, size_t len, unsigned flags, char **out, size_t *out_len,
					  OnnxError *err);
ONNXTXT_API OnnxStatus OnnxPrinter_FormatFile(const char *text, size_t len, unsigned flags, const char *path,
					      OnnxError *err);

/* Draws a model's main graph in the Graphviz DOT language, for `dot -Tsvg`: a box per node
 * with its op type, name, attributes and the initializers it reads; ellipses for the
 * graph's inputs and outputs; edges labelled with the name of the value they carry, its
 * type where the model declares one (an input, output or value_info) and, into a node
 * with several inputs, the input's place ("1: a"), so that the order of operands can be
 * read back; the graphs of attributes (If,
 * Loop, Scan) as clusters whose outputs lead to their node with dashed edges. Inputs that
 * nothing defines are drawn in red. */
ONNXTXT_API OnnxStatus OnnxPrinter_Dot(const Onnx__ModelProto *model, FILE *f, OnnxError *err);
/* The same, replacing path atomically. */
ONNXTXT_API OnnxStatus OnnxPrinter_DotFile(const Onnx__ModelProto *model, const char *path, OnnxError *err);

/* ---- summary -------------------------------------------------------------------------------
 * A model's summary, for a reader handed a model: IR version, opset imports, producer,
 * the main graph's inputs and outputs with their types, node counts (in total, by
 * operator and by domain, most frequent first), functions, sub-graphs (the graphs of
 * attributes, by their path: "graph.node[3].then_branch"), initializers of every graph
 * (count, parameters, bytes, and the same by element type), external data files (tensors
 * and bytes each), and the largest initializers. Counting only: no tensor value is read or
 * formatted, so it stays fast on models of any size. Bytes are those of raw_data, of the
 * external range, or else what the elements take. With ONNXTXT_INFO_JSON the summary is
 * one JSON object with the same facts (see the README); otherwise "key: value" lines.
 * Returns a malloc'd NUL-terminated text (len may be NULL). */
#define ONNXTXT_INFO_JSON 0x1u
ONNXTXT_API OnnxStatus OnnxModel_Info(const Onnx__ModelProto *model, unsigned flags, char **text, size_t *len,
				      OnnxError *err);

/* ---- evaluation --------------------------------------------------------------------------
 * A session runs a model's main graph: bind inputs, run, read outputs. Values are tensors
 * (every element type), sequences and optionals; they are reference-counted and never
 * change once made, so binding one to a session or reading an output copies nothing.
 *
 *     OnnxSession *s;
 *     OnnxValue *x, *y;
 *     float data[4] = {1, -2, 3, -4};
 *     int64_t dims[2] = {2, 2};
 *     OnnxSession_New(model, &s, &err);
 *     OnnxValue_NewTensor(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims, 2, data, &x, &err);
 *     OnnxSession_SetInput(s, "x", x, &err);
 *     OnnxSession_Run(s, &err);
 *     const float *out = OnnxValue_Data(OnnxSession_Output(s, 0));
 *     OnnxValue_Free(x);
 *     OnnxSession_Free(s);
 */
typedef struct OnnxValue OnnxValue;
typedef struct OnnxSession OnnxSession;

typedef enum OnnxValueKind {
	ONNXTXT_VALUE_TENSOR = 1,
	ONNXTXT_VALUE_SEQUENCE,
	ONNXTXT_VALUE_OPTIONAL,
	ONNXTXT_VALUE_MAP
} OnnxValueKind;

/* A tensor of elem_type (TensorProto.DataType) with a copy of data: the elements in row-
 * major order, float16/bfloat16 as uint16_t bits, float8/float4 as one byte of bits each,
 * int4/uint4/int2/uint2 one per byte, bool as bytes 0/1, complex as pairs, and strings as
 * an array of NUL-terminated const char *. data may be NULL for zeros (empty strings). */
ONNXTXT_API OnnxStatus OnnxValue_NewTensor(int elem_type, const int64_t *dims, size_t rank, const void *data,
					   OnnxValue **out, OnnxError *err);
/* A value from an Onnx__TensorProto, Onnx__SequenceProto, Onnx__OptionalProto or Onnx__MapProto
 * (a map of scalars: its values one scalar tensor per key). */
ONNXTXT_API OnnxStatus OnnxValue_FromProto(const void *message, OnnxValue **out, OnnxError *err);
/* The value as a new message of the matching kind (free it with OnnxProto_Free); numeric
 * tensor data is stored in raw_data. */
ONNXTXT_API OnnxStatus OnnxValue_ToProto(const OnnxValue *v, const char *name, void **message, OnnxError *err);
/* Reads and writes the ".pb" files of the ONNX backend test layout (a serialized
 * TensorProto, SequenceProto, OptionalProto or MapProto, as kind says). WriteFile is atomic. */
ONNXTXT_API OnnxStatus OnnxValue_ReadFile(const char *path, OnnxValueKind kind, OnnxValue **out, OnnxError *err);
/* Reads a value from the bytes of such a file. Kind 0 (here and in ReadFile) tells the
 * message by its content: a TensorProto, else a SequenceProto (an OptionalProto of at
 * most one value is the same bytes); a MapProto is ONNXTXT_ERR_UNSUPPORTED. When name is
 * not NULL it receives the message's name field (malloc'd, "" when unset). */
ONNXTXT_API OnnxStatus OnnxValue_Read(const void *data, size_t len, OnnxValueKind kind, OnnxValue **out, char **name,
				      OnnxError *err);
ONNXTXT_API OnnxStatus OnnxValue_WriteFile(const OnnxValue *v, const char *name, const char *path, OnnxError *err);
/* Values as text: a tensor constant of the textual syntax ("float[2, 2] {1, 2, 3, 4}",
 * "int64 {7}", "string[1] {\"a\"}"), a sequence "[v, v, ...]", "none" for an empty
 * optional, or a map of scalars "map(int64, float) {1: 0.5, 2: 0.25}" (keys unique). Print produces the same form (malloc'd, NUL-terminated, no newline). */
ONNXTXT_API OnnxStatus OnnxValue_Parse(const char *text, size_t len, OnnxValue **out, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxValue_Print(const OnnxValue *v, char **text, size_t *len, OnnxError *err);
/* A named value as text, one line: "NAME = VALUE\n" (NAME as in a test case's "#@ input"
 * line: a word, or a quoted string), or "VALUE\n" for a NULL or empty name; what
 * onnxtxt to-text prints for a .pb file. PrintNamedFile writes it atomically; ParseNamed
 * reads either form back (*name "" for the second). */
ONNXTXT_API OnnxStatus OnnxValue_PrintNamed(const OnnxValue *v, const char *name, char **text, size_t *len,
					    OnnxError *err);
ONNXTXT_API OnnxStatus OnnxValue_PrintNamedFile(const OnnxValue *v, const char *name, const char *path,
						OnnxError *err);
ONNXTXT_API OnnxStatus OnnxValue_ParseNamed(const char *text, size_t len, OnnxValue **out, char **name,
					    OnnxError *err);
ONNXTXT_API void OnnxValue_Free(OnnxValue *v);

ONNXTXT_API OnnxValueKind OnnxValue_Kind(const OnnxValue *v);
/* Tensors: element type, shape, element count and data (layout as in NewTensor, except
 * that strings are read with OnnxValue_String). Sequences and optionals: the element type
 * of the tensors they hold (0 when unknown), rank 0, and Count the number of items. Maps:
 * the key type, and two items, the keys and the values as 1-D tensors. */
ONNXTXT_API int OnnxValue_ElemType(const OnnxValue *v);
ONNXTXT_API size_t OnnxValue_Rank(const OnnxValue *v);
ONNXTXT_API const int64_t *OnnxValue_Dims(const OnnxValue *v);
ONNXTXT_API size_t OnnxValue_Count(const OnnxValue *v);
ONNXTXT_API const void *OnnxValue_Data(const OnnxValue *v);
ONNXTXT_API const char *OnnxValue_String(const OnnxValue *v, size_t i, size_t *len);
ONNXTXT_API const OnnxValue *OnnxValue_Item(const OnnxValue *v, size_t i);
/* Whether got matches expected: same kind, element type and shape, and every element
 * within |got - expected| <= atol + rtol * |expected| (NaN matches NaN; integers, bools
 * and strings exactly). ONNXTXT_OK when they match; ONNXTXT_ERR_MISMATCH when they do not,
 * with err's message saying where and how; ONNXTXT_ERR_ARG when either is NULL. */
ONNXTXT_API OnnxStatus OnnxValue_Equal(const OnnxValue *got, const OnnxValue *expected, double rtol, double atol,
				       OnnxError *err);

/* A session over model's main graph, which must outlive the session. Fails with
 * ONNXTXT_ERR_UNSUPPORTED when the model uses an operator the evaluator does not know,
 * ONNXTXT_ERR_EVAL when the graph is malformed (a name used before it is defined, assigned
 * twice, ...). Tensors with external data must be embedded first
 * (OnnxModel_EmbedExternalData). */
ONNXTXT_API OnnxStatus OnnxSession_New(const Onnx__ModelProto *model, OnnxSession **out, OnnxError *err);

/* How a session runs; zero-initialize it, then set what you need. */
typedef struct OnnxSessionOptions {
	/* Threads the big kernels (GEMM, convolution, pooling, large elementwise operations)
	 * spread their work over, the calling thread included: 0 means one per processor
	 * online (what OnnxSession_New uses), 1 runs everything on the calling thread. The
	 * results are the same bits whatever the count: work is split so that each output
	 * element is computed by the same instructions. The workers start at the first run
	 * that needs them. */
	int threads;
	/* Nonzero turns off the session-time work a session does at its first run (under the
	 * memory budget and deadline set by then): results of nodes whose inputs are all
	 * initializers computed once and kept, BatchNormalization and Relu after a Conv done
	 * in the Conv's weights and output pass, constant Conv weights packed once for the
	 * GEMM. Outputs are the same either way, up to the rounding of
	 * the folded BatchNormalization; this exists to compare with the plain evaluation. */
	int no_optimize;
} OnnxSessionOptions;

/* OnnxSession_New with options (NULL: the defaults). ONNXTXT_ERR_ARG for a negative
 * thread count. */
ONNXTXT_API OnnxStatus OnnxSession_NewWithOptions(const Onnx__ModelProto *model, const OnnxSessionOptions *opts,
						  OnnxSession **out, OnnxError *err);
ONNXTXT_API void OnnxSession_Free(OnnxSession *s);
/* The graph's inputs, in order. Inputs with an initializer are optional. */
ONNXTXT_API size_t OnnxSession_InputCount(const OnnxSession *s);
ONNXTXT_API const Onnx__ValueInfoProto *OnnxSession_Input(const OnnxSession *s, size_t i, int *optional);
/* The kind of value input i takes (from its declared type; a tensor when undeclared); 0
 * when there is no input i. */
ONNXTXT_API OnnxValueKind OnnxSession_InputKind(const OnnxSession *s, size_t i);
/* Binds a value to the input named name, after checking it against the declared type
 * and shape. The session keeps its own reference. */
ONNXTXT_API OnnxStatus OnnxSession_SetInput(OnnxSession *s, const char *name, const OnnxValue *v, OnnxError *err);
/* Runs the graph. Errors name the node, its operator and the shapes it was given. A run
 * that meets a limit of the session (below) fails with ONNXTXT_ERR_LIMIT, naming the node
 * and the limit. The first run does the session-time work first, unless
 * OnnxSession_Prepare did. */
ONNXTXT_API OnnxStatus OnnxSession_Run(OnnxSession *s, OnnxError *err);
/* Does the session-time work now (see OnnxSessionOptions.no_optimize: folding, fusion,
 * packed weights) instead of at the first run, under the limits set on the session by
 * then, so that the first run takes as long as the next; nothing after the first call.
 * Needs no inputs. A node that cannot be folded is left to the runs, which report its
 * error. */
ONNXTXT_API OnnxStatus OnnxSession_Prepare(OnnxSession *s, OnnxError *err);
/* Limits of every later run of the session, so that a hostile model fails instead of
 * taking the machine:
 *  - memory: the bytes of tensor data a run holds alive at once (intermediates and the
 *    outputs it makes; not the inputs bound nor the initializers), checked before each
 *    tensor is allocated. The default is half of physical memory; 0 lifts the limit.
 *  - timeout: seconds a run may take, checked before each tensor is allocated and on
 *    entering each graph (every Loop and Scan iteration, every function call); 0, the
 *    default, means no deadline.
 * Both fail with ONNXTXT_ERR_ARG for a NULL session; SetTimeout also for a negative or
 * non-finite number of seconds. */
ONNXTXT_API OnnxStatus OnnxSession_SetMaxMemory(OnnxSession *s, uint64_t bytes, OnnxError *err);
ONNXTXT_API OnnxStatus OnnxSession_SetTimeout(OnnxSession *s, double seconds, OnnxError *err);
ONNXTXT_API size_t OnnxSession_OutputCount(const OnnxSession *s);
ONNXTXT_API const char *OnnxSession_OutputName(const OnnxSession *s, size_t i);
/* The kind of value output i gives (from its declared type; a tensor when undeclared), as
 * OnnxValue_ReadFile takes it for an expected output; 0 when there is no output i. */
ONNXTXT_API OnnxValueKind OnnxSession_OutputKind(const OnnxSession *s, size_t i);
/* Output i of the last run, valid until the next run or OnnxSession_Free. */
ONNXTXT_API const OnnxValue *OnnxSession_Output(const OnnxSession *s, size_t i);

/* ---- self-contained test cases -----------------------------------------------------------
 * A text model can carry its own inputs and expected outputs, one per line, anywhere in
 * the file (the parser reads these lines as comments):
 *     #@ input X = float[2] {1, -1}
 *     #@ expect Y = float[2] {1, 0} rtol=1e-5 atol=0
 * NAME is an identifier or a quoted string, VALUE is in OnnxValue_Parse's form, and the
 * optional tolerances default to ONNXTXT_DEFAULT_RTOL and ONNXTXT_DEFAULT_ATOL. */
#define ONNXTXT_DEFAULT_RTOL 1e-3
#define ONNXTXT_DEFAULT_ATOL 1e-7

typedef struct OnnxCaseItem {
	int expect;      /* 0: an input; 1: an expected output */
	char *name;
	OnnxValue *value;
	double rtol, atol;
	unsigned line;   /* 1-based line of the item in the text */
} OnnxCaseItem;

/* The items of text in order (*n may be 0); errors carry the line and column. */
ONNXTXT_API OnnxStatus OnnxCase_Parse(const char *text, size_t len, OnnxCaseItem **items, size_t *n, OnnxError *err);
ONNXTXT_API void OnnxCase_Free(OnnxCaseItem *items, size_t n);

/* ---- diagnostics -------------------------------------------------------------------------
 * Renders an error as "FILE:LINE:COL: error: MESSAGE\n", then the source line and a caret
 * under the offending text, when text is given. Returns the length it needed (like
 * snprintf); file may be NULL ("<stdin>"), buf NULL to measure only, and err NULL for nothing
 * (an empty string, length 0). */
ONNXTXT_API size_t OnnxError_Format(const OnnxError *err, const char *file, const char *text, size_t len, char *buf,
			size_t size);

/* The library version, ONNXTXT_VERSION at build time. */
ONNXTXT_API const char *OnnxLibrary_Version(void);

/* Removes the temporary files of the atomic writes in progress (the *_WriteFile and
 * *File calls write a temporary file beside the target and rename it over the target
 * when complete). Async-signal-safe: it is meant for a program's handler of SIGINT,
 * SIGTERM or SIGHUP, so that an interrupted write leaves nothing behind. The library
 * installs no signal handler itself. Up to 16 writes at a time are tracked. */
ONNXTXT_API void OnnxLibrary_RemoveTempFiles(void);

#ifdef __cplusplus
}
#endif

#endif
