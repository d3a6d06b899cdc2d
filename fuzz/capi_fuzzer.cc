// The C ABI's argument checks: the input is a script of calls to libprism.so's function table
// (every version up to PRISM_API_VERSION), each with arguments drawn from the bytes: NULL or a live
// object of the right kind, indices in and out of range, negative and overflowing shapes, unknown
// enum values, strings with odd bytes, data lengths shorter than the shape needs. Every call must
// come back with a status (or success) and leave nothing behind: the objects are released at the
// end and LeakSanitizer checks that everything was freed.
//
// Out of scope (the caller's contract, not checkable): pointers that are neither NULL nor a
// live object, buffers shorter than the length passed with them, output arrays shorter than
// their count. Calls that write files (profiling, optimized_model_filepath) are left out, and
// allocations are kept small: a huge request is a plain out-of-memory, not an argument check.
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>

#include <onnx/onnx_pb.h>

#include "capi_enum_calls.h"
#include "fuzz_inputs.h"
#include "fuzz_target.h"
#include "prism/prism_c_api.h"

namespace prism::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxBytes = size_t{1} << 20;  // the largest buffer or tensor a call may ask for

// ---------------------------------------------------------------- the models the calls load

void AddTensorValue(onnx::ValueInfoProto* info, const std::string& name, int type,
                    const std::vector<std::string>& dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (const std::string& dim : dims) {
    auto* d = shape->add_dim();
    if (!dim.empty() && dim[0] >= '0' && dim[0] <= '9')
      d->set_dim_value(std::stoll(dim));
    else
      d->set_dim_param(dim);
  }
}

onnx::ModelProto NewModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("capi_fuzzer");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* prop = model.add_metadata_props();
  prop->set_key("key");
  prop->set_value("value");
  return model;
}

// X[batch,2] + W[2] -> Y, W an overridable initializer.
std::string AddModel() {
  onnx::ModelProto model = NewModel();
  auto* graph = model.mutable_graph();
  graph->set_name("add");
  AddTensorValue(graph->add_input(), "X", onnx::TensorProto::FLOAT, {"batch", "2"});
  AddTensorValue(graph->add_input(), "W", onnx::TensorProto::FLOAT, {"2"});
  auto* w = graph->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_float_data(1.f);
  w->add_float_data(2.f);
  auto* node = graph->add_node();
  node->set_op_type("Add");
  node->add_input("X");
  node->add_input("W");
  node->add_output("Y");
  AddTensorValue(graph->add_output(), "Y", onnx::TensorProto::FLOAT, {"batch", "2"});
  return model.SerializeAsString();
}

// S[n] (strings) -> Identity -> T, and S -> SequenceConstruct -> Q.
std::string StringModel() {
  onnx::ModelProto model = NewModel();
  auto* graph = model.mutable_graph();
  graph->set_name("strings");
  AddTensorValue(graph->add_input(), "S", onnx::TensorProto::STRING, {"n"});
  auto* identity = graph->add_node();
  identity->set_op_type("Identity");
  identity->add_input("S");
  identity->add_output("T");
  auto* construct = graph->add_node();
  construct->set_op_type("SequenceConstruct");
  construct->add_input("S");
  construct->add_output("Q");
  AddTensorValue(graph->add_output(), "T", onnx::TensorProto::STRING, {"n"});
  auto* q = graph->add_output();
  q->set_name("Q");
  q->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::STRING);
  return model.SerializeAsString();
}

struct Fixture {
  Fixture() : models{AddModel(), StringModel()} {
    const char* tmp = std::getenv("TMPDIR");
    folder = fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
             ("prism-capi-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(folder);
    std::ofstream(folder / "add.onnx", std::ios::binary) << models[0];
    std::ofstream(folder / "strings.onnx", std::ios::binary) << models[1];
    std::ofstream(folder / "garbage.onnx", std::ios::binary) << "not a model";
    api = PrismGetApiBase()->GetApi(PRISM_API_VERSION);
  }
  ~Fixture() {
    std::error_code ignored;
    fs::remove_all(folder, ignored);
  }
  std::vector<std::string> models;
  fs::path folder;
  const PrismApi* api = nullptr;
};

// ---------------------------------------------------------------- the objects a script holds

// Owned objects of one kind, released with release at the end (or by a Release call).
template <typename T>
struct Pool {
  std::vector<T*> items;
  T* Pick(ByteReader& in) {
    const uint8_t choice = in.Byte();
    if (items.empty() || choice % 8 == 0) return nullptr;
    return items[choice % items.size()];
  }
  // Removes and returns one item (nullptr when empty), for Release calls.
  T* Take(ByteReader& in) {
    if (items.empty()) return nullptr;
    const size_t index = in.Byte() % items.size();
    T* item = items[index];
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(index));
    return item;
  }
  void Add(T* item) {
    if (item != nullptr) items.push_back(item);
  }
};

// A custom op whose answers come from the bytes: names, counts, element types and
// characteristics in and out of range, version ranges, a compute that fails or produces nothing.
// Each lives until the script ends (sessions using it are released first).
struct FuzzOp {
  FuzzEnumOp base{};  // first: the callbacks cast the op pointer back
  std::string name;
  bool null_name = false;
  size_t inputs = 1, outputs = 1;
  int since = 1, end = 0;

  static const FuzzOp& Of(const PrismCustomOp* op) { return *reinterpret_cast<const FuzzOp*>(op); }
  FuzzOp() {
    PrismCustomOp& op = base.op;
    op.version = PRISM_CUSTOM_OP_VERSION;
    op.GetName = [](const PrismCustomOp* o) {
      return Of(o).null_name ? nullptr : Of(o).name.c_str();
    };
    op.GetInputTypeCount = [](const PrismCustomOp* o) { return Of(o).inputs; };
    op.GetOutputTypeCount = [](const PrismCustomOp* o) { return Of(o).outputs; };
    FuzzEnumOpInstall(&base);
    op.GetSinceVersion = [](const PrismCustomOp* o) { return Of(o).since; };
    op.GetEndVersion = [](const PrismCustomOp* o) { return Of(o).end; };
    op.KernelCompute = [](void*, PrismKernelContext*) -> PrismStatus* { return nullptr; };
  }
};
static_assert(offsetof(FuzzOp, base) == 0, "FuzzOp::Of casts the op back");

