// Prism C++ API: a header-only C++17 wrapper over the stable C ABI of libprism.so
// (prism_c_api.h). It adds RAII ownership and exceptions and nothing else: every call goes
// through the PrismApi table, so a program built against this header runs with any libprism.so
// that provides PRISM_API_VERSION.
//
// Ownership: each owning class (Env, SessionOptions, Session, RunOptions, Value, MemoryInfo,
// Allocator, IoBinding, TypeInfo, TensorTypeAndShapeInfo, ModelMetadata, CustomOpDomain) is
// move-only and releases its handle in its destructor. Const* classes (ConstMemoryInfo,
// ConstTensorTypeAndShapeInfo), AllocatorWithDefaultOptions and the custom op kernel views
// (KernelInfo, KernelContext, KernelValue) borrow a handle owned elsewhere and must not outlive
// its owner. Every failing call throws prism::Exception carrying the C status's code and message.
// Custom operators: CustomOpBase turns a C++ op into a PrismCustomOp (see below).
#ifndef PRISM_CXX_API_H_
#define PRISM_CXX_API_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "prism_c_api.h"

namespace prism {
// The inline namespace gives the wrapper's classes their own mangled names: libprism_core.so
// (loaded by libprism.so) exports internal C++ classes such as prism::Value, and a program's
// inline prism::Value members must never interpose on them. Custom op libraries that define
// PRISM_API_MANUAL_INIT (they get the table from RegisterCustomOps and need not link libprism.so)
// use a namespace of their own, so their copies never mix with the program's.
#ifdef PRISM_API_MANUAL_INIT
inline namespace cxx_manual_init {
#else
inline namespace cxx {
#endif

// Thrown for every error status of the C API.
class Exception : public std::runtime_error {
 public:
  Exception(PrismErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  PrismErrorCode Code() const noexcept { return code_; }

 private:
  PrismErrorCode code_;
};

namespace detail {

#ifdef PRISM_API_MANUAL_INIT
inline const PrismApi*& ApiSlot() {
  static const PrismApi* api = nullptr;
  return api;
}
// The table InitApi was given. Throws when it was not called.
inline const PrismApi& Api() {
  if (ApiSlot() == nullptr)
    throw Exception(PRISM_FAIL,
                    "prism::InitApi was not called (PRISM_API_MANUAL_INIT): call it "
                    "in RegisterCustomOps with api_base->GetApi(PRISM_API_VERSION)");
  return *ApiSlot();
}
#else
// The function table, fetched once. Throws when the loaded libprism.so is too old.
inline const PrismApi& Api() {
  static const PrismApi* const api = [] {
    const PrismApiBase* base = PrismGetApiBase();
    const PrismApi* table = base != nullptr ? base->GetApi(PRISM_API_VERSION) : nullptr;
    if (table == nullptr)
      throw Exception(PRISM_FAIL, std::string("libprism ") +
                                      (base != nullptr ? base->GetVersionString() : "?") +
                                      " does not provide C API version " +
                                      std::to_string(PRISM_API_VERSION));
    return table;
  }();
  return *api;
}
#endif

// Converts an error status into an exception (and frees the status).
inline void ThrowOnError(PrismStatus* status) {
  if (status == nullptr) return;
  const PrismErrorCode code = Api().GetErrorCode(status);
  std::string message = Api().GetErrorMessage(status);
  Api().ReleaseStatus(status);
  throw Exception(code, message);
}

inline void Release(PrismEnv* p) {
  Api().ReleaseEnv(p);
}
inline void Release(PrismSessionOptions* p) {
  Api().ReleaseSessionOptions(p);
}
inline void Release(PrismSession* p) {
  Api().ReleaseSession(p);
}
inline void Release(PrismRunOptions* p) {
  Api().ReleaseRunOptions(p);
}
inline void Release(PrismValue* p) {
  Api().ReleaseValue(p);
}
inline void Release(PrismMemoryInfo* p) {
  Api().ReleaseMemoryInfo(p);
}
inline void Release(PrismAllocator* p) {
  Api().ReleaseAllocator(p);
}
inline void Release(PrismIoBinding* p) {
  Api().ReleaseIoBinding(p);
}
inline void Release(PrismTypeInfo* p) {
  Api().ReleaseTypeInfo(p);
}
inline void Release(PrismTensorTypeAndShapeInfo* p) {
  Api().ReleaseTensorTypeAndShapeInfo(p);
}
inline void Release(PrismModelMetadata* p) {
  Api().ReleaseModelMetadata(p);
}
inline void Release(PrismCustomOpDomain* p) {
  Api().ReleaseCustomOpDomain(p);
}
inline void Release(PrismCUDAProviderOptions* p) {
  Api().ReleaseCUDAProviderOptions(p);
}

// A move-only owner of one C handle.
template <typename T>
class Owner {
 public:
  Owner() = default;
  explicit Owner(T* handle) noexcept : handle_(handle) {}
  ~Owner() { Reset(); }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  Owner(Owner&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owner& operator=(Owner&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  T* get() const noexcept { return handle_; }
  // Gives up ownership: the caller releases the handle with the C API.
  T* release() noexcept { return std::exchange(handle_, nullptr); }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  void Reset() noexcept {
    if (handle_ != nullptr) Release(handle_);
    handle_ = nullptr;
  }
  T* handle_ = nullptr;
};

// Copies a library-owned string and releases it.
inline std::string TakeString(char* text) {
  std::string result;
  try {
    result = text;
  } catch (...) {
    Api().ReleaseString(text);
    throw;
  }
  Api().ReleaseString(text);
  return result;
}

// Copies a library-owned string array into strings and releases it.
inline std::vector<std::string> TakeStrings(char** texts, size_t count) {
  std::vector<std::string> result;
  try {
    result.reserve(count);
    for (size_t i = 0; i < count; ++i) result.emplace_back(texts[i]);
  } catch (...) {
    Api().ReleaseStringArray(texts, count);
    throw;
  }
  Api().ReleaseStringArray(texts, count);
  return result;
}

// Getters shared by MemoryInfo (owning) and ConstMemoryInfo (borrowed).
template <typename Derived>
class MemoryInfoGetters {
 public:
  std::string Name() const {
    const char* name = nullptr;
    ThrowOnError(Api().MemoryInfoGetName(Self(), &name));
    return name;
  }
  int DeviceId() const {
    int id = 0;
    ThrowOnError(Api().MemoryInfoGetId(Self(), &id));
    return id;
  }
  PrismMemType MemType() const {
    PrismMemType type = PRISM_MEM_DEFAULT;
    ThrowOnError(Api().MemoryInfoGetMemType(Self(), &type));
    return type;
  }
  PrismDeviceType DeviceType() const {
    PrismDeviceType type = PRISM_DEVICE_CPU;
    ThrowOnError(Api().MemoryInfoGetDeviceType(Self(), &type));
    return type;
  }

 private:
  const PrismMemoryInfo* Self() const { return static_cast<const Derived*>(this)->get(); }
};

// Getters shared by TensorTypeAndShapeInfo (owning) and ConstTensorTypeAndShapeInfo (borrowed).
template <typename Derived>
class TensorInfoGetters {
 public:
  PrismElementType ElementType() const {
    PrismElementType type = PRISM_TYPE_UNDEFINED;
    ThrowOnError(Api().TensorInfoGetElementType(Self(), &type));
    return type;
  }
  // -1 when the rank is unknown.
  int64_t Rank() const {
    int64_t rank = 0;
    ThrowOnError(Api().TensorInfoGetRank(Self(), &rank));
    return rank;
  }
  // -1 for symbolic or unknown dims; empty when the rank is unknown.
  std::vector<int64_t> Shape() const {
    const int64_t rank = Rank();
    if (rank < 0) return {};
    std::vector<int64_t> dims(static_cast<size_t>(rank));
    ThrowOnError(Api().TensorInfoGetDimensions(Self(), dims.data(), dims.size()));
    return dims;
  }
  // Each dim's symbolic name, "" when it has none; empty when the rank is unknown.
  std::vector<std::string> SymbolicShape() const {
    const int64_t rank = Rank();
    if (rank < 0) return {};
    std::vector<const char*> names(static_cast<size_t>(rank));
    ThrowOnError(Api().TensorInfoGetSymbolicDimensions(Self(), names.data(), names.size()));
    return std::vector<std::string>(names.begin(), names.end());
  }
  // -1 when any dim is not known.
  int64_t ElementCount() const {
    int64_t count = 0;
    ThrowOnError(Api().TensorInfoGetElementCount(Self(), &count));
    return count;
  }

 private:
  const PrismTensorTypeAndShapeInfo* Self() const {
    return static_cast<const Derived*>(this)->get();
  }
};

}  // namespace detail

// The element type of a C++ type, for the typed tensor helpers.
template <typename T>
struct ElementTypeOf;
template <>
struct ElementTypeOf<float> {
  static constexpr PrismElementType value = PRISM_TYPE_FLOAT;
};
template <>
struct ElementTypeOf<double> {
  static constexpr PrismElementType value = PRISM_TYPE_DOUBLE;
};
template <>
struct ElementTypeOf<int8_t> {
  static constexpr PrismElementType value = PRISM_TYPE_INT8;
};
template <>
struct ElementTypeOf<int16_t> {
  static constexpr PrismElementType value = PRISM_TYPE_INT16;
};
template <>
struct ElementTypeOf<int32_t> {
  static constexpr PrismElementType value = PRISM_TYPE_INT32;
};
template <>
struct ElementTypeOf<int64_t> {
  static constexpr PrismElementType value = PRISM_TYPE_INT64;
};
template <>
struct ElementTypeOf<uint8_t> {
  static constexpr PrismElementType value = PRISM_TYPE_UINT8;
};
template <>
struct ElementTypeOf<uint16_t> {
  static constexpr PrismElementType value = PRISM_TYPE_UINT16;
};
template <>
struct ElementTypeOf<uint32_t> {
  static constexpr PrismElementType value = PRISM_TYPE_UINT32;
};
template <>
struct ElementTypeOf<uint64_t> {
  static constexpr PrismElementType value = PRISM_TYPE_UINT64;
};
template <>
struct ElementTypeOf<bool> {
  static constexpr PrismElementType value = PRISM_TYPE_BOOL;
};

#ifdef PRISM_API_MANUAL_INIT
// Sets the table every call of this wrapper goes through (custom op libraries: in
// RegisterCustomOps, with api_base->GetApi(PRISM_API_VERSION)). Throws for NULL (a libprism.so
// older than this header).
inline void InitApi(const PrismApi* api) {
  if (api == nullptr)
    throw Exception(PRISM_FAIL,
                    "libprism does not provide C API version " + std::to_string(PRISM_API_VERSION));
  detail::ApiSlot() = api;
}
#else
// The library's version, e.g. "0.1.0".
inline std::string GetVersionString() {
  return PrismGetApiBase()->GetVersionString();
}
#endif

// Providers whose library loads and whose device exists, best first, CPU last.
inline std::vector<std::string> GetAvailableProviders() {
  char** names = nullptr;
  size_t count = 0;
  detail::ThrowOnError(detail::Api().GetAvailableProviders(&names, &count));
  return detail::TakeStrings(names, count);
}

// "Prism Build Info: version=..., build type=..., compiler=...".
inline std::string GetBuildInfoString() {
  return detail::Api().GetBuildInfoString();
}

// The seed of random ops without a seed attribute, for sessions created from now on
// (onnxruntime's set_seed).
inline void SetRandomSeed(int64_t seed) {
  detail::ThrowOnError(detail::Api().SetRandomSeed(seed));
}

class ConstMemoryInfo;
class Allocator;
class Value;

class Env : public detail::Owner<PrismEnv> {
 public:
  explicit Env(PrismLoggingLevel logging_level = PRISM_LOGGING_WARNING,
               const char* log_id = "prism") {
    PrismEnv* env = nullptr;
    detail::ThrowOnError(detail::Api().CreateEnv(logging_level, log_id, &env));
    *this = Env(env);
  }
  // Messages go to logging_function(logger_param, ...) instead of stderr while this env lives.
  Env(PrismLoggingFunction logging_function, void* logger_param,
      PrismLoggingLevel logging_level = PRISM_LOGGING_WARNING, const char* log_id = "prism") {
    PrismEnv* env = nullptr;
    detail::ThrowOnError(detail::Api().CreateEnvWithCustomLogger(logging_function, logger_param,
                                                                 logging_level, log_id, &env));
    *this = Env(env);
  }
  explicit Env(PrismEnv* owned) noexcept : Owner(owned) {}

  void SetLogSeverityLevel(PrismLoggingLevel level) {
    detail::ThrowOnError(detail::Api().SetLogSeverityLevel(get(), level));
  }
  // The process's default verbosity (verbose messages of higher levels are left out).
  void SetLogVerbosityLevel(int verbosity) {
    detail::ThrowOnError(detail::Api().SetLogVerbosityLevel(get(), verbosity));
  }

  // Shared allocators (sessions opt in with the config entry session.use_env_allocators = "1").
  // A CPU allocator; an arena when info says PRISM_ARENA_ALLOCATOR, configured with
  // onnxruntime's OrtArenaCfg keys (max_mem, arena_extend_strategy, initial_chunk_size_bytes).
  inline void CreateAndRegisterAllocator(ConstMemoryInfo info,
                                         const std::map<std::string, std::string>& arena = {});
  // The default-memory allocator of provider_type's EP (device memory outside any session).
  inline void CreateAndRegisterAllocatorV2(
      const std::string& provider_type, ConstMemoryInfo info,
      const std::map<std::string, std::string>& provider_options = {},
      const std::map<std::string, std::string>& arena = {});
  inline void UnregisterAllocator(ConstMemoryInfo info);
  // The allocator registered for info's memory, or nullopt.
  inline std::optional<Allocator> GetSharedAllocator(ConstMemoryInfo info);
  // Copies sources[i] into destinations[i] (same type and shape), across memory spaces this env
  // has allocators for.
  inline void CopyTensors(const std::vector<const Value*>& sources,
                          const std::vector<Value*>& destinations) const;
};

// onnxruntime's CUDA provider options, checked as they are set; appended to a session with
// SessionOptions::AppendExecutionProvider_CUDA_V2.
class CUDAProviderOptions : public detail::Owner<PrismCUDAProviderOptions> {
 public:
  CUDAProviderOptions() {
    PrismCUDAProviderOptions* options = nullptr;
    detail::ThrowOnError(detail::Api().CreateCUDAProviderOptions(&options));
    *this = CUDAProviderOptions(options);
  }
  explicit CUDAProviderOptions(PrismCUDAProviderOptions* owned) noexcept : Owner(owned) {}
  // All or nothing: an unknown key or bad value throws and changes nothing.
  CUDAProviderOptions& Update(const std::map<std::string, std::string>& options) {
    std::vector<const char*> keys;
    std::vector<const char*> values;
    for (const auto& entry : options) {
      keys.push_back(entry.first.c_str());
      values.push_back(entry.second.c_str());
    }
    detail::ThrowOnError(
        detail::Api().UpdateCUDAProviderOptions(get(), keys.data(), values.data(), keys.size()));
    return *this;
  }
  // "key=value;..." for every option, set or default.
  std::string GetOptionsAsString() const {
    char* text = nullptr;
    detail::ThrowOnError(detail::Api().GetCUDAProviderOptionsAsString(get(), &text));
    return detail::TakeString(text);
  }
};

// A custom op domain: ops (PrismCustomOp tables, e.g. CustomOpBase objects) that sessions made
// with SessionOptions::Add(domain) run. Each op must outlive every session using it.
class CustomOpDomain : public detail::Owner<PrismCustomOpDomain> {
 public:
  explicit CustomOpDomain(const std::string& domain) {
    PrismCustomOpDomain* handle = nullptr;
    detail::ThrowOnError(detail::Api().CreateCustomOpDomain(domain.c_str(), &handle));
    *this = CustomOpDomain(handle);
  }
  explicit CustomOpDomain(PrismCustomOpDomain* owned) noexcept : Owner(owned) {}
  CustomOpDomain& Add(const PrismCustomOp* op) {
    detail::ThrowOnError(detail::Api().CustomOpDomainAdd(get(), op));
    return *this;
  }
};

class Value;

class SessionOptions : public detail::Owner<PrismSessionOptions> {
 public:
  SessionOptions() {
    PrismSessionOptions* options = nullptr;
    detail::ThrowOnError(detail::Api().CreateSessionOptions(&options));
    *this = SessionOptions(options);
  }
  explicit SessionOptions(PrismSessionOptions* owned) noexcept : Owner(owned) {}

  SessionOptions Clone() const {
    PrismSessionOptions* copy = nullptr;
    detail::ThrowOnError(detail::Api().CloneSessionOptions(get(), &copy));
    return SessionOptions(copy);
  }
  SessionOptions& SetIntraOpNumThreads(int threads) {
    detail::ThrowOnError(detail::Api().SetIntraOpNumThreads(get(), threads));
    return *this;
  }
  SessionOptions& SetInterOpNumThreads(int threads) {
    detail::ThrowOnError(detail::Api().SetInterOpNumThreads(get(), threads));
    return *this;
  }
  SessionOptions& SetGraphOptimizationLevel(PrismGraphOptimizationLevel level) {
    detail::ThrowOnError(detail::Api().SetGraphOptimizationLevel(get(), level));
    return *this;
  }
  SessionOptions& SetExecutionMode(PrismExecutionMode mode) {
    detail::ThrowOnError(detail::Api().SetExecutionMode(get(), mode));
    return *this;
  }
  SessionOptions& SetOptimizedModelFilePath(const std::string& path) {
    detail::ThrowOnError(detail::Api().SetOptimizedModelFilePath(get(), path.c_str()));
    return *this;
  }
  SessionOptions& EnableProfiling(const std::string& prefix) {
    detail::ThrowOnError(detail::Api().EnableProfiling(get(), prefix.c_str()));
    return *this;
  }
  SessionOptions& DisableProfiling() {
    detail::ThrowOnError(detail::Api().DisableProfiling(get()));
    return *this;
  }
  SessionOptions& SetLogSeverityLevel(int level) {
    detail::ThrowOnError(detail::Api().SetSessionLogSeverityLevel(get(), level));
    return *this;
  }
  SessionOptions& SetLogId(const std::string& log_id) {
    detail::ThrowOnError(detail::Api().SetSessionLogId(get(), log_id.c_str()));
    return *this;
  }
  SessionOptions& SetLogVerbosityLevel(int verbosity) {
    detail::ThrowOnError(detail::Api().SetSessionLogVerbosityLevel(get(), verbosity));
    return *this;
  }
  // false: every value gets its own buffer (no in-place outputs, no shared pattern bytes).
  SessionOptions& EnableMemReuse(bool enable = true) {
    detail::ThrowOnError(detail::Api().EnableMemReuse(get(), enable ? 1 : 0));
    return *this;
  }
  SessionOptions& SetDeterministicCompute(bool enable) {
    detail::ThrowOnError(detail::Api().SetDeterministicCompute(get(), enable ? 1 : 0));
    return *this;
  }
  SessionOptions& EnableCpuMemArena(bool enable = true) {
    detail::ThrowOnError(detail::Api().EnableCpuMemArena(get(), enable ? 1 : 0));
    return *this;
  }
  SessionOptions& EnableMemPattern(bool enable = true) {
    detail::ThrowOnError(detail::Api().EnableMemPattern(get(), enable ? 1 : 0));
    return *this;
  }
  SessionOptions& AddConfigEntry(const std::string& key, const std::string& value) {
    detail::ThrowOnError(detail::Api().AddSessionConfigEntry(get(), key.c_str(), value.c_str()));
    return *this;
  }
  // The value set for key, or nullopt.
  std::optional<std::string> GetConfigEntry(const std::string& key) const {
    const char* value = nullptr;
    detail::ThrowOnError(detail::Api().GetSessionConfigEntry(get(), key.c_str(), &value));
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  }
  // name in onnxruntime's spelling, e.g. "CUDAExecutionProvider".
  SessionOptions& AppendExecutionProvider(const std::string& name,
                                          const std::map<std::string, std::string>& options = {}) {
    std::vector<const char*> keys;
    std::vector<const char*> values;
    for (const auto& entry : options) {
      keys.push_back(entry.first.c_str());
      values.push_back(entry.second.c_str());
    }
    detail::ThrowOnError(detail::Api().AppendExecutionProvider(get(), name.c_str(), keys.data(),
                                                               values.data(), keys.size()));
    return *this;
  }
  // Appends "CUDAExecutionProvider" with the options (copied).
  SessionOptions& AppendExecutionProvider_CUDA_V2(const CUDAProviderOptions& options) {
    detail::ThrowOnError(
        detail::Api().SessionOptionsAppendExecutionProvider_CUDA_V2(get(), options.get()));
    return *this;
  }
  // Sessions made with these options run the domain's ops (those added so far).
  SessionOptions& Add(const CustomOpDomain& domain) {
    detail::ThrowOnError(detail::Api().AddCustomOpDomain(get(), domain.get()));
    return *this;
  }
  // Loads a custom op library and calls its RegisterCustomOps; returns its dlopen handle
  // (borrowed: never dlclose it). The library stays loaded while these options or a session
  // using its ops live.
  void* RegisterCustomOpsLibrary(const std::string& path) {
    void* handle = nullptr;
    detail::ThrowOnError(detail::Api().RegisterCustomOpsLibrary(get(), path.c_str(), &handle));
    return handle;
  }

  // Model adjustments, applied as a session loads its model (onnxruntime's methods of the same
  // names; see prism_c_api.h). Fixes the inputs' dimensions with this denotation (e.g.
  // "DATA_BATCH") or this dim_param name to value.
  SessionOptions& AddFreeDimensionOverride(const std::string& denotation, int64_t value) {
    detail::ThrowOnError(detail::Api().AddFreeDimensionOverride(get(), denotation.c_str(), value));
    return *this;
  }
  SessionOptions& AddFreeDimensionOverrideByName(const std::string& name, int64_t value) {
    detail::ThrowOnError(detail::Api().AddFreeDimensionOverrideByName(get(), name.c_str(), value));
    return *this;
  }
  // Sessions use value (a CPU tensor, not copied) for initializer name; memory it wraps must
  // stay valid while these options or their sessions live.
  SessionOptions& AddInitializer(const std::string& name, const Value& value);
  // Data for initializers stored as external data, names[i] from values[i] (not copied).
  SessionOptions& AddExternalInitializers(const std::vector<std::string>& names,
                                          const std::vector<Value>& values);
  // The contents of external data files the model names (file_names[i]: lengths[i] bytes at
  // buffers[i]); copied by each session creation, so they must live until the last one.
  SessionOptions& AddExternalInitializersFromFilesInMemory(
      const std::vector<std::string>& file_names, const std::vector<const void*>& buffers,
      const std::vector<size_t>& lengths) {
    if (buffers.size() != file_names.size() || lengths.size() != file_names.size())
      throw Exception(
          PRISM_INVALID_ARGUMENT,
          "AddExternalInitializersFromFilesInMemory: " + std::to_string(file_names.size()) +
              " file names, " + std::to_string(buffers.size()) + " buffers and " +
              std::to_string(lengths.size()) + " lengths; they must pair up");
    std::vector<const char*> names;
    for (const std::string& name : file_names) names.push_back(name.c_str());
    detail::ThrowOnError(detail::Api().AddExternalInitializersFromFilesInMemory(
        get(), names.data(), buffers.data(), lengths.data(), names.size()));
    return *this;
  }
};

class RunOptions : public detail::Owner<PrismRunOptions> {
 public:
  RunOptions() {
    PrismRunOptions* options = nullptr;
    detail::ThrowOnError(detail::Api().CreateRunOptions(&options));
    *this = RunOptions(options);
  }
  explicit RunOptions(PrismRunOptions* owned) noexcept : Owner(owned) {}

  RunOptions& SetLogSeverityLevel(int level) {
    detail::ThrowOnError(detail::Api().RunOptionsSetRunLogSeverityLevel(get(), level));
    return *this;
  }
  RunOptions& SetLogVerbosityLevel(int verbosity) {
    detail::ThrowOnError(detail::Api().RunOptionsSetRunLogVerbosityLevel(get(), verbosity));
    return *this;
  }
  RunOptions& SetRunTag(const std::string& tag) {
    detail::ThrowOnError(detail::Api().RunOptionsSetRunTag(get(), tag.c_str()));
    return *this;
  }
  RunOptions& AddConfigEntry(const std::string& key, const std::string& value) {
    detail::ThrowOnError(detail::Api().AddRunConfigEntry(get(), key.c_str(), value.c_str()));
    return *this;
  }
  // The value set for key, or nullopt.
  std::optional<std::string> GetConfigEntry(const std::string& key) const {
    const char* value = nullptr;
    detail::ThrowOnError(detail::Api().GetRunConfigEntry(get(), key.c_str(), &value));
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  }
  // Compute only the nodes the requested outputs depend on.
  RunOptions& SetOnlyExecutePathToFetches(bool enable = true) {
    detail::ThrowOnError(
        detail::Api().RunOptionsSetOnlyExecutePathToFetches(get(), enable ? 1 : 0));
    return *this;
  }
  // Runs using these options stop between nodes with an error (callable from any thread).
  RunOptions& SetTerminate() {
    detail::ThrowOnError(detail::Api().RunOptionsSetTerminate(get()));
    return *this;
  }
  RunOptions& UnsetTerminate() {
    detail::ThrowOnError(detail::Api().RunOptionsUnsetTerminate(get()));
    return *this;
  }
};

class MemoryInfo;

// A borrowed memory description (from a value or an allocator). Functions taking memory accept
// it, and through it a MemoryInfo or a raw handle.
class ConstMemoryInfo : public detail::MemoryInfoGetters<ConstMemoryInfo> {
 public:
  ConstMemoryInfo(const PrismMemoryInfo* info) noexcept : info_(info) {}  // NOLINT: implicit
  ConstMemoryInfo(const MemoryInfo& info) noexcept;                       // NOLINT: implicit
  const PrismMemoryInfo* get() const noexcept { return info_; }

 private:
  const PrismMemoryInfo* info_;
};

class MemoryInfo : public detail::Owner<PrismMemoryInfo>,
                   public detail::MemoryInfoGetters<MemoryInfo> {
 public:
  // name: "Cpu", "Cuda", "CudaPinned", or an EP's memory name such as "TestDevice".
  MemoryInfo(const std::string& name, PrismAllocatorType allocator_type, int device_id,
             PrismMemType mem_type) {
    PrismMemoryInfo* info = nullptr;
    detail::ThrowOnError(
        detail::Api().CreateMemoryInfo(name.c_str(), allocator_type, device_id, mem_type, &info));
    *this = MemoryInfo(info);
  }
  explicit MemoryInfo(PrismMemoryInfo* owned) noexcept : Owner(owned) {}

  static MemoryInfo CreateCpu(PrismAllocatorType allocator_type = PRISM_DEVICE_ALLOCATOR,
                              PrismMemType mem_type = PRISM_MEM_DEFAULT) {
    PrismMemoryInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().CreateCpuMemoryInfo(allocator_type, mem_type, &info));
    return MemoryInfo(info);
  }
};

inline ConstMemoryInfo::ConstMemoryInfo(const MemoryInfo& info) noexcept : info_(info.get()) {}

// The process CPU allocator (borrowed: never released).
class AllocatorWithDefaultOptions {
 public:
  AllocatorWithDefaultOptions() {
    detail::ThrowOnError(detail::Api().GetAllocatorWithDefaultOptions(&allocator_));
  }
  PrismAllocator* get() const noexcept { return allocator_; }
  void* Alloc(size_t size) {
    void* pointer = nullptr;
    detail::ThrowOnError(detail::Api().AllocatorAlloc(allocator_, size, &pointer));
    return pointer;
  }
  void Free(void* pointer) {
    detail::ThrowOnError(detail::Api().AllocatorFree(allocator_, pointer));
  }
  ConstMemoryInfo GetInfo() const {
    const PrismMemoryInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().AllocatorGetInfo(allocator_, &info));
    return ConstMemoryInfo(info);
  }

 private:
  PrismAllocator* allocator_ = nullptr;
};

// An allocator of one of a session's EPs (Session::CreateAllocator) or an environment's
// (Env::GetSharedAllocator).
class Allocator : public detail::Owner<PrismAllocator> {
 public:
  explicit Allocator(PrismAllocator* owned) noexcept : Owner(owned) {}
  // onnxruntime's statistics names (NumAllocs, InUse, MaxInUse, NumReserves, ...) and values.
  std::map<std::string, int64_t> GetStats() const {
    char** keys = nullptr;
    char** values = nullptr;
    size_t count = 0;
    detail::ThrowOnError(detail::Api().AllocatorGetStats(get(), &keys, &values, &count));
    const std::vector<std::string> names = detail::TakeStrings(keys, count);
    const std::vector<std::string> numbers = detail::TakeStrings(values, count);
    std::map<std::string, int64_t> stats;
    for (size_t i = 0; i < names.size(); ++i) stats[names[i]] = std::stoll(numbers[i]);
    return stats;
  }
  void* Alloc(size_t size) {
    void* pointer = nullptr;
    detail::ThrowOnError(detail::Api().AllocatorAlloc(get(), size, &pointer));
    return pointer;
  }
  void Free(void* pointer) { detail::ThrowOnError(detail::Api().AllocatorFree(get(), pointer)); }
  ConstMemoryInfo GetInfo() const {
    const PrismMemoryInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().AllocatorGetInfo(get(), &info));
    return ConstMemoryInfo(info);
  }
};

// What functions taking an allocator accept: an Allocator, the default one, or a raw handle.
class AllocatorRef {
 public:
  AllocatorRef(PrismAllocator* allocator) noexcept : allocator_(allocator) {}  // NOLINT: implicit
  AllocatorRef(const Allocator& allocator) noexcept                            // NOLINT: implicit
      : allocator_(allocator.get()) {}
  AllocatorRef(const AllocatorWithDefaultOptions& allocator) noexcept  // NOLINT: implicit
      : allocator_(allocator.get()) {}
  PrismAllocator* get() const noexcept { return allocator_; }

 private:
  PrismAllocator* allocator_;
};

// A borrowed tensor type and shape (the tensor part of a TypeInfo); get() is null when the type
// has no tensor part.
class ConstTensorTypeAndShapeInfo : public detail::TensorInfoGetters<ConstTensorTypeAndShapeInfo> {
 public:
  explicit ConstTensorTypeAndShapeInfo(const PrismTensorTypeAndShapeInfo* info) noexcept
      : info_(info) {}
  const PrismTensorTypeAndShapeInfo* get() const noexcept { return info_; }
  explicit operator bool() const noexcept { return info_ != nullptr; }

 private:
  const PrismTensorTypeAndShapeInfo* info_;
};

class TensorTypeAndShapeInfo : public detail::Owner<PrismTensorTypeAndShapeInfo>,
                               public detail::TensorInfoGetters<TensorTypeAndShapeInfo> {
 public:
  explicit TensorTypeAndShapeInfo(PrismTensorTypeAndShapeInfo* owned) noexcept : Owner(owned) {}
};

class TypeInfo : public detail::Owner<PrismTypeInfo> {
 public:
  explicit TypeInfo(PrismTypeInfo* owned) noexcept : Owner(owned) {}

  PrismValueKind Kind() const {
    PrismValueKind kind = PRISM_VALUE_UNKNOWN;
    detail::ThrowOnError(detail::Api().TypeInfoGetKind(get(), &kind));
    return kind;
  }
  // onnxruntime's spelling: "tensor(float)", "seq(tensor(int64))", "map(string,tensor(float))",
  // ...
  std::string TypeString() const {
    const char* text = nullptr;
    detail::ThrowOnError(detail::Api().TypeInfoGetTypeString(get(), &text));
    return text;
  }
  // The key type and value element type of a map or seq(map) type; throws for other kinds.
  std::pair<PrismElementType, PrismElementType> GetMapTypes() const {
    PrismElementType key = PRISM_TYPE_UNDEFINED;
    PrismElementType value = PRISM_TYPE_UNDEFINED;
    detail::ThrowOnError(detail::Api().TypeInfoGetMapTypes(get(), &key, &value));
    return {key, value};
  }
  // Borrowed from this TypeInfo; empty (false) when the type has no tensor part.
  ConstTensorTypeAndShapeInfo GetTensorInfo() const {
    const PrismTensorTypeAndShapeInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().TypeInfoGetTensorInfo(get(), &info));
    return ConstTensorTypeAndShapeInfo(info);
  }
};

class ModelMetadata : public detail::Owner<PrismModelMetadata> {
 public:
  explicit ModelMetadata(PrismModelMetadata* owned) noexcept : Owner(owned) {}

  std::string ProducerName() const { return Text(detail::Api().ModelMetadataGetProducerName); }
  std::string GraphName() const { return Text(detail::Api().ModelMetadataGetGraphName); }
  std::string Domain() const { return Text(detail::Api().ModelMetadataGetDomain); }
  std::string Description() const { return Text(detail::Api().ModelMetadataGetDescription); }
  std::string GraphDescription() const {
    return Text(detail::Api().ModelMetadataGetGraphDescription);
  }
  int64_t Version() const {
    int64_t version = 0;
    detail::ThrowOnError(detail::Api().ModelMetadataGetVersion(get(), &version));
    return version;
  }
  std::map<std::string, std::string> CustomMetadata() const {
    size_t count = 0;
    detail::ThrowOnError(detail::Api().ModelMetadataGetCustomMetadataCount(get(), &count));
    std::map<std::string, std::string> entries;
    for (size_t i = 0; i < count; ++i) {
      const char* key = nullptr;
      const char* value = nullptr;
      detail::ThrowOnError(detail::Api().ModelMetadataGetCustomMetadata(get(), i, &key, &value));
      entries.emplace(key, value);
    }
    return entries;
  }

 private:
  using Getter = PrismStatus* (*)(const PrismModelMetadata*, const char**);
  std::string Text(Getter getter) const {
    const char* text = nullptr;
    detail::ThrowOnError(getter(get(), &text));
    return text;
  }
};

class Value : public detail::Owner<PrismValue> {
 public:
  Value() = default;  // holds nothing (get() is null)
  explicit Value(PrismValue* owned) noexcept : Owner(owned) {}

  // A tensor over caller memory, which must outlive the value. For 4-bit and 2-bit types
  // byte_count counts packed bytes.
  static Value CreateTensor(ConstMemoryInfo info, void* data, size_t byte_count,
                            const std::vector<int64_t>& shape, PrismElementType type) {
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().CreateTensorWithDataAsValue(
        info.get(), data, byte_count, shape.data(), shape.size(), type, &value));
    return Value(value);
  }
  template <typename T>
  static Value CreateTensor(ConstMemoryInfo info, T* data, size_t element_count,
                            const std::vector<int64_t>& shape) {
    return CreateTensor(info, data, element_count * sizeof(T), shape, ElementTypeOf<T>::value);
  }
  // A tensor the library allocates (CPU tensors start zeroed, string tensors empty).
  static Value CreateTensor(AllocatorRef allocator, const std::vector<int64_t>& shape,
                            PrismElementType type) {
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().CreateTensorAsValue(allocator.get(), shape.data(),
                                                           shape.size(), type, &value));
    return Value(value);
  }
  template <typename T>
  static Value CreateTensor(AllocatorRef allocator, const std::vector<int64_t>& shape) {
    return CreateTensor(allocator, shape, ElementTypeOf<T>::value);
  }
  // A CPU string tensor holding strings (one per element of shape).
  static Value CreateStringTensor(const std::vector<std::string>& strings,
                                  const std::vector<int64_t>& shape) {
    Value value = CreateTensor(AllocatorWithDefaultOptions(), shape, PRISM_TYPE_STRING);
    value.FillStringTensor(strings);
    return value;
  }
  // A map(K, tensor(V)) from two 1-D CPU tensors of one length (keys int64 or string; values
  // float, double, int64 or string), copied; held in ascending key order, the first pair of a
  // repeated key kept.
  static Value CreateMap(const Value& keys, const Value& values) {
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().CreateMapValue(keys.get(), values.get(), &value));
    return Value(value);
  }
  // A sequence sharing the elements' buffers: tensors, or maps of one type (seq(map(K, V))).
  static Value CreateSequence(const std::vector<Value>& elements) {
    std::vector<const PrismValue*> handles;
    for (const Value& element : elements) handles.push_back(element.get());
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().CreateSequenceValue(handles.data(), handles.size(), &value));
    return Value(value);
  }
  static Value CreateEmptyOptional() {
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().CreateEmptyOptionalValue(&value));
    return Value(value);
  }

  PrismValueKind Kind() const {
    PrismValueKind kind = PRISM_VALUE_UNKNOWN;
    detail::ThrowOnError(detail::Api().GetValueKind(get(), &kind));
    return kind;
  }
  bool IsTensor() const { return Kind() == PRISM_VALUE_TENSOR; }
  bool IsMap() const { return Kind() == PRISM_VALUE_MAP; }
  // False only for an empty optional.
  bool HasValue() const {
    int has = 0;
    detail::ThrowOnError(detail::Api().ValueHasValue(get(), &has));
    return has != 0;
  }

  // The tensor's bytes (null for empty tensors); not for string tensors.
  void* GetTensorMutableRawData() {
    void* data = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorMutableData(get(), &data));
    return data;
  }
  const void* GetTensorRawData() const {
    void* data = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorMutableData(get(), &data));
    return data;
  }
  // Typed access; throws when T does not match the element type.
  template <typename T>
  T* GetTensorMutableData() {
    CheckElementType(ElementTypeOf<T>::value);
    return static_cast<T*>(GetTensorMutableRawData());
  }
  template <typename T>
  const T* GetTensorData() const {
    CheckElementType(ElementTypeOf<T>::value);
    return static_cast<const T*>(GetTensorRawData());
  }
  size_t GetTensorSizeInBytes() const {
    size_t bytes = 0;
    detail::ThrowOnError(detail::Api().GetTensorSizeInBytes(get(), &bytes));
    return bytes;
  }
  TensorTypeAndShapeInfo GetTensorTypeAndShapeInfo() const {
    PrismTensorTypeAndShapeInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorTypeAndShape(get(), &info));
    return TensorTypeAndShapeInfo(info);
  }
  // Borrowed from this value.
  ConstMemoryInfo GetTensorMemoryInfo() const {
    const PrismMemoryInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorMemoryInfo(get(), &info));
    return ConstMemoryInfo(info);
  }

  // Sets every element of a string tensor (strings may contain NUL bytes).
  void FillStringTensor(const std::vector<std::string>& strings) {
    std::vector<const char*> data;
    std::vector<size_t> lengths;
    for (const std::string& text : strings) {
      data.push_back(text.data());
      lengths.push_back(text.size());
    }
    detail::ThrowOnError(
        detail::Api().FillStringTensor(get(), data.data(), lengths.data(), strings.size()));
  }
  std::string GetStringTensorElement(size_t index) const {
    const char* data = nullptr;
    size_t length = 0;
    detail::ThrowOnError(detail::Api().GetStringTensorElement(get(), index, &data, &length));
    return std::string(data, length);
  }
  std::vector<std::string> GetStringTensor() const {
    const int64_t count = GetTensorTypeAndShapeInfo().ElementCount();
    std::vector<std::string> strings;
    for (int64_t i = 0; i < count; ++i)
      strings.push_back(GetStringTensorElement(static_cast<size_t>(i)));
    return strings;
  }

  size_t GetSequenceLength() const {
    size_t length = 0;
    detail::ThrowOnError(detail::Api().GetSequenceLength(get(), &length));
    return length;
  }
  Value GetSequenceElement(size_t index) const {
    PrismValue* element = nullptr;
    detail::ThrowOnError(detail::Api().GetSequenceElement(get(), index, &element));
    return Value(element);
  }

  // A map's keys and values as 1-D tensors (copies), in ascending key order.
  Value GetMapKeys() const {
    PrismValue* keys = nullptr;
    detail::ThrowOnError(detail::Api().GetMapKeys(get(), &keys));
    return Value(keys);
  }
  Value GetMapValues() const {
    PrismValue* values = nullptr;
    detail::ThrowOnError(detail::Api().GetMapValues(get(), &values));
    return Value(values);
  }

 private:
  void CheckElementType(PrismElementType wanted) const {
    const PrismElementType actual = GetTensorTypeAndShapeInfo().ElementType();
    if (actual != wanted)
      throw Exception(PRISM_INVALID_ARGUMENT,
                      "tensor element type is " + std::to_string(static_cast<int>(actual)) +
                          ", accessed as " + std::to_string(static_cast<int>(wanted)));
  }
};

