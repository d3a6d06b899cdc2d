#include "providers/cuda/cuda_provider_options.h"

#include <charconv>
#include <limits>

#include "common/status.h"

namespace prism::cuda {
namespace {

constexpr const char* kName = "CUDAExecutionProvider";

uint64_t ParseUnsigned(const std::string& key, const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  PRISM_ENFORCE(!text.empty() && error == std::errc() && stop == end, kInvalidArgument, kName,
                ": provider option '", key, "' must be a non-negative integer, got '", text, "'");
  return value;
}

bool ParseBool(const std::string& key, const std::string& text) {
  if (text == "1" || text == "true" || text == "True") return true;
  if (text == "0" || text == "false" || text == "False") return false;
  PRISM_THROW(kInvalidArgument, kName, ": provider option '", key,
              "' must be 1/0 or true/false, got '", text, "'");
}

}  // namespace

CudaProviderOptions ParseCudaProviderOptions(const ProviderOptions& options) {
  CudaProviderOptions parsed;
  for (const auto& [key, value] : options) {
    if (key == "device_id") {
      const uint64_t id = ParseUnsigned(key, value);
      PRISM_ENFORCE(id <= 1024, kInvalidArgument, kName, ": device_id '", value,
                    "' is not a device index");
      parsed.device_id = static_cast<int>(id);
    } else if (key == "gpu_mem_limit") {
      const uint64_t limit = ParseUnsigned(key, value);
      parsed.gpu_mem_limit =
          limit >= std::numeric_limits<size_t>::max() ? 0 : static_cast<size_t>(limit);
    } else if (key == "arena_extend_strategy") {
      if (value == "kNextPowerOfTwo" || value == "0")
        parsed.arena_extend_strategy = ArenaExtendStrategy::kNextPowerOfTwo;
      else if (value == "kSameAsRequested" || value == "1")
        parsed.arena_extend_strategy = ArenaExtendStrategy::kSameAsRequested;
      else
        PRISM_THROW(kInvalidArgument, kName,
                    ": arena_extend_strategy must be kNextPowerOfTwo or kSameAsRequested, got '",
                    value, "'");
    } else if (key == "do_copy_in_default_stream") {
      parsed.do_copy_in_default_stream = ParseBool(key, value);
    } else if (key == "use_tf32") {
      parsed.use_tf32 = ParseBool(key, value);
    } else if (key == "cudnn_conv_algo_search") {
      PRISM_ENFORCE(value == "EXHAUSTIVE" || value == "HEURISTIC" || value == "DEFAULT",
                    kInvalidArgument, kName,
                    ": cudnn_conv_algo_search must be EXHAUSTIVE, HEURISTIC or DEFAULT, got '",
                    value, "'");
      parsed.cudnn_conv_algo_search = value;
    } else if (key == "cudnn_conv_use_max_workspace") {
      parsed.cudnn_conv_use_max_workspace = ParseBool(key, value);
    } else if (key == "enable_cuda_graph") {
      parsed.enable_cuda_graph = ParseBool(key, value);
    } else if (key == "prefer_nhwc" || key == "use_ep_level_unified_stream" ||
               key == "has_user_compute_stream" || key == "user_compute_stream" ||
               key == "gpu_external_alloc" || key == "gpu_external_free" ||
               key == "gpu_external_empty_cache" || key == "tunable_op_enable" ||
               key == "tunable_op_tuning_enable" || key == "tunable_op_max_tuning_duration_ms" ||
               key == "sdpa_kernel" || key == "enable_skip_layer_norm_strict_mode" ||
               key == "cudnn_conv1d_pad_to_nc1d" || key == "fuse_conv_bias") {
      // Known to onnxruntime, not implemented by this EP: accepting it would drop it silently.
      // The default ("0") changes nothing and is accepted.
      PRISM_ENFORCE(value == "0" || value == "false" || value == "False", kInvalidArgument, kName,
                    ": provider option '", key,
                    "' is not supported by Prism's CUDA EP yet (only "
                    "its default 0 is accepted), got '",
                    value, "'");
    } else {
      PRISM_THROW(kInvalidArgument, kName, ": unknown provider option '", key,
                  "'; known: device_id, gpu_mem_limit, arena_extend_strategy, "
                  "do_copy_in_default_stream, use_tf32, cudnn_conv_algo_search, "
                  "cudnn_conv_use_max_workspace, enable_cuda_graph");
    }
  }
  return parsed;
}

ProviderOptions CudaProviderOptions::ToMap() const {
  return {
      {"device_id", std::to_string(device_id)},
      {"gpu_mem_limit", gpu_mem_limit == 0 ? std::to_string(std::numeric_limits<size_t>::max())
                                           : std::to_string(gpu_mem_limit)},
      {"arena_extend_strategy", arena_extend_strategy == ArenaExtendStrategy::kNextPowerOfTwo
                                    ? "kNextPowerOfTwo"
                                    : "kSameAsRequested"},
      {"do_copy_in_default_stream", do_copy_in_default_stream ? "1" : "0"},
      {"use_tf32", use_tf32 ? "1" : "0"},
      {"cudnn_conv_algo_search", cudnn_conv_algo_search},
      {"cudnn_conv_use_max_workspace", cudnn_conv_use_max_workspace ? "1" : "0"},
      {"enable_cuda_graph", enable_cuda_graph ? "1" : "0"},
  };
}

}  // namespace prism::cuda
