// Type-coverage evidence for tests/coverage/check_type_coverage.py: which kernel registration
// computed with which concrete types in a test whose outputs were then checked against an oracle
// (ONNX test data, onnxruntime, or expected values worked out by hand), in a test that passed.
//
// Off unless PRISM_COMPUTE_EVIDENCE=1 is in the environment. Then the core's compute trace hooks
// (framework/compute_trace.h) hold every kernel computation of a run that completed as *pending*
// (a run that threw leaves nothing); OracleMatched() (called by the oracle comparisons:
// OpTester::Run, CompareWithOracle, the conformance runner) confirms the pending ones for the
// current unit (a gtest test, or a conformance test); a failed oracle comparison, or a run
// expected to fail, drops them. When the unit ends and has passed, its
// confirmed computations are printed to stdout, one line each (duplicates once):
//   @@PRISM_COMPUTED<TAB>unit<TAB>provider<TAB>domain<TAB>op<TAB>opset<TAB>since<TAB>end<TAB>
//   T1=tensor(float);T2=tensor(int8)
// (opset: the node's; since/end: the registration's, end -1 for open-ended). gtest tests are
// units automatically (a listener); other programs call BeginEvidenceUnit/EndEvidenceUnit.
#pragma once

#include <string>

#include "tensor_compare.h"

namespace prism::testing {

// The computations since the last confirmation or drop were checked against an oracle.
void OracleMatched();
// The computations since the last confirmation or drop do not count (a failed comparison, a run
// expected to fail, or a run whose outputs are about to be ignored).
void DropPendingComputes();

// A unit of evidence: everything pending or confirmed is cleared at the start; at the end, when
// passed, the confirmed computations are printed with the unit's name.
void BeginEvidenceUnit();
void EndEvidenceUnit(const std::string& unit, bool passed);

// CompareValues for an expected value that comes from an oracle: on a match, OracleMatched();
// on a mismatch, DropPendingComputes(). Use plain CompareValues to compare two Prism runs.
std::string CompareWithOracle(const Value& expected, const Value& actual, Tolerance tolerance);

}  // namespace prism::testing
