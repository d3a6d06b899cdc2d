// RegexFullMatch (opset 20): Y[i] = whether X[i] matches `pattern` as a whole, in RE2 syntax (as
// the spec says; Debian's libre2). Patterns and inputs are UTF-8. The pattern is compiled once,
// when the kernel is created; an invalid one is refused there, naming the node, the pattern and
// RE2's reason. A compiled RE2 is safe to match from several threads at once.
#include <re2/re2.h>

#include <memory>
#include <string>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

std::unique_ptr<RE2> CompilePattern(const OpKernelInfo& info) {
  const Node& node = info.GetNode();
  PRISM_ENFORCE(info.HasAttr("pattern"), kInvalidArgument, node.Describe(),
                ": attribute 'pattern' is required (the RE2 regex to match)");
  const std::string pattern = info.String("pattern");
  RE2::Options options;  // UTF-8, case sensitive: RE2's defaults
  options.set_log_errors(false);
  auto regex = std::make_unique<RE2>(pattern, options);
  PRISM_ENFORCE(regex->ok(), kInvalidArgument, node.Describe(), ": pattern '", pattern,
                "' is not a valid RE2 regex: ", regex->error());
  return regex;
}

class RegexFullMatch final : public OpKernel {
 public:
  explicit RegexFullMatch(const OpKernelInfo& info)
      : OpKernel(info), regex_(CompilePattern(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& y = context.Output(0, x.Shape(), ElementType::kBool);
    const std::string* in = x.Data<std::string>();
    bool* out = y.MutableData<bool>();
    for (int64_t i = 0; i < x.NumElements(); ++i) out[i] = RE2::FullMatch(in[i], *regex_);
  }

 private:
  std::unique_ptr<RE2> regex_;
};

void RegisterRegexFullMatchKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("RegexFullMatch")
                        .Versions(20)
                        .Constraint("T1", {ElementType::kString}, {0})
                        .Constraint("T2", {ElementType::kBool}, {}, {0})
                        .Build(),
                    MakeKernelFactory<RegexFullMatch>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(strings_regex_full_match, RegisterRegexFullMatchKernels);

}  // namespace prism::cpu
