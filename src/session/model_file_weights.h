// The model file a session loaded, as a source for the model weights it released but cannot
// rebuild from what it keeps (a Conv W folded with its BatchNormalization: dividing it out again
// is not exact). Such a weight is read back from the file when a later state build needs it
// (SetProviders, a run-time fallback): one reload serves every weight of that build. The file
// must be the one loaded: a changed size or modification time fails the reload, naming the file.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "framework/tensor.h"
#include "graph/model.h"

namespace prism {

class ModelFileWeights {
 public:
  // nullptr when path cannot be a source (not a regular file, or its size or time unreadable).
  static std::shared_ptr<ModelFileWeights> Remember(const std::string& path,
                                                    const ModelLoadLimits& limits);

  // Main-graph initializer `name` as the file holds it (the file is parsed on the first call
  // after Forget). Throws kFail when the file changed since Remember or no longer has `name`.
  Tensor Reload(const std::string& name);

  // Drops the parsed file (after a state build took what it needed).
  void Forget();

 private:
  std::string path_;
  ModelLoadLimits limits_;
  std::uintmax_t size_ = 0;
  std::filesystem::file_time_type modified_;
  std::mutex mutex_;
  std::shared_ptr<const Model> parsed_;
};

}  // namespace prism
