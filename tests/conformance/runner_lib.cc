#include "runner_lib.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include "common/json_writer.h"
#include "common/status.h"
#include "compute_evidence.h"
#include "framework/compute_trace.h"
#include "graph/shape_inference.h"
#include "graph/tensor_proto.h"
#include "session/inference_session.h"

namespace prism::conformance {

namespace fs = std::filesystem;

namespace {

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  PRISM_ENFORCE(in.good(), kInvalidArgument, "cannot open ", path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string NormalizeDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

void CollectGraphOps(const onnx::GraphProto& graph, OpSet& ops);

void CollectNodeOps(const onnx::NodeProto& node, OpSet& ops) {
  ops.emplace(NormalizeDomain(node.domain()), node.op_type());
  for (const auto& attribute : node.attribute()) {
    if (attribute.has_g()) CollectGraphOps(attribute.g(), ops);
    for (const auto& graph : attribute.graphs()) CollectGraphOps(graph, ops);
  }
}

void CollectGraphOps(const onnx::GraphProto& graph, OpSet& ops) {
  for (const auto& node : graph.node()) CollectNodeOps(node, ops);
}

// The first random op without a seed attribute in graph (subgraphs included), or "": its outputs
// differ from run to run by design, so no stored output can check them.
std::string UnseededRandomOp(const onnx::GraphProto& graph) {
  static const std::set<std::string> kRandomOps = {"RandomNormal",     "RandomUniform",
                                                   "RandomNormalLike", "RandomUniformLike",
                                                   "Bernoulli",        "Multinomial"};
  for (const auto& node : graph.node()) {
    bool seeded = false;
    for (const auto& attribute : node.attribute()) {
      if (attribute.name() == "seed") seeded = true;
      if (attribute.has_g()) {
        const std::string inner = UnseededRandomOp(attribute.g());
        if (!inner.empty()) return inner;
      }
      for (const auto& sub : attribute.graphs()) {
        const std::string inner = UnseededRandomOp(sub);
        if (!inner.empty()) return inner;
      }
    }
    if (NormalizeDomain(node.domain()).empty() && kRandomOps.count(node.op_type()) && !seeded)
      return node.op_type();
  }
  return "";
}

// test_data_set_N folders, ordered by N.
std::vector<fs::path> DataSets(const fs::path& test_dir) {
  std::vector<std::pair<long, fs::path>> sets;
  const std::string prefix = "test_data_set_";
  for (const auto& entry : fs::directory_iterator(test_dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0) continue;
    const std::string number = name.substr(prefix.size());
    long n = -1;
    if (!number.empty() && std::all_of(number.begin(), number.end(), ::isdigit))
      n = std::stol(number);
    sets.emplace_back(n, entry.path());
  }
  std::sort(sets.begin(), sets.end());
  std::vector<fs::path> result;
  for (auto& [n, path] : sets) result.push_back(path);
  return result;
}

// How many <prefix>K.pb files the data set holds (K = 0, 1, ... without gaps).
size_t CountDataFiles(const fs::path& set_dir, const std::string& prefix) {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(set_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() > 3 && name.substr(name.size() - 3) == ".pb")
      ++count;
  }
  for (size_t k = 0; k < count; ++k) {
    PRISM_ENFORCE(fs::exists(set_dir / (prefix + std::to_string(k) + ".pb")), kInvalidArgument,
                  set_dir.string(), ": ", count, " ", prefix, "*.pb files but ", prefix, k,
                  ".pb is missing");
  }
  return count;
}

Tensor TensorFromBytes(const std::string& bytes, const std::string& what) {
  onnx::TensorProto proto;
  PRISM_ENFORCE(proto.ParseFromString(bytes), kInvalidArgument, what, ": not a valid TensorProto");
  return TensorFromProto(proto, ExternalDataPolicy{}, what);
}

TensorSequence SequenceFromProto(const onnx::SequenceProto& proto, const onnx::TypeProto& type,
                                 const std::string& what) {
  const auto& elem = type.sequence_type().elem_type();
  PRISM_ENFORCE(elem.has_tensor_type(), kNotImplemented, what,
                ": only sequences of tensors are supported");
  PRISM_ENFORCE(
      proto.elem_type() == onnx::SequenceProto::TENSOR ||
          (proto.elem_type() == onnx::SequenceProto::UNDEFINED && proto.tensor_values_size() == 0),
      kInvalidArgument, what, ": SequenceProto elem_type ", proto.elem_type(), ", expected TENSOR");
  TensorSequence sequence;
  sequence.elem_type = static_cast<ElementType>(elem.tensor_type().elem_type());
  for (int i = 0; i < proto.tensor_values_size(); ++i) {
    sequence.tensors.push_back(TensorFromProto(proto.tensor_values(i), ExternalDataPolicy{},
                                               what + " element " + std::to_string(i)));
  }
  return sequence;
}

}  // namespace

std::string FormatOp(const OpId& op) {
  return op.first.empty() ? op.second : op.first + ":" + op.second;
}

OpSet ParseOpsList(const std::string& text, const std::string& what) {
  OpSet ops;
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    // Several ops may share a line, separated by spaces.
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      const auto colon = word.rfind(':');
      OpId op = colon == std::string::npos
                    ? OpId{"", word}
                    : OpId{NormalizeDomain(word.substr(0, colon)), word.substr(colon + 1)};
      PRISM_ENFORCE(!op.second.empty(), kInvalidArgument, what, ":", line_number,
                    ": empty op name in '", word, "'");
      ops.insert(std::move(op));
    }
  }
  return ops;
}

