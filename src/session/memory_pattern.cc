#include "session/memory_pattern.h"

#include <algorithm>
#include <numeric>

#include "common/status.h"

namespace prism {
namespace {

constexpr size_t kAlignment = 64;

size_t Aligned(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// A buffer to place: its bytes and the steps it lives through (inclusive).
struct Lifetime {
  int allocator;
  size_t bytes;
  int first;
  int last;
};

bool LifetimesMeet(const Lifetime& a, const Lifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

}  // namespace

// Forwards to the real allocator and tells the recorder what was asked and when it came back.
class PatternRecorder::RecordingAllocator final : public IAllocator {
 public:
  RecordingAllocator(std::shared_ptr<PatternRecorder> recorder, AllocatorPtr real, int allocator,
                     int step, int output)
      : recorder_(std::move(recorder)),
        real_(std::move(real)),
        allocator_(allocator),
        step_(step),
        output_(output) {}

  void* Alloc(size_t bytes) override {
    void* pointer = real_->Alloc(bytes);
    if (pointer != nullptr) recorder_->OnAlloc(pointer, allocator_, step_, output_, bytes);
    return pointer;
  }
  void Free(void* pointer) override {
    if (pointer == nullptr) return;
    recorder_->OnFree(pointer);
    real_->Free(pointer);
  }
  const MemoryInfo& Info() const override { return real_->Info(); }

 private:
  std::shared_ptr<PatternRecorder> recorder_;
  AllocatorPtr real_;
  int allocator_;
  int step_;
  int output_;
};

AllocatorPtr PatternRecorder::Wrap(const AllocatorPtr& real, int step, int output) {
  int index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::find(allocators_.begin(), allocators_.end(), real);
    index = static_cast<int>(it - allocators_.begin());
    if (it == allocators_.end()) allocators_.push_back(real);
  }
  return std::make_shared<RecordingAllocator>(shared_from_this(), real, index, step, output);
}

void PatternRecorder::OnAlloc(void* pointer, int allocator, int step, int output, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  live_[pointer] = records_.size();
  records_.push_back(Record{allocator, step, output, bytes, -1});
}

void PatternRecorder::OnFree(void* pointer) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  auto it = live_.find(pointer);
  if (it == live_.end()) return;
  records_[it->second].freed_at = current_step_.load(std::memory_order_relaxed);
  live_.erase(it);
}

std::shared_ptr<const MemoryPattern> PatternRecorder::Finish(bool share_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  auto pattern = std::make_shared<MemoryPattern>();
  pattern->allocators = allocators_;

  // What to place: outputs let go during the run (a step's output asked for twice is left out),
  // and per step one scratch region for all its kernel's scratch, when all of it came back
  // before the step ended.
  std::vector<Lifetime> lifetimes;
  std::vector<std::pair<int, int>> owners;  // (step, output or -1)
  std::map<std::pair<int, int>, int> asked;
  for (const Record& record : records_)
    if (record.output >= 0) ++asked[{record.step, record.output}];
  std::map<int, std::pair<int, size_t>> scratch;  // step -> (allocator, bytes); -1 bytes: no
  std::map<int, bool> scratch_ok;
  for (const Record& record : records_) {
    if (record.output < 0) {
      auto [it, fresh] = scratch.try_emplace(record.step, record.allocator, 0);
      bool& ok = scratch_ok.try_emplace(record.step, true).first->second;
      ok = ok && record.freed_at == record.step && it->second.first == record.allocator;
      it->second.second += Aligned(record.bytes);
      continue;
    }
    if (record.freed_at < 0 || asked[{record.step, record.output}] != 1) continue;
    lifetimes.push_back({record.allocator, Aligned(record.bytes), record.step, record.freed_at});
    owners.emplace_back(record.step, record.output);
  }
  for (const auto& [step, region] : scratch) {
    if (!scratch_ok[step]) continue;
    lifetimes.push_back({region.first, region.second, step, step});
    owners.emplace_back(step, -1);
  }

  // Largest first, each at the lowest offset clear of the buffers already placed whose
  // lifetimes meet its own (of every buffer placed, without sharing).
  std::vector<size_t> order(lifetimes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return lifetimes[a].bytes > lifetimes[b].bytes; });
  std::vector<size_t> offsets(lifetimes.size(), 0);
  std::vector<size_t> placed;
  pattern->block_bytes.assign(allocators_.size(), 0);
  for (size_t index : order) {
    const Lifetime& buffer = lifetimes[index];
    std::vector<std::pair<size_t, size_t>> taken;  // [begin, end) of meeting buffers
    for (size_t other : placed)
      if (lifetimes[other].allocator == buffer.allocator &&
          (!share_bytes || LifetimesMeet(lifetimes[other], buffer)))
        taken.emplace_back(offsets[other], offsets[other] + lifetimes[other].bytes);
    std::sort(taken.begin(), taken.end());
    size_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (begin >= offset + buffer.bytes) break;
      offset = std::max(offset, end);
    }
    offsets[index] = offset;
    placed.push_back(index);
    size_t& block = pattern->block_bytes[static_cast<size_t>(buffer.allocator)];
    block = std::max(block, offset + buffer.bytes);
  }

  pattern->buffers.resize(lifetimes.size());
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    PlannedBuffer& planned = pattern->buffers[i];
    planned.allocator = lifetimes[i].allocator;
    planned.offset = offsets[i];
    planned.bytes = lifetimes[i].bytes;
    for (size_t j = 0; j < lifetimes.size(); ++j) {
      if (j == i || lifetimes[j].allocator != lifetimes[i].allocator) continue;
      const bool overlap = offsets[j] < offsets[i] + lifetimes[i].bytes &&
                           offsets[i] < offsets[j] + lifetimes[j].bytes;
      if (overlap && lifetimes[j].last < lifetimes[i].first)
        planned.overlaps_earlier.push_back(static_cast<int>(j));
    }
    if (owners[i].second >= 0)
      pattern->outputs[owners[i]] = static_cast<int>(i);
    else
      pattern->scratch[owners[i].first] = static_cast<int>(i);
  }
  return pattern;
}

