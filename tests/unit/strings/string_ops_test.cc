// StringConcat, RegexFullMatch, StringSplit, StringNormalizer and TfIdfVectorizer: corner cases
// with values worked out by hand (the TfIdfVectorizer counts are derived in the comments), every
// element type each op's schema allows, and the errors for what the kernels refuse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using Strings = std::vector<std::string>;

// ---- StringConcat ------------------------------------------------------------------------------

TEST(StringConcatTest, BroadcastsAColumnAgainstARow) {
  OpTester test("StringConcat", 20);
  test.Input<std::string>("X", {2, 1}, {"a", "中"});
  test.Input<std::string>("Y", {3}, {"x", "", "é"});
  test.Output<std::string>("Z", {2, 3}, {"ax", "a", "aé", "中x", "中", "中é"});
  test.Run();
}

TEST(StringConcatTest, ScalarWithEmptyTensorGivesEmptyTensor) {
  OpTester test("StringConcat", 20);
  test.Input<std::string>("X", {}, {"s"});
  test.Input<std::string>("Y", {2, 0}, {});
  test.Output<std::string>("Z", {2, 0}, {});
  test.Run();
}

TEST(StringConcatTest, RefusesShapesThatDoNotBroadcast) {
  OpTester test("StringConcat", 20);
  test.Input<std::string>("X", {2}, {"a", "b"});
  test.Input<std::string>("Y", {3}, {"x", "y", "z"});
  test.Output<std::string>("Z", {3}, {"", "", ""});
  test.ExpectFailure("StringConcat node");
}

// ---- RegexFullMatch ----------------------------------------------------------------------------

TEST(RegexFullMatchTest, MatchesWholeStringsOnly) {
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string("a+b*"));
  test.Input<std::string>("X", {2, 3}, {"aab", "ba", "", "aaa", "xaby", "ab"});
  test.Output<bool>("Y", {2, 3}, {true, false, false, true, false, true});
  test.Run();
}

TEST(RegexFullMatchTest, UsesRe2Syntax) {
  // RE2: \w is ASCII only, \pL is any letter, '.' is one UTF-8 character, (?i) folds case.
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string(R"((?i)\w+|\pL\.|ABC)"));
  test.Input<std::string>("X", {5}, {"héllo", "hello", "é中", "中.", "abc"});
  test.Output<bool>("Y", {5}, {false, true, false, true, true});
  test.Run();
}

TEST(RegexFullMatchTest, EmptyPatternMatchesOnlyTheEmptyString) {
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string(""));
  test.Input<std::string>("X", {2}, {"", " "});
  test.Output<bool>("Y", {2}, {true, false});
  test.Run();
}

TEST(RegexFullMatchTest, EmptyInputGivesEmptyOutput) {
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string("x"));
  test.Input<std::string>("X", {0, 4}, {});
  test.Output<bool>("Y", {0, 4}, {});
  test.Run();
}

TEST(RegexFullMatchTest, RefusesAnInvalidPatternNamingIt) {
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string("a(b"));
  test.Input<std::string>("X", {1}, {"ab"});
  test.Output<bool>("Y", {1}, {true});
  test.ExpectFailure("pattern 'a(b' is not a valid RE2 regex: missing )");
}

TEST(RegexFullMatchTest, RefusesPerlBackreferencesRe2DoesNotHave) {
  OpTester test("RegexFullMatch", 20);
  test.Attr("pattern", std::string(R"((a)\1)"));
  test.Input<std::string>("X", {1}, {"aa"});
  test.Output<bool>("Y", {1}, {true});
  test.ExpectFailure("is not a valid RE2 regex");
}

TEST(RegexFullMatchTest, RefusesAMissingPattern) {
  OpTester test("RegexFullMatch", 20);
  test.Input<std::string>("X", {1}, {"a"});
  test.Output<bool>("Y", {1}, {true});
  test.ExpectFailure("attribute 'pattern' is required");
}

// ---- StringSplit -------------------------------------------------------------------------------