inline SessionOptions& SessionOptions::AddInitializer(const std::string& name, const Value& value) {
  detail::ThrowOnError(detail::Api().AddInitializer(get(), name.c_str(), value.get()));
  return *this;
}

inline SessionOptions& SessionOptions::AddExternalInitializers(
    const std::vector<std::string>& names, const std::vector<Value>& values) {
  if (values.size() != names.size())
    throw Exception(PRISM_INVALID_ARGUMENT,
                    "AddExternalInitializers: " + std::to_string(names.size()) + " names but " +
                        std::to_string(values.size()) + " values");
  std::vector<const char*> name_pointers;
  std::vector<const PrismValue*> handles;
  for (size_t i = 0; i < names.size(); ++i) {
    name_pointers.push_back(names[i].c_str());
    handles.push_back(values[i].get());
  }
  detail::ThrowOnError(detail::Api().AddExternalInitializers(get(), name_pointers.data(),
                                                             handles.data(), names.size()));
  return *this;
}

// ---- custom operators: kernel-side views and CustomOpBase ----

// A custom op's input or output tensor inside KernelCompute, borrowed from the kernel context.
// Inputs are read-only (MutableData throws for them); get() is null for an omitted input.
inline void Env::CreateAndRegisterAllocator(ConstMemoryInfo info,
                                            const std::map<std::string, std::string>& arena) {
  std::vector<const char*> keys, values;
  for (const auto& entry : arena) {
    keys.push_back(entry.first.c_str());
    values.push_back(entry.second.c_str());
  }
  detail::ThrowOnError(detail::Api().CreateAndRegisterAllocator(get(), info.get(), keys.data(),
                                                                values.data(), keys.size()));
}

