#include "graph/tensor_proto.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <limits>

#include <onnx/onnx_pb.h>

#include "framework/packed_int.h"
#include "graph/model_adjustments.h"

namespace prism {
namespace {

namespace fs = std::filesystem;

// Number of entries a typed field must hold for count elements of type.
int64_t TypedFieldCount(ElementType type, int64_t count) {
  switch (type) {
    case ElementType::kInt4:
    case ElementType::kUint4:
    case ElementType::kFloat4E2M1:
      return (count + 1) / 2;
    case ElementType::kInt2:
    case ElementType::kUint2:
      return (count + 3) / 4;
    // float6: one code per int32_data entry, unpacked (onnx.helper.make_tensor with raw=False).
    case ElementType::kFloat6E2M3:
    case ElementType::kFloat6E3M2:
      return count;
    // Complex: real and imaginary parts interleaved, two floats/doubles per element.
    case ElementType::kComplex64:
    case ElementType::kComplex128:
      return count * 2;
    default:
      return count;
  }
}

template <typename Dst, typename Field>
void CopyField(const Field& field, void* destination) {
  auto* out = static_cast<Dst*>(destination);
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Dst>(field.Get(i));
}

// bool elements are one byte each and must be 0 or 1: any other byte is undefined behaviour for
// every kernel that reads it as bool, so such data is refused here (raw_data, external data).
void CheckBoolBytes(const void* data, int64_t count, const std::string& what, const char* where) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (int64_t i = 0; i < count; ++i)
    PRISM_ENFORCE(bytes[i] <= 1, kInvalidGraph, what, " holds byte ", int{bytes[i]}, " at element ",
                  i, " of its bool ", where, "; bool elements must be 0 or 1");
}

// Returns the confined, canonical path of an external data file.
fs::path ResolveExternalPath(const std::string& location, const ExternalDataPolicy& policy,
                             const std::string& what) {
  PRISM_ENFORCE(!policy.model_directory.empty(), kInvalidArgument, what,
                " uses external data, but the model was loaded from bytes without a folder: set "
                "session config entry session.model_external_initializers_file_folder_path to "
                "the folder holding its file '",
                location,
                "', or supply the data from memory (AddExternalInitializers, "
                "AddExternalInitializersFromFilesInMemory)");
  const fs::path relative(location);
  PRISM_ENFORCE(!relative.is_absolute(), kInvalidArgument, what, ": external data location '",
                location, "' is an absolute path; it must be relative to the model's folder");
  for (const auto& part : relative)
    PRISM_ENFORCE(part != "..", kInvalidArgument, what, ": external data location '", location,
                  "' leaves the model's folder");
  std::error_code error;
  const fs::path base = fs::canonical(policy.model_directory, error);
  PRISM_ENFORCE(!error, kNoSuchFile, what, ": cannot resolve model folder '",
                policy.model_directory, "'");
  const fs::path full = fs::canonical(base / relative, error);
  PRISM_ENFORCE(!error, kNoSuchFile, what, ": external data file '", location, "' not found in '",
                base.string(), "'");
  const std::string full_text = full.string();
  const std::string base_text = base.string() + "/";
  PRISM_ENFORCE(full_text.compare(0, base_text.size(), base_text) == 0, kInvalidArgument, what,
                ": external data location '", location,
                "' resolves (through a symbolic link) outside the model's folder");
  return full;
}

// The application holds the file: the tensor's range is copied, so the buffer need only live
// until the model is loaded (onnxruntime's contract for files in memory).
Tensor CopyFromFileInMemory(const ExternalFileInMemory& file, const std::string& location,
                            int64_t offset, int64_t length, ElementType type,
                            const TensorShape& shape, const std::string& what) {
  const uint64_t size = file.length;
  PRISM_ENFORCE(static_cast<uint64_t>(offset) <= size &&
                    static_cast<uint64_t>(length) <= size - static_cast<uint64_t>(offset),
                kInvalidGraph, what, ": external data range [", offset, ", ",
                static_cast<uint64_t>(offset) + static_cast<uint64_t>(length),
                ") is beyond the end of the in-memory file '", location, "' (", size, " bytes)");
  Tensor tensor(type, shape, GetCpuAllocator());
  if (length == 0) return tensor;
  const void* data = static_cast<const char*>(file.data) + offset;
  if (type == ElementType::kBool) CheckBoolBytes(data, shape.Size(), what, "external data");
  std::memcpy(tensor.MutableRawData(), data, static_cast<size_t>(length));
  return tensor;
}

Tensor MapExternalData(const onnx::TensorProto& proto, ElementType type, const TensorShape& shape,
                       const ExternalDataPolicy& policy, const std::string& what) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& entry : proto.external_data()) {
    const std::string& key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      char* end = nullptr;
      errno = 0;
      const long long parsed = std::strtoll(entry.value().c_str(), &end, 10);
      PRISM_ENFORCE(
          errno == 0 && end != nullptr && *end == '\0' && parsed >= 0 && !entry.value().empty(),
          kInvalidProtobuf, what, ": external data ", key, " '", entry.value(),
          "' is not a non-negative integer");
      (key == "offset" ? offset : length) = parsed;
    }
  }
  PRISM_ENFORCE(!location.empty(), kInvalidProtobuf, what, " has an empty external data location");
  const size_t expected = StorageBytes(type, shape.Size());
  if (length < 0) length = static_cast<int64_t>(expected);
  PRISM_ENFORCE(static_cast<uint64_t>(length) == expected, kInvalidGraph, what,
                ": external data length ", length, " does not match shape ", shape.ToString(),
                " of ", ElementTypeName(type), " (", expected, " bytes)");
  if (policy.files_in_memory != nullptr) {
    if (const ExternalFileInMemory* file =
            FindExternalFileInMemory(*policy.files_in_memory, location)) {
      return CopyFromFileInMemory(*file, location, offset, length, type, shape, what);
    }
  }
  const fs::path path = ResolveExternalPath(location, policy, what);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  PRISM_ENFORCE(fd >= 0, kNoSuchFile, what, ": cannot open external data file '", path.string(),
                "'");
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    PRISM_THROW(kInvalidArgument, what, ": external data '", path.string(),
                "' is not a regular file");
  }
  const uint64_t file_size = static_cast<uint64_t>(info.st_size);
  if (static_cast<uint64_t>(offset) > file_size ||
      static_cast<uint64_t>(length) > file_size - static_cast<uint64_t>(offset)) {
    ::close(fd);
    // Unsigned sum: offset + length may exceed int64 for hostile values.
    PRISM_THROW(kInvalidGraph, what, ": external data range [", offset, ", ",
                static_cast<uint64_t>(offset) + static_cast<uint64_t>(length),
                ") is beyond the end of '", path.string(), "' (", file_size, " bytes)");
  }
  if (length == 0) {
    ::close(fd);
    return Tensor(type, shape, GetCpuAllocator());
  }
  const int64_t page = ::sysconf(_SC_PAGESIZE);
  const int64_t aligned_offset = offset / page * page;
  const size_t map_length = static_cast<size_t>(length + (offset - aligned_offset));
  void* mapping = ::mmap(nullptr, map_length, PROT_READ, MAP_PRIVATE, fd, aligned_offset);
  ::close(fd);
  PRISM_ENFORCE(mapping != MAP_FAILED, kRuntimeException, what, ": cannot memory-map '",
                path.string(), "'");
  std::shared_ptr<void> owner(mapping, [map_length](void* p) { ::munmap(p, map_length); });
  void* data = static_cast<char*>(mapping) + (offset - aligned_offset);
  if (type == ElementType::kBool) CheckBoolBytes(data, shape.Size(), what, "external data");
  // Mapped read-only: kernels never write inputs, and a write would fault instead of corrupting.
  return Tensor(type, shape, std::move(owner), data, CpuMemoryInfo());
}

}  // namespace