OpSet LoadOpsFile(const fs::path& path) {
  PRISM_ENFORCE(fs::is_regular_file(path), kInvalidArgument, "ops file ", path.string(),
                " does not exist");
  return ParseOpsList(ReadFile(path), path.string());
}

OpSet ModelOps(const onnx::ModelProto& model) {
  OpSet ops;
  CollectGraphOps(model.graph(), ops);
  for (const auto& function : model.functions())
    for (const auto& node : function.node()) CollectNodeOps(node, ops);
  return ops;
}

std::vector<std::string> OpsOutside(const OpSet& used, const OpSet& allowed) {
  std::vector<std::string> outside;
  for (const OpId& op : used)
    if (!allowed.count(op)) outside.push_back(FormatOp(op));
  return outside;
}

onnx::ModelProto LoadModelProto(const fs::path& path) {
  onnx::ModelProto model;
  const std::string bytes = ReadFile(path);
  PRISM_ENFORCE(model.ParseFromString(bytes), kInvalidArgument, path.string(),
                ": not a valid ModelProto");
  return model;
}

std::map<std::string, std::string> ParseExpectedFailures(const std::string& text,
                                                         const std::string& what) {
  std::map<std::string, std::string> entries;
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const auto hash = line.find('#');
    const std::string entry = Trim(line.substr(0, hash));
    if (entry.empty()) continue;  // blank or comment-only line
    const std::string reason = hash == std::string::npos ? "" : Trim(line.substr(hash + 1));
    const std::string where = what + ":" + std::to_string(line_number);
    PRISM_ENFORCE(!reason.empty(), kInvalidArgument, where, ": '", entry,
                  "' has no reason; write `suite/test_name  # why it fails`");
    PRISM_ENFORCE(entry.find_first_of(" \t") == std::string::npos, kInvalidArgument, where,
                  ": one test per line expected, got '", entry, "'");
    const auto slash = entry.find('/');
    PRISM_ENFORCE(slash != std::string::npos && slash > 0 && slash + 1 < entry.size() &&
                      entry.find('/', slash + 1) == std::string::npos,
                  kInvalidArgument, where, ": '", entry, "' is not of the form suite/test_name");
    PRISM_ENFORCE(entries.emplace(entry, reason).second, kInvalidArgument, where, ": '", entry,
                  "' is listed twice");
  }
  return entries;
}

std::map<std::string, std::string> LoadExpectedFailuresFile(const fs::path& path) {
  PRISM_ENFORCE(fs::is_regular_file(path), kInvalidArgument, "expected-failures file ",
                path.string(), " does not exist");
  return ParseExpectedFailures(ReadFile(path), path.string());
}

Value ValueFromBytes(const std::string& bytes, const onnx::TypeProto& type,
                     const std::string& what) {
  if (type.has_sequence_type()) {
    onnx::SequenceProto proto;
    PRISM_ENFORCE(proto.ParseFromString(bytes), kInvalidArgument, what,
                  ": not a valid SequenceProto");
    return Value(SequenceFromProto(proto, type, what));
  }
  if (type.has_optional_type()) {
    onnx::OptionalProto proto;
    PRISM_ENFORCE(proto.ParseFromString(bytes), kInvalidArgument, what,
                  ": not a valid OptionalProto");
    const auto& inner = type.optional_type().elem_type();
    if (proto.has_tensor_value()) {
      PRISM_ENFORCE(inner.has_tensor_type(), kInvalidArgument, what,
                    ": optional holds a tensor but the model declares ", inner.DebugString());
      return Value(TensorFromProto(proto.tensor_value(), ExternalDataPolicy{}, what));
    }
    if (proto.has_sequence_value()) {
      PRISM_ENFORCE(inner.has_sequence_type(), kInvalidArgument, what,
                    ": optional holds a sequence but the model declares ", inner.DebugString());
      return Value(SequenceFromProto(proto.sequence_value(), inner, what));
    }
    PRISM_ENFORCE(
        !proto.has_sparse_tensor_value() && !proto.has_map_value() && !proto.has_optional_value(),
        kNotImplemented, what, ": optional of sparse tensor/map/optional unsupported");
    return Value();  // an empty optional
  }
  PRISM_ENFORCE(type.has_tensor_type() || type.value_case() == onnx::TypeProto::VALUE_NOT_SET,
                kNotImplemented, what, ": unsupported declared type ", type.DebugString());
  return Value(TensorFromBytes(bytes, what));
}