inline void Env::CreateAndRegisterAllocatorV2(
    const std::string& provider_type, ConstMemoryInfo info,
    const std::map<std::string, std::string>& provider_options,
    const std::map<std::string, std::string>& arena) {
  std::vector<const char*> arena_keys, arena_values, option_keys, option_values;
  for (const auto& entry : arena) {
    arena_keys.push_back(entry.first.c_str());
    arena_values.push_back(entry.second.c_str());
  }
  for (const auto& entry : provider_options) {
    option_keys.push_back(entry.first.c_str());
    option_values.push_back(entry.second.c_str());
  }
  detail::ThrowOnError(detail::Api().CreateAndRegisterAllocatorV2(
      get(), provider_type.c_str(), info.get(), arena_keys.data(), arena_values.data(),
      arena_keys.size(), option_keys.data(), option_values.data(), option_keys.size()));
}

inline void Env::UnregisterAllocator(ConstMemoryInfo info) {
  detail::ThrowOnError(detail::Api().UnregisterAllocator(get(), info.get()));
}

inline std::optional<Allocator> Env::GetSharedAllocator(ConstMemoryInfo info) {
  PrismAllocator* allocator = nullptr;
  detail::ThrowOnError(detail::Api().GetSharedAllocator(get(), info.get(), &allocator));
  if (allocator == nullptr) return std::nullopt;
  return Allocator(allocator);
}

