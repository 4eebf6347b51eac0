/* Parser state and the builder functions the lemon grammar's actions call. Builders
 * construct protobuf-c structs in the parse arena; any error records a diagnostic and
 * longjmps back to the driver, so actions never check results. */
#ifndef OX_BUILD_H
#define OX_BUILD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "lexer.h"
#include "onnxtxt/onnxtxt.h"
#include "spans.h"

/* One slot of the scratch stack that holds list items until their list closes. */
typedef union ox_slot {
	void *p;
	int64_t i;
	double f;
	size_t n;
} ox_slot;

/* Values being read for the tensor whose '{' was just opened. */
typedef struct ox_tdata {
	Onnx__TensorProto *t;
	ox_tok open;
	int field;   /* the TensorProto field the values go to (tensor.c) */
	size_t n, elem_size;
	size_t cap;  /* bytes */
	void *buf;   /* malloc'd, reused from tensor to tensor */
} ox_tdata;

typedef struct ox_parser {
	const char *src;
	size_t len;
	ox_arena *arena;
	jmp_buf *fail;
	OnnxError *err;
	void *result;
	ox_tok prev, cur; /* the last two tokens fed to the grammar */
	int syntax_major; /* the token the grammar could not shift; -1 for other errors */
	ox_tok syntax_tok;
	int depth;        /* open brackets */
	ox_slot *stack;
	size_t top, cap;
	ox_tok *annots;
	size_t nannots, capannots;
	ox_tdata td;
	/* Whether nodes written without a domain leave it absent ("node_domain: absent"),
	 * one entry per open graph or function body. */
	bool node_domain_absent[ONNXTXT_MAX_DEPTH + 1];
	ox_tok body_name[ONNXTXT_MAX_DEPTH + 1];
	int bodies;
	ox_tok last_body;    /* name of the graph or function that ended last */
	ox_tok last_vi_type; /* type (or name, when untyped) of the value info read last */
	/* While an annotation block is parsed: its joined text and where each of its lines
	 * starts in the source, so errors point into the "#@" lines. */
	const char *ann_text;
	size_t ann_len, ann_lines;
	const size_t *ann_line_start;   /* in ann_text */
	const char *const *ann_line_src; /* in src */
	void *nested; /* the annotation block's lemon parser, freed by the driver on failure */
	size_t model_ann;    /* where the model's annotations start */
	size_t function_ann; /* where the current function's annotations start */
	/* Streaming (OnnxParser_ParseToBinary): the main graph's nodes are built in
	 * node_arena, packed into sink and forgotten, one at a time. */
	struct ox_sink *sink;
	ox_arena *model_arena, *node_arena;
	int stream_body; /* the body (P->bodies level) whose nodes stream; 0: none */
	/* Positions for the structural check (NULL: not wanted). A node's text starts after
	 * the one before it, or after the '{' of its list. */
	ox_spans *spans;
	const char *node_start;
} ox_parser;

/* Results of a few nonterminals. */
typedef struct ox_type {
	Onnx__TypeProto *tp;
	ox_tok at;
} ox_type;

enum ox_value_kind { OX_V_INT, OX_V_FLOAT, OX_V_STRING, OX_V_REF, OX_V_TYPE, OX_V_TENSOR, OX_V_GRAPH };

typedef struct ox_value {
	enum ox_value_kind kind;
	ox_tok at; /* the literal, or the first token of the value */
	void *msg; /* tensor, graph, type proto; the name of a reference */
} ox_value;

/* An element under construction and the mark of its annotations, which are applied when
 * the element is complete. */
typedef struct ox_ab {
	Onnx__AttributeProto *a;
	size_t ann;
} ox_ab;

typedef struct ox_nb {
	Onnx__NodeProto *n;
	size_t ann;
	bool dotted; /* the op name was written with a domain part */
	const char *start; /* where its text starts (for spans) */
} ox_nb;

typedef struct ox_alist {
	Onnx__AttributeProto *a;
	size_t ann;
	size_t mark;
	int elem; /* singular type of the elements, 0 until known */
} ox_alist;

/* A value in an annotation: a token, a list of values, or a ["key": "value"] list. */
enum { OX_AV_LIST = -2, OX_AV_ENTRIES = -3 };
typedef struct ox_annval {
	int kind; /* TK_STRING, TK_INT, TK_FLOAT, TK_ID, OX_AV_LIST or OX_AV_ENTRIES */
	ox_tok tok;
	size_t n;
	struct ox_annval **items;
	Onnx__StringStringEntryProto **entries;
} ox_annval;

enum ox_rank { OX_RANK0, OX_RANK_UNKNOWN, OX_RANK_DIMS };

