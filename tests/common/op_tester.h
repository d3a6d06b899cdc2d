// Builds a one-node ONNX model in memory, runs it through a real InferenceSession and checks the
// outputs:
//   OpTester test("Add", 14);
//   test.Input<float>("A", {2}, {1, 2}).Input<float>("B", {2}, {3, 4});
//   test.Output<float>("C", {2}, {4, 6});
//   test.Run();
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "session/inference_session.h"
#include "tensor_compare.h"

namespace onnx {
class ModelProto;
}

namespace prism::testing {

template <typename T>
Tensor MakeTensor(const std::vector<int64_t>& dims, const std::vector<T>& values) {
  Tensor tensor(ElementTypeOf<T>(), TensorShape(dims), GetCpuAllocator());
  PRISM_ENFORCE(static_cast<int64_t>(values.size()) == tensor.NumElements(), kInvalidArgument,
                "MakeTensor: ", values.size(), " values for shape ", tensor.Shape().ToString());
  T* out = tensor.MutableData<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

// A map(K, tensor(V)) value (keys and values as given; TensorMap::Make orders them).
template <typename K, typename V>
Value MakeMap(const std::vector<K>& keys, const std::vector<V>& values) {
  return Value(TensorMap::Make(MakeTensor<K>({static_cast<int64_t>(keys.size())}, keys),
                               MakeTensor<V>({static_cast<int64_t>(values.size())}, values)));
}

// A seq(map(K, tensor(V))) value of maps made by MakeMap.
template <typename K, typename V>
Value MakeMapSequence(const std::vector<std::pair<std::vector<K>, std::vector<V>>>& maps) {
  MapSequence sequence{ElementTypeOf<K>(), ElementTypeOf<V>(), {}};
  for (const auto& [keys, values] : maps)
    sequence.maps.push_back(MakeMap<K, V>(keys, values).GetMap());
  return Value(std::move(sequence));
}

// A tensor of a type without a C++ type (float8, int4, ...) from its raw storage bytes.
Tensor MakeRawTensor(ElementType type, const std::vector<int64_t>& dims,
                     const std::vector<uint8_t>& bytes);

class OpTester {
 public:
  OpTester(std::string op_type, int opset, std::string domain = "");

  template <typename T>
  OpTester& Input(const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<T>& values, bool constant = false) {
    return InputTensor(name, MakeTensor<T>(dims, values), constant);
  }
  // constant: the input becomes an initializer (kernels may pre-process constant inputs).
  OpTester& InputTensor(const std::string& name, const Tensor& tensor, bool constant = false);
  OpTester& MissingInput();  // an omitted optional input ("")
  // A graph input of any kind the graph proto can declare: a tensor, a map or a seq(map).
  OpTester& InputValue(const std::string& name, const Value& value);

  template <typename T>
  OpTester& Output(const std::string& name, const std::vector<int64_t>& dims,
                   const std::vector<T>& expected) {
    return OutputTensor(name, MakeTensor<T>(dims, expected));
  }
  OpTester& OutputTensor(const std::string& name, const Tensor& expected);
  OpTester& MissingOutput();  // an omitted optional output
  // An expected output of any kind InputValue takes (declared with the expected value's type).
  OpTester& OutputValue(const std::string& name, const Value& expected);

  OpTester& Attr(const std::string& name, int64_t value);
  OpTester& Attr(const std::string& name, float value);
  OpTester& Attr(const std::string& name, const std::string& value);
  OpTester& Attr(const std::string& name, const std::vector<int64_t>& values);
  OpTester& Attr(const std::string& name, const std::vector<float>& values);
  OpTester& Attr(const std::string& name, const std::vector<std::string>& values);
  OpTester& AttrTensor(const std::string& name, const Tensor& value);

  // Replaces the per-element-type default tolerance (tensor_compare.h) for this test's floating
  // outputs. `reason` says why the test needs another one; a mismatch prints it.
  OpTester& SetTolerance(double atol, double rtol, std::string reason);
  OpTester& SetTolerance(Tolerance tolerance, std::string reason);
  OpTester& Providers(std::vector<ProviderSpec> providers);
  // The session's intra-op threads (0, the default: the machine's cores). Kernels that split
  // large work over the pool are tested with 2 or more, so the split runs on any machine.
  OpTester& IntraOpThreads(int threads);
  // Graph transformers the session must not run (SessionOptions::disabled_optimizers), e.g. a
  // layout pass that would rewrite the op under test (RunAndGet).
  OpTester& DisableOptimizers(std::vector<std::string> names) {
    disabled_optimizers_ = std::move(names);
    return *this;
  }

  // Runs and checks every output (gtest failures on mismatch).
  void Run();
  // Expects loading or running to fail with a message containing substring.
  void ExpectFailure(const std::string& substring);
  // Runs and returns the outputs without checking them: the declared Outputs only name the graph
  // outputs and their element types, the caller compares the values.
  std::vector<Value> RunAndGet();

 private:
  std::string Serialize() const;
  std::string op_type_;
  std::string domain_;
  int opset_;
  struct NamedValue {
    std::string name;
    Value value;  // a tensor, a map or a seq(map)
    bool constant = false;
    bool missing = false;
  };
  std::vector<NamedValue> inputs_;
  std::vector<NamedValue> outputs_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> attributes_;  // serialized protos
  Tolerance tolerance_;
  std::string tolerance_reason_;  // empty: the default tolerance
  std::vector<ProviderSpec> providers_;
  int intra_op_threads_ = 0;
  std::vector<std::string> disabled_optimizers_;
};

// Folder of the shared test data (../shared beside the repository, or $PRISM_SHARED_DIR).
// Fails the calling test when missing.
std::string SharedDataDir();

}  // namespace prism::testing