inline void Env::CopyTensors(const std::vector<const Value*>& sources,
                             const std::vector<Value*>& destinations) const {
  if (sources.size() != destinations.size())
    throw Exception(PRISM_INVALID_ARGUMENT,
                    "CopyTensors: " + std::to_string(sources.size()) + " sources but " +
                        std::to_string(destinations.size()) + " destinations");
  std::vector<const PrismValue*> from;
  std::vector<PrismValue*> to;
  for (const Value* value : sources) from.push_back(value->get());
  for (Value* value : destinations) to.push_back(value->get());
  detail::ThrowOnError(detail::Api().CopyTensors(get(), from.data(), to.data(), from.size()));
}

class KernelValue {
 public:
  KernelValue(const PrismValue* input, PrismValue* output) noexcept
      : input_(input), output_(output) {}
  const PrismValue* get() const noexcept { return output_ != nullptr ? output_ : input_; }
  explicit operator bool() const noexcept { return get() != nullptr; }

  TensorTypeAndShapeInfo GetTensorTypeAndShapeInfo() const {
    PrismTensorTypeAndShapeInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorTypeAndShape(get(), &info));
    return TensorTypeAndShapeInfo(info);
  }
  std::vector<int64_t> Shape() const { return GetTensorTypeAndShapeInfo().Shape(); }
  PrismElementType ElementType() const { return GetTensorTypeAndShapeInfo().ElementType(); }
  size_t ElementCount() const {
    return static_cast<size_t>(GetTensorTypeAndShapeInfo().ElementCount());
  }
  // Typed access; throws when T does not match the element type.
  template <typename T>
  const T* Data() const {
    Check(ElementTypeOf<T>::value);
    const void* data = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorData(get(), &data));
    return static_cast<const T*>(data);
  }
  template <typename T>
  T* MutableData() {
    Check(ElementTypeOf<T>::value);
    if (output_ == nullptr)
      throw Exception(PRISM_INVALID_ARGUMENT, "a custom op's input is read-only");
    void* data = nullptr;
    detail::ThrowOnError(detail::Api().GetTensorMutableData(output_, &data));
    return static_cast<T*>(data);
  }
  std::string GetStringElement(size_t index) const {
    const char* data = nullptr;
    size_t length = 0;
    detail::ThrowOnError(detail::Api().GetStringTensorElement(get(), index, &data, &length));
    return std::string(data, length);
  }
  void FillStrings(const std::vector<std::string>& strings) {
    if (output_ == nullptr)
      throw Exception(PRISM_INVALID_ARGUMENT, "a custom op's input is read-only");
    std::vector<const char*> data;
    std::vector<size_t> lengths;
    for (const std::string& text : strings) {
      data.push_back(text.data());
      lengths.push_back(text.size());
    }
    detail::ThrowOnError(
        detail::Api().FillStringTensor(output_, data.data(), lengths.data(), strings.size()));
  }

 private:
  void Check(PrismElementType wanted) const {
    const PrismElementType actual = ElementType();
    if (actual != wanted)
      throw Exception(PRISM_INVALID_ARGUMENT,
                      "tensor element type is " + std::to_string(static_cast<int>(actual)) +
                          ", accessed as " + std::to_string(static_cast<int>(wanted)));
  }
  const PrismValue* input_;
  PrismValue* output_;
};

