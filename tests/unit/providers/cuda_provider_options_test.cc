// The CUDA EP's provider options (providers/cuda/cuda_provider_options.cc, no CUDA needed):
// onnxruntime's keys parsed, unknown keys and malformed values refused naming them, options the
// EP does not implement refused unless left at their default.
#include <gtest/gtest.h>

#include "common/status.h"
#include "providers/cuda/cuda_provider_options.h"

namespace prism::cuda {
namespace {

std::string ErrorOf(const ProviderOptions& options) {
  try {
    ParseCudaProviderOptions(options);
  } catch (const Exception& error) {
    return error.what();
  }
  return "";
}

TEST(CudaProviderOptionsTest, ParsesOnnxruntimeKeys) {
  const CudaProviderOptions parsed = ParseCudaProviderOptions({
      {"device_id", "1"},
      {"gpu_mem_limit", "2147483648"},
      {"arena_extend_strategy", "kSameAsRequested"},
      {"do_copy_in_default_stream", "false"},
      {"use_tf32", "1"},
      {"cudnn_conv_algo_search", "HEURISTIC"},
      {"enable_cuda_graph", "1"},
  });
  EXPECT_EQ(parsed.device_id, 1);
  EXPECT_EQ(parsed.gpu_mem_limit, size_t{2147483648});
  EXPECT_EQ(parsed.arena_extend_strategy, ArenaExtendStrategy::kSameAsRequested);
  EXPECT_FALSE(parsed.do_copy_in_default_stream);
  EXPECT_TRUE(parsed.use_tf32);
  EXPECT_EQ(parsed.cudnn_conv_algo_search, "HEURISTIC");
  EXPECT_TRUE(parsed.enable_cuda_graph);
  const ProviderOptions shown = parsed.ToMap();
  EXPECT_EQ(shown.at("device_id"), "1");
  EXPECT_EQ(shown.at("gpu_mem_limit"), "2147483648");
  EXPECT_EQ(shown.at("arena_extend_strategy"), "kSameAsRequested");
  EXPECT_EQ(shown.at("do_copy_in_default_stream"), "0");
  EXPECT_EQ(shown.at("enable_cuda_graph"), "1");
  // Defaults: no limit (onnxruntime shows SIZE_MAX), copies on the default stream, no TF32.
  const ProviderOptions defaults = ParseCudaProviderOptions({}).ToMap();
  EXPECT_EQ(defaults.at("gpu_mem_limit"), "18446744073709551615");
  EXPECT_EQ(defaults.at("do_copy_in_default_stream"), "1");
  EXPECT_EQ(defaults.at("use_tf32"), "0");
  EXPECT_EQ(defaults.at("enable_cuda_graph"), "0");
  EXPECT_EQ(ParseCudaProviderOptions({{"gpu_mem_limit", "18446744073709551615"}}).gpu_mem_limit,
            0u);
}

TEST(CudaProviderOptionsTest, RefusesWhatItCannotHonour) {
  EXPECT_NE(ErrorOf({{"gpu_memory_limit", "1"}}).find("unknown provider option 'gpu_memory_limit'"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"device_id", "-1"}}).find("'device_id' must be a non-negative integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"gpu_mem_limit", "2GB"}}).find("got '2GB'"), std::string::npos);
  EXPECT_NE(ErrorOf({{"arena_extend_strategy", "kDouble"}}).find("kNextPowerOfTwo"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"use_tf32", "maybe"}}).find("1/0 or true/false"), std::string::npos);
  EXPECT_NE(ErrorOf({{"cudnn_conv_algo_search", "FAST"}}).find("EXHAUSTIVE, HEURISTIC or DEFAULT"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"tunable_op_enable", "1"}}).find("not supported by Prism's CUDA EP yet"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"enable_cuda_graph", "yes"}}).find("1/0 or true/false"), std::string::npos);
  EXPECT_NE(ErrorOf({{"prefer_nhwc", "1"}}).find("not supported"), std::string::npos);
}

}  // namespace
}  // namespace prism::cuda
