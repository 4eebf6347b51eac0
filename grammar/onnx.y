/* lemon grammar of the ONNX textual syntax. Actions are one-liners that call the
 * builders in src/build.c, which construct the protobuf-c structs directly.
 *
 * Lists: items are pushed on the parser's scratch stack as they are reduced; a list's
 * value is the stack mark where it started, and the rule that closes the list hands the
 * mark to a builder, which moves the items into one exactly-sized arena array. */

%name ox_lemon
%token_prefix TK_
%token_type {ox_tok}
%extra_context {ox_parser *P}
%start_symbol start
%stack_size 1200

%include {
#include <assert.h>
#include "text/build.h"
/* The first error ends the parse: builders and ox_syntax_error never return. */
#define YYNOERRORRECOVERY 1
}

%syntax_error { ox_syntax_error(P, yymajor, &yyminor, yypParser); }
%stack_overflow { ox_fail_depth(P); }

/* Token order is fixed here so that codes are stable; ENTRY_* select the entry point. */
%token ENTRY_MODEL ENTRY_GRAPH ENTRY_FUNCTION ENTRY_NODE ENTRY_NODES ENTRY_TYPE ENTRY_TENSOR
       ENTRY_ATTRIBUTE ENTRY_VALUE_INFO ENTRY_ANNOTATION.
%token LT GT LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA COLON EQ ARROW DOT AT QUESTION.
%token ID STRING INT FLOAT FLOATWORD ANNOT.
%token ELEMTYPE SEQ MAP OPTIONAL SPARSE_TENSOR OPAQUE.
%token IR_VERSION OPSET_IMPORT PRODUCER_NAME PRODUCER_VERSION DOMAIN MODEL_VERSION DOC_STRING
       METADATA_PROPS OVERLOAD.

/* No reserved words: a keyword with no meaning in the current state is an identifier. */
%fallback ID ELEMTYPE SEQ MAP OPTIONAL SPARSE_TENSOR OPAQUE FLOATWORD
             IR_VERSION OPSET_IMPORT PRODUCER_NAME PRODUCER_VERSION DOMAIN MODEL_VERSION
             DOC_STRING METADATA_PROPS OVERLOAD.

%type model {Onnx__ModelProto *}
%type mgraph {Onnx__ModelProto *}
%type mheader {Onnx__ModelProto *}
%type mh_open {Onnx__ModelProto *}
%type mh_sep {Onnx__ModelProto *}
%type mh_items {Onnx__ModelProto *}
%type functions {size_t}
%type opsets {size_t}
%type opset_items {size_t}
%type opset {Onnx__OperatorSetIdProto *}
%type props {size_t}
%type kvs {size_t}
%type kv {Onnx__StringStringEntryProto *}
%type graph {Onnx__GraphProto *}
%type gbody {Onnx__GraphProto *}
%type gvi {Onnx__GraphProto *}
%type gout {Onnx__GraphProto *}
%type gin {Onnx__GraphProto *}
%type gname {Onnx__GraphProto *}
%type ginputs {size_t}
%type ginput {size_t}
%type ginits {size_t}
%type ginit {size_t}
%type in_init {Onnx__TensorProto *}
%type vi_init {Onnx__TensorProto *}
%type vis {size_t}
%type avi {size_t}
%type vi {Onnx__ValueInfoProto *}
%type type {ox_type}
%type tbare {ox_type}
%type tnb {ox_type}
%type dotted {char *}
%type dims {size_t}
%type tensor {ox_value}
%type atnamed {ox_value}
%type atbare {ox_value}
%type atext {ox_value}
%type attr {Onnx__AttributeProto *}
%type ahead {ox_ab}
%type alist {ox_alist}
%type aval {ox_value}
%type attr_items {size_t}
%type nodes {size_t}
%type node {Onnx__NodeProto *}
%type nov {ox_nb}
%type nop {ox_nb}
%type nstart {ox_nb}
%type nlabel {ox_tok}
%type ids {size_t}
%type idn {size_t}
%type idc {size_t}
%type function {Onnx__FunctionProto *}
%type fbody {Onnx__FunctionProto *}
%type fvi {Onnx__FunctionProto *}
%type fout {Onnx__FunctionProto *}
%type fin {Onnx__FunctionProto *}
%type fattrs {Onnx__FunctionProto *}
%type fname {Onnx__FunctionProto *}
%type fh_open {Onnx__FunctionProto *}
%type fh_sep {Onnx__FunctionProto *}
%type fh_items {Onnx__FunctionProto *}
%type fattr_items {size_t}
%type fattr {size_t}
%type fio {size_t}
%type anns {size_t}
%type akey {char *}
%type annv {ox_annval *}
%type annvs {size_t}

