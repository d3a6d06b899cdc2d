// Custom operators (version 6): onnxruntime-style callback tables (PrismCustomOp) adapted to the
// core's CustomOp (framework/custom_op.h), their domains, libraries of them loaded by path, and
// the kernel-info and kernel-context functions their callbacks call.
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <utility>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"
#include "common/thread_pool.h"

namespace prism::capi {
namespace {

// The library RegisterCustomOpsLibrary is registering on this thread: ops added to a domain
// meanwhile keep it loaded.
thread_local std::shared_ptr<void> loading_library;

// Largest input or output count an op may declare: a guard against garbage from a callback.
constexpr size_t kMaxDeclaredArgs = 1 << 16;

std::string DomainLabel(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" ? std::string("ai.onnx") : domain;
}

std::string TensorText(ElementType type) {
  return ValueType::Tensor(type).ToString();
}

// Throws the code and message of a status a callback returned (after releasing it), the message
// prefixed with what.
[[noreturn]] void ThrowCallbackStatus(PrismStatus* status, const std::string& what) {
  int code = EnumArgument(status->code);
  std::string message = status->message;
  ReleaseStatus(status);
  if (code <= PRISM_OK || code > PRISM_EP_FAIL) code = PRISM_FAIL;
  throw Exception(static_cast<StatusCode>(code), MakeString(what, ": ", message));
}

// One node's state made by the op's CreateKernel, computed through its KernelCompute.
class CApiKernelState final : public CustomOpKernelState {
 public:
  CApiKernelState(const PrismCustomOp* op, void* kernel, const CustomOpSignature& signature,
                  const std::string& label)
      : op_(op), kernel_(kernel), signature_(signature), label_(label) {}
  ~CApiKernelState() override {
    if (kernel_ != nullptr && op_->KernelDestroy != nullptr) op_->KernelDestroy(kernel_);
  }
  CApiKernelState(const CApiKernelState&) = delete;
  CApiKernelState& operator=(const CApiKernelState&) = delete;

  void Compute(OpKernelContext& context) const override {
    PrismKernelContext c_context{context, signature_, label_, {}, {}, {}};
    c_context.inputs.resize(context.InputCount());
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Value* value = context.InputValue(i);
      if (value != nullptr && value->HasValue())
        c_context.inputs[i] = std::make_unique<PrismValue>(*value);
    }
    c_context.outputs.resize(context.OutputCount());
    PrismStatus* status = op_->KernelCompute(kernel_, &c_context);
    if (status != nullptr) ThrowCallbackStatus(status, label_);
  }

 private:
  const PrismCustomOp* op_;
  void* kernel_;
  const CustomOpSignature& signature_;  // of the op, which outlives its kernels
  const std::string& label_;
};

// A PrismCustomOp as the core sees it: its signature read once, at CustomOpDomainAdd.
class CApiCustomOp final : public CustomOp {
 public:
  CApiCustomOp(const PrismCustomOp* op, const std::string& domain, std::shared_ptr<void> library)
      : op_(op), library_(std::move(library)) {
    PRISM_ENFORCE(op->version >= 1 && op->version <= PRISM_CUSTOM_OP_VERSION, kInvalidArgument,
                  "PrismCustomOp version ", op->version,
                  " is not supported (this library reads "
                  "versions 1 to ",
                  PRISM_CUSTOM_OP_VERSION, ")");
    PRISM_ENFORCE(op->GetName != nullptr, kInvalidArgument, "PrismCustomOp has no GetName");
    const char* name = op->GetName(op);
    PRISM_ENFORCE(name != nullptr && name[0] != '\0', kInvalidArgument,
                  "PrismCustomOp's GetName returned ", name == nullptr ? "NULL" : "\"\"");
    signature_.name = name;
    label_ = MakeString("custom op '", signature_.name, "' of domain '", DomainLabel(domain), "'");
    for (const auto& [member, present] :
         {std::pair<const char*, bool>{"GetInputTypeCount", op->GetInputTypeCount != nullptr},
          {"GetInputType", op->GetInputType != nullptr},
          {"GetOutputTypeCount", op->GetOutputTypeCount != nullptr},
          {"GetOutputType", op->GetOutputType != nullptr},
          {"KernelCompute", op->KernelCompute != nullptr}})
      PRISM_ENFORCE(present, kInvalidArgument, label_, " has no ", member);
    if (op->GetExecutionProviderType != nullptr) {
      const char* provider = op->GetExecutionProviderType(op);
      if (provider != nullptr && provider[0] != '\0') signature_.provider = provider;
    }
    signature_.inputs =
        ReadArgs("input", op->GetInputTypeCount(op), op->GetInputType, op->GetInputCharacteristic);
    signature_.outputs = ReadArgs("output", op->GetOutputTypeCount(op), op->GetOutputType,
                                  op->GetOutputCharacteristic);
    signature_.variadic_input_min_arity = ReadArity("input", op->GetVariadicInputMinArity);
    signature_.variadic_output_min_arity = ReadArity("output", op->GetVariadicOutputMinArity);
    signature_.variadic_input_homogeneous =
        op->GetVariadicInputHomogeneity == nullptr || op->GetVariadicInputHomogeneity(op) != 0;
    signature_.variadic_output_homogeneous =
        op->GetVariadicOutputHomogeneity == nullptr || op->GetVariadicOutputHomogeneity(op) != 0;
    if (op->GetSinceVersion != nullptr) signature_.since_version = op->GetSinceVersion(op);
    if (op->GetEndVersion != nullptr) signature_.end_version = op->GetEndVersion(op);
    PRISM_ENFORCE(
        signature_.since_version >= 1 && signature_.end_version >= signature_.since_version,
        kInvalidArgument, label_, " covers opsets ", signature_.since_version, " to ",
        signature_.end_version, ": the first must be >= 1 and the last >= the first");
  }

