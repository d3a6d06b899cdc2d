#include "input_loader.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "graph/tensor_proto.h"

namespace prism::perf {
namespace fs = std::filesystem;

GeneratedInputs LoadInputs(const std::string& directory, const std::vector<ValueInfo>& inputs,
                           const std::vector<ValueInfo>& overridable) {
  PRISM_ENFORCE(fs::is_directory(directory), kInvalidArgument, "option -I: '", directory,
                "' is not a folder");
  GeneratedInputs loaded;
  std::set<std::string> fed;
  for (size_t k = 0;; ++k) {
    const fs::path path = fs::path(directory) / MakeString("input_", k, ".pb");
    if (!fs::exists(path)) break;
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    PRISM_ENFORCE(file.good() || file.eof(), kInvalidArgument, "cannot read ", path.string());
    onnx::TensorProto proto;
    PRISM_ENFORCE(proto.ParseFromString(bytes.str()), kInvalidArgument, path.string(),
                  ": not a valid ONNX TensorProto");

    // By name when the file names one of the model's inputs, else by position.
    const ValueInfo* target = nullptr;
    for (const auto* list : {&inputs, &overridable})
      for (const ValueInfo& info : *list)
        if (!proto.name().empty() && info.name == proto.name()) target = &info;
    if (target == nullptr) {
      PRISM_ENFORCE(k < inputs.size(), kInvalidArgument, path.string(), ": tensor '", proto.name(),
                    "' is not an input of the model, and the model has only ", inputs.size(),
                    " required inputs");
      target = &inputs[k];
    }
    PRISM_ENFORCE(target->type.kind == TypeKind::kTensor, kNotImplemented, path.string(),
                  ": input '", target->name, "' is ", target->type.ToString(),
                  "; -I reads tensors only");
    PRISM_ENFORCE(fed.insert(target->name).second, kInvalidArgument, path.string(), ": input '",
                  target->name, "' is fed by an earlier file too");
    Tensor tensor = TensorFromProto(proto, ExternalDataPolicy{directory}, path.string());
    loaded.names.push_back(target->name);
    loaded.values.emplace_back(std::move(tensor));
  }
  std::string missing;
  for (const ValueInfo& info : inputs)
    if (!fed.count(info.name)) missing += (missing.empty() ? "'" : ", '") + info.name + "'";
  PRISM_ENFORCE(missing.empty(), kInvalidArgument, "option -I: ", directory,
                " has no input_K.pb for the model's input(s) ", missing, " (", loaded.values.size(),
                " file(s) read)");
  return loaded;
}

}  // namespace prism::perf
