// Which nodes compute shapes: small chains fed by Shape-like nodes (outputs a device EP's kernel
// writes in CPU memory) and constant initializers, whose results a device EP only reads in CPU
// memory (Reshape's shape, Slice's starts, Expand's shape, ...) or the CPU EP reads. A device EP
// leaves them to the CPU EP, so their values never travel to the device and back (as
// onnxruntime's GetCpuPreferredNodes does).
#pragma once

#include <functional>
#include <set>

#include "graph/graph.h"

namespace prism {

struct KernelDef;

// device_def(node): the kernel definition a device EP would run node with, or nullptr where it
// declines node (the CPU EP then runs it, its outputs in CPU memory). Returns the nodes of
// viewer the device EP would claim but should leave to the CPU EP: each reads only CPU-resident
// values (constant initializers, CPU outputs of device kernels, outputs of CPU-run nodes), each
// of its outputs is read only in CPU memory (a device kernel's CPU input, a CPU-run node,
// another node of the set, a graph output), and at least one read is a device kernel's CPU input
// or a node of the set (so a chain ends in a shape-like input). Nodes with subgraphs are never
// in the set.
std::set<NodeIndex> ShapeComputationNodes(
    const GraphViewer& viewer, const std::function<const KernelDef*(const Node&)>& device_def);

}  // namespace prism
