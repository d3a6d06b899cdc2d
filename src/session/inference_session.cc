#include "session/inference_session.h"

#include <optional>
#include <unordered_map>

#include "common/denormal.h"
#include "common/logging.h"
#include "session/executor.h"
#include "session/model_file_weights.h"
#include "session/profiler.h"
#include "session/session_state.h"

namespace prism {
namespace {

ValueInfo MakeValueInfo(const NodeArg& arg) {
  ValueInfo info;
  info.name = arg.name;
  info.type = arg.type;
  if (arg.shape) {
    info.has_shape = true;
    info.shape = arg.shape->dims;
  }
  return info;
}

std::vector<ValueInfo> MakeValueInfos(const std::vector<NodeArg*>& args) {
  std::vector<ValueInfo> infos;
  for (const NodeArg* arg : args) infos.push_back(MakeValueInfo(*arg));
  return infos;
}

// The key and value types of a map (or seq(map)) feed are those declared, where declared.
bool MapTypesMatch(const ValueType& declared, const ValueType& fed) {
  return (declared.key == ElementType::kUndefined || declared.key == fed.key) &&
         (declared.elem == ElementType::kUndefined || declared.elem == fed.elem);
}

// Checks a feed against the graph input's declared type and static dims.
void CheckFeed(const NodeArg& input, const Value& feed) {
  PRISM_ENFORCE(feed.HasValue() || input.type.kind == TypeKind::kOptional, kInvalidArgument,
                "input '", input.name, "' was fed an empty value but expects ",
                input.type.ToString());
  if (input.type.kind == TypeKind::kTensor) {
    PRISM_ENFORCE(feed.IsTensor(), kInvalidArgument, "input '", input.name, "' expects ",
                  input.type.ToString(), ", got ", feed.Describe());
    const Tensor& tensor = feed.GetTensor();
    PRISM_ENFORCE(input.type.elem == ElementType::kUndefined || tensor.Type() == input.type.elem,
                  kInvalidArgument, "input '", input.name, "' expects element type ",
                  ElementTypeName(input.type.elem), ", got ", ElementTypeName(tensor.Type()));
    if (input.shape) {
      const auto& dims = input.shape->dims;
      PRISM_ENFORCE(dims.size() == tensor.Shape().Rank(), kInvalidArgument, "input '", input.name,
                    "' expects rank ", dims.size(), " ", input.shape->ToString(), ", got shape ",
                    tensor.Shape().ToString());
      for (size_t d = 0; d < dims.size(); ++d)
        PRISM_ENFORCE(!dims[d].IsKnown() || dims[d].value == tensor.Shape()[d], kInvalidArgument,
                      "input '", input.name, "' expects shape ", input.shape->ToString(), ", got ",
                      tensor.Shape().ToString(), " (dimension ", d, ")");
    }
  } else if (input.type.IsSequenceOfMaps()) {
    PRISM_ENFORCE(feed.IsMapSequence() && MapTypesMatch(input.type, feed.Type()), kInvalidArgument,
                  "input '", input.name, "' expects ", input.type.ToString(), ", got ",
                  feed.Describe());
  } else if (input.type.kind == TypeKind::kSequence) {
    PRISM_ENFORCE(feed.IsSequence() && !feed.IsMapSequence(), kInvalidArgument, "input '",
                  input.name, "' expects ", input.type.ToString(), ", got ", feed.Describe());
  } else if (input.type.kind == TypeKind::kMap) {
    PRISM_ENFORCE(feed.IsMap() && MapTypesMatch(input.type, feed.Type()), kInvalidArgument,
                  "input '", input.name, "' expects ", input.type.ToString(), ", got ",
                  feed.Describe());
  }
  // A bool element is one byte, 0 or 1: any other byte (caller memory wrapped as a tensor) is
  // undefined behaviour for every kernel that reads it.
  if (feed.IsTensor() && feed.GetTensor().Type() == ElementType::kBool &&
      feed.GetTensor().Location().IsCpuAccessible()) {
    const auto* bytes = static_cast<const uint8_t*>(feed.GetTensor().RawData());
    for (int64_t i = 0; i < feed.GetTensor().NumElements(); ++i)
      PRISM_ENFORCE(bytes[i] <= 1, kInvalidArgument, "input '", input.name, "' holds byte ",
                    int{bytes[i]}, " at element ", i, "; bool elements must be 0 or 1");
  }
}

// A feed as the graph reads it: an empty sequence made without element types (the C API's
// CreateSequenceValue with no elements) fed to a seq(map(K, V)) input is that input's empty
// sequence of maps.
Value AdaptFeed(const NodeArg& input, const Value& feed) {
  if (input.type.IsSequenceOfMaps() && feed.IsSequence() && !feed.IsMapSequence() &&
      feed.GetSequence().tensors.empty() &&
      feed.GetSequence().elem_type == ElementType::kUndefined &&
      input.type.key != ElementType::kUndefined && input.type.elem != ElementType::kUndefined)
    return Value(MapSequence{input.type.key, input.type.elem, {}});
  return feed;
}

// Copies a run's result into the caller's preallocated tensor, in whatever memory that is,
// after checking it matches; false when the result already is that buffer (nothing copied).
bool CopyIntoPreallocated(const SessionState& state, const std::string& name, const Value& produced,
                          Value& preallocated) {
  PRISM_ENFORCE(preallocated.IsTensor(), kInvalidArgument, "output '", name,
                "' can only be bound to a preallocated tensor, got ", preallocated.Describe());
  Tensor& target = preallocated.MutableTensor();
  PRISM_ENFORCE(produced.IsTensor(), kInvalidArgument, "output '", name, "' is ",
                produced.Describe(), " but was bound to a preallocated ", target.Describe());
  const Tensor& result = produced.GetTensor();
  PRISM_ENFORCE(result.Type() == target.Type(), kInvalidArgument, "output '", name,
                "' is bound to a preallocated ", target.Describe(), " but the model produced ",
                result.Describe(), " (element types differ)");
  PRISM_ENFORCE(result.Shape() == target.Shape(), kInvalidArgument, "output '", name,
                "' is bound to a preallocated ", target.Describe(), " but the model produced ",
                result.Describe(), " (shapes differ)");
  if (result.RawData() == target.RawData() && result.Location().SameSpace(target.Location()))
    return false;
  PRISM_ENFORCE(state.DataTransfers().Find(result.Location(), target.Location()) != nullptr,
                kInvalidArgument, "output '", name, "' is produced in ",
                result.Location().ToString(), " memory but bound to a preallocated tensor in ",
                target.Location().ToString(),
                " memory, and no execution provider of this session copies between them");
  state.DataTransfers().CopyTensor(result, target);
  return true;
}

}  // namespace

InferenceSession::InferenceSession(SessionOptions options, std::vector<ProviderSpec> providers)
    : options_(std::move(options)), requested_providers_(std::move(providers)) {
  if (options_.enable_profiling) profiler_ = std::make_unique<Profiler>();
  log_settings_.severity = options_.log_severity_level;
  log_settings_.verbosity = options_.log_verbosity_level;
  log_settings_.log_id = options_.log_id;
  const std::string denormal = options_.ConfigOr("session.set_denormal_as_zero", "0");
  PRISM_ENFORCE(denormal == "0" || denormal == "1", kInvalidArgument,
                "session config entry session.set_denormal_as_zero must be \"0\" or \"1\", got '",
                denormal, "'");
  denormal_as_zero_ = denormal == "1";
  if (denormal_as_zero_ && !DenormalAsZeroSupported())
    LogWarningOnce("session.set_denormal_as_zero",
                   "session.set_denormal_as_zero has no effect: this build cannot change the "
                   "floating-point denormal mode on this CPU");
  // Settings without effect yet say so, once per process each, naming themselves.
  if (options_.inter_op_num_threads > 1 && options_.execution_mode != ExecutionMode::kParallel)
    LogWarningOnce("inter_op_num_threads",
                   "SessionOptions.inter_op_num_threads has no effect with execution_mode "
                   "sequential: set execution_mode parallel to run independent nodes at once");
}

InferenceSession::~InferenceSession() = default;

const ThreadPool* InferenceSession::IntraOpPool() const {
  return State()->IntraOpPool();
}

ModelLoadLimits InferenceSession::LoadLimits() const {
  ModelLoadLimits limits;
  limits.max_tensor_bytes = AllocationLimitsFromConfig(options_.config_entries).max_tensor_bytes;
  return limits;
}

void InferenceSession::Load(const std::string& path) {
  ScopedLogSettings log_scope(&log_settings_);
  PRISM_ENFORCE(!model_, kModelLoaded, "a model is already loaded in this session");
  const auto start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
  model_ = Model::LoadFromFile(path, LoadLimits(), &options_.model_adjustments);
  const ModelAdjustments& adjustments = options_.model_adjustments;
  if (adjustments.initializers.empty() && adjustments.external_initializers.empty() &&
      adjustments.external_files.empty())
    model_file_ = ModelFileWeights::Remember(path, LoadLimits());
  // The in-memory files were copied and their buffers may go now: forget the pointers.
  options_.model_adjustments.external_files.clear();
  if (profiler_) profiler_->RecordSession("model_loading_uri", start, Profiler::Clock::now());
  Initialize();
}

void InferenceSession::Load(const void* data, size_t size, const std::string& model_directory) {
  ScopedLogSettings log_scope(&log_settings_);
  PRISM_ENFORCE(!model_, kModelLoaded, "a model is already loaded in this session");
  const auto start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
  // onnxruntime's key for where a model given as bytes keeps its external data files.
  const std::string folder =
      !model_directory.empty()
          ? model_directory
          : options_.ConfigOr("session.model_external_initializers_file_folder_path", "");
  model_ = Model::LoadFromBytes(data, size, folder, LoadLimits(), &options_.model_adjustments);
  options_.model_adjustments.external_files.clear();  // copied; the buffers may go now
  if (profiler_) profiler_->RecordSession("model_loading_array", start, Profiler::Clock::now());
  Initialize();
}

void InferenceSession::Initialize() {
  ScopedLogSettings log_scope(&log_settings_);
  PRISM_ENFORCE(model_ != nullptr, kNoModel, "no model is loaded");
  if (options_.ConfigOr("session.disable_ep_failure_fallback", "0") == "1")
    fallback_enabled_ = false;
  try {
    BuildState();
  } catch (const Exception& error) {
    if (!FallBackToCpu(error, nullptr, /*creating=*/true)) throw;
  }
}

void InferenceSession::BuildState() {
  // The model is this session's own (it loaded it), so it may give up the weights its state
  // holds only prepacked; they come back from their packed forms for every new state (and when
  // a build fails, for the next one).
  Model& model = const_cast<Model&>(*model_);
  for (auto& [name, packed] : released_weights_) model.RestoreInitializer(name, packed.unpack());
  released_weights_.clear();
  if (model_file_) model_file_->Forget();
  const auto start = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point();
  std::vector<std::pair<std::string, PrePackedWeight>> released;
  std::shared_ptr<const SessionState> state;
  try {
    state = SessionState::Build(model_, options_, requested_providers_, profiler_.get(),
                                [&](const std::string& name, const PrePackedWeight& packed) {
                                  PrePackedWeight restore = packed;
                                  // No rebuild from the state: only the file can give it back.
                                  if (!restore.unpack) {
                                    if (!model_file_) return;
                                    restore.unpack = [file = model_file_, name] {
                                      return file->Reload(name);
                                    };
                                  }
                                  model.ReleaseInitializer(name);
                                  released.emplace_back(name, std::move(restore));
                                });
  } catch (...) {
    for (auto& [name, packed] : released) model.RestoreInitializer(name, packed.unpack());
    if (model_file_) model_file_->Forget();
    throw;
  }
  if (profiler_) profiler_->RecordSession("session_initialization", start, Profiler::Clock::now());
  if (LogEnabled(Severity::kVerbose)) {
    std::string providers;
    for (const auto& provider : state->Providers())
      providers += (providers.empty() ? "" : ", ") + provider->Type();
    PRISM_LOG(kVerbose, "session initialized: ", state->Report().nodes.size(), " nodes, ",
              state->Report().copies.size(), " copies, providers [", providers, "]");
  }
  released_weights_ = std::move(released);
  std::lock_guard<std::mutex> lock(state_mutex_);
  state_ = std::move(state);
}

bool InferenceSession::MayRetryOnCpu(const Exception& error, bool creating) const {
  if (!fallback_enabled_ || options_.ConfigOr("session.disable_cpu_ep_fallback", "0") == "1")
    return false;
  bool uses_other = false;
  for (const ProviderSpec& spec : requested_providers_)
    uses_other = uses_other || spec.name != kCpuExecutionProvider;
  if (!uses_other) return false;
  // Only failures of an EP (kEpFail: its creation, GetCapability, Compile or kernels) may go
  // away on the CPU EP; errors in the model or the caller's arguments would come back, and a
  // caller who made unavailable EPs an error asked not to be rescued.
  if (creating && options_.ConfigOr("session.fail_on_unavailable_provider", "0") == "1")
    return false;
  return error.Code() == StatusCode::kEpFail;
}

bool InferenceSession::FallBackToCpu(const Exception& error,
                                     const std::shared_ptr<const SessionState>& failed_on,
                                     bool creating) const {
  std::lock_guard<std::mutex> lock(fallback_mutex_);
  // Another thread's run fell back (or SetProviders ran) since this run started: retry there.
  if (failed_on != nullptr && State() != failed_on) return true;
  if (!MayRetryOnCpu(error, creating)) return false;
  std::string names;
  ProviderSpec cpu{kCpuExecutionProvider, {}};
  for (const ProviderSpec& spec : requested_providers_) {
    names += MakeString(names.empty() ? "'" : ", '", spec.name, "'");
    if (spec.name == kCpuExecutionProvider) cpu = spec;
  }
  const std::string notice =
      MakeString("EP Error ", error.what(), " when using [", names, "]. Falling back to ['",
                 kCpuExecutionProvider, "'] and retrying.");
  PRISM_LOG(kWarning, notice);
  requested_providers_ = {cpu};
  const_cast<InferenceSession*>(this)->BuildState();
  fallback_enabled_ = false;  // once, as onnxruntime does
  fallback_notice_ = notice;
  return true;
}

std::string InferenceSession::TakeFallbackNotice() const {
  std::lock_guard<std::mutex> lock(fallback_mutex_);
  return std::exchange(fallback_notice_, std::string());
}

std::shared_ptr<const SessionState> InferenceSession::State() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  PRISM_ENFORCE(state_ != nullptr, kNoModel, "the session has no model loaded");
  return state_;
}