TEST(StringSplitTest, DelimiterSplitsEveryOccurrence) {
  // "" is one empty substring; consecutive delimiters delimit empty strings.
  OpTester test("StringSplit", 20);
  test.Attr("delimiter", std::string(","));
  test.Input<std::string>("X", {3}, {"a,b,,c", "", "x,"});
  test.Output<std::string>("Y", {3, 4}, {"a", "b", "", "c", "", "", "", "", "x", "", "", ""});
  test.Output<int64_t>("Z", {3}, {4, 1, 2});
  test.Run();
}

TEST(StringSplitTest, MultiCharacterDelimiterIsMatchedLeftToRight) {
  OpTester test("StringSplit", 20);
  test.Attr("delimiter", std::string("::"));
  test.Input<std::string>("X", {1}, {"a::b:::c"});
  test.Output<std::string>("Y", {1, 3}, {"a", "b", ":c"});
  test.Output<int64_t>("Z", {1}, {3});
  test.Run();
}

TEST(StringSplitTest, MaxsplitKeepsTheRestWhole) {
  OpTester test("StringSplit", 20);
  test.Attr("delimiter", std::string("-"));
  test.Attr("maxsplit", int64_t{1});
  test.Input<std::string>("X", {2}, {"a-b-c", "a"});
  test.Output<std::string>("Y", {2, 2}, {"a", "b-c", "a", ""});
  test.Output<int64_t>("Z", {2}, {2, 1});
  test.Run();
}

TEST(StringSplitTest, MaxsplitZeroAndNegative) {
  OpTester zero("StringSplit", 20);
  zero.Attr("delimiter", std::string("-"));
  zero.Attr("maxsplit", int64_t{0});
  zero.Input<std::string>("X", {1}, {"a-b"});
  zero.Output<std::string>("Y", {1, 1}, {"a-b"});
  zero.Output<int64_t>("Z", {1}, {1});
  zero.Run();
  OpTester unlimited("StringSplit", 20);
  unlimited.Attr("maxsplit", int64_t{-1});
  unlimited.Input<std::string>("X", {1}, {"a b c"});
  unlimited.Output<std::string>("Y", {1, 3}, {"a", "b", "c"});
  unlimited.Output<int64_t>("Z", {1}, {3});
  unlimited.Run();
}

TEST(StringSplitTest, WhitespaceRunsIncludeUnicodeSpaces) {
  // \t, U+00A0 (no-break space), U+3000 (ideographic space) and U+2028 separate; "é" does not.
  OpTester test("StringSplit", 20);
  test.Input<std::string>("X", {2}, {"\ta\u00a0b\u3000 é  ", "x\u2028\ny"});
  test.Output<std::string>("Y", {2, 3}, {"a", "b", "é", "x", "y", ""});
  test.Output<int64_t>("Z", {2}, {3, 2});
  test.Run();
}

TEST(StringSplitTest, WhitespaceMaxsplitKeepsTrailingSpaceOfTheRest) {
  // Python's "  a  b  c  ".split(None, 1) == ["a", "b  c  "]; the empty delimiter is the same.
  OpTester test("StringSplit", 20);
  test.Attr("delimiter", std::string(""));
  test.Attr("maxsplit", int64_t{1});
  test.Input<std::string>("X", {2}, {"  a  b  c  ", "a  "});
  test.Output<std::string>("Y", {2, 2}, {"a", "b  c  ", "a", ""});
  test.Output<int64_t>("Z", {2}, {2, 1});
  test.Run();
}

TEST(StringSplitTest, BlankStringsGiveNoSubstrings) {
  OpTester test("StringSplit", 20);
  test.Input<std::string>("X", {2}, {"", " \t "});
  test.Output<std::string>("Y", {2, 0}, {});
  test.Output<int64_t>("Z", {2}, {0, 0});
  test.Run();
}

