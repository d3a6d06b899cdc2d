// Custom operators: ops an application registers at run time, in a domain of its own (or in an
// ONNX domain, where they take precedence over the built-in kernels), for one EP (the CPU EP
// unless told). The core sees them through CustomOp, which the C ABI implements over
// onnxruntime-style callback tables (src/capi/custom_op_api.cc); a session registers the ops of
// its options' domains in a CustomOpRegistry, which partitioning and planning consult before the
// EP's own kernel registry, so a custom op is claimed and reported like any kernel.
#pragma once

#include <climits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "framework/op_kernel.h"

namespace prism {

// How many node inputs (outputs) one declared input (output) of a custom op stands for.
enum class CustomOpArgKind : int {
  kRequired = 0,  // exactly one, present
  kOptional = 1,  // one, which the node may omit ("" or left off at the end)
  kVariadic = 2,  // the last declared one only: min_arity or more, all present
};

struct CustomOpArg {
  ElementType type = ElementType::kUndefined;  // kUndefined: any tensor element type
  CustomOpArgKind kind = CustomOpArgKind::kRequired;
};

// What a custom op accepts, read once when it is registered.
struct CustomOpSignature {
  std::string name;                               // the op type nodes use
  std::string provider = "CPUExecutionProvider";  // the EP whose nodes it may take
  int since_version = 1;                          // opset versions of its domain, inclusive
  int end_version = INT_MAX;
  std::vector<CustomOpArg> inputs;
  std::vector<CustomOpArg> outputs;
  // For a variadic last input (output): how many node inputs it needs at least, and whether they
  // must all have one element type (the declared one, or any one when it is kUndefined).
  int variadic_input_min_arity = 1;
  bool variadic_input_homogeneous = true;
  int variadic_output_min_arity = 1;
  bool variadic_output_homogeneous = true;
};

// The op's state for one node, made at session creation. Compute may run on several threads at
// once (concurrent runs of a session); it throws prism::Exception to fail the run.
class CustomOpKernelState {
 public:
  virtual ~CustomOpKernelState() = default;
  virtual void Compute(OpKernelContext& context) const = 0;
};

class CustomOp {
 public:
  virtual ~CustomOp() = default;
  virtual const CustomOpSignature& Signature() const = 0;
  // Called once per node that the op's EP claimed, with the node's attributes and types.
  virtual std::unique_ptr<CustomOpKernelState> CreateKernel(const OpKernelInfo& info) const = 0;
};

// A domain and its ops, as session options carry them (shared, immutable once added).
struct CustomOpDomain {
  std::string domain;  // "" (or "ai.onnx") is the ONNX domain
  std::vector<std::shared_ptr<const CustomOp>> ops;
};

// "" when node fits the op's signature (counts, optional and variadic inputs, static types),
// otherwise why not, naming the op, its domain and the node:
//   custom op 'Foo' of domain 'my.domain' expects 2 inputs, node 'n1' has 3
std::string CustomOpMismatch(const std::string& domain, const CustomOpSignature& signature,
                             const Node& node);

// The custom ops of one session, by domain and op type.
class CustomOpRegistry {
 public:
  // Throws kInvalidArgument for an op registered twice for one EP with overlapping opset ranges
  // and the same declared inputs (ops of one name may differ in their input types).
  explicit CustomOpRegistry(const std::vector<std::shared_ptr<const CustomOpDomain>>& domains);

  bool Empty() const { return ops_.empty(); }
  // The kernel of the first op of the node's domain and type for provider that fits the node, or
  // nullptr. When ops of that domain and type exist for provider but none fits, *reason says why
  // (the op's own mismatch when there is one op); otherwise *reason is left alone.
  const KernelCreateInfo* Find(const Node& node, const std::string& provider,
                               std::string* reason) const;
  // Whether an op (for any EP) has the node's domain and type.
  bool Covers(const Node& node) const;
  // Whether a domain of this name ("" for ai.onnx) was registered.
  bool HasDomain(const std::string& domain) const;

 private:
  struct Entry {
    std::string domain;
    std::shared_ptr<const CustomOp> op;
    KernelCreateInfo info;
  };
  static std::string Key(const std::string& domain, const std::string& op_type);
  std::map<std::string, std::vector<Entry>> ops_;
  std::map<std::string, int> domains_;
};

}  // namespace prism
