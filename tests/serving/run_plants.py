#!/usr/bin/env python3
"""Plants faults in prismrt.serve and checks that the serving smoke tests catch each one.

Each plant (PRISMRT_SERVE_TEST_PLANT, read by prismrt/serve/_batching.py in the test process
and in every Ray worker, which inherit the environment) makes the code wrong in one way; the
smoke tests run once per plant and must fail, at least in the tests listed for it. Prints one
line per plant with the tests that failed; exits 1 when a plant went unnoticed.

    .venv/bin/python tests/serving/run_plants.py [--plants split_reversed,no_retry]
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# plant: (what it does, tests that must fail)
PLANTS = {
    "split_reversed": ("batch outputs split back in the wrong (reversed) order",
                       ["test_bert_concurrent_requests_match_onnxruntime",
                        "test_requests_that_cannot_be_concatenated_are_run_separately"]),
    "drop_on_replica_death": ("the killed replica's in-flight requests dropped: the error is "
                              "caught and ignored, the request answered with no outputs",
                              ["test_squeezenet_replica_killed_mid_load_loses_no_request",
                               "test_bert_replica_killed_mid_load_loses_no_request"]),
    "no_retry": ("no retry on another replica: the replica's death goes to the client",
                 ["test_squeezenet_replica_killed_mid_load_loses_no_request",
                  "test_bert_replica_killed_mid_load_loses_no_request"]),
    "skip_validation": ("requests not validated before batching",
                        ["test_bad_requests_get_400_naming_the_input",
                         "test_bad_request_in_a_batch_does_not_fail_the_others"]),
    "no_grouping": ("requests concatenated without grouping by shape: a batch of different "
                    "non-batch dims fails as a whole",
                    ["test_requests_that_cannot_be_concatenated_are_run_separately"]),
}


def run_plant(plant, python):
    env = dict(os.environ, PRISMRT_SERVE_TEST_PLANT=plant)
    start = time.time()
    proc = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf",
                           os.path.join(HERE, "test_serving_smoke.py")],
                          cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    failed = sorted(set(re.findall(r"^FAILED \S*::(\w+)", proc.stdout, re.MULTILINE)))
    errors = sorted(set(re.findall(r"^ERROR \S*::(\w+)", proc.stdout, re.MULTILINE)))
    return failed, errors, proc, time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plants", default=",".join(PLANTS))
    args = parser.parse_args()
    unnoticed = []
    for plant in args.plants.split(","):
        what, must_fail = PLANTS[plant]
        failed, errors, proc, seconds = run_plant(plant, sys.executable)
        missed = [t for t in must_fail if t not in failed]
        verdict = "caught" if not missed and not errors else "NOT CAUGHT"
        print("plant %-22s %s (%.0f s): %s\n    failed: %s" % (
            plant, verdict, seconds, what, ", ".join(failed) or "nothing"), flush=True)
        if errors:
            print("    errors (set-up, not the plant's check): %s" % ", ".join(errors))
        if missed or errors:
            print("    expected to fail: %s\n%s" % (", ".join(missed), proc.stdout[-3000:]))
            unnoticed.append(plant)
        else:
            first = re.search(r"^E\s+(.*)$", proc.stdout, re.MULTILINE)
            if first:
                print("    first failure: %s" % first.group(1)[:200])
    if unnoticed:
        print("run_plants: %d of %d plants not caught: %s" % (len(unnoticed),
              len(args.plants.split(",")), ", ".join(unnoticed)))
        return 1
    print("run_plants: every plant caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