std::vector<Value> InferenceSession::Run(const RunOptions& run_options,
                                         const std::vector<std::string>& feed_names,
                                         const std::vector<Value>& feeds,
                                         const std::vector<std::string>& output_names,
                                         bool keep_device_outputs) const {
  OutputDestination fallback;
  if (keep_device_outputs) fallback.memory.reset();
  return RunTo(run_options, feed_names, feeds, output_names, {}, fallback);
}

std::vector<Value> InferenceSession::Run(const RunOptions& run_options,
                                         const std::vector<std::string>& feed_names,
                                         const std::vector<Value>& feeds,
                                         const std::vector<std::string>& output_names,
                                         const std::vector<OutputDestination>& destinations) const {
  PRISM_ENFORCE(destinations.size() == output_names.size(), kInvalidArgument, destinations.size(),
                " output destinations for ", output_names.size(), " output names");
  return RunTo(run_options, feed_names, feeds, output_names, destinations, OutputDestination{});
}

std::vector<Value> InferenceSession::RunTo(const RunOptions& run_options,
                                           const std::vector<std::string>& feed_names,
                                           const std::vector<Value>& feeds,
                                           const std::vector<std::string>& output_names,
                                           const std::vector<OutputDestination>& destinations,
                                           const OutputDestination& fallback) const {
  std::shared_ptr<const SessionState> state = State();  // stays alive across SetProviders
  try {
    return RunOnce(state, run_options, feed_names, feeds, output_names, destinations, fallback);
  } catch (const Exception& error) {
    if (error.Code() != StatusCode::kEpFail || !FallBackToCpu(error, state, /*creating=*/false))
      throw;
    return RunOnce(State(), run_options, feed_names, feeds, output_names, destinations, fallback);
  }
}

