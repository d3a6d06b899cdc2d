// Sessions: loading, inspecting the model's interface and providers, and running.
#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"
#include "common/logging.h"
#include "common/thread_pool.h"

namespace prism::capi {

namespace {

std::unique_ptr<PrismSession> NewSession(
    const PrismEnv& env, const PrismSessionOptions& options,
    const PrismPrepackedWeightsContainer* container = nullptr) {
  auto session = std::make_unique<PrismSession>();
  SessionOptions session_options = options.options;
  if (session_options.ConfigOr("session.use_env_allocators", "0") == "1")
    session_options.environment_allocators = env.allocators->All();
  if (container != nullptr) session_options.prepacked_weights = container->container;
  session->session = std::make_shared<InferenceSession>(session_options, options.providers);
  return session;
}

void SnapshotInterface(PrismSession& session) {
  session.inputs = session.session->Inputs();
  session.outputs = session.session->Outputs();
  session.initializers = session.session->OverridableInitializers();
}

const ValueInfo& InfoAt(const std::vector<ValueInfo>& infos, size_t index, const char* what) {
  PRISM_ENFORCE(index < infos.size(), kInvalidArgument, what, " index ", index,
                " is out of range: the model has ", infos.size(), " ", what, "s");
  return infos[index];
}

}  // namespace

PrismStatus* CreateSession(const PrismEnv* env, const char* model_path,
                           const PrismSessionOptions* options, PrismSession** out) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(model_path, "model_path");
    Require(options, "options");
    Require(out, "out");
    auto session = NewSession(*env, *options);
    session->session->Load(std::string(model_path));
    SnapshotInterface(*session);
    *out = session.release();
  });
}

PrismStatus* CreateSessionFromArray(const PrismEnv* env, const void* model_data,
                                    size_t model_data_length, const PrismSessionOptions* options,
                                    PrismSession** out) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(model_data, "model_data");
    Require(options, "options");
    Require(out, "out");
    auto session = NewSession(*env, *options);
    session->session->Load(model_data, model_data_length);
    SnapshotInterface(*session);
    *out = session.release();
  });
}

PrismStatus* CreatePrepackedWeightsContainer(PrismPrepackedWeightsContainer** out) noexcept {
  return Guard(__func__, [&] {
    auto container = std::make_unique<PrismPrepackedWeightsContainer>();
    container->container = std::make_shared<PrepackedWeightsContainer>();
    PrismPrepackedWeightsContainer** target = Require(out, "out");
    *target = container.release();
  });
}

void ReleasePrepackedWeightsContainer(PrismPrepackedWeightsContainer* container) noexcept {
  delete container;
}

PrismStatus* CreateSessionWithPrepackedWeightsContainer(const PrismEnv* env, const char* model_path,
                                                        const PrismSessionOptions* options,
                                                        PrismPrepackedWeightsContainer* container,
                                                        PrismSession** out) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(model_path, "model_path");
    Require(options, "options");
    Require(container, "container");
    Require(out, "out");
    auto session = NewSession(*env, *options, container);
    session->session->Load(std::string(model_path));
    SnapshotInterface(*session);
    *out = session.release();
  });
}

PrismStatus* CreateSessionFromArrayWithPrepackedWeightsContainer(
    const PrismEnv* env, const void* model_data, size_t model_data_length,
    const PrismSessionOptions* options, PrismPrepackedWeightsContainer* container,
    PrismSession** out) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(model_data, "model_data");
    Require(options, "options");
    Require(container, "container");
    Require(out, "out");
    auto session = NewSession(*env, *options, container);
    session->session->Load(model_data, model_data_length);
    SnapshotInterface(*session);
    *out = session.release();
  });
}

