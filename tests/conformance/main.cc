// prism_onnx_test: runs the ONNX backend conformance tests (model.onnx + test_data_set_N) through
// InferenceSession and compares every output. See Usage() for the options.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner_lib.h"
#include "session/provider_library.h"

#ifndef PRISM_SOURCE_DIR
#define PRISM_SOURCE_DIR "."
#endif
#ifndef PRISM_BINARY_DIR
#define PRISM_BINARY_DIR "."
#endif

namespace fs = std::filesystem;
using namespace prism::conformance;

namespace {

constexpr int kUsageError = 2;

void Usage(std::ostream& out) {
  out << "usage: prism_onnx_test [options] [TEST_DIR...]\n"
         "  --shared DIR             shared data root holding onnx-tests/<suite> (default:\n"
         "                           $PRISM_SHARED_DIR, else <repo>/../shared)\n"
         "  --suite NAME             suite to run (repeatable; default: node unless TEST_DIRs "
         "are given)\n"
         "  --filter REGEX           run only tests whose name or suite/name matches (search)\n"
         "  --tests-file FILE        run only the tests listed (test_name or suite/test_name per\n"
         "                           line, # comments)\n"
         "  --ops-file FILE          select tests whose model (and subgraphs) use only these ops;\n"
         "                           the others are skipped\n"
         "  --providers P1,P2        execution providers (default CPUExecutionProvider)\n"
         "  --expected-failures FILE lines `suite/test_name  # reason`\n"
         "  --require-provider-ops FILE\n"
         "                           fail unless every op of FILE (ops-file format) ran on a\n"
         "                           provider other than the CPU EP (the partition report) in at\n"
         "                           least one passed test: an EP that declines its ops fails\n"
         "  --report-dir DIR         per-test JSON reports (default: <build>/conformance-report)\n"
         "  --rtol X --atol X        one tolerance |a-b| <= atol + rtol*|b| for every floating\n"
         "                           type (default: ONNX's checker, rtol 1e-3 atol 1e-7, bfloat16\n"
         "                           rtol 2^-6; double rtol 1e-12 atol 1e-15)\n"
         "  --min-run N              fail unless at least N tests ran (not skipped): a suite\n"
         "                           or selection that silently shrinks fails the run\n"
         "  --timeout S              per-test time limit in seconds (default 300; 0: none)\n"
         "  --optimization-level N   graph optimization level of the sessions: 0 (none), 1\n"
         "                           (basic), 2 (extended) or 99 (all, the default)\n"
         "  --round-trip             run each model as written back by the optimized session\n"
         "                           (optimized_model_filepath), loaded again: the writer and\n"
         "                           the optimizer must keep every result\n"
         "  --compare-with-cpu       cross-provider consistency: run each test with --providers\n"
         "                           and with the CPU EP alone on seeded random float inputs and\n"
         "                           compare the two (tests where --providers take no node are\n"
         "                           skipped); P may carry options: Name:key=value:key=value\n"
         "  --check-shapes           also check every computed value's shape against Prism's\n"
         "                           (strict) shape inference, static where the inputs are\n"
         "  --no-isolate             run tests in this process (default: a child per test, so\n"
         "                           a crash fails only that test)\n"
         "  --list                   print the selected tests (with -v also skipped ones) and "
         "exit\n"
         "  -v                       print one line per test\n";
}

std::string DefaultSharedDir() {
  if (const char* env = std::getenv("PRISM_SHARED_DIR"); env && *env) return env;
  return fs::weakly_canonical(fs::path(PRISM_SOURCE_DIR) / ".." / "shared").string();
}

std::vector<std::string> ReadListFile(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) throw std::runtime_error("cannot open tests file " + path);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    while (words >> word) names.push_back(word);
  }
  return names;
}

struct Options {
  std::string shared;
  std::vector<std::string> suites;
  std::string filter;
  bool has_filter = false;
  std::string tests_file;
  std::string ops_file;
  std::string providers;
  std::string expected_failures;
  std::string require_provider_ops;
  std::string report_dir;
  std::optional<double> rtol;  // unset: the per-type Tolerance::OnnxSpecData()
  std::optional<double> atol;
  double timeout_s = 300;
  int min_run = 0;
  bool isolate = true;
  bool round_trip = false;
  bool check_shapes = false;
  int optimization_level = 99;
  bool compare_with_cpu = false;
  bool list = false;
  bool verbose = false;
  std::vector<std::string> test_dirs;
};

