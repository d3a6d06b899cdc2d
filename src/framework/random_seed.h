// The process's default seed for random ops that have no seed attribute (onnxruntime's
// set_seed / utils::SetRandomSeed). Kernels read it when they are created, so sessions created
// after SetRandomSeed(s) draw the same values run by run as any other session created after it.
#pragma once

#include <cstdint>
#include <optional>

namespace prism {

void SetRandomSeed(int64_t seed);
// The seed last set, or nullopt when none was (unseeded ops then draw fresh entropy).
std::optional<int64_t> RandomSeed();

}  // namespace prism