/* ---- allocation (failures longjmp) ---- */
void *ox_alloc(ox_parser *P, size_t size);
void *ox_new(ox_parser *P, const ProtobufCMessageDescriptor *d);
void **ox_take(ox_parser *P, size_t mark, size_t *n);
ProtobufCBinaryData ox_bytes(ox_parser *P, ox_tok t);

/* ---- failure ---- */
_Noreturn void ox_fail(ox_parser *P, const ox_tok *at, OnnxStatus code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
_Noreturn void ox_fail_depth(ox_parser *P);
/* Out of memory, or the arena's limit for this input (ONNXTXT_ERR_LIMIT) was reached. */
_Noreturn void ox_fail_memory(ox_parser *P);
/* The grammar met a token it cannot shift: records it and fails; the driver then writes
 * the message (ox_syntax_message) from a replay that knows what was expected. Inside an
 * annotation block the message is written at once, from the parser's current state. */
_Noreturn void ox_syntax_error(ox_parser *P, int major, const ox_tok *found, void *lemon);
/* ok[i] is set for every token code i the grammar could accept instead of found. */
_Noreturn void ox_syntax_message(ox_parser *P, int major, const ox_tok *found, const unsigned char *ok, int ntokens);

/* ---- scratch stack ---- */
size_t ox_mark(ox_parser *P);
size_t ox_push(ox_parser *P, void *p); /* returns the mark before the push */
size_t ox_push_i64(ox_parser *P, int64_t v);
size_t ox_push_pair(ox_parser *P, void *a, void *b);
void ox_annot_push(ox_parser *P, ox_tok t);

/* ---- positions (when P->spans is set) ---- */
void ox_span_add(ox_parser *P, const void *msg, const char *start, const char *end);
void ox_span_tok(ox_parser *P, const void *msg, ox_tok t);

/* ---- strings ---- */
char *ox_name(ox_parser *P, ox_tok t);   /* identifier or quoted name */
char *ox_string(ox_parser *P, ox_tok t); /* string literal into a string field */
int64_t ox_int(ox_parser *P, ox_tok t);

/* ---- model, graph, function ---- */
Onnx__ModelProto *ox_model_new(ox_parser *P, size_t ann);
void ox_model_int(ox_parser *P, Onnx__ModelProto *m, int key, ox_tok v);
void ox_model_str(ox_parser *P, Onnx__ModelProto *m, int key, ox_tok v);
void ox_model_opsets(ox_parser *P, Onnx__ModelProto *m, size_t mark);
void ox_model_props(ox_parser *P, Onnx__ModelProto *m, size_t mark);
/* m is NULL when the model had no header. */
Onnx__ModelProto *ox_model_graph(ox_parser *P, Onnx__ModelProto *m, Onnx__GraphProto *g);
void ox_model_functions(ox_parser *P, Onnx__ModelProto *m, size_t mark);

Onnx__OperatorSetIdProto *ox_opset(ox_parser *P, ox_tok domain, ox_tok version);
Onnx__StringStringEntryProto *ox_entry(ox_parser *P, ox_tok key, ox_tok value);

Onnx__GraphProto *ox_graph_new(ox_parser *P, ox_tok name, size_t ann);
void ox_graph_inputs(ox_parser *P, Onnx__GraphProto *g, size_t mark);
void ox_graph_outputs(ox_parser *P, Onnx__GraphProto *g, size_t mark);
void ox_graph_value_infos(ox_parser *P, Onnx__GraphProto *g, size_t mark);
void ox_graph_nodes(ox_parser *P, Onnx__GraphProto *g, size_t mark);
Onnx__GraphProto *ox_node_list(ox_parser *P, size_t mark);
/* A node list starts / a node was read: nodes are kept on the stack, or streamed. */
size_t ox_nodes_begin(ox_parser *P);
void ox_nodes_add(ox_parser *P, Onnx__NodeProto *n);

Onnx__FunctionProto *ox_function_new(ox_parser *P, size_t ann);
void ox_function_str(ox_parser *P, Onnx__FunctionProto *f, int key, ox_tok v);
void ox_function_opsets(ox_parser *P, Onnx__FunctionProto *f, size_t mark);
void ox_function_name(ox_parser *P, Onnx__FunctionProto *f, ox_tok name);
void ox_function_attrs(ox_parser *P, Onnx__FunctionProto *f, size_t mark);
void ox_function_io(ox_parser *P, Onnx__FunctionProto *f, size_t mark, bool outputs);
void ox_function_value_infos(ox_parser *P, Onnx__FunctionProto *f, size_t mark);
void ox_function_nodes(ox_parser *P, Onnx__FunctionProto *f, size_t mark);

/* ---- nodes ---- */
ox_nb ox_node_new(ox_parser *P, const ox_tok *label, size_t outputs, size_t ann);
void ox_node_op(ox_parser *P, Onnx__NodeProto *n, ox_tok id);
void ox_node_op_dot(ox_parser *P, ox_nb *b, ox_tok id);
void ox_node_overload(ox_parser *P, Onnx__NodeProto *n, ox_tok id);
/* Takes the inputs and the attributes (SIZE_MAX: none) off the stack; attrs_last tells
 * which list was pushed last (the marks alone cannot: an empty list's mark equals the
 * next list's). */
Onnx__NodeProto *ox_node_end(ox_parser *P, ox_nb *b, size_t inputs, size_t attrs, bool attrs_last);
size_t ox_id_push(ox_parser *P, const ox_tok *id); /* NULL pushes an empty name */

/* ---- types and value infos ---- */
ox_type ox_tensor_type(ox_parser *P, ox_tok elem, enum ox_rank rank, size_t dims, bool sparse);
ox_type ox_wrap_type(ox_parser *P, int code, ox_tok kw, ox_type inner); /* seq(T) / optional(T) */
ox_type ox_map_type(ox_parser *P, ox_tok kw, ox_tok key, ox_type value);
ox_type ox_opaque_type(ox_parser *P, ox_tok kw, const char *domain, const char *name);
char *ox_dotted(ox_parser *P, char *prefix, ox_tok part);
void ox_dim_push(ox_parser *P, const ox_tok *t); /* NULL: '?' */
Onnx__ValueInfoProto *ox_value_info(ox_parser *P, const ox_type *type, ox_tok name);

/* ---- tensors ---- */
/* Initializer: a tensor named after the value info, typed by it. */
Onnx__TensorProto *ox_init_begin(ox_parser *P, Onnx__ValueInfoProto *vi, ox_tok eq);
/* Tensor constant written after a type (attribute values, the tensor entry point). */
ox_value ox_tensor_begin(ox_parser *P, const ox_type *type, const ox_tok *name);
/* Whether the open tensor data goes to float_data, and a value for it already converted:
 * the driver's fast path for plain numbers. */
bool ox_tdata_floats(const ox_parser *P);
void ox_tdata_float(ox_parser *P, float v);
void ox_tdata_open(ox_parser *P, ox_tok brace);
void ox_tdata_value(ox_parser *P, int code, ox_tok lit);
void ox_tdata_close(ox_parser *P, ox_tok brace);
void ox_tdata_external(ox_parser *P, size_t mark);

/* ---- attributes ---- */
ox_ab ox_attr_new(ox_parser *P, ox_tok name, const ox_tok *annotation, size_t ann);
ox_value ox_literal(int code, ox_tok t);
ox_value ox_ref(ox_parser *P, ox_tok at, ox_tok name);
ox_value ox_type_value(ox_type t);
ox_value ox_graph_value(ox_parser *P, Onnx__GraphProto *g);
Onnx__AttributeProto *ox_attr_single(ox_parser *P, ox_ab *h, ox_value *v);
Onnx__AttributeProto *ox_attr_empty_list(ox_parser *P, ox_ab *h, ox_tok bracket);
ox_alist ox_attr_list_begin(ox_parser *P, ox_ab *h);
void ox_attr_list_add(ox_parser *P, ox_alist *l, ox_value *v);
Onnx__AttributeProto *ox_attr_list_end(ox_parser *P, ox_alist *l);

/* ---- annotations (#@ lines) ---- */
void ox_annot_push(ox_parser *P, ox_tok t);
/* Apply the annotation lines from mark on to a message and consume them. */
void ox_annotate(ox_parser *P, void *message, size_t mark);
/* A function's annotations come before its header, but most of them address what the
 * header and signature set: node_domain applies as the body starts, the rest at its end. */
enum ox_annotate_part { OX_ANN_ALL, OX_ANN_NODE_DOMAIN, OX_ANN_REST };
void ox_annotate_some(ox_parser *P, void *message, size_t mark, enum ox_annotate_part part);
void ox_set_node_domain_absent(ox_parser *P);
void ox_annotate_value_info(ox_parser *P, Onnx__ValueInfoProto *vi, Onnx__TensorProto *init, size_t mark);
/* Grammar actions of an annotation block. */
void ox_annot_item(ox_parser *P, char *key, ox_annval *value);
char *ox_indexed(ox_parser *P, char *key, ox_tok index);
ox_annval *ox_annval_token(ox_parser *P, int kind, ox_tok t);
ox_annval *ox_annval_list(ox_parser *P, size_t mark);
ox_annval *ox_annval_entries(ox_parser *P, size_t mark);

/* Runs a nested parse of text (an annotation block) with the given entry token. */
void ox_parse_nested(ox_parser *P, int entry, const char *text, size_t len);

#endif
