// Per-EP table of kernels, looked up by a node's op, domain, opset version and value types.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "framework/kernel_def.h"
#include "framework/op_kernel.h"

namespace prism {

struct KernelCreateInfo {
  KernelDef def;
  KernelFactory factory;
};

class KernelRegistry {
 public:
  void Register(KernelDef def, KernelFactory factory);
  // The kernel for node, or nullptr with *reason saying why none matches (op unknown, opset
  // outside every registered range, or which type constraint rejected which type).
  const KernelCreateInfo* Find(const Node& node, std::string* reason) const;
  // Every registration, in registration order.
  std::vector<const KernelCreateInfo*> All() const;
  // Whether any kernel is registered in domain ("" or "ai.onnx" for ONNX's).
  bool HasDomain(const std::string& domain) const;

 private:
  static std::string Key(const std::string& domain, const std::string& op_type);
  std::unordered_map<std::string, std::vector<KernelCreateInfo>> kernels_;
  std::vector<std::pair<std::string, size_t>> order_;
};

// Checks one def against a node; returns "" on a match or the reason it does not match.
std::string KernelDefMismatch(const KernelDef& def, const Node& node);

}  // namespace prism
