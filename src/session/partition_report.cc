#include "session/partition_report.h"

#include <set>
#include <sstream>

namespace prism {
namespace {

// Fixed colours per well-known EP; others cycle through the rest.
std::string ColorFor(const std::string& provider, std::map<std::string, std::string>& assigned) {
  static const char* kPalette[] = {"#a6cee3", "#b2df8a", "#fdbf6f",
                                   "#cab2d6", "#fb9a99", "#ffff99"};
  auto it = assigned.find(provider);
  if (it != assigned.end()) return it->second;
  std::string color =
      provider == "CPUExecutionProvider" ? "#d9d9d9" : kPalette[assigned.size() % 6];
  assigned[provider] = color;
  return color;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::map<std::string, int> PartitionReport::NodesPerProvider() const {
  std::map<std::string, int> counts;
  for (const NodePlacement& node : nodes) ++counts[node.provider];
  return counts;
}

std::string PartitionReport::ToText() const {
  std::ostringstream out;
  out << "Partition: " << nodes.size() << " nodes, " << copies.size() << " copies";
  if (!copies.empty()) {
    // Which copies a run makes: graph inputs' copies are skipped for feeds already in the
    // memory wanted (IO binding), constants are placed once at session creation.
    size_t graph_inputs = 0, constants = 0;
    for (const CopyRecord& copy : copies) {
      if (!copy.per_run)
        ++constants;
      else if (copy.skipped_when_fed_there)
        ++graph_inputs;
    }
    out << " (" << copies.size() - graph_inputs - constants << " in every run";
    if (graph_inputs > 0)
      out << "; " << graph_inputs << " of graph inputs, only when fed in other memory";
    if (constants > 0) out << "; " << constants << " of constants, once at session creation";
    out << ")";
  }
  out << "\n";
  for (const auto& [provider, count] : NodesPerProvider())
    out << "  " << provider << ": " << count << " nodes\n";
  out << "Nodes:\n";
  for (const NodePlacement& node : nodes) {
    out << "  [" << node.graph << "] " << node.node_name << " (" << node.op_type << ", opset "
        << node.opset
        << (node.custom_op
                ? ", custom op of domain '" + (node.domain.empty() ? "ai.onnx" : node.domain) + "'"
                : std::string())
        << ") -> " << node.provider
        << (node.fused_into.empty() ? "" : " (fused into " + node.fused_into + ")") << "\n";
    for (const auto& [provider, reason] : node.declined)
      out << "      declined by " << provider << ": " << reason << "\n";
  }
  if (!fused_groups.empty()) {
    out << "Fused groups:\n";
    for (const FusedGroupRecord& group : fused_groups) {
      out << "  [" << group.graph << "] " << group.fused_node << " -> " << group.provider << ":";
      for (const std::string& node : group.nodes) out << " " << node;
      out << "\n";
    }
  }
  if (!copies.empty()) {
    out << "Copies:\n";
    for (const CopyRecord& copy : copies)
      out << "  [" << copy.graph << "] '" << copy.value << "' " << copy.from_memory << " -> "
          << copy.to_memory << " for " << copy.consumer << " (" << copy.reason << ")\n";
  }
  return out.str();
}

std::string PartitionReport::ToDot() const {
  std::ostringstream out;
  std::map<std::string, std::string> colors;
  out << "digraph prism_partition {\n  rankdir=TB;\n  node [shape=box, style=filled, "
         "fontname=\"Helvetica\"];\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodePlacement& node = nodes[i];
    out << "  n" << i << " [label=\"" << Escape(node.node_name) << "\\n"
        << Escape(node.op_type) << "\\n"
        << Escape(node.provider) << "\", fillcolor=\"" << ColorFor(node.provider, colors)
        << "\"];\n";
  }
  for (size_t c = 0; c < copies.size(); ++c) {
    const CopyRecord& copy = copies[c];
    out << "  c" << c << " [shape=note, fillcolor=\"#ffffff\", label=\"copy " << Escape(copy.value)
        << "\\n"
        << Escape(copy.from_memory) << " -> " << Escape(copy.to_memory) << "\"];\n";
  }
  // Edges: producer -> consumer, through the copy node when the value was copied for it.
  std::map<std::pair<std::string, std::string>, size_t> producer;  // (graph, value) -> node
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const std::string& value : nodes[i].outputs) producer[{nodes[i].graph, value}] = i;
  for (size_t c = 0; c < copies.size(); ++c) {
    auto it = producer.find({copies[c].graph, copies[c].value});
    if (it != producer.end())
      out << "  n" << it->second << " -> c" << c << " [style=dashed, color=red];\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& value : nodes[i].inputs) {
      bool via_copy = false;
      for (size_t c = 0; c < copies.size(); ++c) {
        const CopyRecord& copy = copies[c];
        const std::string quoted = "'" + nodes[i].node_name + "'";
        bool reads_copy = false;
        for (const std::string& consumer : copy.consumers)
          if (consumer.size() >= quoted.size() &&
              consumer.compare(consumer.size() - quoted.size(), quoted.size(), quoted) == 0)
            reads_copy = true;
        if (copy.graph == nodes[i].graph && copy.value == value && reads_copy) {
          out << "  c" << c << " -> n" << i << " [style=dashed, color=red, label=\""
              << Escape(value) << "\"];\n";
          via_copy = true;
        }
      }
      auto it = producer.find({nodes[i].graph, value});
      if (!via_copy && it != producer.end())
        out << "  n" << it->second << " -> n" << i << " [label=\"" << Escape(value) << "\"];\n";
    }
  }
  out << "  subgraph cluster_legend {\n    label=\"EPs\";\n";
  for (const auto& [provider, color] : colors)
    out << "    \"legend_" << Escape(provider) << "\" [label=\"" << Escape(provider)
        << "\", fillcolor=\"" << color << "\"];\n";
  out << "  }\n}\n";
  return out.str();
}

}  // namespace prism
