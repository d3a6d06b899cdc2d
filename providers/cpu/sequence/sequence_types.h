// The element types of the sequence and optional ops' constraints, as the ONNX spec lists them
// per schema version, and registration helpers for constraints that only take sequences.
#pragma once

#include <string>
#include <vector>

#include "framework/kernel_def.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {

// The 15 types of the sequence ops (opset 11) and of Optional* before opset 28: the classic
// types without bfloat16, with complex64 and complex128.
inline std::vector<ElementType> SequenceElementTypes() {
  return AllTensorTypesWithComplexOf(TensorTypeGeneration::kNoBfloat16);
}

// SplitToSequence 24 adds bfloat16.
inline std::vector<ElementType> SequenceElementTypesWithBfloat16() {
  return AllTensorTypesWithComplexOf(TensorTypeGeneration::kBfloat16);
}

// Optional* 28: every tensor type of opset 28, float6 included.
inline std::vector<ElementType> OptionalElementTypesOpset28() {
  std::vector<ElementType> types = AllTensorTypesWithComplexOf(TensorTypeGeneration::kInt2);
  types.insert(types.end(), {ElementType::kFloat6E2M3, ElementType::kFloat6E3M2});
  return types;
}

// Makes constraint `name` of def match seq(tensor(T)) only (the spec's S constraints).
inline KernelDef SequenceOnly(KernelDef def, const std::string& name) {
  for (TypeConstraint& constraint : def.constraints) {
    if (constraint.name != name) continue;
    constraint.allow_tensor = false;
    constraint.allow_sequence = true;
  }
  return def;
}

}  // namespace prism::cpu
