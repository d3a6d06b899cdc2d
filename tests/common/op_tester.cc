#include "op_tester.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "compute_evidence.h"
#include "graph/tensor_proto.h"

namespace prism::testing {

Tensor MakeRawTensor(ElementType type, const std::vector<int64_t>& dims,
                     const std::vector<uint8_t>& bytes) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  PRISM_ENFORCE(bytes.size() == tensor.SizeInBytes(), kInvalidArgument,
                "MakeRawTensor: ", bytes.size(), " bytes for ", tensor.Describe());
  if (!bytes.empty()) std::memcpy(tensor.MutableRawData(), bytes.data(), bytes.size());
  return tensor;
}

OpTester::OpTester(std::string op_type, int opset, std::string domain)
    : op_type_(std::move(op_type)), domain_(std::move(domain)), opset_(opset) {}

OpTester& OpTester::InputTensor(const std::string& name, const Tensor& tensor, bool constant) {
  inputs_.push_back(NamedValue{name, Value(tensor), constant, false});
  return *this;
}

OpTester& OpTester::InputValue(const std::string& name, const Value& value) {
  inputs_.push_back(NamedValue{name, value, false, false});
  return *this;
}

OpTester& OpTester::MissingInput() {
  inputs_.push_back(NamedValue{"", Value(), false, true});
  return *this;
}

OpTester& OpTester::OutputTensor(const std::string& name, const Tensor& expected) {
  outputs_.push_back(NamedValue{name, Value(expected), false, false});
  return *this;
}

OpTester& OpTester::OutputValue(const std::string& name, const Value& expected) {
  outputs_.push_back(NamedValue{name, expected, false, false});
  return *this;
}

OpTester& OpTester::MissingOutput() {
  outputs_.push_back(NamedValue{"", Value(), false, true});
  return *this;
}

namespace {
// The graph's declaration of a value's type: a tensor (with its shape when with_shape), a map, or
// a sequence of maps.
void DeclareType(const Value& value, bool with_shape, onnx::TypeProto* proto) {
  const ValueType type = value.Type();
  auto declare_map = [&](onnx::TypeProto* map_proto) {
    auto* map = map_proto->mutable_map_type();
    map->set_key_type(static_cast<int>(type.key));
    map->mutable_value_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(type.elem));
  };
  if (type.IsMap()) {
    declare_map(proto);
  } else if (type.IsSequenceOfMaps()) {
    declare_map(proto->mutable_sequence_type()->mutable_elem_type());
  } else {
    auto* tensor_type = proto->mutable_tensor_type();
    tensor_type->set_elem_type(static_cast<int>(value.GetTensor().Type()));
    if (!with_shape) return;
    auto* shape = tensor_type->mutable_shape();
    for (int64_t d : value.GetTensor().Shape().Dims()) shape->add_dim()->set_dim_value(d);
  }
}
std::vector<uint8_t> SerializeAttribute(const onnx::AttributeProto& proto) {
  std::string bytes = proto.SerializeAsString();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}
}  // namespace

OpTester& OpTester::Attr(const std::string& name, int64_t value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(value);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, const std::string& value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(value);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, const std::vector<float>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOATS);
  for (float v : values) a.add_floats(v);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::Attr(const std::string& name, const std::vector<std::string>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRINGS);
  for (const auto& v : values) a.add_strings(v);
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::AttrTensor(const std::string& name, const Tensor& value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(value, name, a.mutable_t());
  attributes_.emplace_back(name, SerializeAttribute(a));
  return *this;
}

OpTester& OpTester::SetTolerance(double atol, double rtol, std::string reason) {
  return SetTolerance(Tolerance{atol, rtol}, std::move(reason));
}

OpTester& OpTester::SetTolerance(Tolerance tolerance, std::string reason) {
  PRISM_ENFORCE(!reason.empty(), kInvalidArgument,
                "OpTester::SetTolerance: say why this test needs a non-default tolerance");
  tolerance_ = tolerance;
  tolerance_reason_ = std::move(reason);
  return *this;
}

