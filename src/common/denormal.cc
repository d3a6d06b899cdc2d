#include "common/denormal.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE__)
#include <xmmintrin.h>
#define PRISM_DENORMAL_X86 1
#elif defined(__aarch64__)
#define PRISM_DENORMAL_ARM64 1
#endif

namespace prism {
namespace {

#if defined(PRISM_DENORMAL_X86)
constexpr uint64_t kModeMask = 0x8040;  // MXCSR FTZ (bit 15) and DAZ (bit 6)

uint64_t ReadControl() {
  return _mm_getcsr();
}
void WriteControl(uint64_t value) {
  _mm_setcsr(static_cast<unsigned int>(value));
}
#elif defined(PRISM_DENORMAL_ARM64)
constexpr uint64_t kModeMask = uint64_t{1} << 24;  // FPCR FZ

uint64_t ReadControl() {
  uint64_t value = 0;
  asm volatile("mrs %0, fpcr" : "=r"(value));
  return value;
}
void WriteControl(uint64_t value) {
  asm volatile("msr fpcr, %0" : : "r"(value));
}
#else
constexpr uint64_t kModeMask = 0;

uint64_t ReadControl() {
  return 0;
}
void WriteControl(uint64_t) {}
#endif

}  // namespace

bool DenormalAsZeroSupported() {
  return kModeMask != 0;
}

uint64_t CurrentDenormalMode() {
  return ReadControl() & kModeMask;
}

uint64_t ScopedDenormalMode::AsZero() {
  return kModeMask;
}

ScopedDenormalMode::ScopedDenormalMode(uint64_t mode) {
  if (kModeMask == 0) return;
  const uint64_t control = ReadControl();
  previous_ = control & kModeMask;
  if (previous_ == (mode & kModeMask)) return;
  WriteControl((control & ~kModeMask) | (mode & kModeMask));
  changed_ = true;
}

ScopedDenormalMode::~ScopedDenormalMode() {
  if (!changed_) return;
  WriteControl((ReadControl() & ~kModeMask) | previous_);
}

}  // namespace prism
