// .npy files (NumPy format 1.0): the form of every chunk file and of a graph's result.
// Only little-endian float64 ('<f8') in C order is written or accepted; version 2.0
// headers are read too. Errors name the file and what was wrong.
#pragma once

#include <string>
#include <vector>

#include "lib/operand/nd_array.h"
#include "lib/result.h"

namespace tharsis::operand {

std::string encode_npy(const NdArray& array);
// `where` names the source in error messages (a path, "spec input in0", ...).
Result<NdArray> decode_npy(const std::string& bytes, const std::string& where);

Result<NdArray> read_npy(const std::string& path);
// The shape in a .npy file's header, reading only the header; an error when the file is
// not a '<f8' C-order .npy or its size does not match the shape.
Result<Shape> read_npy_shape(const std::string& path);
// Writes to a temporary name then renames, so readers never see half a file.
Status write_npy(const std::string& path, const NdArray& array);

}  // namespace tharsis::operand
