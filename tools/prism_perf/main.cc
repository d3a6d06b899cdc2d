// prism_perf: how fast is a model here, and where does each node run?
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/json_writer.h"
#include "common/status.h"
#include "explain.h"
#include "input_generator.h"
#include "input_loader.h"
#include "latency_stats.h"
#include "mlas/cpu_isa.h"
#include "perf_options.h"
#include "profile_summary.h"
#include "session/inference_session.h"
#include "session/profiler.h"

namespace prism::perf {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Mebibytes(int64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// One of the session's allocators before and after the timed runs.
struct AllocatorUse {
  NamedAllocatorStats before;
  NamedAllocatorStats after;
  int runs = 0;
  double RequestsPerRun() const {
    return runs > 0 ? static_cast<double>(after.stats.num_allocs - before.stats.num_allocs) / runs
                    : 0.0;
  }
};

std::vector<AllocatorUse> CompareAllocators(const std::vector<NamedAllocatorStats>& before,
                                            const std::vector<NamedAllocatorStats>& after,
                                            int runs) {
  std::vector<AllocatorUse> uses;
  for (const NamedAllocatorStats& now : after) {
    AllocatorUse use;
    use.after = now;
    use.runs = runs;
    use.before.memory = now.memory;
    for (const NamedAllocatorStats& then : before)
      if (then.memory == now.memory) use.before = then;
    uses.push_back(std::move(use));
  }
  return uses;
}

// This process's peak resident memory: VmHWM, the high-water mark of its own address space.
// (getrusage's ru_maxrss survives exec on Linux: launched from a big parent, such as a Python
// test, it reports the parent's peak instead.)
// A line "<key>: <n> kB" of /proc/self/status in MiB (VmHWM: the peak, VmRSS: now); -1 when absent.
double StatusMegabytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) / 1024.0;
  return -1;
}

double PeakResidentMegabytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // in kB
  }
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

// A progress bar on a terminal only, so piped output and logs stay clean.
void PrintProgress(double fraction, const std::string& label) {
  static const bool terminal = isatty(fileno(stderr));
  if (!terminal) return;
  const int width = 40;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width);
  std::fprintf(stderr, "\r[%s%s] %s", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), label.c_str());
  if (fraction >= 1.0) std::fprintf(stderr, "\r%s\r", std::string(width + 40, ' ').c_str());
  std::fflush(stderr);
}

std::string Describe(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

struct Timings {
  double create_ms = 0;
  double first_ms = 0;
  double total_ms = 0;
  std::vector<double> samples;
  LatencyStats stats;
  double throughput = 0;
  RunStatistics copies_before, copies_after;
};

// The timed runs: -r runs in all (or -t seconds), -c of them in flight at once.
void RunTimed(const InferenceSession& session, const PerfOptions& options,
              const GeneratedInputs& inputs, Timings& timings) {
  std::mutex samples_mutex;
  std::atomic<int> next_run{0};
  const auto bench_start = Clock::now();
  auto worker = [&](bool progress) {
    RunOptions run_options;
    for (;;) {
      int index;
      if (options.seconds > 0) {
        if (MillisecondsSince(bench_start) >= options.seconds * 1000) break;
        index = next_run.fetch_add(1);
      } else {
        index = next_run.fetch_add(1);
        if (index >= options.runs) break;
      }
      run_options.run_tag = MakeString("run_", index);
      const auto start = Clock::now();
      session.Run(run_options, inputs.names, inputs.values, {});
      const double ms = MillisecondsSince(start);
      std::lock_guard<std::mutex> lock(samples_mutex);
      timings.samples.push_back(ms);
      if (progress) {
        if (options.seconds > 0)
          PrintProgress(MillisecondsSince(bench_start) / (options.seconds * 1000),
                        std::to_string(timings.samples.size()) + " runs");
        else
          PrintProgress(static_cast<double>(timings.samples.size()) / options.runs,
                        MakeString(timings.samples.size(), "/", options.runs));
      }
    }
  };
  timings.copies_before = session.Statistics();
  if (options.concurrent <= 1) {
    worker(true);
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < options.concurrent; ++t) threads.emplace_back(worker, t == 0);
    for (auto& thread : threads) thread.join();
  }
  PrintProgress(1.0, "");
  timings.total_ms = MillisecondsSince(bench_start);
  timings.copies_after = session.Statistics();
  timings.stats = ComputeLatencyStats(timings.samples);
  timings.throughput = static_cast<double>(timings.samples.size()) / (timings.total_ms / 1000.0);
}

