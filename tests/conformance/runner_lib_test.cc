// Self-test of the conformance runner: the pieces of runner_lib and the prism_onnx_test command
// line, on small test folders written to a temporary directory (Identity models) and on the
// shared node suite.
#include "runner_lib.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>

#include "graph/tensor_proto.h"
#include "op_tester.h"

namespace prism::conformance {
namespace {

namespace fs = std::filesystem;
using testing::MakeTensor;

void WriteBytes(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

std::string TensorBytes(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  TensorToProto(tensor, name, &proto);
  return proto.SerializeAsString();
}

enum class Kind { kTensor, kSequence, kOptional };

void SetType(onnx::TypeProto* type, Kind kind) {
  onnx::TypeProto* tensor_holder = type;
  if (kind == Kind::kSequence) tensor_holder = type->mutable_sequence_type()->mutable_elem_type();
  if (kind == Kind::kOptional) tensor_holder = type->mutable_optional_type()->mutable_elem_type();
  tensor_holder->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// A one-node Identity model x -> y of the given kind, opset 16.
std::string IdentityModel(Kind kind, const std::string& extra_op = "") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(16);
  auto* graph = model.mutable_graph();
  graph->set_name("identity");
  auto* node = graph->add_node();
  node->set_op_type("Identity");
  node->add_input("x");
  node->add_output(extra_op.empty() ? "y" : "t");
  if (!extra_op.empty()) {
    auto* second = graph->add_node();
    second->set_op_type(extra_op);
    second->add_input("t");
    second->add_output("y");
  }
  auto* x = graph->add_input();
  x->set_name("x");
  SetType(x->mutable_type(), kind);
  auto* y = graph->add_output();
  y->set_name("y");
  SetType(y->mutable_type(), kind);
  return model.SerializeAsString();
}

class ConformanceRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / (std::string("prism_conformance_selftest_") +
                                         std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "onnx-tests" / "mini");
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes <root>/onnx-tests/mini/<name> with an Identity float model; output_0 is the input
  // unless `expected` is given.
  TestCase WriteIdentityTest(const std::string& name, const std::vector<float>& input,
                             const std::vector<float>* expected = nullptr) {
    const fs::path dir = root_ / "onnx-tests" / "mini" / name;
    WriteBytes(dir / "model.onnx", IdentityModel(Kind::kTensor));
    const int64_t n = static_cast<int64_t>(input.size());
    WriteBytes(dir / "test_data_set_0" / "input_0.pb",
               TensorBytes(MakeTensor<float>({n}, input), "x"));
    WriteBytes(dir / "test_data_set_0" / "output_0.pb",
               TensorBytes(MakeTensor<float>({n}, expected ? *expected : input), "y"));
    return TestCase{"mini", name, dir};
  }

  // Runs the prism_onnx_test binary; returns its exit code and fills `output`.
  int RunCli(const std::string& args, std::string* output) {
    const fs::path log = root_ / "cli.log";
    const std::string command = std::string(PRISM_BINARY_DIR) + "/prism_onnx_test --shared " +
                                root_.string() + " --report-dir " + (root_ / "report").string() +
                                " " + args + " > " + log.string() + " 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    std::ostringstream text;
    text << in.rdbuf();
    *output = text.str();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path root_;
};

TEST_F(ConformanceRunnerTest, IdentityTestPasses) {
  const TestCase test = WriteIdentityTest("test_identity_ok", {1.f, -2.f, 3.5f});
  const TestResult result = RunTest(test, RunConfig{});
  EXPECT_EQ(result.status, TestStatus::kPassed) << result.message;
  EXPECT_EQ(result.providers, std::vector<std::string>{"CPUExecutionProvider"});
}

// A random op without a seed cannot match stored outputs: the test is skipped, named as
// nondeterministic; with a seed it runs (and here fails: the stored output is the input).
TEST_F(ConformanceRunnerTest, UnseededRandomOpIsSkippedAsNondeterministic) {
  const TestCase test = WriteIdentityTest("test_random_unseeded", {0.5f, 0.25f});
  WriteBytes(test.dir / "model.onnx", IdentityModel(Kind::kTensor, "RandomUniformLike"));
  const TestResult unseeded = RunTest(test, RunConfig{});
  EXPECT_EQ(unseeded.status, TestStatus::kSkipped) << unseeded.message;
  EXPECT_NE(unseeded.message.find("nondeterministic: RandomUniformLike has no seed"),
            std::string::npos)
      << unseeded.message;

  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(IdentityModel(Kind::kTensor, "RandomUniformLike")));
  auto* seed = model.mutable_graph()->mutable_node(1)->add_attribute();
  seed->set_name("seed");
  seed->set_type(onnx::AttributeProto::FLOAT);
  seed->set_f(3.0f);
  WriteBytes(test.dir / "model.onnx", model.SerializeAsString());
  const TestResult seeded = RunTest(test, RunConfig{});
  EXPECT_EQ(seeded.status, TestStatus::kFailed) << seeded.message;
}

TEST_F(ConformanceRunnerTest, WrongExpectedOutputFails) {
  const std::vector<float> wrong = {1.f, -2.f, 3.6f};
  const TestCase test = WriteIdentityTest("test_identity_wrong", {1.f, -2.f, 3.5f}, &wrong);
  const TestResult result = RunTest(test, RunConfig{});
  EXPECT_EQ(result.status, TestStatus::kFailed);
  EXPECT_NE(result.message.find("output 0 'y'"), std::string::npos) << result.message;
  const TestResult isolated = RunTestIsolated(test, RunConfig{}, 60);
  EXPECT_EQ(isolated.status, TestStatus::kFailed);
  EXPECT_EQ(isolated.message, result.message);
}

TEST_F(ConformanceRunnerTest, ToleranceIsApplied) {
  const std::vector<float> close = {1.0005f};
  const TestCase test = WriteIdentityTest("test_identity_close", {1.f}, &close);
  EXPECT_EQ(RunTest(test, RunConfig{}).status, TestStatus::kPassed);  // 1e-7 + 1e-3 * 1.0005
  RunConfig strict;
  strict.tolerance = testing::Tolerance{1e-6, 1e-6};
  EXPECT_EQ(RunTest(test, strict).status, TestStatus::kFailed);
  // Spec data is compared per type: ONNX's own tolerance for float, double stays tight.
  EXPECT_EQ(RunConfig{}.tolerance.Describe(ElementType::kFloat), "atol 1e-07 rtol 0.001");
  EXPECT_EQ(RunConfig{}.tolerance.Describe(ElementType::kDouble), "atol 1e-15 rtol 1e-12");
}

TEST_F(ConformanceRunnerTest, WrongElementTypeFails) {
  const TestCase test = WriteIdentityTest("test_identity_type", {1.f, 2.f});
  WriteBytes(test.dir / "test_data_set_0" / "output_0.pb",
             TensorBytes(MakeTensor<double>({2}, {1.0, 2.0}), "y"));
  EXPECT_EQ(RunTest(test, RunConfig{}).status, TestStatus::kFailed);
}

TEST_F(ConformanceRunnerTest, MissingOutputFileFails) {
  const TestCase test = WriteIdentityTest("test_identity_no_output", {1.f});
  fs::remove(test.dir / "test_data_set_0" / "output_0.pb");
  const TestResult result = RunTest(test, RunConfig{});
  EXPECT_EQ(result.status, TestStatus::kFailed);
  EXPECT_NE(result.message.find("0 output files"), std::string::npos) << result.message;
}

TEST_F(ConformanceRunnerTest, EveryDataSetIsChecked) {
  const TestCase test = WriteIdentityTest("test_identity_two_sets", {1.f});
  WriteBytes(test.dir / "test_data_set_1" / "input_0.pb",
             TensorBytes(MakeTensor<float>({1}, {2.f}), "x"));
  WriteBytes(test.dir / "test_data_set_1" / "output_0.pb",
             TensorBytes(MakeTensor<float>({1}, {3.f}), "y"));
  const TestResult result = RunTest(test, RunConfig{});
  EXPECT_EQ(result.status, TestStatus::kFailed);
  EXPECT_NE(result.message.find("test_data_set_1"), std::string::npos) << result.message;
}

TEST_F(ConformanceRunnerTest, BadModelIsAFailureNotACrash) {
  const fs::path dir = root_ / "onnx-tests" / "mini" / "test_garbage";
  WriteBytes(dir / "model.onnx", "this is not a model");
  WriteBytes(dir / "test_data_set_0" / "input_0.pb", "");
  const TestResult result = RunTest(TestCase{"mini", "test_garbage", dir}, RunConfig{});
  EXPECT_EQ(result.status, TestStatus::kFailed);
  EXPECT_FALSE(result.message.empty());
}

TEST_F(ConformanceRunnerTest, ProvidersActuallyUsedAreRecorded) {
  const TestCase test = WriteIdentityTest("test_identity_providers", {1.f});
  RunConfig config;
  // An unavailable EP is skipped by the session (onnxruntime's behavior); the report must
  // name only the EPs in use, in and out of the child process.
  config.providers = ParseProviders("NoSuchExecutionProvider, CPUExecutionProvider");
  ASSERT_EQ(config.providers.size(), 2u);
  for (const TestResult& result : {RunTest(test, config), RunTestIsolated(test, config, 60)}) {
    EXPECT_EQ(result.status, TestStatus::kPassed) << result.message;
    EXPECT_EQ(result.providers, std::vector<std::string>{"CPUExecutionProvider"});
  }
}

TEST_F(ConformanceRunnerTest, SequenceAndOptionalDataAreParsedByDeclaredType) {
  {  // A sequence of two tensors through Identity.
    const fs::path dir = root_ / "onnx-tests" / "mini" / "test_identity_seq";
    WriteBytes(dir / "model.onnx", IdentityModel(Kind::kSequence));
    onnx::SequenceProto seq;
    seq.set_elem_type(onnx::SequenceProto::TENSOR);
    TensorToProto(MakeTensor<float>({2}, {1.f, 2.f}), "a", seq.add_tensor_values());
    TensorToProto(MakeTensor<float>({1}, {3.f}), "b", seq.add_tensor_values());
    WriteBytes(dir / "test_data_set_0" / "input_0.pb", seq.SerializeAsString());
    WriteBytes(dir / "test_data_set_0" / "output_0.pb", seq.SerializeAsString());
    const TestCase test{"mini", "test_identity_seq", dir};
    const TestResult result = RunTest(test, RunConfig{});
    EXPECT_EQ(result.status, TestStatus::kPassed) << result.message;

    onnx::TypeProto type;
    SetType(&type, Kind::kSequence);
    const Value value = LoadValueFile(dir / "test_data_set_0" / "input_0.pb", type);
    ASSERT_TRUE(value.IsSequence());
    EXPECT_EQ(value.GetSequence().tensors.size(), 2u);
    EXPECT_EQ(value.GetSequence().elem_type, ElementType::kFloat);

    // One element less in the expected sequence must fail.
    seq.mutable_tensor_values()->RemoveLast();
    WriteBytes(dir / "test_data_set_0" / "output_0.pb", seq.SerializeAsString());
    EXPECT_EQ(RunTest(test, RunConfig{}).status, TestStatus::kFailed);
  }
  {  // An empty optional, and an optional holding a tensor.
    const fs::path dir = root_ / "onnx-tests" / "mini" / "test_identity_opt";
    WriteBytes(dir / "model.onnx", IdentityModel(Kind::kOptional));
    onnx::OptionalProto empty;
    empty.set_elem_type(onnx::OptionalProto::TENSOR);
    WriteBytes(dir / "test_data_set_0" / "input_0.pb", empty.SerializeAsString());
    WriteBytes(dir / "test_data_set_0" / "output_0.pb", empty.SerializeAsString());
    onnx::OptionalProto full = empty;
    TensorToProto(MakeTensor<float>({1}, {4.f}), "v", full.mutable_tensor_value());
    WriteBytes(dir / "test_data_set_1" / "input_0.pb", full.SerializeAsString());
    WriteBytes(dir / "test_data_set_1" / "output_0.pb", full.SerializeAsString());
    const TestCase test{"mini", "test_identity_opt", dir};
    const TestResult result = RunTest(test, RunConfig{});
    EXPECT_EQ(result.status, TestStatus::kPassed) << result.message;

    onnx::TypeProto type;
    SetType(&type, Kind::kOptional);
    EXPECT_FALSE(LoadValueFile(dir / "test_data_set_0" / "input_0.pb", type).HasValue());
    EXPECT_TRUE(LoadValueFile(dir / "test_data_set_1" / "input_0.pb", type).IsTensor());

    // An expected empty optional where a value is produced must fail.
    WriteBytes(dir / "test_data_set_1" / "output_0.pb", empty.SerializeAsString());
    EXPECT_EQ(RunTest(test, RunConfig{}).status, TestStatus::kFailed);
  }
}

TEST(ExpectedFailuresTest, ParsesEntriesWithReasons) {
  const auto entries = ParseExpectedFailures(
      "# header comment\n\nnode/test_a  # kernel missing\n  node/test_b#precision \n", "list");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.at("node/test_a"), "kernel missing");
  EXPECT_EQ(entries.at("node/test_b"), "precision");
}

TEST(ExpectedFailuresTest, MissingReasonIsRejected) {
  EXPECT_THROW(ParseExpectedFailures("node/test_a\n", "list"), std::exception);
  EXPECT_THROW(ParseExpectedFailures("node/test_a   #   \n", "list"), std::exception);
  try {
    ParseExpectedFailures("# ok\nnode/test_a\n", "list");
    ADD_FAILURE() << "a line without a reason was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("list:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no reason"), std::string::npos) << e.what();
  }
}

TEST(ExpectedFailuresTest, MalformedAndDuplicateEntriesAreRejected) {
  EXPECT_THROW(ParseExpectedFailures("test_a  # no suite\n", "list"), std::exception);
  EXPECT_THROW(ParseExpectedFailures("node/test_a node/test_b  # two\n", "list"), std::exception);
  EXPECT_THROW(ParseExpectedFailures("node/a  # x\nnode/a  # y\n", "list"), std::exception);
}

TEST_F(ConformanceRunnerTest, ListedFailureIsExpectedAndStaleEntryFailsTheRun) {
  WriteIdentityTest("test_pass", {1.f});
  std::vector<TestResult> results(2);
  results[0].suite = "mini";
  results[0].name = "test_fail";
  results[0].status = TestStatus::kFailed;
  results[0].message = "boom";
  results[1].suite = "mini";
  results[1].name = "test_pass";
  results[1].status = TestStatus::kPassed;

  // The failing test is listed: an expected failure, and the run is ok.
  std::vector<TestResult> copy = results;
  RunSummary summary = ApplyExpectedFailures(copy, {{"mini/test_fail", "known"}}, root_);
  EXPECT_TRUE(summary.Ok());
  EXPECT_EQ(summary.expected_failures, 1);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.passed, 1);
  EXPECT_EQ(copy[0].status, TestStatus::kExpectedFailure);

