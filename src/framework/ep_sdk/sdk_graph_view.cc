#include "framework/ep_sdk/sdk_graph_view.h"

#include <stdexcept>

#include "common/status.h"

namespace prism::ep_sdk {

// The SDK's element types are Prism's (both ONNX's numbering): a view passes them as they are.
#define PRISM_SAME_TYPE(name)                                                                 \
  static_assert(                                                                              \
      static_cast<int32_t>(ep::ElementType::name) == static_cast<int32_t>(ElementType::name), \
      "prism/ep/element_type.h and framework/element_type.h differ on " #name)
PRISM_SAME_TYPE(kUndefined);
PRISM_SAME_TYPE(kFloat);
PRISM_SAME_TYPE(kUint8);
PRISM_SAME_TYPE(kInt8);
PRISM_SAME_TYPE(kUint16);
PRISM_SAME_TYPE(kInt16);
PRISM_SAME_TYPE(kInt32);
PRISM_SAME_TYPE(kInt64);
PRISM_SAME_TYPE(kString);
PRISM_SAME_TYPE(kBool);
PRISM_SAME_TYPE(kFloat16);
PRISM_SAME_TYPE(kDouble);
PRISM_SAME_TYPE(kUint32);
PRISM_SAME_TYPE(kUint64);
PRISM_SAME_TYPE(kComplex64);
PRISM_SAME_TYPE(kComplex128);
PRISM_SAME_TYPE(kBFloat16);
#undef PRISM_SAME_TYPE

ep::TensorView ToTensorView(const Tensor& tensor) {
  ep::TensorView view;
  view.type = static_cast<ep::ElementType>(tensor.Type());
  view.shape = tensor.Shape().Dims();
  view.data = tensor.NumElements() > 0 ? tensor.RawData() : nullptr;
  view.on_device = !tensor.Location().IsCpuAccessible();
  return view;
}

namespace {

ep::AttributeKind KindOf(AttributeType type) {
  switch (type) {
    case AttributeType::kFloat:
      return ep::AttributeKind::kFloat;
    case AttributeType::kInt:
      return ep::AttributeKind::kInt;
    case AttributeType::kString:
      return ep::AttributeKind::kString;
    case AttributeType::kTensor:
      return ep::AttributeKind::kTensor;
    case AttributeType::kFloats:
      return ep::AttributeKind::kFloats;
    case AttributeType::kInts:
      return ep::AttributeKind::kInts;
    case AttributeType::kStrings:
      return ep::AttributeKind::kStrings;
    default:
      return ep::AttributeKind::kOther;
  }
}

}  // namespace

class SdkNodeView final : public ep::NodeView {
 public:
  SdkNodeView(const prism::Node& node, std::vector<const ep::ValueInfo*> inputs,
              std::vector<const ep::ValueInfo*> outputs)
      : node_(node), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  size_t Id() const override { return node_.Index(); }
  const std::string& Name() const override { return node_.Name(); }
  const std::string& OpType() const override { return node_.OpType(); }
  const std::string& Domain() const override { return node_.Domain(); }
  int OpsetVersion() const override { return node_.OpsetVersion(); }
  size_t InputCount() const override { return inputs_.size(); }
  const ep::ValueInfo* Input(size_t index) const override {
    return index < inputs_.size() ? inputs_[index] : nullptr;
  }
  size_t OutputCount() const override { return outputs_.size(); }
  const ep::ValueInfo* Output(size_t index) const override {
    return index < outputs_.size() ? outputs_[index] : nullptr;
  }
  bool HasSubgraphs() const override { return !node_.Subgraphs().empty(); }

  std::vector<std::string> AttributeNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, attribute] : node_.Attributes()) names.push_back(name);
    return names;
  }
  ep::AttributeKind GetAttributeKind(const std::string& name) const override {
    const Attribute* attribute = node_.FindAttribute(name);
    return attribute ? KindOf(attribute->type) : ep::AttributeKind::kMissing;
  }
  int64_t GetInt(const std::string& name) const override {
    return Get(name, AttributeType::kInt).i;
  }
  float GetFloat(const std::string& name) const override {
    return Get(name, AttributeType::kFloat).f;
  }
  std::string GetString(const std::string& name) const override {
    return Get(name, AttributeType::kString).s;
  }
  std::vector<int64_t> GetInts(const std::string& name) const override {
    return Get(name, AttributeType::kInts).ints;
  }
  std::vector<float> GetFloats(const std::string& name) const override {
    return Get(name, AttributeType::kFloats).floats;
  }
  std::vector<std::string> GetStrings(const std::string& name) const override {
    return Get(name, AttributeType::kStrings).strings;
  }
  ep::TensorView GetTensor(const std::string& name) const override {
    const Attribute& attribute = Get(name, AttributeType::kTensor);
    if (!attribute.tensor)
      throw std::invalid_argument(
          MakeString(node_.Describe(), ": attribute '", name, "' holds no tensor"));
    return ToTensorView(*attribute.tensor);
  }

 private:
  const Attribute& Get(const std::string& name, AttributeType type) const {
    const Attribute* attribute = node_.FindAttribute(name);
    if (attribute == nullptr)
      throw std::invalid_argument(MakeString(node_.Describe(), " has no attribute '", name, "'"));
    if (attribute->type != type)
      throw std::invalid_argument(MakeString(node_.Describe(), ": attribute '", name, "' is ",
                                             AttributeTypeName(attribute->type), ", not ",
                                             AttributeTypeName(type)));
    return *attribute;
  }

  const prism::Node& node_;
  std::vector<const ep::ValueInfo*> inputs_;
  std::vector<const ep::ValueInfo*> outputs_;
};

