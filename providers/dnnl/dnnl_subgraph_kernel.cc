#include "providers/dnnl/dnnl_subgraph_kernel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/thread_pool.h"
#include "graph/graph.h"
#include "providers/dnnl/dnnl_op_support.h"

namespace prism::dnnl_ep {
namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using Dims = std::vector<int64_t>;
using dt = memory::data_type;

std::atomic<int64_t> plans_built{0};

std::string Text(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

int64_t Volume(const Dims& dims) {
  int64_t volume = 1;
  for (int64_t d : dims) volume *= d;
  return volume;
}

memory::dims ToDnnl(const Dims& dims) {
  return dims.empty() ? memory::dims{1} : memory::dims(dims.begin(), dims.end());
}

Dims RowMajorStrides(const Dims& dims) {
  Dims strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(dims[i], 1);
  }
  return strides;
}

// Row-major f32 layout of dims (a scalar is one element of dims {1}).
memory::desc PlainMd(const Dims& dims) {
  const memory::dims d = ToDnnl(dims);
  const Dims strides = RowMajorStrides(Dims(d.begin(), d.end()));
  return memory::desc(d, dt::f32, memory::dims(strides.begin(), strides.end()));
}

Dims Expand(const Dims& dims, size_t rank) {
  Dims out(rank - std::min(rank, dims.size()), 1);
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

// numpy broadcasting of two shapes; throws naming the node when they do not broadcast.
Dims Broadcast(const Dims& a, const Dims& b, const Node& node) {
  const size_t rank = std::max(a.size(), b.size());
  const Dims ea = Expand(a, rank), eb = Expand(b, rank);
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    PRISM_ENFORCE(ea[i] == eb[i] || ea[i] == 1 || eb[i] == 1, kInvalidArgument, node.Describe(),
                  ": shapes ", Text(a), " and ", Text(b), " do not broadcast");
    out[i] = ea[i] == 1 ? eb[i] : ea[i];
  }
  return out;
}

bool BroadcastsInto(const Dims& small, const Dims& big) {
  if (small.size() > big.size()) return false;
  const Dims e = Expand(small, big.size());
  for (size_t i = 0; i < big.size(); ++i)
    if (e[i] != big[i] && e[i] != 1) return false;
  return true;
}

void* AlignedAlloc(size_t bytes) {
  void* pointer = nullptr;
  if (posix_memalign(&pointer, 64, std::max<size_t>(bytes, 64)) != 0) throw std::bad_alloc();
  return pointer;
}

std::shared_ptr<void> AllocateShared(size_t bytes) {
  return std::shared_ptr<void>(AlignedAlloc(bytes), [](void* p) { free(p); });
}

dnnl::primitive_attr Attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool IsReference(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

// The calling thread's OpenMP thread count while oneDNN builds and runs primitives.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ScopedOmpThreads() { omp_set_num_threads(previous_); }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_;
};

// ---- The subgraph as compiled: values and nodes in topological order ----

struct IrValue {
  std::string name;
  int input = -1;   // index among the body's (= the fused node's) inputs
  int output = -1;  // index among the body's outputs
  bool constant = false;
  std::vector<int> consumers;  // nodes reading it, each once
};

struct IrNode {
  const Node* node = nullptr;
  std::vector<int> inputs;  // value ids, -1 for omitted ones
  std::vector<int> outputs;
};

struct Ir {
  std::string name;
  std::vector<IrValue> values;
  std::vector<IrNode> nodes;
  std::vector<int> output_values;  // body output o -> value
  std::vector<int> host_read;      // body inputs read on the host (sorted)
  size_t input_count = 0;
};

Ir BuildIr(const Graph& body, const OpKernelInfo& info) {
  Ir ir;
  ir.name = body.Name();
  std::unordered_map<const NodeArg*, int> ids;
  auto id_of = [&](const NodeArg* arg) {
    auto it = ids.find(arg);
    if (it != ids.end()) return it->second;
    const int id = static_cast<int>(ir.values.size());
    IrValue value;
    value.name = arg->name;
    ir.values.push_back(std::move(value));
    ids.emplace(arg, id);
    return id;
  };
  ir.input_count = body.Inputs().size();
  for (size_t i = 0; i < body.Inputs().size(); ++i) {
    const int id = id_of(body.Inputs()[i]);
    ir.values[id].input = static_cast<int>(i);
    ir.values[id].constant = info.ConstantInput(i) != nullptr;
  }
  for (NodeIndex index : body.TopologicalOrder()) {
    const Node& node = body.GetNode(index);
    IrNode ir_node;
    ir_node.node = &node;
    const int node_id = static_cast<int>(ir.nodes.size());
    for (size_t i = 0; i < node.InputCount(); ++i) {
      if (!node.HasInput(i)) {
        ir_node.inputs.push_back(-1);
        continue;
      }
      const int id = id_of(node.Inputs()[i]);
      ir_node.inputs.push_back(id);
      auto& consumers = ir.values[id].consumers;
      if (std::find(consumers.begin(), consumers.end(), node_id) == consumers.end())
        consumers.push_back(node_id);
      if (IsHostReadInput(node, i)) {
        PRISM_ENFORCE(ir.values[id].input >= 0, kEpFail, "oneDNN subgraph '", ir.name,
                      "': ", node.Describe(), " reads '", node.Inputs()[i]->name,
                      "' on the host, but the subgraph computes it");
        ir.host_read.push_back(ir.values[id].input);
      }
    }
    for (size_t o = 0; o < node.OutputCount(); ++o)
      ir_node.outputs.push_back(node.HasOutput(o) ? id_of(node.Outputs()[o]) : -1);
    ir.nodes.push_back(std::move(ir_node));
  }
  for (size_t o = 0; o < body.Outputs().size(); ++o) {
    const int id = id_of(body.Outputs()[o]);
    PRISM_ENFORCE(ir.values[id].output < 0, kEpFail, "oneDNN subgraph '", ir.name, "': value '",
                  ir.values[id].name, "' is listed twice among the outputs");
    ir.values[id].output = static_cast<int>(o);
    ir.output_values.push_back(id);
  }
  std::sort(ir.host_read.begin(), ir.host_read.end());
  ir.host_read.erase(std::unique(ir.host_read.begin(), ir.host_read.end()), ir.host_read.end());
  return ir;
}

// ---- Plans: the primitives for one set of input shapes ----

enum class SlotKind { kInput, kOutput, kTemp, kConstant };

// A buffer: an input or output tensor of the fused node (bound per run), a buffer of the plan's
// own (per workspace), or constant data (reordered weights, shared).
struct Slot {
  SlotKind kind = SlotKind::kTemp;
  int index = -1;  // input or output index
  size_t bytes = 0;
  std::shared_ptr<void> data;  // kConstant
  int values = 0;              // values defined over it (views alias a slot)
};

// A view of a slot in one layout.
struct Handle {
  int slot = -1;
  memory::desc md;
};

struct Step {
  dnnl::primitive primitive;
  std::vector<std::pair<int, int>> args;  // DNNL_ARG_* -> handle
  int zero_fill = -1;                     // instead of a primitive: fill this handle with zeros
  bool scratchpad = false;
};

// What one run needs of its own: buffers, memory objects over them, a stream.
struct Workspace {
  std::vector<std::shared_ptr<void>> temps;           // per slot
  std::vector<memory> memories;                       // per handle
  std::vector<std::unordered_map<int, memory>> args;  // per step
  std::shared_ptr<void> scratchpad_buffer;
  dnnl::stream stream;
};

struct Plan {
  std::vector<Slot> slots;
  std::vector<Handle> handles;
  std::vector<Step> steps;
  std::vector<Dims> output_dims;
  size_t scratchpad_bytes = 0;
  std::vector<int> bound_handles;  // handles over input and output slots
  std::mutex mutex;
  std::vector<std::unique_ptr<Workspace>> idle;  // use_arena: workspaces kept between runs
};

std::unique_ptr<Workspace> MakeWorkspace(const Plan& plan, const dnnl::engine& engine) {
  auto ws = std::make_unique<Workspace>();
  ws->stream = dnnl::stream(engine);
  ws->temps.resize(plan.slots.size());
  for (size_t s = 0; s < plan.slots.size(); ++s)
    if (plan.slots[s].kind == SlotKind::kTemp) ws->temps[s] = AllocateShared(plan.slots[s].bytes);
  for (const Handle& handle : plan.handles) {
    const Slot& slot = plan.slots[handle.slot];
    void* data = slot.kind == SlotKind::kTemp       ? ws->temps[handle.slot].get()
                 : slot.kind == SlotKind::kConstant ? slot.data.get()
                                                    : DNNL_MEMORY_NONE;
    ws->memories.emplace_back(handle.md, engine, data);
  }
  memory scratchpad;
  if (plan.scratchpad_bytes > 0) {
    ws->scratchpad_buffer = AllocateShared(plan.scratchpad_bytes);
    scratchpad = memory(
        memory::desc({static_cast<int64_t>(plan.scratchpad_bytes)}, dt::u8, memory::format_tag::a),
        engine, ws->scratchpad_buffer.get());
  }
  for (const Step& step : plan.steps) {
    std::unordered_map<int, memory> args;
    for (const auto& [arg, handle] : step.args) args.emplace(arg, ws->memories[handle]);
    if (step.scratchpad) args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad);
    ws->args.push_back(std::move(args));
  }
  return ws;
}

// Constant data in the layouts primitives asked for, shared by every plan of a kernel.
struct ConstantCache {
  struct Entry {
    int input = -1;  // -1: a ones tensor
    memory::desc source;
    memory::desc target;
    std::shared_ptr<void> data;
  };
  std::vector<Entry> entries;
};

struct EltwiseSpec {
  algorithm alg = algorithm::eltwise_relu;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// One post-op of a Conv, MatMul or Gemm: fused into its primitive when oneDNN has a fast
// implementation with it, else run as a step of its own on the result (same arithmetic).
struct PostItem {
  enum Kind { kEltwise, kSum, kBinaryAdd, kBias } kind = kEltwise;
  EltwiseSpec eltwise;
  int operand = -1;        // a handle (plain, or in the primitive's dst layout for kSum)
  Dims operand_dims;       // expanded to the result's rank
  int operand_value = -1;  // the IR value behind operand, when there is one
};

class PlanBuilder {
 public:
  PlanBuilder(const Ir& ir, const DnnlSettings& settings, const dnnl::engine& engine,
              ConstantCache& constants, const std::vector<Dims>& input_dims,
              const std::vector<const void*>& input_data)
      : ir_(ir),
        settings_(settings),
        engine_(engine),
        constants_(constants),
        input_dims_(input_dims),
        input_data_(input_data),
        state_(ir.values.size()),
        done_(ir.nodes.size(), false) {}