void CheckDeclaredTensorBytes(const ExternalDataPolicy& policy, size_t bytes, ElementType type,
                              const TensorShape& shape, const std::string& what) {
  PRISM_ENFORCE(policy.max_tensor_bytes == 0 || bytes <= policy.max_tensor_bytes, kRuntimeException,
                what, ": shape ", shape.ToString(), " of ", ElementTypeName(type), " needs ", bytes,
                " bytes, more than the limit of ", policy.max_tensor_bytes,
                " bytes per tensor (session.max_tensor_bytes)");
}

Tensor TensorFromProto(const onnx::TensorProto& proto, const ExternalDataPolicy& policy,
                       const std::string& what, std::string* take_raw_data) {
  PRISM_ENFORCE(proto.data_type() != 0, kInvalidGraph, what, " has no data_type");
  PRISM_ENFORCE(IsKnownElementType(proto.data_type()), kInvalidGraph, what,
                " has unknown element type ", proto.data_type());
  const auto type = static_cast<ElementType>(proto.data_type());
  PRISM_ENFORCE(!proto.has_segment(), kNotImplemented, what,
                " uses segments, which are not supported");
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (int64_t d : dims)
    PRISM_ENFORCE(d >= 0, kInvalidGraph, what, " has a negative dimension ", d);
  // Hostile dims: element or byte counts that overflow are invalid graphs naming the tensor.
  TensorShape shape;
  size_t bytes = 0;
  try {
    shape = TensorShape(dims);
    bytes = StorageBytes(type, shape.Size());
  } catch (const Exception& e) {
    PRISM_THROW(kInvalidGraph, what, ": ", e.what());
  }
  CheckDeclaredTensorBytes(policy, bytes, type, shape, what);
  const int64_t count = shape.Size();

  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    PRISM_ENFORCE(type != ElementType::kString, kInvalidGraph, what,
                  ": string tensors cannot use external data");
    return MapExternalData(proto, type, shape, policy, what);
  }

  // Every size check comes before allocating: a tiny model must not make us allocate the
  // (possibly enormous) size its dims declare.
  if (type == ElementType::kString) {
    PRISM_ENFORCE(proto.string_data_size() == count, kInvalidGraph, what, " has ",
                  proto.string_data_size(), " strings for shape ", shape.ToString());
    Tensor tensor(type, shape, GetCpuAllocator());
    auto* out = tensor.MutableData<std::string>();
    for (int64_t i = 0; i < count; ++i) out[i] = proto.string_data(static_cast<int>(i));
    return tensor;
  }

  if (proto.has_raw_data()) {
    PRISM_ENFORCE(proto.raw_data().size() == bytes, kInvalidGraph, what, " has ",
                  proto.raw_data().size(), " bytes of raw_data, but shape ", shape.ToString(),
                  " of ", ElementTypeName(type), " needs ", bytes);
    if (type == ElementType::kBool)
      CheckBoolBytes(proto.raw_data().data(), count, what, "raw_data");
    if (take_raw_data != nullptr && bytes > 0) {
      // The string's heap buffer (malloc: 16-byte aligned, enough for every element type)
      // becomes the tensor's storage.
      auto owner = std::make_shared<std::string>(std::move(*take_raw_data));
      take_raw_data->clear();
      void* data = owner->data();
      return Tensor(type, shape, std::shared_ptr<void>(owner, data), data, CpuMemoryInfo());
    }
    Tensor tensor(type, shape, GetCpuAllocator());
    if (bytes) std::memcpy(tensor.MutableRawData(), proto.raw_data().data(), bytes);
    return tensor;
  }

  const int64_t needed = TypedFieldCount(type, count);
  const char* field = "int32_data";
  int64_t have = proto.int32_data_size();
  switch (type) {
    case ElementType::kFloat:
    case ElementType::kComplex64:
      field = "float_data";
      have = proto.float_data_size();
      break;
    case ElementType::kDouble:
    case ElementType::kComplex128:
      field = "double_data";
      have = proto.double_data_size();
      break;
    case ElementType::kInt64:
      field = "int64_data";
      have = proto.int64_data_size();
      break;
    case ElementType::kUint32:
    case ElementType::kUint64:
      field = "uint64_data";
      have = proto.uint64_data_size();
      break;
    default:
      break;  // every other type uses int32_data
  }
  PRISM_ENFORCE(have == needed, kInvalidGraph, what, " has ", have, " values in ", field,
                ", but shape ", shape.ToString(), " of ", ElementTypeName(type), " needs ", needed);
  Tensor tensor(type, shape, GetCpuAllocator());
  void* out = tensor.MutableRawData();
  switch (type) {
    case ElementType::kFloat:
    case ElementType::kComplex64:
      CopyField<float>(proto.float_data(), out);
      break;
    case ElementType::kDouble:
    case ElementType::kComplex128:
      CopyField<double>(proto.double_data(), out);
      break;
    case ElementType::kInt64:
      CopyField<int64_t>(proto.int64_data(), out);
      break;
    case ElementType::kUint32:
      CopyField<uint32_t>(proto.uint64_data(), out);
      break;
    case ElementType::kUint64:
      CopyField<uint64_t>(proto.uint64_data(), out);
      break;
    case ElementType::kInt32:
      CopyField<int32_t>(proto.int32_data(), out);
      break;
    case ElementType::kInt16:
      CopyField<int16_t>(proto.int32_data(), out);
      break;
    case ElementType::kUint16:
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      CopyField<uint16_t>(proto.int32_data(), out);
      break;
    case ElementType::kInt8:
      CopyField<int8_t>(proto.int32_data(), out);
      break;
    case ElementType::kBool:
      for (int i = 0; i < proto.int32_data_size(); ++i)
        static_cast<bool*>(out)[i] = proto.int32_data(i) != 0;
      break;
    case ElementType::kFloat6E2M3:
    case ElementType::kFloat6E3M2:
      // One code per entry, packed here into the 6-bit stream (the tensor starts zeroed below).
      if (tensor.SizeInBytes() > 0) std::memset(out, 0, tensor.SizeInBytes());
      for (int i = 0; i < proto.int32_data_size(); ++i)
        SetPackedBits(out, i, 6, static_cast<uint8_t>(proto.int32_data(i)));
      break;
    default:  // uint8, float8 variants and packed sub-byte types: one byte per entry
      CopyField<uint8_t>(proto.int32_data(), out);
      break;
  }
  return tensor;
}

void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto) {
  proto->Clear();
  proto->set_name(name);
  proto->set_data_type(static_cast<int32_t>(tensor.Type()));
  for (int64_t d : tensor.Shape().Dims()) proto->add_dims(d);
  if (tensor.Type() == ElementType::kString) {
    const auto* strings = tensor.Data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) proto->add_string_data(strings[i]);
    return;
  }
  proto->set_raw_data(tensor.RawData(), tensor.SizeInBytes());
}

}  // namespace prism
