#include "graph/model.h"

#include <filesystem>
#include <limits>

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include "common/logging.h"
#include "graph/function_inliner.h"
#include "graph/gradient_expander.h"
#include "graph/graph_builder.h"
#include "graph/model_adjustments.h"
#include "graph/shape_inference.h"

namespace prism {

std::string CanonicalDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

class ModelLoader {
 public:
  static std::shared_ptr<const Model> Load(const void* data, size_t size,
                                           const std::string& directory,
                                           const ModelLoadLimits& limits,
                                           const ModelAdjustments* adjustments) {
    PRISM_ENFORCE(size <= static_cast<size_t>(std::numeric_limits<int>::max()), kInvalidProtobuf,
                  "model of ", size, " bytes exceeds protobuf's 2 GiB limit; use external data");
    google::protobuf::io::ArrayInputStream input(data, static_cast<int>(size));
    return Load(input, directory, limits, adjustments);
  }

  // From a stream: a file is read in blocks, never whole, so that the weights are held once by
  // the parsed proto, whose bytes the initializers then take over.
  static std::shared_ptr<const Model> Load(google::protobuf::io::ZeroCopyInputStream& input,
                                           const std::string& directory,
                                           const ModelLoadLimits& limits,
                                           const ModelAdjustments* adjustments) {
    onnx::ModelProto proto;
    {
      google::protobuf::io::CodedInputStream stream(&input);
      stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
      stream.SetRecursionLimit(200);
      PRISM_ENFORCE(proto.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage(),
                    kInvalidProtobuf, "failed to parse the model: not a valid ONNX ModelProto");
    }
    PRISM_ENFORCE(proto.has_graph(), kInvalidGraph, "the model has no graph");

    auto model = std::make_shared<Model>();
    model->ir_version_ = proto.ir_version();
    PRISM_ENFORCE(model->ir_version_ >= 3 && model->ir_version_ <= kMaxIrVersion, kInvalidGraph,
                  "unsupported IR version ", model->ir_version_, " (supported: 3 to ",
                  kMaxIrVersion, ")");
    model->directory_ = directory;
    for (const auto& opset : proto.opset_import()) {
      const std::string domain = CanonicalDomain(opset.domain());
      const int64_t version = opset.version();
      // Exporters sometimes repeat an import. A repeat with another version is taken as
      // onnxruntime takes it, the last one winning, and said in the log.
      if (auto it = model->opsets_.find(domain);
          it != model->opsets_.end() && it->second != version) {
        PRISM_LOG(kWarning, MakeString("opset for domain '", opset.domain(),
                                       "' is imported twice, as ", it->second, " and ", version,
                                       "; using ", version, " (the last import)"));
      }
      PRISM_ENFORCE(version >= 1 && version <= std::numeric_limits<int>::max(), kInvalidGraph,
                    "invalid opset version ", version, " for domain '", opset.domain(), "'");
      if (domain.empty())
        PRISM_ENFORCE(version <= kMaxOnnxOpset, kInvalidGraph, "the model imports ai.onnx opset ",
                      version, "; Prism supports opsets up to ", kMaxOnnxOpset);
      if (domain == "ai.onnx.ml")
        PRISM_ENFORCE(version <= kMaxOnnxMlOpset, kInvalidGraph,
                      "the model imports ai.onnx.ml opset ", version,
                      "; Prism supports opsets up to ", kMaxOnnxMlOpset);
      model->opsets_[domain] = static_cast<int>(version);
    }
    InlineLocalFunctions(proto);
    if (ExpandGradientNodes(proto)) model->opsets_[kPrismInternalDomain] = 1;

    ModelMetadata& meta = model->metadata_;
    meta.producer_name = proto.producer_name();
    meta.producer_version = proto.producer_version();
    meta.domain = proto.domain();
    meta.description = proto.doc_string();
    meta.version = proto.model_version();
    meta.graph_name = proto.graph().name();
    meta.graph_description = proto.graph().doc_string();
    for (const auto& entry : proto.metadata_props())
      meta.custom_metadata[entry.key()] = entry.value();

    ExternalDataPolicy policy{directory, limits.max_tensor_bytes};
    if (adjustments != nullptr) {
      ApplyFreeDimensionOverrides(adjustments->free_dimension_overrides, *proto.mutable_graph());
      CheckSuppliedInitializers(*adjustments, proto.graph());
      policy.files_in_memory = &adjustments->external_files;
    }
    GraphBuilder builder(*model, policy, /*take_initializer_bytes=*/true, adjustments);
    model->main_graph_ = builder.Build(proto.graph(), nullptr, "main");
    PRISM_ENFORCE(
        model->main_graph_->OuterScopeValues().empty(), kInvalidGraph, "the main graph reads '",
        model->main_graph_->OuterScopeValues().empty() ? std::string()
                                                       : model->main_graph_->OuterScopeValues()[0],
        "', which nothing defines");
    GraphBuilder::InferTypes(*model->main_graph_);
    InferShapes(*model->main_graph_);
    return model;
  }
};

std::shared_ptr<const Model> Model::LoadFromFile(const std::string& path,
                                                 const ModelLoadLimits& limits,
                                                 const ModelAdjustments* adjustments) {
  // A folder (or device) opens fine as a stream but has no meaningful size: refuse it first.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  PRISM_ENFORCE(!error && std::filesystem::exists(status), kNoSuchFile, "cannot open model file '",
                path, "'");
  PRISM_ENFORCE(std::filesystem::is_regular_file(status), kInvalidArgument, "model path '", path,
                "' is not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, error);
  PRISM_ENFORCE(!error, kNoSuchFile, "cannot read model file '", path, "'");
  PRISM_ENFORCE(size <= static_cast<uintmax_t>(std::numeric_limits<int>::max()), kInvalidProtobuf,
                "model of ", size, " bytes exceeds protobuf's 2 GiB limit; use external data");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  PRISM_ENFORCE(fd >= 0, kNoSuchFile, "cannot open model file '", path, "'");
  // Blocks of 1 MiB rather than the default 8 KiB: a model of hundreds of MB is a few hundred
  // reads.
  google::protobuf::io::FileInputStream input(fd, 1 << 20);
  input.SetCloseOnDelete(true);
  const size_t slash = path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::shared_ptr<const Model> model = ModelLoader::Load(input, directory, limits, adjustments);
  PRISM_ENFORCE(input.GetErrno() == 0, kNoSuchFile, "cannot read model file '", path, "'");
  return model;
}

std::shared_ptr<const Model> Model::LoadFromBytes(const void* data, size_t size,
                                                  const std::string& model_directory,
                                                  const ModelLoadLimits& limits,
                                                  const ModelAdjustments* adjustments) {
  return ModelLoader::Load(data, size, model_directory, limits, adjustments);
}

}  // namespace prism
