#include "framework/node_grouping.h"

#include <algorithm>
#include <set>

namespace prism {

// Every accepted node joins the group of one of its producers when the graph with each group
// contracted to one node stays acyclic, else starts a group of its own. Nodes are visited in
// topological order, so a node has no consumers yet when it joins: joining group g adds the edges
// (producer -> g) only, and closes a cycle exactly when g already reaches one of those producers
// (a producer outside g, or the group it belongs to) in the contracted graph. A search from g
// answers that. Groups never merge, so each is connected; the fused graph stays a DAG by
// induction.
std::vector<std::vector<NodeIndex>> GroupAcceptedNodes(const Graph& graph,
                                                       const std::vector<bool>& accepted) {
  const size_t count = graph.NodeCount();
  auto is_accepted = [&](NodeIndex index) { return index < accepted.size() && accepted[index]; };
  // Producers and consumers among this graph's nodes (implicit inputs included).
  std::vector<std::vector<NodeIndex>> preds(count), succs(count);
  for (NodeIndex index : graph.TopologicalOrder()) {
    const Node& node = graph.GetNode(index);
    auto add = [&](const NodeArg* arg) {
      const Node* producer = arg ? graph.Producer(arg->name) : nullptr;
      if (producer == nullptr || &producer->OwnerGraph() != &graph) return;
      const NodeIndex p = producer->Index();
      if (std::find(preds[index].begin(), preds[index].end(), p) != preds[index].end()) return;
      preds[index].push_back(p);
      succs[p].push_back(index);
    };
    for (const NodeArg* arg : node.Inputs()) add(arg);
    for (const NodeArg* arg : node.ImplicitInputs()) add(arg);
  }
  std::vector<int> group_of(count, -1);
  std::vector<bool> visited_node(count, false);
  std::vector<std::vector<NodeIndex>> groups;
  std::vector<bool> done(count, false);  // visited so far in topological order
  // Whether group g reaches, in the contracted graph over the nodes visited so far, a node of
  // `targets` or a node of a group in `target_groups`.
  auto reaches = [&](int g, const std::set<NodeIndex>& targets,
                     const std::set<int>& target_groups) {
    std::vector<bool> visited_group(groups.size(), false);
    std::fill(visited_node.begin(), visited_node.end(), false);
    std::vector<NodeIndex> stack(groups[g].begin(), groups[g].end());
    visited_group[g] = true;
    while (!stack.empty()) {
      const NodeIndex u = stack.back();
      stack.pop_back();
      for (NodeIndex c : succs[u]) {
        if (!done[c]) continue;
        const int h = group_of[c];
        if (h >= 0) {
          if (visited_group[h]) continue;
          if (target_groups.count(h)) return true;
          visited_group[h] = true;
          stack.insert(stack.end(), groups[h].begin(), groups[h].end());
        } else if (!visited_node[c]) {
          if (targets.count(c)) return true;
          visited_node[c] = true;
          stack.push_back(c);
        }
      }
    }
    return false;
  };
  for (NodeIndex index : graph.TopologicalOrder()) {
    if (is_accepted(index)) {
      int chosen = -1;
      for (NodeIndex candidate : preds[index]) {
        const int g = group_of[candidate];
        if (g < 0) continue;
        std::set<NodeIndex> targets;
        std::set<int> target_groups;
        for (NodeIndex p : preds[index]) {
          if (group_of[p] == g) continue;
          if (group_of[p] >= 0)
            target_groups.insert(group_of[p]);
          else
            targets.insert(p);
        }
        if ((targets.empty() && target_groups.empty()) || !reaches(g, targets, target_groups)) {
          chosen = g;
          break;
        }
      }
      if (chosen < 0) {
        chosen = static_cast<int>(groups.size());
        groups.emplace_back();
      }
      group_of[index] = chosen;
      groups[chosen].push_back(index);
    }
    done[index] = true;
  }
  return groups;
}

}  // namespace prism
