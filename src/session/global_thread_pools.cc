#include "session/global_thread_pools.h"

#include <mutex>

#include "common/status.h"

namespace prism {
namespace {

struct GlobalPools {
  std::mutex mutex;
  bool created = false;
  GlobalThreadPoolSizes sizes;
  std::shared_ptr<ThreadPool> intra_op;
  std::shared_ptr<ThreadPool> inter_op;
};

GlobalPools& Pools() {
  static GlobalPools pools;
  return pools;
}

int Resolved(int threads, const char* what) {
  PRISM_ENFORCE(threads >= 0, kInvalidArgument, "global ", what, " threads must be >= 0, got ",
                threads);
  return threads > 0 ? threads : DefaultIntraOpThreads();
}

}  // namespace

void CreateGlobalThreadPools(const GlobalThreadPoolSizes& sizes) {
  GlobalThreadPoolSizes resolved;
  resolved.intra_op_threads = Resolved(sizes.intra_op_threads, "intra-op");
  resolved.inter_op_threads = Resolved(sizes.inter_op_threads, "inter-op");
  GlobalPools& pools = Pools();
  std::lock_guard<std::mutex> lock(pools.mutex);
  if (pools.created) {
    PRISM_ENFORCE(pools.sizes.intra_op_threads == resolved.intra_op_threads &&
                      pools.sizes.inter_op_threads == resolved.inter_op_threads,
                  kInvalidArgument, "the global thread pools exist already with ",
                  pools.sizes.intra_op_threads, " intra-op and ", pools.sizes.inter_op_threads,
                  " inter-op threads; asked for ", resolved.intra_op_threads, " and ",
                  resolved.inter_op_threads);
    return;
  }
  if (resolved.intra_op_threads > 1)
    pools.intra_op = std::make_shared<ThreadPool>(resolved.intra_op_threads);
  if (resolved.inter_op_threads > 1)
    pools.inter_op = std::make_shared<ThreadPool>(resolved.inter_op_threads);
  pools.sizes = resolved;
  pools.created = true;
}

bool GlobalThreadPoolsCreated() {
  std::lock_guard<std::mutex> lock(Pools().mutex);
  return Pools().created;
}

std::shared_ptr<ThreadPool> GlobalIntraOpPool() {
  std::lock_guard<std::mutex> lock(Pools().mutex);
  return Pools().intra_op;
}

std::shared_ptr<ThreadPool> GlobalInterOpPool() {
  std::lock_guard<std::mutex> lock(Pools().mutex);
  return Pools().inter_op;
}

GlobalThreadPoolSizes GlobalThreadPoolSizesInUse() {
  std::lock_guard<std::mutex> lock(Pools().mutex);
  return Pools().sizes;
}

}  // namespace prism