Value LoadValueFile(const fs::path& path, const onnx::TypeProto& type) {
  return ValueFromBytes(ReadFile(path), type, path.string());
}

fs::path SuiteDir(const fs::path& shared, const std::string& suite) {
  PRISM_ENFORCE(fs::is_directory(shared), kInvalidArgument, "shared data folder ", shared.string(),
                " does not exist (set --shared or PRISM_SHARED_DIR)");
  const fs::path nested = shared / "onnx-tests" / suite;
  if (fs::is_directory(nested)) return nested;
  const fs::path direct = shared / suite;
  if (fs::is_directory(direct)) return direct;
  PRISM_THROW(kInvalidArgument, "suite '", suite, "' not found: neither ", nested.string(), " nor ",
              direct.string(), " exists");
}

std::vector<TestCase> DiscoverSuite(const fs::path& shared, const std::string& suite) {
  const fs::path dir = SuiteDir(shared, suite);
  std::vector<TestCase> tests;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
      tests.push_back(TestCase{suite, entry.path().filename().string(), entry.path()});
  }
  PRISM_ENFORCE(!tests.empty(), kInvalidArgument, "suite '", suite, "' at ", dir.string(),
                " holds no test folder with a model.onnx");
  std::sort(tests.begin(), tests.end(),
            [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
  return tests;
}

TestCase TestCaseFromDir(const fs::path& dir) {
  const fs::path absolute = fs::weakly_canonical(fs::absolute(dir));
  PRISM_ENFORCE(fs::is_regular_file(absolute / "model.onnx"), kInvalidArgument, "test folder ",
                dir.string(), " has no model.onnx");
  return TestCase{absolute.parent_path().filename().string(), absolute.filename().string(),
                  absolute};
}

const char* StatusName(TestStatus status) {
  switch (status) {
    case TestStatus::kPassed:
      return "passed";
    case TestStatus::kFailed:
      return "failed";
    case TestStatus::kSkipped:
      return "skipped";
    case TestStatus::kExpectedFailure:
      return "expected_failure";
  }
  return "unknown";
}

std::string SelectionSkipReason(const TestCase& test, const RunConfig& config) {
  if (!config.allowed_ops) return "";
  const std::vector<std::string> outside =
      OpsOutside(ModelOps(LoadModelProto(test.dir / "model.onnx")), *config.allowed_ops);
  if (outside.empty()) return "";
  std::string reason = "uses ops outside the selected set: ";
  for (size_t i = 0; i < outside.size(); ++i) reason += (i ? ", " : "") + outside[i];
  return reason;
}

namespace {

// The shape check: compute-trace hooks compare each kernel's outputs with the inferred shapes
// of the session graph's values.
struct ShapeCheck {
  std::mutex mutex;
  bool require_static = false;
  std::vector<std::string> problems;
  int64_t values_checked = 0;
};
ShapeCheck& CurrentShapeCheck() {
  static ShapeCheck check;
  return check;
}

void CheckComputedShapes(const ComputeTraceEvent& event) {
  ShapeCheck& check = CurrentShapeCheck();
  std::lock_guard<std::mutex> lock(check.mutex);
  if (event.node.FusedBody() != nullptr) return;
  for (size_t o = 0; o < event.outputs.size() && o < event.node.OutputCount(); ++o) {
    const Value* value = event.outputs[o];
    const NodeArg* arg = event.node.Outputs()[o];
    if (value == nullptr || arg == nullptr || !value->IsTensor()) continue;
    ++check.values_checked;
    const TensorShape& actual = value->GetTensor().Shape();
    const std::string where = event.node.Describe() + " output '" + arg->name + "'";
    if (!arg->shape) {
      if (check.require_static)
        check.problems.push_back(where + ": no inferred shape (actual " + actual.ToString() + ")");
      continue;
    }
    const SymbolicShape& inferred = *arg->shape;
    bool matches = inferred.dims.size() == actual.Rank();
    bool is_static = true;
    for (size_t d = 0; matches && d < inferred.dims.size(); ++d) {
      if (inferred.dims[d].IsKnown())
        matches = inferred.dims[d].value == actual[d];
      else
        is_static = false;
    }
    if (!matches)
      check.problems.push_back(where + ": inferred " + inferred.ToString() + ", actual " +
                               actual.ToString());
    else if (check.require_static && !is_static)
      check.problems.push_back(where + ": inferred " + inferred.ToString() +
                               " is not static (actual " + actual.ToString() + ")");
  }
}

// Every node (subgraphs included) must have an inference function, and strict inference on a
// copy of the session graph must succeed.
std::string StrictInference(const InferenceSession& session) {
  std::shared_ptr<const Graph> graph = session.SessionGraph();
  std::function<std::string(const Graph&)> missing = [&](const Graph& g) -> std::string {
    for (NodeIndex index : g.TopologicalOrder()) {
      const Node& node = g.GetNode(index);
      if (node.FusedBody() == nullptr && !HasShapeInference(node.Domain(), node.OpType()))
        return "no shape inference function for op " + node.OpType();
      for (const Graph* sub : node.Subgraphs())
        if (std::string why = missing(*sub); !why.empty()) return why;
    }
    return "";
  };
  if (std::string why = missing(*graph); !why.empty()) return why;
  try {
    std::unique_ptr<Graph> copy = graph->Clone();
    InferShapes(*copy, ShapeInferenceOptions{true});
  } catch (const std::exception& e) {
    return std::string("strict shape inference failed: ") + e.what();
  }
  return "";
}

// Whether every shape in the model follows from the input shapes alone: every input has a static
// shape, and none is a small integer list (rank <= 1: axes, pads, starts, a shape, a size) fed at
// run time, whose values (unknown to inference) may decide the shapes downstream.
bool StaticInputs(const onnx::ModelProto& model, const std::set<std::string>& initializers) {
  for (const auto& input : model.graph().input()) {
    if (initializers.count(input.name())) {
      // An initializer listed as a graph input may be overridden, so inference does not read its
      // values: a small integer or scalar one may decide shapes (a position, a split).
      for (const auto& initializer : model.graph().initializer()) {
        if (initializer.name() != input.name()) continue;
        const int elem = initializer.data_type();
        const bool integer = elem == onnx::TensorProto::INT64 || elem == onnx::TensorProto::INT32;
        if ((integer && initializer.dims_size() <= 1) ||
            (initializer.dims_size() == 0 && elem != onnx::TensorProto::BOOL &&
             elem != onnx::TensorProto::STRING))
          return false;
      }
      continue;
    }
    if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) return false;
    const auto& tensor_type = input.type().tensor_type();
    for (const auto& dim : tensor_type.shape().dim())
      if (!dim.has_dim_value()) return false;
    const int elem = tensor_type.elem_type();
    const bool integer = elem == onnx::TensorProto::INT64 || elem == onnx::TensorProto::INT32;
    if (integer && tensor_type.shape().dim_size() <= 1) return false;
    // A scalar of any type may bound a Range or a Loop's trip count (Range's function body).
    if (tensor_type.shape().dim_size() == 0 && elem != onnx::TensorProto::BOOL &&
        elem != onnx::TensorProto::STRING)
      return false;
  }
  return true;
}

// The skip marker of a result message: the test could not check what the mode checks.
constexpr const char* kSkipPrefix = "SKIP: ";

// The floating-point elements of `value` each scaled by a seeded random factor in [0.75, 1.25]
// (same type and shape): new values that keep their sign and rough size, so that parameters
// passed as float inputs (Resize's scales, Dropout's ratio) mostly stay valid. Other values are
// returned unchanged, since integers are often indices, axes or shapes.
Value Randomized(const Value& value, std::mt19937& generator) {
  if (!value.IsTensor()) return value;
  const Tensor& tensor = value.GetTensor();
  const ElementType type = tensor.Type();
  if (type != ElementType::kFloat && type != ElementType::kDouble &&
      type != ElementType::kFloat16 && type != ElementType::kBFloat16)
    return value;
  Tensor out(type, tensor.Shape(), GetCpuAllocator());
  std::uniform_real_distribution<double> factor(0.75, 1.25);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const double f = factor(generator);
    if (type == ElementType::kFloat)
      out.MutableData<float>()[i] = static_cast<float>(tensor.Data<float>()[i] * f);
    else if (type == ElementType::kDouble)
      out.MutableData<double>()[i] = tensor.Data<double>()[i] * f;
    else if (type == ElementType::kFloat16)
      out.MutableData<Float16>()[i] =
          Float16(static_cast<float>(tensor.Data<Float16>()[i].ToFloat() * f));
    else
      out.MutableData<BFloat16>()[i] =
          BFloat16(static_cast<float>(tensor.Data<BFloat16>()[i].ToFloat() * f));
  }
  return Value(std::move(out));
}