/* ---- entry points -------------------------------------------------------------- */

start ::= ENTRY_MODEL model(M).                    { P->result = M; }
start ::= ENTRY_GRAPH graph(G).                    { P->result = G; }
start ::= ENTRY_FUNCTION function(F).              { P->result = F; }
start ::= ENTRY_NODE node(N).                      { P->result = N; }
start ::= ENTRY_NODES nodes(L).                    { P->result = ox_node_list(P, L); }
start ::= ENTRY_NODES LBRACE nodes(L) RBRACE.      { P->result = ox_node_list(P, L); }
start ::= ENTRY_TYPE type(T).                      { P->result = T.tp; }
start ::= ENTRY_TYPE anns(A) type(T).              { P->result = T.tp; ox_annotate(P, T.tp, A); }
start ::= ENTRY_TENSOR tensor(T).                  { P->result = T.msg; }
start ::= ENTRY_TENSOR type(T).                    { P->result = ox_tensor_begin(P, &T, NULL).msg; }
start ::= ENTRY_TENSOR anns(A) tensor(T).          { P->result = T.msg; ox_annotate(P, T.msg, A); }
start ::= ENTRY_TENSOR anns(A) type(T).            { P->result = ox_tensor_begin(P, &T, NULL).msg; ox_annotate(P, P->result, A); }
start ::= ENTRY_ATTRIBUTE attr(A).                 { P->result = A; }
start ::= ENTRY_VALUE_INFO vi(V).                  { P->result = V; }
start ::= ENTRY_VALUE_INFO anns(A) vi(V).          { ox_annotate_value_info(P, V, NULL, A); P->result = V; }

/* ---- model --------------------------------------------------------------------- */

model(M) ::= mgraph(M).
model(M) ::= mgraph(M) functions(L).               { ox_model_functions(P, M, L); }
functions(L) ::= function(F).                      { L = ox_push(P, F); }
functions(L) ::= functions(L) function(F).         { ox_push(P, F); }

/* Annotations before the header belong to the model, those before the graph's name to
 * the graph. An empty header "<>" (an extension) gives model annotations a place when
 * the model has no header fields; without annotations it stays an error. */
mgraph(M) ::= gbody(G).                            { M = ox_model_graph(P, NULL, G); }
mgraph(M) ::= mheader(H) gbody(G).                 { M = ox_model_graph(P, H, G); }
mheader(H) ::= anns(A) LT GT.                      { H = ox_model_new(P, A); }
mheader(H) ::= mh_items(H) GT.
mh_open(H) ::= LT.                                 { H = ox_model_new(P, P->nannots); }
mh_open(H) ::= anns(A) LT.                         { H = ox_model_new(P, A); }
mh_sep(H) ::= mh_open(H).
mh_sep(H) ::= mh_items(H) COMMA.
mh_items(H) ::= mh_sep(H) IR_VERSION COLON INT(V).          { ox_model_int(P, H, TK_IR_VERSION, V); }
mh_items(H) ::= mh_sep(H) MODEL_VERSION COLON INT(V).       { ox_model_int(P, H, TK_MODEL_VERSION, V); }
mh_items(H) ::= mh_sep(H) PRODUCER_NAME COLON STRING(V).    { ox_model_str(P, H, TK_PRODUCER_NAME, V); }
mh_items(H) ::= mh_sep(H) PRODUCER_VERSION COLON STRING(V). { ox_model_str(P, H, TK_PRODUCER_VERSION, V); }
mh_items(H) ::= mh_sep(H) DOMAIN COLON STRING(V).           { ox_model_str(P, H, TK_DOMAIN, V); }
mh_items(H) ::= mh_sep(H) DOC_STRING COLON STRING(V).       { ox_model_str(P, H, TK_DOC_STRING, V); }
mh_items(H) ::= mh_sep(H) OPSET_IMPORT COLON opsets(L).     { ox_model_opsets(P, H, L); }
mh_items(H) ::= mh_sep(H) METADATA_PROPS COLON props(L).    { ox_model_props(P, H, L); }

