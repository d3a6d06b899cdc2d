"""The ctypes table in prismrt/_c_api.py follows the C header member by member."""
import os
import re

from prismrt import _c_api

from conftest import REPO


def header_signatures():
    """[(member, parameter count)] of struct PrismApi, in order."""
    with open(os.path.join(REPO, "include", "prism", "prism_c_api.h"), encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("typedef struct PrismApi {"):text.index("} PrismApi;")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    result = []
    for name, params in re.findall(r"\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)\s*;", body):
        params = params.strip()
        result.append((name, 0 if params in ("", "void") else params.count(",") + 1))
    return result


def header_members():
    return [name for name, _ in header_signatures()]


def test_table_matches_header_order():
    members = header_members()
    assert len(members) > 100
    # The binding may lag behind members appended later (the table is append-only), but the
    # shared prefix must match exactly.
    assert len(_c_api.TABLE_MEMBER_NAMES) <= len(members)
    assert _c_api.TABLE_MEMBER_NAMES == members[:len(_c_api.TABLE_MEMBER_NAMES)]


def test_parameter_counts_match_header():
    bound = {name: len(argtypes) for name, _, argtypes in _c_api._TABLE}
    for name, count in header_signatures()[:len(bound)]:
        assert bound[name] == count, name


def test_library_reports_api_and_version():
    api = _c_api.api()
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", api.version_string)
