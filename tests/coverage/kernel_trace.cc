// libprism_kernel_trace.so: an LD_PRELOAD shim that records which kernel registration every node
// resolves to, so that check_type_coverage.py learns mechanically which unit test exercises which
// (op, opset, type). It interposes prism::KernelRegistry::Find (libprism_core.so exports it and
// calls it through the PLT), calls the real one, and for each match prints one line to stdout:
//   @@PRISM_KERNEL<TAB>cpu|other<TAB>op<TAB>domain<TAB>node
//   opset<TAB>since<TAB>end<TAB>T=tensor(float);T1=...
// gtest prints "[ RUN      ] Suite.Test" to the same stdout stream, so each record follows the
// line of the test that made it. A line "@@PRISM_KERNEL_TRACE_ERROR<TAB>why" reports a broken shim.
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "framework/kernel_registry.h"
#include "graph/node.h"
#include "providers/cpu/cpu_execution_provider.h"

namespace prism {
namespace {

using FindFn = const KernelCreateInfo* (*)(const KernelRegistry*, const Node&, std::string*);

// The mangled name of KernelRegistry::Find as this shim defines it (so it follows any change of
// the declaration): the Itanium ABI stores a non-virtual member function pointer as {address,
// this-adjustment}, and dladdr names the address.
std::string FindSymbolName() {
  const KernelCreateInfo* (KernelRegistry::*find)(const Node&, std::string*) const =
      &KernelRegistry::Find;
  void* address = nullptr;
  std::memcpy(&address, &find, sizeof(address));
  Dl_info info{};
  if (dladdr(address, &info) != 0 && info.dli_sname != nullptr) return info.dli_sname;
  return "";
}

// A member function is called like a free function taking `this` first.
FindFn RealFind() {
  static const FindFn real = [] {
    const std::string name = FindSymbolName();
    auto fn = name.empty() ? nullptr : reinterpret_cast<FindFn>(dlsym(RTLD_NEXT, name.c_str()));
    if (fn == nullptr) {
      const char* error = dlerror();
      std::fprintf(stdout, "@@PRISM_KERNEL_TRACE_ERROR\tcannot find the real '%s': %s\n",
                   name.c_str(), error ? error : "dladdr failed");
      std::fflush(stdout);
    }
    return fn;
  }();
  return real;
}

const NodeArg* BoundArg(const std::vector<NodeArg*>& args, int index) {
  if (index >= 0) return static_cast<size_t>(index) < args.size() ? args[index] : nullptr;
  for (size_t i = static_cast<size_t>(-1 - index); i < args.size(); ++i)  // kVariadicFrom(i)
    if (args[i] != nullptr) return args[i];
  return nullptr;
}

// The type a constraint took for this node: that of its first bound input (or output) that is
// present, else, for a constraint bound to nothing (If's V), the node's first output.
std::string ConstraintType(const TypeConstraint& constraint, const Node& node) {
  const NodeArg* arg = nullptr;
  for (int index : constraint.inputs)
    if (arg == nullptr) arg = BoundArg(node.Inputs(), index);
  for (int index : constraint.outputs)
    if (arg == nullptr) arg = BoundArg(node.Outputs(), index);
  if (arg == nullptr && constraint.inputs.empty() && constraint.outputs.empty())
    arg = BoundArg(node.Outputs(), 0);
  if (arg == nullptr || arg->type.kind == TypeKind::kUnknown) return "?";
  return arg->type.ToString();
}

}  // namespace

const KernelCreateInfo* KernelRegistry::Find(const Node& node, std::string* reason) const {
  const FindFn real = RealFind();
  if (real == nullptr) {
    if (reason) *reason = "prism_kernel_trace: the real KernelRegistry::Find was not found";
    return nullptr;
  }
  const KernelCreateInfo* info = real(this, node, reason);
  if (info != nullptr) {
    // Plugin EPs (the test EP) have registries of their own: only the CPU one is tagged "cpu".
    const bool cpu = this == CpuExecutionProvider::SharedRegistry().get();
    std::string line = std::string("@@PRISM_KERNEL\t") + (cpu ? "cpu" : "other") + "\t" +
                       node.OpType() + "\t" + node.Domain() + "\t" +
                       std::to_string(node.OpsetVersion()) + "\t" +
                       std::to_string(info->def.since_version) + "\t" +
                       std::to_string(info->def.end_version) + "\t";
    for (size_t i = 0; i < info->def.constraints.size(); ++i) {
      const TypeConstraint& constraint = info->def.constraints[i];
      line += (i ? ";" : "") + constraint.name + "=" + ConstraintType(constraint, node);
    }
    line += "\n";
    std::fputs(line.c_str(), stdout);  // one call: lines from concurrent runs stay whole
  }
  return info;
}

}  // namespace prism
