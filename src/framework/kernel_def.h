// What a kernel handles: op, domain, opset range, element types, and where its inputs and
// outputs must live.
#pragma once

#include <climits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/element_type.h"

namespace prism {

// Input index meaning "this and every later input" (variadic inputs such as Concat's).
constexpr int kVariadicFrom(int first) {
  return -1 - first;
}

struct TypeConstraint {
  std::string name;                  // the ONNX spec's name: "T", "T1", ...
  std::vector<ElementType> allowed;  // element types (of tensors, or of sequence elements)
  std::vector<int> inputs;           // bound input indices (kVariadicFrom(i) for i..end)
  std::vector<int> outputs;          // bound output indices (kVariadicFrom(i) for i..end)
  bool allow_tensor = true;
  bool allow_sequence = false;  // seq(tensor(T)) also matches
  bool allow_optional = false;  // optional(...) also matches
  // A map constraint (ai.onnx.ml) accepts no tensors, only the map(K, tensor(V)) types listed as
  // (K, V) pairs here, or seq(map(K, tensor(V))) when maps_in_sequence; `allowed` is then empty.
  std::vector<std::pair<ElementType, ElementType>> maps;
  bool maps_in_sequence = false;
};

struct KernelDef {
  std::string op_type;
  std::string domain;  // "" is ai.onnx
  int since_version = 1;
  int end_version = INT_MAX;  // inclusive
  std::vector<TypeConstraint> constraints;
  std::set<int> cpu_inputs;   // inputs that must be in CPU memory even on a device EP
  std::set<int> cpu_outputs;  // outputs produced in CPU memory
  // (input, output) pairs where the output may take over the input's buffer when nothing else
  // reads that input afterwards and both have the same type and size: the kernel computes
  // output element i from input element i alone (elementwise), so it may write over it.
  std::vector<std::pair<int, int>> may_inplace;
  std::string VersionRange() const;  // "7-12", "14+"
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op_type);
  KernelDefBuilder& Domain(std::string domain);
  KernelDefBuilder& Versions(int since, int end = INT_MAX);
  KernelDefBuilder& Constraint(std::string name, std::vector<ElementType> allowed,
                               std::vector<int> inputs, std::vector<int> outputs = {});
  // A constraint over map(K, tensor(V)) types, given as (K, V) pairs.
  KernelDefBuilder& MapConstraint(std::string name,
                                  std::vector<std::pair<ElementType, ElementType>> maps,
                                  std::vector<int> inputs, std::vector<int> outputs = {});
  // A constraint over seq(map(K, tensor(V))) types, given as (K, V) pairs.
  KernelDefBuilder& SequenceOfMapsConstraint(std::string name,
                                             std::vector<std::pair<ElementType, ElementType>> maps,
                                             std::vector<int> inputs,
                                             std::vector<int> outputs = {});
  // Lets the last added constraint match sequences and/or optionals too.
  KernelDefBuilder& AlsoSequence();
  KernelDefBuilder& AlsoOptional();
  KernelDefBuilder& CpuInput(int index);
  KernelDefBuilder& CpuOutput(int index);
  KernelDefBuilder& MayInplace(int input, int output);
  KernelDef Build() const { return def_; }

 private:
  KernelDef def_;
};

}  // namespace prism
