"""Helpers of the perf tests."""
import onnx


def count_nodes(graph):
    """Nodes of a graph, those of its subgraphs included."""
    total = 0
    for node in graph.node:
        total += 1
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                total += count_nodes(attribute.g)
            elif attribute.type == onnx.AttributeProto.GRAPHS:
                total += sum(count_nodes(g) for g in attribute.graphs)
    return total