struct Allocation {
  PrismAllocator* allocator;
  void* pointer;
};

class Script {
 public:
  Script(const Fixture& fixture, ByteReader& in) : fx_(fixture), api_(*fixture.api), in_(in) {}
  ~Script() { ReleaseAll(); }
  void Run();

 private:
  // A status is fine either way; it must carry a code and a message, and be released.
  void Check(PrismStatus* status) {
    if (status == nullptr) return;
    const PrismErrorCode code = api_.GetErrorCode(status);
    const char* message = api_.GetErrorMessage(status);
    if (code == PRISM_OK || message == nullptr || *message == '\0') {
      std::fprintf(stderr, "capi_fuzzer: a failed call returned code %d and message '%s'\n",
                   static_cast<int>(code), message == nullptr ? "(null)" : message);
      std::abort();
    }
    api_.ReleaseStatus(status);
  }
  bool Ok(PrismStatus* status) {
    const bool ok = status == nullptr;
    Check(status);
    return ok;
  }

  // A string argument: NULL, a known name, or bytes from the input (NUL-terminated here).
  const char* Text(const std::vector<const char*>& known) {
    const uint8_t choice = in_.Byte();
    if (choice % 8 == 0) return nullptr;
    if (choice % 8 < 5 && !known.empty()) return known[choice % known.size()];
    strings_.push_back(std::make_unique<std::string>(in_.String(32)));
    return strings_.back()->c_str();
  }
  int Int() {
    static const int kValues[] = {0, 1, 2, -1, 3, 4, 99, INT_MAX, INT_MIN, 5, 1000};
    const uint8_t choice = in_.Byte();
    return choice < 200 ? kValues[choice % 11] : static_cast<int>(in_.U32());
  }
  size_t Index() {
    const uint8_t choice = in_.Byte();
    if (choice < 160) return choice % 4;
    if (choice < 200) return SIZE_MAX - (choice % 2);
    return static_cast<size_t>(in_.U64());
  }
  // A shape with its length; its element count is small, or overflows (refused before any
  // allocation), or has a negative dim; never a large but valid size.
  std::vector<int64_t> Shape() {
    const size_t rank = in_.Byte() % 6;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < rank; ++i) {
      const uint8_t choice = in_.Byte();
      if (choice < 200)
        dims.push_back(choice % 5);
      else if (choice < 230)
        dims.push_back(-static_cast<int64_t>(choice % 3) - 1);
      else
        dims.push_back(static_cast<int64_t>(in_.U64() | (uint64_t{1} << 62)));
    }
    // Large but valid products become small.
    long double product = 1;
    bool negative = false;
    for (int64_t d : dims) {
      product *= static_cast<long double>(d < 0 ? 0 : d);
      negative = negative || d < 0;
    }
    if (!negative && product > 1024 && product < 9.2e18L)
      for (int64_t& d : dims) d = d > 4 ? 4 : d;
    return dims;
  }
  // Enum arguments are plain ints, passed through capi_enum_calls.c as a C caller passes them.
  int Type() {
    const uint8_t choice = in_.Byte();
    if (choice < 220) return choice % 29;
    return static_cast<int>(in_.U32());
  }
  const void* Model(size_t* length) {
    const uint8_t choice = in_.Byte();
    if (choice % 8 == 0) {
      *length = in_.U16();
      return nullptr;
    }
    if (choice % 8 < 6) {
      const std::string& model = fx_.models[choice % fx_.models.size()];
      // The whole model, or a prefix of it.
      *length = choice >= 128 ? model.size() : std::min<size_t>(in_.U16(), model.size());
      return model.data();
    }
    strings_.push_back(std::make_unique<std::string>(in_.String(255)));
    *length = strings_.back()->size();
    return strings_.back()->data();
  }
  std::string ModelPath() {
    static const char* const kNames[] = {"add.onnx", "strings.onnx", "garbage.onnx", "absent.onnx",
                                         ""};
    return (fx_.folder / kNames[in_.Byte() % 5]).string();
  }
  PrismValue* NewValue();
  void Step();
  void ReleaseAll();

  const Fixture& fx_;
  const PrismApi& api_;
  ByteReader& in_;
  PrismEnv* env_ = nullptr;
  Pool<PrismSessionOptions> options_;
  Pool<PrismSession> sessions_;
  Pool<PrismRunOptions> run_options_;
  Pool<PrismValue> values_;
  Pool<PrismMemoryInfo> infos_;
  Pool<PrismAllocator> allocators_;  // owned (CreateAllocator)
  PrismAllocator* default_allocator_ = nullptr;
  Pool<PrismIoBinding> bindings_;
  Pool<PrismTypeInfo> type_infos_;
  Pool<PrismTensorTypeAndShapeInfo> tensor_infos_;
  Pool<PrismModelMetadata> metadata_;
  Pool<PrismThreadingOptions> threading_;
  Pool<PrismPrepackedWeightsContainer> containers_;
  Pool<PrismCustomOpDomain> domains_;
  Pool<PrismCUDAProviderOptions> cuda_options_;
  std::vector<std::unique_ptr<FuzzOp>> ops_;
  std::vector<Allocation> allocations_;
  // Memory that values made by CreateTensorWithDataAsValue borrow: kept until the end.
  std::vector<std::unique_ptr<std::vector<uint64_t>>> buffers_;
  std::vector<std::unique_ptr<std::string>> strings_;
};

