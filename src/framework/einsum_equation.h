// The parsed form of an Einsum equation, shared by the CPU kernel and shape inference.
// Every dimension of every operand gets a label: letters are 0..51 in ASCII order ('A'..'Z'
// then 'a'..'z', the order of the implicit output), and the dimensions an ellipsis stands for
// are 52 + k (every ellipsis stands for the same number of dims, as the spec requires; their
// sizes broadcast).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prism {

struct EinsumEquation {
  static constexpr int kLetterCount = 52;

  std::vector<std::vector<int>> inputs;  // one label per dimension of each input
  std::vector<int> output;               // one label per output dimension, no repeats
  int ellipsis_rank = 0;                 // dimensions the broadcast ellipsis stands for

  int LabelCount() const { return kLetterCount + ellipsis_rank; }
  // How many of the inputs' dimensions carry the label (2 for both i's of "ii").
  int Occurrences(int label) const;
};

// Parses `equation` for inputs of the given ranks (spaces are ignored). In implicit mode the
// output is the ellipsis dimensions followed by the letters used exactly once, sorted. Throws
// kInvalidArgument, prefixed with `where`, for a malformed equation, a term that does not match
// its input's rank, or an output letter no input has, as numpy's einsum refuses them.
EinsumEquation ParseEinsumEquation(const std::string& equation,
                                   const std::vector<int64_t>& input_ranks,
                                   const std::string& where);

}  // namespace prism
