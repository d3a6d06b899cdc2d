#include "framework/arena_allocator.h"

#include <algorithm>
#include <limits>

#include "common/status.h"

namespace prism {
namespace {

size_t RoundUp(size_t bytes, size_t granularity) {
  PRISM_ENFORCE(bytes <= std::numeric_limits<size_t>::max() - granularity, kRuntimeException,
                "allocation of ", bytes, " bytes overflows");
  return (bytes + granularity - 1) / granularity * granularity;
}

}  // namespace

ArenaAllocator::ArenaAllocator(AllocatorPtr backing, ArenaOptions options)
    : backing_(std::move(backing)),
      options_(options),
      next_region_bytes_(
          RoundUp(std::max<size_t>(options.initial_region_bytes, 1), kChunkGranularity)) {}

ArenaAllocator::~ArenaAllocator() {
  // Chunks still in use at this point belong to tensors that outlived every holder of the arena;
  // tensors keep their allocator alive, so there are none.
  for (auto& region : regions_) backing_->Free(region->data);
  for (auto& [size, chunk] : free_) delete chunk;
  for (auto& [data, chunk] : in_use_) delete chunk;
}

void ArenaAllocator::InsertFree(Chunk* chunk) {
  chunk->free_position = free_.emplace(chunk->bytes, chunk);
}

void ArenaAllocator::EraseFree(Chunk* chunk) {
  free_.erase(chunk->free_position);
}

ArenaAllocator::Chunk* ArenaAllocator::Extend(size_t bytes) {
  size_t region_bytes = bytes;
  if (options_.extend_strategy == ArenaExtendStrategy::kNextPowerOfTwo) {
    region_bytes = std::max(bytes, next_region_bytes_);
    if (next_region_bytes_ <= std::numeric_limits<size_t>::max() / 2) next_region_bytes_ *= 2;
  }
  if (options_.max_bytes != 0) {
    const size_t total = static_cast<size_t>(stats_.total_reserved_bytes);
    // (total never exceeds max_bytes; the subtraction cannot wrap where a sum could.)
    PRISM_ENFORCE(bytes <= options_.max_bytes - total, kRuntimeException, "the ", Info().ToString(),
                  " arena is limited to ", options_.max_bytes,
                  " bytes (session.arena_max_mem, session.max_memory_bytes); it holds ", total,
                  " and needs ", bytes, " more");
    region_bytes = std::min(region_bytes, options_.max_bytes - total);
  }
  auto region = std::make_unique<Region>();
  region->data = static_cast<char*>(backing_->Alloc(region_bytes));
  region->bytes = region_bytes;
  auto* chunk = new Chunk{region->data, region_bytes, false, nullptr, nullptr, region.get(), {}};
  regions_.push_back(std::move(region));
  ++stats_.num_reserves;
  ++stats_.num_arena_extensions;
  stats_.total_reserved_bytes += static_cast<int64_t>(region_bytes);
  InsertFree(chunk);
  return chunk;
}

void* ArenaAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  CheckTensorBytesLimit(AllocationLimits{options_.max_request_bytes, 0}, bytes, Info());
  const size_t rounded = RoundUp(bytes, kChunkGranularity);
  std::lock_guard<std::mutex> lock(mutex_);
  auto best = free_.lower_bound(rounded);
  Chunk* chunk = best != free_.end() ? best->second : Extend(rounded);
  EraseFree(chunk);
  // Split off the tail as a free chunk of its own.
  if (chunk->bytes - rounded >= kChunkGranularity) {
    auto* tail = new Chunk{chunk->data + rounded, chunk->bytes - rounded, false, chunk,
                           chunk->next,           chunk->region,          {}};
    if (chunk->next != nullptr) chunk->next->previous = tail;
    chunk->next = tail;
    chunk->bytes = rounded;
    InsertFree(tail);
  }
  chunk->in_use = true;
  in_use_.emplace(chunk->data, chunk);
  ++stats_.num_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(chunk->bytes);
  stats_.max_bytes_in_use = std::max(stats_.max_bytes_in_use, stats_.bytes_in_use);
  stats_.max_alloc_size = std::max(stats_.max_alloc_size, static_cast<int64_t>(bytes));
  return chunk->data;
}