  std::shared_ptr<Plan> Build() {
    plan_ = std::make_shared<Plan>();
    plan_->output_dims.resize(ir_.output_values.size());
    output_slots_.assign(ir_.output_values.size(), -1);
    for (size_t v = 0; v < ir_.values.size(); ++v) {
      const IrValue& value = ir_.values[v];
      if (value.input < 0) continue;
      const Dims& dims = input_dims_[value.input];
      const int slot = NewSlot(SlotKind::kInput, value.input, Volume(dims) * sizeof(float));
      Define(static_cast<int>(v), dims, NewHandle(slot, PlainMd(dims)));
    }
    for (size_t n = 0; n < ir_.nodes.size(); ++n) {
      if (done_[n]) continue;
      const IrNode& node = ir_.nodes[n];
      try {
        BuildNode(static_cast<int>(n));
      } catch (const dnnl::error& e) {
        PRISM_THROW(kEpFail, "oneDNN subgraph '", ir_.name, "': ", node.node->Describe(),
                    ": oneDNN error: ", e.what(), " (status ", static_cast<int>(e.status), ")");
      }
      done_[n] = true;
    }
    for (size_t o = 0; o < ir_.output_values.size(); ++o) FinishOutput(static_cast<int>(o));
    for (size_t h = 0; h < plan_->handles.size(); ++h) {
      const SlotKind kind = plan_->slots[plan_->handles[h].slot].kind;
      if (kind == SlotKind::kInput || kind == SlotKind::kOutput)
        plan_->bound_handles.push_back(static_cast<int>(h));
    }
    plans_built++;
    return plan_;
  }

 private:
  struct ValueState {
    bool defined = false;
    Dims dims;
    int handle = -1;
    int plain = -1;               // a plain-layout handle, once one exists
    std::vector<int> alternates;  // the value in other layouts (reordered copies)
  };

  // ---- slots, handles, steps ----
  int NewSlot(SlotKind kind, int index, size_t bytes) {
    Slot slot;
    slot.kind = kind;
    slot.index = index;
    slot.bytes = bytes;
    plan_->slots.push_back(std::move(slot));
    return static_cast<int>(plan_->slots.size()) - 1;
  }
  int NewHandle(int slot, const memory::desc& md) {
    plan_->handles.push_back(Handle{slot, md});
    return static_cast<int>(plan_->handles.size()) - 1;
  }
  int NewTemp(const memory::desc& md) {
    return NewHandle(NewSlot(SlotKind::kTemp, -1, md.get_size()), md);
  }
  const memory::desc& Md(int handle) const { return plan_->handles[handle].md; }
  int SlotOf(int handle) const { return plan_->handles[handle].slot; }
  // Another view of the bytes behind a plain handle.
  int View(int handle, const memory::desc& md) { return NewHandle(SlotOf(handle), md); }

  void AddStep(const dnnl::primitive& primitive, const dnnl::primitive_desc_base& pd,
               std::vector<std::pair<int, int>> args) {
    Step step;
    step.primitive = primitive;
    step.args = std::move(args);
    const size_t scratch = pd.scratchpad_desc().get_size();
    step.scratchpad = scratch > 0;
    plan_->scratchpad_bytes = std::max(plan_->scratchpad_bytes, scratch);
    plan_->steps.push_back(std::move(step));
  }
  void AddZeroFill(int handle) {
    Step step;
    step.zero_fill = handle;
    plan_->steps.push_back(std::move(step));
  }

  // Copies src into dst (a new buffer in md when dst < 0), converting the layout.
  int Reorder(int src, const memory::desc& md, int dst = -1) {
    if (dst < 0) dst = NewTemp(md);
    if (md.get_size() == 0) return dst;
    dnnl::reorder::primitive_desc pd(engine_, Md(src), engine_, Md(dst), Attr());
    AddStep(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
    return dst;
  }

  // ---- values ----
  const Node& NodeOf(int n) const { return *ir_.nodes[n].node; }
  ValueState& State(int value) {
    PRISM_ENFORCE(value >= 0 && state_[value].defined, kEpFail, "oneDNN subgraph '", ir_.name,
                  "': value ", value >= 0 ? ir_.values[value].name : std::string("<omitted>"),
                  " is read before it is computed");
    return state_[value];
  }
  const Dims& DimsOf(int value) { return State(value).dims; }
  bool IsOutput(int value) const { return ir_.values[value].output >= 0; }
  void Define(int value, const Dims& dims, int handle) {
    ValueState& state = state_[value];
    state.defined = true;
    state.dims = dims;
    state.handle = handle;
    plan_->slots[SlotOf(handle)].values++;
    if (Md(handle) == PlainMd(dims)) state.plain = handle;
  }
  // The buffer a value's result goes to: its output tensor (plain layout) when it is an output
  // of the subgraph, else a buffer of the plan in md.
  int DstFor(int value, const Dims& dims, const memory::desc& md) {
    const int output = ir_.values[value].output;
    if (output < 0) return NewTemp(md);
    PRISM_ENFORCE(md == PlainMd(dims), kEpFail, "oneDNN subgraph '", ir_.name, "': output '",
                  ir_.values[value].name, "' would not be in plain layout");
    if (output_slots_[output] < 0)
      output_slots_[output] = NewSlot(SlotKind::kOutput, output, Volume(dims) * sizeof(float));
    return NewHandle(output_slots_[output], md);
  }
  // Whether the value's buffer may be overwritten by the node reading it (its only reader).
  bool Overwritable(int value) {
    const ValueState& state = State(value);
    const Slot& slot = plan_->slots[SlotOf(state.handle)];
    return slot.kind == SlotKind::kTemp && slot.values == 1 && !IsOutput(value) &&
           ir_.values[value].consumers.size() == 1;
  }
  // The node reading value in place is its last reader: the buffer passes to the node's result.
  int TakeOver(int value) {
    const int handle = State(value).handle;
    plan_->slots[SlotOf(handle)].values--;
    return handle;
  }
  int Plain(int value) {
    ValueState& state = State(value);
    if (state.plain < 0) state.plain = Reorder(state.handle, PlainMd(state.dims));
    return state.plain;
  }
  // The value in layout md: its own handle, a copy made earlier, or a new reordered copy.
  int As(int value, const memory::desc& md) {
    ValueState& state = State(value);
    if (Md(state.handle) == md) return state.handle;
    if (state.plain >= 0 && Md(state.plain) == md) return state.plain;
    for (int alternate : state.alternates)
      if (Md(alternate) == md) return alternate;
    const int copy = Reorder(state.handle, md);
    state.alternates.push_back(copy);
    return copy;
  }
  // A constant input's view `source` in layout md, reordered once per kernel and shared by plans.
  int ConstantAs(int value, int source, const memory::desc& md) {
    if (Md(source) == md) return source;
    const int input = ir_.values[value].input;
    for (const ConstantCache::Entry& entry : constants_.entries)
      if (entry.input == input && entry.source == Md(source) && entry.target == md)
        return ConstantHandle(entry.data, md);
    const void* data = input_data_[input];
    PRISM_ENFORCE(data != nullptr, kEpFail, "oneDNN subgraph '", ir_.name, "': constant '",
                  ir_.values[value].name, "' has no data");
    std::shared_ptr<void> target = AllocateShared(md.get_size());
    memory from(Md(source), engine_, const_cast<void*>(data));
    memory to(md, engine_, target.get());
    dnnl::stream stream(engine_);
    dnnl::reorder(from, to).execute(stream, from, to);
    stream.wait();
    constants_.entries.push_back(ConstantCache::Entry{input, Md(source), md, target});
    return ConstantHandle(target, md);
  }
  int ConstantHandle(const std::shared_ptr<void>& data, const memory::desc& md) {
    const int slot = NewSlot(SlotKind::kConstant, -1, md.get_size());
    plan_->slots[slot].data = data;
    return NewHandle(slot, md);
  }
  // A plain tensor of ones (for materializing a broadcast: 1 * x is x, bit for bit).
  int Ones(const Dims& dims) {
    const memory::desc md = PlainMd(dims);
    for (const ConstantCache::Entry& entry : constants_.entries)
      if (entry.input == -1 && entry.target.get_size() >= md.get_size())
        return ConstantHandle(entry.data, md);
    std::shared_ptr<void> data = AllocateShared(md.get_size());
    std::fill_n(static_cast<float*>(data.get()), Volume(dims), 1.0f);
    constants_.entries.push_back(ConstantCache::Entry{-1, md, md, data});
    return ConstantHandle(data, md);
  }

  // Host reads (Reshape's shape, Clip's bounds, axes).
  Dims HostInts(int value) {
    const int input = ir_.values[value].input;
    const Dims& dims = input_dims_[input];
    const auto* data = static_cast<const int64_t*>(input_data_[input]);
    PRISM_ENFORCE(data != nullptr || Volume(dims) == 0, kEpFail, "oneDNN subgraph: no data for '",
                  ir_.values[value].name, "'");
    return Dims(data, data + Volume(dims));
  }
  float HostFloat(int value, const Node& node) {
    const int input = ir_.values[value].input;
    PRISM_ENFORCE(Volume(input_dims_[input]) == 1, kInvalidArgument, node.Describe(), ": '",
                  ir_.values[value].name, "' must hold one value, it has shape ",
                  Text(input_dims_[input]));
    return *static_cast<const float*>(input_data_[input]);
  }

  // ---- nodes ----
  void BuildNode(int n) {
    const Node& node = NodeOf(n);
    const std::string& op = node.OpType();
    if (op == "Conv") return BuildConv(n);
    if (op == "MatMul") return BuildMatMul(n);
    if (op == "Gemm") return BuildGemm(n);
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
        op == "GlobalMaxPool")
      return BuildPool(n);
    if (op == "BatchNormalization") return BuildBatchNorm(n);
    if (IsEltwiseOp(node)) return BuildEltwise(n);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return BuildBinary(n);
    if (op == "Sum") return BuildSum(n);
    if (op == "Softmax") return BuildSoftmax(n);
    if (op == "Transpose") return BuildTranspose(n);
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze")
      return BuildReshape(n);
    if (op == "Concat") return BuildConcat(n);
    if (op == "LayerNormalization") return BuildLayerNorm(n);
    if (op == "ConvTranspose") return BuildConvTranspose(n);
    if (op == "LRN") return BuildLrn(n);
    if (IsReduceOp(op)) return BuildReduce(n);
    PRISM_THROW(kEpFail, "oneDNN subgraph '", ir_.name, "': no builder for ", node.Describe());
  }

  // An empty result: no primitive runs.
  bool DefineIfEmpty(int value, const Dims& dims) {
    if (Volume(dims) != 0) return false;
    Define(value, dims, DstFor(value, dims, PlainMd(dims)));
    return true;
  }

  EltwiseSpec EltwiseOf(int n) {
    const Node& node = NodeOf(n);
    const std::string& op = node.OpType();
    if (op == "Relu") return {algorithm::eltwise_relu, 0.0f, 0.0f};
    if (op == "LeakyRelu") return {algorithm::eltwise_relu, AttrFloat(node, "alpha", 0.01f), 0.0f};
    if (op == "Elu") return {algorithm::eltwise_elu, AttrFloat(node, "alpha", 1.0f), 0.0f};
    if (op == "Tanh") return {algorithm::eltwise_tanh, 0.0f, 0.0f};
    if (op == "Sigmoid") return {algorithm::eltwise_logistic, 0.0f, 0.0f};
    if (op == "Abs") return {algorithm::eltwise_abs, 0.0f, 0.0f};
    if (op == "Sqrt") return {algorithm::eltwise_sqrt, 0.0f, 0.0f};
    if (op == "Exp") return {algorithm::eltwise_exp, 0.0f, 0.0f};
    // -x + (-0) is -x for every x, signed zeros included.
    if (op == "Neg") return {algorithm::eltwise_linear, -1.0f, -0.0f};
    if (op == "Gelu")
      return {AttrString(node, "approximate", "none") == "tanh" ? algorithm::eltwise_gelu_tanh
                                                                : algorithm::eltwise_gelu_erf,
              0.0f, 0.0f};
    if (op == "Clip") {
      // The spec's defaults are the type's limits; min is applied first, so min > max gives max.
      float low = std::numeric_limits<float>::lowest();
      float high = std::numeric_limits<float>::max();
      if (node.OpsetVersion() < 11) {
        low = AttrFloat(node, "min", low);
        high = AttrFloat(node, "max", high);
      } else {
        const IrNode& ir_node = ir_.nodes[n];
        if (ir_node.inputs.size() > 1 && ir_node.inputs[1] >= 0)
          low = HostFloat(ir_node.inputs[1], node);
        if (ir_node.inputs.size() > 2 && ir_node.inputs[2] >= 0)
          high = HostFloat(ir_node.inputs[2], node);
      }
      if (low > high) low = high;
      return {algorithm::eltwise_clip, low, high};
    }
    PRISM_THROW(kEpFail, "oneDNN subgraph: ", node.Describe(), " is not an eltwise op");
  }