// Hands out a step's scratch from its planned region, in order; past its end, from the real
// allocator. Freeing planned bytes is a no-op: the region is free again when the step ends.
class PatternRun::BumpAllocator final : public IAllocator {
 public:
  BumpAllocator(std::shared_ptr<void> block, char* begin, size_t bytes, AllocatorPtr real)
      : block_(std::move(block)), begin_(begin), bytes_(bytes), real_(std::move(real)) {}

  void* Alloc(size_t bytes) override {
    if (bytes == 0) return nullptr;
    const size_t rounded = Aligned(bytes);
    const size_t offset = used_.fetch_add(rounded);
    if (offset + rounded <= bytes_) return begin_ + offset;
    return real_->Alloc(bytes);
  }
  void Free(void* pointer) override {
    auto* bytes = static_cast<char*>(pointer);
    if (bytes >= begin_ && bytes < begin_ + bytes_) return;
    real_->Free(pointer);
  }
  const MemoryInfo& Info() const override { return real_->Info(); }

 private:
  std::shared_ptr<void> block_;
  char* begin_;
  size_t bytes_;
  AllocatorPtr real_;
  std::atomic<size_t> used_{0};
};

PatternRun::PatternRun(std::shared_ptr<const MemoryPattern> pattern)
    : pattern_(std::move(pattern)),
      held_(std::make_shared<std::vector<std::atomic<bool>>>(pattern_->buffers.size())) {
  for (size_t a = 0; a < pattern_->allocators.size(); ++a) {
    const size_t bytes = pattern_->block_bytes[a];
    if (bytes == 0) {
      blocks_.emplace_back();
      continue;
    }
    AllocatorPtr allocator = pattern_->allocators[a];
    void* data = allocator->Alloc(bytes);
    blocks_.emplace_back(data, [allocator](void* p) { allocator->Free(p); });
  }
}

