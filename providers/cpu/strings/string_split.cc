// StringSplit (opset 20): splits each element of X into substrings. Y has X's shape plus a last
// axis as long as the longest split, shorter splits padded with ""; Z holds each element's count.
//
// The semantics are Python's str.split (the ONNX reference implementation's, which produced the
// node tests' data):
// - with a delimiter, every occurrence splits, so "" gives [""] and "a,,b" gives [a, "", b];
// - with no delimiter (or ""), runs of whitespace split and leading whitespace is dropped, so
//   "" and "  " give []; whitespace is Python's (ASCII \t\n\v\f\r, \x1c-\x1f and space, and the
//   Unicode spaces U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
//   U+3000, matched in UTF-8); once maxsplit splits are made the rest of the string, from its
//   next non-space character, is the last substring as it is (trailing whitespace kept);
// - maxsplit < 0, or absent, means no limit.
// onnxruntime differs on three corners: only ' ' is whitespace, a remainder after maxsplit is
// right-trimmed, and "" split on a delimiter gives no substring.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

// Byte length of the whitespace character at s[i], or 0 when it is not whitespace.
size_t WhitespaceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<uint8_t>(s[i + k]) : 0; };
  const uint8_t b0 = byte(0);
  if (b0 == ' ' || (b0 >= 0x09 && b0 <= 0x0d) || (b0 >= 0x1c && b0 <= 0x1f)) return 1;
  if (b0 == 0xc2) return byte(1) == 0x85 || byte(1) == 0xa0 ? 2 : 0;  // U+0085, U+00A0
  if (b0 == 0xe1) return byte(1) == 0x9a && byte(2) == 0x80 ? 3 : 0;  // U+1680
  if (b0 == 0xe2 && byte(1) == 0x80) {
    const uint8_t b2 = byte(2);  // U+2000-U+200A, U+2028, U+2029, U+202F
    return (b2 >= 0x80 && b2 <= 0x8a) || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf ? 3 : 0;
  }
  if (b0 == 0xe2) return byte(1) == 0x81 && byte(2) == 0x9f ? 3 : 0;  // U+205F
  if (b0 == 0xe3) return byte(1) == 0x80 && byte(2) == 0x80 ? 3 : 0;  // U+3000
  return 0;
}

size_t SkipWhitespace(std::string_view s, size_t i) {
  while (i < s.size()) {
    const size_t length = WhitespaceLength(s, i);
    if (length == 0) break;
    i += length;
  }
  return i;
}

// Continuation bytes of UTF-8 (0x80-0xbf) never start a whitespace match, so stepping one byte
// at a time through other characters is safe.
size_t SkipNonWhitespace(std::string_view s, size_t i) {
  while (i < s.size() && WhitespaceLength(s, i) == 0) ++i;
  return i;
}

std::vector<std::string_view> SplitOnWhitespace(std::string_view s, int64_t maxsplit) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  for (int64_t splits = 0; maxsplit < 0 || splits < maxsplit; ++splits) {
    i = SkipWhitespace(s, i);
    if (i == s.size()) return parts;
    const size_t begin = i;
    i = SkipNonWhitespace(s, i);
    parts.push_back(s.substr(begin, i - begin));
  }
  i = SkipWhitespace(s, i);
  if (i < s.size()) parts.push_back(s.substr(i));
  return parts;
}

std::vector<std::string_view> SplitOnDelimiter(std::string_view s, std::string_view delimiter,
                                               int64_t maxsplit) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (int64_t splits = 0; maxsplit < 0 || splits < maxsplit; ++splits) {
    const size_t found = s.find(delimiter, begin);
    if (found == std::string_view::npos) break;
    parts.push_back(s.substr(begin, found - begin));
    begin = found + delimiter.size();
  }
  parts.push_back(s.substr(begin));
  return parts;
}

class StringSplit final : public OpKernel {
 public:
  explicit StringSplit(const OpKernelInfo& info)
      : OpKernel(info),
        delimiter_(info.StringOr("delimiter", "")),
        maxsplit_(info.IntOr("maxsplit", -1)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const std::string* in = x.Data<std::string>();
    const int64_t count = x.NumElements();
    std::vector<std::vector<std::string_view>> parts(static_cast<size_t>(count));
    int64_t longest = 0;
    for (int64_t i = 0; i < count; ++i) {
      parts[i] = delimiter_.empty() ? SplitOnWhitespace(in[i], maxsplit_)
                                    : SplitOnDelimiter(in[i], delimiter_, maxsplit_);
      longest = std::max(longest, static_cast<int64_t>(parts[i].size()));
    }
    std::vector<int64_t> dims = x.Shape().Dims();
    dims.push_back(longest);
    Tensor& y = context.Output(0, TensorShape(dims), ElementType::kString);
    std::string* out = y.MutableData<std::string>();
    for (int64_t i = 0; i < count; ++i)
      for (size_t k = 0; k < parts[i].size(); ++k) out[i * longest + k] = std::string(parts[i][k]);
    if (context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      int64_t* out_counts =
          context.Output(1, x.Shape(), ElementType::kInt64).MutableData<int64_t>();
      for (int64_t i = 0; i < count; ++i) out_counts[i] = static_cast<int64_t>(parts[i].size());
    }
  }

 private:
  std::string delimiter_;
  int64_t maxsplit_;
};

void RegisterStringSplitKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("StringSplit")
                        .Versions(20)
                        .Constraint("T1", {ElementType::kString}, {0})
                        .Constraint("T2", {ElementType::kString}, {}, {0})
                        .Constraint("T3", {ElementType::kInt64}, {}, {1})
                        .Build(),
                    MakeKernelFactory<StringSplit>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(strings_split, RegisterStringSplitKernels);

}  // namespace prism::cpu