// --on-request: the runs a driver asks for on stdin, one count per line, each answered on stdout
// as soon as it is done, so that the driver can interleave another runtime's runs with ours and
// both see the same machine (a shared machine's speed drifts within seconds).
void RunOnRequest(const InferenceSession& session, const GeneratedInputs& inputs,
                  Timings& timings) {
  timings.copies_before = session.Statistics();
  const auto bench_start = Clock::now();
  std::cout << "ready" << std::endl;
  RunOptions run_options;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) break;
    const std::optional<int> count = IntegerAtLeast(line, 1);
    PRISM_ENFORCE(count.has_value(), kInvalidArgument,
                  "--on-request: expected a run count >= 1 on stdin, got '", line, "'");
    std::string answer = "samples_ms";
    for (int i = 0; i < *count; ++i) {
      run_options.run_tag = MakeString("run_", timings.samples.size());
      const auto start = Clock::now();
      session.Run(run_options, inputs.names, inputs.values, {});
      const double ms = MillisecondsSince(start);
      timings.samples.push_back(ms);
      char text[32];
      std::snprintf(text, sizeof(text), " %.6f", ms);
      answer += text;
    }
    std::cout << answer << std::endl;
  }
  PRISM_ENFORCE(!timings.samples.empty(), kInvalidArgument,
                "--on-request: stdin ended before any run was asked for");
  timings.total_ms = MillisecondsSince(bench_start);
  timings.copies_after = session.Statistics();
  timings.stats = ComputeLatencyStats(timings.samples);
  timings.throughput = static_cast<double>(timings.samples.size()) / (timings.total_ms / 1000.0);
}

