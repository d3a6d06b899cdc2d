// Small helpers for building ONNX models in C++ for core-engine tests (loader, partitioner,
// executor): graphs, value infos with fixed or symbolic dims, initializers, nodes, serialization,
// and temporary folders for file-based tests.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "common/status.h"
#include "framework/tensor.h"
#include "op_tester.h"  // MakeTensor, MakeRawTensor

namespace prism::testing {

// One dim of a value info: a number, a symbolic name, or (default) unknown.
struct DimSpec {
  DimSpec() = default;
  DimSpec(int64_t v) : value(v), known(true) {}  // NOLINT: implicit for brace lists
  DimSpec(int v) : value(v), known(true) {}      // NOLINT
  DimSpec(const char* p) : param(p) {}           // NOLINT
  int64_t value = 0;
  std::string param;
  bool known = false;
};

// A model with one ai.onnx opset import (opset 17 unless told) and an empty graph "g".
inline onnx::ModelProto MakeModel(int opset = 17, int64_t ir_version = 8) {
  onnx::ModelProto model;
  model.set_ir_version(ir_version);
  model.set_producer_name("prism-core-test");
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("g");
  return model;
}

inline void SetTensorType(onnx::TypeProto* type, int32_t elem_type,
                          const std::vector<DimSpec>* dims) {
  auto* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  if (dims == nullptr) return;
  auto* shape = tensor->mutable_shape();
  for (const DimSpec& d : *dims) {
    auto* dim = shape->add_dim();
    if (d.known)
      dim->set_dim_value(d.value);
    else if (!d.param.empty())
      dim->set_dim_param(d.param);
  }
}

// Graph inputs/outputs/value_info; dims nullptr-like default means "rank unknown".
inline onnx::ValueInfoProto* AddInput(onnx::GraphProto* graph, const std::string& name,
                                      int32_t elem_type, const std::vector<DimSpec>& dims) {
  auto* info = graph->add_input();
  info->set_name(name);
  SetTensorType(info->mutable_type(), elem_type, &dims);
  return info;
}

inline onnx::ValueInfoProto* AddInputNoShape(onnx::GraphProto* graph, const std::string& name,
                                             int32_t elem_type) {
  auto* info = graph->add_input();
  info->set_name(name);
  SetTensorType(info->mutable_type(), elem_type, nullptr);
  return info;
}

inline onnx::ValueInfoProto* AddOutput(onnx::GraphProto* graph, const std::string& name,
                                       int32_t elem_type) {
  auto* info = graph->add_output();
  info->set_name(name);
  SetTensorType(info->mutable_type(), elem_type, nullptr);
  return info;
}

inline onnx::ValueInfoProto* AddOutput(onnx::GraphProto* graph, const std::string& name,
                                       int32_t elem_type, const std::vector<DimSpec>& dims) {
  auto* info = graph->add_output();
  info->set_name(name);
  SetTensorType(info->mutable_type(), elem_type, &dims);
  return info;
}

inline onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op_type,
                                const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs,
                                const std::string& name = "", const std::string& domain = "") {
  auto* node = graph->add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  if (!domain.empty()) node->set_domain(domain);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
  return node;
}

inline void AddIntsAttr(onnx::NodeProto* node, const std::string& name,
                        const std::vector<int64_t>& values) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) attr->add_ints(v);
}

inline onnx::GraphProto* AddGraphAttr(onnx::NodeProto* node, const std::string& name) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::GRAPH);
  return attr->mutable_g();
}

// A float initializer in raw_data.
inline onnx::TensorProto* AddFloatInitializer(onnx::GraphProto* graph, const std::string& name,
                                              const std::vector<int64_t>& dims,
                                              const std::vector<float>& values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) init->add_dims(d);
  init->set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return init;
}

inline std::string Serialize(const onnx::ModelProto& model) {
  std::string bytes;
  EXPECT_TRUE(model.SerializeToString(&bytes));
  return bytes;
}

// Runs fn and returns the prism::Exception it throws; fails the test when it throws nothing
// or something else.
template <typename Fn>
Status CaptureError(Fn&& fn) {
  try {
    fn();
  } catch (const Exception& e) {
    return e.ToStatus();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected prism::Exception, got std::exception: " << e.what();
    return Status(StatusCode::kFail, e.what());
  }
  ADD_FAILURE() << "expected an error, but the call succeeded";
  return Status::Ok();
}

#define PRISM_EXPECT_ERROR(status_expr, code, substring)                                \
  do {                                                                                  \
    const ::prism::Status prism_status_ = (status_expr);                                \
    EXPECT_EQ(prism_status_.Code(), ::prism::StatusCode::code)                          \
        << "actual: " << ::prism::StatusCodeName(prism_status_.Code()) << ": "          \
        << prism_status_.Message();                                                     \
    EXPECT_NE(prism_status_.Message().find(substring), std::string::npos)               \
        << "message '" << prism_status_.Message() << "' lacks '" << (substring) << "'"; \
  } while (0)

// A fresh folder under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/prism_core_test_XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const char* made = ::mkdtemp(buffer.data());
    PRISM_ENFORCE(made != nullptr, kFail, "mkdtemp failed for ", pattern);
    path_ = made;
  }
  ~TempDir() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& Path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string path = File(name);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

 private:
  std::string path_;
};

}  // namespace prism::testing
