"""BERT (uncased) WordPiece tokenizer in pure Python, token for token what HuggingFace
``tokenizers`` makes of sentence-transformers' BERT models (no ``tokenizers`` needed)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from cogmem.embed.base import EmbedderUnavailable

# CJK ideograph blocks that BERT splits into single-character words.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # All non-letter/number ASCII is punctuation for BERT ("$", "^", "`" included).
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _normalise_char(ch: str, lowercase: bool) -> str:
    """What BERT's normaliser + pre-tokeniser make of one character.

    Follows HuggingFace ``tokenizers``' BertNormalizer (clean text, pad CJK ideographs,
    strip accents, lowercase — in that order, character by character) and
    BertPreTokenizer (split on whitespace, isolate punctuation). Splitting is expressed
    by surrounding characters with spaces, so that a whole text is normalised by one
    ``str.translate`` and split by one ``str.split``.
    """
    cp = ord(ch)
    if cp == 0 or cp == 0xFFFD:
        return ""
    if ch in "\t\n\r":
        return " "
    category = unicodedata.category(ch)
    # Cc, Cf, Co and Cs are dropped; unassigned code points (Cn) are kept as letters, as
    # the Rust normaliser does (they end up as [UNK])
    if category.startswith("C") and category != "Cn":
        return ""
    if category in ("Zs", "Zl", "Zp"):  # Unicode White_Space that is not a control
        return " "
    if lowercase:
        decomposed = unicodedata.normalize("NFD", ch)
        stripped = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
        # char-by-char lowering, as the Rust normaliser does (no final-sigma rule)
        text = "".join(c.lower() for c in stripped)
    else:
        text = ch
    if _is_cjk(cp):
        return f" {text} "
    return "".join(f" {c} " if _is_punctuation(c) else c for c in text)


class _CharTable(dict[int, str]):
    """A ``str.translate`` table that fills itself in on first sight of a code point."""

    def __init__(self, lowercase: bool) -> None:
        super().__init__()
        self.lowercase = lowercase
        for cp in range(128):  # warm the ASCII part up front
            self[cp] = _normalise_char(chr(cp), lowercase)

    def __missing__(self, cp: int) -> str:
        value = _normalise_char(chr(cp), self.lowercase)
        self[cp] = value
        return value


class WordPieceTokenizer:
    """BERT (uncased) tokenizer: BasicTokenizer + greedy longest-match-first WordPiece.

    Matches the ``tokenizer.json`` of sentence-transformers' BERT models token for token:
    special tokens written literally in a text (``[CLS]``, ``[MASK]`` …) are kept whole,
    words longer than ``max_input_chars_per_word`` characters and words that cannot be
    covered by vocabulary pieces become ``[UNK]``; :meth:`encode` adds ``[CLS]``/``[SEP]``
    and truncates to ``max_length`` ids in all.
    """

    def __init__(
        self,
        vocab_path: Path,
        *,
        lowercase: bool = True,
        max_length: int = 256,
        max_input_chars_per_word: int = 100,
        cache_size: int = 65536,
        unk_token: str = "[UNK]",
        cls_token: str = "[CLS]",
        sep_token: str = "[SEP]",
        pad_token: str = "[PAD]",
        mask_token: str = "[MASK]",
    ) -> None:
        lines = Path(vocab_path).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.vocab: dict[str, int] = {}
        for index, token in enumerate(lines):
            self.vocab.setdefault(token.rstrip("\r"), index)
        self.inverse: list[str] = [""] * len(lines)
        for token, index in self.vocab.items():
            self.inverse[index] = token
        for token in (unk_token, cls_token, sep_token, pad_token):
            if token not in self.vocab:
                raise EmbedderUnavailable(f"{vocab_path} lacks the special token {token}")
        self.unk_id = self.vocab[unk_token]
        self.cls_id = self.vocab[cls_token]
        self.sep_id = self.vocab[sep_token]
        self.pad_id = self.vocab[pad_token]
        if max_length < 2:
            raise ValueError("max_length must leave room for [CLS] and [SEP]")
        self.max_length = max_length
        self.max_input_chars_per_word = max_input_chars_per_word
        self._table = _CharTable(lowercase)
        specials = [t for t in (pad_token, unk_token, cls_token, sep_token, mask_token)]
        self._special_ids = {t: self.vocab[t] for t in specials if t in self.vocab}
        self._special_re = re.compile("(" + "|".join(map(re.escape, self._special_ids)) + ")")
        self._special_chars = {t[0] for t in self._special_ids}
        self._word_cache: dict[str, tuple[int, ...]] = {}
        self._word_cache_limit = 1 << 18
        self._encode_cached = lru_cache(maxsize=cache_size)(self._encode_uncached)

    def __len__(self) -> int:
        return len(self.inverse)

    def basic_tokenize(self, text: str) -> list[str]:
        """Normalised words and punctuation marks (no WordPiece, no special tokens)."""
        return text.translate(self._table).split()

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        cached = self._word_cache.get(word)
        if cached is not None:
            return cached
        vocab = self.vocab
        whole = vocab.get(word)
        if whole is not None:
            ids: tuple[int, ...] = (whole,)
        elif len(word) > self.max_input_chars_per_word:
            ids = (self.unk_id,)
        else:
            pieces: list[int] = []
            start, n = 0, len(word)
            while start < n:
                end = n
                found = None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    found = vocab.get(piece)
                    if found is not None:
                        break
                    end -= 1
                if found is None:
                    pieces = [self.unk_id]
                    break
                pieces.append(found)
                start = end
            ids = tuple(pieces)
        if len(self._word_cache) >= self._word_cache_limit:
            self._word_cache.clear()
        self._word_cache[word] = ids
        return ids

    def _segments(self, text: str) -> Iterator[tuple[str, int | None]]:
        """The text split around literal special tokens: (text, None) or (token, id)."""
        if not any(c in text for c in self._special_chars):
            yield text, None
            return
        for i, part in enumerate(self._special_re.split(text)):
            if i % 2:
                yield part, self._special_ids[part]
            elif part:
                yield part, None

    def piece_ids(self, text: str, limit: int | None = None) -> list[int]:
        """WordPiece ids of ``text`` without [CLS]/[SEP]; at most ``limit`` of them."""
        out: list[int] = []
        word_cache = self._word_cache
        for segment, special in self._segments(text):
            if special is not None:
                out.append(special)
            else:
                for word in segment.translate(self._table).split():
                    ids = word_cache.get(word) or self._wordpiece(word)
                    out.extend(ids)
                    if limit is not None and len(out) >= limit:
                        break
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def tokenize(self, text: str) -> list[str]:
        """WordPiece token strings of ``text`` (no [CLS]/[SEP], no truncation)."""
        return [self.inverse[i] for i in self.piece_ids(text)]

    def encode(self, text: str) -> tuple[int, ...]:
        """[CLS] + WordPiece ids + [SEP], at most ``max_length`` ids (LRU-cached)."""
        return self._encode_cached(text)

    def clear_cache(self) -> None:
        """Forget cached tokenisations (texts and words)."""
        self._encode_cached.cache_clear()
        self._word_cache.clear()

    def _encode_uncached(self, text: str) -> tuple[int, ...]:
        pieces = self.piece_ids(text, self.max_length - 2)
        return (self.cls_id, *pieces, self.sep_id)

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.inverse[i] for i in ids]
