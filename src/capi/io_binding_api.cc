// IO binding: inputs bound from any memory, outputs bound to preallocated values or to a memory
// space, and copies of device values back to the CPU.
#include <algorithm>
#include <mutex>

#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

namespace {

template <typename Binding>
Binding* FindByName(std::vector<Binding>& bindings, const std::string& name) {
  for (Binding& binding : bindings)
    if (binding.name == name) return &binding;
  return nullptr;
}

}  // namespace

PrismStatus* CreateIoBinding(PrismSession* session, PrismIoBinding** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(out, "out");
    auto binding = std::make_unique<PrismIoBinding>();
    binding->session = session->session;
    *out = binding.release();
  });
}

void ReleaseIoBinding(PrismIoBinding* binding) noexcept {
  delete binding;
}

PrismStatus* BindInput(PrismIoBinding* binding, const char* name,
                       const PrismValue* value) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    Require(name, "name");
    Require(value, "value");
    std::lock_guard lock(binding->mutex);
    auto& names = binding->input_names;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) {
      binding->inputs[it - names.begin()] = value->value;  // rebinding replaces
    } else {
      names.emplace_back(name);
      binding->inputs.push_back(value->value);
    }
  });
}

PrismStatus* BindOutput(PrismIoBinding* binding, const char* name,
                        const PrismValue* value) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    Require(name, "name");
    Require(value, "value");
    PRISM_ENFORCE(value->value.IsTensor(), kInvalidArgument, "output '", name,
                  "' can only be bound to a preallocated tensor, got ", value->value.Describe());
    const Tensor& tensor = value->value.GetTensor();
    // Each run copies the result into this buffer through the session's data transfers.
    PRISM_ENFORCE(binding->session->AllocatorFor(tensor.Location()) != nullptr, kInvalidArgument,
                  "output '", name, "' cannot be bound to a preallocated tensor in ",
                  tensor.Location().ToString(),
                  " memory: no execution provider of the session owns it");
    std::lock_guard lock(binding->mutex);
    binding->results.clear();
    PrismIoBinding::OutputBinding* output = FindByName(binding->outputs, name);
    if (output == nullptr) output = &binding->outputs.emplace_back();
    output->name = name;
    output->preallocated = std::make_unique<PrismValue>(value->value);
    output->device = tensor.Location();
  });
}

PrismStatus* BindOutputToDevice(PrismIoBinding* binding, const char* name,
                                const PrismMemoryInfo* info) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    Require(name, "name");
    Require(info, "info");
    PRISM_ENFORCE(binding->session->AllocatorFor(info->info) != nullptr, kInvalidArgument,
                  "output '", name, "' cannot be bound to ", info->info.ToString(),
                  " memory: no execution provider of the session owns it");
    std::lock_guard lock(binding->mutex);
    binding->results.clear();
    PrismIoBinding::OutputBinding* output = FindByName(binding->outputs, name);
    if (output == nullptr) output = &binding->outputs.emplace_back();
    output->name = name;
    output->preallocated.reset();
    output->device = info->info;
  });
}

PrismStatus* ClearBoundInputs(PrismIoBinding* binding) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    std::lock_guard lock(binding->mutex);
    binding->input_names.clear();
    binding->inputs.clear();
  });
}

PrismStatus* ClearBoundOutputs(PrismIoBinding* binding) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    std::lock_guard lock(binding->mutex);
    binding->outputs.clear();
    binding->results.clear();
  });
}

PrismStatus* RunWithBinding(PrismSession* session, const PrismRunOptions* run_options,
                            PrismIoBinding* binding) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(binding, "binding");
    PRISM_ENFORCE(binding->session == session->session, kInvalidArgument,
                  "the IO binding was created for another session");
    std::lock_guard lock(binding->mutex);
    binding->results.clear();
    PRISM_ENFORCE(!binding->outputs.empty(), kInvalidArgument,
                  "no outputs are bound: bind at least one with BindOutput or BindOutputToDevice");
    // The session moves each result once, straight from where the graph produced it to where
    // it is bound (nothing when it was produced there).
    std::vector<std::string> output_names;
    std::vector<OutputDestination> destinations;
    for (auto& output : binding->outputs) {
      output_names.push_back(output.name);
      OutputDestination& destination = destinations.emplace_back();
      destination.memory = output.device;
      if (output.preallocated != nullptr) destination.preallocated = &output.preallocated->value;
    }
    const RunOptions defaults;
    binding->results =
        session->session->Run(run_options != nullptr ? run_options->options : defaults,
                              binding->input_names, binding->inputs, output_names, destinations);
  });
}

PrismStatus* GetBoundOutputNames(const PrismIoBinding* binding, char*** names,
                                 size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    Require(names, "names");
    Require(count, "count");
    std::lock_guard lock(binding->mutex);
    std::vector<std::string> list;
    for (const auto& output : binding->outputs) list.push_back(output.name);
    CopyToCStringArray(list, names, count);
  });
}

PrismStatus* GetBoundOutputValues(const PrismIoBinding* binding, PrismValue*** values,
                                  size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(binding, "binding");
    Require(values, "values");
    Require(count, "count");
    std::lock_guard lock(binding->mutex);
    if (binding->results.empty()) {
      *values = nullptr;
      *count = 0;
      return;
    }
    std::vector<std::unique_ptr<PrismValue>> wrapped;
    for (const Value& result : binding->results)
      wrapped.push_back(std::make_unique<PrismValue>(result));
    auto array = std::make_unique<PrismValue*[]>(wrapped.size());
    for (size_t i = 0; i < wrapped.size(); ++i) array[i] = wrapped[i].release();
    *count = binding->results.size();
    *values = array.release();
  });
}

void ReleaseValueArray(PrismValue** values) noexcept {
  delete[] values;
}

PrismStatus* SessionCopyValueToCpu(const PrismSession* session, const PrismValue* value,
                                   PrismValue** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(value, "value");
    Require(out, "out");
    const InferenceSession& inference = *session->session;
    // Always a new buffer, even for CPU values: the caller may modify the copy freely.
    auto copy_tensor = [&](const Tensor& tensor) {
      if (tensor.Location().IsCpuAccessible()) return tensor.CloneToCpu();
      return inference.CopyToMemory(Value(tensor), CpuMemoryInfo()).GetTensor();
    };
    const Value& source = value->value;
    if (source.IsTensor()) {
      *out = new PrismValue(Value(copy_tensor(source.GetTensor())));
    } else if (source.IsMap()) {
      const TensorMap& map = source.GetMap();
      *out = new PrismValue(Value(TensorMap{map.keys.CloneToCpu(), map.values.CloneToCpu()}));
    } else if (source.IsMapSequence()) {
      MapSequence copy = source.GetMapSequence();
      for (TensorMap& map : copy.maps) map = {map.keys.CloneToCpu(), map.values.CloneToCpu()};
      *out = new PrismValue(Value(std::move(copy)));
    } else if (source.IsSequence()) {
      TensorSequence copy;
      copy.elem_type = source.GetSequence().elem_type;
      for (const Tensor& tensor : source.GetSequence().tensors)
        copy.tensors.push_back(copy_tensor(tensor));
      *out = new PrismValue(Value(std::move(copy)));
    } else {
      *out = new PrismValue(source);  // an empty optional has nothing to copy
    }
  });
}

}  // namespace prism::capi