PrismValue* Script::NewValue() {
  PrismValue* value = nullptr;
  switch (in_.Byte() % 3) {
    case 0: {
      std::vector<int64_t> shape = Shape();
      auto buffer = std::make_unique<std::vector<uint64_t>>(kMaxBytes / 8 / 64);
      const size_t capacity = buffer->size() * 8;
      const size_t claimed = std::min<size_t>(in_.U32(), capacity);
      auto [info, give_data, type] = std::tuple{infos_.Pick(in_), in_.Byte() % 8 != 0, Type()};
      Check(CallCreateTensorWithDataAsValue(&api_, info, give_data ? buffer->data() : nullptr,
                                            claimed, shape.empty() ? nullptr : shape.data(),
                                            shape.size(), type, &value));
      buffers_.push_back(std::move(buffer));
      break;
    }
    case 1: {
      std::vector<int64_t> shape = Shape();
      PrismAllocator* allocator = in_.Byte() % 2 ? default_allocator_ : allocators_.Pick(in_);
      const int type = Type();
      Check(CallCreateTensorAsValue(&api_, allocator, shape.empty() ? nullptr : shape.data(),
                                    shape.size(), type, &value));
      break;
    }
    default: {
      std::vector<PrismValue*> elements;
      const size_t count = in_.Byte() % 4;
      for (size_t i = 0; i < count; ++i) elements.push_back(values_.Pick(in_));
      Check(api_.CreateSequenceValue(elements.empty() ? nullptr : elements.data(), count, &value));
      break;
    }
  }
  return value;
}

void Script::Run() {
  for (int steps = 0; steps < 64 && !in_.Done(); ++steps) Step();
}