std::vector<void*> ArenaAllocator::ReserveFree() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<void*> reserved;
  reserved.reserve(free_.size());
  for (auto& [bytes, chunk] : free_) {
    chunk->in_use = true;
    in_use_.emplace(chunk->data, chunk);
    ++stats_.num_allocs;
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    reserved.push_back(chunk->data);
  }
  stats_.max_bytes_in_use = std::max(stats_.max_bytes_in_use, stats_.bytes_in_use);
  free_.clear();
  return reserved;
}

ArenaAllocator::Chunk* ArenaAllocator::Merge(Chunk* left, Chunk* right) {
  left->bytes += right->bytes;
  left->next = right->next;
  if (right->next != nullptr) right->next->previous = left;
  delete right;
  return left;
}

void ArenaAllocator::Free(void* pointer) {
  if (pointer == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(pointer);
  PRISM_ENFORCE(it != in_use_.end(), kRuntimeException, "pointer ", pointer,
                " was not allocated by the ", Info().ToString(), " arena");
  Chunk* chunk = it->second;
  in_use_.erase(it);
  chunk->in_use = false;
  ++stats_.num_frees;
  stats_.bytes_in_use -= static_cast<int64_t>(chunk->bytes);
  if (chunk->next != nullptr && !chunk->next->in_use) {
    EraseFree(chunk->next);
    chunk = Merge(chunk, chunk->next);
  }
  if (chunk->previous != nullptr && !chunk->previous->in_use) {
    EraseFree(chunk->previous);
    chunk = Merge(chunk->previous, chunk);
  }
  InsertFree(chunk);
}

int64_t ArenaAllocator::Shrink() {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t released = 0;
  std::vector<std::unique_ptr<Region>> kept;
  for (auto& region : regions_) {
    // A region whose one chunk spans it and is free holds nothing.
    Chunk* whole = nullptr;
    for (auto& [size, chunk] : free_)
      if (chunk->region == region.get() && chunk->bytes == region->bytes) whole = chunk;
    if (whole == nullptr) {
      kept.push_back(std::move(region));
      continue;
    }
    EraseFree(whole);
    delete whole;
    backing_->Free(region->data);
    released += static_cast<int64_t>(region->bytes);
  }
  regions_ = std::move(kept);
  stats_.total_reserved_bytes -= released;
  if (released > 0) ++stats_.num_arena_shrinkages;
  // The next growth starts small again.
  next_region_bytes_ =
      RoundUp(std::max<size_t>(options_.initial_region_bytes, 1), kChunkGranularity);
  return released;
}

bool ArenaAllocator::GetStats(AllocatorStats* stats) const {
  std::lock_guard<std::mutex> lock(mutex_);
  *stats = stats_;
  return true;
}

ArenaOptions ArenaOptionsFromConfig(const std::map<std::string, std::string>& config) {
  ArenaOptions options;
  auto find = [&](const char* key) -> const std::string* {
    auto it = config.find(key);
    return it == config.end() ? nullptr : &it->second;
  };
  auto parse_bytes = [](const char* key, const std::string& text) {
    return ParseByteCountEntry(key, text);
  };
  if (const std::string* value = find("session.arena_extend_strategy")) {
    if (*value == "kNextPowerOfTwo" || *value == "0")
      options.extend_strategy = ArenaExtendStrategy::kNextPowerOfTwo;
    else if (*value == "kSameAsRequested" || *value == "1")
      options.extend_strategy = ArenaExtendStrategy::kSameAsRequested;
    else
      PRISM_THROW(kInvalidArgument,
                  "session config entry session.arena_extend_strategy must be kNextPowerOfTwo (0) "
                  "or kSameAsRequested (1), got '",
                  *value, "'");
  }
  if (const std::string* value = find("session.arena_initial_chunk_size_bytes"))
    options.initial_region_bytes = parse_bytes("session.arena_initial_chunk_size_bytes", *value);
  if (const std::string* value = find("session.arena_max_mem"))
    options.max_bytes = parse_bytes("session.arena_max_mem", *value);
  const AllocationLimits limits = AllocationLimitsFromConfig(config);
  if (limits.max_memory_bytes != 0 &&
      (options.max_bytes == 0 || limits.max_memory_bytes < options.max_bytes))
    options.max_bytes = limits.max_memory_bytes;
  options.max_request_bytes = limits.max_tensor_bytes;
  return options;
}

}  // namespace prism