TEST(StringSplitTest, EmptyAndScalarInputs) {
  OpTester empty("StringSplit", 20);
  empty.Input<std::string>("X", {2, 0}, {});
  empty.Output<std::string>("Y", {2, 0, 0}, {});
  empty.Output<int64_t>("Z", {2, 0}, {});
  empty.Run();
  OpTester scalar("StringSplit", 20);
  scalar.Input<std::string>("X", {}, {"hello world"});
  scalar.Output<std::string>("Y", {2}, {"hello", "world"});
  scalar.Output<int64_t>("Z", {}, {2});
  scalar.Run();
}

// ---- StringNormalizer --------------------------------------------------------------------------

TEST(StringNormalizerTest, CaseInsensitiveStopwordsThenLower) {
  OpTester test("StringNormalizer", 10);
  test.Attr("case_change_action", std::string("LOWER"));
  test.Attr("stopwords", Strings{"the", "A"});
  test.Input<std::string>("X", {5}, {"The", "Quick", "THE", "a", "Fox"});
  test.Output<std::string>("Y", {2}, {"quick", "fox"});
  test.Run();
}

TEST(StringNormalizerTest, CaseSensitiveStopwordsThenUpperUnicode) {
  // Code point by code point: ß has no one-character upper case, ǆ -> Ǆ, é -> É, ς -> Σ.
  OpTester test("StringNormalizer", 10);
  test.Attr("case_change_action", std::string("UPPER"));
  test.Attr("is_case_sensitive", int64_t{1});
  test.Attr("stopwords", Strings{"the"});
  test.Input<std::string>("X", {1, 5}, {"The", "the", "straße", "ǆemal", "éσς"});
  test.Output<std::string>("Y", {1, 4}, {"THE", "STRAßE", "ǄEMAL", "ÉΣΣ"});
  test.Run();
}

TEST(StringNormalizerTest, CaseInsensitiveComparesLowerCasedEvenForUpper) {
  // ſ (long s) lower-cases to itself, so the stopword "s" does not drop it; it upper-cases to S.
  OpTester test("StringNormalizer", 10);
  test.Attr("case_change_action", std::string("UPPER"));
  test.Attr("stopwords", Strings{"s", "monday"});
  test.Input<std::string>("X", {4}, {"ſ", "s", "S", "Monday"});
  test.Output<std::string>("Y", {1}, {"S"});
  test.Run();
}

TEST(StringNormalizerTest, NoneKeepsTheOriginalCase) {
  OpTester test("StringNormalizer", 10);
  test.Attr("case_change_action", std::string("NONE"));
  test.Attr("stopwords", Strings{"MONDAY"});
  test.Input<std::string>("X", {3}, {"Monday", "Tuesday", "ÉTÉ"});
  test.Output<std::string>("Y", {2}, {"Tuesday", "ÉTÉ"});
  test.Run();
}

TEST(StringNormalizerTest, EverythingDroppedGivesOneEmptyString) {
  OpTester vector("StringNormalizer", 10);
  vector.Attr("stopwords", Strings{"x"});
  vector.Input<std::string>("X", {2}, {"x", "X"});
  vector.Output<std::string>("Y", {1}, {""});
  vector.Run();
  OpTester matrix("StringNormalizer", 10);
  matrix.Attr("is_case_sensitive", int64_t{1});
  matrix.Attr("stopwords", Strings{"x"});
  matrix.Input<std::string>("X", {1, 2}, {"x", "x"});
  matrix.Output<std::string>("Y", {1, 1}, {""});
  matrix.Run();
  OpTester empty("StringNormalizer", 10);
  empty.Attr("case_change_action", std::string("UPPER"));
  empty.Input<std::string>("X", {1, 0}, {});
  empty.Output<std::string>("Y", {1, 1}, {""});
  empty.Run();
}