void Script::Step() {
  const PrismApi& a = api_;
  const std::vector<const char*> kNames = {"X", "W", "Y", "S", "T", "Q", ""};
  const std::vector<const char*> kProviders = {"CPUExecutionProvider", "TestExecutionProvider",
                                               "CUDAExecutionProvider", ""};
  const std::vector<const char*> kConfigKeys = {"session.disable_cpu_ep_fallback",
                                                "session.fail_on_unavailable_provider",
                                                "session.disable_prepacking",
                                                "session.arena_max_mem",
                                                "session.arena_extend_strategy",
                                                "session.arena_initial_chunk_size_bytes",
                                                "session.max_tensor_bytes",
                                                "session.max_memory_bytes",
                                                "session.disable_ep_failure_fallback",
                                                "session.use_env_allocators"};
  const std::vector<const char*> kConfigValues = {
      "0", "1", "-1", "kSameAsRequested", "", "18446744073709551616", "1024", "cpu:0"};
  const std::vector<const char*> kMemoryNames = {"Cpu",  "CpuInput",   "CpuOutput",
                                                 "Cuda", "CudaPinned", "TestDevice"};
  const int op = in_.Byte() % 72;
  static const bool trace = std::getenv("PRISM_FUZZ_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "capi_fuzzer: call group %d\n", op);
  switch (op) {
    // ---- environment
    case 0: {
      PrismEnv* env = nullptr;
      auto [level, log_id] = std::tuple{Int(), Text({"fuzz"})};
      if (Ok(CallCreateEnv(&a, level, log_id, &env))) {
        a.ReleaseEnv(env_);
        env_ = env;
        Check(a.SetLogSeverityLevel(env_, PRISM_LOGGING_FATAL));
      }
      break;
    }
    case 1: {
      auto [give_env, level] = std::tuple{in_.Byte() % 4 != 0, Int()};
      Check(CallSetLogSeverityLevel(&a, give_env ? env_ : nullptr, level));
    }
      // Keep the run quiet whatever level was asked for.
      if (env_ != nullptr) Check(a.SetLogSeverityLevel(env_, PRISM_LOGGING_FATAL));
      break;
    case 2: {
      char** names = nullptr;
      size_t count = 0;
      if (Ok(a.GetAvailableProviders(in_.Byte() % 8 ? &names : nullptr, &count)))
        a.ReleaseStringArray(names, count);
      break;
    }
    // ---- session options
    case 3: {
      PrismSessionOptions* options = nullptr;
      Check(a.CreateSessionOptions(&options));
      options_.Add(options);
      break;
    }
    case 4: {
      PrismSessionOptions* copy = nullptr;
      Check(a.CloneSessionOptions(options_.Pick(in_), &copy));
      options_.Add(copy);
      break;
    }
    case 5:
      a.ReleaseSessionOptions(options_.Take(in_));
      break;
    case 6: {
      // Thread counts other than 0..2 would start that many threads: kept to the checks.
      const int threads = Int();
      PrismSessionOptions* options = options_.Pick(in_);
      if (threads >= 0 && threads <= 2)
        Check(a.SetIntraOpNumThreads(options, threads));
      else if (threads < 0)
        Check(a.SetInterOpNumThreads(options, threads));
      break;
    }
    case 7: {
      auto [options, level] = std::tuple{options_.Pick(in_), Int()};
      Check(CallSetGraphOptimizationLevel(&a, options, level));
    } break;
    case 8: {
      auto [options, mode] = std::tuple{options_.Pick(in_), Int()};
      Check(CallSetExecutionMode(&a, options, mode));
    } break;
    case 9: {
      auto [options, level, log_id] = std::tuple{options_.Pick(in_), Int(), Text({"id"})};
      Check(a.SetSessionLogSeverityLevel(options, level));
      Check(a.SetSessionLogId(options, log_id));
    } break;
    case 10: {
      auto [options, arena, pattern] = std::tuple{options_.Pick(in_), Int(), Int()};
      Check(a.EnableCpuMemArena(options, arena));
      Check(a.EnableMemPattern(options, pattern));
    } break;
    case 11: {
      auto [options, key, value] =
          std::tuple{options_.Pick(in_), Text(kConfigKeys), Text(kConfigValues)};
      Check(a.AddSessionConfigEntry(options, key, value));
    } break;
    case 12: {
      const size_t count = in_.Byte() % 3;
      const char* keys[3] = {Text({"ops", "fuse", "device_id"}), Text({}), Text({})};
      const char* values[3] = {Text({"*", "Add", "1", "0"}), Text({}), Text({})};
      auto [options, name, give_keys, give_values] = std::tuple{
          options_.Pick(in_), Text(kProviders), in_.Byte() % 8 != 0, in_.Byte() % 8 != 0};
      Check(a.AppendExecutionProvider(options, name, give_keys ? keys : nullptr,
                                      give_values ? values : nullptr, count));
      break;
    }
    case 13: {
      const char* names[2] = {Text({"ConstantFolding", "EliminateIdentity"}), Text({})};
      auto [options, give_names, count] =
          std::tuple{options_.Pick(in_), in_.Byte() % 8 != 0, in_.Byte() % 3u};
      Check(a.SetDisabledOptimizers(options, give_names ? names : nullptr, count));
      break;
    }
    case 14:
      Check(a.DisablePerSessionThreads(options_.Pick(in_)));
      break;
    // ---- sessions
    case 15: {
      size_t length = 0;
      const void* model = Model(&length);
      PrismSession* session = nullptr;
      auto [give_env, options] = std::tuple{in_.Byte() % 8 != 0, options_.Pick(in_)};
      Check(a.CreateSessionFromArray(give_env ? env_ : nullptr, model, length, options, &session));
      sessions_.Add(session);
      break;
    }
    case 16: {
      const std::string path = ModelPath();
      PrismSession* session = nullptr;
      auto [give_env, give_path, options, give_out] = std::tuple{
          in_.Byte() % 8 != 0, in_.Byte() % 8 != 0, options_.Pick(in_), in_.Byte() % 8 != 0};
      Check(a.CreateSession(give_env ? env_ : nullptr, give_path ? path.c_str() : nullptr, options,
                            give_out ? &session : nullptr));
      sessions_.Add(session);
      break;
    }
    case 17: {
      size_t length = 0;
      const void* model = Model(&length);
      PrismSession* session = nullptr;
      auto [options, container] = std::tuple{options_.Pick(in_), containers_.Pick(in_)};
      Check(a.CreateSessionFromArrayWithPrepackedWeightsContainer(env_, model, length, options,
                                                                  container, &session));
      sessions_.Add(session);
      break;
    }
    case 18:
      a.ReleaseSession(sessions_.Take(in_));
      break;
    case 19: {
      size_t count = 0;
      PrismSession* session = sessions_.Pick(in_);
      Check(a.SessionGetInputCount(session, in_.Byte() % 8 ? &count : nullptr));
      Check(a.SessionGetOutputCount(session, &count));
      Check(a.SessionGetOverridableInitializerCount(session, &count));
      break;
    }
    case 20: {
      const char* name = nullptr;
      PrismSession* session = sessions_.Pick(in_);
      const size_t index = Index();
      Check(a.SessionGetInputName(session, index, in_.Byte() % 8 ? &name : nullptr));
      Check(a.SessionGetOutputName(session, index, &name));
      Check(a.SessionGetOverridableInitializerName(session, index, &name));
      if (name != nullptr && std::strlen(name) > 4096) std::abort();
      break;
    }
    case 21: {
      PrismTypeInfo* info = nullptr;
      PrismSession* session = sessions_.Pick(in_);
      const size_t index = Index();
      switch (in_.Byte() % 3) {
        case 0:
          Check(a.SessionGetInputTypeInfo(session, index, &info));
          break;
        case 1:
          Check(a.SessionGetOutputTypeInfo(session, index, &info));
          break;
        default:
          Check(a.SessionGetOverridableInitializerTypeInfo(session, index, &info));
      }
      type_infos_.Add(info);
      break;
    }
    case 22: {
      PrismModelMetadata* metadata = nullptr;
      Check(a.SessionGetModelMetadata(sessions_.Pick(in_), &metadata));
      metadata_.Add(metadata);
      break;
    }
    case 23: {
      char** names = nullptr;
      size_t count = 0;
      if (Ok(a.SessionGetProviders(sessions_.Pick(in_), &names, &count)))
        a.ReleaseStringArray(names, count);
      char** keys = nullptr;
      char** values = nullptr;
      auto [session, index] = std::tuple{sessions_.Pick(in_), Index()};
      if (Ok(a.SessionGetProviderOptions(session, index, &keys, &values, &count))) {
        a.ReleaseStringArray(keys, count);
        a.ReleaseStringArray(values, count);
      }
      break;
    }
    case 24: {
      auto [session, options] = std::tuple{sessions_.Pick(in_), options_.Pick(in_)};
      Check(a.SessionSetProviders(session, options));
    } break;
    case 25: {
      char* report = nullptr;
      auto [session, format] = std::tuple{sessions_.Pick(in_), Int()};
      if (Ok(CallSessionGetPartitionReport(&a, session, format, &report))) a.ReleaseString(report);
      break;
    }
    case 26: {
      // Feeds by name, some named twice or unknown, values of any kind; outputs by name.
      const size_t input_count = in_.Byte() % 4;
      const size_t output_count = in_.Byte() % 3;
      const char* input_names[3] = {Text(kNames), Text(kNames), Text(kNames)};
      const PrismValue* inputs[3] = {values_.Pick(in_), values_.Pick(in_), values_.Pick(in_)};
      const char* output_names[2] = {Text(kNames), Text(kNames)};
      PrismValue* outputs[2] = {nullptr, nullptr};
      const bool names_given = in_.Byte() % 8 != 0;
      auto [session, run_options] = std::tuple{sessions_.Pick(in_), run_options_.Pick(in_)};
      if (Ok(a.Run(session, run_options, names_given ? input_names : nullptr, inputs,
                   std::min<size_t>(input_count, 3), output_names, output_count, outputs)))
        for (PrismValue* output : outputs) values_.Add(output);
      break;
    }
    case 27: {
      int enabled = 0;
      PrismSession* session = sessions_.Pick(in_);
      Check(a.SessionSetFallbackEnabled(session, Int()));
      Check(a.SessionGetFallbackEnabled(session, in_.Byte() % 8 ? &enabled : nullptr));
      char* notice = nullptr;
      if (Ok(a.SessionTakeFallbackNotice(session, &notice))) a.ReleaseString(notice);
      break;
    }
    case 28: {
      char** keys = nullptr;
      char** values = nullptr;
      size_t count = 0;
      auto [session, memory, device] = std::tuple{sessions_.Pick(in_), Text(kMemoryNames), Int()};
      if (Ok(a.SessionGetAllocatorStats(session, memory, device, &keys, &values, &count))) {
        a.ReleaseStringArray(keys, count);
        a.ReleaseStringArray(values, count);
      }
      if (Ok(a.SessionGetPrepackStats(sessions_.Pick(in_), &keys, &values, &count))) {
        a.ReleaseStringArray(keys, count);
        a.ReleaseStringArray(values, count);
      }
      break;
    }
    // ---- run options
    case 29: {
      PrismRunOptions* options = nullptr;
      Check(a.CreateRunOptions(&options));
      run_options_.Add(options);
      break;
    }
    case 30:
      a.ReleaseRunOptions(run_options_.Take(in_));
      break;
    case 31: {
      PrismRunOptions* options = run_options_.Pick(in_);
      Check(a.RunOptionsSetRunLogSeverityLevel(options, Int()));
      Check(a.RunOptionsSetRunTag(options, Text({"tag"})));
      auto [key, value] = std::tuple{Text({"memory.enable_memory_arena_shrinkage"}),
                                     Text({"cpu:0", "gpu:0", "cpu", ""})};
      Check(a.AddRunConfigEntry(options, key, value));
      break;
    }
    case 32:
      if (in_.Byte() % 2)
        Check(a.RunOptionsSetTerminate(run_options_.Pick(in_)));
      else
        Check(a.RunOptionsUnsetTerminate(run_options_.Pick(in_)));
      break;
    // ---- memory info and allocators
    case 33: {
      PrismMemoryInfo* info = nullptr;
      auto [type, mem_type] = std::tuple{Int(), Int()};
      Check(CallCreateCpuMemoryInfo(&a, type, mem_type, &info));
      infos_.Add(info);
      break;
    }
    case 34: {
      PrismMemoryInfo* info = nullptr;
      auto [name, type, device, mem_type] = std::tuple{Text(kMemoryNames), Int(), Int(), Int()};
      Check(CallCreateMemoryInfo(&a, name, type, device, mem_type, &info));
      infos_.Add(info);
      break;
    }
    case 35:
      a.ReleaseMemoryInfo(infos_.Take(in_));
      break;
    case 36: {
      const PrismMemoryInfo* info = infos_.Pick(in_);
      const char* name = nullptr;
      int id = 0;
      PrismMemType mem_type{};
      PrismDeviceType device{};
      Check(a.MemoryInfoGetName(info, in_.Byte() % 8 ? &name : nullptr));
      Check(a.MemoryInfoGetId(info, &id));
      Check(a.MemoryInfoGetMemType(info, &mem_type));
      Check(a.MemoryInfoGetDeviceType(info, &device));
      break;
    }
    case 37:
      Check(a.GetAllocatorWithDefaultOptions(in_.Byte() % 8 ? &default_allocator_ : nullptr));
      break;
    case 38: {
      PrismAllocator* allocator = nullptr;
      auto [session, info] = std::tuple{sessions_.Pick(in_), infos_.Pick(in_)};
      Check(a.CreateAllocator(session, info, &allocator));
      allocators_.Add(allocator);
      break;
    }
    case 39: {
      // Its allocations go first: freeing them later would use a released allocator.
      PrismAllocator* allocator = allocators_.Take(in_);
      for (auto it = allocations_.begin(); it != allocations_.end();) {
        if (it->allocator == allocator && allocator != nullptr) {
          Check(a.AllocatorFree(allocator, it->pointer));
          it = allocations_.erase(it);
        } else {
          ++it;
        }
      }
      a.ReleaseAllocator(allocator);
      break;
    }
    case 40: {
      PrismAllocator* allocator = in_.Byte() % 2 ? default_allocator_ : allocators_.Pick(in_);
      const uint8_t choice = in_.Byte();
      const size_t size = choice < 250 ? in_.U16() : SIZE_MAX - (choice % 4) * 63;
      void* pointer = nullptr;
      if (Ok(a.AllocatorAlloc(allocator, size, in_.Byte() % 8 ? &pointer : nullptr)) &&
          pointer != nullptr) {
        std::memset(pointer, 0x5a, size);  // the whole size must be writable
        allocations_.push_back({allocator, pointer});
      }
      break;
    }
    case 41: {
      if (allocations_.empty()) {
        Check(a.AllocatorFree(allocators_.Pick(in_), nullptr));
        break;
      }
      const size_t index = in_.Byte() % allocations_.size();
      Check(a.AllocatorFree(allocations_[index].allocator, allocations_[index].pointer));
      allocations_.erase(allocations_.begin() + static_cast<std::ptrdiff_t>(index));
      break;
    }
    case 42: {
      const PrismMemoryInfo* info = nullptr;
      Check(a.AllocatorGetInfo(in_.Byte() % 2 ? default_allocator_ : allocators_.Pick(in_), &info));
      break;
    }
    // ---- values
    case 43:
    case 44:
    case 45:
      values_.Add(NewValue());
      break;
    case 46: {
      PrismValue* value = nullptr;
      Check(a.CreateEmptyOptionalValue(in_.Byte() % 8 ? &value : nullptr));
      values_.Add(value);
      break;
    }
    case 47:
      a.ReleaseValue(values_.Take(in_));
      break;
    case 48: {
      PrismValue* value = values_.Pick(in_);
      PrismValueKind kind{};
      int has = 0;
      size_t size = 0;
      Check(a.GetValueKind(value, in_.Byte() % 8 ? &kind : nullptr));
      Check(a.ValueHasValue(value, &has));
      void* data = nullptr;
      if (Ok(a.GetTensorSizeInBytes(value, &size)) && Ok(a.GetTensorMutableData(value, &data)) &&
          data != nullptr)
        std::memset(data, 0x33, size);  // every byte the size claims is the tensor's
      break;
    }
    case 49: {
      PrismTensorTypeAndShapeInfo* info = nullptr;
      Check(a.GetTensorTypeAndShape(values_.Pick(in_), &info));
      tensor_infos_.Add(info);
      const PrismMemoryInfo* memory = nullptr;
      Check(a.GetTensorMemoryInfo(values_.Pick(in_), &memory));
      break;
    }
    case 50: {
      const size_t count = in_.Byte() % 4;
      const char* texts[3] = {Text({"a", ""}), Text({"bc"}), Text({})};
      size_t lengths[3] = {};
      for (size_t i = 0; i < 3; ++i) lengths[i] = texts[i] != nullptr ? std::strlen(texts[i]) : 0;
      auto [value, give_texts, give_lengths] =
          std::tuple{values_.Pick(in_), in_.Byte() % 8 != 0, in_.Byte() % 8 != 0};
      Check(a.FillStringTensor(value, give_texts ? texts : nullptr,
                               give_lengths ? lengths : nullptr, std::min<size_t>(count, 3)));
      break;
    }
    case 51: {
      const char* text = nullptr;
      size_t length = 0;
      auto [value, index] = std::tuple{values_.Pick(in_), Index()};
      if (Ok(a.GetStringTensorElement(value, index, &text, &length)) && length > 0 &&
          text != nullptr)
        (void)*static_cast<const volatile char*>(text + length - 1);
      break;
    }
    case 52: {
      size_t length = 0;
      PrismValue* value = values_.Pick(in_);
      Check(a.GetSequenceLength(value, &length));
      PrismValue* element = nullptr;
      auto [index, give_out] = std::tuple{Index(), in_.Byte() % 8 != 0};
      Check(a.GetSequenceElement(value, index, give_out ? &element : nullptr));
      values_.Add(element);
      break;
    }
    // ---- type info
    case 53: {
      const PrismTypeInfo* info = type_infos_.Pick(in_);
      PrismValueKind kind{};
      const char* text = nullptr;
      const PrismTensorTypeAndShapeInfo* tensor = nullptr;
      Check(a.TypeInfoGetKind(info, &kind));
      Check(a.TypeInfoGetTypeString(info, &text));
      if (Ok(a.TypeInfoGetTensorInfo(info, &tensor)) && tensor != nullptr) {
        int64_t rank = 0;
        if (Ok(a.TensorInfoGetRank(tensor, &rank)) && rank >= 0 && rank <= 64) {
          std::vector<int64_t> dims(static_cast<size_t>(rank) + 1);
          std::vector<const char*> names(static_cast<size_t>(rank) + 1);
          // As many as there are, or fewer, or more (then the rest is the caller's).
          const size_t count = std::min<size_t>(in_.Byte() % (rank + 2), dims.size());
          Check(a.TensorInfoGetDimensions(tensor, dims.data(), count));
          Check(a.TensorInfoGetSymbolicDimensions(tensor, names.data(), count));
        }
      }
      break;
    }
    case 54:
      a.ReleaseTypeInfo(type_infos_.Take(in_));
      break;
    case 55: {
      const PrismTensorTypeAndShapeInfo* info = tensor_infos_.Pick(in_);
      PrismElementType type{};
      int64_t value = 0;
      Check(a.TensorInfoGetElementType(info, &type));
      Check(a.TensorInfoGetElementCount(info, &value));
      Check(a.TensorInfoGetDimensions(info, nullptr, in_.Byte() % 2));
      break;
    }
    case 56:
      a.ReleaseTensorTypeAndShapeInfo(tensor_infos_.Take(in_));
      break;
    // ---- metadata
    case 57: {
      const PrismModelMetadata* m = metadata_.Pick(in_);
      const char* text = nullptr;
      const char* value = nullptr;
      int64_t version = 0;
      size_t count = 0;
      Check(a.ModelMetadataGetProducerName(m, &text));
      Check(a.ModelMetadataGetGraphName(m, &text));
      Check(a.ModelMetadataGetDomain(m, &text));
      Check(a.ModelMetadataGetDescription(m, &text));
      Check(a.ModelMetadataGetGraphDescription(m, &text));
      Check(a.ModelMetadataGetVersion(m, &version));
      Check(a.ModelMetadataGetCustomMetadataCount(m, &count));
      auto [index, give_value] = std::tuple{Index(), in_.Byte() % 8 != 0};
      Check(a.ModelMetadataGetCustomMetadata(m, index, &text, give_value ? &value : nullptr));
      a.ReleaseModelMetadata(in_.Byte() % 4 == 0 ? metadata_.Take(in_) : nullptr);
      break;
    }
    // ---- IO binding
    case 58: {
      PrismIoBinding* binding = nullptr;
      Check(a.CreateIoBinding(sessions_.Pick(in_), &binding));
      bindings_.Add(binding);
      break;
    }
    case 59: {
      PrismIoBinding* binding = bindings_.Pick(in_);
      const int choice = in_.Byte() % 5;
      switch (choice) {
        case 0:
        case 1: {
          auto [name, value] = std::tuple{Text(kNames), values_.Pick(in_)};
          if (choice == 0)
            Check(a.BindInput(binding, name, value));
          else
            Check(a.BindOutput(binding, name, value));
          break;
        }
        case 2: {
          auto [name, info] = std::tuple{Text(kNames), infos_.Pick(in_)};
          Check(a.BindOutputToDevice(binding, name, info));
          break;
        }
        case 3:
          Check(a.ClearBoundInputs(binding));
          break;
        default:
          Check(a.ClearBoundOutputs(binding));
      }
      break;
    }
    case 60: {
      PrismIoBinding* binding = bindings_.Pick(in_);
      auto [session, run_options] = std::tuple{sessions_.Pick(in_), run_options_.Pick(in_)};
      Check(a.RunWithBinding(session, run_options, binding));
      char** names = nullptr;
      size_t count = 0;
      if (Ok(a.GetBoundOutputNames(binding, &names, &count))) a.ReleaseStringArray(names, count);
      PrismValue** values = nullptr;
      if (Ok(a.GetBoundOutputValues(binding, &values, &count))) {
        for (size_t i = 0; i < count; ++i) values_.Add(values[i]);
        a.ReleaseValueArray(values);
      }
      break;
    }
    case 61: {
      PrismValue* copy = nullptr;
      auto [session, value] = std::tuple{sessions_.Pick(in_), values_.Pick(in_)};
      Check(a.SessionCopyValueToCpu(session, value, &copy));
      values_.Add(copy);
      if (in_.Byte() % 4 == 0) a.ReleaseIoBinding(bindings_.Take(in_));
      break;
    }
    // ---- global thread pools, prepacked weights, the table itself
    case 62: {
      PrismThreadingOptions* threading = nullptr;
      Check(a.CreateThreadingOptions(&threading));
      threading_.Add(threading);
      const int threads = Int();
      // Global pools live for the process: sizes stay at 1 or 2 (or refused values).
      if (threads <= 2) {
        Check(a.SetGlobalIntraOpNumThreads(threading_.Pick(in_), threads == 0 ? 1 : threads));
        Check(a.SetGlobalInterOpNumThreads(threading_.Pick(in_), threads == 0 ? 1 : threads));
      }
      PrismEnv* env = nullptr;
      if (Ok(a.CreateEnvWithGlobalThreadPools(PRISM_LOGGING_FATAL, "fuzz", threading_.Pick(in_),
                                              &env)))
        a.ReleaseEnv(env);
      if (in_.Byte() % 2) a.ReleaseThreadingOptions(threading_.Take(in_));
      break;
    }
    // ---- version 6: custom op domains and ops
    case 64: {
      PrismCustomOpDomain* domain = nullptr;
      Check(a.CreateCustomOpDomain(Text({"", "com.fuzz", "ai.onnx"}), &domain));
      domains_.Add(domain);
      auto fuzz_op = std::make_unique<FuzzOp>();
      fuzz_op->name = in_.String(16);
      fuzz_op->null_name = in_.Byte() % 8 == 0;
      fuzz_op->base.op.version = in_.Byte() % 8 == 0 ? in_.U32() : PRISM_CUSTOM_OP_VERSION;
      fuzz_op->inputs = Index();
      fuzz_op->outputs = Index();
      fuzz_op->base.input_type = Int();
      fuzz_op->base.output_type = Type();
      fuzz_op->base.characteristic = Int();
      std::tie(fuzz_op->since, fuzz_op->end) = std::tuple{Int(), Int()};
      if (in_.Byte() % 4 == 0) fuzz_op->base.op.KernelCompute = nullptr;
      PrismCustomOp* op = in_.Byte() % 8 == 0 ? nullptr : &fuzz_op->base.op;
      ops_.push_back(std::move(fuzz_op));
      Check(a.CustomOpDomainAdd(domains_.Pick(in_), op));
      break;
    }
    case 65: {
      Check(a.AddCustomOpDomain(options_.Pick(in_), domains_.Pick(in_)));
      if (in_.Byte() % 4 == 0) a.ReleaseCustomOpDomain(domains_.Take(in_));
      break;
    }
    // ---- version 7: environment allocators, copies, CUDA options
    case 66: {
      static const std::vector<const char*> kArenaKeys = {"max_mem", "arena_extend_strategy",
                                                          "initial_chunk_size_bytes",
                                                          "max_dead_bytes_per_chunk", "bogus"};
      static const std::vector<const char*> kArenaValues = {"-1", "0", "1", "4096", "x", ""};
      std::vector<const char*> keys, values;
      const size_t count = in_.Byte() % 3;
      for (size_t i = 0; i < count; ++i) {
        keys.push_back(Text(kArenaKeys));
        values.push_back(Text(kArenaValues));
      }
      PrismMemoryInfo* info = infos_.Pick(in_);
      if (in_.Byte() % 2) {
        Check(a.CreateAndRegisterAllocator(in_.Byte() % 8 ? env_ : nullptr, info, keys.data(),
                                           values.data(), count));
      } else {
        const char* option_keys[] = {"device_id"};
        const char* option_values[] = {Text({"0", "1", "-1"})};
        Check(a.CreateAndRegisterAllocatorV2(env_, Text(kProviders), info, keys.data(),
                                             values.data(), count, option_keys, option_values,
                                             in_.Byte() % 2));
      }
      break;
    }
    case 67: {
      PrismMemoryInfo* info = infos_.Pick(in_);
      PrismAllocator* shared = nullptr;
      if (Ok(a.GetSharedAllocator(env_, info, in_.Byte() % 8 ? &shared : nullptr)) &&
          shared != nullptr) {
        char** keys = nullptr;
        char** values = nullptr;
        size_t count = 0;
        if (Ok(a.AllocatorGetStats(shared, &keys, &values, &count))) {
          a.ReleaseStringArray(keys, count);
          a.ReleaseStringArray(values, count);
        }
        allocators_.Add(shared);
      }
      if (in_.Byte() % 4 == 0) Check(a.UnregisterAllocator(env_, infos_.Pick(in_)));
      break;
    }
    case 68: {
      const size_t count = in_.Byte() % 3;
      std::vector<const PrismValue*> sources;
      std::vector<PrismValue*> destinations;
      for (size_t i = 0; i < count; ++i) {
        sources.push_back(values_.Pick(in_));
        destinations.push_back(values_.Pick(in_));
      }
      Check(a.CopyTensors(env_, count ? sources.data() : nullptr,
                          count ? destinations.data() : nullptr, count));
      break;
    }
    case 69: {
      PrismCUDAProviderOptions* cuda = nullptr;
      if (in_.Byte() % 2) {
        Check(a.CreateCUDAProviderOptions(in_.Byte() % 8 ? &cuda : nullptr));
        cuda_options_.Add(cuda);
      }
      static const std::vector<const char*> kCudaKeys = {
          "device_id", "gpu_mem_limit", "cudnn_conv_algo_search", "use_tf32", "bogus"};
      static const std::vector<const char*> kCudaValues = {"0",    "1",  "HEURISTIC",
                                                           "true", "-1", "18446744073709551616"};
      const char* keys[] = {Text(kCudaKeys), Text(kCudaKeys)};
      const char* values[] = {Text(kCudaValues), Text(kCudaValues)};
      Check(a.UpdateCUDAProviderOptions(cuda_options_.Pick(in_), keys, values, in_.Byte() % 3));
      char* text = nullptr;
      if (Ok(a.GetCUDAProviderOptionsAsString(cuda_options_.Pick(in_), &text)))
        a.ReleaseString(text);
      Check(a.SessionOptionsAppendExecutionProvider_CUDA_V2(options_.Pick(in_),
                                                            cuda_options_.Pick(in_)));
      if (in_.Byte() % 4 == 0) a.ReleaseCUDAProviderOptions(cuda_options_.Take(in_));
      break;
    }
    // ---- version 7: model and session adjustments (applied when a session loads its model)
    case 70: {
      PrismSessionOptions* options = options_.Pick(in_);
      switch (in_.Byte() % 5) {
        case 0:
          Check(a.AddFreeDimensionOverride(options, Text({"DATA_BATCH", "batch", ""}),
                                           static_cast<int64_t>(Int())));
          break;
        case 1:
          Check(a.AddFreeDimensionOverrideByName(options, Text({"batch", "n", "X"}),
                                                 static_cast<int64_t>(Int())));
          break;
        case 2:
          Check(a.AddInitializer(options, Text({"W", "X", "absent"}), values_.Pick(in_)));
          break;
        case 3: {
          const char* names[] = {Text({"W", "X"}), Text({"W", "Y"})};
          const PrismValue* values[] = {values_.Pick(in_), values_.Pick(in_)};
          Check(a.AddExternalInitializers(options, in_.Byte() % 8 ? names : nullptr,
                                          in_.Byte() % 8 ? values : nullptr, in_.Byte() % 3));
          break;
        }
        default: {
          strings_.push_back(std::make_unique<std::string>(in_.String(64)));
          const char* files[] = {Text({"w.bin", "./w.bin", "../w.bin", "/etc/passwd"}),
                                 Text({"w.bin"})};
          const void* buffers[] = {strings_.back()->data(), nullptr};
          const size_t lengths[] = {strings_.back()->size(), static_cast<size_t>(in_.U16())};
          Check(a.AddExternalInitializersFromFilesInMemory(options, files, buffers, lengths,
                                                           in_.Byte() % 3));
        }
      }
      break;
    }
    default: {
      PrismPrepackedWeightsContainer* container = nullptr;
      if (in_.Byte() % 2) {
        Check(a.CreatePrepackedWeightsContainer(&container));
        containers_.Add(container);
      } else {
        a.ReleasePrepackedWeightsContainer(containers_.Take(in_));
      }
      // Unknown versions give NULL; known ones the same table.
      const PrismApi* table = PrismGetApiBase()->GetApi(in_.U32());
      if (table != nullptr && table->GetErrorCode != a.GetErrorCode) std::abort();
      break;
    }
  }
}

void Script::ReleaseAll() {
  const PrismApi& a = api_;
  for (const Allocation& allocation : allocations_)
    Check(a.AllocatorFree(allocation.allocator, allocation.pointer));
  for (PrismIoBinding* binding : bindings_.items) a.ReleaseIoBinding(binding);
  for (PrismValue* value : values_.items) a.ReleaseValue(value);
  for (PrismTypeInfo* info : type_infos_.items) a.ReleaseTypeInfo(info);
  for (PrismTensorTypeAndShapeInfo* info : tensor_infos_.items)
    a.ReleaseTensorTypeAndShapeInfo(info);
  for (PrismModelMetadata* metadata : metadata_.items) a.ReleaseModelMetadata(metadata);
  for (PrismAllocator* allocator : allocators_.items) a.ReleaseAllocator(allocator);
  for (PrismSession* session : sessions_.items) a.ReleaseSession(session);
  for (PrismSessionOptions* options : options_.items) a.ReleaseSessionOptions(options);
  for (PrismRunOptions* options : run_options_.items) a.ReleaseRunOptions(options);
  for (PrismMemoryInfo* info : infos_.items) a.ReleaseMemoryInfo(info);
  for (PrismThreadingOptions* threading : threading_.items) a.ReleaseThreadingOptions(threading);
  for (PrismPrepackedWeightsContainer* container : containers_.items)
    a.ReleasePrepackedWeightsContainer(container);
  for (PrismCustomOpDomain* domain : domains_.items) a.ReleaseCustomOpDomain(domain);
  for (PrismCUDAProviderOptions* cuda : cuda_options_.items) a.ReleaseCUDAProviderOptions(cuda);
  a.ReleaseEnv(env_);
}

}  // namespace
}  // namespace prism::fuzz

PRISM_FUZZ_TARGET(capi) {
  static const prism::fuzz::Fixture fixture;
  prism::fuzz::ByteReader in(data, size);
  prism::fuzz::Script script(fixture, in);
  script.Run();
  return 0;
}
