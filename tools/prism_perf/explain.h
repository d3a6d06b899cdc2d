// --explain: the partition report as a readable table (where each node runs and why, and
// every copy between memory spaces with its reason).
#pragma once

#include <string>
#include <vector>

#include "session/partition_report.h"

namespace prism::perf {

std::string ExplainPartition(const PartitionReport& report,
                             const std::vector<std::string>& providers);

}  // namespace prism::perf