// A node's attributes and static types while its custom op kernel is created (borrowed).
class KernelInfo {
 public:
  explicit KernelInfo(const PrismKernelInfo* info) noexcept : info_(info) {}
  const PrismKernelInfo* get() const noexcept { return info_; }

  bool HasAttribute(const std::string& name) const {
    int has = 0;
    detail::ThrowOnError(detail::Api().KernelInfoHasAttribute(info_, name.c_str(), &has));
    return has != 0;
  }
  // Each throws naming the node when the attribute is missing or of another type.
  float GetAttributeFloat(const std::string& name) const {
    float value = 0;
    detail::ThrowOnError(detail::Api().KernelInfoGetAttributeFloat(info_, name.c_str(), &value));
    return value;
  }
  int64_t GetAttributeInt64(const std::string& name) const {
    int64_t value = 0;
    detail::ThrowOnError(detail::Api().KernelInfoGetAttributeInt64(info_, name.c_str(), &value));
    return value;
  }
  std::string GetAttributeString(const std::string& name) const {
    const char* text = nullptr;
    size_t length = 0;
    detail::ThrowOnError(
        detail::Api().KernelInfoGetAttributeString(info_, name.c_str(), &text, &length));
    return std::string(text, length);
  }
  std::vector<float> GetAttributeFloats(const std::string& name) const {
    const float* values = nullptr;
    size_t count = 0;
    detail::ThrowOnError(
        detail::Api().KernelInfoGetAttributeFloats(info_, name.c_str(), &values, &count));
    return std::vector<float>(values, values + count);
  }
  std::vector<int64_t> GetAttributeInt64s(const std::string& name) const {
    const int64_t* values = nullptr;
    size_t count = 0;
    detail::ThrowOnError(
        detail::Api().KernelInfoGetAttributeInt64s(info_, name.c_str(), &values, &count));
    return std::vector<int64_t>(values, values + count);
  }
  size_t GetInputCount() const {
    size_t count = 0;
    detail::ThrowOnError(detail::Api().KernelInfoGetInputCount(info_, &count));
    return count;
  }
  size_t GetOutputCount() const {
    size_t count = 0;
    detail::ThrowOnError(detail::Api().KernelInfoGetOutputCount(info_, &count));
    return count;
  }
  TypeInfo GetInputTypeInfo(size_t index) const {
    PrismTypeInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().KernelInfoGetInputTypeInfo(info_, index, &info));
    return TypeInfo(info);
  }
  TypeInfo GetOutputTypeInfo(size_t index) const {
    PrismTypeInfo* info = nullptr;
    detail::ThrowOnError(detail::Api().KernelInfoGetOutputTypeInfo(info_, index, &info));
    return TypeInfo(info);
  }
  std::string GetNodeName() const {
    const char* name = nullptr;
    detail::ThrowOnError(detail::Api().KernelInfoGetNodeName(info_, &name));
    return name;
  }

 private:
  const PrismKernelInfo* info_;
};

