// A 128-bit hash of a byte range, for recognising identical weights by their contents (the
// prepacked-weights container's key). Four independent multiply-xor chains over interleaved 8-byte
// words keep it at memory speed: one chain is a serial dependency of about six cycles per word,
// which made hashing bert_base's 324 MiB of weights cost about 80 ms of session creation.
// Not cryptographic: sharing by mistake needs both 64-bit halves (and the type, shape and format
// the key adds) to collide.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prism {

struct ContentHash {
  uint64_t first = 0;
  uint64_t second = 0;
};

ContentHash HashContent(const void* data, size_t size);

}  // namespace prism
