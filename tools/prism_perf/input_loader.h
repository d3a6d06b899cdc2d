// Inputs read from a folder of ONNX test data (input_0.pb, input_1.pb, ...: TensorProto files).
#pragma once

#include <string>
#include <vector>

#include "input_generator.h"

namespace prism::perf {

// Reads DIR/input_K.pb for K = 0, 1, ... while they exist. A tensor whose name is one of the
// model's inputs feeds that input; an unnamed one feeds the required input at its position,
// as in the ONNX test layout. Throws kInvalidArgument naming the file on any mismatch.
GeneratedInputs LoadInputs(const std::string& directory, const std::vector<ValueInfo>& inputs,
                           const std::vector<ValueInfo>& overridable);

}  // namespace prism::perf
