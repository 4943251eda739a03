"""Hypothesis strategies for malformed input files: the grammar of the fuzz harness.

Each strategy draws the *bytes* of one file. Well-formed files of every format are drawn from a
small grammar (records with the right, wrong or missing fields, values of every JSON type, CSV rows
with quotes, separators and line breaks), then damaged: truncated, spliced with junk bytes, NUL and
control characters, byte-order marks, text re-encoded in another encoding, a huge line, deep
nesting. Most draws are still *almost* valid, so the readers' deeper paths are reached too.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

#: Characters generated text is made of: every category, control characters, NUL, the Unicode
#: line separators, lone surrogates and the BOM included (lone surrogates only in JSON escapes).
_CHAR = st.characters(blacklist_categories=("Cs",))
_WORDS = st.sampled_from(
    [
        "the",
        "a",
        "cat",
        "sat",
        ".",
        "I",
        "don't",
        "know",
        "yes",
        "no",
        "\u00e9t\u00e9",
        "\U0001f600",
    ]
)
_NASTY = st.sampled_from(
    ["\x00", "\x0b", "\x0c", "\x1c", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\t", "\ufeff",
     "\u200b", "\x7f", "\x1b[31m", "\\", '"', ",", "\t", "</s>", "\ud800"]
)  # fmt: skip


@st.composite
def text_value(draw) -> str:
    """A response: words, arbitrary characters, nasty characters, or empty/blank."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return " ".join(draw(st.lists(_WORDS, max_size=12)))
    if kind == 1:
        return draw(st.text(_CHAR, max_size=40))
    if kind == 2:
        return draw(st.sampled_from(["", " ", "\t", "  \n "]))
    parts = draw(st.lists(st.one_of(_WORDS, _NASTY, st.text(_CHAR, max_size=5)), max_size=10))
    return " ".join(parts)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    text_value(),
)
json_value = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(_CHAR, max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)

FIELDS = (
    "response",
    "responses",
    "references",
    "all_references",
    "reference_groups",
    "human",
    "score",
    "system",
    "positive_responses",
    "metric_x",
)


@st.composite
def record(draw) -> Any:
    """A JSON record: mostly an object with diveval's fields (right or wrong types), sometimes a
    bare string, list or number."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_value)
    rec: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        good = draw(st.booleans())
        if key in ("response",):
            rec[key] = draw(text_value()) if good else draw(json_value)
        elif key in ("responses", "references", "all_references", "positive_responses"):
            rec[key] = draw(st.lists(text_value(), max_size=5)) if good else draw(json_value)
        elif key == "reference_groups":
            groups = st.lists(st.lists(text_value(), max_size=3), max_size=3)
            rec[key] = draw(groups) if good else draw(json_value)
        elif key in ("human", "score", "metric_x"):
            number = st.floats(-1e6, 1e6) | st.integers(-5, 5)
            rec[key] = draw(number) if good else draw(json_value)
        else:
            rec[key] = draw(json_value)
    return rec


def _dumps(value: Any, draw) -> str:
    # allow_nan: NaN/Infinity literals are JSON that Python writes and reads; files carry them.
    return json.dumps(value, ensure_ascii=draw(st.booleans()), allow_nan=True)


@st.composite
def jsonl_text(draw) -> str:
    lines = [_dumps(r, draw) for r in draw(st.lists(record(), min_size=0, max_size=6))]
    sep = draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
    return sep.join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def json_array_text(draw) -> str:
    items = draw(st.lists(record(), max_size=6))
    return json.dumps(items, indent=draw(st.sampled_from([None, 1])), allow_nan=True)


@st.composite
def delimited_text(draw, sep: str = ",") -> str:
    """CSV/TSV: a header of known and unknown columns, rows of odd cells."""
    names = st.sampled_from(["response", "resp_0", "resp_1", "resp_2", "human", "metric_x", "id"])
    header = draw(st.lists(names | st.text(_CHAR, max_size=4), max_size=5))
    cell = st.one_of(
        text_value(),
        st.floats(allow_nan=True).map(repr),
        st.sampled_from(['"', '""', '"a,b"', 'x"y', "\n", "\r\n", sep]),
    )
    rows = draw(st.lists(st.lists(cell, max_size=len(header) + 2), max_size=6))
    quote = draw(st.booleans())

    def line(cells: list[str]) -> str:
        if quote:
            cells = ['"' + c.replace('"', '""') + '"' for c in cells]
        return sep.join(cells)

    return "\n".join([line(header), *map(line, rows)])


@st.composite
def lsdscc_groups_text(draw) -> str:
    """LSDSCC reference groups: {query: {group_id: [references]}} with wrong shapes mixed in."""
    group = st.dictionaries(
        st.sampled_from(["1", "2", "null", "x", ""]), st.lists(text_value(), max_size=3), max_size=3
    )
    value = st.one_of(group, group, json_value)
    obj = draw(st.dictionaries(text_value(), value, max_size=4))
    return json.dumps(obj if draw(st.integers(0, 7)) else draw(json_value), allow_nan=True)


@st.composite
def lsdscc_hypotheses_text(draw) -> str:
    line = st.lists(text_value(), max_size=4).map(" </s> ".join)
    return "\n".join(draw(st.lists(line | text_value(), max_size=5)))


txt_text = st.lists(text_value(), max_size=8).map("\n".join)

_ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252", "gb18030"]


@st.composite
def damaged(draw, text: st.SearchStrategy[str]) -> bytes:
    """The bytes of a file made from ``text``, often damaged on the way."""
    body = draw(text)
    how = draw(st.integers(0, 9))
    if how <= 3:  # intact (but maybe with lone surrogates escaped into it)
        return body.encode("utf-8", "surrogatepass")
    if how == 4:  # another encoding, or two encodings in one file
        enc = draw(st.sampled_from(_ENCODINGS))
        half = len(body) // 2
        head = body[:half].encode(enc, "replace")
        tail = body[half:].encode(draw(st.sampled_from(_ENCODINGS)), "replace")
        return head + tail
    raw = body.encode("utf-8", "surrogatepass")
    if how == 5:  # truncated, possibly inside a multi-byte character
        return raw[: draw(st.integers(0, max(0, len(raw))))]
    if how == 6:  # junk bytes spliced in
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.binary(min_size=1, max_size=16)) + raw[at:]
    if how == 7:  # a byte-order mark (or two) in front
        bom = draw(
            st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf" * 2])
        )
        return bom + raw
    if how == 8:  # pure binary junk
        return draw(st.binary(max_size=64))
    return raw + b"\x00" * draw(st.integers(1, 4))  # trailing NULs


def huge_line(kind: str, size: int) -> bytes:
    """One line of ``size`` bytes in the given format (memory and time bound checks)."""
    words = ("word " * (size // 5 + 1))[:size]
    if kind == "jsonl":
        return json.dumps({"response": words}).encode()
    if kind == "csv":
        return b"response\n" + words.encode()
    return words.encode()


def deep_nesting(depth: int) -> bytes:
    """A JSON value nested ``depth`` levels (Python's parser recurses once per level)."""
    return ("[" * depth + "]" * depth).encode()


#: (file suffix, strategy of its bytes) for every input kind the readers accept.
FILES = {
    "txt": damaged(txt_text),
    "jsonl": damaged(jsonl_text()),
    "json": damaged(st.one_of(json_array_text(), jsonl_text())),
    "csv": damaged(delimited_text(",")),
    "tsv": damaged(delimited_text("\t")),
}
LSDSCC_GROUPS = damaged(lsdscc_groups_text())
LSDSCC_HYPOTHESES = damaged(lsdscc_hypotheses_text())