  void BuildEltwise(int n) {
    const IrNode& node = ir_.nodes[n];
    const int x = node.inputs[0];
    const int y = node.outputs[0];
    const Dims dims = DimsOf(x);
    if (DefineIfEmpty(y, dims)) return;
    const bool plain = IsOutput(y);
    const int src = plain ? Plain(x) : State(x).handle;
    int dst;
    if (!plain && Overwritable(x))
      dst = TakeOver(x);  // in place
    else
      dst = DstFor(y, dims, Md(src));
    EltwiseStep(EltwiseOf(n), src, dst);
    Define(y, dims, dst);
  }

  void EltwiseStep(const EltwiseSpec& spec, int src, int dst) {
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(prop_kind::forward_inference, spec.alg, Md(src), spec.alpha,
                                    spec.beta),
        Attr(), engine_);
    AddStep(dnnl::eltwise_forward(pd), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  }

  // dst = a (alg) b with numpy broadcasting, out their broadcast shape. dst < 0: a new buffer
  // (plain when plain_dst). commutative ops may swap their operands; an operand that needs
  // broadcasting in the first place is materialized first (1 * a).
  int Binary(algorithm alg, int a, Dims ad, int b, Dims bd, const Dims& out, int dst,
             bool plain_dst, bool commutative) {
    const memory::dims out_d = ToDnnl(out);
    const size_t rank = out_d.size();
    const Dims eo(out_d.begin(), out_d.end());
    Dims ea = Expand(ad.empty() ? Dims{1} : ad, rank), eb = Expand(bd.empty() ? Dims{1} : bd, rank);
    // Operands of a lower rank: plain views with the leading 1s.
    if (Md(a).dims() != out_d) a = View(PlainHandle(a, ad), PlainMd(ea)), ad = ea;
    if (Md(b).dims() != out_d) b = View(PlainHandle(b, bd), PlainMd(eb)), bd = eb;
    if (ea != eo && eb == eo && commutative) {
      std::swap(a, b);
      std::swap(ad, bd);
      std::swap(ea, eb);
    }
    if (ea != eo) {
      const int ones = Ones(eo);
      const int broadcast = NewTemp(PlainMd(eo));
      BinaryStep(algorithm::binary_mul, ones, View(PlainHandle(a, ad), PlainMd(ea)), broadcast);
      a = broadcast;
      ea = eo;
    }
    int src0 = a;
    int src1;
    if (eb == eo) {
      // Same shapes: both in src0's layout (a plain one when the result must be plain).
      if (plain_dst) src0 = PlainHandle(a, out);
      src1 = Md(b) == Md(src0) ? b : Reorder(b, Md(src0));
    } else {
      src1 = View(PlainHandle(b, bd), PlainMd(eb));
      if (plain_dst) src0 = PlainHandle(a, out);
    }
    if (dst < 0) dst = NewTemp(Md(src0));
    if (!BinaryStep(alg, src0, src1, dst, /*allow_reference=*/false)) {
      // A blocked src0 with a broadcast src1 can leave oneDNN with its reference code only.
      const int plain0 = PlainHandle(src0, out);
      const int plain1 = eb == eo ? PlainHandle(src1, out) : src1;
      if (Md(dst) == Md(plain0)) {
        BinaryStep(alg, plain0, plain1, dst);
      } else {
        const int tmp = NewTemp(Md(plain0));
        BinaryStep(alg, plain0, plain1, tmp);
        Reorder(tmp, Md(dst), dst);
      }
    }
    return dst;
  }
  // A plain handle for handle (a reorder when it is in another layout).
  int PlainHandle(int handle, const Dims& dims) {
    if (Md(handle) == PlainMd(dims)) return handle;
    return Reorder(handle, PlainMd(dims));
  }
  bool BinaryStep(algorithm alg, int src0, int src1, int dst, bool allow_reference = true) {
    dnnl::binary::primitive_desc pd;
    try {
      pd = dnnl::binary::primitive_desc(dnnl::binary::desc(alg, Md(src0), Md(src1), Md(dst)),
                                        Attr(), engine_);
    } catch (const dnnl::error&) {
      if (allow_reference) throw;
      return false;
    }
    if (!allow_reference && IsReference(pd)) return false;
    AddStep(dnnl::binary(pd), pd,
            {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}});
    return true;
  }

  void BuildBinary(int n) {
    const IrNode& node = ir_.nodes[n];
    const std::string& op = node.node->OpType();
    const int a = node.inputs[0], b = node.inputs[1], y = node.outputs[0];
    const Dims out = Broadcast(DimsOf(a), DimsOf(b), *node.node);
    if (DefineIfEmpty(y, out)) return;
    const algorithm alg = op == "Add"   ? algorithm::binary_add
                          : op == "Sub" ? algorithm::binary_sub
                          : op == "Mul" ? algorithm::binary_mul
                                        : algorithm::binary_div;
    const bool commutative = op == "Add" || op == "Mul";
    const bool plain = IsOutput(y);
    int dst = -1;
    if (plain) dst = DstFor(y, out, PlainMd(out));
    const int result = Binary(alg, State(a).handle, DimsOf(a), State(b).handle, DimsOf(b), out, dst,
                              plain, commutative);
    Define(y, out, result);
  }

  void BuildSum(int n) {
    const IrNode& node = ir_.nodes[n];
    const int y = node.outputs[0];
    std::vector<int> inputs;
    for (int input : node.inputs)
      if (input >= 0) inputs.push_back(input);
    Dims out = DimsOf(inputs[0]);
    for (size_t i = 1; i < inputs.size(); ++i) out = Broadcast(out, DimsOf(inputs[i]), *node.node);
    if (DefineIfEmpty(y, out)) return;
    const bool plain = IsOutput(y);
    if (inputs.size() == 1) {
      const int source = plain ? Plain(inputs[0]) : State(inputs[0]).handle;
      Define(y, out, Reorder(source, Md(source), DstFor(y, out, Md(source))));
      return;
    }
    // ((x0 + x1) + x2) + ...: the order the CPU EP adds in.
    int acc = State(inputs[0]).handle;
    Dims acc_dims = DimsOf(inputs[0]);
    for (size_t i = 1; i < inputs.size(); ++i) {
      const bool last = i + 1 == inputs.size();
      const Dims step_out = Broadcast(acc_dims, DimsOf(inputs[i]), *node.node);
      const int dst = last && plain ? DstFor(y, out, PlainMd(out)) : -1;
      acc = Binary(algorithm::binary_add, acc, acc_dims, State(inputs[i]).handle, DimsOf(inputs[i]),
                   step_out, dst, last && plain, /*commutative=*/false);
      acc_dims = step_out;
    }
    Define(y, out, acc);
  }

  // ---- post-op chains of Conv, MatMul, Gemm ----
  enum class Anchor { kConv, kMatMul };

  // Absorbs the single-consumer chain after `value` (the anchor's result, of dims out): eltwise
  // nodes and Add nodes whose other operand is already computed. Returns the absorbed nodes and
  // sets *final_value to the chain's last value.
  std::vector<int> CollectChain(int value, const Dims& out, Anchor anchor, size_t rank,
                                std::vector<PostItem>& items, int* final_value) {
    std::vector<int> absorbed;
    *final_value = value;
    if (!settings_.enable_fusion) return absorbed;
    int current = value;
    bool has_sum = false;
    while (!IsOutput(current) && ir_.values[current].consumers.size() == 1) {
      const int c = ir_.values[current].consumers[0];
      if (done_[c]) break;
      const IrNode& consumer = ir_.nodes[c];
      const Node& node = *consumer.node;
      if (IsEltwiseOp(node)) {
        if (consumer.inputs[0] != current) break;
        PostItem item;
        item.kind = PostItem::kEltwise;
        item.eltwise = EltwiseOf(c);
        items.push_back(item);
      } else if (node.OpType() == "Add" && node.OpsetVersion() >= 7) {
        const int other = consumer.inputs[0] == current ? consumer.inputs[1] : consumer.inputs[0];
        if (other == current || other < 0 || !state_[other].defined) break;
        const Dims& other_dims = state_[other].dims;
        if (!BroadcastsInto(other_dims, out)) break;
        PostItem item;
        item.operand_value = other;
        item.operand_dims = Expand(other_dims, rank);
        if (anchor == Anchor::kConv && other_dims == out && !has_sum) {
          item.kind = PostItem::kSum;
          has_sum = true;
        } else if (anchor == Anchor::kMatMul && items.empty() &&
                   IsRowVector(item.operand_dims, out)) {
          item.kind = PostItem::kBias;
        } else {
          item.kind = PostItem::kBinaryAdd;
        }
        items.push_back(item);
      } else {
        break;
      }
      absorbed.push_back(c);
      current = consumer.outputs[0];
    }
    *final_value = current;
    return absorbed;
  }
  static bool IsRowVector(const Dims& operand, const Dims& out) {
    if (operand.empty() || out.empty() || operand.back() != ToDnnl(out).back()) return false;
    for (size_t i = 0; i + 1 < operand.size(); ++i)
      if (operand[i] != 1) return false;
    return true;
  }

  // Handles of the items' operands in plain layout (kSum: filled in by the caller).
  void PrepareOperands(std::vector<PostItem>& items) {
    for (PostItem& item : items)
      if ((item.kind == PostItem::kBinaryAdd || item.kind == PostItem::kBias) && item.operand < 0)
        item.operand = View(Plain(item.operand_value), PlainMd(item.operand_dims));
  }

