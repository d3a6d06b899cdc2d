#include "session/node_fuser.h"

#include <set>

#include "graph/model.h"

namespace prism {
namespace {

// A value of graph or of an enclosing graph.
NodeArg* FindVisible(Graph& graph, const std::string& name) {
  if (NodeArg* local = graph.MutableNodeArg(name)) return local;
  for (const Graph* g = graph.Parent(); g != nullptr; g = g->Parent())
    if (const NodeArg* outer = g->FindNodeArg(name)) return const_cast<NodeArg*>(outer);
  return nullptr;
}

class GroupFuser {
 public:
  GroupFuser(Graph& graph, GraphAssignment& assignment, FusedClaim& claim)
      : graph_(graph), assignment_(assignment), claim_(claim), meta_(claim.meta_def) {}

  std::string Where() const {
    return MakeString(claim_.provider->Type(), "'s fused group '", meta_.name, "' in graph ",
                      assignment_.path);
  }

  NodeIndex Fuse() {
    PRISM_ENFORCE(!meta_.name.empty(), kEpFail, claim_.provider->Type(),
                  " returned a fused group without a name in graph ", assignment_.path);
    std::set<NodeIndex> members(claim_.nodes.begin(), claim_.nodes.end());
    std::set<const NodeArg*> produced;
    for (NodeIndex index : members) {
      const Node& node = graph_.GetNode(index);
      PRISM_ENFORCE(node.Subgraphs().empty() && node.FusedBody() == nullptr, kEpFail, Where(),
                    " contains ", node.Describe(),
                    ", which has subgraphs; fused groups of control-flow nodes are not supported");
      for (const NodeArg* arg : node.Outputs())
        if (arg) produced.insert(arg);
    }
    std::vector<NodeArg*> inputs = Lookup(meta_.inputs, "input");
    std::vector<NodeArg*> outputs = Lookup(meta_.outputs, "output");
    std::set<const NodeArg*> declared_inputs(inputs.begin(), inputs.end());
    std::set<const NodeArg*> declared_outputs(outputs.begin(), outputs.end());
    for (const NodeArg* output : outputs)
      PRISM_ENFORCE(produced.count(output), kEpFail, Where(), " lists output '", output->name,
                    "', which none of its nodes produces");
    // Everything the group reads from outside must be an input of the fused node.
    for (NodeIndex index : members)
      for (const NodeArg* arg : graph_.GetNode(index).Inputs())
        PRISM_ENFORCE(arg == nullptr || produced.count(arg) || declared_inputs.count(arg), kEpFail,
                      Where(), ": ", graph_.GetNode(index).Describe(), " reads '", arg->name,
                      "', which the MetaDef does not list as an input");
    // Everything it produces that is read outside (or is a graph output) must be an output.
    for (const NodeArg* arg : produced) {
      if (declared_outputs.count(arg)) continue;
      bool read_outside = graph_.IsOutput(arg);
      for (NodeIndex consumer : graph_.Consumers(arg->name))
        read_outside = read_outside || !members.count(consumer);
      PRISM_ENFORCE(!read_outside, kEpFail, Where(), " produces '", arg->name,
                    "', which is read outside the group, but the MetaDef does not list it as an "
                    "output");
    }
    for (const std::string& name : meta_.constant_initializers) {
      const NodeArg* arg = FindVisible(graph_, name);
      PRISM_ENFORCE(arg != nullptr && declared_inputs.count(arg), kEpFail, Where(),
                    " lists constant initializer '", name, "', which is not one of its inputs");
    }

    std::shared_ptr<Graph> body = BuildBody(members, inputs, outputs);
    const std::string node_name = graph_.UniqueNodeName(meta_.name);
    Node& fused = graph_.AddNode(node_name, meta_.name, meta_.domain, meta_.since_version, inputs,
                                 outputs, meta_.attributes);
    const NodeIndex fused_index = fused.Index();
    for (NodeIndex index : members) graph_.RemoveNode(index);
    graph_.SetFusedBody(fused_index, std::move(body));
    try {
      graph_.Resolve();
    } catch (const Exception& e) {
      PRISM_THROW(kEpFail, Where(), " cannot be fused: ", e.what(),
                  " (a path between two of its nodes leaves the group)");
    }
    assignment_.provider_of.resize(graph_.NodeCount(), nullptr);
    for (NodeIndex index : members) assignment_.provider_of[index] = nullptr;
    assignment_.provider_of[fused_index] = claim_.provider;
    return fused_index;
  }