opsets(L) ::= LBRACKET RBRACKET.                   { L = ox_mark(P); }
opsets(L) ::= opset_items(L) RBRACKET.
opset_items(L) ::= LBRACKET opset(O).              { L = ox_push(P, O); }
opset_items(L) ::= opset_items(L) COMMA opset(O).  { ox_push(P, O); }
opset(O) ::= STRING(D) COLON INT(V).               { O = ox_opset(P, D, V); }

props(L) ::= LBRACKET RBRACKET.                    { L = ox_mark(P); }
props(L) ::= LBRACKET kvs(K) RBRACKET.             { L = K; }
kvs(L) ::= kv(E).                                  { L = ox_push(P, E); }
kvs(L) ::= kvs(L) COMMA kv(E).                     { ox_push(P, E); }
kv(E) ::= STRING(K) COLON STRING(V).               { E = ox_entry(P, K, V); }

/* ---- graph --------------------------------------------------------------------- */

graph(G) ::= gbody(G).
gbody(G) ::= gvi(G) LBRACE nodes(L) RBRACE.        { ox_graph_nodes(P, G, L); }
gvi(G) ::= gout(G).
gvi(G) ::= gout(G) LT GT.
gvi(G) ::= gout(G) LT ginits(L) GT.                { ox_graph_value_infos(P, G, L); }
gout(G) ::= gin(G) ARROW LPAREN RPAREN.
gout(G) ::= gin(G) ARROW LPAREN vis(L) RPAREN.     { ox_graph_outputs(P, G, L); }
gin(G) ::= gname(G).
gin(G) ::= gname(G) LPAREN RPAREN.
gin(G) ::= gname(G) LPAREN ginputs(L) RPAREN.      { ox_graph_inputs(P, G, L); }
/* A graph's annotations are read as it starts: some of them shape how its nodes are
 * built (node_domain). */
gname(G) ::= ID(N).                                { G = ox_graph_new(P, N, P->nannots); }
gname(G) ::= STRING(N).                            { G = ox_graph_new(P, N, P->nannots); }
gname(G) ::= anns(A) ID(N).                        { G = ox_graph_new(P, N, A); }
gname(G) ::= anns(A) STRING(N).                    { G = ox_graph_new(P, N, A); }

/* Graph inputs push (value info, initializer or NULL); the '<...>' list pushes
 * (value info, NULL) or (NULL, initializer). */
ginputs(L) ::= ginput(L).
ginputs(L) ::= ginputs(L) COMMA ginput.
ginput(M) ::= vi(V).                               { M = ox_push_pair(P, V, NULL); }
ginput(M) ::= anns(A) vi(V).                       { ox_annotate_value_info(P, V, NULL, A); M = ox_push_pair(P, V, NULL); }
ginput(M) ::= in_init tdata.                       { M = P->top - 2; }
ginput(M) ::= anns(A) in_init(T) tdata.            { M = P->top - 2; ox_annotate_value_info(P, P->stack[M].p, T, A); }
in_init(T) ::= vi(V) EQ(E).                        { T = ox_init_begin(P, V, E); ox_push_pair(P, V, T); }