SdkGraphView::SdkGraphView(const Graph& graph, const std::vector<NodeIndex>& nodes,
                           const std::vector<NodeArg*>& inputs,
                           const std::vector<NodeArg*>& outputs, ConstantLookup constants)
    : graph_(graph) {
  for (NodeIndex index : nodes) {
    const prism::Node& node = graph.GetNode(index);
    std::vector<const ep::ValueInfo*> node_inputs, node_outputs;
    for (const NodeArg* arg : node.Inputs()) {
      node_inputs.push_back(InfoOf(arg));
      if (arg && !constants_.count(arg->name))
        if (const Tensor* constant = constants ? constants(arg->name) : nullptr)
          constants_.emplace(arg->name, ToTensorView(*constant));
    }
    for (const NodeArg* arg : node.Outputs()) node_outputs.push_back(InfoOf(arg));
    position_of_[index] = nodes_.size();
    nodes_.push_back(
        std::make_unique<SdkNodeView>(node, std::move(node_inputs), std::move(node_outputs)));
  }
  for (const NodeArg* arg : inputs) inputs_.push_back(InfoOf(arg));
  for (const NodeArg* arg : outputs) outputs_.push_back(InfoOf(arg));
}

SdkGraphView::~SdkGraphView() = default;

const ep::ValueInfo* SdkGraphView::InfoOf(const NodeArg* arg) {
  if (arg == nullptr) return nullptr;
  auto it = values_.find(arg->name);
  if (it != values_.end()) return it->second.get();
  auto info = std::make_unique<ep::ValueInfo>();
  info->name = arg->name;
  info->is_tensor = arg->type.kind == TypeKind::kTensor || arg->type.kind == TypeKind::kUnknown;
  info->type =
      info->is_tensor ? static_cast<ep::ElementType>(arg->type.elem) : ep::ElementType::kUndefined;
  if (arg->shape) {
    info->has_shape = true;
    for (const Dim& dim : arg->shape->dims) info->shape.push_back(dim.IsKnown() ? dim.value : -1);
  }
  return values_.emplace(arg->name, std::move(info)).first->second.get();
}

const ep::NodeView& SdkGraphView::Node(size_t position) const {
  if (position >= nodes_.size())
    throw std::out_of_range(
        MakeString("node position ", position, " of a view of ", nodes_.size(), " nodes"));
  return *nodes_[position];
}

const ep::NodeView* SdkGraphView::FindNode(size_t id) const {
  auto it = position_of_.find(id);
  return it == position_of_.end() ? nullptr : nodes_[it->second].get();
}

const ep::NodeView* SdkGraphView::Producer(const std::string& value) const {
  const prism::Node* producer = graph_.Producer(value);
  return producer && &producer->OwnerGraph() == &graph_ ? FindNode(producer->Index()) : nullptr;
}

std::vector<const ep::NodeView*> SdkGraphView::Consumers(const std::string& value) const {
  std::vector<const ep::NodeView*> consumers;
  for (NodeIndex index : graph_.Consumers(value))
    if (const ep::NodeView* node = FindNode(index)) consumers.push_back(node);
  return consumers;
}

bool SdkGraphView::IsReadOutside(const std::string& value) const {
  for (const ep::ValueInfo* output : outputs_)
    if (output && output->name == value) return true;
  const NodeArg* arg = graph_.FindNodeArg(value);
  if (arg && graph_.IsOutput(arg)) return true;
  for (NodeIndex index : graph_.Consumers(value))
    if (!position_of_.count(index)) return true;
  return false;
}

const ep::TensorView* SdkGraphView::ConstantInitializer(const std::string& name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : &it->second;
}

}  // namespace prism::ep_sdk
