// One fuzz target: PRISM_FUZZ_TARGET(name) { body over data, size; returns 0 }.
// In the libFuzzer build (PRISM_FUZZ) it is LLVMFuzzerTestOneInput; in prism_fuzz_replay (the
// normal build, PRISM_FUZZ_REPLAY) a function registered under its name, so that one program
// runs the committed regression inputs of every target without libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prism::fuzz {

using TargetFunction = int (*)(const uint8_t* data, size_t size);
// Registers a target for prism_fuzz_replay; returns true (for a static initializer).
bool RegisterTarget(const char* name, TargetFunction function);

}  // namespace prism::fuzz

#ifdef PRISM_FUZZ_REPLAY
#define PRISM_FUZZ_TARGET(name)                                        \
  static int PrismFuzzTarget_##name(const uint8_t* data, size_t size); \
  [[maybe_unused]] static const bool prism_fuzz_registered_##name =    \
      ::prism::fuzz::RegisterTarget(#name, &PrismFuzzTarget_##name);   \
  static int PrismFuzzTarget_##name(const uint8_t* data, size_t size)
#else
#define PRISM_FUZZ_TARGET(name) \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif
