// The session profiler against the clocks around Run, under concurrent runs, and its file.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "session/inference_session.h"
#include "session/profiler.h"

namespace prism {
namespace {

constexpr int kChainLength = 60;
// Nodes long enough that the executor's share is small: at 256x256 a node took 9 us with the
// arena and memory pattern (150 us without, most of it page faults on fresh buffers), and the
// executor's 1-2 us between nodes came to 13% of a run.
constexpr int64_t kSide = 1024;

// x[kSide,kSide] -> (Add c, Relu, Mul c) repeated: kChainLength nodes, all on the CPU EP.
std::string ChainModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("chain");
  auto add_value_info = [](onnx::ValueInfoProto* info, const std::string& name) {
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(kSide);
    tensor->mutable_shape()->add_dim()->set_dim_value(kSide);
  };
  add_value_info(graph->add_input(), "x");
  onnx::TensorProto* constant = graph->add_initializer();
  constant->set_name("c");
  constant->set_data_type(onnx::TensorProto::FLOAT);
  constant->add_float_data(0.5f);
  const char* ops[] = {"Add", "Relu", "Mul"};
  const std::string constant_name = "c";
  std::string previous = "x";
  for (int i = 0; i < kChainLength; ++i) {
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type(ops[i % 3]);
    node->set_name(MakeString("node_", i));
    node->add_input(previous);
    if (i % 3 != 1) node->add_input(constant_name);
    previous = i + 1 == kChainLength ? "y" : MakeString("v", i);
    node->add_output(previous);
  }
  add_value_info(graph->add_output(), "y");
  return model.SerializeAsString();
}

std::unique_ptr<InferenceSession> ProfiledSession(const std::string& prefix = "",
                                                  int intra_op_threads = 0) {
  SessionOptions options;
  options.enable_profiling = true;
  options.intra_op_num_threads = intra_op_threads;

  if (!prefix.empty()) options.profile_file_prefix = prefix;
  auto session = std::make_unique<InferenceSession>(options);
  const std::string bytes = ChainModel();
  session->Load(bytes.data(), bytes.size());
  return session;
}

Value Input() {
  Tensor x(ElementType::kFloat, TensorShape({kSide, kSide}), GetCpuAllocator());
  for (int64_t i = 0; i < x.NumElements(); ++i)
    x.MutableData<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  return Value(std::move(x));
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

// One run as the profile and the test's own clocks around Session::Run saw it.
struct RunTiming {
  int64_t node_ns = 0;  // the run's Node events, added up
  int64_t wall_ns = 0;  // steady clock around Run
  int64_t cpu_ns = 0;   // the calling thread's CPU time in Run
};

// The share of a run's CPU time that its node times must reach. Run executes the nodes on the
// calling thread, so what the node times leave out of that CPU time is the executor's work
// between nodes and the profiler's own, about 2.5 us a node: node time / CPU time came to 0.98
// in every run with the CPU to itself (with 128x128 values instead, single runs came within 1%
// of the bound). The CPU time, unlike the wall clock, leaves out what other processes take from
// a loaded machine, so the bound holds for every run, not only the median one; under load it
// loosens by the time the thread waited inside nodes, which the node times rightly include.
constexpr double kMinNodeShare = 0.90;

// "" when every run's node time fits its clocks: at most the wall clock around Run, and at
// least kMinNodeShare of the CPU time spent in it; else what the first misfit is.
std::string CheckNodeTimes(const std::vector<RunTiming>& runs) {
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunTiming& run = runs[r];
    if (run.node_ns > run.wall_ns)
      return MakeString("run ", r, ": node time ", run.node_ns, " ns exceeds the wall clock ",
                        run.wall_ns, " ns");
    if (static_cast<double>(run.node_ns) < kMinNodeShare * static_cast<double>(run.cpu_ns))
      return MakeString("run ", r, ": node time ", run.node_ns, " ns is below ",
                        kMinNodeShare * 100, "% of the ", run.cpu_ns, " ns of CPU time");
  }
  return "";
}

int64_t ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

TEST(ProfilerTest, CheckNodeTimesRejectsTimesOffTheClocks) {
  // Two runs of 10 ms, the second one with 4 ms on another process.
  std::vector<RunTiming> runs = {{9600000, 10000000, 9900000}, {9500000, 10000000, 6000000}};
  EXPECT_EQ(CheckNodeTimes(runs), "");
  runs[0].node_ns *= 2;
  EXPECT_EQ(CheckNodeTimes(runs),
            "run 0: node time 19200000 ns exceeds the wall clock 10000000 ns");
  runs[0].node_ns /= 2;
  runs[1].node_ns = 5000000;
  EXPECT_EQ(CheckNodeTimes(runs),
            "run 1: node time 5000000 ns is below 90% of the 6000000 ns of CPU time");
}

TEST(ProfilerTest, OffByDefaultAndEndProfilingReturnsEmpty) {
  InferenceSession session;
  const std::string bytes = ChainModel();
  session.Load(bytes.data(), bytes.size());
  session.Run({}, {"x"}, {Input()}, {});
  EXPECT_EQ(session.GetProfiler(), nullptr);
  EXPECT_EQ(session.EndProfiling(), "");
}

TEST(ProfilerTest, NodeTimesAddUpToTheClocksAroundEveryRun) {
  // One thread: the calling thread's CPU time then covers all of the nodes' work (with a pool,
  // nodes wait for workers, whose CPU time this thread's clock leaves out).
  auto session = ProfiledSession("", 1);
  const Profiler& profiler = *session->GetProfiler();
  const Value x = Input();
  session->Run({}, {"x"}, {x}, {});  // first run: allocations settle
  constexpr int kRuns = 15;
  std::vector<std::pair<int64_t, int64_t>> walls;  // per run, in the profiler's time base
  std::vector<RunTiming> timings(kRuns);
  for (int r = 0; r < kRuns; ++r) {
    const int64_t cpu = ThreadCpuNs();
    const auto start = Profiler::Clock::now();
    session->Run({}, {"x"}, {x}, {});
    walls.emplace_back(profiler.NanosecondsSinceStart(start),
                       profiler.NanosecondsSinceStart(Profiler::Clock::now()));
    timings[r].cpu_ns = ThreadCpuNs() - cpu;
    timings[r].wall_ns = walls[r].second - walls[r].first;
  }
  std::vector<int> node_events(kRuns, 0), model_runs(kRuns, 0);
  for (const ProfileEvent& event : profiler.Events()) {
    EXPECT_LE(event.start_ns, event.end_ns) << event.name;
    for (int r = 0; r < kRuns; ++r) {
      if (event.start_ns < walls[r].first || event.start_ns > walls[r].second) continue;
      EXPECT_LE(event.end_ns, walls[r].second) << event.name;
      if (event.name == "model_run") ++model_runs[r];
      if (event.category != "Node") continue;
      timings[r].node_ns += event.end_ns - event.start_ns;
      ++node_events[r];
      EXPECT_EQ(event.provider, "CPUExecutionProvider");
      ASSERT_EQ(event.inputs.size(), event.op_name == "Relu" ? 1u : 2u);
      EXPECT_EQ(event.inputs[0].type, "float");
      EXPECT_EQ(event.outputs.at(0).dims, (std::vector<int64_t>{kSide, kSide}));
    }
  }
  std::string shares;
  for (int r = 0; r < kRuns; ++r) {
    EXPECT_EQ(model_runs[r], 1);
    EXPECT_EQ(node_events[r], kChainLength);
    shares += MakeString(
        " ", static_cast<double>(timings[r].node_ns) / static_cast<double>(timings[r].cpu_ns));
  }
  EXPECT_EQ(CheckNodeTimes(timings), "") << "node time / CPU time per run:" << shares;
  std::cout << "node time / CPU time per run:" << shares << "\n";
}

TEST(ProfilerTest, ConcurrentRunsEachRecordEveryNode) {
  auto session = ProfiledSession();
  const Value x = Input();
  constexpr int kThreads = 4, kRuns = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&session, &x, t] {
      RunOptions run_options;
      for (int r = 0; r < kRuns; ++r) {
        run_options.run_tag = MakeString("t", t, "_r", r);
        session->Run(run_options, {"x"}, {x}, {});
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const std::vector<ProfileEvent> events = session->GetProfiler()->Events();
  // Per thread: kRuns model_runs, each holding kChainLength Node events of that thread.
  std::map<int, std::vector<const ProfileEvent*>> runs_by_thread;
  for (const ProfileEvent& event : events)
    if (event.name == "model_run") runs_by_thread[event.thread_id].push_back(&event);
  ASSERT_EQ(runs_by_thread.size(), static_cast<size_t>(kThreads));
  std::map<const ProfileEvent*, int> nodes_in_run;
  for (const ProfileEvent& event : events) {
    if (event.category != "Node") continue;
    int owners = 0;
    for (const ProfileEvent* run : runs_by_thread[event.thread_id]) {
      if (event.start_ns >= run->start_ns && event.end_ns <= run->end_ns) {
        ++nodes_in_run[run];
        ++owners;
      }
    }
    EXPECT_EQ(owners, 1) << event.name;
  }
  for (const auto& [thread, runs] : runs_by_thread) {
    EXPECT_EQ(runs.size(), static_cast<size_t>(kRuns));
    for (const ProfileEvent* run : runs) EXPECT_EQ(nodes_in_run[run], kChainLength);
  }
}

TEST(ProfilerTest, EndProfilingWritesATimestampedTraceOnce) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / MakeString("prism_profiler_test_", ::getpid());
  std::filesystem::create_directories(folder);
  auto session = ProfiledSession((folder / "trace").string());
  session->Run({}, {"x"}, {Input()}, {});
  const std::string path = session->EndProfiling();
  EXPECT_TRUE(std::regex_match(
      path, std::regex(".*/trace_[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}\\.json")))
      << path;
  const std::string text = ReadFile(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.front(), '[');
  EXPECT_EQ(text.substr(text.size() - 2), "]\n");
  EXPECT_EQ(Count(text, "\"cat\":\"Node\""), static_cast<size_t>(kChainLength));
  EXPECT_EQ(Count(text, "\"name\":\"model_run\""), 1u);
  EXPECT_EQ(Count(text, "\"name\":\"model_loading_array\""), 1u);
  EXPECT_EQ(Count(text, "\"name\":\"session_initialization\""), 1u);
  EXPECT_NE(text.find("\"input_type_shape\":[{\"float\":[1024,1024]},{\"float\":[]}]"),
            std::string::npos);
  // Profiling has ended: later runs record nothing and a second call writes nothing.
  session->Run({}, {"x"}, {Input()}, {});
  EXPECT_EQ(session->EndProfiling(), "");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace prism