// Cross-provider consistency of one test (see RunConfig::compare_with_cpu).
std::string CompareWithCpu(const TestCase& test, InferenceSession& session,
                           const std::vector<const onnx::ValueInfoProto*>& inputs,
                           const std::vector<std::string>& output_names,
                           const std::vector<fs::path>& sets, GraphOptimizationLevel level) {
  int on_other = 0;
  for (const auto& [provider, count] : session.Report().NodesPerProvider())
    if (provider != "CPUExecutionProvider") on_other += count;
  if (on_other == 0) return std::string(kSkipPrefix) + "no node is placed on the providers tested";
  SessionOptions cpu_options;
  cpu_options.graph_optimization_level = level;
  InferenceSession cpu(cpu_options, {});
  cpu.Load((test.dir / "model.onnx").string());
  std::mt19937 generator(static_cast<uint32_t>(std::hash<std::string>{}(test.name)));
  for (const fs::path& set : sets) {
    const std::string set_name = set.filename().string();
    const size_t input_count = CountDataFiles(set, "input_");
    std::vector<std::string> feed_names;
    std::vector<Value> feeds;
    for (size_t k = 0; k < input_count && k < inputs.size(); ++k) {
      feed_names.push_back(inputs[k]->name());
      feeds.push_back(
          Randomized(LoadValueFile(set / ("input_" + std::to_string(k) + ".pb"), inputs[k]->type()),
                     generator));
    }
    std::vector<Value> tested, reference;
    try {
      reference = cpu.Run(RunOptions{}, feed_names, feeds, output_names);
    } catch (const std::exception& e) {
      // Random values outside an op's domain may be refused: those inputs check nothing.
      return std::string(kSkipPrefix) + "the CPU EP refuses the random inputs: " + e.what();
    }
    try {
      tested = session.Run(RunOptions{}, feed_names, feeds, output_names);
    } catch (const std::exception& e) {
      return set_name + ": the tested providers fail where the CPU EP runs: " + e.what();
    }
    std::string mismatches;
    for (size_t k = 0; k < reference.size() && k < tested.size(); ++k) {
      const std::string why =
          testing::CompareWithOracle(reference[k], tested[k], testing::Tolerance::OnnxSpecData());
      if (!why.empty())
        mismatches += (mismatches.empty() ? "" : "; ") + set_name + ": output " +
                      std::to_string(k) + " '" + output_names[k] +
                      "' differs from the CPU EP: " + why;
    }
    if (!mismatches.empty()) return mismatches;
  }
  return "";
}

