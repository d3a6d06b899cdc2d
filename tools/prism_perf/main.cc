// prism_perf: how fast is a model here, and where does each node run?
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/status.h"
#include "input_generator.h"
#include "latency_stats.h"
#include "perf_options.h"
#include "session/inference_session.h"
#include "common/json_writer.h"

namespace prism::perf {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double PeakResidentMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::string FormatValues(const Value& value) {
  if (!value.IsTensor()) return value.Describe();
  const Tensor& tensor = value.GetTensor();
  std::string text = tensor.Describe() + ":";
  const int64_t shown = std::min<int64_t>(tensor.NumElements(), 5);
  for (int64_t i = 0; i < shown; ++i) {
    char buffer[64];
    switch (tensor.Type()) {
      case ElementType::kFloat:
        std::snprintf(buffer, sizeof(buffer), " %.6g", tensor.Data<float>()[i]);
        break;
      case ElementType::kDouble:
        std::snprintf(buffer, sizeof(buffer), " %.6g", tensor.Data<double>()[i]);
        break;
      case ElementType::kInt64:
        std::snprintf(buffer, sizeof(buffer), " %lld",
                      static_cast<long long>(tensor.Data<int64_t>()[i]));
        break;
      case ElementType::kInt32:
        std::snprintf(buffer, sizeof(buffer), " %d", tensor.Data<int32_t>()[i]);
        break;
      default:
        std::snprintf(buffer, sizeof(buffer), " ?");
    }
    text += buffer;
  }
  if (tensor.NumElements() > shown) text += " ...";
  return text;
}

void PrintProgress(int done, int total) {
  if (!isatty(fileno(stderr)) || total <= 0) return;
  const int width = 40;
  const int filled = done * width / total;
  std::fprintf(stderr, "\r[%s%s] %d/%d", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), done, total);
  if (done == total) std::fprintf(stderr, "\r%s\r", std::string(width + 24, ' ').c_str());
  std::fflush(stderr);
}

