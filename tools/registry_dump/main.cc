// prism_registry_dump: prints every kernel registration of the CPU execution provider as JSON,
// so that scripts (tests/coverage/check_type_coverage.py) can compare it with the ONNX spec.
//
// Output: {"provider": "CPUExecutionProvider", "kernel_count": N, "kernels": [ ... ]} with one
// registration per line, each
//   {"op", "domain", "since_version", "end_version" (null when open-ended), "version_range",
//    "constraints": [{"name", "types": ["tensor(float)", ...], "allow_tensor", "allow_sequence",
//                     "allow_optional", "type_strs": [every matching ONNX type string],
//                     "inputs", "outputs"}],
//    "cpu_inputs", "cpu_outputs"}
// Variadic input bindings (kVariadicFrom(i)) are written as the string "i...".
#include <climits>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "framework/kernel_registry.h"
#include "providers/cpu/cpu_execution_provider.h"

namespace prism {
namespace {

void Usage(std::ostream& out) {
  out << "usage: prism_registry_dump [--output FILE] [--op NAME]\n"
         "  Prints every CPU kernel registration as JSON (one registration per line).\n"
         "  --output FILE  write to FILE instead of stdout\n"
         "  --op NAME      only registrations of this op type (repeatable)\n";
}

std::string TensorTypeString(ElementType type) {
  return std::string("tensor(") + ElementTypeName(type) + ")";
}

// Every ONNX type string the constraint matches, in the spec's spelling ("map(string, int64)",
// "seq(map(int64, float))" for the map constraints).
std::vector<std::string> MatchedTypeStrings(const TypeConstraint& constraint) {
  std::vector<std::string> out;
  for (const auto& [key, value] : constraint.maps) {
    const std::string map =
        std::string("map(") + ElementTypeName(key) + ", " + ElementTypeName(value) + ")";
    out.push_back(constraint.maps_in_sequence ? "seq(" + map + ")" : map);
  }
  for (ElementType type : constraint.allowed) {
    const std::string tensor = TensorTypeString(type);
    const std::string sequence = "seq(" + tensor + ")";
    if (constraint.allow_tensor) out.push_back(tensor);
    if (constraint.allow_sequence) out.push_back(sequence);
    if (constraint.allow_optional) {
      if (constraint.allow_tensor) out.push_back("optional(" + tensor + ")");
      if (constraint.allow_sequence) out.push_back("optional(" + sequence + ")");
    }
  }
  return out;
}

void WriteIndices(JsonWriter& json, const std::vector<int>& indices) {
  json.BeginArray();
  for (int index : indices) {
    // kVariadicFrom(i) == -1 - i: "i..." reads as "input i and every later one".
    if (index < 0) {
      json.String(std::to_string(-1 - index) + "...");
    } else {
      json.Int(index);
    }
  }
  json.EndArray();
}

std::string KernelJson(const KernelDef& def) {
  JsonWriter json;
  json.BeginObject();
  json.Key("op").String(def.op_type);
  json.Key("domain").String(def.domain);
  json.Key("since_version").Int(def.since_version);
  json.Key("end_version");
  if (def.end_version == INT_MAX) {
    json.String("");  // replaced by null below: JsonWriter has no Null()
  } else {
    json.Int(def.end_version);
  }
  json.Key("version_range").String(def.VersionRange());
  json.Key("constraints").BeginArray();
  for (const TypeConstraint& constraint : def.constraints) {
    json.BeginObject();
    json.Key("name").String(constraint.name);
    json.Key("types").BeginArray();
    for (ElementType type : constraint.allowed) json.String(TensorTypeString(type));
    json.EndArray();
    json.Key("allow_tensor").Bool(constraint.allow_tensor);
    json.Key("allow_sequence").Bool(constraint.allow_sequence);
    json.Key("allow_optional").Bool(constraint.allow_optional);
    json.Key("type_strs").BeginArray();
    for (const std::string& type : MatchedTypeStrings(constraint)) json.String(type);
    json.EndArray();
    json.Key("inputs");
    WriteIndices(json, constraint.inputs);
    json.Key("outputs");
    WriteIndices(json, constraint.outputs);
    json.EndObject();
  }
  json.EndArray();
  json.Key("cpu_inputs");
  WriteIndices(json, std::vector<int>(def.cpu_inputs.begin(), def.cpu_inputs.end()));
  json.Key("cpu_outputs");
  WriteIndices(json, std::vector<int>(def.cpu_outputs.begin(), def.cpu_outputs.end()));
  json.EndObject();
  std::string text = json.Text();
  if (def.end_version == INT_MAX) {
    const std::string placeholder = "\"end_version\":\"\"";
    text.replace(text.find(placeholder), placeholder.size(), "\"end_version\":null");
  }
  return text;
}

int Main(int argc, char** argv) {
  std::string output_path;
  std::set<std::string> ops;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      Usage(std::cout);
      return 0;
    }
    if ((arg == "--output" || arg == "-o") && i + 1 < argc) {
      output_path = argv[++i];
      continue;
    }
    if (arg == "--op" && i + 1 < argc) {
      ops.insert(argv[++i]);
      continue;
    }
    std::cerr << "prism_registry_dump: unknown or incomplete argument '" << arg << "'\n";
    Usage(std::cerr);
    return 2;
  }

  const std::vector<const KernelCreateInfo*> kernels =
      CpuExecutionProvider::SharedRegistry()->All();
  std::vector<std::string> lines;
  for (const KernelCreateInfo* info : kernels) {
    if (!ops.empty() && !ops.count(info->def.op_type)) continue;
    lines.push_back(KernelJson(info->def));
  }
  std::string text = "{\"provider\":" + JsonWriter::Escape("CPUExecutionProvider") +
                     ",\"kernel_count\":" + std::to_string(lines.size()) + ",\"kernels\":[\n";
  for (size_t i = 0; i < lines.size(); ++i)
    text += lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
  text += "]}\n";

  if (output_path.empty()) {
    std::cout << text;
    return std::cout.good() ? 0 : 1;
  }
  std::ofstream out(output_path, std::ios::binary);
  out << text;
  if (!out.good()) {
    std::cerr << "prism_registry_dump: cannot write " << output_path << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace prism

int main(int argc, char** argv) {
  try {
    return prism::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "prism_registry_dump: " << e.what() << "\n";
    return 1;
  }
}