ginits(L) ::= ginit(L).
ginits(L) ::= ginits(L) COMMA ginit.
ginit(M) ::= vi(V).                                { M = ox_push_pair(P, V, NULL); }
ginit(M) ::= anns(A) vi(V).                        { ox_annotate_value_info(P, V, NULL, A); M = ox_push_pair(P, V, NULL); }
ginit(M) ::= vi_init tdata.                        { M = P->top - 2; }
ginit(M) ::= anns(A) vi_init(T) tdata.             { ox_annotate_value_info(P, NULL, T, A); M = P->top - 2; }
vi_init(T) ::= vi(V) EQ(E).                        { T = ox_init_begin(P, V, E); ox_push_pair(P, NULL, T); }

vis(L) ::= avi(L).
vis(L) ::= vis(L) COMMA avi.
avi(M) ::= vi(V).                                  { M = ox_push(P, V); }
avi(M) ::= anns(A) vi(V).                          { ox_annotate_value_info(P, V, NULL, A); M = ox_push(P, V); }

vi(V) ::= ID(N).                                   { V = ox_value_info(P, NULL, N); }
vi(V) ::= STRING(N).                               { V = ox_value_info(P, NULL, N); }
vi(V) ::= type(T) ID(N).                           { V = ox_value_info(P, &T, N); }
vi(V) ::= type(T) STRING(N).                       { V = ox_value_info(P, &T, N); }

/* ---- types ---------------------------------------------------------------------- */

/* A bare element type (rank 0) is kept apart from the others so that, in attribute
 * values, '[' after it can only open its dimensions, never external data. */
type(T) ::= tbare(T).
type(T) ::= tnb(T).
tbare(T) ::= ELEMTYPE(E).                                   { T = ox_tensor_type(P, E, OX_RANK0, 0, false); }
tnb(T) ::= ELEMTYPE(E) LBRACKET RBRACKET.                    { T = ox_tensor_type(P, E, OX_RANK_UNKNOWN, 0, false); }
tnb(T) ::= ELEMTYPE(E) LBRACKET dims(D) RBRACKET.            { T = ox_tensor_type(P, E, OX_RANK_DIMS, D, false); }
tnb(T) ::= SEQ(K) LPAREN type(E) RPAREN.                     { T = ox_wrap_type(P, TK_SEQ, K, E); }
tnb(T) ::= OPTIONAL(K) LPAREN type(E) RPAREN.                { T = ox_wrap_type(P, TK_OPTIONAL, K, E); }
tnb(T) ::= MAP(K) LPAREN ELEMTYPE(E) COMMA type(V) RPAREN.   { T = ox_map_type(P, K, E, V); }
tnb(T) ::= SPARSE_TENSOR LPAREN ELEMTYPE(E) RPAREN.          { T = ox_tensor_type(P, E, OX_RANK0, 0, true); }
tnb(T) ::= SPARSE_TENSOR LPAREN ELEMTYPE(E) LBRACKET RBRACKET RPAREN.
                                                             { T = ox_tensor_type(P, E, OX_RANK_UNKNOWN, 0, true); }
tnb(T) ::= SPARSE_TENSOR LPAREN ELEMTYPE(E) LBRACKET dims(D) RBRACKET RPAREN.
                                                             { T = ox_tensor_type(P, E, OX_RANK_DIMS, D, true); }
tnb(T) ::= OPAQUE(K) LPAREN RPAREN.                          { T = ox_opaque_type(P, K, NULL, NULL); }
tnb(T) ::= OPAQUE(K) LPAREN dotted(N) RPAREN.                { T = ox_opaque_type(P, K, NULL, N); }
tnb(T) ::= OPAQUE(K) LPAREN dotted(D) COMMA ID(N) RPAREN.    { T = ox_opaque_type(P, K, D, ox_name(P, N)); }
dotted(A) ::= ID(N).                                         { A = ox_name(P, N); }
dotted(A) ::= dotted(A) DOT ID(N).                           { A = ox_dotted(P, A, N); }

