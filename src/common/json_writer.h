// A minimal streaming JSON writer (reports, benchmark summaries, profiles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prism {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(const std::string& key);
  JsonWriter& String(const std::string& value);
  JsonWriter& Number(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  const std::string& Text() const { return text_; }

  static std::string Escape(const std::string& value);

 private:
  void BeforeValue();
  std::string text_;
  std::vector<bool> first_in_scope_;
  bool after_key_ = false;
};

}  // namespace prism