  dnnl::post_ops PostOps(const std::vector<PostItem>& items) {
    dnnl::post_ops ops;
    for (const PostItem& item : items) {
      if (item.kind == PostItem::kEltwise)
        ops.append_eltwise(1.0f, item.eltwise.alg, item.eltwise.alpha, item.eltwise.beta);
      else if (item.kind == PostItem::kSum)
        ops.append_sum(1.0f);
      else if (item.kind == PostItem::kBinaryAdd)
        ops.append_binary(algorithm::binary_add, PlainMd(item.operand_dims));
    }
    return ops;
  }
  // The DNNL_ARG_* of the binary post-ops' operands.
  void PostOpArgs(const std::vector<PostItem>& items, std::vector<std::pair<int, int>>& args) {
    int index = 0;
    for (const PostItem& item : items) {
      if (item.kind == PostItem::kBias) continue;  // not a post-op
      if (item.kind == PostItem::kBinaryAdd)
        args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, item.operand);
      ++index;
    }
  }
  // Runs the items as steps of their own, in place on dst (dims out), after the anchor.
  void ApplySeparately(const std::vector<PostItem>& items, int dst, const Dims& out) {
    for (const PostItem& item : items) {
      if (item.kind == PostItem::kEltwise) {
        EltwiseStep(item.eltwise, dst, dst);
      } else {
        const int operand = item.operand >= 0
                                ? item.operand
                                : View(Plain(item.operand_value), PlainMd(item.operand_dims));
        int src1 = operand;
        const memory::dims out_d = ToDnnl(out);
        if (item.operand_dims == Dims(out_d.begin(), out_d.end()) && Md(operand) != Md(dst))
          src1 = Reorder(operand, Md(dst));
        BinaryStep(algorithm::binary_add, dst, src1, dst);
      }
    }
  }
  // The dst of an anchor whose items include a sum: the sum operand's own buffer when it may be
  // overwritten, else a copy of it in the dst (the primitive adds into what dst holds).
  int SumDst(const std::vector<PostItem>& items, int final_value, const Dims& out,
             const memory::desc& md) {
    for (const PostItem& item : items) {
      if (item.kind != PostItem::kSum) continue;
      const int operand = item.operand_value;
      if (!IsOutput(final_value) && Overwritable(operand) && Md(State(operand).handle) == md)
        return TakeOver(operand);
      const int dst = DstFor(final_value, out, md);
      Reorder(State(operand).handle, md, dst);
      return dst;
    }
    return DstFor(final_value, out, md);
  }
  // The longest prefix of items oneDNN runs fused with an optimized implementation (the
  // reference one is much slower than separate steps); *pd gets the primitive for it. The rest of
  // the items then run as steps of their own.
  template <typename PrimitiveDesc, typename MakePd>
  std::vector<PostItem> LongestFastPrefix(const std::vector<PostItem>& items, const MakePd& make_pd,
                                          PrimitiveDesc* pd) {
    for (size_t k = items.size(); k > 0; --k) {
      const std::vector<PostItem> prefix(items.begin(), items.begin() + k);
      try {
        PrimitiveDesc candidate = make_pd(prefix);
        if (IsReference(candidate)) continue;
        *pd = candidate;
        return prefix;
      } catch (const dnnl::error&) {
      }
    }
    *pd = make_pd(std::vector<PostItem>{});
    return {};
  }
  void MarkDone(const std::vector<int>& absorbed) {
    for (int c : absorbed) done_[c] = true;
  }

  void BuildConv(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], w = ir_node.inputs[1];
    const int b = ir_node.inputs.size() > 2 ? ir_node.inputs[2] : -1;
    const Dims xd = DimsOf(x), wd = DimsOf(w);
    const size_t rank = xd.size(), spatial = rank - 2;
    const int64_t group = AttrInt(node, "group", 1);
    PRISM_ENFORCE(wd.size() == rank, kInvalidArgument, node.Describe(), ": W ", Text(wd), " and X ",
                  Text(xd), " differ in rank");
    PRISM_ENFORCE(xd[1] == wd[1] * group && wd[0] % group == 0, kInvalidArgument, node.Describe(),
                  ": X ", Text(xd), " and W ", Text(wd), " do not fit group ", group);
    const Dims kernel(wd.begin() + 2, wd.end());
    const Dims kernel_attr = AttrInts(node, "kernel_shape");
    PRISM_ENFORCE(kernel_attr.empty() || kernel_attr == kernel, kInvalidArgument, node.Describe(),
                  ": kernel_shape ", Text(kernel_attr), " differs from W's ", Text(kernel));
    const Dims strides = AttrInts(node, "strides", Dims(spatial, 1));
    const Dims dilations = AttrInts(node, "dilations", Dims(spatial, 1));
    Dims pads = AttrInts(node, "pads", Dims(2 * spatial, 0));
    const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
    Dims out = {xd[0], wd[0]};
    memory::dims pad_l(spatial), pad_r(spatial), dnnl_dilations(spatial);
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t in = xd[2 + i], window = (kernel[i] - 1) * dilations[i] + 1;
      int64_t begin = pads[i], end = pads[spatial + i];
      if (auto_pad == "VALID") {
        begin = end = 0;
      } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const int64_t o = (in + strides[i] - 1) / strides[i];
        const int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + window - in);
        begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        end = total - begin;
      }
      const int64_t span = in + begin + end - window;
      PRISM_ENFORCE(span >= 0, kInvalidArgument, node.Describe(), ": the kernel (", window,
                    " with dilation) is larger than the padded input on spatial axis ", i);
      out.push_back(span / strides[i] + 1);
      pad_l[i] = begin;
      pad_r[i] = end;
      dnnl_dilations[i] = dilations[i] - 1;
    }
    const int y = ir_node.outputs[0];
    if (DefineIfEmpty(y, out)) return;
    PRISM_ENFORCE(wd[1] > 0, kEpFail, node.Describe(), ": W has no input channels");

    std::vector<PostItem> items;
    int final_value = y;
    std::vector<int> absorbed = CollectChain(y, out, Anchor::kConv, rank, items, &final_value);
    PrepareOperands(items);
    Dims wdims = wd;
    if (group > 1) {
      wdims = {group, wd[0] / group};
      wdims.insert(wdims.end(), wd.begin() + 1, wd.end());
    }
    const bool blocked = settings_.blocked_layouts;
    auto any_or_plain = [&](const Dims& dims, bool plain) {
      return plain ? PlainMd(dims) : memory::desc(ToDnnl(dims), dt::f32, memory::format_tag::any);
    };
    auto make_pd = [&](const std::vector<PostItem>& with, bool all_plain) {
      dnnl::primitive_attr attr = Attr();
      attr.set_post_ops(PostOps(with));
      const memory::desc src_md = any_or_plain(xd, all_plain || !blocked);
      const memory::desc w_md = any_or_plain(wdims, all_plain || !blocked);
      const memory::desc dst_md = any_or_plain(out, all_plain || !blocked || IsOutput(final_value));
      const memory::dims s(strides.begin(), strides.end());
      auto desc = b >= 0 ? dnnl::convolution_forward::desc(
                               prop_kind::forward_inference, algorithm::convolution_direct, src_md,
                               w_md, PlainMd({wd[0]}), dst_md, s, dnnl_dilations, pad_l, pad_r)
                         : dnnl::convolution_forward::desc(
                               prop_kind::forward_inference, algorithm::convolution_direct, src_md,
                               w_md, dst_md, s, dnnl_dilations, pad_l, pad_r);
      return dnnl::convolution_forward::primitive_desc(desc, attr, engine_);
    };
    dnnl::convolution_forward::primitive_desc pd;
    const std::vector<PostItem> fused = LongestFastPrefix(
        items, [&](const std::vector<PostItem>& with) { return make_pd(with, false); }, &pd);
    if (IsReference(pd) && blocked) pd = make_pd(fused, true);
    int weights_source = Plain(w);
    if (group > 1) weights_source = View(weights_source, PlainMd(wdims));
    AddWeightedStep<dnnl::convolution_forward>(pd, items, fused, x, w, weights_source, b,
                                               final_value, out, absorbed);
  }

  // ConvTranspose as oneDNN's deconvolution: ONNX's W [C, M / group, k...] is viewed (strides,
  // no copy) as oneDNN's [group, M / group, C / group, k...] (or [M, C, k...]); the pads come from
  // DeconvPads; post-ops fuse as after a Conv.
  void BuildConvTranspose(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], w = ir_node.inputs[1];
    const int b = ir_node.inputs.size() > 2 ? ir_node.inputs[2] : -1;
    const Dims xd = DimsOf(x), wd = DimsOf(w);
    const size_t rank = xd.size(), spatial = rank - 2;
    const int64_t group = AttrInt(node, "group", 1);
    PRISM_ENFORCE(wd.size() == rank, kInvalidArgument, node.Describe(), ": W ", Text(wd), " and X ",
                  Text(xd), " differ in rank");
    PRISM_ENFORCE(xd[1] == wd[0] && wd[0] % group == 0, kInvalidArgument, node.Describe(), ": X ",
                  Text(xd), " and W ", Text(wd), " do not fit group ", group);
    const int64_t in_g = wd[0] / group, out_g = wd[1], out_channels = out_g * group;
    if (b >= 0)
      PRISM_ENFORCE(DimsOf(b) == Dims{out_channels}, kInvalidArgument, node.Describe(), ": B ",
                    Text(DimsOf(b)), " is not [", out_channels, "]");
    const Dims kernel(wd.begin() + 2, wd.end());
    const Dims kernel_attr = AttrInts(node, "kernel_shape");
    PRISM_ENFORCE(kernel_attr.empty() || kernel_attr == kernel, kInvalidArgument, node.Describe(),
                  ": kernel_shape ", Text(kernel_attr), " differs from W's ", Text(kernel));
    Dims out = {xd[0], out_channels};
    memory::dims strides(spatial), dilations(spatial), pad_l(spatial), pad_r(spatial);
    for (size_t i = 0; i < spatial; ++i) {
      const DeconvAxis a = DeconvPads(node, i, xd[2 + i], kernel[i]);
      PRISM_ENFORCE(a.out >= 0, kInvalidArgument, node.Describe(),
                    ": the output would have negative size ", a.out, " on spatial axis ", i);
      PRISM_ENFORCE(a.pad_l >= 0 && a.pad_r + a.stride > 0, kEpFail, node.Describe(), ": pads ",
                    a.pad_l, " and ", a.pad_r, " on spatial axis ", i,
                    " are beyond oneDNN's deconvolution");
      out.push_back(a.out);
      strides[i] = a.stride;
      dilations[i] = a.dilation - 1;
      pad_l[i] = a.pad_l;
      pad_r[i] = a.pad_r;
    }
    const int y = ir_node.outputs[0];
    if (DefineIfEmpty(y, out)) return;
    PRISM_ENFORCE(Volume(xd) > 0 && out_g > 0, kEpFail, node.Describe(), ": X ", Text(xd),
                  " is empty but the output ", Text(out), " is not");

    std::vector<PostItem> items;
    int final_value = y;
    std::vector<int> absorbed = CollectChain(y, out, Anchor::kConv, rank, items, &final_value);
    PrepareOperands(items);
    // oneDNN's weights and their strides in ONNX's plain W.
    const int64_t taps = Volume(kernel);
    const Dims tap_strides = RowMajorStrides(kernel);
    Dims wdims = {out_g, in_g}, wstrides = {taps, out_g * taps};
    if (group > 1) {
      wdims.insert(wdims.begin(), group);
      wstrides.insert(wstrides.begin(), in_g * out_g * taps);
    }
    wdims.insert(wdims.end(), kernel.begin(), kernel.end());
    wstrides.insert(wstrides.end(), tap_strides.begin(), tap_strides.end());
    const memory::desc w_view(ToDnnl(wdims), dt::f32,
                              memory::dims(wstrides.begin(), wstrides.end()));
    const bool blocked = settings_.blocked_layouts;
    auto any_or_plain = [&](const Dims& dims, bool plain) {
      return plain ? PlainMd(dims) : memory::desc(ToDnnl(dims), dt::f32, memory::format_tag::any);
    };
    auto make_pd = [&](const std::vector<PostItem>& with, bool all_plain) {
      dnnl::primitive_attr attr = Attr();
      attr.set_post_ops(PostOps(with));
      const memory::desc src_md = any_or_plain(xd, all_plain || !blocked);
      const memory::desc w_md = any_or_plain(wdims, all_plain || !blocked);
      const memory::desc dst_md = any_or_plain(out, all_plain || !blocked || IsOutput(final_value));
      auto desc =
          b >= 0 ? dnnl::deconvolution_forward::desc(
                       prop_kind::forward_inference, algorithm::deconvolution_direct, src_md, w_md,
                       PlainMd({out_channels}), dst_md, strides, dilations, pad_l, pad_r)
                 : dnnl::deconvolution_forward::desc(prop_kind::forward_inference,
                                                     algorithm::deconvolution_direct, src_md, w_md,
                                                     dst_md, strides, dilations, pad_l, pad_r);
      return dnnl::deconvolution_forward::primitive_desc(desc, attr, engine_);
    };
    dnnl::deconvolution_forward::primitive_desc pd;
    const std::vector<PostItem> fused = LongestFastPrefix(
        items, [&](const std::vector<PostItem>& with) { return make_pd(with, false); }, &pd);
    if (IsReference(pd) && blocked) pd = make_pd(fused, true);
    AddWeightedStep<dnnl::deconvolution_forward>(pd, items, fused, x, w, View(Plain(w), w_view), b,
                                                 final_value, out, absorbed);
  }

  // What Conv and ConvTranspose do once their primitive descriptor is chosen: the source in its
  // layout, the weights in theirs (reordered once when constant), the bias, the fused post-ops'
  // arguments, the step, then the post-ops it could not fuse.
  template <typename Primitive, typename PrimitiveDesc>
  void AddWeightedStep(const PrimitiveDesc& pd, const std::vector<PostItem>& items,
                       const std::vector<PostItem>& fused, int x, int w, int weights_source, int b,
                       int final_value, const Dims& out, const std::vector<int>& absorbed) {
    const std::vector<PostItem> rest(items.begin() + fused.size(), items.end());
    const int src = As(x, pd.src_desc());
    const int weights = ir_.values[w].constant ? ConstantAs(w, weights_source, pd.weights_desc())
                                               : (Md(weights_source) == pd.weights_desc()
                                                      ? weights_source
                                                      : Reorder(weights_source, pd.weights_desc()));
    std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}};
    if (b >= 0) args.emplace_back(DNNL_ARG_BIAS, Plain(b));
    const int dst = SumDst(fused, final_value, out, pd.dst_desc());
    PostOpArgs(fused, args);
    args.emplace_back(DNNL_ARG_DST, dst);
    AddStep(Primitive(pd), pd, args);
    ApplySeparately(rest, dst, out);
    MarkDone(absorbed);
    Define(final_value, out, dst);
  }

  // LRN across channels (odd sizes: GetCapability declines even ones). ONNX's
  // X / (bias + alpha / size * square_sum) ^ beta is oneDNN's formula with k = bias, and oneDNN
  // divides alpha by the size too. A 4-D input keeps its layout (blocked after a Conv); other
  // ranks run as a plain [N, C, D1 * D2 * ..., 1] view (the window is across channels only).
  void BuildLrn(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    if (DefineIfEmpty(y, xd)) return;
    const int64_t size = AttrInt(node, "size", 1);
    const float alpha = AttrFloat(node, "alpha", 1e-4f), beta = AttrFloat(node, "beta", 0.75f);
    const float bias = AttrFloat(node, "bias", 1.0f);
    auto make_pd = [&](const memory::desc& md) {
      return dnnl::lrn_forward::primitive_desc(
          dnnl::lrn_forward::desc(prop_kind::forward_inference, algorithm::lrn_across_channels, md,
                                  size, alpha, beta, bias),
          Attr(), engine_);
    };
    if (xd.size() == 4 && settings_.blocked_layouts && !IsOutput(y)) {
      int src = State(x).handle;
      dnnl::lrn_forward::primitive_desc pd = make_pd(Md(src));
      if (IsReference(pd) && Md(src) != PlainMd(xd)) pd = make_pd(Md(src = Plain(x)));
      const int dst = DstFor(y, xd, Md(src));
      AddStep(dnnl::lrn_forward(pd), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      Define(y, xd, dst);
      return;
    }
    const Dims view =
        xd.size() == 4 ? xd : Dims{xd[0], xd[1], Volume(Dims(xd.begin() + 2, xd.end())), 1};
    const dnnl::lrn_forward::primitive_desc pd = make_pd(PlainMd(view));
    const int dst_handle = DstFor(y, xd, PlainMd(xd));
    AddStep(dnnl::lrn_forward(pd), pd,
            {{DNNL_ARG_SRC, View(Plain(x), PlainMd(view))},
             {DNNL_ARG_DST, View(dst_handle, PlainMd(view))}});
    Define(y, xd, dst_handle);
  }

  // Reduce*: oneDNN's reduction over the plain input into the keepdims shape (keepdims=0 is a
  // view of it). The algorithm gives exactly the ONNX op: L1 = norm_lp_sum p=1 (sum |x|), L2 =
  // norm_lp_sum p=2 (sqrt(sum x^2)), SumSquare = norm_lp_power_p_sum p=2, eps 0. oneDNN refuses a
  // reduction that reduces nothing (every reduced axis of size 1, or noop_with_empty_axes): then
  // each element is its own reduction, x (|x| for L1 and L2, x^2 for SumSquare). An empty input
  // gives the empty reduction: 0 (Sum, L1, L2, SumSquare), 1 (Prod), -inf (Max), +inf (Min), NaN
  // (Mean), as the CPU EP.
  void BuildReduce(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const std::string& op = node.OpType();
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    const int64_t rank = static_cast<int64_t>(xd.size());
    Dims axes;
    bool noop = false;
    if (ReduceAxesFromInput(node)) {
      if (ir_node.inputs.size() > 1 && ir_node.inputs[1] >= 0) axes = HostInts(ir_node.inputs[1]);
      noop = axes.empty() && AttrInt(node, "noop_with_empty_axes", 0) != 0;
    } else {
      axes = AttrInts(node, "axes");
    }
    std::vector<bool> reduce(xd.size(), axes.empty() && !noop);
    for (int64_t axis : axes) {
      PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ",
                    axis, " is out of range for rank ", rank);
      if (axis < 0) axis += rank;
      PRISM_ENFORCE(!reduce[axis], kInvalidArgument, node.Describe(), ": axis ", axis,
                    " is listed twice");
      reduce[axis] = true;
    }
    const bool keepdims = AttrInt(node, "keepdims", 1) != 0;
    Dims kept, out;
    for (int64_t i = 0; i < rank; ++i) {
      kept.push_back(reduce[i] ? 1 : xd[i]);
      if (!reduce[i] || keepdims) out.push_back(kept.back());
    }
    if (DefineIfEmpty(y, out)) return;
    const int dst_handle = DstFor(y, out, PlainMd(out));
    const int dst = View(dst_handle, PlainMd(kept));
    if (Volume(xd) == 0) {
      const float inf = std::numeric_limits<float>::infinity();
      const float empty = op == "ReduceProd"   ? 1.0f
                          : op == "ReduceMax"  ? -inf
                          : op == "ReduceMin"  ? inf
                          : op == "ReduceMean" ? std::nanf("")
                                               : 0.0f;
      AddZeroFill(dst);
      if (empty != 0.0f) EltwiseStep({algorithm::eltwise_linear, 0.0f, empty}, dst, dst);
      Define(y, out, dst_handle);
      return;
    }
    const int src = Plain(x);
    if (kept == xd) {
      if (op == "ReduceL1" || op == "ReduceL2")
        EltwiseStep({algorithm::eltwise_abs, 0.0f, 0.0f}, src, dst);
      else if (op == "ReduceSumSquare")
        EltwiseStep({algorithm::eltwise_square, 0.0f, 0.0f}, src, dst);
      else
        Reorder(src, PlainMd(kept), dst);
      Define(y, out, dst_handle);
      return;
    }
    algorithm alg = algorithm::reduction_sum;
    float p = 0.0f;
    if (op == "ReduceMean") alg = algorithm::reduction_mean;
    if (op == "ReduceMax") alg = algorithm::reduction_max;
    if (op == "ReduceMin") alg = algorithm::reduction_min;
    if (op == "ReduceProd") alg = algorithm::reduction_mul;
    if (op == "ReduceL1") alg = algorithm::reduction_norm_lp_sum, p = 1.0f;
    if (op == "ReduceL2") alg = algorithm::reduction_norm_lp_sum, p = 2.0f;
    if (op == "ReduceSumSquare") alg = algorithm::reduction_norm_lp_power_p_sum, p = 2.0f;
    auto reduction = [&](int from, int to) {
      dnnl::reduction::primitive_desc pd(
          dnnl::reduction::desc(alg, PlainMd(xd), PlainMd(kept), p, 0.0f), Attr(), engine_);
      AddStep(dnnl::reduction(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, to}});
    };
    reduction(src, dst);
    if (op == "ReduceMax" || op == "ReduceMin")
      ExactInfinities(op == "ReduceMax", reduction, src, xd, dst, kept);
    Define(y, out, dst_handle);
  }

  // oneDNN's reduction_max starts from -FLT_MAX (reduction_min from FLT_MAX), so a row of -inf
  // (a fully masked attention row) gives -3.4e38 where ONNX gives -inf. The max r2 of x / 2 tells
  // the two apart: it is -FLT_MAX only when every element is -inf (a true maximum m >= -FLT_MAX
  // gives m / 2 >= -FLT_MAX / 2). Then r - w with w = FLT_MAX there (0 elsewhere, so r - 0 keeps
  // r bit for bit, signed zeros included) overflows to -inf. The same for min with signs flipped.
  template <typename Reduction>
  void ExactInfinities(bool max, const Reduction& reduction, int src, const Dims& xd, int dst,
                       const Dims& kept) {
    const float big = std::numeric_limits<float>::max(), sign = max ? 1.0f : -1.0f;
    const int half = NewTemp(PlainMd(xd));
    EltwiseStep({algorithm::eltwise_linear, 0.5f, 0.0f}, src, half);
    const int w = NewTemp(PlainMd(kept));
    reduction(half, w);
    // u = sign * r2 + FLT_MAX: 0 exactly when every element is -inf (+inf for min), else
    // >= FLT_MAX / 2; v = clip(u, 0, 1) is 0 or 1; w = sign * FLT_MAX * (1 - v).
    EltwiseStep({algorithm::eltwise_linear, sign, big}, w, w);
    EltwiseStep({algorithm::eltwise_clip, 0.0f, 1.0f}, w, w);
    EltwiseStep({algorithm::eltwise_linear, -sign * big, sign * big}, w, w);
    BinaryStep(algorithm::binary_sub, dst, w, dst);
  }

  // MatMul and Gemm: a oneDNN matmul over a (batch..., M, K) and b (batch..., K, N) views.
  struct MatMulShape {
    Dims a_dims, b_dims, dst_dims;  // oneDNN's, all of one rank
    memory::desc a_md, b_md;        // views of a's and b's plain bytes
    Dims out;                       // the ONNX result's shape
  };

  void RunMatMul(int n, int a, int b, const MatMulShape& shape, std::vector<PostItem> items,
                 float alpha, int y) {
    const Node& node = NodeOf(n);
    const size_t rank = shape.dst_dims.size();
    int final_value = y;
    // A 1-D operand's result has a lower rank than oneDNN's: its Add operands would broadcast
    // differently there, so nothing fuses.
    std::vector<int> absorbed;
    if (shape.out.size() == rank)
      absorbed = CollectChain(y, shape.out, Anchor::kMatMul, rank, items, &final_value);
    PrepareOperands(items);
    const int64_t k = shape.a_dims[rank - 1];
    const int dst_handle = DstFor(final_value, shape.out, PlainMd(shape.out));
    const int dst = View(dst_handle, PlainMd(shape.dst_dims));
    if (k == 0) {  // an empty sum: zeros, then the post-ops
      AddZeroFill(dst);
      ApplySeparately(items, dst, shape.dst_dims);
      MarkDone(absorbed);
      Define(final_value, shape.out, dst_handle);
      return;
    }
    bool batch_of_one = true;
    for (size_t i = 0; i + 2 < rank; ++i) batch_of_one = batch_of_one && shape.b_dims[i] == 1;
    const bool constant_b = ir_.values[b].constant && batch_of_one && settings_.blocked_layouts;
    auto make_pd = [&](const std::vector<PostItem>& with) {
      dnnl::primitive_attr attr = Attr();
      if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      attr.set_post_ops(PostOps(with));
      const memory::desc b_md =
          constant_b ? memory::desc(ToDnnl(shape.b_dims), dt::f32, memory::format_tag::any)
                     : shape.b_md;
      const bool bias = !with.empty() && with[0].kind == PostItem::kBias;
      auto desc = bias ? dnnl::matmul::desc(shape.a_md, b_md, PlainMd(with[0].operand_dims),
                                            PlainMd(shape.dst_dims))
                       : dnnl::matmul::desc(shape.a_md, b_md, PlainMd(shape.dst_dims));
      return dnnl::matmul::primitive_desc(desc, attr, engine_);
    };
    dnnl::matmul::primitive_desc pd;
    const std::vector<PostItem> fused = LongestFastPrefix(items, make_pd, &pd);
    const std::vector<PostItem> rest(items.begin() + fused.size(), items.end());
    const int a_view = View(Plain(a), shape.a_md);
    const int b_view = View(Plain(b), shape.b_md);
    const int weights =
        constant_b
            ? ConstantAs(b, b_view, pd.weights_desc())
            : (Md(b_view) == pd.weights_desc() ? b_view : Reorder(b_view, pd.weights_desc()));
    std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, a_view}, {DNNL_ARG_WEIGHTS, weights}};
    if (!fused.empty() && fused[0].kind == PostItem::kBias)
      args.emplace_back(DNNL_ARG_BIAS, fused[0].operand);
    PostOpArgs(fused, args);
    args.emplace_back(DNNL_ARG_DST, dst);
    AddStep(dnnl::matmul(pd), pd, args);
    ApplySeparately(rest, dst, shape.dst_dims);
    MarkDone(absorbed);
    Define(final_value, shape.out, dst_handle);
    (void)node;
  }

  void BuildMatMul(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int a = ir_node.inputs[0], b = ir_node.inputs[1], y = ir_node.outputs[0];
    const Dims ad = DimsOf(a), bd = DimsOf(b);
    PRISM_ENFORCE(!ad.empty() && !bd.empty(), kInvalidArgument, node.Describe(),
                  ": MatMul inputs must have rank >= 1, got ", Text(ad), " and ", Text(bd));
    Dims a2 = ad.size() == 1 ? Dims{1, ad[0]} : ad;
    Dims b2 = bd.size() == 1 ? Dims{bd[0], 1} : bd;
    const size_t rank = std::max(a2.size(), b2.size());
    PRISM_ENFORCE(rank <= kMaxRank, kInvalidArgument, node.Describe(), ": rank above ", kMaxRank);
    a2 = Expand(a2, rank);
    b2 = Expand(b2, rank);
    const int64_t m = a2[rank - 2], k = a2[rank - 1], nn = b2[rank - 1];
    PRISM_ENFORCE(b2[rank - 2] == k, kInvalidArgument, node.Describe(), ": shapes ", Text(ad),
                  " and ", Text(bd), " do not fit a matrix product");
    MatMulShape shape;
    shape.a_dims = a2;
    shape.b_dims = b2;
    Dims batch;
    for (size_t i = 0; i + 2 < rank; ++i) {
      PRISM_ENFORCE(a2[i] == b2[i] || a2[i] == 1 || b2[i] == 1, kInvalidArgument, node.Describe(),
                    ": batch dims of ", Text(ad), " and ", Text(bd), " do not broadcast");
      batch.push_back(a2[i] == 1 ? b2[i] : a2[i]);
    }
    shape.dst_dims = batch;
    shape.dst_dims.push_back(m);
    shape.dst_dims.push_back(nn);
    // The result drops the dims the 1-D operands gained (a 1-D operand has no batch dims).
    shape.out = batch;
    if (ad.size() > 1) shape.out.push_back(m);
    if (bd.size() > 1) shape.out.push_back(nn);
    if (DefineIfEmpty(y, shape.out)) return;
    shape.a_md = PlainMd(a2);
    shape.b_md = PlainMd(b2);
    RunMatMul(n, a, b, shape, {}, 1.0f, y);
  }

  void BuildGemm(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int a = ir_node.inputs[0], b = ir_node.inputs[1];
    const int c = ir_node.inputs.size() > 2 ? ir_node.inputs[2] : -1;
    const int y = ir_node.outputs[0];
    const bool trans_a = AttrInt(node, "transA", 0) != 0, trans_b = AttrInt(node, "transB", 0) != 0;
    const float alpha = AttrFloat(node, "alpha", 1.0f), beta = AttrFloat(node, "beta", 1.0f);
    const Dims ad = DimsOf(a), bd = DimsOf(b);
    const int64_t m = trans_a ? ad[1] : ad[0], k = trans_a ? ad[0] : ad[1];
    const int64_t kb = trans_b ? bd[1] : bd[0], nn = trans_b ? bd[0] : bd[1];
    PRISM_ENFORCE(k == kb, kInvalidArgument, node.Describe(), ": A ", Text(ad), " and B ", Text(bd),
                  " do not fit (transA ", trans_a, ", transB ", trans_b, ")");
    MatMulShape shape;
    shape.a_dims = {m, k};
    shape.b_dims = {k, nn};
    shape.dst_dims = {m, nn};
    shape.out = {m, nn};
    shape.a_md = memory::desc({m, k}, dt::f32,
                              trans_a ? memory::dims{1, std::max<int64_t>(m, 1)}
                                      : memory::dims{std::max<int64_t>(k, 1), 1});
    shape.b_md = memory::desc({k, nn}, dt::f32,
                              trans_b ? memory::dims{1, std::max<int64_t>(k, 1)}
                                      : memory::dims{std::max<int64_t>(nn, 1), 1});
    if (DefineIfEmpty(y, shape.out)) return;
    std::vector<PostItem> items;
    if (c >= 0 && beta != 0.0f) {
      const Dims cd = DimsOf(c);
      PRISM_ENFORCE(BroadcastsInto(cd, shape.out), kInvalidArgument, node.Describe(), ": C ",
                    Text(cd), " does not broadcast to ", Text(shape.out));
      PostItem item;
      item.operand_dims = Expand(cd, 2);
      if (beta == 1.0f) {
        item.operand_value = c;
      } else {
        // beta * C first, then an Add: the same two roundings as the CPU EP's.
        const int scaled = NewTemp(PlainMd(cd));
        EltwiseStep({algorithm::eltwise_linear, beta, 0.0f}, Plain(c), scaled);
        item.operand = View(scaled, PlainMd(item.operand_dims));
      }
      item.kind = alpha == 1.0f && IsRowVector(item.operand_dims, shape.out) ? PostItem::kBias
                                                                             : PostItem::kBinaryAdd;
      items.push_back(item);
    }
    RunMatMul(n, a, b, shape, items, alpha, y);
  }

  void BuildPool(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const std::string& op = node.OpType();
    const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
    const bool max = op == "MaxPool" || op == "GlobalMaxPool";
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    const size_t spatial = xd.size() - 2;
    const Dims kernel = global ? Dims(xd.begin() + 2, xd.end()) : AttrInts(node, "kernel_shape");
    const Dims strides = global ? Dims(spatial, 1) : AttrInts(node, "strides", Dims(spatial, 1));
    const Dims dilations =
        global ? Dims(spatial, 1) : AttrInts(node, "dilations", Dims(spatial, 1));
    const Dims pads = global ? Dims(2 * spatial, 0) : AttrInts(node, "pads", Dims(2 * spatial, 0));
    const std::string auto_pad = global ? "NOTSET" : AttrString(node, "auto_pad", "NOTSET");
    const bool ceil_mode = !global && AttrInt(node, "ceil_mode", 0) != 0;
    Dims out = {xd[0], xd[1]};
    memory::dims pad_l(spatial), pad_r(spatial), dnnl_dilations(spatial);
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t in = xd[2 + i], window = (kernel[i] - 1) * dilations[i] + 1;
      int64_t begin = pads[i], end = pads[spatial + i], o = 0;
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        o = (in + strides[i] - 1) / strides[i];
        const int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + window - in);
        begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        end = total - begin;
      } else {
        if (auto_pad == "VALID") begin = end = 0;
        const int64_t span = in + begin + end - window;
        PRISM_ENFORCE(span >= 0, kInvalidArgument, node.Describe(), ": the pooling window (",
                      window, ") is larger than the padded input on spatial axis ", i);
        if (ceil_mode && auto_pad != "VALID") {
          o = (span + strides[i] - 1) / strides[i] + 1;
          // The last window must start inside the input or the left padding.
          if ((o - 1) * strides[i] >= in + begin) --o;
        } else {
          o = span / strides[i] + 1;
        }
      }
      out.push_back(o);
      // oneDNN derives the output size from the pads: widen the end pad to ceil mode's.
      if ((in + begin + end - window) / strides[i] + 1 != o)
        end = (o - 1) * strides[i] + window - in - begin;
      PRISM_ENFORCE(end >= 0, kEpFail, node.Describe(), ": no end padding gives ", o, " outputs");
      pad_l[i] = begin;
      pad_r[i] = end;
      dnnl_dilations[i] = dilations[i] - 1;
    }
    if (DefineIfEmpty(y, out)) return;
    const algorithm alg =
        max ? algorithm::pooling_max
            : (AttrInt(node, "count_include_pad", 0) != 0 ? algorithm::pooling_avg_include_padding
                                                          : algorithm::pooling_avg_exclude_padding);
    auto make_pd = [&](bool plain) {
      const memory::desc src_md = plain ? PlainMd(xd) : Md(State(x).handle);
      const memory::desc dst_md = plain || IsOutput(y)
                                      ? PlainMd(out)
                                      : memory::desc(ToDnnl(out), dt::f32, memory::format_tag::any);
      return dnnl::pooling_v2_forward::primitive_desc(
          dnnl::pooling_v2_forward::desc(prop_kind::forward_inference, alg, src_md, dst_md,
                                         memory::dims(strides.begin(), strides.end()),
                                         memory::dims(kernel.begin(), kernel.end()), dnnl_dilations,
                                         pad_l, pad_r),
          Attr(), engine_);
    };
    dnnl::pooling_v2_forward::primitive_desc pd;
    bool plain = !settings_.blocked_layouts || Md(State(x).handle) == PlainMd(xd);
    try {
      pd = make_pd(plain);
      if (!plain && IsReference(pd)) pd = make_pd(plain = true);
    } catch (const dnnl::error&) {
      if (plain) throw;
      pd = make_pd(plain = true);
    }
    const int src = As(x, pd.src_desc());
    const int dst = DstFor(y, out, pd.dst_desc());
    AddStep(dnnl::pooling_v2_forward(pd), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    Define(y, out, dst);
  }

  void BuildBatchNorm(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    PRISM_ENFORCE(xd.size() >= 2, kInvalidArgument, node.Describe(), ": X must have rank >= 2");
    for (size_t i = 1; i < 5; ++i)
      PRISM_ENFORCE(DimsOf(ir_node.inputs[i]) == Dims{xd[1]}, kInvalidArgument, node.Describe(),
                    ": input ", i, " has shape ", Text(DimsOf(ir_node.inputs[i])), ", expected [",
                    xd[1], "]");
    if (DefineIfEmpty(y, xd)) return;
    const bool plain = IsOutput(y) || !settings_.blocked_layouts;
    int src = plain ? Plain(x) : State(x).handle;
    const auto flags = dnnl::normalization_flags::use_global_stats |
                       dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    auto make_pd = [&](int source) {
      return dnnl::batch_normalization_forward::primitive_desc(
          dnnl::batch_normalization_forward::desc(prop_kind::forward_inference, Md(source),
                                                  AttrFloat(node, "epsilon", 1e-5f), flags),
          Attr(), engine_);
    };
    dnnl::batch_normalization_forward::primitive_desc pd = make_pd(src);
    if (IsReference(pd) && Md(src) != PlainMd(xd)) pd = make_pd(src = Plain(x));
    const int dst = !IsOutput(y) && src == State(x).handle && Overwritable(x)
                        ? TakeOver(x)
                        : DstFor(y, xd, Md(src));
    AddStep(dnnl::batch_normalization_forward(pd), pd,
            {{DNNL_ARG_SRC, src},
             {DNNL_ARG_DST, dst},
             {DNNL_ARG_SCALE, Plain(ir_node.inputs[1])},
             {DNNL_ARG_SHIFT, Plain(ir_node.inputs[2])},
             {DNNL_ARG_MEAN, Plain(ir_node.inputs[3])},
             {DNNL_ARG_VARIANCE, Plain(ir_node.inputs[4])}});
    Define(y, xd, dst);
  }

  void BuildSoftmax(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    if (DefineIfEmpty(y, xd)) return;
    const int64_t rank = static_cast<int64_t>(xd.size());
    const bool new_semantics = node.OpsetVersion() >= 13;
    int64_t axis = AttrInt(node, "axis", new_semantics ? -1 : 1);
    if (axis < 0) axis += rank;
    // Opsets < 13: the input as a 2-D matrix [d0*...*d(axis-1), d(axis)*...], rows normalized.
    Dims view = xd;
    int softmax_axis = static_cast<int>(axis);
    if (!new_semantics) {
      view = {Volume(Dims(xd.begin(), xd.begin() + axis)),
              Volume(Dims(xd.begin() + axis, xd.end()))};
      softmax_axis = 1;
    }
    const int src = View(Plain(x), PlainMd(view));
    const int dst_handle = !IsOutput(y) && Overwritable(x) && State(x).plain == State(x).handle
                               ? TakeOver(x)
                               : DstFor(y, xd, PlainMd(xd));
    const int dst = View(dst_handle, PlainMd(view));
    const algorithm alg = algorithm::softmax_accurate;
    dnnl::softmax_v2_forward::primitive_desc pd(
        dnnl::softmax_v2_forward::desc(prop_kind::forward_inference, alg, PlainMd(view),
                                       PlainMd(view), softmax_axis),
        Attr(), engine_);
    AddStep(dnnl::softmax_v2_forward(pd), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    Define(y, xd, dst_handle);
  }

  void BuildTranspose(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    const size_t rank = xd.size();
    Dims perm = AttrInts(node, "perm");
    if (perm.empty())
      for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
    PRISM_ENFORCE(perm.size() == rank, kInvalidArgument, node.Describe(), ": perm has ",
                  perm.size(), " entries for rank ", rank);
    Dims out(rank), strides(rank);
    const Dims in_strides = RowMajorStrides(xd);
    for (size_t i = 0; i < rank; ++i) {
      out[i] = xd[perm[i]];
      strides[i] = in_strides[perm[i]];
    }
    if (DefineIfEmpty(y, out)) return;
    const int source =
        View(Plain(x), rank == 0 ? PlainMd(out)
                                 : memory::desc(ToDnnl(out), dt::f32,
                                                memory::dims(strides.begin(), strides.end())));
    const int dst = DstFor(y, out, PlainMd(out));
    Reorder(source, PlainMd(out), dst);
    Define(y, out, dst);
  }

  void BuildReshape(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const std::string& op = node.OpType();
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const Dims xd = DimsOf(x);
    const int64_t rank = static_cast<int64_t>(xd.size());
    Dims out;
    if (op == "Reshape") {
      const Dims shape = HostInts(ir_node.inputs[1]);
      const bool allow_zero = AttrInt(node, "allowzero", 0) != 0;
      int64_t inferred = -1, known = 1;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t d = shape[i];
        if (d == 0 && !allow_zero) {
          PRISM_ENFORCE(static_cast<int64_t>(i) < rank, kInvalidArgument, node.Describe(),
                        ": shape ", Text(shape), " copies dim ", i, " of a rank-", rank, " input");
          d = xd[i];
        }
        if (d == -1) {
          PRISM_ENFORCE(inferred < 0, kInvalidArgument, node.Describe(), ": shape ", Text(shape),
                        " has more than one -1");
          inferred = static_cast<int64_t>(i);
          out.push_back(1);
          continue;
        }
        PRISM_ENFORCE(d >= 0, kInvalidArgument, node.Describe(), ": shape ", Text(shape),
                      " has a negative dim");
        out.push_back(d);
        known *= d;
      }
      if (inferred >= 0) {
        PRISM_ENFORCE(known != 0 && Volume(xd) % known == 0, kInvalidArgument, node.Describe(),
                      ": cannot infer the -1 of ", Text(shape), " from input ", Text(xd));
        out[inferred] = Volume(xd) / known;
      }
    } else if (op == "Flatten") {
      int64_t axis = AttrInt(node, "axis", 1);
      if (axis < 0) axis += rank;
      out = {Volume(Dims(xd.begin(), xd.begin() + axis)),
             Volume(Dims(xd.begin() + axis, xd.end()))};
    } else {
      Dims axes = node.OpsetVersion() >= 13 ? (ir_node.inputs.size() > 1 && ir_node.inputs[1] >= 0
                                                   ? HostInts(ir_node.inputs[1])
                                                   : Dims{})
                                            : AttrInts(node, "axes");
      if (op == "Squeeze") {
        for (int64_t& axis : axes) axis += axis < 0 ? rank : 0;
        for (int64_t i = 0; i < rank; ++i) {
          const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
          PRISM_ENFORCE(!listed || xd[i] == 1, kInvalidArgument, node.Describe(), ": axis ", i,
                        " of ", Text(xd), " is not 1");
          if (!(listed || (axes.empty() && xd[i] == 1))) out.push_back(xd[i]);
        }
      } else {
        const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
        for (int64_t& axis : axes) {
          axis += axis < 0 ? out_rank : 0;
          PRISM_ENFORCE(axis >= 0 && axis < out_rank, kInvalidArgument, node.Describe(),
                        ": axis out of range");
        }
        size_t next = 0;
        for (int64_t i = 0; i < out_rank; ++i)
          out.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? 1 : xd[next++]);
      }
    }
    PRISM_ENFORCE(Volume(out) == Volume(xd), kInvalidArgument, node.Describe(), ": cannot reshape ",
                  Text(xd), " to ", Text(out));
    if (DefineIfEmpty(y, out)) return;
    const int source = View(Plain(x), PlainMd(out));
    if (IsOutput(y)) {
      const int dst = DstFor(y, out, PlainMd(out));
      Reorder(source, PlainMd(out), dst);
      Define(y, out, dst);
    } else {
      Define(y, out, source);  // a view: no copy
    }
  }

  void BuildConcat(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int y = ir_node.outputs[0];
    const Dims first = DimsOf(ir_node.inputs[0]);
    const int64_t rank = static_cast<int64_t>(first.size());
    int64_t axis = AttrInt(node, "axis", 0);
    if (axis < 0) axis += rank;
    Dims out = first;
    out[axis] = 0;
    std::vector<int> parts;
    for (int input : ir_node.inputs) {
      const Dims& d = DimsOf(input);
      for (int64_t i = 0; i < rank; ++i)
        PRISM_ENFORCE(i == axis || d[i] == first[i], kInvalidArgument, node.Describe(),
                      ": input shapes ", Text(first), " and ", Text(d), " differ off axis ", axis);
      out[axis] += d[axis];
      if (Volume(d) != 0) parts.push_back(input);
    }
    if (DefineIfEmpty(y, out)) return;
    const bool plain = IsOutput(y) || !settings_.blocked_layouts;
    if (parts.size() == 1) {
      const int source = plain ? Plain(parts[0]) : State(parts[0]).handle;
      Define(y, out, Reorder(source, Md(source), DstFor(y, out, Md(source))));
      return;
    }
    auto make_pd = [&](bool all_plain) {
      std::vector<memory::desc> srcs;
      for (int part : parts)
        srcs.push_back(all_plain ? PlainMd(DimsOf(part)) : Md(State(part).handle));
      const memory::desc dst_md = all_plain || plain
                                      ? PlainMd(out)
                                      : memory::desc(ToDnnl(out), dt::f32, memory::format_tag::any);
      return dnnl::concat::primitive_desc(dst_md, static_cast<int>(axis), srcs, engine_, Attr());
    };
    dnnl::concat::primitive_desc pd;
    bool all_plain = plain;
    try {
      pd = make_pd(all_plain);
      if (!all_plain && IsReference(pd)) pd = make_pd(all_plain = true);
    } catch (const dnnl::error&) {
      if (all_plain) throw;
      pd = make_pd(all_plain = true);
    }
    std::vector<std::pair<int, int>> args;
    for (size_t i = 0; i < parts.size(); ++i)
      args.emplace_back(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                        all_plain ? Plain(parts[i]) : State(parts[i]).handle);
    const int dst = DstFor(y, out, pd.dst_desc());
    args.emplace_back(DNNL_ARG_DST, dst);
    AddStep(dnnl::concat(pd), pd, args);
    Define(y, out, dst);
  }

  void BuildLayerNorm(int n) {
    const IrNode& ir_node = ir_.nodes[n];
    const Node& node = *ir_node.node;
    const int x = ir_node.inputs[0], y = ir_node.outputs[0];
    const int scale = ir_node.inputs.size() > 1 ? ir_node.inputs[1] : -1;
    const int bias = ir_node.inputs.size() > 2 ? ir_node.inputs[2] : -1;
    const int mean_out = ir_node.outputs.size() > 1 ? ir_node.outputs[1] : -1;
    const int inv_std_out = ir_node.outputs.size() > 2 ? ir_node.outputs[2] : -1;
    const Dims xd = DimsOf(x);
    const int64_t rank = static_cast<int64_t>(xd.size());
    int64_t axis = AttrInt(node, "axis", -1);
    if (axis < 0) axis += rank;
    const float epsilon = AttrFloat(node, "epsilon", 1e-5f);
    const Dims normalized(xd.begin() + axis, xd.end());
    const int64_t outer = Volume(Dims(xd.begin(), xd.begin() + axis)), inner = Volume(normalized);
    // Mean and InvStdDev: X's shape with the normalized dims 1.
    Dims stat_dims(xd.begin(), xd.begin() + axis);
    stat_dims.resize(xd.size(), 1);
    if (Volume(xd) == 0) {
      DefineIfEmpty(y, xd);
      for (int stat : {mean_out, inv_std_out})
        if (stat >= 0 && !DefineIfEmpty(stat, stat_dims)) {
          // No elements to normalize: the statistics of empty rows are NaN.
          const int dst = DstFor(stat, stat_dims, PlainMd(stat_dims));
          AddZeroFill(dst);
          EltwiseStep({algorithm::eltwise_linear, 0.0f, std::nanf("")}, dst, dst);
          Define(stat, stat_dims, dst);
        }
      return;
    }
    const Dims view = {outer, inner};
    // Scale and bias of the normalized shape go to oneDNN; broadcast ones are applied after.
    auto fits = [&](int value) {
      return value >= 0 && Volume(DimsOf(value)) == inner &&
             Expand(DimsOf(value), normalized.size()) == normalized;
    };
    const bool use_scale = fits(scale), use_shift = fits(bias) && (use_scale || scale < 0);
    auto flags = dnnl::normalization_flags::none;
    if (use_scale) flags |= dnnl::normalization_flags::use_scale;
    if (use_shift) flags |= dnnl::normalization_flags::use_shift;
    const bool statistics = mean_out >= 0 || inv_std_out >= 0;
    const int dst_handle = DstFor(y, xd, PlainMd(xd));
    dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(
            statistics ? prop_kind::forward_training : prop_kind::forward_inference, PlainMd(view),
            epsilon, flags),
        Attr(), engine_);
    std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, View(Plain(x), PlainMd(view))},
                                             {DNNL_ARG_DST, View(dst_handle, PlainMd(view))}};
    if (use_scale) args.emplace_back(DNNL_ARG_SCALE, View(Plain(scale), PlainMd({inner})));
    if (use_shift) args.emplace_back(DNNL_ARG_SHIFT, View(Plain(bias), PlainMd({inner})));
    int mean = -1, variance = -1;
    if (statistics) {
      mean = mean_out >= 0 ? DstFor(mean_out, stat_dims, PlainMd(stat_dims))
                           : NewTemp(PlainMd(stat_dims));
      variance = NewTemp(PlainMd(stat_dims));
      args.emplace_back(DNNL_ARG_MEAN, View(mean, PlainMd({outer})));
      args.emplace_back(DNNL_ARG_VARIANCE, View(variance, PlainMd({outer})));
    }
    AddStep(dnnl::layer_normalization_forward(pd), pd, args);
    if (scale >= 0 && !use_scale) {
      Broadcast(xd, DimsOf(scale), node);
      Binary(algorithm::binary_mul, dst_handle, xd, State(scale).handle, DimsOf(scale), xd,
             dst_handle, true, false);
    }
    if (bias >= 0 && !use_shift) {
      Broadcast(xd, DimsOf(bias), node);
      Binary(algorithm::binary_add, dst_handle, xd, State(bias).handle, DimsOf(bias), xd,
             dst_handle, true, false);
    }
    Define(y, xd, dst_handle);
    if (mean_out >= 0) Define(mean_out, stat_dims, mean);
    if (inv_std_out >= 0) {
      // 1 / sqrt(variance + epsilon), as (variance + epsilon)^-0.5.
      const int inv = DstFor(inv_std_out, stat_dims, PlainMd(stat_dims));
      EltwiseStep({algorithm::eltwise_linear, 1.0f, epsilon}, variance, variance);
      EltwiseStep({algorithm::eltwise_pow, 1.0f, -0.5f}, variance, inv);
      Define(inv_std_out, stat_dims, inv);
    }
  }

  // An output's data must end in its output tensor in plain layout.
  void FinishOutput(int o) {
    const int value = ir_.output_values[o];
    ValueState& state = State(value);
    plan_->output_dims[o] = state.dims;
    const Slot& slot = plan_->slots[SlotOf(state.handle)];
    if (slot.kind == SlotKind::kOutput && slot.index == o &&
        Md(state.handle) == PlainMd(state.dims))
      return;
    const int dst = DstFor(value, state.dims, PlainMd(state.dims));
    if (Volume(state.dims) != 0) Reorder(state.handle, PlainMd(state.dims), dst);
  }

  const Ir& ir_;
  const DnnlSettings& settings_;
  const dnnl::engine& engine_;
  ConstantCache& constants_;
  const std::vector<Dims>& input_dims_;
  const std::vector<const void*>& input_data_;
  std::vector<ValueState> state_;
  std::vector<bool> done_;
  std::vector<int> output_slots_;
  std::shared_ptr<Plan> plan_;
};