// A node's inputs, outputs and intra-op threads while its custom op kernel computes (borrowed).
class KernelContext {
 public:
  explicit KernelContext(PrismKernelContext* context) noexcept : context_(context) {}
  PrismKernelContext* get() const noexcept { return context_; }

  size_t GetInputCount() const {
    size_t count = 0;
    detail::ThrowOnError(detail::Api().KernelContextGetInputCount(context_, &count));
    return count;
  }
  size_t GetOutputCount() const {
    size_t count = 0;
    detail::ThrowOnError(detail::Api().KernelContextGetOutputCount(context_, &count));
    return count;
  }
  // Empty (false) when the node omits the input.
  KernelValue GetInput(size_t index) const {
    const PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().KernelContextGetInput(context_, index, &value));
    return KernelValue(value, nullptr);
  }
  // Allocates output index; type PRISM_TYPE_UNDEFINED: the op's declared type (else the node's).
  KernelValue GetOutput(size_t index, const std::vector<int64_t>& shape,
                        PrismElementType type = PRISM_TYPE_UNDEFINED) {
    PrismValue* value = nullptr;
    detail::ThrowOnError(detail::Api().KernelContextGetOutput(context_, index, type, shape.data(),
                                                              shape.size(), &value));
    return KernelValue(nullptr, value);
  }
  int GetIntraOpThreadCount() const {
    int threads = 1;
    detail::ThrowOnError(detail::Api().KernelContextGetIntraOpThreadCount(context_, &threads));
    return threads;
  }
  // Calls fn(i) for every i in [0, total) on the session's intra-op threads; the first exception
  // fn throws is rethrown here once every call has returned.
  template <typename Fn>
  void ParallelFor(size_t total, Fn&& fn, size_t batch_count = 0) const {
    struct Job {
      std::remove_reference_t<Fn>* fn;
      std::exception_ptr error;
      std::atomic<bool> failed{false};
    } job{&fn, nullptr};
    auto call = [](void* data, size_t index) {
      Job& running = *static_cast<Job*>(data);
      if (running.failed.load()) return;
      try {
        (*running.fn)(index);
      } catch (...) {
        if (!running.failed.exchange(true)) running.error = std::current_exception();
      }
    };
    detail::ThrowOnError(
        detail::Api().KernelContextParallelFor(context_, call, &job, total, batch_count));
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  PrismKernelContext* context_;
};

namespace detail {
// A callback's exceptions as the status it returns across the C ABI.
template <typename Fn>
PrismStatus* StatusFromCall(Fn&& fn) noexcept {
  try {
    fn();
    return nullptr;
  } catch (const Exception& e) {
    return Api().CreateStatus(e.Code(), e.what());
  } catch (const std::exception& e) {
    return Api().CreateStatus(PRISM_FAIL, e.what());
  } catch (...) {
    return Api().CreateStatus(PRISM_FAIL, "unknown exception in a custom op");
  }
}
}  // namespace detail