OpTester& OpTester::Providers(std::vector<ProviderSpec> providers) {
  providers_ = std::move(providers);
  return *this;
}

OpTester& OpTester::IntraOpThreads(int threads) {
  intra_op_threads_ = threads;
  return *this;
}

std::string OpTester::Serialize() const {
  onnx::ModelProto model;
  model.set_ir_version(10);
  model.set_producer_name("prism-op-tester");
  auto* opset = model.add_opset_import();
  opset->set_domain(domain_);
  opset->set_version(opset_);
  if (!domain_.empty()) {
    auto* onnx_opset = model.add_opset_import();
    onnx_opset->set_domain("");
    onnx_opset->set_version(opset_ <= 28 ? opset_ : 21);
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("op_test");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op_type_);
  node->set_domain(domain_);
  node->set_name(op_type_ + "_under_test");
  for (const NamedValue& input : inputs_) {
    node->add_input(input.missing ? "" : input.name);
    if (input.missing) continue;
    if (input.constant) {
      TensorToProto(input.value.GetTensor(), input.name, graph->add_initializer());
      continue;
    }
    auto* info = graph->add_input();
    info->set_name(input.name);
    DeclareType(input.value, true, info->mutable_type());
  }
  for (const NamedValue& output : outputs_) {
    node->add_output(output.missing ? "" : output.name);
    if (output.missing) continue;
    auto* info = graph->add_output();
    info->set_name(output.name);
    DeclareType(output.value, false, info->mutable_type());
  }
  for (const auto& [name, bytes] : attributes_)
    node->add_attribute()->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  return model.SerializeAsString();
}

std::vector<Value> OpTester::RunAndGet() {
  const std::string bytes = Serialize();
  SessionOptions options;
  options.intra_op_num_threads = intra_op_threads_;
  options.disabled_optimizers = disabled_optimizers_;
  InferenceSession session(std::move(options), providers_);
  session.Load(bytes.data(), bytes.size());
  std::vector<std::string> names;
  std::vector<Value> feeds;
  for (const NamedValue& input : inputs_) {
    if (input.missing || input.constant) continue;
    names.push_back(input.name);
    feeds.push_back(input.value);
  }
  return session.Run(RunOptions{}, names, feeds, {});
}

void OpTester::Run() {
  DropPendingComputes();  // only this run's computations are checked below
  std::vector<Value> results;
  try {
    results = RunAndGet();
  } catch (const std::exception& e) {
    FAIL() << op_type_ << " opset " << opset_ << " failed: " << e.what();
  }
  size_t r = 0;
  for (const NamedValue& output : outputs_) {
    if (output.missing) continue;
    ASSERT_LT(r, results.size());
    const std::string mismatch = CompareWithOracle(output.value, results[r], tolerance_);
    EXPECT_TRUE(mismatch.empty()) << op_type_ << " opset " << opset_ << " output '" << output.name
                                  << "': " << mismatch
                                  << (tolerance_reason_.empty()
                                          ? ""
                                          : " [tolerance set because: " + tolerance_reason_ + "]");
    ++r;
  }
}

void OpTester::ExpectFailure(const std::string& substring) {
  try {
    RunAndGet();
  } catch (const std::exception& e) {
    DropPendingComputes();  // what computed before the failure is no evidence
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
        << "error message '" << e.what() << "' does not contain '" << substring << "'";
    return;
  }
  DropPendingComputes();
  ADD_FAILURE() << op_type_ << " opset " << opset_ << " was expected to fail with '" << substring
                << "' but succeeded";
}

std::string SharedDataDir() {
  if (const char* env = std::getenv("PRISM_SHARED_DIR"); env && *env) return env;
  return std::filesystem::weakly_canonical(std::filesystem::path(PRISM_SOURCE_DIR) / ".." /
                                           "shared")
      .string();
}

}  // namespace prism::testing