PrismStatus* SessionGetPrepackStats(const PrismSession* session, char*** keys, char*** values,
                                    size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(keys, "keys");
    Require(values, "values");
    Require(count, "count");
    const PrepackStatistics stats = session->session->Prepacking();
    CopyNamedCounts({{"PackedInputs", stats.packed_inputs},
                     {"PackedWeights", stats.packed_weights},
                     {"PackedBytes", stats.packed_bytes},
                     {"SharedHits", stats.shared_hits},
                     {"OriginalsReleased", stats.originals_released},
                     {"ReleasedBytes", stats.released_bytes}},
                    keys, values, count);
  });
}

void ReleaseSession(PrismSession* session) noexcept {
  if (session == nullptr) return;
  // As in onnxruntime, a session released while profiling writes its trace first; there is no
  // status to report a failure to, so it is logged.
  try {
    session->session->EndProfiling();
  } catch (const std::exception& e) {
    PRISM_LOG(kError, "writing the profile of a released session failed: ", e.what());
  } catch (...) {
  }
  delete session;
}

PrismStatus* SessionGetInputCount(const PrismSession* session, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    *Require(out, "out") = session->inputs.size();
  });
}

PrismStatus* SessionGetOutputCount(const PrismSession* session, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    *Require(out, "out") = session->outputs.size();
  });
}

PrismStatus* SessionGetOverridableInitializerCount(const PrismSession* session,
                                                   size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    *Require(out, "out") = session->initializers.size();
  });
}

PrismStatus* SessionGetInputName(const PrismSession* session, size_t index,
                                 const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = InfoAt(session->inputs, index, "input").name.c_str();
  });
}

PrismStatus* SessionGetOutputName(const PrismSession* session, size_t index,
                                  const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = InfoAt(session->outputs, index, "output").name.c_str();
  });
}

PrismStatus* SessionGetOverridableInitializerName(const PrismSession* session, size_t index,
                                                  const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = InfoAt(session->initializers, index, "overridable initializer").name.c_str();
  });
}

PrismStatus* SessionGetInputTypeInfo(const PrismSession* session, size_t index,
                                     PrismTypeInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = MakeTypeInfo(InfoAt(session->inputs, index, "input")).release();
  });
}

PrismStatus* SessionGetOutputTypeInfo(const PrismSession* session, size_t index,
                                      PrismTypeInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = MakeTypeInfo(InfoAt(session->outputs, index, "output")).release();
  });
}

PrismStatus* SessionGetOverridableInitializerTypeInfo(const PrismSession* session, size_t index,
                                                      PrismTypeInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    *out = MakeTypeInfo(InfoAt(session->initializers, index, "overridable initializer")).release();
  });
}

PrismStatus* SessionGetModelMetadata(const PrismSession* session,
                                     PrismModelMetadata** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    auto metadata = std::make_unique<PrismModelMetadata>();
    metadata->metadata = session->session->Metadata();
    for (const auto& entry : metadata->metadata.custom_metadata) metadata->custom.push_back(entry);
    *out = metadata.release();
  });
}

PrismStatus* SessionGetProviders(const PrismSession* session, char*** names,
                                 size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(names, "names");
    Require(count, "count");
    CopyToCStringArray(session->session->Providers(), names, count);
  });
}

PrismStatus* SessionGetProviderOptions(const PrismSession* session, size_t provider_index,
                                       char*** keys, char*** values, size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(keys, "keys");
    Require(values, "values");
    Require(count, "count");
    const std::vector<ProviderOptions> all = session->session->ProviderOptionsList();
    PRISM_ENFORCE(provider_index < all.size(), kInvalidArgument, "provider index ", provider_index,
                  " is out of range: the session uses ", all.size(), " providers");
    std::vector<std::string> key_list;
    std::vector<std::string> value_list;
    for (const auto& [key, value] : all[provider_index]) {
      key_list.push_back(key);
      value_list.push_back(value);
    }
    CopyKeyValueArrays(key_list, value_list, keys, values, count);
  });
}

PrismStatus* SessionSetProviders(PrismSession* session,
                                 const PrismSessionOptions* providers_from) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(providers_from, "providers_from");
    std::unique_lock lock(session->plan_mutex);
    session->session->SetProviders(providers_from->providers);
  });
}