double ParseNumber(const std::string& flag, const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty())
    throw std::invalid_argument(flag + " expects a number, got '" + text + "'");
  return value;
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  options.shared = DefaultSharedDir();
  options.report_dir = (fs::path(PRISM_BINARY_DIR) / "conformance-report").string();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--shared") {
      options.shared = value();
    } else if (arg == "--suite") {
      options.suites.push_back(value());
    } else if (arg == "--filter") {
      options.filter = value();
      options.has_filter = true;
    } else if (arg == "--tests-file") {
      options.tests_file = value();
    } else if (arg == "--ops-file") {
      options.ops_file = value();
    } else if (arg == "--providers") {
      options.providers = value();
    } else if (arg == "--expected-failures") {
      options.expected_failures = value();
    } else if (arg == "--require-provider-ops") {
      options.require_provider_ops = value();
    } else if (arg == "--report-dir") {
      options.report_dir = value();
    } else if (arg == "--rtol") {
      options.rtol = ParseNumber(arg, value());
    } else if (arg == "--atol") {
      options.atol = ParseNumber(arg, value());
    } else if (arg == "--min-run") {
      const double min_run = ParseNumber(arg, value());
      if (min_run < 0 || min_run != static_cast<int>(min_run))
        throw std::invalid_argument("--min-run expects a count, got " + std::to_string(min_run));
      options.min_run = static_cast<int>(min_run);
    } else if (arg == "--timeout") {
      options.timeout_s = ParseNumber(arg, value());
    } else if (arg == "--check-shapes") {
      options.check_shapes = true;
    } else if (arg == "--compare-with-cpu") {
      options.compare_with_cpu = true;
    } else if (arg == "--optimization-level") {
      const double level = ParseNumber(arg, value());
      if (level != 0 && level != 1 && level != 2 && level != 99)
        throw std::invalid_argument("--optimization-level expects 0, 1, 2 or 99, got " +
                                    std::to_string(level));
      options.optimization_level = static_cast<int>(level);
    } else if (arg == "--round-trip") {
      options.round_trip = true;
    } else if (arg == "--no-isolate") {
      options.isolate = false;
    } else if (arg == "--list") {
      options.list = true;
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      Usage(std::cout);
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      throw std::invalid_argument("unknown option " + arg);
    } else {
      options.test_dirs.push_back(arg);
    }
  }
  if (options.suites.empty() && options.test_dirs.empty()) options.suites.push_back("node");
  return options;
}

// The tests to consider, in run order, after --tests-file and --filter.
std::vector<TestCase> CollectTests(const Options& options) {
  std::vector<TestCase> tests;
  std::set<std::string> seen;
  for (const std::string& suite : options.suites)
    for (TestCase& test : DiscoverSuite(options.shared, suite))
      if (seen.insert(test.Key()).second) tests.push_back(std::move(test));
  for (const std::string& dir : options.test_dirs) {
    TestCase test = TestCaseFromDir(dir);
    if (seen.insert(test.Key()).second) tests.push_back(std::move(test));
  }
  if (!options.tests_file.empty()) {
    std::vector<TestCase> listed;
    for (const std::string& name : ReadListFile(options.tests_file)) {
      bool found = false;
      for (const TestCase& test : tests) {
        if (test.name == name || test.Key() == name) {
          listed.push_back(test);
          found = true;
        }
      }
      if (!found)
        throw std::invalid_argument("tests file " + options.tests_file + " names '" + name +
                                    "', which is not among the tests of the chosen suites");
    }
    tests = std::move(listed);
  }
  if (options.has_filter) {
    const std::regex pattern(options.filter, std::regex::ECMAScript);
    std::vector<TestCase> kept;
    for (TestCase& test : tests)
      if (std::regex_search(test.name, pattern) || std::regex_search(test.Key(), pattern))
        kept.push_back(std::move(test));
    tests = std::move(kept);
  }
  return tests;
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

// One line summarizing a message (messages may span lines).
std::string OneLine(const std::string& text, size_t limit = 2000) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  if (out.size() > limit) out = out.substr(0, limit) + "...";
  return out;
}

