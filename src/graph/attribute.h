// A node attribute, converted from AttributeProto at load time so that kernels never touch
// protobuf types.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/tensor.h"
#include "framework/value.h"

namespace prism {

class Graph;

enum class AttributeType : int {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kSparseTensor = 11,
  kTypeProto = 13,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensors = 12,
  kTypeProtos = 14,
};

const char* AttributeTypeName(AttributeType type);

struct Attribute {
  std::string name;
  AttributeType type = AttributeType::kUndefined;
  float f = 0.0f;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<Tensor> tensor;              // kTensor, in CPU memory
  std::vector<std::shared_ptr<Graph>> graphs;  // kGraph (one) or kGraphs, owned by the node
  ValueType type_proto;                        // kTypeProto (Optional's type)
};

}  // namespace prism