// Turns a C++ op description into a PrismCustomOp (onnxruntime's Ort::CustomOpBase):
//
//   struct MyKernel {
//     explicit MyKernel(const prism::KernelInfo& info);      // reads attributes
//     void Compute(prism::KernelContext& context);           // may throw prism::Exception
//   };
//   struct MyOp : prism::CustomOpBase<MyOp, MyKernel> {
//     const char* GetName() const { return "MyOp"; }
//     size_t GetInputTypeCount() const { return 2; }
//     PrismElementType GetInputType(size_t) const { return PRISM_TYPE_FLOAT; }
//     size_t GetOutputTypeCount() const { return 1; }
//     PrismElementType GetOutputType(size_t) const { return PRISM_TYPE_FLOAT; }
//   };
//
// MyOp may also define any of the defaults below (EP, characteristics, variadic arity and
// homogeneity, opsets). An op object must outlive every session using it (static storage).
template <typename TOp, typename TKernel>
struct CustomOpBase : PrismCustomOp {
  CustomOpBase() : PrismCustomOp{} {
    version = PRISM_CUSTOM_OP_VERSION;
    PrismCustomOp::CreateKernel = [](const PrismCustomOp*, const PrismApi*,
                                     const PrismKernelInfo* info, void** kernel) {
      return detail::StatusFromCall([&] { *kernel = new TKernel(KernelInfo(info)); });
    };
    PrismCustomOp::GetName = [](const PrismCustomOp* op) { return Self(op).GetName(); };
    PrismCustomOp::GetExecutionProviderType = [](const PrismCustomOp* op) {
      return Self(op).GetExecutionProviderType();
    };
    PrismCustomOp::GetInputTypeCount = [](const PrismCustomOp* op) {
      return Self(op).GetInputTypeCount();
    };
    PrismCustomOp::GetInputType = [](const PrismCustomOp* op, size_t index) {
      return Self(op).GetInputType(index);
    };
    PrismCustomOp::GetOutputTypeCount = [](const PrismCustomOp* op) {
      return Self(op).GetOutputTypeCount();
    };
    PrismCustomOp::GetOutputType = [](const PrismCustomOp* op, size_t index) {
      return Self(op).GetOutputType(index);
    };
    PrismCustomOp::GetInputCharacteristic = [](const PrismCustomOp* op, size_t index) {
      return Self(op).GetInputCharacteristic(index);
    };
    PrismCustomOp::GetOutputCharacteristic = [](const PrismCustomOp* op, size_t index) {
      return Self(op).GetOutputCharacteristic(index);
    };
    PrismCustomOp::GetVariadicInputMinArity = [](const PrismCustomOp* op) {
      return Self(op).GetVariadicInputMinArity();
    };
    PrismCustomOp::GetVariadicInputHomogeneity = [](const PrismCustomOp* op) {
      return Self(op).GetVariadicInputHomogeneity() ? 1 : 0;
    };
    PrismCustomOp::GetVariadicOutputMinArity = [](const PrismCustomOp* op) {
      return Self(op).GetVariadicOutputMinArity();
    };
    PrismCustomOp::GetVariadicOutputHomogeneity = [](const PrismCustomOp* op) {
      return Self(op).GetVariadicOutputHomogeneity() ? 1 : 0;
    };
    PrismCustomOp::GetSinceVersion = [](const PrismCustomOp* op) {
      return Self(op).GetSinceVersion();
    };
    PrismCustomOp::GetEndVersion = [](const PrismCustomOp* op) { return Self(op).GetEndVersion(); };
    PrismCustomOp::KernelCompute = [](void* kernel, PrismKernelContext* context) {
      return detail::StatusFromCall([&] {
        KernelContext wrapped(context);
        static_cast<TKernel*>(kernel)->Compute(wrapped);
      });
    };
    PrismCustomOp::KernelDestroy = [](void* kernel) { delete static_cast<TKernel*>(kernel); };
  }

  // Defaults TOp may hide with its own.
  const char* GetExecutionProviderType() const { return nullptr; }  // the CPU EP
  PrismCustomOpInputOutputCharacteristic GetInputCharacteristic(size_t) const {
    return PRISM_INPUT_OUTPUT_REQUIRED;
  }
  PrismCustomOpInputOutputCharacteristic GetOutputCharacteristic(size_t) const {
    return PRISM_INPUT_OUTPUT_REQUIRED;
  }
  int GetVariadicInputMinArity() const { return 1; }
  bool GetVariadicInputHomogeneity() const { return true; }
  int GetVariadicOutputMinArity() const { return 1; }
  bool GetVariadicOutputHomogeneity() const { return true; }
  int GetSinceVersion() const { return 1; }
  int GetEndVersion() const { return 2147483647; }

 private:
  static const TOp& Self(const PrismCustomOp* op) { return *static_cast<const TOp*>(op); }
};

class Session;

class IoBinding : public detail::Owner<PrismIoBinding> {
 public:
  explicit IoBinding(Session& session);
  explicit IoBinding(PrismIoBinding* owned) noexcept : Owner(owned) {}

  // The binding keeps its own reference to value; inputs may live in any memory.
  void BindInput(const std::string& name, const Value& value) {
    detail::ThrowOnError(detail::Api().BindInput(get(), name.c_str(), value.get()));
  }
  // Results are copied into value (CPU or device memory), whose type and shape must match.
  void BindOutput(const std::string& name, const Value& value) {
    detail::ThrowOnError(detail::Api().BindOutput(get(), name.c_str(), value.get()));
  }
  // The result is left in (or copied to) the memory info describes.
  void BindOutput(const std::string& name, ConstMemoryInfo memory) {
    detail::ThrowOnError(detail::Api().BindOutputToDevice(get(), name.c_str(), memory.get()));
  }
  void ClearBoundInputs() { detail::ThrowOnError(detail::Api().ClearBoundInputs(get())); }
  void ClearBoundOutputs() { detail::ThrowOnError(detail::Api().ClearBoundOutputs(get())); }
  std::vector<std::string> GetOutputNames() const {
    char** names = nullptr;
    size_t count = 0;
    detail::ThrowOnError(detail::Api().GetBoundOutputNames(get(), &names, &count));
    return detail::TakeStrings(names, count);
  }
  // The results of the last Session::Run(IoBinding&), in binding order.
  std::vector<Value> GetOutputValues() const {
    PrismValue** values = nullptr;
    size_t count = 0;
    detail::ThrowOnError(detail::Api().GetBoundOutputValues(get(), &values, &count));
    std::vector<Value> result;
    try {
      result.reserve(count);
    } catch (...) {
      for (size_t i = 0; i < count; ++i) detail::Api().ReleaseValue(values[i]);
      detail::Api().ReleaseValueArray(values);
      throw;
    }
    for (size_t i = 0; i < count; ++i) result.emplace_back(values[i]);  // reserved: no throw
    detail::Api().ReleaseValueArray(values);
    return result;
  }
};

class Session : public detail::Owner<PrismSession> {
 public:
  Session(const Env& env, const std::string& model_path, const SessionOptions& options) {
    PrismSession* session = nullptr;
    detail::ThrowOnError(
        detail::Api().CreateSession(env.get(), model_path.c_str(), options.get(), &session));
    *this = Session(session);
  }
  // Loads a model from memory (not kept after the call; no external data).
  Session(const Env& env, const void* model_data, size_t model_data_length,
          const SessionOptions& options) {
    PrismSession* session = nullptr;
    detail::ThrowOnError(detail::Api().CreateSessionFromArray(
        env.get(), model_data, model_data_length, options.get(), &session));
    *this = Session(session);
  }
  explicit Session(PrismSession* owned) noexcept : Owner(owned) {}

  size_t GetInputCount() const { return Count(detail::Api().SessionGetInputCount); }
  size_t GetOutputCount() const { return Count(detail::Api().SessionGetOutputCount); }
  size_t GetOverridableInitializerCount() const {
    return Count(detail::Api().SessionGetOverridableInitializerCount);
  }
  std::string GetInputName(size_t index) const {
    return Name(detail::Api().SessionGetInputName, index);
  }
  std::string GetOutputName(size_t index) const {
    return Name(detail::Api().SessionGetOutputName, index);
  }
  std::string GetOverridableInitializerName(size_t index) const {
    return Name(detail::Api().SessionGetOverridableInitializerName, index);
  }
  std::vector<std::string> GetInputNames() const {
    std::vector<std::string> names;
    for (size_t i = 0, n = GetInputCount(); i < n; ++i) names.push_back(GetInputName(i));
    return names;
  }
  std::vector<std::string> GetOutputNames() const {
    std::vector<std::string> names;
    for (size_t i = 0, n = GetOutputCount(); i < n; ++i) names.push_back(GetOutputName(i));
    return names;
  }
  TypeInfo GetInputTypeInfo(size_t index) const {
    return Type(detail::Api().SessionGetInputTypeInfo, index);
  }
  TypeInfo GetOutputTypeInfo(size_t index) const {
    return Type(detail::Api().SessionGetOutputTypeInfo, index);
  }
  TypeInfo GetOverridableInitializerTypeInfo(size_t index) const {
    return Type(detail::Api().SessionGetOverridableInitializerTypeInfo, index);
  }
  ModelMetadata GetModelMetadata() const {
    PrismModelMetadata* metadata = nullptr;
    detail::ThrowOnError(detail::Api().SessionGetModelMetadata(get(), &metadata));
    return ModelMetadata(metadata);
  }