std::vector<Value> InferenceSession::RunOnce(const std::shared_ptr<const SessionState>& state,
                                             const RunOptions& run_options,
                                             const std::vector<std::string>& feed_names,
                                             const std::vector<Value>& feeds,
                                             const std::vector<std::string>& output_names,
                                             const std::vector<OutputDestination>& destinations,
                                             const OutputDestination& fallback) const {
  // The run's logging: its own severity and verbosity when it sets a severity, else the
  // session's (a verbosity set alone still counts); its tag names it, else the session's id.
  // (Copied only when the run changes something: the copy holds a string.)
  std::optional<LogSettings> run_log;
  if (run_options.log_severity_level >= 0 || run_options.log_verbosity_level >= 0 ||
      !run_options.run_tag.empty()) {
    run_log = log_settings_;
    if (run_options.log_severity_level >= 0) {
      run_log->severity = run_options.log_severity_level;
      run_log->verbosity = run_options.log_verbosity_level;
    } else if (run_options.log_verbosity_level >= 0) {
      run_log->verbosity = run_options.log_verbosity_level;
    }
    if (!run_options.run_tag.empty()) run_log->log_id = run_options.run_tag;
  }
  ScopedLogSettings log_scope(run_log ? &*run_log : &log_settings_);
  std::optional<ScopedDenormalMode> denormal_mode;
  if (denormal_as_zero_) denormal_mode.emplace(ScopedDenormalMode::AsZero());
  RunInstrumentation instrumentation;
  instrumentation.profiler = profiler_ && profiler_->Enabled() ? profiler_.get() : nullptr;
  const auto run_start =
      instrumentation.profiler ? Profiler::Clock::now() : Profiler::Clock::time_point();
  const Graph& graph = state->GetGraph();
  const GraphPlan& plan = state->MainPlan();
  PRISM_ENFORCE(feed_names.size() == feeds.size(), kInvalidArgument, feed_names.size(),
                " feed names for ", feeds.size(), " feeds");

  std::vector<Value> inputs(graph.Inputs().size());
  std::vector<bool> fed(graph.Inputs().size(), false);
  for (size_t f = 0; f < feeds.size(); ++f) {
    const std::optional<size_t> position = state->InputIndex(feed_names[f]);
    PRISM_ENFORCE(position.has_value(), kInvalidArgument, "invalid input name '", feed_names[f],
                  "': the model's inputs are ", [&] {
                    std::string names;
                    for (const NodeArg* arg : graph.Inputs())
                      names += (names.empty() ? "'" : ", '") + arg->name + "'";
                    return names;
                  }());
    PRISM_ENFORCE(!fed[*position], kInvalidArgument, "input '", feed_names[f], "' is fed twice");
    const NodeArg& input = *graph.Inputs()[*position];
    const Value feed = AdaptFeed(input, feeds[f]);
    CheckFeed(input, feed);
    // A feed in device memory goes in as given: the executor uses it in place where it is
    // consumed in that memory, and copies it only for consumers elsewhere.
    inputs[*position] = feed;
    fed[*position] = true;
  }
  for (const NodeArg* required : graph.RequiredInputs()) {
    PRISM_ENFORCE(
        fed[*state->InputIndex(required->name)] || required->type.kind == TypeKind::kOptional,
        kInvalidArgument, "missing input '", required->name, "' (", required->type.ToString(), ")");
  }

  std::vector<size_t> selected;
  if (output_names.empty()) {
    for (size_t i = 0; i < graph.Outputs().size(); ++i) selected.push_back(i);
  } else {
    for (const std::string& name : output_names) {
      size_t found = graph.Outputs().size();
      for (size_t i = 0; i < graph.Outputs().size(); ++i)
        if (graph.Outputs()[i]->name == name) found = i;
      PRISM_ENFORCE(found < graph.Outputs().size(), kInvalidArgument, "invalid output name '", name,
                    "'");
      selected.push_back(found);
    }
  }

  PRISM_LOG(kVerbose, "run begins: ", feeds.size(), " feeds, ", selected.size(), " of ",
            graph.Outputs().size(), " outputs",
            run_options.only_execute_path_to_fetches ? " (only the path to them)" : "");
  std::optional<std::vector<Value>> replayed;
  if (GraphCaptureRunner* capture = state->GraphCapture();
      capture != nullptr && !run_options.only_execute_path_to_fetches)
    replayed = capture->Run(*state, plan, inputs, run_options, &instrumentation);
  std::vector<Value> all =
      replayed ? std::move(*replayed)
               : ExecuteGraph(*state, plan, inputs, nullptr, run_options, &instrumentation,
                              run_options.only_execute_path_to_fetches ? &selected : nullptr);
  std::vector<Value> results;
  results.reserve(selected.size());
  for (size_t s = 0; s < selected.size(); ++s) {
    const Value& produced = all[selected[s]];
    const OutputDestination& destination = destinations.empty() ? fallback : destinations[s];
    const std::string& name = graph.Outputs()[selected[s]]->name;
    if (destination.preallocated != nullptr) {
      if (CopyIntoPreallocated(*state, name, produced, *destination.preallocated)) {
        instrumentation.copies++;
        instrumentation.bytes_copied += ValueBytes(produced);
      }
      results.push_back(*destination.preallocated);
    } else if (!destination.memory || ValueInMemory(produced, *destination.memory)) {
      results.push_back(produced);  // already where it is wanted: no copy
    } else {
      AllocatorPtr allocator = AllocatorFor(*destination.memory);
      PRISM_ENFORCE(allocator != nullptr, kInvalidArgument, "output '", name, "' cannot go to ",
                    destination.memory->ToString(),
                    " memory: no execution provider of this session owns it");
      instrumentation.copies++;
      instrumentation.bytes_copied += ValueBytes(produced);
      results.push_back(CopyValue(state->DataTransfers(), produced, allocator));
    }
  }
  if (ShrinkCpuArenaAfterRun(run_options)) state->Allocators().ShrinkCpuArenas();
  PRISM_LOG(kVerbose, "run ended: ", results.size(), " outputs, ", instrumentation.copies.load(),
            " copies");
  runs_.fetch_add(1, std::memory_order_relaxed);
  copies_.fetch_add(instrumentation.copies.load(), std::memory_order_relaxed);
  bytes_copied_.fetch_add(instrumentation.bytes_copied.load(), std::memory_order_relaxed);
  if (instrumentation.profiler) {
    std::vector<std::pair<std::string, std::string>> args;
    if (!run_options.run_tag.empty()) args.emplace_back("run_tag", run_options.run_tag);
    instrumentation.profiler->RecordSession("model_run", run_start, Profiler::Clock::now(),
                                            std::move(args));
  }
  return results;
}