PrismStatus* SessionGetPartitionReport(const PrismSession* session, PrismReportFormat format,
                                       char** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    const int kind = EnumArgument(format);
    PRISM_ENFORCE(kind == PRISM_REPORT_TEXT || kind == PRISM_REPORT_DOT, kInvalidArgument,
                  "report format must be PRISM_REPORT_TEXT (0) or PRISM_REPORT_DOT (1), got ",
                  kind);
    std::shared_lock lock(session->plan_mutex);
    const PartitionReport report = session->session->Report();
    *out = CopyToCString(kind == PRISM_REPORT_TEXT ? report.ToText() : report.ToDot());
  });
}

PrismStatus* SessionEndProfiling(PrismSession* session, char** path) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(path, "path");
    *path = CopyToCString(session->session->EndProfiling());
  });
}

PrismStatus* SessionSetFallbackEnabled(PrismSession* session, int enabled) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    if (enabled)
      session->session->EnableFallback();
    else
      session->session->DisableFallback();
  });
}

PrismStatus* SessionGetFallbackEnabled(const PrismSession* session, int* enabled) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(enabled, "enabled");
    *enabled = session->session->FallbackEnabled() ? 1 : 0;
  });
}

PrismStatus* SessionGetAllocatorStats(const PrismSession* session, const char* memory_name,
                                      int device_id, char*** keys, char*** values,
                                      size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    const std::string wanted =
        prism::MakeString(Require(memory_name, "memory_name"), ":", device_id);
    Require(keys, "keys");
    Require(values, "values");
    Require(count, "count");
    const std::vector<NamedAllocatorStats> all = session->session->AllocatorStatistics();
    const NamedAllocatorStats* found = nullptr;
    std::string known;
    for (const NamedAllocatorStats& named : all) {
      if (named.memory == wanted) found = &named;
      known += (known.empty() ? "" : ", ") + named.memory;
    }
    PRISM_ENFORCE(found != nullptr, kInvalidArgument, "the session has no allocator for ", wanted,
                  " memory; it has: ", known);
    std::vector<std::pair<std::string, int64_t>> entries = AllocatorStatsEntries(found->stats);
    entries.emplace_back("Arena", found->arena ? 1 : 0);
    entries.emplace_back("Shared", found->shared ? 1 : 0);
    CopyNamedCounts(entries, keys, values, count);
  });
}

PrismStatus* SessionTakeFallbackNotice(const PrismSession* session, char** notice) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(notice, "notice");
    *notice = CopyToCString(session->session->TakeFallbackNotice());
  });
}