int Main(int argc, char** argv) {
  Options options;
  std::vector<TestCase> tests;
  RunConfig config;
  std::map<std::string, std::string> expected;
  std::optional<OpSet> required_ops;
  try {
    options = ParseArgs(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "prism_onnx_test: " << e.what() << "\n";
    Usage(std::cerr);
    return kUsageError;
  }
  try {
    if (!fs::is_directory(options.shared))
      throw std::invalid_argument("shared data folder '" + options.shared +
                                  "' does not exist (use --shared DIR or PRISM_SHARED_DIR)");
    tests = CollectTests(options);
    config.providers = ParseProviders(options.providers);
    config.round_trip = options.round_trip;
    config.optimization_level =
        static_cast<prism::GraphOptimizationLevel>(options.optimization_level);
    config.check_shapes = options.check_shapes;
    config.compare_with_cpu = options.compare_with_cpu;
    if (options.rtol || options.atol)
      config.tolerance =
          prism::testing::Tolerance{options.atol.value_or(1e-7), options.rtol.value_or(1e-3)};
    if (!options.ops_file.empty()) config.allowed_ops = LoadOpsFile(options.ops_file);
    if (!options.expected_failures.empty())
      expected = LoadExpectedFailuresFile(options.expected_failures);
    if (!options.require_provider_ops.empty())
      required_ops = LoadOpsFile(options.require_provider_ops);
  } catch (const std::exception& e) {
    std::cerr << "prism_onnx_test: " << e.what() << "\n";
    return kUsageError;
  }

  if (options.list) {
    int selected = 0, skipped = 0;
    for (const TestCase& test : tests) {
      std::string reason;
      try {
        reason = SelectionSkipReason(test, config);
      } catch (const std::exception& e) {
        reason = std::string("cannot classify: ") + e.what();
      }
      if (reason.empty()) {
        ++selected;
        std::cout << test.Key() << "\n";
      } else {
        ++skipped;
        if (options.verbose) std::cout << test.Key() << "  # skipped: " << reason << "\n";
      }
    }
    std::cout << selected << " selected, " << skipped << " skipped\n";
    return 0;
  }

  // Each isolated test runs in a forked child: with the plugins loaded here first, the children
  // share them instead of each loading every plugin of the folder again.
  if (options.isolate && !config.providers.empty()) prism::OpenProviderPlugins();
  std::vector<TestResult> results;
  for (const TestCase& test : tests) {
    TestResult result;
    std::string reason;
    try {
      reason = SelectionSkipReason(test, config);
    } catch (const std::exception& e) {
      // An unparsable model cannot be classified: it fails rather than being skipped quietly.
      result.suite = test.suite;
      result.name = test.name;
      result.status = TestStatus::kFailed;
      result.message = std::string("cannot classify the model: ") + e.what();
    }
    if (result.name.empty()) {
      if (!reason.empty()) {
        result.suite = test.suite;
        result.name = test.name;
        result.status = TestStatus::kSkipped;
        result.message = reason;
        for (const auto& p : config.providers) result.providers.push_back(p.name);
        if (result.providers.empty()) result.providers.push_back("CPUExecutionProvider");
      } else {
        result = options.isolate ? RunTestIsolated(test, config, options.timeout_s)
                                 : RunTest(test, config);
      }
    }
    if (result.status == TestStatus::kFailed && expected.count(result.Key()))
      result.status = TestStatus::kExpectedFailure;
    switch (result.status) {
      case TestStatus::kFailed:
        std::cout << "FAILED " << result.Key() << ": " << OneLine(result.message) << std::endl;
        break;
      case TestStatus::kExpectedFailure:
        if (options.verbose)
          std::cout << "EXPECTED FAILURE " << result.Key() << ": " << OneLine(result.message)
                    << std::endl;
        break;
      case TestStatus::kPassed:
        if (options.verbose)
          std::cout << "PASSED " << result.Key() << " (" << static_cast<int>(result.duration_ms)
                    << " ms)" << std::endl;
        break;
      case TestStatus::kSkipped:
        if (options.verbose)
          std::cout << "SKIPPED " << result.Key() << ": " << result.message << std::endl;
        break;
    }
    results.push_back(std::move(result));
  }

  // Restore kFailed so that ApplyExpectedFailures attaches the reason and counts uniformly.
  for (TestResult& result : results)
    if (result.status == TestStatus::kExpectedFailure) result.status = TestStatus::kFailed;
  RunSummary summary = ApplyExpectedFailures(results, expected, options.shared);
  if (summary.Ran() < options.min_run)
    summary.errors.push_back("only " + std::to_string(summary.Ran()) + " tests ran (" +
                             std::to_string(summary.skipped) + " skipped); --min-run asks for " +
                             std::to_string(options.min_run) +
                             ": a suite or its selection lost tests");

  if (required_ops) {
    std::set<std::string> ran;
    for (const TestResult& result : results)
      if (result.status == TestStatus::kPassed)
        ran.insert(result.ops_on_other_providers.begin(), result.ops_on_other_providers.end());
    std::string list;
    for (const std::string& op : ran) list += (list.empty() ? "" : " ") + op;
    std::cout << "ops run on " << options.providers << " in passed tests (" << ran.size()
              << "): " << list << "\n";
    for (const std::string& op : OpsNeverRunOnProviders(results, *required_ops))
      summary.errors.push_back(op + " (listed in " + options.require_provider_ops + ") ran on " +
                               options.providers +
                               " in no passed test: the EP claims it but never takes it here");
  }

  try {
    for (const TestResult& result : results)
      WriteFile(fs::path(options.report_dir) / result.suite / (result.name + ".json"),
                ResultToJson(result) + "\n");
    WriteFile(fs::path(options.report_dir) / "summary.json", SummaryToJson(summary, results));
  } catch (const std::exception& e) {
    summary.errors.push_back(std::string("report: ") + e.what());
  }

  for (const std::string& error : summary.errors) std::cout << "ERROR " << error << "\n";
  std::cout << summary.expected_failures << " expected failures\n";
  std::cout << summary.passed << " passed, " << summary.failed << " failed, " << summary.skipped
            << " skipped" << std::endl;
  return summary.Ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return Main(argc, argv);
}
