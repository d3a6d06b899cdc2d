#include "perf_options.h"

#include <sstream>

#include "common/status.h"

namespace prism::perf {

std::optional<int> IntegerAtLeast(const std::string& text, int minimum) {
  try {
    size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == text.size() && value >= minimum && value <= 1000000000)
      return static_cast<int>(value);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

namespace {

int ParseInt(const std::string& option, const std::string& text, int minimum) {
  if (const std::optional<int> value = IntegerAtLeast(text, minimum)) return *value;
  PRISM_THROW(kInvalidArgument, "option ", option, " expects an integer >= ", minimum, ", got '",
              text, "'");
}

double ParseSeconds(const std::string& option, const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  PRISM_THROW(kInvalidArgument, "option ", option, " expects a positive number of seconds, got '",
              text, "'");
}

// "key=value key2=value2" -> map.
ProviderOptions ParseKeyValues(const std::string& text) {
  ProviderOptions options;
  std::istringstream stream(text);
  std::string item;
  while (stream >> item) {
    const size_t eq = item.find('=');
    PRISM_ENFORCE(eq != std::string::npos && eq > 0, kInvalidArgument, "provider option '", item,
                  "' must look like key=value");
    options[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return options;
}

}  // namespace

std::string ProviderNameFromShort(const std::string& name) {
  if (name == "cpu") return "CPUExecutionProvider";
  if (name == "cuda") return "CUDAExecutionProvider";
  if (name == "dnnl") return "DnnlExecutionProvider";
  if (name == "test") return "TestExecutionProvider";
  return name;
}

std::string PerfUsage() {
  return R"(usage: prism_perf -m MODEL [options]
  -m MODEL        the ONNX model to run
  -e EPS          execution providers in priority order, comma-separated:
                  cpu, dnnl, cuda, test, or a full name (default: cpu; CPU is always last)
  -i "k=v ..."    options for the first non-CPU provider of -e, e.g. -e test -i "ops=Add,Relu"
  -x N            intra-op threads (default 0: the physical cores this process may use)
  -y N            inter-op threads (accepted; no effect yet)
  -o LEVEL        graph optimization level 0 (none), 1 (basic), 2 (extended) or 99 (all, the
                  default)
  -D NAMES        graph transformers to disable, comma-separated (disabled_optimizers, e.g.
                  AttentionFusion,MatMulAddFusion)
  -w N            warm-up runs after the first run (default 3)
  -r N            timed runs (default 20)
  -t SECONDS      run for this long instead of -r runs
  --on-request    instead of -r runs: after the warm-up print "ready", then for each line N
                  read from stdin run N timed runs and print "samples_ms T1 ... TN"; the summary
                  follows when stdin ends (for drivers that interleave another runtime's runs)
  -S SEED         seed of the random inputs (default 0)
  -I DIR          read the inputs from DIR/input_0.pb, input_1.pb, ... (ONNX TensorProto files
                  as in the ONNX test layout, in graph input order) instead of random ones
  -f NAME:VALUE   value of a symbolic dim (repeatable; unset symbolic dims are 1)
  -c N            runs in flight at once on one session (default 1); -r counts all of them
  -C "KEY|VALUE"  a session config entry (repeatable), e.g. -C "session.disable_prepacking|1"
  --inputs-on-device
                  place the inputs in the memory of the first EP with device memory before
                  the runs (as IOBinding does): consumers there read them with no copy
  -p FILE         profile every run and write the Chrome trace (Perfetto, chrome://tracing)
  --top N         print the N op types and nodes that took the most time (profiles the runs)
  --explain       print where each node runs and why, and the copies, then exit without running
  --dot FILE      write the partition as Graphviz (render: dot -Tpng FILE -o partition.png)
  --json FILE     write the summary as JSON
  -h, --help      this text
)";
}

PerfOptions ParsePerfOptions(int argc, char** argv) {
  PerfOptions options;
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string provider_options_text;
  std::vector<std::string> provider_names = {"cpu"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> std::string {
      PRISM_ENFORCE(i + 1 < args.size(), kInvalidArgument, "option ", arg, " needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.show_help = true;
    } else if (arg == "-m") {
      options.model_path = value();
    } else if (arg == "-e") {
      provider_names.clear();
      std::stringstream stream(value());
      std::string name;
      while (std::getline(stream, name, ','))
        if (!name.empty()) provider_names.push_back(name);
      PRISM_ENFORCE(!provider_names.empty(), kInvalidArgument, "option -e needs at least one EP");
    } else if (arg == "-i") {
      provider_options_text = value();
    } else if (arg == "-x") {
      options.intra_op_threads = ParseInt(arg, value(), 0);
    } else if (arg == "-y") {
      options.inter_op_threads = ParseInt(arg, value(), 0);
    } else if (arg == "-o") {
      options.optimization_level = ParseInt(arg, value(), 0);
      options.optimization_level_given = true;
      PRISM_ENFORCE(options.optimization_level == 0 || options.optimization_level == 1 ||
                        options.optimization_level == 2 || options.optimization_level == 99,
                    kInvalidArgument, "option -o expects 0, 1, 2 or 99, got ",
                    options.optimization_level);
    } else if (arg == "-D") {
      std::stringstream stream(value());
      std::string name;
      while (std::getline(stream, name, ','))
        if (!name.empty()) options.disabled_optimizers.push_back(name);
    } else if (arg == "-w") {
      options.warmup_runs = ParseInt(arg, value(), 0);
    } else if (arg == "-r") {
      options.runs = ParseInt(arg, value(), 1);
      options.runs_given = true;
    } else if (arg == "-t") {
      options.seconds = ParseSeconds(arg, value());
    } else if (arg == "--on-request") {
      options.on_request = true;
    } else if (arg == "-S") {
      options.seed = static_cast<unsigned>(ParseInt(arg, value(), 0));
    } else if (arg == "-f") {
      const std::string dim = value();
      const size_t colon = dim.rfind(':');
      PRISM_ENFORCE(colon != std::string::npos && colon > 0, kInvalidArgument,
                    "option -f expects NAME:VALUE, got '", dim, "'");
      options.free_dims[dim.substr(0, colon)] = ParseInt("-f", dim.substr(colon + 1), 0);
    } else if (arg == "-c") {
      options.concurrent = ParseInt(arg, value(), 1);
    } else if (arg == "-C") {
      const std::string entry = value();
      const size_t bar = entry.find('|');
      PRISM_ENFORCE(bar != std::string::npos && bar > 0, kInvalidArgument,
                    "option -C expects KEY|VALUE, got '", entry, "'");
      options.config_entries[entry.substr(0, bar)] = entry.substr(bar + 1);
    } else if (arg == "--json") {
      options.json_path = value();
    } else if (arg == "-p") {
      options.profile_path = value();
    } else if (arg == "--top") {
      options.top = ParseInt(arg, value(), 1);
    } else if (arg == "--explain") {
      options.explain = true;
    } else if (arg == "--dot") {
      options.dot_path = value();
    } else if (arg == "--inputs-on-device") {
      options.inputs_on_device = true;
    } else if (arg == "-I") {
      options.input_dir = value();
    } else {
      PRISM_THROW(kInvalidArgument, "unknown option '", arg, "' (see prism_perf --help)");
    }
  }
  if (options.show_help) return options;
  PRISM_ENFORCE(!options.model_path.empty(), kInvalidArgument, "no model given (use -m MODEL)");
  PRISM_ENFORCE(!(options.runs_given && options.seconds > 0), kInvalidArgument,
                "options -r and -t exclude each other: give a run count or a duration");
  PRISM_ENFORCE(!(options.on_request && (options.runs_given || options.seconds > 0)),
                kInvalidArgument,
                "option --on-request excludes -r and -t: the run counts come from stdin");
  PRISM_ENFORCE(!(options.on_request && options.concurrent > 1), kInvalidArgument,
                "option --on-request runs one run at a time: it excludes -c ", options.concurrent);
  bool options_used = provider_options_text.empty();
  for (const std::string& short_name : provider_names) {
    ProviderSpec spec{ProviderNameFromShort(short_name), {}};
    if (!options_used && spec.name != "CPUExecutionProvider") {
      spec.options = ParseKeyValues(provider_options_text);
      options_used = true;
    }
    options.providers.push_back(spec);
  }
  PRISM_ENFORCE(options_used, kInvalidArgument,
                "option -i was given but -e names no provider other than cpu to apply it to");
  return options;
}

}  // namespace prism::perf
