// onnxruntime's typed CUDA provider options (OrtCUDAProviderOptionsV2): an object the
// application fills by key, checked as each value is set, then appended to a session's providers
// as "CUDAExecutionProvider" with those options. The CUDA EP reads the same keys; a machine
// without it logs and skips it as for any unavailable EP.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <memory>
#include <string>

#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

namespace {

enum class OptionKind { kUnsigned, kBool, kArenaStrategy, kConvAlgoSearch, kAddress };

// onnxruntime's CUDA EP keys and the values each takes.
const std::map<std::string, OptionKind>& KnownOptions() {
  static const std::map<std::string, OptionKind> known = {
      {"device_id", OptionKind::kUnsigned},
      {"gpu_mem_limit", OptionKind::kUnsigned},
      {"arena_extend_strategy", OptionKind::kArenaStrategy},
      {"cudnn_conv_algo_search", OptionKind::kConvAlgoSearch},
      {"do_copy_in_default_stream", OptionKind::kBool},
      {"cudnn_conv_use_max_workspace", OptionKind::kBool},
      {"cudnn_conv1d_pad_to_nc1d", OptionKind::kBool},
      {"enable_cuda_graph", OptionKind::kBool},
      {"enable_skip_layer_norm_strict_mode", OptionKind::kBool},
      {"use_tf32", OptionKind::kBool},
      {"prefer_nhwc", OptionKind::kBool},
      {"use_ep_level_unified_stream", OptionKind::kBool},
      {"fuse_conv_bias", OptionKind::kBool},
      {"tunable_op_enable", OptionKind::kBool},
      {"tunable_op_tuning_enable", OptionKind::kBool},
      {"tunable_op_max_tuning_duration_ms", OptionKind::kUnsigned},
      {"sdpa_kernel", OptionKind::kUnsigned},
      {"has_user_compute_stream", OptionKind::kBool},
      {"user_compute_stream", OptionKind::kAddress},
      {"gpu_external_alloc", OptionKind::kAddress},
      {"gpu_external_free", OptionKind::kAddress},
      {"gpu_external_empty_cache", OptionKind::kAddress},
  };
  return known;
}

// The defaults onnxruntime documents, shown by GetCUDAProviderOptionsAsString for unset keys.
const std::map<std::string, std::string>& Defaults() {
  static const std::map<std::string, std::string> defaults = {
      {"device_id", "0"},
      {"gpu_mem_limit", "18446744073709551615"},
      {"arena_extend_strategy", "kNextPowerOfTwo"},
      {"cudnn_conv_algo_search", "EXHAUSTIVE"},
      {"do_copy_in_default_stream", "1"},
      {"cudnn_conv_use_max_workspace", "1"},
      {"cudnn_conv1d_pad_to_nc1d", "0"},
      {"enable_cuda_graph", "0"},
      {"enable_skip_layer_norm_strict_mode", "0"},
      {"use_tf32", "1"},
      {"prefer_nhwc", "0"},
      {"use_ep_level_unified_stream", "0"},
      {"fuse_conv_bias", "0"},
      {"tunable_op_enable", "0"},
      {"tunable_op_tuning_enable", "0"},
      {"tunable_op_max_tuning_duration_ms", "0"},
      {"sdpa_kernel", "0"},
      {"has_user_compute_stream", "0"},
  };
  return defaults;
}

bool ParseUnsigned(const std::string& text, uint64_t* value) {
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, *value);
  return !text.empty() && error == std::errc() && stop == end;
}

// The value as the CUDA EP reads it (booleans as "1"/"0"), or an error naming key and value.
std::string CheckedValue(const std::string& key, const std::string& value) {
  auto known = KnownOptions().find(key);
  if (known == KnownOptions().end()) {
    std::string names;
    for (const auto& [name, kind] : KnownOptions()) names += (names.empty() ? "" : ", ") + name;
    PRISM_THROW(kInvalidArgument, "unknown CUDA provider option '", key, "'; known: ", names);
  }
  uint64_t number = 0;
  switch (known->second) {
    case OptionKind::kUnsigned:
    case OptionKind::kAddress:
      PRISM_ENFORCE(ParseUnsigned(value, &number), kInvalidArgument, "CUDA provider option '", key,
                    "' must be a non-negative integer, got '", value, "'");
      if (key == "device_id")
        PRISM_ENFORCE(number <= 1024, kInvalidArgument,
                      "CUDA provider option 'device_id' must be a device index, got '", value, "'");
      return std::to_string(number);
    case OptionKind::kBool: {
      std::string lower = value;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == "1" || lower == "true") return "1";
      if (lower == "0" || lower == "false") return "0";
      PRISM_THROW(kInvalidArgument, "CUDA provider option '", key,
                  "' must be 1/0 or true/false, got '", value, "'");
    }
    case OptionKind::kArenaStrategy:
      PRISM_ENFORCE(value == "kNextPowerOfTwo" || value == "kSameAsRequested", kInvalidArgument,
                    "CUDA provider option 'arena_extend_strategy' must be kNextPowerOfTwo or "
                    "kSameAsRequested, got '",
                    value, "'");
      return value;
    case OptionKind::kConvAlgoSearch:
      PRISM_ENFORCE(value == "EXHAUSTIVE" || value == "HEURISTIC" || value == "DEFAULT",
                    kInvalidArgument,
                    "CUDA provider option 'cudnn_conv_algo_search' must be EXHAUSTIVE, HEURISTIC "
                    "or DEFAULT, got '",
                    value, "'");
      return value;
  }
  return value;
}

}  // namespace

PrismStatus* CreateCUDAProviderOptions(PrismCUDAProviderOptions** out) noexcept {
  return Guard(__func__, [&] {
    PrismCUDAProviderOptions** target = Require(out, "out");
    *target = new PrismCUDAProviderOptions();
  });
}

PrismStatus* UpdateCUDAProviderOptions(PrismCUDAProviderOptions* options, const char* const* keys,
                                       const char* const* values, size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    if (count > 0) {
      Require(keys, "keys");
      Require(values, "values");
    }
    // All or nothing: a bad pair leaves the options as they were.
    std::map<std::string, std::string> updated = options->options;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(keys[i] != nullptr && values[i] != nullptr, kInvalidArgument,
                    "CUDA provider option ", i, " has a NULL ",
                    keys[i] == nullptr ? "key" : "value");
      updated[keys[i]] = CheckedValue(keys[i], values[i]);
    }
    options->options = std::move(updated);
  });
}

PrismStatus* GetCUDAProviderOptionsAsString(const PrismCUDAProviderOptions* options,
                                            char** out) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(out, "out");
    std::map<std::string, std::string> shown = Defaults();
    for (const auto& [key, value] : options->options) shown[key] = value;
    std::string text;
    for (const auto& [key, value] : shown) text += key + "=" + value + ";";
    *out = CopyToCString(text);
  });
}

void ReleaseCUDAProviderOptions(PrismCUDAProviderOptions* options) noexcept {
  delete options;
}

PrismStatus* SessionOptionsAppendExecutionProvider_CUDA_V2(
    PrismSessionOptions* options, const PrismCUDAProviderOptions* cuda_options) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(cuda_options, "cuda_options");
    options->providers.push_back(ProviderSpec{"CUDAExecutionProvider", cuda_options->options});
  });
}

}  // namespace prism::capi
