// Where each node runs and why: the EP that took it, and for every higher-priority EP that did
// not, its reason; plus every copy inserted between memory spaces.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace prism {

struct NodePlacement {
  std::string graph;  // "main", or "main/if_node:then_branch" for subgraphs
  std::string node_name;
  std::string op_type;
  std::string domain;
  int opset = 0;
  std::string provider;  // the EP that runs it
  // Each earlier EP in priority order that declined, with its reason.
  std::vector<std::pair<std::string, std::string>> declined;
  std::vector<std::string> inputs;  // value names, for drawing edges
  std::vector<std::string> outputs;
  std::string fused_into;  // the fused node that now runs it, when its EP compiled a group
  bool custom_op = false;  // its kernel is a custom op the session's options registered
};

// A group of nodes that one node now runs: a group an EP claimed and compiled, or the nodes an
// optimizer fusion replaced (ConvActivationFusion, GeluFusion, ...).
struct FusedGroupRecord {
  std::string graph;
  std::string fused_node;  // name and op type of the fused node
  std::string domain;
  std::string provider;
  std::vector<std::string> nodes;  // the group's nodes, in topological order
};

struct CopyRecord {
  std::string graph;
  std::string value;                   // the value copied
  std::string from_memory;             // e.g. "Cpu:0"
  std::string to_memory;               // e.g. "TestDevice:0"
  std::string consumer;                // the node (or "graph output") that needed the copy
  std::string reason;                  // why the consumer wants it there
  std::vector<std::string> consumers;  // every reader of the copy (the first is `consumer`)
  bool per_run = true;  // false: a constant placed once at session creation, never copied again
  // A copy of a graph input: a run whose feed is already in to_memory uses the feed in place.
  bool skipped_when_fed_there = false;
};

class PartitionReport {
 public:
  std::vector<NodePlacement> nodes;
  std::vector<CopyRecord> copies;
  std::vector<FusedGroupRecord> fused_groups;

  // Nodes per EP, copies not counted.
  std::map<std::string, int> NodesPerProvider() const;
  std::string ToText() const;
  // Graphviz: nodes coloured by EP, copy edges dashed and labelled.
  std::string ToDot() const;
};

}  // namespace prism