  // The EPs in use, in priority order, and the options of one of them.
  std::vector<std::string> GetProviders() const {
    char** names = nullptr;
    size_t count = 0;
    detail::ThrowOnError(detail::Api().SessionGetProviders(get(), &names, &count));
    return detail::TakeStrings(names, count);
  }
  std::map<std::string, std::string> GetProviderOptions(size_t provider_index) const {
    char** keys = nullptr;
    char** values = nullptr;
    size_t count = 0;
    detail::ThrowOnError(
        detail::Api().SessionGetProviderOptions(get(), provider_index, &keys, &values, &count));
    std::vector<std::string> key_list = detail::TakeStrings(keys, count);
    std::vector<std::string> value_list = detail::TakeStrings(values, count);
    std::map<std::string, std::string> options;
    for (size_t i = 0; i < count; ++i) options.emplace(key_list[i], value_list[i]);
    return options;
  }
  // Rebuilds the plan with the EPs appended to providers_from.
  void SetProviders(const SessionOptions& providers_from) {
    detail::ThrowOnError(detail::Api().SessionSetProviders(get(), providers_from.get()));
  }
  std::string GetPartitionReport(PrismReportFormat format = PRISM_REPORT_TEXT) const {
    char* text = nullptr;
    detail::ThrowOnError(detail::Api().SessionGetPartitionReport(get(), format, &text));
    return detail::TakeString(text);
  }

  // When profiling started (nanoseconds since the Unix epoch); 0 when profiling is off.
  uint64_t GetProfilingStartTimeNs() const {
    uint64_t start = 0;
    detail::ThrowOnError(detail::Api().SessionGetProfilingStartTimeNs(get(), &start));
    return start;
  }

  // Stops profiling (SessionOptions::EnableProfiling) and writes the trace; returns the file
  // written, "" when profiling is off or has already ended.
  std::string EndProfiling() {
    char* path = nullptr;
    detail::ThrowOnError(detail::Api().SessionEndProfiling(get(), &path));
    return detail::TakeString(path);
  }

  // Runs the model; returns output_names' values in order. Safe from several threads.
  std::vector<Value> Run(const RunOptions* run_options, const std::vector<std::string>& input_names,
                         const std::vector<Value>& inputs,
                         const std::vector<std::string>& output_names) {
    std::vector<const char*> in_names;
    std::vector<const PrismValue*> in_values;
    for (const std::string& name : input_names) in_names.push_back(name.c_str());
    for (const Value& value : inputs) in_values.push_back(value.get());
    if (in_names.size() != in_values.size())
      throw Exception(PRISM_INVALID_ARGUMENT, std::to_string(in_names.size()) +
                                                  " input names for " +
                                                  std::to_string(in_values.size()) + " inputs");
    std::vector<const char*> out_names;
    for (const std::string& name : output_names) out_names.push_back(name.c_str());
    std::vector<PrismValue*> out_values(out_names.size(), nullptr);
    std::vector<Value> results;
    results.reserve(out_values.size());
    detail::ThrowOnError(detail::Api().Run(
        get(), run_options != nullptr ? run_options->get() : nullptr, in_names.data(),
        in_values.data(), in_names.size(), out_names.data(), out_names.size(), out_values.data()));
    for (PrismValue* value : out_values) results.emplace_back(value);  // reserved: no throw
    return results;
  }
  std::vector<Value> Run(const std::vector<std::string>& input_names,
                         const std::vector<Value>& inputs,
                         const std::vector<std::string>& output_names) {
    return Run(nullptr, input_names, inputs, output_names);
  }
  // Runs into outputs, one per output name: an empty Value receives the result, a tensor is a
  // preallocated output the result is written into (element type and shape must match).
  void Run(const RunOptions* run_options, const std::vector<std::string>& input_names,
           const std::vector<Value>& inputs, const std::vector<std::string>& output_names,
           std::vector<Value>& outputs) {
    std::vector<const char*> in_names;
    std::vector<const PrismValue*> in_values;
    for (const std::string& name : input_names) in_names.push_back(name.c_str());
    for (const Value& value : inputs) in_values.push_back(value.get());
    if (in_names.size() != in_values.size() || output_names.size() != outputs.size())
      throw Exception(PRISM_INVALID_ARGUMENT,
                      std::to_string(in_names.size()) + " input names for " +
                          std::to_string(in_values.size()) + " inputs, " +
                          std::to_string(output_names.size()) + " output names for " +
                          std::to_string(outputs.size()) + " outputs");
    std::vector<const char*> out_names;
    for (const std::string& name : output_names) out_names.push_back(name.c_str());
    std::vector<PrismValue*> out_values;
    for (Value& value : outputs) out_values.push_back(value.get());
    detail::ThrowOnError(detail::Api().Run(
        get(), run_options != nullptr ? run_options->get() : nullptr, in_names.data(),
        in_values.data(), in_names.size(), out_names.data(), out_names.size(), out_values.data()));
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].get() == nullptr) outputs[i] = Value(out_values[i]);
  }
  // Runs on a thread of the library's async pool; done(outputs, error) is called there once,
  // with the outputs, or with an empty vector and the error. run_options (may be null) must
  // outlive the call of done; the inputs need not.
  using RunAsyncDone = std::function<void(std::vector<Value> outputs, const Exception* error)>;
  void RunAsync(const RunOptions* run_options, const std::vector<std::string>& input_names,
                const std::vector<Value>& inputs, const std::vector<std::string>& output_names,
                RunAsyncDone done) {
    std::vector<const char*> in_names;
    std::vector<const PrismValue*> in_values;
    for (const std::string& name : input_names) in_names.push_back(name.c_str());
    for (const Value& value : inputs) in_values.push_back(value.get());
    if (in_names.size() != in_values.size())
      throw Exception(PRISM_INVALID_ARGUMENT, std::to_string(in_names.size()) +
                                                  " input names for " +
                                                  std::to_string(in_values.size()) + " inputs");
    std::vector<const char*> out_names;
    for (const std::string& name : output_names) out_names.push_back(name.c_str());
    auto pending = std::make_unique<PendingRun>();
    pending->outputs.assign(out_names.size(), nullptr);
    pending->done = std::move(done);
    detail::ThrowOnError(detail::Api().RunAsync(
        get(), run_options != nullptr ? run_options->get() : nullptr, in_names.data(),
        in_values.data(), in_names.size(), out_names.data(), out_names.size(),
        pending->outputs.data(), &Session::RunAsyncFinished, pending.get()));
    pending.release();  // the callback owns it now
  }

  void Run(const RunOptions* run_options, IoBinding& binding) {
    detail::ThrowOnError(detail::Api().RunWithBinding(
        get(), run_options != nullptr ? run_options->get() : nullptr, binding.get()));
  }
  void Run(IoBinding& binding) { Run(nullptr, binding); }

  // The allocator of the session's EP that owns memory.
  Allocator CreateAllocator(ConstMemoryInfo memory) const {
    PrismAllocator* allocator = nullptr;
    detail::ThrowOnError(detail::Api().CreateAllocator(get(), memory.get(), &allocator));
    return Allocator(allocator);
  }
  // A new CPU copy of a tensor or sequence in any memory the session's EPs can read.
  Value CopyToCpu(const Value& value) const {
    PrismValue* copy = nullptr;
    detail::ThrowOnError(detail::Api().SessionCopyValueToCpu(get(), value.get(), &copy));
    return Value(copy);
  }

 private:
  struct PendingRun {
    std::vector<PrismValue*> outputs;
    RunAsyncDone done;
  };
  static void RunAsyncFinished(void* user_data, PrismValue** outputs, size_t output_count,
                               PrismStatus* status) {
    std::unique_ptr<PendingRun> pending(static_cast<PendingRun*>(user_data));
    std::vector<Value> results;
    for (size_t i = 0; i < output_count; ++i) results.emplace_back(outputs[i]);
    if (status == nullptr) {
      pending->done(std::move(results), nullptr);
      return;
    }
    const Exception error(detail::Api().GetErrorCode(status),
                          detail::Api().GetErrorMessage(status));
    detail::Api().ReleaseStatus(status);
    pending->done(std::move(results), &error);
  }
  using CountGetter = PrismStatus* (*)(const PrismSession*, size_t*);
  using NameGetter = PrismStatus* (*)(const PrismSession*, size_t, const char**);
  using TypeGetter = PrismStatus* (*)(const PrismSession*, size_t, PrismTypeInfo**);
  size_t Count(CountGetter getter) const {
    size_t count = 0;
    detail::ThrowOnError(getter(get(), &count));
    return count;
  }
  std::string Name(NameGetter getter, size_t index) const {
    const char* name = nullptr;
    detail::ThrowOnError(getter(get(), index, &name));
    return name;
  }
  TypeInfo Type(TypeGetter getter, size_t index) const {
    PrismTypeInfo* info = nullptr;
    detail::ThrowOnError(getter(get(), index, &info));
    return TypeInfo(info);
  }
};

inline IoBinding::IoBinding(Session& session) {
  PrismIoBinding* binding = nullptr;
  detail::ThrowOnError(detail::Api().CreateIoBinding(session.get(), &binding));
  *this = IoBinding(binding);
}

}  // namespace cxx
}  // namespace prism

#endif  // PRISM_CXX_API_H_