  const CustomOpSignature& Signature() const override { return signature_; }

  std::unique_ptr<CustomOpKernelState> CreateKernel(const OpKernelInfo& info) const override {
    void* kernel = nullptr;
    if (op_->CreateKernel != nullptr) {
      PrismKernelInfo kernel_info{info, label_};
      PrismStatus* status = op_->CreateKernel(op_, ApiTable(), &kernel_info, &kernel);
      if (status != nullptr) {
        if (kernel != nullptr && op_->KernelDestroy != nullptr) op_->KernelDestroy(kernel);
        ThrowCallbackStatus(status, label_);
      }
    }
    return std::make_unique<CApiKernelState>(op_, kernel, signature_, label_);
  }

 private:
  using TypeGetter = PrismElementType (*)(const PrismCustomOp*, size_t);
  using CharacteristicGetter = PrismCustomOpInputOutputCharacteristic (*)(const PrismCustomOp*,
                                                                          size_t);

  std::vector<CustomOpArg> ReadArgs(const char* side, size_t count, TypeGetter type_of,
                                    CharacteristicGetter characteristic_of) const {
    PRISM_ENFORCE(count <= kMaxDeclaredArgs, kInvalidArgument, label_, " declares ", count, " ",
                  side, "s (at most ", kMaxDeclaredArgs, ")");
    std::vector<CustomOpArg> args(count);
    for (size_t i = 0; i < count; ++i) {
      const int type = EnumArgument(type_of(op_, i));
      PRISM_ENFORCE(type >= PRISM_TYPE_UNDEFINED && type <= kMaxElementType, kInvalidArgument,
                    label_, " declares ", side, " ", i, " of element type ", type,
                    ", which is not a PrismElementType");
      args[i].type = static_cast<ElementType>(type);
      if (characteristic_of == nullptr) continue;
      const int kind = EnumArgument(characteristic_of(op_, i));
      PRISM_ENFORCE(kind >= PRISM_INPUT_OUTPUT_REQUIRED && kind <= PRISM_INPUT_OUTPUT_VARIADIC,
                    kInvalidArgument, label_, " gives ", side, " ", i, " characteristic ", kind,
                    " (PRISM_INPUT_OUTPUT_REQUIRED, _OPTIONAL or _VARIADIC expected)");
      PRISM_ENFORCE(kind != PRISM_INPUT_OUTPUT_VARIADIC || i + 1 == count, kInvalidArgument, label_,
                    " makes ", side, " ", i, " of ", count, " variadic: only the last one may be");
      args[i].kind = static_cast<CustomOpArgKind>(kind);
    }
    return args;
  }

  int ReadArity(const char* side, int (*getter)(const PrismCustomOp*)) const {
    if (getter == nullptr) return 1;
    const int arity = getter(op_);
    PRISM_ENFORCE(arity >= 0, kInvalidArgument, label_, " gives variadic ", side, " min arity ",
                  arity, " (must be >= 0)");
    return arity;
  }

