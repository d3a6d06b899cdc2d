// TensorProto bytes -> tensor: every element type and encoding (raw_data, typed fields,
// strings), the size checks before allocating, external data (confined to a scratch model
// folder that holds a small data file, a sub-folder and a symbolic link leading out of it), and
// the round trip through TensorToProto, which must give back the same tensor. The same bytes
// read as a SparseTensorProto are densified. tensor_proto.dict names the external data keys
// and files, which mutation alone rarely spells.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <onnx/onnx_pb.h>

#include "fuzz_target.h"
#include "graph/sparse_tensor.h"
#include "graph/tensor_proto.h"

namespace prism::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxTensorBytes = size_t{16} << 20;

// <tmp>/prism-tensor-fuzz-<pid>/{model/{data.bin, sub/data.bin, link -> ../outside.bin},
// outside.bin}; removed at exit.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    root_ = fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
            ("prism-tensor-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "model" / "sub");
    Write(root_ / "model" / "data.bin", 4096);
    Write(root_ / "model" / "sub" / "data.bin", 64);
    Write(root_ / "outside.bin", 4096);
    std::error_code ignored;
    fs::create_symlink("../outside.bin", root_ / "model" / "link", ignored);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  std::string ModelDirectory() const { return (root_ / "model").string(); }

 private:
  static void Write(const fs::path& path, size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    for (size_t i = 0; i < bytes; ++i) out.put(static_cast<char>(i * 37 + 11));
  }
  fs::path root_;
};

[[noreturn]] void Finding(const std::string& message) {
  std::fprintf(stderr, "tensor_proto_fuzzer: %s\n", message.c_str());
  std::abort();
}

// Invariants of every decoded tensor: bool elements are 0 or 1 (anything else is undefined
// behaviour for every kernel that reads them).
void CheckTensor(const Tensor& tensor) {
  if (tensor.Type() == ElementType::kBool) {
    const auto* bytes = static_cast<const uint8_t*>(tensor.RawData());
    for (int64_t i = 0; i < tensor.NumElements(); ++i)
      if (bytes[i] > 1)
        Finding(MakeString("a decoded bool tensor holds byte ", int{bytes[i]}, " at ", i));
  }
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.Type() != b.Type() || a.Shape() != b.Shape()) return false;
  if (a.Type() == ElementType::kString) {
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (a.Data<std::string>()[i] != b.Data<std::string>()[i]) return false;
    return true;
  }
  return a.SizeInBytes() == 0 || std::memcmp(a.RawData(), b.RawData(), a.SizeInBytes()) == 0;
}

void DecodeTensor(const uint8_t* data, size_t size, const ExternalDataPolicy& policy) {
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return;
  Tensor tensor;
  try {
    tensor = TensorFromProto(proto, policy, "fuzzed tensor");
  } catch (const Exception&) {
    return;
  }
  CheckTensor(tensor);
  onnx::TensorProto written;
  TensorToProto(tensor, "round_trip", &written);
  Tensor again;
  try {
    again = TensorFromProto(written, ExternalDataPolicy{}, "written tensor");
  } catch (const Exception& e) {
    Finding(MakeString("TensorToProto wrote a tensor TensorFromProto refuses: ", e.what()));
  }
  if (!SameTensor(tensor, again))
    Finding(MakeString("the round trip changed ", tensor.Describe(), " into ", again.Describe()));
  // The loader's path: the tensor takes the proto's raw_data bytes over instead of copying.
  if (proto.has_raw_data()) {
    Tensor taken = TensorFromProto(proto, policy, "fuzzed tensor", proto.mutable_raw_data());
    if (!SameTensor(tensor, taken))
      Finding(MakeString("taking raw_data over gave ", taken.Describe(), ", copying it ",
                         tensor.Describe()));
  }
}

void DensifySparse(const uint8_t* data, size_t size, const ExternalDataPolicy& policy) {
  onnx::SparseTensorProto sparse;
  if (!sparse.ParseFromArray(data, static_cast<int>(size))) return;
  try {
    CheckTensor(DensifySparseTensor(sparse, policy, "fuzzed sparse tensor"));
  } catch (const Exception&) {
  }
}

}  // namespace
}  // namespace prism::fuzz

PRISM_FUZZ_TARGET(tensor_proto) {
  using namespace prism;
  using namespace prism::fuzz;
  static ScratchFolder folder;
  if (size > (size_t{1} << 30)) return 0;
  const ExternalDataPolicy policy{folder.ModelDirectory(), kMaxTensorBytes};
  DecodeTensor(data, size, policy);
  DensifySparse(data, size, policy);
  return 0;
}