TEST(StringNormalizerTest, LocalesChangeWhatIsMapped) {
  // The C locale maps ASCII only; C.UTF-8 and the default (en_US.UTF-8) map all of Unicode.
  OpTester ascii("StringNormalizer", 10);
  ascii.Attr("case_change_action", std::string("LOWER"));
  ascii.Attr("locale", std::string("C"));
  ascii.Input<std::string>("X", {2}, {"ÉA", "İI"});
  ascii.Output<std::string>("Y", {2}, {"Éa", "İi"});
  ascii.Run();
  for (const char* locale : {"C.UTF-8", "en_US.UTF-8", "en_US.utf8"}) {
    SCOPED_TRACE(locale);
    OpTester unicode("StringNormalizer", 10);
    unicode.Attr("case_change_action", std::string("LOWER"));
    unicode.Attr("locale", std::string(locale));
    unicode.Input<std::string>("X", {2}, {"ÉA", "İI"});
    unicode.Output<std::string>("Y", {2}, {"éa", "ii"});
    unicode.Run();
  }
}

TEST(StringNormalizerTest, RefusesALocaleThatIsNotInstalled) {
  OpTester test("StringNormalizer", 10);
  test.Attr("case_change_action", std::string("LOWER"));
  test.Attr("locale", std::string("xx_NOWHERE.UTF-8"));
  test.Input<std::string>("X", {1}, {"a"});
  test.Output<std::string>("Y", {1}, {"a"});
  test.ExpectFailure("locale 'xx_NOWHERE.UTF-8' is not installed");
}

TEST(StringNormalizerTest, RefusesInvalidInputs) {
  OpTester rank("StringNormalizer", 10);
  rank.Input<std::string>("X", {2, 2}, {"a", "b", "c", "d"});
  rank.Output<std::string>("Y", {2, 2}, {"a", "b", "c", "d"});
  rank.ExpectFailure("input X must be [C] or [1, C], got tensor(string)[2,2]");
  OpTester action("StringNormalizer", 10);
  action.Attr("case_change_action", std::string("lower"));
  action.Input<std::string>("X", {1}, {"a"});
  action.Output<std::string>("Y", {1}, {"a"});
  action.ExpectFailure("case_change_action must be LOWER, UPPER or NONE, got 'lower'");
  OpTester utf8("StringNormalizer", 10);
  utf8.Attr("case_change_action", std::string("UPPER"));
  utf8.Input<std::string>("X", {2}, {"a", std::string("b\xc3(", 3)});
  utf8.Output<std::string>("Y", {2}, {"A", "B"});
  utf8.ExpectFailure("X element 1 is not valid UTF-8");
}

// ---- TfIdfVectorizer ---------------------------------------------------------------------------

// The pool: 1-grams 1, 2, 3 and 2-grams (1,2), (2,1), (1,3); X = 1 2 1 2 3.
// 1-grams: 1 twice, 2 twice, 3 once. 2-grams with skip 0 (neighbours): (1,2) (2,1) (1,2) (2,3)
// -> (1,2) 2, (2,1) 1, (1,3) 0. Skip 1 adds (1,1) (2,2) (1,3) -> (1,3) 1. Skips 2 and 3 add
// (1,2) and (2,3), then (1,3): with max_skip_count 5, (1,2) 3, (2,1) 1, (1,3) 2.
const std::vector<int64_t> kPool = {1, 2, 3, 1, 2, 2, 1, 1, 3};

OpTester PoolTester(const std::string& mode, int64_t max_skip,
                    std::vector<int64_t> ngram_indexes = {0, 1, 2, 3, 4, 5}, int64_t min_length = 1,
                    std::vector<int64_t> pool = kPool) {
  OpTester test("TfIdfVectorizer", 9);
  test.Attr("mode", mode);
  test.Attr("min_gram_length", min_length);
  test.Attr("max_gram_length", int64_t{2});
  test.Attr("max_skip_count", max_skip);
  test.Attr("ngram_counts", std::vector<int64_t>{0, 3});
  test.Attr("ngram_indexes", ngram_indexes);
  test.Attr("pool_int64s", pool);
  return test;
}

