// What the CPU execution provider's kernel registry registers, for the type-matrix tests that
// run every registered type of an op.
#pragma once

#include <string>
#include <vector>

#include "framework/element_type.h"

namespace prism::testing {

// The element types the CPU registry registers for `constraint` of op (of domain, "" for
// ai.onnx) at opset, sorted; empty when no kernel of that op covers opset.
std::vector<ElementType> CpuRegisteredTypes(const std::string& op, int opset,
                                            const std::string& constraint,
                                            const std::string& domain = "");

}  // namespace prism::testing