  // The passing test is listed: stale, the run fails.
  copy = results;
  summary = ApplyExpectedFailures(copy, {{"mini/test_pass", "stale"}}, root_);
  EXPECT_FALSE(summary.Ok());
  ASSERT_EQ(summary.errors.size(), 1u);
  EXPECT_NE(summary.errors[0].find("remove it from the list"), std::string::npos);
  EXPECT_EQ(summary.failed, 1);

  // A listed test that does not exist anywhere fails the run; one that exists but was not run
  // (filtered out) does not.
  copy = results;
  summary = ApplyExpectedFailures(copy, {{"mini/test_nonexistent", "typo"}}, root_);
  EXPECT_FALSE(summary.errors.empty());
  copy = {results[0]};
  copy[0].status = TestStatus::kFailed;
  summary =
      ApplyExpectedFailures(copy, {{"mini/test_fail", "known"}, {"mini/test_pass", "x"}}, root_);
  EXPECT_TRUE(summary.errors.empty());
}

TEST(OpSelectionTest, OpsFileParsing) {
  const OpSet ops = ParseOpsList(
      "# comment\nAdd\n  Mul  # trailing\nai.onnx:Sub\n"
      "ai.onnx.ml:LabelEncoder\n",
      "ops");
  EXPECT_EQ(ops.size(), 4u);
  EXPECT_TRUE(ops.count({"", "Sub"}));
  EXPECT_TRUE(ops.count({"ai.onnx.ml", "LabelEncoder"}));
}

