// The ONNX conformance runner's logic, shared by prism_onnx_test (main.cc) and its self-test:
// discovering test folders, selecting them by op set, loading the .pb test data, running one
// test folder through an InferenceSession and checking the expected-failures list.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/value.h"
#include "session/session_options.h"
#include "tensor_compare.h"

namespace onnx {
class ModelProto;
class TypeProto;
}  // namespace onnx

namespace prism::conformance {

// (domain, op_type); the default ONNX domain is spelled "" ("ai.onnx" is normalized to it).
using OpId = std::pair<std::string, std::string>;
using OpSet = std::set<OpId>;

std::string FormatOp(const OpId& op);  // "Add", "ai.onnx.ml:LabelEncoder"

// Ops file: one op per line, `#` starts a comment, `domain:Op` for other domains.
OpSet ParseOpsList(const std::string& text, const std::string& what);
OpSet LoadOpsFile(const std::filesystem::path& path);

// Every op used by the model's graph, its subgraphs (graph attributes, recursively) and its
// local functions.
OpSet ModelOps(const onnx::ModelProto& model);
// The ops of `used` that are not in `allowed`, formatted and sorted.
std::vector<std::string> OpsOutside(const OpSet& used, const OpSet& allowed);

onnx::ModelProto LoadModelProto(const std::filesystem::path& path);

// Expected failures: lines `suite/test_name  # reason`; the reason is mandatory.
// Maps "suite/test_name" to its reason. Throws on a malformed line, a missing reason or a
// duplicate entry.
std::map<std::string, std::string> ParseExpectedFailures(const std::string& text,
                                                         const std::string& what);
std::map<std::string, std::string> LoadExpectedFailuresFile(const std::filesystem::path& path);

// Reads a test data file as the value of the given declared type: a TensorProto for tensors,
// a SequenceProto for sequences, an OptionalProto for optionals (no value: an empty Value()).
Value LoadValueFile(const std::filesystem::path& path, const onnx::TypeProto& type);
Value ValueFromBytes(const std::string& bytes, const onnx::TypeProto& type,
                     const std::string& what);

struct TestCase {
  std::string suite;
  std::string name;
  std::filesystem::path dir;
  std::string Key() const { return suite + "/" + name; }
};

// Where the suites live: <shared>/onnx-tests/<suite>, or <shared>/<suite> when <shared> is the
// onnx-tests folder itself. Throws when the suite folder does not exist.
std::filesystem::path SuiteDir(const std::filesystem::path& shared, const std::string& suite);
// The test folders (those holding a model.onnx) of a suite, sorted by name. Throws when the
// suite folder is missing or holds no test.
std::vector<TestCase> DiscoverSuite(const std::filesystem::path& shared, const std::string& suite);
// A test folder given on the command line: its suite is its parent folder's name.
TestCase TestCaseFromDir(const std::filesystem::path& dir);

enum class TestStatus { kPassed, kFailed, kSkipped, kExpectedFailure };
const char* StatusName(TestStatus status);

struct TestResult {
  std::string suite;
  std::string name;
  TestStatus status = TestStatus::kPassed;
  std::string message;
  double duration_ms = 0;
  std::vector<std::string> providers;
  // Op types ("Conv", "com.microsoft:Gelu") the partition report placed on an EP other than the
  // CPU EP, in a test that got as far as creating its session.
  std::vector<std::string> ops_on_other_providers;
  std::string Key() const { return suite + "/" + name; }
};

struct RunConfig {
  std::vector<ProviderSpec> providers;  // empty: CPUExecutionProvider
  testing::Tolerance tolerance = testing::Tolerance::OnnxSpecData();
  std::optional<OpSet> allowed_ops;  // when set, tests using other ops are skipped
  // Run the model as the session writes it back (optimized_model_filepath), loaded afresh.
  bool round_trip = false;
  // The sessions' graph optimization level (the round trip's writer and reader alike).
  GraphOptimizationLevel optimization_level = GraphOptimizationLevel::kAll;
  // Check every computed value's shape against the session's inferred one (strict inference:
  // every op needs an inference function), and require fully static inferred shapes when the
  // model's inputs are static.
  bool check_shapes = false;
  // Cross-provider consistency: run each data set twice, with `providers` and with the CPU EP
  // alone, on the test's inputs with their floating-point values replaced by seeded random ones,
  // and compare the two runs (not the expected outputs). A test where the other providers take
  // no node is skipped.
  bool compare_with_cpu = false;
};

// The skip reason when the test is not selected by the op set, else "".
std::string SelectionSkipReason(const TestCase& test, const RunConfig& config);
// Runs every test_data_set_N of the test folder. Never throws: load and run errors, and bad
// test data, make a failed result with the message.
TestResult RunTest(const TestCase& test, const RunConfig& config);
// RunTest in a forked child process, so that a crashing kernel (a signal) or a hang (past
// timeout_s; 0: no limit) fails only this test.
TestResult RunTestIsolated(const TestCase& test, const RunConfig& config, double timeout_s);

struct RunSummary {
  int passed = 0;
  int failed = 0;  // unexpected failures only
  int skipped = 0;
  int expected_failures = 0;
  std::vector<std::string> errors;  // stale or unknown expected-failure entries, too few run
  // Tests that ran (passed, failed or failed as expected), as opposed to skipped.
  int Ran() const { return passed + failed + expected_failures; }
  bool Ok() const { return failed == 0 && errors.empty(); }
};

// Turns failures listed in `expected` into expected failures and counts the results. An entry
// whose test passed, was skipped, or whose test folder does not exist under `shared`, is an error.
RunSummary ApplyExpectedFailures(std::vector<TestResult>& results,
                                 const std::map<std::string, std::string>& expected,
                                 const std::filesystem::path& shared);

std::string JsonEscape(const std::string& text);
std::string ResultToJson(const TestResult& result);
std::string SummaryToJson(const RunSummary& summary, const std::vector<TestResult>& results);

// Ops file entries (see ParseOpsList) that no passed test ran on an EP other than the CPU EP
// (TestResult::ops_on_other_providers), formatted and sorted: the --require-provider-ops check.
std::vector<std::string> OpsNeverRunOnProviders(const std::vector<TestResult>& results,
                                                const OpSet& required);

// "Name" or "Name:key=value:key=value" entries, comma separated.
std::vector<ProviderSpec> ParseProviders(const std::string& comma_separated);

}  // namespace prism::conformance