TEST(TfIdfVectorizerTest, TfCountsEverySkipUpToTheMaximum) {
  const std::vector<std::pair<int64_t, std::vector<float>>> cases = {
      {0, {2, 2, 1, 2, 1, 0}}, {1, {2, 2, 1, 2, 1, 1}}, {5, {2, 2, 1, 3, 1, 2}}};
  for (const auto& [skip, expected] : cases) {
    SCOPED_TRACE(skip);
    OpTester test = PoolTester("TF", skip);
    test.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
    test.Output<float>("Y", {6}, expected);
    test.Run();
  }
}

TEST(TfIdfVectorizerTest, IdfAndTfIdfWeighThePoolsNgrams) {
  const std::vector<float> weights = {0.5f, 1, 1.5f, 2, 2.5f, 3};
  OpTester idf = PoolTester("IDF", 0);
  idf.Attr("weights", weights);
  idf.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
  idf.Output<float>("Y", {6}, {0.5f, 1, 1.5f, 2, 2.5f, 0});
  idf.Run();
  OpTester tfidf = PoolTester("TFIDF", 0);
  tfidf.Attr("weights", weights);
  tfidf.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
  tfidf.Output<float>("Y", {6}, {1, 2, 1.5f, 4, 2.5f, 0});
  tfidf.Run();
  // Reversed ngram_indexes: n-gram k (count 2 2 1 2 1 0, weight weights[k]) goes to 5 - k.
  OpTester reversed = PoolTester("TFIDF", 0, {5, 4, 3, 2, 1, 0});
  reversed.Attr("weights", weights);
  reversed.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
  reversed.Output<float>("Y", {6}, {0, 2.5f, 4, 1.5f, 2, 1});
  reversed.Run();
}

TEST(TfIdfVectorizerTest, NgramsSharingACoordinateAreSummed) {
  // ngram_indexes 0 0 1 1 2 2: coordinate 0 takes 1-grams 1 and 2 (counts 2, 2), coordinate 1
  // 1-gram 3 and 2-gram (1,2) (counts 1, 2), coordinate 2 the 2-grams (2,1) and (1,3) (1, 0).
  const std::vector<float> weights = {0.5f, 1, 1.5f, 2, 2.5f, 3};
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"TF", {4, 3, 1}}, {"IDF", {1.5f, 3.5f, 2.5f}}, {"TFIDF", {3, 5.5f, 2.5f}}};
  for (const auto& [mode, expected] : cases) {
    SCOPED_TRACE(mode);
    OpTester test = PoolTester(mode, 0, {0, 0, 1, 1, 2, 2});
    test.Attr("weights", weights);
    test.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
    test.Output<float>("Y", {3}, expected);
    test.Run();
  }
}

TEST(TfIdfVectorizerTest, WithoutWeightsIdfMarksPresence) {
  OpTester test = PoolTester("IDF", 0);
  test.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
  test.Output<float>("Y", {6}, {1, 1, 1, 1, 1, 0});
  test.Run();
}

TEST(TfIdfVectorizerTest, MinGramLengthDropsShorterNgrams) {
  OpTester test = PoolTester("TF", 0, {0, 1, 2, 3, 4, 5}, 2);
  test.Input<int64_t>("X", {5}, {1, 2, 1, 2, 3});
  test.Output<float>("Y", {6}, {0, 0, 0, 2, 1, 0});
  test.Run();
}

TEST(TfIdfVectorizerTest, Int32RowsAreCountedSeparately) {
  // Row 1 2 3: 1-grams 1, 2, 3 and (1,2). Row 3 3 1: 1-grams 3 (twice) and 1.
  OpTester test = PoolTester("TF", 0);
  test.Input<int32_t>("X", {2, 3}, {1, 2, 3, 3, 3, 1});
  test.Output<float>("Y", {2, 6}, {1, 1, 1, 1, 0, 0, 1, 0, 2, 0, 0, 0});
  test.Run();
}