bool PatternRun::Available(int buffer) const {
  if ((*held_)[static_cast<size_t>(buffer)].load()) return false;
  for (int earlier : pattern_->buffers[static_cast<size_t>(buffer)].overlaps_earlier)
    if ((*held_)[static_cast<size_t>(earlier)].load()) return false;
  return true;
}

std::shared_ptr<void> PatternRun::Take(int step, int output, size_t bytes) {
  auto it = pattern_->outputs.find({step, output});
  if (it == pattern_->outputs.end()) return nullptr;
  const int buffer = it->second;
  const PlannedBuffer& planned = pattern_->buffers[static_cast<size_t>(buffer)];
  if (bytes == 0 || bytes > planned.bytes || !Available(buffer)) return nullptr;
  const std::shared_ptr<void>& block = blocks_[static_cast<size_t>(planned.allocator)];
  (*held_)[static_cast<size_t>(buffer)].store(true);
  // Its own control block, so that "one holder" checks (in-place reuse) see this buffer alone;
  // letting go marks the planned bytes free for later buffers of this run.
  return std::shared_ptr<void>(
      static_cast<char*>(block.get()) + planned.offset,
      [block, held = held_, buffer](void*) { (*held)[static_cast<size_t>(buffer)].store(false); });
}

AllocatorPtr PatternRun::ScratchAllocator(int step, const AllocatorPtr& real) {
  auto it = pattern_->scratch.find(step);
  if (it == pattern_->scratch.end() || !Available(it->second)) return real;
  const PlannedBuffer& planned = pattern_->buffers[static_cast<size_t>(it->second)];
  if (pattern_->allocators[static_cast<size_t>(planned.allocator)] != real) return real;
  const std::shared_ptr<void>& block = blocks_[static_cast<size_t>(planned.allocator)];
  (*held_)[static_cast<size_t>(it->second)].store(true);
  return std::make_shared<BumpAllocator>(block, static_cast<char*>(block.get()) + planned.offset,
                                         planned.bytes, real);
}

void PatternRun::EndStep(int step) {
  auto it = pattern_->scratch.find(step);
  if (it != pattern_->scratch.end()) (*held_)[static_cast<size_t>(it->second)].store(false);
}

std::string MemoryPatternCache::Key(const std::vector<Value>& feeds) {
  // Bytes, not text: per feed a marker, then the element type, the rank and the dims as they
  // lie in memory (every run builds this key; formatting numbers cost more than the lookup).
  std::string key(1, ';');
  for (const Value& feed : feeds) {
    if (!feed.HasValue()) {
      key.push_back('-');
      continue;
    }
    if (!feed.IsTensor()) return "";
    const Tensor& tensor = feed.GetTensor();
    const int32_t type = static_cast<int32_t>(tensor.Type());
    const uint64_t rank = tensor.Shape().Rank();
    key.push_back('t');
    key.append(reinterpret_cast<const char*>(&type), sizeof(type));
    key.append(reinterpret_cast<const char*>(&rank), sizeof(rank));
    if (rank > 0)
      key.append(reinterpret_cast<const char*>(tensor.Shape().Dims().data()),
                 rank * sizeof(int64_t));
  }
  return key;
}

std::shared_ptr<const MemoryPattern> MemoryPatternCache::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = patterns_.find(key);
  return it == patterns_.end() ? nullptr : it->second;
}

bool MemoryPatternCache::ShouldRecord(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return patterns_.size() < kMaxPatterns && patterns_.count(key) == 0;
}

void MemoryPatternCache::Insert(const std::string& key,
                                std::shared_ptr<const MemoryPattern> pattern) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (patterns_.size() < kMaxPatterns) patterns_.emplace(key, std::move(pattern));
}

}  // namespace prism