  const PrismCustomOp* op_;
  std::shared_ptr<void> library_;  // keeps the op's library loaded
  CustomOpSignature signature_;
  std::string label_;
};

const Node& NodeOf(const PrismKernelInfo* info) {
  return Require(info, "info")->info.GetNode();
}

const Attribute& InfoAttribute(const PrismKernelInfo* info, const char* name, AttributeType type) {
  const Node& node = NodeOf(info);
  Require(name, "name");
  const Attribute* attribute = node.FindAttribute(name);
  PRISM_ENFORCE(attribute != nullptr, kInvalidArgument, "node '", node.Name(), "' (",
                info->op_label, ") has no attribute '", name, "'");
  PRISM_ENFORCE(attribute->type == type, kInvalidArgument, "attribute '", name, "' of node '",
                node.Name(), "' (", info->op_label, ") is of type ",
                AttributeTypeName(attribute->type), ", not ", AttributeTypeName(type));
  return *attribute;
}

PrismTypeInfo* ArgTypeInfo(const PrismKernelInfo* info, size_t index, bool output) {
  const Node& node = NodeOf(info);
  const std::vector<NodeArg*>& args = output ? node.Outputs() : node.Inputs();
  const char* side = output ? "output" : "input";
  PRISM_ENFORCE(index < args.size(), kInvalidArgument, side, " index ", index,
                " is out of range: node '", node.Name(), "' has ", args.size(), " ", side, "s");
  PRISM_ENFORCE(args[index] != nullptr, kInvalidArgument, "node '", node.Name(), "' omits ", side,
                " ", index);
  ValueInfo value;
  value.name = args[index]->name;
  value.type = args[index]->type;
  if (args[index]->shape) {
    value.has_shape = true;
    value.shape = args[index]->shape->dims;
  }
  return MakeTypeInfo(value).release();
}

// The bounds of batch b of batches over [0, total): contiguous, the first total % batches one
// longer.
std::pair<int64_t, int64_t> BatchRange(int64_t total, int64_t batches, int64_t b) {
  const int64_t base = total / batches;
  const int64_t extra = total % batches;
  const int64_t begin = b * base + std::min(b, extra);
  return {begin, begin + base + (b < extra ? 1 : 0)};
}

}  // namespace

PrismStatus* CreateStatus(PrismErrorCode code, const char* message) noexcept {
  const int value = EnumArgument(code);
  if (value == PRISM_OK) return nullptr;
  try {
    return MakeStatus(value > PRISM_OK && value <= PRISM_EP_FAIL ? code : PRISM_FAIL,
                      message != nullptr ? message : "");
  } catch (...) {
    return MakeStatus(PRISM_RUNTIME_EXCEPTION, "out of memory");
  }
}

PrismStatus* CreateCustomOpDomain(const char* domain, PrismCustomOpDomain** out) noexcept {
  return Guard(__func__, [&] {
    Require(domain, "domain");
    PrismCustomOpDomain** target = Require(out, "out");
    auto made = std::make_unique<PrismCustomOpDomain>();
    made->domain = domain;
    *target = made.release();
  });
}

void ReleaseCustomOpDomain(PrismCustomOpDomain* domain) noexcept {
  delete domain;
}

PrismStatus* CustomOpDomainAdd(PrismCustomOpDomain* domain, const PrismCustomOp* op) noexcept {
  return Guard(__func__, [&] {
    Require(domain, "domain");
    Require(op, "op");
    domain->ops.push_back(std::make_shared<CApiCustomOp>(op, domain->domain, loading_library));
  });
}

PrismStatus* AddCustomOpDomain(PrismSessionOptions* options, PrismCustomOpDomain* domain) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(domain, "domain");
    auto snapshot = std::make_shared<CustomOpDomain>();
    snapshot->domain = domain->domain;
    snapshot->ops = domain->ops;
    std::vector<std::shared_ptr<const CustomOpDomain>> domains = options->options.custom_op_domains;
    domains.push_back(snapshot);
    CustomOpRegistry check(domains);  // throws for an op registered twice
    options->options.custom_op_domains = std::move(domains);
  });
}

PrismStatus* RegisterCustomOpsLibrary(PrismSessionOptions* options, const char* library_path,
                                      void** library_handle) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    const std::string path = Require(library_path, "library_path");
    std::error_code error;
    PRISM_ENFORCE(std::filesystem::exists(path, error), kNoSuchFile, "custom op library '", path,
                  "' does not exist");
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      PRISM_THROW(kInvalidArgument, "cannot load custom op library '", path,
                  "': ", why != nullptr ? why : "unknown dlopen error");
    }
    std::shared_ptr<void> library(handle, [](void* loaded) { dlclose(loaded); });
    auto registration =
        reinterpret_cast<PrismRegisterCustomOpsFunction>(dlsym(handle, "RegisterCustomOps"));
    PRISM_ENFORCE(registration != nullptr, kInvalidArgument, "custom op library '", path,
                  "' does not export RegisterCustomOps (PrismStatus* RegisterCustomOps("
                  "PrismSessionOptions* options, const PrismApiBase* api_base))");
    const size_t domains_before = options->options.custom_op_domains.size();
    PrismStatus* status = nullptr;
    {
      // Nested registrations (a library loading another) restore the outer library after.
      struct Restore {
        std::shared_ptr<void> outer;
        ~Restore() { loading_library = std::move(outer); }
      } restore{std::exchange(loading_library, library)};
      status = registration(options, PrismGetApiBase());
    }
    if (status != nullptr) {
      options->options.custom_op_domains.resize(domains_before);
      ThrowCallbackStatus(status,
                          MakeString("RegisterCustomOps of custom op library '", path, "' failed"));
    }
    options->libraries.push_back(library);
    if (library_handle != nullptr) *library_handle = handle;
  });
}