// Runs all data sets; returns "" on success, else what went wrong.
// Records in `providers` the EPs the session actually uses (unavailable ones are dropped).
std::string RunDataSets(const TestCase& test, const RunConfig& config,
                        std::vector<std::string>& providers, std::vector<std::string>& ops) {
  const fs::path model_path = test.dir / "model.onnx";
  const onnx::ModelProto model = LoadModelProto(model_path);
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& input : model.graph().input())
    if (!initializers.count(input.name())) inputs.push_back(&input);
  std::vector<std::string> output_names;
  for (const auto& output : model.graph().output()) output_names.push_back(output.name());

  const std::vector<fs::path> sets = DataSets(test.dir);
  PRISM_ENFORCE(!sets.empty(), kInvalidArgument, test.dir.string(), " has no test_data_set_N");
  if (const std::string random = UnseededRandomOp(model.graph()); !random.empty())
    return std::string(kSkipPrefix) + "nondeterministic: " + random +
           " has no seed, so its outputs differ from run to run and from the stored ones by "
           "design (random ops are checked statistically by tests/unit/random)";

  fs::path load_path = model_path;
  if (config.round_trip) {
    // The optimized graph written next to nowhere the test owns: a temporary file per process.
    load_path = fs::temp_directory_path() /
                ("prism_round_trip_" + std::to_string(::getpid()) + "_" + test.name + ".onnx");
    SessionOptions writer_options;
    writer_options.graph_optimization_level = config.optimization_level;
    writer_options.optimized_model_filepath = load_path.string();
    try {
      InferenceSession writer(writer_options, config.providers);
      writer.Load(model_path.string());
    } catch (const std::exception& e) {
      return std::string("writing the optimized model failed: ") + e.what();
    }
  }
  struct RemoveOnExit {
    fs::path path;
    bool active;
    ~RemoveOnExit() {
      std::error_code ignored;
      if (active) fs::remove(path, ignored);
    }
  } cleanup{load_path, config.round_trip};

  SessionOptions options;
  options.graph_optimization_level = config.optimization_level;
  // An EP failure must fail the test, not vanish in the session's retry on the CPU EP.
  options.config_entries["session.disable_ep_failure_fallback"] = "1";
  InferenceSession session(options, config.providers);
  try {
    session.Load(load_path.string());
  } catch (const std::exception& e) {
    return std::string(config.round_trip ? "loading the written model failed: "
                                         : "model load failed: ") +
           e.what();
  }
  providers = session.Providers();
  {
    std::set<std::string> placed;
    for (const NodePlacement& node : session.Report().nodes)
      if (node.provider != "CPUExecutionProvider")
        placed.insert(FormatOp(OpId{node.domain == "ai.onnx" ? "" : node.domain, node.op_type}));
    ops.assign(placed.begin(), placed.end());
  }
  if (config.compare_with_cpu)
    return CompareWithCpu(test, session, inputs, output_names, sets, config.optimization_level);
  static const ComputeTraceHooks kShapeHooks{CheckComputedShapes, nullptr};
  struct HooksOff {
    bool active;
    ~HooksOff() {
      if (active) SetComputeTraceHooks(nullptr);
    }
  } hooks_off{config.check_shapes};
  if (config.check_shapes) {
    if (std::string why = StrictInference(session); !why.empty()) return "shape check: " + why;
    ShapeCheck& check = CurrentShapeCheck();
    std::lock_guard<std::mutex> lock(check.mutex);
    check.problems.clear();
    check.values_checked = 0;
    check.require_static = StaticInputs(model, initializers);
    SetComputeTraceHooks(&kShapeHooks);
  }

  for (const fs::path& set : sets) {
    const std::string set_name = set.filename().string();
    const size_t input_count = CountDataFiles(set, "input_");
    const size_t output_count = CountDataFiles(set, "output_");
    if (input_count > inputs.size())
      return set_name + ": " + std::to_string(input_count) + " input files but the model has " +
             std::to_string(inputs.size()) + " non-initializer inputs";
    if (output_count != output_names.size())
      return set_name + ": " + std::to_string(output_count) + " output files but the model has " +
             std::to_string(output_names.size()) + " outputs";
    std::vector<std::string> feed_names;
    std::vector<Value> feeds;
    for (size_t k = 0; k < input_count; ++k) {
      feed_names.push_back(inputs[k]->name());
      feeds.push_back(
          LoadValueFile(set / ("input_" + std::to_string(k) + ".pb"), inputs[k]->type()));
    }
    std::vector<Value> expected;
    for (size_t k = 0; k < output_count; ++k) {
      expected.push_back(LoadValueFile(set / ("output_" + std::to_string(k) + ".pb"),
                                       model.graph().output(static_cast<int>(k)).type()));
    }
    std::vector<Value> actual;
    try {
      actual = session.Run(RunOptions{}, feed_names, feeds, output_names);
    } catch (const std::exception& e) {
      return set_name + ": run failed: " + e.what();
    }
    if (actual.size() != expected.size())
      return set_name + ": " + std::to_string(actual.size()) + " outputs returned, expected " +
             std::to_string(expected.size());
    std::string mismatches;
    for (size_t k = 0; k < expected.size(); ++k) {
      const std::string why = testing::CompareWithOracle(expected[k], actual[k], config.tolerance);
      if (!why.empty()) {
        mismatches += (mismatches.empty() ? "" : "; ") + set_name + ": output " +
                      std::to_string(k) + " '" + output_names[k] + "': " + why;
      }
    }
    if (!mismatches.empty()) return mismatches;
  }
  if (config.check_shapes) {
    ShapeCheck& check = CurrentShapeCheck();
    std::lock_guard<std::mutex> lock(check.mutex);
    if (!check.problems.empty()) {
      std::string text = "shape check: " + std::to_string(check.problems.size()) + " problem(s): ";
      for (size_t i = 0; i < check.problems.size() && i < 3; ++i)
        text += (i ? "; " : "") + check.problems[i];
      return text;
    }
  }
  return "";
}

}  // namespace

