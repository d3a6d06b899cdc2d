"""String operators against onnxruntime (and onnx.reference where onnxruntime departs from the spec)
on random inputs: StringConcat (broadcasting, unicode, empty tensors), RegexFullMatch (RE2
syntax), StringSplit (delimiters, whitespace, maxsplit), StringNormalizer (stopwords, case
actions, case sensitivity, locales) and TfIdfVectorizer (every mode, skips, n-gram lengths,
int32/int64/string inputs, 1-D and 2-D); errors name the node and the offending value."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_OUTPUT_TYPES = {"StringSplit": [TensorProto.STRING, TensorProto.INT64],
                 "RegexFullMatch": [TensorProto.BOOL], "TfIdfVectorizer": [TensorProto.FLOAT]}
_OPSETS = {"StringNormalizer": 10, "TfIdfVectorizer": 9}


def _model(op, input_types=(TensorProto.STRING,), **attrs):
    names = ["x%d" % i for i in range(len(input_types))]
    output_types = _OUTPUT_TYPES.get(op, [TensorProto.STRING])
    outputs = ["y%d" % i for i in range(len(output_types))]
    graph = helper.make_graph(
        [helper.make_node(op, names, outputs, **attrs)], "strings",
        [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, input_types)],
        [helper.make_tensor_value_info(n, t, None) for n, t in zip(outputs, output_types)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSETS.get(op, 20))],
                             ir_version=8)


def _feeds(inputs):
    return {"x%d" % i: x for i, x in enumerate(inputs)}


def _prism(model, *inputs):
    return ort.InferenceSession(model.SerializeToString()).run(None, _feeds(inputs))


def _onnxruntime(model, *inputs):
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    return session.run(None, _feeds(inputs))


def _reference(model, *inputs):
    return ReferenceEvaluator(model).run(None, _feeds(inputs))


def _assert_same(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        e = np.asarray(e)
        assert a.shape == e.shape, (a.shape, e.shape)
        if e.dtype == object or e.dtype.kind == "U":
            assert a.dtype == object
            assert a.tolist() == e.astype(object).tolist()
        else:
            np.testing.assert_array_equal(a, e)


_PIECES = ["a", "B", "cat", "Dog", "é", "É", "ß", "中文", "Σσς", "ǅ", "😀", "x y", "", "İ", "ſ"]


def _random_strings(shape, pieces=_PIECES, most=3):
    count = int(np.prod(shape, dtype=np.int64))
    words = ["".join(_RNG.choice(pieces, _RNG.randint(0, most + 1))) for _ in range(count)]
    return np.array(words, dtype=object).reshape(shape)


# ---- StringConcat -------------------------------------------------------------------------------

@pytest.mark.parametrize("x_shape,y_shape", [
    ((4,), (4,)), ((2, 1), (1, 5)), ((), (2, 3)), ((3, 1, 2), (4, 1)), ((0, 3), (1, 3)),
    ((2, 0), (1,)), ((1,), (0,)), ((), ()),
])
def test_concat_matches_onnxruntime(x_shape, y_shape):
    model = _model("StringConcat", (TensorProto.STRING, TensorProto.STRING))
    x, y = _random_strings(x_shape), _random_strings(y_shape)
    _assert_same(_prism(model, x, y), _onnxruntime(model, x, y))


def test_concat_refuses_shapes_that_do_not_broadcast():
    model = _model("StringConcat", (TensorProto.STRING, TensorProto.STRING))
    with pytest.raises(Exception, match="StringConcat node"):
        _prism(model, _random_strings((2,)), _random_strings((3,)))


# ---- RegexFullMatch -----------------------------------------------------------------------------

_PATTERNS = [
    r"[a-z]+", r"(?i)[a-z]+", r"\w*", r"\pL+", r"[[:alpha:]]+", r".*é.*", r"(cat|Dog)+",
    r"^a?B?$", r"x y|", r".{2,3}", r"\p{Han}+", r"[^ ]*", r"(?s).*", r"Σ[σς]*", r"\S+\s\S+",
    r"www\.[\w.-]+\.\bcom\b", r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)",
]


@pytest.mark.parametrize("pattern", _PATTERNS)
def test_regex_full_match_matches_onnxruntime(pattern):
    model = _model("RegexFullMatch", pattern=pattern)
    x = _random_strings((6, 7))
    x.flat[:10] = ["www.example.com", "me@gmail.com", "a", "", "中文", "Σσς", "x y", "catDog",
                   "aB", "ÉTÉ"]
    expected = _onnxruntime(model, x)
    _assert_same(_prism(model, x), expected)
    assert expected[0].any()  # the data exercises matches


def test_regex_full_match_on_empty_tensor():
    model = _model("RegexFullMatch", pattern="a")
    x = np.zeros((3, 0), dtype=object)
    _assert_same(_prism(model, x), _onnxruntime(model, x))


@pytest.mark.parametrize("pattern", ["a(b", r"(a)\1", "[z-a]", "x**"])
def test_regex_invalid_pattern_is_refused_naming_it(pattern):
    model = _model("RegexFullMatch", pattern=pattern)
    with pytest.raises(Exception) as error:
        _prism(model, np.array(["a"], dtype=object))
    message = str(error.value)
    assert "RegexFullMatch node" in message and "pattern '%s'" % pattern in message
    with pytest.raises(Exception):  # onnxruntime's RE2 refuses it too
        _onnxruntime(model, np.array(["a"], dtype=object))


# ---- StringSplit --------------------------------------------------------------------------------

def _split_inputs(shape, delimiter, whitespace):
    """Strings of tokens joined by delimiters (or by runs of whitespace)."""
    tokens = ["a", "bc", "É", "中文", "😀", "x-y", ""]
    count = int(np.prod(shape, dtype=np.int64))
    words = []
    for _ in range(count):
        parts = list(_RNG.choice(tokens, _RNG.randint(0, 5)))
        if delimiter:
            words.append(delimiter.join(parts))
        else:
            seps = [" " * _RNG.randint(1, 3) if not whitespace else
                    "".join(_RNG.choice(whitespace, _RNG.randint(1, 3))) for _ in parts]
            words.append("".join(s + p for s, p in zip(seps, parts)) + seps[0] if parts else
                         " " * _RNG.randint(0, 2))
    return np.array(words, dtype=object).reshape(shape)


_SPLITS = [(d, m) for d in [",", "--", "中", "", None] for m in [None, 0, 1, 2, -1]]


@pytest.mark.parametrize("delimiter,maxsplit", _SPLITS)
@pytest.mark.parametrize("shape", [(6,), (2, 3), (), (0,), (2, 0)])
def test_split_matches_the_reference(delimiter, maxsplit, shape):
    # The reference is Python's str.split, which the spec follows: any Unicode whitespace
    # separates, and "" split on a delimiter is [""].
    attrs = {k: v for k, v in (("delimiter", delimiter), ("maxsplit", maxsplit)) if v is not None}
    model = _model("StringSplit", **attrs)
    x = _split_inputs(shape, delimiter, ["\t", "\n", " ", "\u00a0", "\u3000", "\u2028"])
    if shape == ():  # the reference takes no scalar: split it as [x] and drop that axis
        y, z = _reference(model, x.reshape(1))
        expected = [y.reshape(y.shape[1:]), z.reshape(())]
    else:
        expected = _reference(model, x)
    _assert_same(_prism(model, x), expected)


@pytest.mark.parametrize("delimiter,maxsplit", _SPLITS)
def test_split_matches_onnxruntime(delimiter, maxsplit):
    # Away from onnxruntime's three departures (see test_split_departures_from_onnxruntime):
    # spaces only, no empty string with a delimiter, no trailing space after the last split.
    attrs = {k: v for k, v in (("delimiter", delimiter), ("maxsplit", maxsplit)) if v is not None}
    model = _model("StringSplit", **attrs)
    x = _split_inputs((3, 4), delimiter, None)
    if delimiter:
        x[x == ""] = "lone"
    elif maxsplit is not None and maxsplit >= 0:
        x = np.array([s.rstrip(" ") for s in x.flat], dtype=object).reshape(x.shape)
    _assert_same(_prism(model, x), _onnxruntime(model, x))


def test_split_departures_from_onnxruntime():
    """Prism and the reference: Unicode whitespace separates, "" has one substring on a
    delimiter, the rest after maxsplit keeps its trailing whitespace; onnxruntime differs."""
    tab = _model("StringSplit")
    x = np.array(["a\tb\u00a0c"], dtype=object)
    _assert_same(_prism(tab, x), [np.array([["a", "b", "c"]], dtype=object), np.array([3])])
    comma = _model("StringSplit", delimiter=",")
    x = np.array(["", "a"], dtype=object)
    _assert_same(_prism(comma, x), [np.array([[""], ["a"]], dtype=object), np.array([1, 1])])
    once = _model("StringSplit", maxsplit=1)
    x = np.array([" a b  "], dtype=object)
    _assert_same(_prism(once, x), [np.array([["a", "b  "]], dtype=object), np.array([2])])
    for model, x in [(tab, ["a\tb"]), (comma, [""]), (once, [" a b  "])]:
        x = np.array(x, dtype=object)
        _assert_same(_prism(model, x), _reference(model, x))


# ---- StringNormalizer ---------------------------------------------------------------------------

_WORDS = ["Monday", "monday", "MONDAY", "Straße", "STRASSE", "éTÉ", "Été", "ǅemal", "ǆemal",
          "Σίσυφος", "ΣΊΣΥΦΟΣ", "中文", "ſ", "s", "S", "İi", "😀", ""]


@pytest.mark.parametrize("action", ["LOWER", "UPPER", "NONE"])
@pytest.mark.parametrize("case_sensitive", [0, 1])
@pytest.mark.parametrize("two_dims", [False, True])
@pytest.mark.parametrize("stopwords",
                         [None, ["monday", "été", "s"], ["STRASSE", "ǆEMAL", "σίσυφος"]])
def test_normalizer_matches_onnxruntime(action, case_sensitive, two_dims, stopwords):
    attrs = {"case_change_action": action, "is_case_sensitive": case_sensitive,
             "locale": "C.UTF-8"}  # onnxruntime's default en_US.UTF-8 is not installed here
    if stopwords:
        attrs["stopwords"] = stopwords
    model = _model("StringNormalizer", **attrs)
    for _ in range(3):
        x = np.array(list(_RNG.choice(_WORDS, 9)), dtype=object)
        if two_dims:
            x = x.reshape(1, -1)
        _assert_same(_prism(model, x), _onnxruntime(model, x))


def test_normalizer_default_locale_is_en_us_utf8():
    # Without the attribute Prism uses en_US.UTF-8 (C.UTF-8 where that is not installed: the
    # same case tables), which onnxruntime with C.UTF-8 matches.
    x = np.array(_WORDS, dtype=object)
    for action in ["LOWER", "UPPER"]:
        default = _model("StringNormalizer", case_change_action=action)
        explicit = _model("StringNormalizer", case_change_action=action, locale="C.UTF-8")
        _assert_same(_prism(default, x), _onnxruntime(explicit, x))
        en_us = _model("StringNormalizer", case_change_action=action, locale="en_US.UTF-8")
        _assert_same(_prism(en_us, x), _onnxruntime(explicit, x))


def test_normalizer_c_locale_maps_ascii_only():
    model = _model("StringNormalizer", case_change_action="UPPER", locale="C")
    x = np.array(["abc", "été", "straße"], dtype=object)
    _assert_same(_prism(model, x), _onnxruntime(model, x))
    _assert_same(_prism(model, x), [np.array(["ABC", "éTé", "STRAßE"], dtype=object)])


def test_normalizer_all_stopwords_and_empty_input():
    model = _model("StringNormalizer", stopwords=["a"], case_change_action="UPPER",
                   locale="C.UTF-8")
    for x in [np.array(["a", "A"], dtype=object), np.array([["A"]], dtype=object)]:
        _assert_same(_prism(model, x), _onnxruntime(model, x))
    # An empty X is "everything dropped" for the spec (onnxruntime refuses it).
    _assert_same(_prism(model, np.zeros((0,), dtype=object)), [np.array([""], dtype=object)])
    _assert_same(_prism(model, np.zeros((1, 0), dtype=object)), [np.array([[""]], dtype=object)])


def test_normalizer_refusals_name_the_node_and_value():
    bad_locale = _model("StringNormalizer", case_change_action="LOWER", locale="xx_NOWHERE.UTF-8")
    with pytest.raises(Exception,
                       match="StringNormalizer node .*locale 'xx_NOWHERE.UTF-8' is not installed"):
        _prism(bad_locale, np.array(["I"], dtype=object))
    model = _model("StringNormalizer")
    with pytest.raises(Exception, match=r"must be \[C\] or \[1, C\], got tensor\(string\)\[2,1\]"):
        _prism(model, np.array([["a"], ["b"]], dtype=object))


# ---- TfIdfVectorizer ----------------------------------------------------------------------------

def _random_pool(max_length, alphabet):
    """Unique n-grams of lengths 1..max_length over the alphabet, as pool, ngram_counts."""
    pool, counts = [], []
    for length in range(1, max_length + 1):
        counts.append(len(pool))
        grams = {tuple(_RNG.choice(alphabet, length)) for _ in range(_RNG.randint(1, 7))}
        for gram in sorted(grams):
            pool.extend(gram)
    return pool, counts


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("lengths", [(1, 1), (1, 2), (2, 2), (1, 3), (2, 3), (3, 3)])
@pytest.mark.parametrize("skip", [0, 1, 3])
@pytest.mark.parametrize("elem", ["int64", "int32", "string"])
def test_tfidf_matches_onnxruntime(mode, lengths, skip, elem):
    min_length, max_length = lengths
    alphabet = [0, 1, 2, 3, 4] if elem != "string" else ["a", "b", "é", "中", ""]
    pool, counts = _random_pool(max_length, alphabet)
    ngrams = sum(((counts[k + 1] if k + 1 < len(counts) else len(pool)) - counts[k]) // (k + 1)
                 for k in range(len(counts)))
    indexes = list(_RNG.permutation(ngrams + 2)[:ngrams])  # unique, with gaps
    attrs = dict(mode=mode, min_gram_length=min_length, max_gram_length=max_length,
                 max_skip_count=skip, ngram_counts=counts, ngram_indexes=indexes)
    attrs["pool_strings" if elem == "string" else "pool_int64s"] = pool
    if mode != "TF" or _RNG.rand() < 0.5:
        attrs["weights"] = list(_RNG.uniform(0.1, 2.0, ngrams).astype(np.float32))
    types = {"int64": TensorProto.INT64, "int32": TensorProto.INT32, "string": TensorProto.STRING}
    model = _model("TfIdfVectorizer", (types[elem],), **attrs)
    for shape in [(11,), (3, 9), (2, 1), (2, 0)]:
        x = np.array(_RNG.choice(alphabet, shape), dtype=object if elem == "string" else elem)
        expected = _onnxruntime(model, x)
        actual = _prism(model, x)
        assert actual[0].shape == expected[0].shape
        np.testing.assert_allclose(actual[0], expected[0], rtol=1e-6, atol=0)


def test_tfidf_no_rows_gives_an_empty_result():
    model = _model("TfIdfVectorizer", (TensorProto.INT64,), mode="TF", min_gram_length=1,
                   max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0, 3],
                   pool_int64s=[5, 6])
    y = _prism(model, np.zeros((0, 4), np.int64))[0]
    assert y.shape == (0, 4) and y.dtype == np.float32  # onnxruntime refuses N = 0


def test_tfidf_refusals_name_the_node_and_value():
    model = _model("TfIdfVectorizer", (TensorProto.STRING,), mode="TF", min_gram_length=1,
                   max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0],
                   pool_int64s=[5])
    with pytest.raises(Exception,
                       match="TfIdfVectorizer node .*pool_int64s needs an int32 or int64 input X"):
        _prism(model, np.array(["5"], dtype=object))
    both = _model("TfIdfVectorizer", (TensorProto.INT64,), mode="TF", min_gram_length=1,
                  max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0],
                  pool_int64s=[5], pool_strings=["5"])
    with pytest.raises(Exception,
                       match="exactly one of pool_int64s and pool_strings must be set, got both"):
        _prism(both, np.array([5], np.int64))