bool InferenceSession::ShrinkCpuArenaAfterRun(const RunOptions& run_options) {
  if (run_options.config_entries.empty()) return false;
  auto it = run_options.config_entries.find("memory.enable_memory_arena_shrinkage");
  if (it == run_options.config_entries.end() || it->second.empty()) return false;
  // onnxruntime's form: "cpu:0;gpu:0", the devices whose arenas shrink when the run ends.
  bool cpu = false;
  size_t start = 0;
  const std::string& text = it->second;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(';', start), text.size());
    const std::string entry = text.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    const size_t colon = entry.find(':');
    const std::string device = entry.substr(0, colon);
    const std::string id = colon == std::string::npos ? "" : entry.substr(colon + 1);
    PRISM_ENFORCE(colon != std::string::npos && !device.empty() && !id.empty() &&
                      id.find_first_not_of("0123456789") == std::string::npos,
                  kInvalidArgument, "run config entry memory.enable_memory_arena_shrinkage: '",
                  entry, "' is not of the form device:id (as in \"cpu:0;gpu:0\")");
    if (device == "cpu")
      cpu = true;
    else
      LogWarningOnce("arena_shrinkage_" + device,
                     MakeString("memory.enable_memory_arena_shrinkage names '", device,
                                "': only CPU memory has an arena in this build; ignored"));
  }
  return cpu;
}