TEST(OpSelectionTest, SubgraphOpsAreCollected) {
  onnx::ModelProto model;
  auto* node = model.mutable_graph()->add_node();
  node->set_op_type("If");
  auto* then_branch = node->add_attribute();
  then_branch->set_name("then_branch");
  then_branch->set_type(onnx::AttributeProto::GRAPH);
  auto* inner = then_branch->mutable_g()->add_node();
  inner->set_op_type("Loop");
  auto* body = inner->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  body->mutable_g()->add_node()->set_op_type("Abs");
  auto* ml = body->mutable_g()->add_node();
  ml->set_op_type("LabelEncoder");
  ml->set_domain("ai.onnx.ml");
  auto* listed = node->add_attribute();
  listed->set_name("graphs");
  listed->set_type(onnx::AttributeProto::GRAPHS);
  listed->add_graphs()->add_node()->set_op_type("Neg");

  const OpSet used = ModelOps(model);
  EXPECT_EQ(used.size(), 5u);
  const OpSet allowed = ParseOpsList("If Loop Neg", "ops");
  EXPECT_EQ(OpsOutside(used, allowed),
            (std::vector<std::string>{"Abs", "ai.onnx.ml:LabelEncoder"}));
}

TEST_F(ConformanceRunnerTest, SkipReasonNamesTheOutsideOps) {
  const fs::path dir = root_ / "onnx-tests" / "mini" / "test_two_ops";
  WriteBytes(dir / "model.onnx", IdentityModel(Kind::kTensor, "Neg"));
  RunConfig config;
  config.allowed_ops = ParseOpsList("Identity", "ops");
  EXPECT_EQ(SelectionSkipReason(TestCase{"mini", "test_two_ops", dir}, config),
            "uses ops outside the selected set: Neg");
  config.allowed_ops->insert({"", "Neg"});
  EXPECT_EQ(SelectionSkipReason(TestCase{"mini", "test_two_ops", dir}, config), "");
}