PrismStatus* KernelInfoGetAttributeFloat(const PrismKernelInfo* info, const char* name,
                                         float* out) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    *out = InfoAttribute(info, name, AttributeType::kFloat).f;
  });
}

PrismStatus* KernelInfoGetAttributeInt64(const PrismKernelInfo* info, const char* name,
                                         int64_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    *out = InfoAttribute(info, name, AttributeType::kInt).i;
  });
}

PrismStatus* KernelInfoGetAttributeString(const PrismKernelInfo* info, const char* name,
                                          const char** out, size_t* length) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    Require(length, "length");
    const std::string& text = InfoAttribute(info, name, AttributeType::kString).s;
    *out = text.c_str();
    *length = text.size();
  });
}

PrismStatus* KernelInfoGetAttributeFloats(const PrismKernelInfo* info, const char* name,
                                          const float** out, size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    Require(count, "count");
    const std::vector<float>& values = InfoAttribute(info, name, AttributeType::kFloats).floats;
    *out = values.data();
    *count = values.size();
  });
}

PrismStatus* KernelInfoGetAttributeInt64s(const PrismKernelInfo* info, const char* name,
                                          const int64_t** out, size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    Require(count, "count");
    const std::vector<int64_t>& values = InfoAttribute(info, name, AttributeType::kInts).ints;
    *out = values.data();
    *count = values.size();
  });
}

PrismStatus* KernelInfoHasAttribute(const PrismKernelInfo* info, const char* name,
                                    int* out) noexcept {
  return Guard(__func__, [&] {
    const Node& node = NodeOf(info);
    Require(name, "name");
    Require(out, "out");
    *out = node.FindAttribute(name) != nullptr ? 1 : 0;
  });
}

PrismStatus* KernelInfoGetInputCount(const PrismKernelInfo* info, size_t* out) noexcept {
  return Guard(__func__, [&] {
    const Node& node = NodeOf(info);
    *Require(out, "out") = node.InputCount();
  });
}

PrismStatus* KernelInfoGetOutputCount(const PrismKernelInfo* info, size_t* out) noexcept {
  return Guard(__func__, [&] {
    const Node& node = NodeOf(info);
    *Require(out, "out") = node.OutputCount();
  });
}

PrismStatus* KernelInfoGetInputTypeInfo(const PrismKernelInfo* info, size_t index,
                                        PrismTypeInfo** out) noexcept {
  return Guard(__func__, [&] {
    PrismTypeInfo** target = Require(out, "out");
    *target = ArgTypeInfo(info, index, /*output=*/false);
  });
}

PrismStatus* KernelInfoGetOutputTypeInfo(const PrismKernelInfo* info, size_t index,
                                         PrismTypeInfo** out) noexcept {
  return Guard(__func__, [&] {
    PrismTypeInfo** target = Require(out, "out");
    *target = ArgTypeInfo(info, index, /*output=*/true);
  });
}

PrismStatus* KernelInfoGetNodeName(const PrismKernelInfo* info, const char** out) noexcept {
  return Guard(__func__, [&] {
    const Node& node = NodeOf(info);
    *Require(out, "out") = node.Name().c_str();
  });
}

PrismStatus* KernelContextGetInputCount(const PrismKernelContext* context, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    *Require(out, "out") = context->inputs.size();
  });
}

PrismStatus* KernelContextGetOutputCount(const PrismKernelContext* context, size_t* out) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    *Require(out, "out") = context->outputs.size();
  });
}

PrismStatus* KernelContextGetInput(const PrismKernelContext* context, size_t index,
                                   const PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    Require(out, "out");
    // An optional input the node leaves off at the end reads as omitted.
    const size_t declared = context->signature.inputs.size();
    PRISM_ENFORCE(index < std::max(context->inputs.size(), declared), kInvalidArgument,
                  "input index ", index, " is out of range: node '",
                  context->context.GetNode().Name(), "' has ", context->inputs.size(), " inputs");
    *out = index < context->inputs.size() ? context->inputs[index].get() : nullptr;
  });
}

