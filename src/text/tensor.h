/* Tensor data helpers shared beyond the parser (annotations, external data). */
#ifndef OX_TENSOR_H
#define OX_TENSOR_H

#include <stdbool.h>

#include "arena.h"
#include "onnxtxt/onnxtxt.h"

/* Moves a tensor's values from its typed field into raw_data (little-endian, 4- and
 * 2-bit values packed), as the ONNX spec lays raw data out; false when out of memory.
 * String tensors have no raw form and are left alone. */
bool ox_tensor_make_raw(ox_arena *a, Onnx__TensorProto *t);

/* Whether an external data location stays inside the model's directory: relative, no
 * "..", no empty part (symbolic links are only known when the file is opened). */
bool ox_external_location_ok(const char *loc);

#endif