std::vector<NamedAllocatorStats> InferenceSession::AllocatorStatistics() const {
  return State()->Allocators().Stats();
}

std::vector<ValueInfo> InferenceSession::Inputs() const {
  return MakeValueInfos(GetModel().MainGraph().RequiredInputs());
}

std::vector<ValueInfo> InferenceSession::Outputs() const {
  return MakeValueInfos(GetModel().MainGraph().Outputs());
}

std::vector<ValueInfo> InferenceSession::OverridableInitializers() const {
  return MakeValueInfos(GetModel().MainGraph().OverridableInitializers());
}

const ModelMetadata& InferenceSession::Metadata() const {
  return GetModel().Metadata();
}

std::shared_ptr<const Graph> InferenceSession::SessionGraph() const {
  std::shared_ptr<const SessionState> state = State();
  return std::shared_ptr<const Graph>(state, &state->GetGraph());
}

const Model& InferenceSession::GetModel() const {
  PRISM_ENFORCE(model_ != nullptr, kNoModel, "no model is loaded");
  return *model_;
}

std::vector<std::string> InferenceSession::Providers() const {
  std::vector<std::string> names;
  for (const auto& provider : State()->Providers()) names.push_back(provider->Type());
  return names;
}

int InferenceSession::IntraOpThreads() const {
  const ThreadPool* pool = State()->IntraOpPool();
  return pool != nullptr ? pool->DegreeOfParallelism() : 1;
}

