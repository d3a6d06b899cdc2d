// StringNormalizer (opset 10): drops the stopwords from X ([C] or [1, C]) and then lower- or
// upper-cases what is left (case_change_action LOWER, UPPER or NONE). When everything is
// dropped, Y is [""] of shape [1] (or [1, 1] for a [1, C] input), as the spec says; an empty X
// is "everything dropped" too.
//
// Case changes are onnxruntime's on Linux: each Unicode code point is mapped on its own by the C
// library's towlower_l/towupper_l in the node's locale (strings are decoded from UTF-8 first).
// An element that is not valid UTF-8 is refused where its case must be changed or compared, and
// passed through unchanged otherwise (onnxruntime 1.31 refuses it always). Without
// is_case_sensitive, a word is a stopword when it equals one after both are lower-cased, whatever
// case_change_action is (as onnxruntime 1.31 compares them).
//
// The locale is any the system has installed (`locale -a`), as in onnxruntime. The default is
// en_US.UTF-8; where that is not installed (slim containers), C.UTF-8 stands in for it and for
// the locale names en_US.UTF-8 and en_US.utf8: glibc builds both from the same Unicode case
// tables (i18n_ctype), so the results are the same. Any other locale that is not installed is
// refused by name when the session is created.
#include <locale.h>
#include <wctype.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

enum class CaseAction { kNone, kLower, kUpper };

constexpr const char* kDefaultLocale = "en_US.UTF-8";
constexpr const char* kStandInLocale = "C.UTF-8";

// Owns a C library locale handle; using it read-only from several threads is safe.
class CaseLocale {
 public:
  explicit CaseLocale(locale_t handle) : handle_(handle) {}
  ~CaseLocale() { freelocale(handle_); }
  CaseLocale(const CaseLocale&) = delete;
  CaseLocale& operator=(const CaseLocale&) = delete;
  locale_t Handle() const { return handle_; }

 private:
  locale_t handle_;
};

std::unique_ptr<CaseLocale> OpenLocale(const std::string& name, const Node& node) {
  locale_t handle = newlocale(LC_CTYPE_MASK, name.c_str(), static_cast<locale_t>(nullptr));
  if (handle == static_cast<locale_t>(nullptr) && (name == kDefaultLocale || name == "en_US.utf8"))
    handle = newlocale(LC_CTYPE_MASK, kStandInLocale, static_cast<locale_t>(nullptr));
  PRISM_ENFORCE(handle != static_cast<locale_t>(nullptr), kInvalidArgument, node.Describe(),
                ": locale '", name,
                "' is not installed on this system (see `locale -a`); install it, or use the "
                "default (en_US.UTF-8) or C.UTF-8");
  return std::make_unique<CaseLocale>(handle);
}

CaseAction ParseCaseAction(const std::string& action, const Node& node) {
  if (action == "NONE") return CaseAction::kNone;
  if (action == "LOWER") return CaseAction::kLower;
  if (action == "UPPER") return CaseAction::kUpper;
  PRISM_THROW(kInvalidArgument, node.Describe(),
              ": case_change_action must be LOWER, UPPER or NONE, got '", action, "'");
}

// Decodes strict UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
std::optional<std::u32string> DecodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<uint8_t>(s[i]);
    size_t length = 0;
    char32_t code = 0, minimum = 0;
    if (b0 < 0x80) {
      length = 1, code = b0;
    } else if ((b0 & 0xe0) == 0xc0) {
      length = 2, code = b0 & 0x1f, minimum = 0x80;
    } else if ((b0 & 0xf0) == 0xe0) {
      length = 3, code = b0 & 0x0f, minimum = 0x800;
    } else if ((b0 & 0xf8) == 0xf0) {
      length = 4, code = b0 & 0x07, minimum = 0x10000;
    } else {
      return std::nullopt;
    }
    if (i + length > s.size()) return std::nullopt;
    for (size_t k = 1; k < length; ++k) {
      const auto b = static_cast<uint8_t>(s[i + k]);
      if ((b & 0xc0) != 0x80) return std::nullopt;
      code = (code << 6) | (b & 0x3f);
    }
    if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      return std::nullopt;
    out.push_back(code);
    i += length;
  }
  return out;
}