dims(L) ::= dim.                                   { L = P->top - 1; }
dims(L) ::= dims(L) COMMA dim.
dim ::= QUESTION.                                  { ox_dim_push(P, NULL); }
dim ::= ID(X).                                     { ox_dim_push(P, &X); }
dim ::= STRING(X).                                 { ox_dim_push(P, &X); }
dim ::= INT(X).                                    { ox_dim_push(P, &X); }

/* ---- tensor constants ------------------------------------------------------------ */

/* Values between '{' and '}' never reach this grammar: once a tensor's '{' is shifted
 * (ox_lemon_data_brace() tells), the driver (src/parse.c) reads "value, value, ..."
 * itself, converting each value straight into the tensor, then feeds the '}'. That
 * keeps millions of numbers out of the LALR machinery. The tensor must exist by then,
 * so it is created by a reduction on the '{' lookahead (in_init, vi_init, atbare). */
tdata ::= .
tdata ::= tdopen RBRACE(B).                        { ox_tdata_close(P, B); }
tdata ::= LBRACKET kvs(L) RBRACKET.                { ox_tdata_external(P, L); }
tdopen ::= LBRACE.

tensor(T) ::= atnamed(T) tdata.
tensor(T) ::= atbare(T) tdopen RBRACE(B).          { ox_tdata_close(P, B); }
tensor(T) ::= atext(T) kvs(L) RBRACKET.            { ox_tdata_external(P, L); }
atnamed(T) ::= type(Y) ID(N).                      { T = ox_tensor_begin(P, &Y, &N); }
atnamed(T) ::= type(Y) STRING(N).                  { T = ox_tensor_begin(P, &Y, &N); }
atnamed(T) ::= type(Y) ID(N) EQ.                   { T = ox_tensor_begin(P, &Y, &N); }
atnamed(T) ::= type(Y) STRING(N) EQ.               { T = ox_tensor_begin(P, &Y, &N); }
atnamed(T) ::= type(Y) EQ.                         { T = ox_tensor_begin(P, &Y, NULL); }
atbare(T) ::= type(Y).                             { T = ox_tensor_begin(P, &Y, NULL); }
atext(T) ::= tnb(Y) LBRACKET.                      { T = ox_tensor_begin(P, &Y, NULL); }

/* ---- attributes ------------------------------------------------------------------ */

/* An attribute's annotations come before its name, so ahead carries their mark. */
attr(A) ::= ahead(H) aval(V).                      { A = ox_attr_single(P, &H, &V); }
attr(A) ::= ahead(H) LBRACKET(B) RBRACKET(E).      { B.n = (uint32_t)(E.p + 1 - B.p); A = ox_attr_empty_list(P, &H, B); }
attr(A) ::= alist(L) RBRACKET.                     { A = ox_attr_list_end(P, &L); }
alist(L) ::= ahead(H) LBRACKET aval(V).            { L = ox_attr_list_begin(P, &H); ox_attr_list_add(P, &L, &V); }
alist(L) ::= alist(L) COMMA aval(V).               { ox_attr_list_add(P, &L, &V); }
ahead(A) ::= ID(N) EQ.                             { A = ox_attr_new(P, N, NULL, P->nannots); }
ahead(A) ::= STRING(N) EQ.                         { A = ox_attr_new(P, N, NULL, P->nannots); }
ahead(A) ::= ID(N) COLON ID(T) EQ.                 { A = ox_attr_new(P, N, &T, P->nannots); }
ahead(A) ::= STRING(N) COLON ID(T) EQ.             { A = ox_attr_new(P, N, &T, P->nannots); }
ahead(A) ::= anns(M) ID(N) EQ.                     { A = ox_attr_new(P, N, NULL, M); }
ahead(A) ::= anns(M) STRING(N) EQ.                 { A = ox_attr_new(P, N, NULL, M); }
ahead(A) ::= anns(M) ID(N) COLON ID(T) EQ.         { A = ox_attr_new(P, N, &T, M); }
ahead(A) ::= anns(M) STRING(N) COLON ID(T) EQ.     { A = ox_attr_new(P, N, &T, M); }