namespace {

// Run's and RunAsync's arguments, checked and copied.
struct RunArguments {
  std::vector<std::string> feed_names;
  std::vector<Value> feeds;
  std::vector<std::string> fetch_names;
  // The caller's tensors for outputs whose slot was not NULL on entry (onnxruntime's
  // preallocated outputs), nullptr for the others.
  std::vector<PrismValue*> preallocated;
};

// The array arguments every run entry point takes (inputs: its values or buffers).
void RequireRunArrays(const char* function, PrismSession* session, const char* const* input_names,
                      const void* inputs, size_t input_count, const char* const* output_names,
                      size_t output_count, PrismValue** outputs) {
  Require(session, "session");
  if (input_count > 0) {
    Require(input_names, "input_names");
    Require(inputs, "inputs");
  }
  Require(output_names, "output_names");
  Require(outputs, "outputs");
  PRISM_ENFORCE(output_count > 0, kInvalidArgument, function,
                ": output_count must be at least 1 (name the outputs to compute)");
}

RunArguments CollectRunArguments(const char* function, PrismSession* session,
                                 const char* const* input_names, const PrismValue* const* inputs,
                                 size_t input_count, const char* const* output_names,
                                 size_t output_count, PrismValue** outputs) {
  RequireRunArrays(function, session, input_names, inputs, input_count, output_names, output_count,
                   outputs);
  RunArguments arguments;
  for (size_t i = 0; i < input_count; ++i) {
    PRISM_ENFORCE(input_names[i] != nullptr, kInvalidArgument, function, ": input_names[", i,
                  "] is NULL");
    PRISM_ENFORCE(inputs[i] != nullptr, kInvalidArgument, function, ": inputs[", i, "] (input '",
                  input_names[i], "') is NULL");
    arguments.feed_names.emplace_back(input_names[i]);
    arguments.feeds.push_back(inputs[i]->value);
  }
  for (size_t i = 0; i < output_count; ++i) {
    PRISM_ENFORCE(output_names[i] != nullptr, kInvalidArgument, function, ": output_names[", i,
                  "] is NULL");
    arguments.fetch_names.emplace_back(output_names[i]);
    PrismValue* given = outputs[i];
    PRISM_ENFORCE(given == nullptr || given->value.IsTensor(), kInvalidArgument, function,
                  ": outputs[", i, "] (output '", output_names[i],
                  "') is a preallocated value that is not a tensor; pass NULL to have the run "
                  "allocate the output");
    arguments.preallocated.push_back(given);
  }
  return arguments;
}

// Runs and wraps every result before handing any out: a failure leaves outputs untouched (a
// preallocated output may have been written). Preallocated outputs receive their result in place
// and stay in their slot.
void RunInto(InferenceSession& session, const PrismRunOptions* run_options,
             const RunArguments& arguments, PrismValue** outputs) {
  const RunOptions defaults;
  const RunOptions& options = run_options != nullptr ? run_options->options : defaults;
  const bool any_preallocated =
      std::any_of(arguments.preallocated.begin(), arguments.preallocated.end(),
                  [](const PrismValue* value) { return value != nullptr; });
  std::vector<Value> results;
  if (any_preallocated) {
    std::vector<OutputDestination> destinations(arguments.fetch_names.size());
    for (size_t i = 0; i < destinations.size(); ++i)
      if (arguments.preallocated[i] != nullptr)
        destinations[i].preallocated = &arguments.preallocated[i]->value;
    results = session.Run(options, arguments.feed_names, arguments.feeds, arguments.fetch_names,
                          destinations);
  } else {
    results = session.Run(options, arguments.feed_names, arguments.feeds, arguments.fetch_names);
  }
  std::vector<std::unique_ptr<PrismValue>> wrapped(results.size());
  for (size_t i = 0; i < results.size(); ++i)
    if (arguments.preallocated[i] == nullptr)
      wrapped[i] = std::make_unique<PrismValue>(std::move(results[i]));
  for (size_t i = 0; i < wrapped.size(); ++i)
    if (wrapped[i] != nullptr) outputs[i] = wrapped[i].release();
}

}  // namespace

PrismStatus* Run(PrismSession* session, const PrismRunOptions* run_options,
                 const char* const* input_names, const PrismValue* const* inputs,
                 size_t input_count, const char* const* output_names, size_t output_count,
                 PrismValue** outputs) noexcept {
  return Guard(__func__, [&] {
    const RunArguments arguments = CollectRunArguments(
        "Run", session, input_names, inputs, input_count, output_names, output_count, outputs);
    RunInto(*session->session, run_options, arguments, outputs);
  });
}