std::vector<MemoryInfo> InferenceSession::ProviderMemories() const {
  std::vector<MemoryInfo> memories;
  for (const auto& provider : State()->Providers())
    memories.push_back(provider->GetAllocator(MemType::kDefault)->Info());
  return memories;
}

std::vector<ProviderOptions> InferenceSession::ProviderOptionsList() const {
  std::vector<ProviderOptions> options;
  for (const auto& provider : State()->Providers())
    options.push_back(provider->GetProviderOptions());
  return options;
}

void InferenceSession::SetProviders(std::vector<ProviderSpec> providers) {
  requested_providers_ = std::move(providers);
  if (model_) Initialize();
}

PartitionReport InferenceSession::Report() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  PRISM_ENFORCE(state_ != nullptr, kNoModel, "the session has no model loaded");
  return state_->Report();
}

PrepackStatistics InferenceSession::Prepacking() const {
  const std::shared_ptr<const SessionState> state = State();
  PRISM_ENFORCE(state != nullptr, kNoModel, "the session has no model loaded");
  PrepackStatistics stats;
  std::function<void(const GraphPlan&)> count = [&](const GraphPlan& plan) {
    stats.packed_inputs += plan.prepacked_inputs;
    for (const auto& [graph, sub] : plan.subgraphs) count(*sub);
  };
  count(state->MainPlan());
  if (const PrepackedWeightsContainer* container = state->PrepackedWeights()) {
    stats.packed_weights = static_cast<int64_t>(container->Count());
    stats.packed_bytes = static_cast<int64_t>(container->Bytes());
    stats.shared_hits = container->Hits();
  }
  for (const auto& [name, packed] : state->ModelWeightsPrepacked()) {
    ++stats.originals_released;
    stats.released_bytes += static_cast<int64_t>(StorageBytes(packed.type, packed.shape.Size()));
  }
  return stats;
}

