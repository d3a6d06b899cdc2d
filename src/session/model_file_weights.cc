#include "session/model_file_weights.h"

#include "common/status.h"

namespace prism {

std::shared_ptr<ModelFileWeights> ModelFileWeights::Remember(const std::string& path,
                                                             const ModelLoadLimits& limits) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) || error) return nullptr;
  auto source = std::make_shared<ModelFileWeights>();
  source->size_ = std::filesystem::file_size(path, error);
  if (error) return nullptr;
  source->modified_ = std::filesystem::last_write_time(path, error);
  if (error) return nullptr;
  source->path_ = path;
  source->limits_ = limits;
  return source;
}

Tensor ModelFileWeights::Reload(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!parsed_) {
    std::error_code size_error, time_error;
    const std::uintmax_t size = std::filesystem::file_size(path_, size_error);
    const auto modified = std::filesystem::last_write_time(path_, time_error);
    PRISM_ENFORCE(!size_error && !time_error && size == size_ && modified == modified_, kFail,
                  "cannot restore weight '", name, "' from model file '", path_,
                  "': the file changed (or went) since the session loaded it, and the session "
                  "released its copy of that weight (rebuilding the session state needs it)");
    parsed_ = Model::LoadFromFile(path_, limits_);
  }
  const Tensor* tensor = parsed_->MainGraph().FindInitializer(name);
  PRISM_ENFORCE(tensor != nullptr, kFail, "cannot restore weight '", name, "' from model file '",
                path_, "': it has no such initializer");
  return *tensor;
}

void ModelFileWeights::Forget() {
  std::lock_guard<std::mutex> lock(mutex_);
  parsed_.reset();
}

}  // namespace prism
