// Process-wide thread pools (onnxruntime's global thread pools): created once by the application
// (C ABI CreateEnvWithGlobalThreadPools, Python prismrt.set_global_thread_pool_sizes) and used by
// every session whose options turn per-session threads off, so that many sessions in one process
// share one set of workers instead of each starting its own.
#pragma once

#include <memory>

#include "common/thread_pool.h"

namespace prism {

struct GlobalThreadPoolSizes {
  int intra_op_threads = 0;  // 0: the physical cores this process may use
  int inter_op_threads = 0;  // 0: the same default (used by execution_mode parallel)
};

// Creates the pools; creating them again with the same resolved sizes is a no-op, with other
// sizes an error naming both (the pools of a process never change once made).
void CreateGlobalThreadPools(const GlobalThreadPoolSizes& sizes);
// The pools, or nullptr before CreateGlobalThreadPools (nullptr too for a size of 1: no pool).
bool GlobalThreadPoolsCreated();
std::shared_ptr<ThreadPool> GlobalIntraOpPool();
std::shared_ptr<ThreadPool> GlobalInterOpPool();
GlobalThreadPoolSizes GlobalThreadPoolSizesInUse();

}  // namespace prism