aval(V) ::= INT(X).                                { V = ox_literal(TK_INT, X); }
aval(V) ::= FLOAT(X).                              { V = ox_literal(TK_FLOAT, X); }
aval(V) ::= FLOATWORD(X).                          { V = ox_literal(TK_FLOAT, X); }
aval(V) ::= STRING(X).                             { V = ox_literal(TK_STRING, X); }
aval(V) ::= AT(K) ID(N).                           { V = ox_ref(P, K, N); }
aval(V) ::= AT(K) STRING(N).                       { V = ox_ref(P, K, N); }
aval(V) ::= type(T).                               { V = ox_type_value(T); }
aval(V) ::= tensor(T).                             { V = T; }
aval(V) ::= gbody(G).                              { V = ox_graph_value(P, G); }

attr_items(L) ::= attr(A).                         { L = ox_push(P, A); }
attr_items(L) ::= attr_items(L) COMMA attr(A).     { ox_push(P, A); }

/* ---- nodes ------------------------------------------------------------------------- */

/* Kept flat on purpose: every rule here runs once per node or per name, and each
 * reduction costs a trip through lemon's tables. */
nodes(L) ::= .                                     { L = ox_nodes_begin(P); }
nodes(L) ::= nodes(L) node(N).                     { ox_nodes_add(P, N); }
node(N) ::= nov(B) LPAREN ids(I) RPAREN.           { N = ox_node_end(P, &B, I, SIZE_MAX, false); }
node(N) ::= nov(B) LPAREN ids(I) RPAREN LT attr_items(A) GT.
                                                   { N = ox_node_end(P, &B, I, A, true); }
node(N) ::= nov(B) LT attr_items(A) GT LPAREN ids(I) RPAREN.
                                                   { N = ox_node_end(P, &B, I, A, false); }
nov(N) ::= nop(N).
nov(N) ::= nop(N) COLON ID(O).                     { ox_node_overload(P, N.n, O); }
nop(N) ::= nstart(N).
nop(N) ::= nstart(N) ID(X).                        { ox_node_op(P, N.n, X); }
nop(N) ::= nop(N) DOT ID(X).                       { ox_node_op_dot(P, &N, X); }
nstart(N) ::= ids(L) EQ.                           { N = ox_node_new(P, NULL, L, P->nannots); }
nstart(N) ::= nlabel(B) ids(L) EQ.                 { N = ox_node_new(P, &B, L, P->nannots); }
nstart(N) ::= anns(M) ids(L) EQ.                   { N = ox_node_new(P, NULL, L, M); }
nstart(N) ::= anns(M) nlabel(B) ids(L) EQ.         { N = ox_node_new(P, &B, L, M); }
nlabel(B) ::= LBRACKET(X) RBRACKET.                { B = X; B.n = 0; }
nlabel(B) ::= LBRACKET ID(X) RBRACKET.             { B = X; }
nlabel(B) ::= LBRACKET STRING(X) RBRACKET.         { B = X; }

/* Id-lists keep an empty element before every comma and drop an empty last element:
 * "(,x)" is ["", "x"], "(x,)" is ["x"], "(x,,)" is ["x", ""]. idn ends with a name,
 * idc with a comma. */
ids(L) ::= .                                       { L = ox_mark(P); }
ids(L) ::= idn(L).
ids(L) ::= idc(L).
idn(L) ::= ID(X).                                  { L = ox_id_push(P, &X); }
idn(L) ::= STRING(X).                              { L = ox_id_push(P, &X); }
idn(L) ::= idc(L) ID(X).                           { ox_id_push(P, &X); }
idn(L) ::= idc(L) STRING(X).                       { ox_id_push(P, &X); }
idc(L) ::= COMMA.                                  { L = ox_id_push(P, NULL); }
idc(L) ::= idc(L) COMMA.                           { ox_id_push(P, NULL); }
idc(L) ::= idn(L) COMMA.

/* ---- functions --------------------------------------------------------------------- */

