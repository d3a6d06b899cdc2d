// Denormal (subnormal) floating-point handling of the calling thread: flush-to-zero (results)
// and denormals-are-zero (operands), onnxruntime's "session.set_denormal_as_zero". On x86-64
// these are the MXCSR FTZ and DAZ bits, on AArch64 the FPCR FZ bit (both directions at once).
#pragma once

#include <cstdint>

namespace prism {

// Whether this build can change the mode (x86-64 with SSE, AArch64).
bool DenormalAsZeroSupported();
// The calling thread's mode bits (0 where unsupported), to hand to another thread.
uint64_t CurrentDenormalMode();
// Sets the calling thread's denormal mode bits to `mode` (as CurrentDenormalMode gave them) and
// restores the previous bits when destroyed; does nothing when they are already set so.
class ScopedDenormalMode {
 public:
  explicit ScopedDenormalMode(uint64_t mode);
  ~ScopedDenormalMode();
  ScopedDenormalMode(const ScopedDenormalMode&) = delete;
  ScopedDenormalMode& operator=(const ScopedDenormalMode&) = delete;

  // The mode bits that treat denormals as zero.
  static uint64_t AsZero();

 private:
  uint64_t previous_ = 0;
  bool changed_ = false;
};

}  // namespace prism