void AppendUtf8(char32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

class StringNormalizer final : public OpKernel {
 public:
  explicit StringNormalizer(const OpKernelInfo& info)
      : OpKernel(info),
        action_(ParseCaseAction(info.StringOr("case_change_action", "NONE"), info.GetNode())),
        case_sensitive_(info.IntOr("is_case_sensitive", 0) != 0),
        compare_action_(case_sensitive_ ? CaseAction::kNone : CaseAction::kLower),
        locale_(OpenLocale(info.StringOr("locale", kDefaultLocale), info.GetNode())) {
    const std::vector<std::string> stopwords =
        info.HasAttr("stopwords") ? info.Strings("stopwords") : std::vector<std::string>{};
    for (size_t i = 0; i < stopwords.size(); ++i)
      stopwords_.insert(ChangeCase(stopwords[i], compare_action_, "stopwords", i));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() == 1 || (shape.Rank() == 2 && shape[0] == 1), kInvalidArgument,
                  node.Describe(), ": input X must be [C] or [1, C], got ", x.Describe());
    const std::string* in = x.Data<std::string>();
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (!stopwords_.empty()) {
        std::string key = ChangeCase(in[i], compare_action_, "X", static_cast<size_t>(i));
        if (stopwords_.count(key)) continue;
        // A lower-cased key is already the output of LOWER.
        if (compare_action_ == action_) {
          kept.push_back(std::move(key));
          continue;
        }
      }
      kept.push_back(ChangeCase(in[i], action_, "X", static_cast<size_t>(i)));
    }
    const bool all_dropped = kept.empty();
    if (all_dropped) kept.emplace_back();
    const int64_t columns = static_cast<int64_t>(kept.size());
    const TensorShape out_shape =
        shape.Rank() == 1 ? TensorShape({columns}) : TensorShape({1, columns});
    std::string* out =
        context.Output(0, out_shape, ElementType::kString).MutableData<std::string>();
    for (size_t i = 0; i < kept.size(); ++i) out[i] = std::move(kept[i]);
  }

 private:
  // `what` and `index` name the element in the error for text that is not UTF-8 (the text itself
  // is left out of the message, as it may be private data).
  std::string ChangeCase(const std::string& text, CaseAction action, const char* what,
                         size_t index) const {
    if (action == CaseAction::kNone) return text;
    const std::optional<std::u32string> codes = DecodeUtf8(text);
    PRISM_ENFORCE(codes.has_value(), kInvalidArgument, GetNode().Describe(), ": ", what,
                  " element ", index, " is not valid UTF-8, so its case cannot be changed");
    std::string out;
    out.reserve(text.size());
    for (const char32_t code : *codes) {
      const auto wide = static_cast<wint_t>(code);
      const wint_t mapped = action == CaseAction::kLower ? towlower_l(wide, locale_->Handle())
                                                         : towupper_l(wide, locale_->Handle());
      AppendUtf8(static_cast<char32_t>(mapped), out);
    }
    return out;
  }

  CaseAction action_;
  bool case_sensitive_;
  CaseAction compare_action_;  // applied to words and stopwords before comparing them
  std::unique_ptr<CaseLocale> locale_;
  std::unordered_set<std::string> stopwords_;
};

void RegisterStringNormalizerKernels(KernelRegistry& registry) {
  // X and Y are tensor(string) in the spec, with no type constraint to name.
  registry.Register(KernelDefBuilder("StringNormalizer").Versions(10).Build(),
                    MakeKernelFactory<StringNormalizer>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(strings_normalizer, RegisterStringNormalizerKernels);

}  // namespace prism::cpu