TEST(TfIdfVectorizerTest, StringPoolWithSkips) {
  // a b c a b: a 2, b 2, (a,b) twice with skip 0; skip 1 gives (a,c) (b,a) (c,b), not in the pool.
  OpTester test("TfIdfVectorizer", 9);
  test.Attr("mode", std::string("TF"));
  test.Attr("min_gram_length", int64_t{1});
  test.Attr("max_gram_length", int64_t{2});
  test.Attr("max_skip_count", int64_t{1});
  test.Attr("ngram_counts", std::vector<int64_t>{0, 2});
  test.Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2});
  test.Attr("pool_strings", Strings{"a", "b", "a", "b"});
  test.Input<std::string>("X", {1, 5}, {"a", "b", "c", "a", "b"});
  test.Output<float>("Y", {1, 3}, {2, 2, 2});
  test.Run();
}

TEST(TfIdfVectorizerTest, EmptyInputsGiveZerosOrNoRows) {
  OpTester no_columns = PoolTester("TF", 0);
  no_columns.Input<int64_t>("X", {2, 0}, {});
  no_columns.Output<float>("Y", {2, 6}, std::vector<float>(12, 0.0f));
  no_columns.Run();
  OpTester no_rows = PoolTester("TF", 0);
  no_rows.Input<int64_t>("X", {0, 3}, {});
  no_rows.Output<float>("Y", {0, 6}, {});
  no_rows.Run();
}

TEST(TfIdfVectorizerTest, RefusesInputsAndAttributesItCannotUse) {
  OpTester strings_for_ints = PoolTester("TF", 0);
  strings_for_ints.Input<std::string>("X", {1}, {"1"});
  strings_for_ints.Output<float>("Y", {6}, std::vector<float>(6, 0.0f));
  strings_for_ints.ExpectFailure("pool_int64s needs an int32 or int64 input X");
  OpTester rank3 = PoolTester("TF", 0);
  rank3.Input<int64_t>("X", {1, 1, 1}, {1});
  rank3.Output<float>("Y", {1, 6}, std::vector<float>(6, 0.0f));
  rank3.ExpectFailure("input X must be [C] or [N, C]");
  OpTester mode = PoolTester("BM25", 0);
  mode.Input<int64_t>("X", {1}, {1});
  mode.Output<float>("Y", {6}, std::vector<float>(6, 0.0f));
  mode.ExpectFailure("mode must be TF, IDF or TFIDF, got 'BM25'");
  OpTester duplicate("TfIdfVectorizer", 9);
  duplicate.Attr("mode", std::string("TF"));
  duplicate.Attr("min_gram_length", int64_t{1});
  duplicate.Attr("max_gram_length", int64_t{1});
  duplicate.Attr("max_skip_count", int64_t{0});
  duplicate.Attr("ngram_counts", std::vector<int64_t>{0});
  duplicate.Attr("ngram_indexes", std::vector<int64_t>{0, 1});
  duplicate.Attr("pool_int64s", std::vector<int64_t>{7, 7});
  duplicate.Input<int64_t>("X", {1}, {7});
  duplicate.Output<float>("Y", {2}, {1, 0});
  duplicate.ExpectFailure("the pool's n-grams 0 and 1 are the same 1-gram");
  OpTester ragged = PoolTester("TF", 0, {0, 1, 2, 3, 4, 5}, 1, {1, 2, 3, 1, 2, 2, 1, 1});
  ragged.Input<int64_t>("X", {1}, {1});
  ragged.Output<float>("Y", {6}, std::vector<float>(6, 0.0f));
  ragged.ExpectFailure("are not a whole number of 2-grams");
  OpTester short_weights = PoolTester("IDF", 0);
  short_weights.Attr("weights", std::vector<float>{1, 1, 1, 1, 1});
  short_weights.Input<int64_t>("X", {1}, {1});
  short_weights.Output<float>("Y", {6}, std::vector<float>(6, 0.0f));
  short_weights.ExpectFailure("weights must have one value per ngram_indexes entry (6), got 5");
}

}  // namespace
}  // namespace prism::testing
