// Random inputs for a session's declared inputs (seeded, reproducible).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "session/inference_session.h"

namespace prism::perf {

struct GeneratedInputs {
  std::vector<std::string> names;
  std::vector<Value> values;
  std::vector<std::string> notes;  // e.g. "symbolic dim 'batch' set to 1 (use -f batch:N)"
};

// Floats ~ N(0,1); integers uniform in [0, 10); bools fair coin; strings "s<i>".
GeneratedInputs GenerateInputs(const std::vector<ValueInfo>& inputs,
                               const std::map<std::string, int64_t>& free_dims, unsigned seed);

}  // namespace prism::perf