void WriteJson(const PerfOptions& options, const InferenceSession& session,
               const GeneratedInputs& inputs, const Timings& timings,
               const std::vector<AllocatorUse>& allocators, const ProfileSummary* top,
               const std::string& profile_file) {
  const PartitionReport& report = session.Report();
  const LatencyStats& stats = timings.stats;
  const double runs = std::max<double>(1.0, static_cast<double>(timings.samples.size()));
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(options.model_path);
  json.Key("nodes").Int(static_cast<int64_t>(report.nodes.size()));
  json.Key("main_graph_nodes")
      .Int(static_cast<int64_t>(session.GetModel().MainGraph().NodeCount()));
  json.Key("intra_op_threads").Int(session.IntraOpThreads());
  json.Key("cpu_isa").String(mlas::IsaName(mlas::ActiveIsa()));
  json.Key("providers").BeginArray();
  for (const std::string& name : session.Providers()) json.String(name);
  json.EndArray();
  json.Key("inputs").BeginArray();
  for (size_t i = 0; i < inputs.names.size(); ++i)
    json.BeginObject()
        .Key("name")
        .String(inputs.names[i])
        .Key("value")
        .String(inputs.values[i].Describe())
        .EndObject();
  json.EndArray();
  json.Key("input_source").String(options.input_dir.empty() ? "random" : options.input_dir);
  json.Key("session_creation_ms").Number(timings.create_ms);
  json.Key("first_run_ms").Number(timings.first_ms);
  json.Key("runs").Int(stats.count);
  json.Key("warmup_runs").Int(options.warmup_runs);
  json.Key("concurrent").Int(options.concurrent);
  json.Key("duration_s").Number(timings.total_ms / 1000.0);
  json.Key("latency_ms").BeginObject();
  json.Key("median").Number(stats.median_ms).Key("p90").Number(stats.p90_ms);
  json.Key("p95").Number(stats.p95_ms).Key("p99").Number(stats.p99_ms);
  json.Key("min").Number(stats.min_ms).Key("max").Number(stats.max_ms);
  json.Key("mean").Number(stats.mean_ms);
  json.EndObject();
  json.Key("samples_ms").BeginArray();
  for (double sample : timings.samples) json.Number(sample);
  json.EndArray();
  json.Key("throughput_runs_per_s").Number(timings.throughput);
  json.Key("peak_rss_mib").Number(PeakResidentMegabytes());
  json.Key("rss_after_runs_mib").Number(StatusMegabytes("VmRSS"));
  const PrepackStatistics prepack = session.Prepacking();
  json.Key("prepacking").BeginObject();
  json.Key("packed_inputs").Int(prepack.packed_inputs);
  json.Key("packed_weights").Int(prepack.packed_weights);
  json.Key("packed_bytes").Int(prepack.packed_bytes);
  json.Key("shared_hits").Int(prepack.shared_hits);
  json.Key("originals_released").Int(prepack.originals_released);
  json.Key("released_bytes").Int(prepack.released_bytes);
  json.EndObject();
  json.Key("allocators").BeginObject();
  for (const AllocatorUse& use : allocators) {
    const AllocatorStats& stats = use.after.stats;
    json.Key(use.after.memory).BeginObject();
    json.Key("arena").Bool(use.after.arena);
    json.Key("requests_per_run").Number(use.RequestsPerRun());
    json.Key("system_allocations_during_timed_runs")
        .Int(stats.num_reserves - use.before.stats.num_reserves);
    json.Key("num_allocs").Int(stats.num_allocs);
    json.Key("num_reserves").Int(stats.num_reserves);
    json.Key("bytes_in_use").Int(stats.bytes_in_use);
    json.Key("max_bytes_in_use").Int(stats.max_bytes_in_use);
    json.Key("max_alloc_size").Int(stats.max_alloc_size);
    json.Key("total_reserved_bytes").Int(stats.total_reserved_bytes);
    json.Key("num_arena_extensions").Int(stats.num_arena_extensions);
    json.Key("num_arena_shrinkages").Int(stats.num_arena_shrinkages);
    json.EndObject();
  }
  json.EndObject();
  json.Key("partition").BeginObject();
  json.Key("nodes_per_provider").BeginObject();
  for (const auto& [provider, count] : report.NodesPerProvider()) json.Key(provider).Int(count);
  json.EndObject();
  json.Key("copy_nodes").Int(static_cast<int64_t>(report.copies.size()));
  int64_t constants_placed_once = 0;
  for (const auto& copy : report.copies) constants_placed_once += copy.per_run ? 0 : 1;
  json.Key("constants_placed_once").Int(constants_placed_once);
  json.Key("copies_per_run")
      .Number(static_cast<double>(timings.copies_after.copies - timings.copies_before.copies) /
              runs);
  json.Key("bytes_copied_per_run")
      .Number(static_cast<double>(timings.copies_after.bytes_copied -
                                  timings.copies_before.bytes_copied) /
              runs);
  json.EndObject();
  if (!profile_file.empty()) json.Key("profile").String(profile_file);
  if (top != nullptr) {
    json.Key("top").BeginObject();
    json.Key("runs").Int(top->runs);
    json.Key("run_total_ms").Number(top->run_total_ms);
    json.Key("node_total_ms").Number(top->node_total_ms);
    for (const auto* list : {&top->op_types, &top->nodes}) {
      json.Key(list == &top->op_types ? "op_types" : "nodes").BeginArray();
      for (size_t i = 0; i < std::min<size_t>(options.top, list->size()); ++i) {
        const TimeEntry& entry = (*list)[i];
        json.BeginObject().Key("name").String(entry.name);
        if (!entry.op_type.empty()) json.Key("op_type").String(entry.op_type);
        if (!entry.provider.empty()) json.Key("provider").String(entry.provider);
        json.Key("total_ms").Number(entry.total_ms).Key("calls").Int(entry.calls).EndObject();
      }
      json.EndArray();
    }
    json.EndObject();
  }
  json.EndObject();
  std::ofstream file(options.json_path);
  PRISM_ENFORCE(file.is_open(), kInvalidArgument, "cannot write --json file '", options.json_path,
                "'");
  file << json.Text() << "\n";
}

