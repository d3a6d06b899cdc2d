#include "latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace prism::perf {

LatencyStats ComputeLatencyStats(std::vector<double> samples_ms) {
  LatencyStats stats;
  if (samples_ms.empty()) return stats;
  std::sort(samples_ms.begin(), samples_ms.end());
  const size_t n = samples_ms.size();
  auto rank = [&](double percent) {
    const size_t index = static_cast<size_t>(std::ceil(percent / 100.0 * static_cast<double>(n)));
    return samples_ms[std::min(n - 1, index == 0 ? 0 : index - 1)];
  };
  stats.count = static_cast<int>(n);
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  stats.p90_ms = std::max(stats.median_ms, rank(90));
  stats.p95_ms = std::max(stats.p90_ms, rank(95));
  stats.p99_ms = std::max(stats.p95_ms, rank(99));
  stats.mean_ms =
      std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(n);
  return stats;
}

}  // namespace prism::perf
