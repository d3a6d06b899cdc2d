#include "explain.h"

#include <algorithm>
#include <sstream>

namespace prism::perf {
namespace {

std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

std::string ExplainPartition(const PartitionReport& report,
                             const std::vector<std::string>& providers) {
  std::ostringstream out;
  out << "Providers in priority order:";
  for (size_t i = 0; i < providers.size(); ++i) out << (i ? ", " : " ") << providers[i];
  out << "\nPartition: " << report.nodes.size() << " nodes, " << report.copies.size()
      << " copies\n";
  for (const auto& [provider, count] : report.NodesPerProvider())
    out << "  " << Pad(provider, 28) << count << " nodes\n";

  // Column widths from the data, so long node names stay aligned.
  size_t name_width = 4, op_width = 7;
  for (const NodePlacement& node : report.nodes) {
    name_width = std::max(name_width, node.node_name.size() + 2);
    op_width = std::max(
        op_width, node.op_type.size() + (node.domain.empty() ? 0 : node.domain.size() + 1) + 2);
  }
  std::string graph;
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    const NodePlacement& node = report.nodes[i];
    if (i == 0 || node.graph != graph) {
      graph = node.graph;
      out << "\nNodes of graph " << graph << " (execution order):\n";
      out << "  " << Pad("node", name_width) << Pad("op", op_width) << "opset  EP\n";
    }
    const std::string op = node.domain.empty() ? node.op_type : node.domain + "." + node.op_type;
    out << "  " << Pad(node.node_name, name_width) << Pad(op, op_width)
        << Pad(std::to_string(node.opset), 7) << node.provider << "\n";
    for (const auto& [provider, reason] : node.declined)
      out << "      " << provider << " declined: " << reason << "\n";
  }

  out << "\nCopies between memory spaces (" << report.copies.size() << "):\n";
  if (report.copies.empty()) out << "  none: every value is read where it was produced\n";
  for (const CopyRecord& copy : report.copies) {
    out << "  [" << copy.graph << "] '" << copy.value << "' " << copy.from_memory << " -> "
        << copy.to_memory << "\n      for " << copy.consumer << ": " << copy.reason << "\n";
  }
  return out.str();
}

}  // namespace prism::perf