 private:
  std::vector<NodeArg*> Lookup(const std::vector<std::string>& names, const char* what) {
    std::vector<NodeArg*> args;
    std::set<std::string> seen;
    for (const std::string& name : names) {
      PRISM_ENFORCE(seen.insert(name).second, kEpFail, Where(), " lists ", what, " '", name,
                    "' twice");
      NodeArg* arg = FindVisible(graph_, name);
      PRISM_ENFORCE(arg != nullptr, kEpFail, Where(), " lists ", what, " '", name,
                    "', which is not a value of the graph");
      args.push_back(arg);
    }
    return args;
  }

  // The body: the group's nodes over values of their own, with the fused node's inputs and
  // outputs as graph inputs and outputs.
  std::shared_ptr<Graph> BuildBody(const std::set<NodeIndex>& members,
                                   const std::vector<NodeArg*>& inputs,
                                   const std::vector<NodeArg*>& outputs) {
    std::shared_ptr<Graph> body = Graph::MakeEmpty(graph_.OwnerModel(), meta_.name);
    auto mirror = [&body](const NodeArg* arg) -> NodeArg* {
      if (arg == nullptr) return nullptr;
      NodeArg* copy = body->GetOrCreateValue(arg->name);
      copy->type = arg->type;
      copy->shape = arg->shape;
      return copy;
    };
    for (NodeIndex index : graph_.TopologicalOrder()) {
      if (!members.count(index)) continue;
      const Node& node = graph_.GetNode(index);
      std::vector<NodeArg*> node_inputs;
      std::vector<NodeArg*> node_outputs;
      for (const NodeArg* arg : node.Inputs()) node_inputs.push_back(mirror(arg));
      for (const NodeArg* arg : node.Outputs()) node_outputs.push_back(mirror(arg));
      body->AddNode(node.Name(), node.OpType(), node.Domain(), node.OpsetVersion(), node_inputs,
                    node_outputs, node.Attributes());
    }
    std::vector<NodeArg*> body_inputs;
    std::vector<NodeArg*> body_outputs;
    for (const NodeArg* arg : inputs) body_inputs.push_back(mirror(arg));
    for (const NodeArg* arg : outputs) body_outputs.push_back(mirror(arg));
    body->SetInputs(body_inputs);
    body->SetOutputs(body_outputs);
    body->Resolve();
    return body;
  }

  Graph& graph_;
  GraphAssignment& assignment_;
  FusedClaim& claim_;
  const MetaDef& meta_;
};

void FuseTree(Graph& graph, Assignment& assignment, PartitionReport& report,
              std::vector<FusedNode>& fused) {
  GraphAssignment& graph_assignment = assignment.at(&graph);
  for (FusedClaim& claim : graph_assignment.fused_claims) {
    std::vector<std::string> names;
    for (NodeIndex index : claim.nodes) names.push_back(graph.GetNode(index).Name());
    GroupFuser fuser(graph, graph_assignment, claim);
    const NodeIndex index = fuser.Fuse();
    const std::string& node_name = graph.GetNode(index).Name();
    for (NodePlacement& placement : report.nodes)
      if (placement.graph == graph_assignment.path &&
          std::find(names.begin(), names.end(), placement.node_name) != names.end())
        placement.fused_into = node_name;
    report.fused_groups.push_back(FusedGroupRecord{
        graph_assignment.path, node_name, claim.meta_def.domain, claim.provider->Type(), names});
    fused.push_back(FusedNode{&graph, index, claim.provider, claim.meta_def});
  }
  for (NodeIndex index : graph.TopologicalOrder())
    for (Graph* sub : graph.MutableNode(index)->MutableSubgraphs())
      FuseTree(*sub, assignment, report, fused);
}

}  // namespace

std::vector<FusedNode> FuseClaimedGroups(Graph& main, Assignment& assignment,
                                         PartitionReport& report) {
  std::vector<FusedNode> fused;
  FuseTree(main, assignment, report, fused);
  return fused;
}

}  // namespace prism