int Main(int argc, char** argv) {
  PerfOptions options = ParsePerfOptions(argc, argv);
  if (options.show_help) {
    std::cout << PerfUsage();
    return 0;
  }
  if (options.inter_op_threads > 0)
    std::cout << "note: -y (inter-op threads) is accepted but has no effect yet "
                 "(the executor is sequential)\n";
  const bool profiling = !options.profile_path.empty() || options.top > 0;
  if (options.top > 0 && options.profile_path.empty() && !options.explain)
    std::cout << "note: --top profiles every run; latencies include the profiler's overhead\n";

  SessionOptions session_options;
  session_options.intra_op_num_threads = options.intra_op_threads;
  session_options.inter_op_num_threads = options.inter_op_threads;
  session_options.graph_optimization_level =
      static_cast<GraphOptimizationLevel>(options.optimization_level);
  session_options.disabled_optimizers = options.disabled_optimizers;
  session_options.enable_profiling = profiling && !options.explain;
  // A benchmark of an EP that silently fell back to the CPU would mislead: fail instead.
  session_options.config_entries = options.config_entries;
  session_options.config_entries["session.fail_on_unavailable_provider"] = "1";
  Timings timings;
  const auto create_start = Clock::now();
  InferenceSession session(session_options, options.providers);
  session.Load(options.model_path);
  timings.create_ms = MillisecondsSince(create_start);
  const PartitionReport& report = session.Report();

  if (!options.dot_path.empty()) {
    std::ofstream dot(options.dot_path);
    PRISM_ENFORCE(dot.is_open(), kInvalidArgument, "cannot write --dot file '", options.dot_path,
                  "'");
    dot << report.ToDot();
    std::cout << "Partition graph written to " << options.dot_path << " (render: dot -Tpng "
              << options.dot_path << " -o partition.png)\n";
  }
  if (options.explain) {
    std::cout << "Model: " << options.model_path << "\n"
              << ExplainPartition(report, session.Providers());
    return 0;
  }

  GeneratedInputs inputs =
      options.input_dir.empty()
          ? GenerateInputs(session.Inputs(), options.free_dims, options.seed)
          : LoadInputs(options.input_dir, session.Inputs(), session.OverridableInitializers());
  for (const std::string& note : inputs.notes) std::cout << "note: " << note << "\n";
  std::string inputs_bound_in;
  if (options.inputs_on_device) {
    for (const MemoryInfo& memory : session.ProviderMemories())
      if (!memory.IsCpuAccessible() && inputs_bound_in.empty()) {
        inputs_bound_in = memory.ToString();
        for (Value& value : inputs.values) value = session.CopyToMemory(value, memory);
      }
    PRISM_ENFORCE(!inputs_bound_in.empty(), kInvalidArgument,
                  "--inputs-on-device: none of the session's EPs (", Describe(session.Providers()),
                  ") has device memory");
  }

  RunOptions run_options;
  run_options.run_tag = "first_run";
  const auto first_start = Clock::now();
  std::vector<Value> outputs = session.Run(run_options, inputs.names, inputs.values, {});
  timings.first_ms = MillisecondsSince(first_start);
  for (int i = 0; i < options.warmup_runs; ++i) {
    run_options.run_tag = MakeString("warmup_", i);
    session.Run(run_options, inputs.names, inputs.values, {});
  }
  const std::vector<NamedAllocatorStats> allocators_before = session.AllocatorStatistics();
  if (options.on_request)
    RunOnRequest(session, inputs, timings);
  else
    RunTimed(session, options, inputs, timings);
  const std::vector<AllocatorUse> allocators =
      CompareAllocators(allocators_before, session.AllocatorStatistics(), timings.stats.count);

  std::optional<ProfileSummary> top;
  if (options.top > 0 && session.GetProfiler() != nullptr)
    top = SummarizeProfile(session.GetProfiler()->Events(), "run_");
  std::string profile_file;
  if (!options.profile_path.empty()) profile_file = session.EndProfiling(options.profile_path);

  const LatencyStats& stats = timings.stats;
  std::cout << "Model: " << options.model_path << " (" << report.nodes.size() << " nodes)\n";
  std::cout << "Providers: " << Describe(session.Providers()) << "\n";
  std::cout << "Intra-op threads: " << session.IntraOpThreads() << "\n";
  std::cout << "CPU ISA: " << mlas::IsaName(mlas::ActiveIsa()) << " (PRISM_CPU_ISA overrides)\n";
  std::cout << "Inputs"
            << (options.input_dir.empty() ? MakeString(" (random, seed ", options.seed, ")")
                                          : " (from " + options.input_dir + ")")
            << (inputs_bound_in.empty() ? "" : ", bound in " + inputs_bound_in + " memory")
            << ":\n";
  for (size_t i = 0; i < inputs.names.size(); ++i)
    std::cout << "  " << inputs.names[i] << ": " << inputs.values[i].Describe() << "\n";
  std::cout << "Outputs (first run):\n";
  const std::vector<ValueInfo> output_infos = session.Outputs();
  for (size_t i = 0; i < outputs.size(); ++i)
    std::cout << "  " << output_infos[i].name << ": " << FormatValues(outputs[i]) << "\n";
  std::printf("Session creation: %.2f ms\nFirst run: %.3f ms\n", timings.create_ms,
              timings.first_ms);
  std::printf("Runs: %d timed (after 1 first run and %d warm-up), %d in flight at once\n",
              stats.count, options.warmup_runs, options.concurrent);
  std::printf("Latency (ms): median %.3f  p90 %.3f  p95 %.3f  p99 %.3f  min %.3f  max %.3f\n",
              stats.median_ms, stats.p90_ms, stats.p95_ms, stats.p99_ms, stats.min_ms,
              stats.max_ms);
  std::printf("Throughput: %.2f runs/s\n", timings.throughput);
  std::printf("Peak resident memory: %.1f MiB (%.1f MiB after the runs)\n", PeakResidentMegabytes(),
              StatusMegabytes("VmRSS"));
  const PrepackStatistics prepack = session.Prepacking();
  std::printf(
      "Prepacked weights: %lld kernel inputs, %lld packed forms (%.1f MiB), %lld originals "
      "released (%.1f MiB)\n",
      static_cast<long long>(prepack.packed_inputs), static_cast<long long>(prepack.packed_weights),
      static_cast<double>(prepack.packed_bytes) / (1 << 20),
      static_cast<long long>(prepack.originals_released),
      static_cast<double>(prepack.released_bytes) / (1 << 20));
  std::cout << "Allocators (the session's, per memory):\n";
  for (const AllocatorUse& use : allocators) {
    const AllocatorStats& stats = use.after.stats;
    std::printf(
        "  %s%s: %.1f requests per timed run, %lld system allocations during them; peak in "
        "use %.2f MiB, largest request %.2f MiB, held from the system %.2f MiB\n",
        use.after.memory.c_str(), use.after.arena ? " (arena)" : "", use.RequestsPerRun(),
        static_cast<long long>(stats.num_reserves - use.before.stats.num_reserves),
        Mebibytes(stats.max_bytes_in_use), Mebibytes(stats.max_alloc_size),
        Mebibytes(stats.total_reserved_bytes));
  }
  const double runs = std::max<double>(1.0, static_cast<double>(stats.count));
  std::cout << "Partition:\n";
  for (const auto& [provider, count] : report.NodesPerProvider())
    std::cout << "  " << provider << ": " << count << " nodes\n";
  size_t placed_once = 0;
  for (const auto& copy : report.copies) placed_once += copy.per_run ? 0 : 1;
  std::printf("  copy nodes: %zu (constants placed once at session creation: %zu)\n",
              report.copies.size(), placed_once);
  std::printf(
      "  copies per run: %.1f, bytes copied per run: %.0f\n",
      static_cast<double>(timings.copies_after.copies - timings.copies_before.copies) / runs,
      static_cast<double>(timings.copies_after.bytes_copied - timings.copies_before.bytes_copied) /
          runs);
  if (top) std::cout << FormatTop(*top, static_cast<size_t>(options.top));
  if (!profile_file.empty())
    std::cout << "Profile: " << profile_file << " (" << 1 + options.warmup_runs + stats.count
              << " model_run events: run_tag first_run, warmup_<i>, run_<i>)\n";
  if (!options.json_path.empty())
    WriteJson(options, session, inputs, timings, allocators, top ? &*top : nullptr, profile_file);
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