RunStatistics InferenceSession::Statistics() const {
  return RunStatistics{runs_.load(), copies_.load(), bytes_copied_.load()};
}

std::string InferenceSession::EndProfiling(const std::string& path) {
  if (!profiler_ || !profiler_->Enabled()) return "";
  const std::string target =
      path.empty() ? profiler_->DefaultPath(options_.profile_file_prefix) : path;
  profiler_->EndAndWrite(target);
  return target;
}

int64_t InferenceSession::ProfilingStartTimeNs() const {
  return profiler_ ? profiler_->StartTimeNs() : 0;
}

AllocatorPtr InferenceSession::AllocatorFor(const MemoryInfo& memory) const {
  if (memory.IsCpuAccessible()) return GetCpuAllocator();
  for (const auto& provider : State()->Providers()) {
    AllocatorPtr allocator = provider->GetAllocator(MemType::kDefault);
    if (allocator->Info().SameSpace(memory)) return allocator;
  }
  return nullptr;
}

Value InferenceSession::CopyToMemory(const Value& value, const MemoryInfo& memory) const {
  std::shared_ptr<const SessionState> state = State();
  if (value.IsTensor() && value.GetTensor().Location().SameSpace(memory)) return value;
  if (!value.IsTensor() && !value.IsSequence()) return value;
  if (value.IsMapSequence() && memory.IsCpuAccessible()) return value;  // maps are CPU values
  AllocatorPtr allocator = AllocatorFor(memory);
  PRISM_ENFORCE(allocator != nullptr, kInvalidArgument,
                "no execution provider of this session owns ", memory.ToString(), " memory");
  return CopyValue(state->DataTransfers(), value, allocator);
}

}  // namespace prism
