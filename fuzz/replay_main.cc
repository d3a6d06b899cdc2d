// prism_fuzz_replay TARGET PATH...: runs each file (or each file of each folder, in name order)
// once through the fuzz target TARGET, as libFuzzer runs a crash input, without libFuzzer. CTest
// runs it on fuzz/regressions/<target>/ in every build, so an input that once crashed a target
// keeps being run by the normal (gcc) build; a crash fails the test.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace prism::fuzz {

namespace {

std::map<std::string, TargetFunction>& Targets() {
  static std::map<std::string, TargetFunction> targets;
  return targets;
}

}  // namespace

bool RegisterTarget(const char* name, TargetFunction function) {
  Targets()[name] = function;
  return true;
}

}  // namespace prism::fuzz

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const auto& targets = prism::fuzz::Targets();
  auto target = argc >= 2 ? targets.find(argv[1]) : targets.end();
  if (argc < 3 || target == targets.end()) {
    std::fprintf(stderr, "usage: %s TARGET FILE-OR-FOLDER...\ntargets:", argv[0]);
    for (const auto& [name, function] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    const fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(path))
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
          found.push_back(entry.path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "%s: no such file or folder\n", path.c_str());
      return 2;
    }
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("%s %s (%zu bytes)\n", argv[1], file.c_str(), bytes.size());
    std::fflush(stdout);
    target->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs ran\n", argv[1], files.size());
  return 0;
}
