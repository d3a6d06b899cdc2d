// prism_multi_batch_check: loads ONE InferenceSession from TEST_DIR/model.onnx and runs every
// TEST_DIR/test_data_set_N through it, comparing each output with output_K.pb. Its purpose is a
// model with symbolic dims (a 'batch' dim) run at several batch sizes on the same session, but it
// works on any ONNX test folder. It prints, per data set and output, the largest absolute and
// relative differences, and writes them as JSON with --json (tests/models reads them).
//
// usage: prism_multi_batch_check [--rtol X] [--atol X] [--json FILE] TEST_DIR
// Exit status: 0 when every output of every data set matches, 1 on a mismatch or a run error,
// 2 on a usage error.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "runner_lib.h"
#include "session/inference_session.h"
#include "tensor_compare.h"

namespace fs = std::filesystem;

namespace prism::testing {
namespace {

struct Options {
  double rtol = 1e-3;
  double atol = 1e-4;
  std::string json_path;
  fs::path test_dir;
};

// Largest differences of one output: max |a - e|, max |a - e| / |e| (over |e| > 0), and the
// worst ratio of |a - e| to the allowed atol + rtol * |e| (<= 1 means within tolerance).
struct Difference {
  double max_abs = 0;
  double max_rel = 0;
  double worst_ratio = 0;
  int64_t count = 0;
};

Difference Measure(const Tensor& expected, const Tensor& actual, Tolerance tolerance) {
  Difference diff;
  if (expected.Type() != actual.Type() || expected.Shape() != actual.Shape()) return diff;
  if (expected.Type() == ElementType::kString) return diff;
  diff.count = expected.NumElements();
  const Bounds bounds = tolerance.For(expected.Type());
  for (int64_t i = 0; i < diff.count; ++i) {
    const double e = ElementAsDouble(expected, i);
    const double a = ElementAsDouble(actual, i);
    if (std::isnan(e) || std::isnan(a) || std::isinf(e) || std::isinf(a)) continue;
    const double abs_diff = std::fabs(a - e);
    diff.max_abs = std::max(diff.max_abs, abs_diff);
    if (e != 0) diff.max_rel = std::max(diff.max_rel, abs_diff / std::fabs(e));
    diff.worst_ratio =
        std::max(diff.worst_ratio, abs_diff / (bounds.atol + bounds.rtol * std::fabs(e)));
  }
  return diff;
}

std::vector<fs::path> DataSetDirs(const fs::path& test_dir) {
  std::vector<std::pair<long, fs::path>> sets;
  const std::string prefix = "test_data_set_";
  for (const auto& entry : fs::directory_iterator(test_dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0) continue;
    const std::string number = name.substr(prefix.size());
    if (number.empty() || !std::all_of(number.begin(), number.end(), ::isdigit)) continue;
    sets.emplace_back(std::stol(number), entry.path());
  }
  std::sort(sets.begin(), sets.end());
  std::vector<fs::path> dirs;
  for (auto& [n, path] : sets) dirs.push_back(path);
  return dirs;
}

size_t CountFiles(const fs::path& set_dir, const std::string& prefix) {
  size_t count = 0;
  while (fs::exists(set_dir / (prefix + std::to_string(count) + ".pb"))) ++count;
  return count;
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--rtol") {
      options.rtol = std::stod(value());
    } else if (arg == "--atol") {
      options.atol = std::stod(value());
    } else if (arg == "--json") {
      options.json_path = value();
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: prism_multi_batch_check [--rtol X (1e-3)] [--atol X (1e-4)] "
                   "[--json FILE] TEST_DIR\n";
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      throw std::invalid_argument("unknown option " + arg);
    } else if (options.test_dir.empty()) {
      options.test_dir = arg;
    } else {
      throw std::invalid_argument("only one TEST_DIR may be given");
    }
  }
  if (options.test_dir.empty()) throw std::invalid_argument("TEST_DIR is required");
  return options;
}