function(F) ::= fbody(F).
fbody(F) ::= fvi(F) LBRACE nodes(L) RBRACE.        { ox_function_nodes(P, F, L); }
fvi(F) ::= fout(F).
fvi(F) ::= fout(F) LT GT.
fvi(F) ::= fout(F) LT vis(L) GT.                   { ox_function_value_infos(P, F, L); }
fout(F) ::= fin(F) ARROW LPAREN fio(L) RPAREN.     { ox_function_io(P, F, L, true); }
fin(F) ::= fattrs(F) LPAREN fio(L) RPAREN.         { ox_function_io(P, F, L, false); }
fio(L) ::= .                                       { L = ox_mark(P); }
fio(L) ::= vis(L).
fattrs(F) ::= fname(F).
fattrs(F) ::= fname(F) LT fattr_items(L) GT.       { ox_function_attrs(P, F, L); }
fattr_items(L) ::= fattr(L).
fattr_items(L) ::= fattr_items(L) COMMA fattr.
fattr(M) ::= ID(X).                                { M = ox_push_pair(P, ox_name(P, X), NULL); }
fattr(M) ::= STRING(X).                            { M = ox_push_pair(P, ox_name(P, X), NULL); }
fattr(M) ::= attr(B).                              { M = ox_push_pair(P, NULL, B); }
/* As for graphs, a function's annotations are read as it starts. */
fname(F) ::= ID(N).                                { F = ox_function_new(P, P->nannots); ox_function_name(P, F, N); }
fname(F) ::= STRING(N).                            { F = ox_function_new(P, P->nannots); ox_function_name(P, F, N); }
fname(F) ::= anns(A) ID(N).                        { F = ox_function_new(P, A); ox_function_name(P, F, N); }
fname(F) ::= anns(A) STRING(N).                    { F = ox_function_new(P, A); ox_function_name(P, F, N); }
fname(F) ::= fh_items(F) GT ID(N).                 { ox_function_name(P, F, N); }
fname(F) ::= fh_items(F) GT STRING(N).             { ox_function_name(P, F, N); }
fh_open(F) ::= LT.                                 { F = ox_function_new(P, P->nannots); }
fh_open(F) ::= anns(A) LT.                         { F = ox_function_new(P, A); }
fh_sep(F) ::= fh_open(F).
fh_sep(F) ::= fh_items(F) COMMA.
fh_items(F) ::= fh_sep(F) DOMAIN COLON STRING(V).     { ox_function_str(P, F, TK_DOMAIN, V); }
fh_items(F) ::= fh_sep(F) DOC_STRING COLON STRING(V). { ox_function_str(P, F, TK_DOC_STRING, V); }
fh_items(F) ::= fh_sep(F) OVERLOAD COLON STRING(V).   { ox_function_str(P, F, TK_OVERLOAD, V); }
fh_items(F) ::= fh_sep(F) OPSET_IMPORT COLON opsets(L).  { ox_function_opsets(P, F, L); }

/* ---- annotations --------------------------------------------------------------------- */

/* The body of an annotation block: its "#@" lines, joined, parsed on their own
 * (src/annotate.c) as "key: value" items. */
start ::= ENTRY_ANNOTATION aitems.
aitems ::= aitem.
aitems ::= aitems aitem.
aitems ::= aitems COMMA aitem.
aitem ::= akey(K).                                 { ox_annot_item(P, K, NULL); }
aitem ::= akey(K) COLON annv(V).                   { ox_annot_item(P, K, V); }
akey(K) ::= ID(X).                                 { K = ox_name(P, X); }
akey(K) ::= akey(K) DOT ID(X).                     { K = ox_dotted(P, K, X); }
akey(K) ::= akey(K) LBRACKET INT(I) RBRACKET.      { K = ox_indexed(P, K, I); }
annv(V) ::= STRING(X).                             { V = ox_annval_token(P, TK_STRING, X); }
annv(V) ::= INT(X).                                { V = ox_annval_token(P, TK_INT, X); }
annv(V) ::= FLOAT(X).                              { V = ox_annval_token(P, TK_FLOAT, X); }
annv(V) ::= FLOATWORD(X).                          { V = ox_annval_token(P, TK_FLOAT, X); }
annv(V) ::= ID(X).                                 { V = ox_annval_token(P, TK_ID, X); }
annv(V) ::= LBRACKET RBRACKET.                     { V = ox_annval_list(P, P->top); }
annv(V) ::= LBRACKET annvs(L) RBRACKET.            { V = ox_annval_list(P, L); }
annv(V) ::= LBRACKET kvs(L) RBRACKET.              { V = ox_annval_entries(P, L); }
annvs(L) ::= annv(V).                              { L = ox_push(P, V); }
annvs(L) ::= annvs(L) COMMA annv(V).               { ox_push(P, V); }