TestResult RunTest(const TestCase& test, const RunConfig& config) {
  TestResult result;
  result.suite = test.suite;
  result.name = test.name;
  for (const auto& p : config.providers) result.providers.push_back(p.name);
  if (result.providers.empty()) result.providers.push_back("CPUExecutionProvider");
  const auto start = std::chrono::steady_clock::now();
  testing::BeginEvidenceUnit();
  try {
    result.message = RunDataSets(test, config, result.providers, result.ops_on_other_providers);
  } catch (const std::exception& e) {
    result.message = e.what();
    if (result.message.empty()) result.message = "exception without message";
  } catch (...) {
    result.message = "unknown exception";
  }
  result.status = result.message.empty() ? TestStatus::kPassed : TestStatus::kFailed;
  if (result.message.rfind(kSkipPrefix, 0) == 0) {
    result.status = TestStatus::kSkipped;
    result.message = result.message.substr(std::strlen(kSkipPrefix));
  }
  testing::EndEvidenceUnit(result.Key(), result.status == TestStatus::kPassed);
  result.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

namespace {

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

TestResult RunTestIsolated(const TestCase& test, const RunConfig& config, double timeout_s) {
  TestResult result;
  result.suite = test.suite;
  result.name = test.name;
  for (const auto& p : config.providers) result.providers.push_back(p.name);
  if (result.providers.empty()) result.providers.push_back("CPUExecutionProvider");
  result.status = TestStatus::kFailed;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };

  int fds[2];
  if (::pipe(fds) != 0) {
    result.message = std::string("pipe failed: ") + std::strerror(errno);
    return result;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.message = std::string("fork failed: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    // Child: run, send "<status digit><message>", leave without running atexit handlers.
    ::close(fds[0]);
    const TestResult child = RunTest(test, config);
    std::string payload = std::to_string(static_cast<int>(child.status));
    for (size_t i = 0; i < child.providers.size(); ++i)
      payload += (i ? "," : "") + child.providers[i];
    payload += "\n";
    for (size_t i = 0; i < child.ops_on_other_providers.size(); ++i)
      payload += (i ? "," : "") + child.ops_on_other_providers[i];
    payload += "\n" + child.message;
    ::_exit(WriteAll(fds[1], payload) ? 0 : 3);
  }
  ::close(fds[1]);
  std::string payload;
  bool timed_out = false;
  char buffer[4096];
  while (true) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      wait_ms = static_cast<int>(timeout_s * 1000 - elapsed_ms());
      if (wait_ms <= 0) {
        timed_out = true;
        break;
      }
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timed_out = true;
      break;
    }
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    payload.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  result.duration_ms = elapsed_ms();
  if (timed_out) {
    result.message = "timed out after " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    result.message =
        std::string("crashed with signal ") + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || payload.empty()) {
    result.message = "test process exited abnormally (status " + std::to_string(wstatus) + ")";
  } else {
    const int status = payload[0] - '0';
    result.status = status == static_cast<int>(TestStatus::kPassed)    ? TestStatus::kPassed
                    : status == static_cast<int>(TestStatus::kSkipped) ? TestStatus::kSkipped
                                                                       : TestStatus::kFailed;
    // "<status><providers>\n<ops on other providers>\n<message>"
    const size_t newline = payload.find('\n');
    const size_t second =
        newline == std::string::npos ? std::string::npos : payload.find('\n', newline + 1);
    if (newline != std::string::npos) {
      const std::vector<ProviderSpec> used = ParseProviders(payload.substr(1, newline - 1));
      if (!used.empty()) {
        result.providers.clear();
        for (const auto& p : used) result.providers.push_back(p.name);
      }
    }
    if (second != std::string::npos) {
      std::stringstream ops(payload.substr(newline + 1, second - newline - 1));
      std::string op;
      while (std::getline(ops, op, ','))
        if (!op.empty()) result.ops_on_other_providers.push_back(op);
    }
    result.message = second != std::string::npos    ? payload.substr(second + 1)
                     : newline != std::string::npos ? payload.substr(newline + 1)
                                                    : payload.substr(1);
  }
  return result;
}

RunSummary ApplyExpectedFailures(std::vector<TestResult>& results,
                                 const std::map<std::string, std::string>& expected,
                                 const fs::path& shared) {
  RunSummary summary;
  std::set<std::string> known;
  for (TestResult& result : results) {
    known.insert(result.Key());
    const auto it = expected.find(result.Key());
    if (it != expected.end()) {
      if (result.status == TestStatus::kFailed) {
        result.status = TestStatus::kExpectedFailure;
        result.message = "expected failure (" + it->second + "): " + result.message;
      } else if (result.status == TestStatus::kPassed) {
        summary.errors.push_back(result.Key() +
                                 " is listed as an expected failure but passed: remove it from "
                                 "the list");
      } else if (result.status == TestStatus::kSkipped) {
        // A listed test that no longer runs hides nothing and proves nothing: the entry is stale.
        summary.errors.push_back(result.Key() +
                                 " is listed as an expected failure but was skipped (" +
                                 result.message + "): the entry is stale, remove it");
      }
    }
    switch (result.status) {
      case TestStatus::kPassed:
        ++summary.passed;
        break;
      case TestStatus::kFailed:
        ++summary.failed;
        break;
      case TestStatus::kSkipped:
        ++summary.skipped;
        break;
      case TestStatus::kExpectedFailure:
        ++summary.expected_failures;
        break;
    }
  }
  for (const auto& [key, reason] : expected) {
    if (known.count(key)) continue;
    const auto slash = key.find('/');
    bool exists = false;
    try {
      exists = fs::is_regular_file(SuiteDir(shared, key.substr(0, slash)) / key.substr(slash + 1) /
                                   "model.onnx");
    } catch (const std::exception&) {
      exists = false;
    }
    if (!exists)
      summary.errors.push_back(key + " is listed as an expected failure but no such test exists");
  }
  return summary;
}

std::string JsonEscape(const std::string& text) {
  const std::string quoted = JsonWriter::Escape(text);  // the core's escaping, minus the quotes
  return quoted.substr(1, quoted.size() - 2);
}

std::string ResultToJson(const TestResult& result) {
  std::ostringstream out;
  out << "{\"name\": \"" << JsonEscape(result.name) << "\", \"suite\": \""
      << JsonEscape(result.suite) << "\", \"status\": \"" << StatusName(result.status)
      << "\", \"message\": \"" << JsonEscape(result.message)
      << "\", \"duration_ms\": " << result.duration_ms << ", \"providers\": [";
  for (size_t i = 0; i < result.providers.size(); ++i)
    out << (i ? ", " : "") << '"' << JsonEscape(result.providers[i]) << '"';
  out << "], \"ops_on_other_providers\": [";
  for (size_t i = 0; i < result.ops_on_other_providers.size(); ++i)
    out << (i ? ", " : "") << '"' << JsonEscape(result.ops_on_other_providers[i]) << '"';
  out << "]}";
  return out.str();
}

std::string SummaryToJson(const RunSummary& summary, const std::vector<TestResult>& results) {
  std::ostringstream out;
  out << "{\n  \"passed\": " << summary.passed << ",\n  \"failed\": " << summary.failed
      << ",\n  \"skipped\": " << summary.skipped
      << ",\n  \"expected_failures\": " << summary.expected_failures << ",\n  \"errors\": [";
  for (size_t i = 0; i < summary.errors.size(); ++i)
    out << (i ? ", " : "") << '"' << JsonEscape(summary.errors[i]) << '"';
  out << "],\n  \"ok\": " << (summary.Ok() ? "true" : "false") << ",\n  \"tests\": [";
  for (size_t i = 0; i < results.size(); ++i)
    out << (i ? ",\n    " : "\n    ") << ResultToJson(results[i]);
  out << "\n  ]\n}\n";
  return out.str();
}

std::vector<std::string> OpsNeverRunOnProviders(const std::vector<TestResult>& results,
                                                const OpSet& required) {
  std::set<std::string> ran;
  for (const TestResult& result : results)
    if (result.status == TestStatus::kPassed)
      ran.insert(result.ops_on_other_providers.begin(), result.ops_on_other_providers.end());
  std::vector<std::string> missing;
  for (const OpId& op : required)
    if (!ran.count(FormatOp(op))) missing.push_back(FormatOp(op));
  return missing;
}

std::vector<ProviderSpec> ParseProviders(const std::string& comma_separated) {
  std::vector<ProviderSpec> providers;
  std::istringstream in(comma_separated);
  std::string name;
  while (std::getline(in, name, ',')) {
    name = Trim(name);
    if (name.empty()) continue;
    ProviderSpec spec{name, {}};
    if (const size_t colon = name.find(':'); colon != std::string::npos) {
      spec.name = name.substr(0, colon);
      std::istringstream options(name.substr(colon + 1));
      std::string entry;
      while (std::getline(options, entry, ':')) {
        const size_t equals = entry.find('=');
        PRISM_ENFORCE(equals != std::string::npos, kInvalidArgument, "provider option '", entry,
                      "' of ", spec.name, " is not key=value");
        spec.options[entry.substr(0, equals)] = entry.substr(equals + 1);
      }
    }
    providers.push_back(std::move(spec));
  }
  return providers;
}

}  // namespace prism::conformance