int Main(const Options& options) {
  const Tolerance tolerance{options.atol, options.rtol};
  const fs::path model_path = options.test_dir / "model.onnx";
  const onnx::ModelProto model = conformance::LoadModelProto(model_path);
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& input : model.graph().input())
    if (!initializers.count(input.name())) inputs.push_back(&input);
  std::vector<std::string> output_names;
  for (const auto& output : model.graph().output()) output_names.push_back(output.name());

  const std::vector<fs::path> sets = DataSetDirs(options.test_dir);
  if (sets.empty()) {
    std::cerr << options.test_dir.string() << " has no test_data_set_N folder\n";
    return 1;
  }

  // One session for every data set: the point is re-running it at other input shapes.
  InferenceSession session;
  session.Load(model_path.string());

  bool all_ok = true;
  JsonWriter json;
  json.BeginObject();
  json.Key("test_dir").String(options.test_dir.string());
  json.Key("rtol").Number(options.rtol);
  json.Key("atol").Number(options.atol);
  json.Key("sets").BeginArray();
  for (const fs::path& set : sets) {
    const std::string set_name = set.filename().string();
    json.BeginObject();
    json.Key("name").String(set_name);
    const size_t input_count = CountFiles(set, "input_");
    std::vector<std::string> feed_names;
    std::vector<Value> feeds;
    json.Key("input_shapes").BeginArray();
    for (size_t k = 0; k < input_count && k < inputs.size(); ++k) {
      feed_names.push_back(inputs[k]->name());
      feeds.push_back(conformance::LoadValueFile(set / ("input_" + std::to_string(k) + ".pb"),
                                                 inputs[k]->type()));
      json.String(feeds.back().IsTensor() ? feeds.back().GetTensor().Shape().ToString() : "");
    }
    json.EndArray();
    std::vector<Value> expected;
    for (size_t k = 0; k < CountFiles(set, "output_") && k < output_names.size(); ++k) {
      expected.push_back(
          conformance::LoadValueFile(set / ("output_" + std::to_string(k) + ".pb"),
                                     model.graph().output(static_cast<int>(k)).type()));
    }
    std::string error;
    std::vector<Value> actual;
    try {
      actual = session.Run(RunOptions{}, feed_names, feeds, output_names);
      if (expected.size() != output_names.size())
        error = std::to_string(expected.size()) + " output files for " +
                std::to_string(output_names.size()) + " model outputs";
    } catch (const std::exception& e) {
      error = std::string("run failed: ") + e.what();
    }
    json.Key("outputs").BeginArray();
    for (size_t k = 0; error.empty() && k < expected.size(); ++k) {
      const std::string why = CompareValues(expected[k], actual[k], tolerance);
      Difference diff;
      if (expected[k].IsTensor() && actual[k].IsTensor())
        diff = Measure(expected[k].GetTensor(), actual[k].GetTensor(), tolerance);
      json.BeginObject();
      json.Key("name").String(output_names[k]);
      json.Key("shape").String(actual[k].IsTensor() ? actual[k].GetTensor().Shape().ToString()
                                                    : actual[k].Describe());
      json.Key("ok").Bool(why.empty());
      json.Key("max_abs").Number(diff.max_abs);
      json.Key("max_rel").Number(diff.max_rel);
      json.Key("worst_ratio").Number(diff.worst_ratio);
      json.Key("mismatch").String(why);
      json.EndObject();
      std::cout << set_name << " output '" << output_names[k] << "' "
                << (why.empty() ? "OK" : "MISMATCH") << " max_abs=" << diff.max_abs
                << " max_rel=" << diff.max_rel << " worst/tolerance=" << diff.worst_ratio
                << (why.empty() ? "" : " :" + why) << "\n";
      if (!why.empty()) all_ok = false;
    }
    json.EndArray();
    json.Key("error").String(error);
    json.EndObject();
    if (!error.empty()) {
      std::cout << set_name << " ERROR " << error << "\n";
      all_ok = false;
    }
  }
  json.EndArray();
  json.Key("ok").Bool(all_ok);
  json.EndObject();

  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << json.Text() << "\n";
    if (!out.good()) {
      std::cerr << "cannot write " << options.json_path << "\n";
      return 1;
    }
  }
  std::cout << (all_ok ? "PASSED" : "FAILED") << " " << options.test_dir.string() << " ("
            << sets.size() << " data sets, one session)\n";
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace prism::testing

int main(int argc, char** argv) {
  prism::testing::Options options;
  try {
    options = prism::testing::ParseArgs(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "prism_multi_batch_check: " << e.what() << "\n";
    return 2;
  }
  try {
    return prism::testing::Main(options);
  } catch (const std::exception& e) {
    std::cerr << "prism_multi_batch_check: " << e.what() << "\n";
    return 1;
  }
}
