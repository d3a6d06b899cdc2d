#include "session/profiler.h"

#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>

#include "common/json_writer.h"
#include "common/logging.h"
#include "framework/value.h"

namespace prism {
namespace {

// Microseconds, rounded; ts and dur both come from rounded end points so that events nest
// exactly as they did in time.
int64_t RoundedMicroseconds(int64_t nanoseconds) {
  return static_cast<int64_t>(std::llround(static_cast<double>(nanoseconds) / 1000.0));
}

void WriteTypeShapes(JsonWriter& json, const std::vector<ProfileTypeShape>& values) {
  json.BeginArray();
  for (const ProfileTypeShape& value : values) {
    json.BeginObject().Key(value.type).BeginArray();
    for (int64_t dim : value.dims) json.Int(dim);
    json.EndArray().EndObject();
  }
  json.EndArray();
}

std::string EventJson(const ProfileEvent& event, int pid) {
  const int64_t ts = RoundedMicroseconds(event.start_ns);
  const int64_t dur = RoundedMicroseconds(event.end_ns) - ts;
  JsonWriter json;
  json.BeginObject();
  json.Key("cat").String(event.category);
  json.Key("pid").Int(pid);
  json.Key("tid").Int(event.thread_id);
  json.Key("dur").Int(dur < 0 ? 0 : dur);
  json.Key("ts").Int(ts);
  json.Key("ph").String("X");
  json.Key("name").String(event.name);
  json.Key("args").BeginObject();
  if (event.category == "Node") {
    json.Key("op_name").String(event.op_name);
    json.Key("provider").String(event.provider);
    json.Key("input_type_shape");
    WriteTypeShapes(json, event.inputs);
    json.Key("output_type_shape");
    WriteTypeShapes(json, event.outputs);
  }
  for (const auto& [key, value] : event.string_args) json.Key(key).String(value);
  for (const auto& [key, value] : event.int_args) json.Key(key).Int(value);
  json.EndObject();
  json.EndObject();
  return json.Text();
}

}  // namespace

Profiler::Profiler() : start_(Clock::now()), start_wall_(std::chrono::system_clock::now()) {}

int64_t Profiler::NanosecondsSinceStart(Clock::time_point time) const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time - start_).count();
}

void Profiler::Record(ProfileEvent event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!Enabled()) return;
  if (events_.size() >= kMaxEvents) {
    ++dropped_;
    return;
  }
  events_.push_back(std::move(event));
}

void Profiler::RecordSession(const std::string& name, Clock::time_point start,
                             Clock::time_point end,
                             std::vector<std::pair<std::string, std::string>> string_args,
                             std::vector<std::pair<std::string, int64_t>> int_args) {
  ProfileEvent event;
  event.category = "Session";
  event.name = name;
  event.start_ns = NanosecondsSinceStart(start);
  event.end_ns = NanosecondsSinceStart(end);
  event.thread_id = CurrentThreadId();
  event.string_args = std::move(string_args);
  event.int_args = std::move(int_args);
  Record(std::move(event));
}

std::vector<ProfileEvent> Profiler::Events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

size_t Profiler::DroppedEvents() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

std::string Profiler::ToJson() const {
  const int pid = static_cast<int>(getpid());
  std::lock_guard<std::mutex> lock(mutex_);
  std::string text = "[\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    text += EventJson(events_[i], pid);
    text += i + 1 < events_.size() ? ",\n" : "\n";
  }
  text += "]\n";
  return text;
}

void Profiler::EndAndWrite(const std::string& path) {
  enabled_.store(false);
  const std::string text = ToJson();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  PRISM_ENFORCE(file.is_open(), kFail, "cannot write the profile to '", path, "'");
  file << text;
  file.close();
  PRISM_ENFORCE(!file.fail(), kFail, "writing the profile to '", path, "' failed");
  std::lock_guard<std::mutex> lock(mutex_);
  if (dropped_ > 0)
    PRISM_LOG(kWarning, "profiler: ", dropped_, " events past the first ", kMaxEvents,
              " were dropped");
  events_.clear();
  events_.shrink_to_fit();
}

std::string Profiler::DefaultPath(const std::string& prefix) const {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(start_wall_);
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", &local);
  return prefix + "_" + stamp + ".json";
}

int Profiler::CurrentThreadId() {
  static std::atomic<int> next{1};
  thread_local const int id = next.fetch_add(1);
  return id;
}

ProfileTypeShape Profiler::DescribeValue(const Value& value) {
  ProfileTypeShape result;
  if (value.IsTensor()) {
    const Tensor& tensor = value.GetTensor();
    result.type = ElementTypeName(tensor.Type());
    result.dims = tensor.Shape().Dims();
  } else if (value.IsMapSequence()) {
    const MapSequence& sequence = value.GetMapSequence();
    result.type = value.Type().ToString();
    result.dims = {static_cast<int64_t>(sequence.maps.size())};
  } else if (value.IsMap()) {
    result.type = value.Type().ToString();
    result.dims = {value.GetMap().Size()};
  } else if (value.IsSequence()) {
    const TensorSequence& sequence = value.GetSequence();
    result.type = MakeString("seq(", ElementTypeName(sequence.elem_type), ")");
    result.dims = {static_cast<int64_t>(sequence.tensors.size())};
  }
  return result;
}

}  // namespace prism