PrismStatus* KernelContextGetOutput(PrismKernelContext* context, size_t index,
                                    PrismElementType type, const int64_t* shape, size_t rank,
                                    PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    Require(out, "out");
    const Node& node = context->context.GetNode();
    PRISM_ENFORCE(index < context->outputs.size(), kInvalidArgument, "output index ", index,
                  " is out of range: node '", node.Name(), "' has ", context->outputs.size(),
                  " outputs");
    if (rank > 0) Require(shape, "shape");
    std::vector<int64_t> dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      PRISM_ENFORCE(shape[d] >= 0, kInvalidArgument, "dimension ", d, " of output ", index, " is ",
                    shape[d], ": dimensions must be >= 0");
      dims[d] = shape[d];
    }
    const std::vector<CustomOpArg>& declared_outputs = context->signature.outputs;
    const ElementType declared =
        declared_outputs.empty()
            ? ElementType::kUndefined
            : declared_outputs[std::min(index, declared_outputs.size() - 1)].type;
    const ElementType in_graph =
        node.HasOutput(index) ? node.Outputs()[index]->type.elem : ElementType::kUndefined;
    const int requested = EnumArgument(type);
    ElementType element = declared != ElementType::kUndefined ? declared : in_graph;
    if (requested == PRISM_TYPE_UNDEFINED) {
      PRISM_ENFORCE(element != ElementType::kUndefined, kInvalidArgument, context->op_label,
                    " declares no type for output ", index, " and node '", node.Name(),
                    "' gives it none: pass the element type to KernelContextGetOutput");
    } else {
      const ElementType asked = CheckedElementType(requested);
      PRISM_ENFORCE(declared == ElementType::kUndefined || declared == asked, kInvalidArgument,
                    context->op_label, " declares output ", index, " as ", TensorText(declared),
                    ", not ", TensorText(asked));
      element = asked;
    }
    PRISM_ENFORCE(in_graph == ElementType::kUndefined || in_graph == element, kInvalidArgument,
                  "output ", index, " of node '", node.Name(), "' is ", TensorText(in_graph),
                  " in the model, not ", TensorText(element));
    TensorShape tensor_shape(std::move(dims));
    std::lock_guard<std::mutex> lock(context->outputs_mutex);
    std::unique_ptr<PrismValue>& slot = context->outputs[index];
    if (slot != nullptr) {
      const Tensor& made = slot->value.GetTensor();
      PRISM_ENFORCE(made.Type() == element && made.Shape() == tensor_shape, kInvalidArgument,
                    "output ", index, " of node '", node.Name(), "' was already allocated as ",
                    made.Describe(), ", not ", TensorText(element), tensor_shape.ToString());
      *out = slot.get();
      return;
    }
    Tensor& tensor = context->context.Output(index, tensor_shape, element);
    slot = std::make_unique<PrismValue>(Value(tensor));
    *out = slot.get();
  });
}

PrismStatus* KernelContextGetIntraOpThreadCount(const PrismKernelContext* context,
                                                int* out) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    const ThreadPool* pool = context->context.IntraOpThreadPool();
    *Require(out, "out") = pool != nullptr ? pool->DegreeOfParallelism() : 1;
  });
}

PrismStatus* KernelContextParallelFor(const PrismKernelContext* context,
                                      PrismParallelForFunction fn, void* user_data, size_t total,
                                      size_t batch_count) noexcept {
  return Guard(__func__, [&] {
    Require(context, "context");
    if (total == 0) return;
    Require(fn, "fn");
    PRISM_ENFORCE(total <= static_cast<size_t>(std::numeric_limits<int64_t>::max()),
                  kInvalidArgument, "total ", total, " is too large");
    const auto count = static_cast<int64_t>(total);
    ThreadPool* pool = context->context.IntraOpThreadPool();
    // The cost of an index is the caller's business: every range is worth splitting.
    constexpr double kSplitAlways = 1e9;
    if (batch_count == 0) {
      ThreadPool::TryParallelFor(pool, count, kSplitAlways, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) fn(user_data, static_cast<size_t>(i));
      });
      return;
    }
    const int64_t batches = static_cast<int64_t>(std::min(batch_count, total));
    ThreadPool::TryParallelFor(pool, batches, kSplitAlways, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        const auto [begin, end] = BatchRange(count, batches, b);
        for (int64_t i = begin; i < end; ++i) fn(user_data, static_cast<size_t>(i));
      }
    });
  });
}

}  // namespace prism::capi
