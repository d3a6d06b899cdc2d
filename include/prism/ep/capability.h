// What GetCapability answers: the nodes the EP takes, the nodes it declines with a reason (shown
// in the session's partition report), and how the taken nodes are grouped for Compile.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "prism/ep/graph_view.h"

namespace prism::ep {

enum class Grouping {
  // Prism groups the taken nodes into connected subgraphs, as large as they can be without a
  // cycle through nodes left to other EPs; Compile gets one call per group.
  kConnectedGroups,
  // Every taken node is compiled alone: a kernel per node.
  kSingleNodes,
};

class Capability {
 public:
  void Accept(const NodeView& node) { accepted_.push_back(node.Id()); }
  void Decline(const NodeView& node, std::string reason) {
    declined_.emplace_back(node.Id(), std::move(reason));
  }
  void SetGrouping(Grouping grouping) { grouping_ = grouping; }

  const std::vector<size_t>& Accepted() const { return accepted_; }
  const std::vector<std::pair<size_t, std::string>>& Declined() const { return declined_; }
  Grouping GetGrouping() const { return grouping_; }

 private:
  std::vector<size_t> accepted_;
  std::vector<std::pair<size_t, std::string>> declined_;
  Grouping grouping_ = Grouping::kConnectedGroups;
};

}  // namespace prism::ep