// The core op set selects exactly 1802 tests (all of them) of the shared node suite.
TEST(OpSelectionTest, CoreOpsSelectAll1802NodeTests) {
  const std::string shared = testing::SharedDataDir();
  ASSERT_TRUE(fs::is_directory(shared))
      << "shared data folder " << shared << " is missing (set PRISM_SHARED_DIR)";
  RunConfig config;
  config.allowed_ops =
      LoadOpsFile(fs::path(PRISM_SOURCE_DIR) / "tests" / "conformance" / "core_ops.txt");
  EXPECT_EQ(config.allowed_ops->size(), 226u);
  int selected = 0;
  const std::vector<TestCase> tests = DiscoverSuite(shared, "node");
  for (const TestCase& test : tests)
    if (SelectionSkipReason(test, config).empty()) ++selected;
  EXPECT_EQ(selected, 1802);
  EXPECT_EQ(tests.size(), 1802u);
}

TEST(DiscoveryTest, MissingSuiteOrSharedDirIsAnError) {
  EXPECT_THROW(DiscoverSuite("/nonexistent/prism/shared", "node"), std::exception);
  EXPECT_THROW(DiscoverSuite(fs::temp_directory_path(), "no_such_suite_here"), std::exception);
}

TEST(JsonTest, ReportIsEscaped) {
  TestResult result;
  result.suite = "node";
  result.name = "test_x";
  result.status = TestStatus::kFailed;
  result.message = "bad \"value\"\n\ttab\\";
  result.providers = {"CPUExecutionProvider"};
  const std::string json = ResultToJson(result);
  EXPECT_NE(json.find(R"("message": "bad \"value\"\n\ttab\\")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("status": "failed")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("providers": ["CPUExecutionProvider"])"), std::string::npos) << json;
}

// End to end through the prism_onnx_test binary: exit codes, summary line and reports.
TEST_F(ConformanceRunnerTest, CommandLineExitCodesAndSummary) {
  WriteIdentityTest("test_identity_ok", {1.f, 2.f});
  const std::vector<float> wrong = {0.f};
  WriteIdentityTest("test_identity_wrong", {1.f}, &wrong);
  std::string output;

  EXPECT_EQ(RunCli("--suite mini --filter _ok$", &output), 0) << output;
  EXPECT_NE(output.find("\n1 passed, 0 failed, 0 skipped\n"), std::string::npos) << output;
  EXPECT_TRUE(fs::exists(root_ / "report" / "mini" / "test_identity_ok.json"));
  EXPECT_TRUE(fs::exists(root_ / "report" / "summary.json"));

  EXPECT_EQ(RunCli("--suite mini", &output), 1) << output;
  EXPECT_NE(output.find("FAILED mini/test_identity_wrong: "), std::string::npos) << output;
  EXPECT_NE(output.find("0 expected failures\n1 passed, 1 failed, 0 skipped\n"), std::string::npos)
      << output;

  const fs::path list = root_ / "expected.txt";
  WriteBytes(list, "mini/test_identity_wrong  # deliberately wrong data\n");
  EXPECT_EQ(RunCli("--suite mini --expected-failures " + list.string(), &output), 0) << output;
  EXPECT_NE(output.find("1 expected failures\n1 passed, 0 failed, 0 skipped\n"), std::string::npos)
      << output;

  WriteBytes(list,
             "mini/test_identity_wrong  # deliberately wrong data\n"
             "mini/test_identity_ok  # stale\n");
  EXPECT_EQ(RunCli("--suite mini --expected-failures " + list.string(), &output), 1) << output;
  EXPECT_NE(output.find("remove it from the list"), std::string::npos) << output;

  WriteBytes(list, "mini/test_identity_wrong\n");
  EXPECT_EQ(RunCli("--suite mini --expected-failures " + list.string(), &output), 2) << output;
  EXPECT_NE(output.find("no reason"), std::string::npos) << output;

  const fs::path ops = root_ / "ops.txt";
  WriteBytes(ops, "Neg\n");
  EXPECT_EQ(RunCli("--suite mini --ops-file " + ops.string(), &output), 0) << output;
  EXPECT_NE(output.find("0 passed, 0 failed, 2 skipped"), std::string::npos) << output;

  EXPECT_NE(RunCli("--suite no_such_suite", &output), 0) << output;
  EXPECT_NE(output.find("no_such_suite"), std::string::npos) << output;

  const fs::path tests_file = root_ / "tests.txt";
  WriteBytes(tests_file, "test_identity_ok\n");
  EXPECT_EQ(RunCli("--suite mini --tests-file " + tests_file.string(), &output), 0) << output;
  EXPECT_NE(output.find("1 passed, 0 failed, 0 skipped"), std::string::npos) << output;
  WriteBytes(tests_file, "test_not_there\n");
  EXPECT_EQ(RunCli("--suite mini --tests-file " + tests_file.string(), &output), 2) << output;
}

// Planted fault: an expected-failure entry whose test the selection skips used to count as
// nothing at all (exit 0); it is stale and fails the run.
TEST_F(ConformanceRunnerTest, ExpectedFailureOfSkippedTestIsStale) {
  const std::vector<float> wrong = {0.f};
  WriteIdentityTest("test_identity_wrong", {1.f}, &wrong);
  const fs::path list = root_ / "expected.txt";
  WriteBytes(list, "mini/test_identity_wrong  # deliberately wrong data\n");
  const fs::path ops = root_ / "ops.txt";
  WriteBytes(ops, "Neg\n");
  std::string output;
  EXPECT_EQ(
      RunCli("--suite mini --ops-file " + ops.string() + " --expected-failures " + list.string(),
             &output),
      1)
      << output;
  EXPECT_NE(output.find("ERROR mini/test_identity_wrong is listed as an expected failure but was "
                        "skipped (uses ops outside the selected set: Identity): the entry is "
                        "stale, remove it"),
            std::string::npos)
      << output;
}

// Planted fault: a suite whose every test is skipped (or that lost tests) used to pass with
// "0 passed, 0 failed, N skipped"; --min-run makes it fail.
TEST_F(ConformanceRunnerTest, MinRunFailsASkippedSuite) {
  WriteIdentityTest("test_identity_a", {1.f});
  WriteIdentityTest("test_identity_b", {2.f});
  const fs::path ops = root_ / "ops.txt";
  WriteBytes(ops, "Neg\n");
  std::string output;
  EXPECT_EQ(RunCli("--suite mini --ops-file " + ops.string(), &output), 0) << output;
  EXPECT_EQ(RunCli("--suite mini --ops-file " + ops.string() + " --min-run 2", &output), 1)
      << output;
  EXPECT_NE(output.find("ERROR only 0 tests ran (2 skipped); --min-run asks for 2: a suite or its "
                        "selection lost tests"),
            std::string::npos)
      << output;
  EXPECT_EQ(RunCli("--suite mini --min-run 2", &output), 0) << output;
  EXPECT_EQ(RunCli("--suite mini --min-run 3", &output), 1) << output;
  EXPECT_EQ(RunCli("--suite mini --min-run -1", &output), 2) << output;
}

// The cross-provider consistency check (--compare-with-cpu) on node/test_add: the test EP, which
// runs the CPU kernels behind a device boundary, agrees with the CPU EP; with a deliberately
// wrong Add kernel registered on the test EP (option wrong_op), the check must fail.
TEST(ConsistencyTest, CatchesAWrongKernelOnAnotherProvider) {
  const std::string shared = testing::SharedDataDir();
  ASSERT_TRUE(fs::is_directory(shared))
      << "shared data folder " << shared << " is missing (set PRISM_SHARED_DIR)";
  const TestCase add{"node", "test_add", fs::path(shared) / "onnx-tests" / "node" / "test_add"};
  RunConfig config;
  config.compare_with_cpu = true;
  config.providers = ParseProviders("TestExecutionProvider:ops=*");
  ASSERT_EQ(config.providers.size(), 1u);
  EXPECT_EQ(config.providers[0].options.at("ops"), "*");
  const TestResult right = RunTest(add, config);
  EXPECT_EQ(right.status, TestStatus::kPassed) << right.message;

  config.providers = ParseProviders("TestExecutionProvider:ops=*:wrong_op=Add");
  const TestResult wrong = RunTest(add, config);
  EXPECT_EQ(wrong.status, TestStatus::kFailed);
  EXPECT_NE(wrong.message.find("differs from the CPU EP"), std::string::npos) << wrong.message;

  config.providers = ParseProviders("TestExecutionProvider:ops=Mul");  // claims nothing here
  const TestResult idle = RunTest(add, config);
  EXPECT_EQ(idle.status, TestStatus::kSkipped);
  EXPECT_EQ(idle.message, "no node is placed on the providers tested");
}

// --require-provider-ops: the ops placed on another EP are recorded per test (also through the
// isolated child's payload), and ops no passed test ran there are reported.
TEST(ProviderOpsTest, OpsOnOtherProvidersAreRecordedAndRequired) {
  const std::string shared = testing::SharedDataDir();
  ASSERT_TRUE(fs::is_directory(shared))
      << "shared data folder " << shared << " is missing (set PRISM_SHARED_DIR)";
  const fs::path node = fs::path(shared) / "onnx-tests" / "node";
  RunConfig config;
  config.providers = ParseProviders("TestExecutionProvider:ops=Add");
  std::vector<TestResult> results;
  results.push_back(RunTestIsolated(TestCase{"node", "test_add", node / "test_add"}, config, 60));
  results.push_back(RunTest(TestCase{"node", "test_relu", node / "test_relu"}, config));
  ASSERT_EQ(results[0].status, TestStatus::kPassed) << results[0].message;
  ASSERT_EQ(results[1].status, TestStatus::kPassed) << results[1].message;
  EXPECT_EQ(results[0].ops_on_other_providers, std::vector<std::string>{"Add"});
  EXPECT_TRUE(results[1].ops_on_other_providers.empty());
  EXPECT_NE(ResultToJson(results[0]).find("\"ops_on_other_providers\": [\"Add\"]"),
            std::string::npos);
  const OpSet required = ParseOpsList("Add\nRelu\n", "test");
  EXPECT_EQ(OpsNeverRunOnProviders(results, required), std::vector<std::string>{"Relu"});
  // Only passed tests count.
  results[0].status = TestStatus::kFailed;
  EXPECT_EQ(OpsNeverRunOnProviders(results, required), (std::vector<std::string>{"Add", "Relu"}));
}

// A failing EP fails the test: the runner's sessions do not retry on the CPU EP.
TEST(ProviderOpsTest, EpFailuresAreNotHiddenByTheCpuFallback) {
  const std::string shared = testing::SharedDataDir();
  ASSERT_TRUE(fs::is_directory(shared));
  RunConfig config;
  config.providers = ParseProviders("TestExecutionProvider:ops=Add:fail_compute=1");
  const TestResult result = RunTest(
      TestCase{"node", "test_add", fs::path(shared) / "onnx-tests" / "node" / "test_add"}, config);
  EXPECT_EQ(result.status, TestStatus::kFailed);
}

}  // namespace

}  // namespace prism::conformance