// The cache key: thread count, every input's shape, the host-read inputs' values.
using Key = std::vector<int64_t>;

class DnnlSubgraphKernel final : public OpKernel {
 public:
  DnnlSubgraphKernel(const Graph& body, const OpKernelInfo& info, const DnnlSettings& settings,
                     const dnnl::engine& engine)
      : OpKernel(info), ir_(BuildIr(body, info)), settings_(settings), engine_(engine) {
    // Static input shapes (and constant host reads): build the first plan now, so that the
    // constant weights are reordered at session creation.
    std::vector<Dims> dims(ir_.input_count);
    std::vector<const void*> data(ir_.input_count, nullptr);
    for (size_t i = 0; i < ir_.input_count; ++i) {
      const NodeArg* arg = body.Inputs()[i];
      if (!arg->shape) return;
      for (const Dim& d : arg->shape->dims) {
        if (!d.IsKnown()) return;
        dims[i].push_back(d.value);
      }
      if (const Tensor* constant = info.ConstantInput(i)) data[i] = constant->RawData();
    }
    for (int input : ir_.host_read)
      if (data[input] == nullptr) return;
    const int threads = settings_.threads > 0 ? settings_.threads : DefaultIntraOpThreads();
    ScopedOmpThreads omp(threads);
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      Remember(MakeKey(threads, dims, data), Build(dims, data));
    } catch (const dnnl::error& e) {
      PRISM_THROW(kEpFail, "oneDNN subgraph '", ir_.name, "': ", e.what());
    }
  }

  void Compute(OpKernelContext& context) const override {
    ThreadPool* pool = context.IntraOpThreadPool();
    const int threads =
        settings_.threads > 0 ? settings_.threads : (pool ? pool->DegreeOfParallelism() : 1);
    ScopedOmpThreads omp(threads);
    std::vector<Dims> dims(ir_.input_count);
    std::vector<const void*> data(ir_.input_count, nullptr);
    for (size_t i = 0; i < ir_.input_count; ++i) {
      const Tensor& input = context.RequiredInput(i);
      dims[i] = input.Shape().Dims();
      data[i] = input.RawData();
    }
    const Key key = MakeKey(threads, dims, data);
    std::shared_ptr<Plan> plan;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      plan = Find(key);
      if (!plan) {
        try {
          plan = Build(dims, data);
        } catch (const dnnl::error& e) {
          PRISM_THROW(kEpFail, "oneDNN subgraph '", ir_.name, "': ", e.what());
        }
        Remember(key, plan);
      }
    }
    std::vector<void*> outputs(plan->output_dims.size());
    for (size_t o = 0; o < outputs.size(); ++o)
      outputs[o] = context.Output(o, TensorShape(plan->output_dims[o]), ElementType::kFloat)
                       .MutableRawData();
    std::unique_ptr<Workspace> ws;
    {
      std::lock_guard<std::mutex> lock(plan->mutex);
      if (!plan->idle.empty()) {
        ws = std::move(plan->idle.back());
        plan->idle.pop_back();
      }
    }
    try {
      if (!ws) ws = MakeWorkspace(*plan, engine_);
      static float dummy[16];
      for (int h : plan->bound_handles) {
        const Slot& slot = plan->slots[plan->handles[h].slot];
        void* pointer = slot.kind == SlotKind::kInput ? const_cast<void*>(data[slot.index])
                                                      : outputs[slot.index];
        ws->memories[h].set_data_handle(pointer ? pointer : dummy);
      }
      for (size_t s = 0; s < plan->steps.size(); ++s) {
        const Step& step = plan->steps[s];
        if (step.zero_fill >= 0) {
          const memory& target = ws->memories[step.zero_fill];
          std::memset(target.get_data_handle(), 0, plan->handles[step.zero_fill].md.get_size());
          continue;
        }
        step.primitive.execute(ws->stream, ws->args[s]);
      }
      ws->stream.wait();
    } catch (const dnnl::error& e) {
      PRISM_THROW(kEpFail, "oneDNN subgraph '", ir_.name, "' failed to run: ", e.what());
    }
    if (settings_.use_arena) {
      std::lock_guard<std::mutex> lock(plan->mutex);
      plan->idle.push_back(std::move(ws));
    }
  }

 private:
  Key MakeKey(int threads, const std::vector<Dims>& dims,
              const std::vector<const void*>& data) const {
    Key key = {threads};
    for (const Dims& d : dims) {
      key.push_back(static_cast<int64_t>(d.size()));
      key.insert(key.end(), d.begin(), d.end());
    }
    for (int input : ir_.host_read) {
      const int64_t count = Volume(dims[input]);
      key.push_back(-1 - count);
      // Host-read inputs are int64 (shapes, axes) or float scalars (Clip's bounds).
      const bool is_float = ir_.values.size() > 0 && IsFloatInput(input);
      for (int64_t i = 0; i < count; ++i) {
        if (is_float) {
          uint32_t bits = 0;
          std::memcpy(&bits, static_cast<const float*>(data[input]) + i, sizeof(bits));
          key.push_back(bits);
        } else {
          key.push_back(static_cast<const int64_t*>(data[input])[i]);
        }
      }
    }
    return key;
  }
  bool IsFloatInput(int input) const {
    for (const IrNode& node : ir_.nodes)
      for (size_t i = 0; i < node.inputs.size(); ++i)
        if (node.inputs[i] >= 0 && ir_.values[node.inputs[i]].input == input &&
            IsHostReadInput(*node.node, i))
          return node.node->OpType() == "Clip";
    return false;
  }

  std::shared_ptr<Plan> Build(const std::vector<Dims>& dims,
                              const std::vector<const void*>& data) const {
    PlanBuilder builder(ir_, settings_, engine_, constants_, dims, data);
    return builder.Build();
  }
  std::shared_ptr<Plan> Find(const Key& key) const {
    for (auto it = plans_.begin(); it != plans_.end(); ++it) {
      if (it->first != key) continue;
      plans_.splice(plans_.begin(), plans_, it);  // most recently used first
      return plans_.front().second;
    }
    return nullptr;
  }
  void Remember(const Key& key, std::shared_ptr<Plan> plan) const {
    plans_.emplace_front(key, std::move(plan));
    while (plans_.size() > static_cast<size_t>(settings_.max_cached_shapes)) plans_.pop_back();
  }

  Ir ir_;
  DnnlSettings settings_;
  dnnl::engine engine_;
  mutable std::mutex mutex_;  // guards plans_ and constants_
  mutable std::list<std::pair<Key, std::shared_ptr<Plan>>> plans_;
  mutable ConstantCache constants_;
};

}  // namespace

std::unique_ptr<OpKernel> CompileSubgraph(const Graph& body, const OpKernelInfo& info,
                                          const DnnlSettings& settings,
                                          const dnnl::engine& engine) {
  return std::make_unique<DnnlSubgraphKernel>(body, info, settings, engine);
}

int64_t PlansBuilt() {
  return plans_built.load();
}

}  // namespace prism::dnnl_ep