PrismStatus* RunWithBuffers(PrismSession* session, const PrismRunOptions* run_options,
                            const char* const* input_names, const PrismTensorBuffer* inputs,
                            size_t input_count, const char* const* output_names,
                            size_t output_count, PrismValue** outputs,
                            PrismValueDescription* descriptions, int64_t* dims,
                            size_t dims_capacity) noexcept {
  return Guard(__func__, [&] {
    RequireRunArrays("RunWithBuffers", session, input_names, inputs, input_count, output_names,
                     output_count, outputs);
    Require(descriptions, "descriptions");
    if (dims_capacity > 0) Require(dims, "dims");
    RunArguments arguments;
    arguments.feed_names.reserve(input_count);
    arguments.feeds.reserve(input_count);
    const MemoryInfo cpu;
    for (size_t i = 0; i < input_count; ++i) {
      PRISM_ENFORCE(input_names[i] != nullptr, kInvalidArgument, "RunWithBuffers: input_names[", i,
                    "] is NULL");
      const PrismTensorBuffer& buffer = inputs[i];
      try {
        arguments.feeds.emplace_back(TensorOverCallerMemory(cpu, buffer.data, buffer.size_in_bytes,
                                                            buffer.dims, buffer.rank,
                                                            EnumArgument(buffer.element_type)));
      } catch (const NullArgument& null) {
        // The buffer's fields by their names here (the shared check calls dims "shape").
        const std::string field = std::string(null.argument) == "shape" ? "dims" : null.argument;
        PRISM_THROW(kInvalidArgument, "RunWithBuffers: inputs[", i, "] (input '", input_names[i],
                    "'): ", field, " is NULL");
      } catch (const Exception& error) {
        throw Exception(error.Code(), MakeString("RunWithBuffers: inputs[", i, "] (input '",
                                                 input_names[i], "'): ", error.what()));
      }
      arguments.feed_names.emplace_back(input_names[i]);
    }
    for (size_t i = 0; i < output_count; ++i) {
      PRISM_ENFORCE(output_names[i] != nullptr, kInvalidArgument, "RunWithBuffers: output_names[",
                    i, "] is NULL");
      PRISM_ENFORCE(outputs[i] == nullptr, kInvalidArgument, "RunWithBuffers: outputs[", i,
                    "] (output '", output_names[i],
                    "') is not NULL; preallocated outputs go through Run");
      arguments.fetch_names.emplace_back(output_names[i]);
      arguments.preallocated.push_back(nullptr);
    }
    std::vector<PrismValue*> results(output_count, nullptr);
    RunInto(*session->session, run_options, arguments, results.data());
    // Nothing below can fail: describe, then hand everything out.
    size_t dims_used = 0;
    for (size_t i = 0; i < output_count; ++i) {
      PrismValueDescription description = DescribeContents(*results[i]);
      description.dims_offset = static_cast<size_t>(-1);
      if (results[i]->value.IsTensor()) {
        const std::vector<int64_t>& shape = results[i]->value.GetTensor().Shape().Dims();
        if (shape.size() <= dims_capacity - dims_used) {
          std::copy(shape.begin(), shape.end(), dims + dims_used);
          description.dims_offset = dims_used;
          dims_used += shape.size();
        }
      }
      descriptions[i] = description;
      outputs[i] = results[i];
    }
  });
}

PrismStatus* RunAsync(PrismSession* session, const PrismRunOptions* run_options,
                      const char* const* input_names, const PrismValue* const* inputs,
                      size_t input_count, const char* const* output_names, size_t output_count,
                      PrismValue** outputs, PrismRunAsyncCallback callback,
                      void* user_data) noexcept {
  return Guard(__func__, [&] {
    Require(callback, "callback");
    auto arguments = std::make_shared<RunArguments>(
        CollectRunArguments("RunAsync", session, input_names, inputs, input_count, output_names,
                            output_count, outputs));
    std::shared_ptr<InferenceSession> core = session->session;
    AsyncRunQueue().Submit(
        [core, run_options, arguments, outputs, output_count, callback, user_data] {
          PrismStatus* status =
              Guard("RunAsync", [&] { RunInto(*core, run_options, *arguments, outputs); });
          try {
            if (status == nullptr)
              callback(user_data, outputs, output_count, nullptr);
            else
              callback(user_data, nullptr, 0, status);
          } catch (...) {
            // A callback must not throw; nothing is left to tell.
          }
        });
  });
}

PrismStatus* SessionGetProfilingStartTimeNs(const PrismSession* session, uint64_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    *Require(out, "out") = static_cast<uint64_t>(session->session->ProfilingStartTimeNs());
  });
}

}  // namespace prism::capi
