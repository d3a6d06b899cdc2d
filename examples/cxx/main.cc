// Prism C++ API example: loads a model, prints its inputs and outputs, runs it and prints the
// first values of each output. The inputs are zeros, or read from the file given with --input:
// the raw bytes of every input tensor in order (e.g. float32 little-endian), nothing more. An
// optional execution provider (onnxruntime's name, e.g. CUDAExecutionProvider) is tried before
// the CPU one.
//
//   prism_example_cxx MODEL.onnx [PROVIDER] [--input FILE]
//
// Owning objects (Env, SessionOptions, Session, Value, ...) release themselves; failures throw
// prism::Exception.
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <prism/prism_cxx_api.h>

namespace {

// Prints "name type [d0,d1,...]" (symbolic dims by name) and returns the shape to run with:
// unknown dims become 1.
std::vector<int64_t> Describe(const char* what, size_t index, const std::string& name,
                              const prism::TypeInfo& info) {
  std::cout << what << " " << index << ": " << name << " " << info.TypeString();
  std::vector<int64_t> shape;
  prism::ConstTensorTypeAndShapeInfo tensor = info.GetTensorInfo();
  if (tensor && tensor.Rank() >= 0) {
    const std::vector<int64_t> dims = tensor.Shape();
    const std::vector<std::string> symbols = tensor.SymbolicShape();
    std::cout << " [";
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i > 0) std::cout << ",";
      if (dims[i] >= 0)
        std::cout << dims[i];
      else
        std::cout << (symbols[i].empty() ? "?" : symbols[i]);
      shape.push_back(dims[i] >= 0 ? dims[i] : 1);
    }
    std::cout << "]";
  }
  std::cout << "\n";
  return shape;
}

}  // namespace

int main(int argc, char** argv) {
  std::string provider;
  std::string input_path;
  bool bad_usage = argc < 2;
  for (int arg = 2; arg < argc; ++arg) {
    const std::string word = argv[arg];
    if (word == "--input" && arg + 1 < argc && input_path.empty())
      input_path = argv[++arg];
    else if (word[0] != '-' && provider.empty())
      provider = word;
    else
      bad_usage = true;
  }
  if (bad_usage) {
    std::cerr << "usage: " << argv[0] << " MODEL.onnx [PROVIDER] [--input FILE]\n";
    return 2;
  }
  try {
    std::cout << "Prism " << prism::GetVersionString() << "\n";
    prism::Env env(PRISM_LOGGING_WARNING, "example");
    prism::SessionOptions options;
    if (!provider.empty()) options.AppendExecutionProvider(provider);
    prism::Session session(env, argv[1], options);
    // The providers in use: one that is missing was skipped (with a warning).
    std::cout << "providers:";
    for (const std::string& provider : session.GetProviders()) std::cout << " " << provider;
    std::cout << "\n";
    prism::AllocatorWithDefaultOptions allocator;

    std::vector<std::string> input_names = session.GetInputNames();
    std::vector<std::string> output_names = session.GetOutputNames();
    std::vector<prism::Value> inputs;
    std::ifstream input_file;
    if (!input_path.empty()) {
      input_file.open(input_path, std::ios::binary);
      if (!input_file) {
        std::cerr << "cannot open " << input_path << "\n";
        return 1;
      }
    }
    for (size_t i = 0; i < input_names.size(); ++i) {
      prism::TypeInfo info = session.GetInputTypeInfo(i);
      const std::vector<int64_t> shape = Describe("input", i, input_names[i], info);
      prism::ConstTensorTypeAndShapeInfo tensor = info.GetTensorInfo();
      if (!tensor) {
        std::cerr << "input '" << input_names[i] << "' is not a tensor; this example feeds "
                  << "tensors only\n";
        return 1;
      }
      // CPU tensors start zeroed (string tensors empty); the input file fills numeric ones.
      prism::Value input = prism::Value::CreateTensor(allocator, shape, tensor.ElementType());
      if (input_file.is_open()) {
        if (tensor.ElementType() == PRISM_TYPE_STRING) {
          std::cerr << "input '" << input_names[i] << "' holds strings; --input fills numeric "
                    << "tensors only\n";
          return 1;
        }
        const size_t bytes = input.GetTensorSizeInBytes();
        if (!input_file.read(static_cast<char*>(input.GetTensorMutableRawData()),
                             static_cast<std::streamsize>(bytes))) {
          std::cerr << "the input file ends before input '" << input_names[i] << "' (" << bytes
                    << " bytes)\n";
          return 1;
        }
      }
      inputs.push_back(std::move(input));
    }
    if (input_file.is_open() && input_file.peek() != std::ifstream::traits_type::eof()) {
      std::cerr << "the input file is longer than the model's inputs\n";
      return 1;
    }
    for (size_t i = 0; i < output_names.size(); ++i)
      Describe("output", i, output_names[i], session.GetOutputTypeInfo(i));

    std::vector<prism::Value> outputs = session.Run(input_names, inputs, output_names);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].Kind() != PRISM_VALUE_TENSOR) {
        std::cout << "output " << i << " is not a tensor\n";
        continue;
      }
      prism::TensorTypeAndShapeInfo info = outputs[i].GetTensorTypeAndShapeInfo();
      if (info.ElementType() != PRISM_TYPE_FLOAT) {
        std::cout << "output " << i << " has element type " << info.ElementType()
                  << " (not printed)\n";
        continue;
      }
      const float* values = outputs[i].GetTensorData<float>();
      std::cout << "output " << i << " values:";
      for (int64_t k = 0; k < info.ElementCount() && k < 10; ++k) std::cout << " " << values[k];
      std::cout << "\n";
    }
  } catch (const prism::Exception& e) {
    std::cerr << "error " << e.Code() << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
