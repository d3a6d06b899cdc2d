#include "framework/einsum_equation.h"

#include <algorithm>

#include "common/status.h"

namespace prism {
namespace {

int LetterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

// One term's letters, and where its ellipsis sits among them (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

Term ParseTerm(const std::string& text, const std::string& where, const std::string& which) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      PRISM_ENFORCE(term.ellipsis_at < 0, kInvalidArgument, where, ": ", which,
                    " of the equation has more than one ellipsis");
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    PRISM_ENFORCE(label >= 0, kInvalidArgument, where, ": ", which, " of the equation holds '",
                  text[i], "'; only letters and '...' may name dimensions");
    term.letters.push_back(label);
  }
  return term;
}

}  // namespace

int EinsumEquation::Occurrences(int label) const {
  int count = 0;
  for (const std::vector<int>& labels : inputs)
    count += static_cast<int>(std::count(labels.begin(), labels.end(), label));
  return count;
}

EinsumEquation ParseEinsumEquation(const std::string& equation,
                                   const std::vector<int64_t>& input_ranks,
                                   const std::string& where) {
  std::string text;
  for (char c : equation)
    if (c != ' ') text.push_back(c);
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    const std::string piece = lhs.substr(start, comma == std::string::npos ? comma : comma - start);
    terms.push_back(ParseTerm(piece, where, "term " + std::to_string(terms.size())));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  PRISM_ENFORCE(terms.size() == input_ranks.size(), kInvalidArgument, where, ": equation '",
                equation, "' has ", terms.size(), " input terms but the node has ",
                input_ranks.size(), " inputs");

  EinsumEquation parsed;
  int ellipsis_term = -1;  // the first term with an ellipsis
  for (size_t t = 0; t < terms.size(); ++t) {
    const int64_t letters = static_cast<int64_t>(terms[t].letters.size());
    const bool has_ellipsis = terms[t].ellipsis_at >= 0;
    PRISM_ENFORCE(has_ellipsis ? input_ranks[t] >= letters : input_ranks[t] == letters,
                  kInvalidArgument, where, ": term ", t, " of equation '", equation, "' names ",
                  letters, has_ellipsis ? " or more" : "", " dimensions but input ", t,
                  " has rank ", input_ranks[t]);
    if (!has_ellipsis) continue;
    // The spec has every ellipsis stand for the same number of dims (numpy would broadcast).
    const int covered = static_cast<int>(input_ranks[t] - letters);
    PRISM_ENFORCE(ellipsis_term < 0 || covered == parsed.ellipsis_rank, kInvalidArgument, where,
                  ": the ellipsis of term ", t, " stands for ", covered,
                  " dimensions but that of term ", ellipsis_term, " for ", parsed.ellipsis_rank,
                  " (every ellipsis must stand for the same number)");
    ellipsis_term = static_cast<int>(t);
    parsed.ellipsis_rank = covered;
  }
  for (size_t t = 0; t < terms.size(); ++t) {
    std::vector<int> labels = terms[t].letters;
    if (terms[t].ellipsis_at >= 0) {
      const int covered = static_cast<int>(input_ranks[t]) - static_cast<int>(labels.size());
      std::vector<int> ellipsis;
      for (int k = parsed.ellipsis_rank - covered; k < parsed.ellipsis_rank; ++k)
        ellipsis.push_back(EinsumEquation::kLetterCount + k);
      labels.insert(labels.begin() + terms[t].ellipsis_at, ellipsis.begin(), ellipsis.end());
    }
    parsed.inputs.push_back(std::move(labels));
  }

  if (arrow == std::string::npos) {
    for (int k = 0; k < parsed.ellipsis_rank; ++k)
      parsed.output.push_back(EinsumEquation::kLetterCount + k);
    for (int label = 0; label < EinsumEquation::kLetterCount; ++label)
      if (parsed.Occurrences(label) == 1) parsed.output.push_back(label);
    return parsed;
  }
  const std::string rhs = text.substr(arrow + 2);
  PRISM_ENFORCE(rhs.find("->") == std::string::npos, kInvalidArgument, where, ": equation '",
                equation, "' has more than one '->'");
  const Term out = ParseTerm(rhs, where, "the output");
  PRISM_ENFORCE(out.ellipsis_at >= 0 || parsed.ellipsis_rank == 0, kInvalidArgument, where,
                ": the inputs' ellipsis stands for ", parsed.ellipsis_rank,
                " dimensions but the output of equation '", equation, "' has no '...'");
  for (size_t i = 0; i <= out.letters.size(); ++i) {
    if (static_cast<int>(i) == out.ellipsis_at)
      for (int k = 0; k < parsed.ellipsis_rank; ++k)
        parsed.output.push_back(EinsumEquation::kLetterCount + k);
    if (i == out.letters.size()) break;
    const int label = out.letters[i];
    const char letter = static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26));
    PRISM_ENFORCE(parsed.Occurrences(label) > 0, kInvalidArgument, where, ": output letter '",
                  letter, "' of equation '", equation, "' appears in no input term");
    PRISM_ENFORCE(std::count(out.letters.begin(), out.letters.end(), label) == 1, kInvalidArgument,
                  where, ": output letter '", letter, "' of equation '", equation,
                  "' appears more than once");
    parsed.output.push_back(label);
  }
  return parsed;
}

}  // namespace prism