anns(M) ::= ANNOT(X).                              { M = P->nannots; ox_annot_push(P, X); }
anns(M) ::= anns(M) ANNOT(X).                      { ox_annot_push(P, X); }

%code {
/* Whether the parser could shift tokens[0..count), in its current state, following
 * default reductions the way Parse() would. The driver calls it on a replay that stopped
 * just before the offending token, since the failed parse has already made the default
 * reductions that token triggered. Fallbacks are not followed: a keyword that
 * is only acceptable as an identifier is reported as the identifier. */
static int can_shift(const yyParser *p, const int *tokens, int count)
{
	YYACTIONTYPE states[YYSTACKDEPTH + 2];
	int n = 0, k = 0;
	for (const yyStackEntry *e = p->yystack; e <= p->yytos && n < YYSTACKDEPTH; e++)
		states[n++] = e->stateno;
	for (int guard = 0; guard < 10000; guard++) {
		YYACTIONTYPE st = states[n - 1], act;
		if (st > YY_MAX_SHIFT) {
			act = st;
		} else {
			int i = yy_shift_ofst[st] + tokens[k];
			act = yy_lookahead[i] == tokens[k] ? yy_action[i] : yy_default[st];
		}
		if (act < YY_MIN_REDUCE) {
			if (act > YY_MAX_SHIFTREDUCE && act != YY_ACCEPT_ACTION)
				return 0;
			if (++k == count)
				return 1;
			if (act == YY_ACCEPT_ACTION || n >= YYSTACKDEPTH + 1)
				return 0;
			/* a shift-reduce pushes the state that makes the reduction */
			states[n++] = act <= YY_MAX_SHIFT ? act : act + YY_MIN_REDUCE - YY_MIN_SHIFTREDUCE;
			continue;
		}
		if (act == YY_ERROR_ACTION || act == YY_NO_ACTION)
			return 0;
		int rule = act - YY_MIN_REDUCE;
		n += yyRuleInfoNRhs[rule];
		if (n < 1)
			return 0;
		YYACTIONTYPE go = yy_find_reduce_action(states[n - 1], yyRuleInfoLhs[rule]);
		if (go == YY_ERROR_ACTION || n >= YYSTACKDEPTH + 1)
			return 0;
		if (go > YY_MAX_SHIFT && go <= YY_MAX_SHIFTREDUCE)
			go += YY_MIN_REDUCE - YY_MIN_SHIFTREDUCE;
		states[n++] = go;
	}
	return 0;
}

/* True right after a '{' that opens tensor data: only those braces complete a rule at
 * once (tdopen ::= LBRACE), so lemon holds a pending reduction on top of its stack;
 * braces of node lists are followed by nodes. */
int ox_lemon_data_brace(void *parser)
{
	const yyParser *p = parser;
	return p->yytos->major == TK_LBRACE && p->yytos->stateno > YY_MAX_SHIFT;
}

int ox_lemon_can_shift(void *parser, const int *tokens, int count)
{
	return can_shift(parser, tokens, count);
}

int ox_lemon_expected(void *parser, unsigned char *ok, int size)
{
	const yyParser *p = parser;
	for (int t = 0; t < YYNTOKEN && t < size; t++)
		ok[t] = (unsigned char)can_shift(p, &t, 1);
	return YYNTOKEN;
}
}
