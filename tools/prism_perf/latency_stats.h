// Latency statistics over a set of run times.
#pragma once

#include <vector>

namespace prism::perf {

struct LatencyStats {
  int count = 0;
  double min_ms = 0, median_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
};

// Percentiles by nearest rank on the sorted samples, so min <= median <= p90 <= p99 <= max.
LatencyStats ComputeLatencyStats(std::vector<double> samples_ms);

}  // namespace prism::perf