int Main(int argc, char** argv) {
  PerfOptions options = ParsePerfOptions(argc, argv);
  if (options.show_help) {
    std::cout << PerfUsage();
    return 0;
  }
  if (options.intra_op_threads > 0 || options.inter_op_threads > 0)
    std::cout << "note: -x/-y thread counts are accepted but have no effect yet "
                 "(kernels are single-threaded, the executor is sequential)\n";
  if (options.optimization_level_given && options.optimization_level != 0)
    std::cout << "note: -o " << options.optimization_level
              << " is accepted but has no effect yet (no graph optimizer exists)\n";

  SessionOptions session_options;
  session_options.intra_op_num_threads = options.intra_op_threads;
  session_options.inter_op_num_threads = options.inter_op_threads;
  session_options.graph_optimization_level =
      static_cast<GraphOptimizationLevel>(options.optimization_level);
  const auto create_start = Clock::now();
  InferenceSession session(session_options, options.providers);
  session.Load(options.model_path);
  const double create_ms = MillisecondsSince(create_start);

  GeneratedInputs inputs = GenerateInputs(session.Inputs(), options.free_dims, options.seed);
  for (const std::string& note : inputs.notes) std::cout << "note: " << note << "\n";

  RunOptions run_options;
  const auto first_start = Clock::now();
  std::vector<Value> outputs = session.Run(run_options, inputs.names, inputs.values, {});
  const double first_ms = MillisecondsSince(first_start);
  for (int i = 0; i < options.warmup_runs; ++i)
    session.Run(run_options, inputs.names, inputs.values, {});

  std::vector<double> samples;
  std::mutex samples_mutex;
  const auto bench_start = Clock::now();
  auto worker = [&](int runs, bool progress) {
    for (int r = 0; options.seconds > 0 ? MillisecondsSince(bench_start) < options.seconds * 1000
                                        : r < runs;
         ++r) {
      const auto start = Clock::now();
      session.Run(run_options, inputs.names, inputs.values, {});
      const double ms = MillisecondsSince(start);
      std::lock_guard<std::mutex> lock(samples_mutex);
      samples.push_back(ms);
      if (progress && options.seconds <= 0) PrintProgress(r + 1, runs);
    }
  };
  if (options.concurrent <= 1) {
    worker(options.runs, true);
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < options.concurrent; ++t) threads.emplace_back(worker, options.runs, t == 0);
    for (auto& thread : threads) thread.join();
  }
  const double total_ms = MillisecondsSince(bench_start);
  const LatencyStats stats = ComputeLatencyStats(samples);
  const double throughput = static_cast<double>(samples.size()) / (total_ms / 1000.0);

  const PartitionReport& report = session.Report();
  const Graph& graph = session.GetModel().MainGraph();
  std::cout << "Model: " << options.model_path << " (" << graph.NodeCount() << " nodes)\n";
  std::cout << "Providers:";
  for (const std::string& name : session.Providers()) std::cout << " " << name;
  std::cout << "\nInputs:\n";
  for (size_t i = 0; i < inputs.names.size(); ++i)
    std::cout << "  " << inputs.names[i] << ": " << inputs.values[i].Describe() << "\n";
  std::cout << "Outputs:\n";
  const std::vector<ValueInfo> output_infos = session.Outputs();
  for (size_t i = 0; i < outputs.size(); ++i)
    std::cout << "  " << output_infos[i].name << ": " << FormatValues(outputs[i]) << "\n";
  std::printf("Session creation: %.2f ms\nFirst run: %.3f ms\n", create_ms, first_ms);
  std::printf("Runs: %d (warm-up %d, concurrent %d)\n", stats.count, options.warmup_runs,
              options.concurrent);
  std::printf("Latency (ms): median %.3f  p90 %.3f  p95 %.3f  p99 %.3f  min %.3f  max %.3f\n",
              stats.median_ms, stats.p90_ms, stats.p95_ms, stats.p99_ms, stats.min_ms, stats.max_ms);
  std::printf("Throughput: %.1f runs/s\n", throughput);
  std::printf("Peak resident memory: %.1f MiB\n", PeakResidentMegabytes());
  std::cout << "Partition:\n";
  for (const auto& [provider, count] : report.NodesPerProvider())
    std::cout << "  " << provider << ": " << count << " nodes\n";
  std::cout << "  copy nodes: " << report.copies.size() << "\n";

  if (!options.json_path.empty()) {
    JsonWriter json;
    json.BeginObject();
    json.Key("model").String(options.model_path);
    json.Key("nodes").Int(static_cast<int64_t>(graph.NodeCount()));
    json.Key("providers").BeginArray();
    for (const std::string& name : session.Providers()) json.String(name);
    json.EndArray();
    json.Key("session_creation_ms").Number(create_ms);
    json.Key("first_run_ms").Number(first_ms);
    json.Key("runs").Int(stats.count);
    json.Key("warmup_runs").Int(options.warmup_runs);
    json.Key("concurrent").Int(options.concurrent);
    json.Key("latency_ms").BeginObject();
    json.Key("median").Number(stats.median_ms).Key("p90").Number(stats.p90_ms);
    json.Key("p95").Number(stats.p95_ms).Key("p99").Number(stats.p99_ms);
    json.Key("min").Number(stats.min_ms).Key("max").Number(stats.max_ms);
    json.Key("mean").Number(stats.mean_ms);
    json.EndObject();
    json.Key("throughput_runs_per_s").Number(throughput);
    json.Key("peak_rss_mib").Number(PeakResidentMegabytes());
    json.Key("partition").BeginObject();
    json.Key("nodes_per_provider").BeginObject();
    for (const auto& [provider, count] : report.NodesPerProvider()) json.Key(provider).Int(count);
    json.EndObject();
    json.Key("copy_nodes").Int(static_cast<int64_t>(report.copies.size()));
    json.EndObject();
    json.EndObject();
    std::ofstream file(options.json_path);
    PRISM_ENFORCE(file.is_open(), kInvalidArgument, "cannot write --json file '", options.json_path, "'");
    file << json.Text() << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace prism::perf

int main(int argc, char** argv) {
  try {
    return prism::perf::Main(argc, argv);
  } catch (const prism::Exception& e) {
    std::cerr << "prism_perf: error: " << e.what() << "\n";
    return e.Code() == prism::StatusCode::kInvalidArgument ? 2 : 1;
  } catch (const std::exception& e) {
    std::cerr << "prism_perf: error: " << e.what() << "\n";
    return 1;
  }
}
