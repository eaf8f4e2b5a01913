"""RoleInteract's exact scoring rules: reading the chosen option letters, and the three scores.

RoleInteract is scored without a judge model, so everything hangs on reading the player's
reply right. A player answers in character and in any language: "B", "(B)", "**B**",
"Answer: B", "I'd pick B, because...", "вариант В" (a Cyrillic look-alike letter). A word
that merely starts with a capital ("A fine question", "В этом я уверен") is not a choice.
`parse_choice` reads explicit markers first and falls back to bare letters only when nothing
explicit is there. Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence

from pingpong.core.methods.roleinteract_data import ChoiceQuestion

UNPARSEABLE = "unparseable"
"""The first word of the explanation of an answer from which no option could be read (it scores 0):
a probe's or a group scene's; the board counts them."""

LOOKALIKES = {"А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "а": "a", "с": "c", "е": "e"}
"""Cyrillic letters that look like Latin option letters (typed in a Russian keyboard layout)."""

_WORD_LETTERS = {"A", "А", "В", "С"}
"""Capital letters that are also words (English article; Russian 'а', 'в', 'с' at a sentence start)."""

_JOINERS = r"and|or|&|\+|/|и|или|либо"
_SEP = re.compile(rf"\s*(?:,\s*(?:(?:{_JOINERS})\s+)?|;\s*|\s(?:{_JOINERS})\s+|[&+/]\s*)", re.IGNORECASE)
"""Between the letters of a list: 'B, D', 'B and D', 'B & D', 'В и D', 'B, and D'."""
_CONTINUATIONS = {
    "is", "are", "seems", "sounds", "fits", "because", "since", "as", "both", "too", "also", "would", "will",
    "feels", "looks", "it", "then", "here", "there", "again", "of", "for",
    "потому", "так", "тоже", "оба", "это", "верно", "верны", "правильно", "подходит", "ближе", "здесь",
}
"""Words that may follow a bare option letter without making it a word ("A is right", "В потому что")."""
_LIST_CONTINUATIONS = {"are", "both", "because", "since", "as", "too", "also", "потому", "так", "оба", "тоже", "верны"}
"""Words that may follow the later letters of a list ("B and D are right"); not "is": "B, A is wrong"."""
_NEGATIONS = re.compile(
    r"(?:(?:\bnot|\bnever|\bneither|\bnor|\brather than|\binstead of|\bexcept|\b\w+n['’]t|\bне|\bни|\bкроме)"
    r"\s*[\"'«(\[]?"
    r"|\b(?:false|wrong|incorrect|untrue|неверн\w*|ложн\w*|ошибочн\w*|неправильн\w*)\s*[:\-–—]\s*[\"'«(\[]?)\s*$",
    re.IGNORECASE)
"""Before a letter (or a declaration: 'never choose A'): 'not A', "don't pick B", 'rather than (B)',
'ни А', 'False: B'."""
_REFUSED_CHOICE = re.compile(
    r"(?:\bnot|\bnever|\b\w+n['’]t|\bне)\s+(?:\w+\s+)?"
    r"(?:choose|pick|select|go\s+(?:for|with)|vote\s+for|выбира\w*|выбер\w*)\s*[\"'«(\[]?\s*$",
    re.IGNORECASE)
"""Before a letter: a choice said not to be made ('I would never choose A', "I won't pick (B)", 'не выбираю А')."""
_DENIALS = re.compile(
    r"[\s,]*(?:(?:is|are|seems|seem|looks)\s+)?(?:(?:both|all|clearly|plainly|obviously|simply)\s+)?"
    r"(?:false|wrong|incorrect|untrue|not\s+(?:true|correct|right|so)\b)"
    r"|\s*[\-–—]?\s*(?:неверн|ложн|ошибочн|неправильн|не\s+верн|не\s+подход|не\s+так\b)"
    r"|\s*[:\-–—]\s*(?:no|нет)\b",
    re.IGNORECASE)
"""After letters: 'B is false', 'B and D are wrong', 'В — неверно', 'Option A: no'."""

_DECLARE = re.compile(
    r"(?:\banswers?\b|\bответ(?:ы|ом)?\b|\bchoos(?:e|ing)\b|\bchose(?:n)?\b|\bpick(?:s|ed|ing)?\b"
    r"|\bselect(?:s|ed|ing)?\b|\bgo(?:ing)? (?:for|with)\b|\bwent (?:for|with)\b|\bchoice\b|\bvote for\b"
    r"|\bвыбира(?:ю|ем)\b|\bвыбер(?:у|ем)\b|\bвыбрал[аи]?\b|\bвыбор\b|\bголосую за\b|\bостановлю(?:сь)? на\b)"
    r"(?:\s*(?:is|are|would be|will be|must be|should be|has to be|here|will|будет|это|[:=\-–—]))*"
    r"(?:\s+(?:clearly|obviously|definitely|surely|plainly|certainly|simply|probably|undoubtedly|indeed"
    r"|конечно|очевидно|точно|безусловно|несомненно)[,:]?)?"
    r"\s*(?:(?:the\s+)?(?:options?|letters?|variants?|вариант(?:ы|а|ов)?|пункт(?:ы|а)?)\s*[:\-–—]?\s*)?",
    re.IGNORECASE,
)
_OPTION_WORD = re.compile(r"(?:\boptions?\b|\bvariants?\b|\bвариант(?:ы|а|ов)?\b|\bпункт(?:ы|а)?\b)\s*[:\-–—]?\s*",
                          re.IGNORECASE)
_OPEN = re.compile(r"[(\[\"'«“]?\s*")
_CLOSE = re.compile(r"\s*[)\]\"'»”]")
_LINE_START = re.compile(r"^[ \t>\-–—•\"'«“]*(?:(?:options?|variants?|вариант(?:ы|а)?)\s*[:\-–—]?\s*)?",
                         re.IGNORECASE | re.MULTILINE)


def _clean(text: str) -> str:
    """Markdown emphasis and headings dropped, stage directions (*sighs*) blanked."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    text = re.sub(r"(?m)^\s*#+\s*", "", text)
    text = re.sub(r"\*(\S{1,3})\*", r"\1", text)  # *B*
    text = re.sub(r"\*[^*\n]*\*", " ", text)  # *adjusts his monocle*
    return text


def _map_lookalikes(text: str) -> str:
    """Cyrillic look-alikes standing alone as a one-letter token become their Latin letters."""
    return re.sub(r"(?<![\w'’])[АВСЕНасе](?![\w'’])", lambda m: LOOKALIKES[m.group(0)], text)


class _Reader:
    """Finds option letters in one cleaned reply; `orig` keeps the pre-mapping characters."""

    def __init__(self, text: str, letters: Sequence[str]):
        self.orig = _clean(text)
        self.text = _map_lookalikes(self.orig)
        self.upper = "".join(sorted({ch.upper() for ch in letters}))
        self.lower = self.upper.lower()
        chars = re.escape(self.upper + self.lower)
        self.token = re.compile(rf"(?<![\w'’])([{chars}])(?![\w'’]|-\w)")

    # -- one letter token and what follows it ---------------------------------------------
    def _after(self, end: int) -> str:
        return self.text[end:end + 40]

    def _ends_cleanly(self, end: int, words: set[str] = _CONTINUATIONS) -> bool:
        """Followed by the end, punctuation, a closing bracket/quote, a joiner or a continuation word."""
        rest = self._after(end)
        if not rest.strip() or re.match(r"\s*[.,;:!?)\]}\"'»”…\-–—]", rest):
            return True
        if re.match(rf"\s+(?:{_JOINERS})(?:\s|$)", rest, re.IGNORECASE):
            return True
        word = re.match(r"\s+([^\W\d_]+)", rest)
        return word is not None and word.group(1).casefold() in words

    def _is_word(self, start: int, end: int) -> bool:
        """A capital that reads as a word here ('A fine day', 'В этом', 'А, эта штука'), not as an option."""
        return self.orig[start] in _WORD_LETTERS and (not self._ends_cleanly(end) or self._interjection(start, end))

    def _interjection(self, start: int, end: int) -> bool:
        """Russian 'А,' / 'А!' ('Ah,') before more words, unlike a list 'А, С' or a reply that is just 'А!'."""
        if self.orig[start] != "А":
            return False
        rest = re.match(r"\s*[,!?…]+\s*", self.text[end:])
        if not rest or rest.end() == len(self.text) - end or self.token.match(self.text, end + rest.end()):
            return False
        word = re.match(r"[^\W\d_]+", self.text[end + rest.end():])
        return not (word and word.group(0).casefold() in _CONTINUATIONS)

    def _negated(self, start: int) -> bool:
        before = self.text[max(0, start - 40):start]
        return bool(_NEGATIONS.search(before[-20:]) or _REFUSED_CHOICE.search(before))

    def _denied(self, end: int) -> bool:
        return bool(_DENIALS.match(self.text, end))

    def _letter_at(self, pos: int, strict: bool, words: set[str] = _CONTINUATIONS) -> tuple[str, int] | None:
        """The letter token starting at pos (brackets and quotes around it allowed) and where it ends.

        Lower-case letters need clean endings ('answer: b.'), so 'I'd pick a different one' is no
        choice; with strict, capitals do too (a line's first letter: 'A fine question' is none);
        later list items may be followed only by list words ('B, A is wrong' lists only B)."""
        opened = _OPEN.match(self.text, pos)
        t = self.token.match(self.text, opened.end() if opened else pos)
        if not t:
            return None
        letter, end = t.group(1), t.end()
        if (letter.islower() or strict) and not self._ends_cleanly(end, words):
            return None
        if strict and self._interjection(t.start(), end):
            return None
        close = _CLOSE.match(self.text, end)
        return letter.upper(), close.end() if close else end

    def _list_at(self, pos: int, first_strict: bool) -> tuple[set[str], int]:
        """'B', 'B, D', 'B and D', 'B & D', '(B) or (D)' starting at pos; empty when no letter."""
        found: set[str] = set()
        first = self._letter_at(pos, first_strict)
        if first is None:
            return found, pos
        found.add(first[0])
        end = first[1]
        while True:
            s = _SEP.match(self.text, end)
            if not s:
                break
            item = self._letter_at(s.end(), strict=True, words=_LIST_CONTINUATIONS)
            if item is None:
                break
            found.add(item[0])
            end = item[1]
        return found, end

    # -- the tiers, strongest first ---------------------------------------------------------
    def declared(self) -> set[str]:
        """After 'answer', 'I pick', 'I choose', 'my choice', 'ответ', 'выбираю', ..."""
        found: set[str] = set()
        for m in _DECLARE.finditer(self.text):
            if self._negated(m.start()):  # 'I would never choose A', "I don't pick B"
                continue
            letters, _ = self._list_at(m.end(), first_strict=False)
            found |= letters
        return found

    def leading(self) -> set[str]:
        """A line that starts with the letters: 'B', 'B.', 'B) ...', '(B)', 'B and D', 'Option B'."""
        found: set[str] = set()
        for m in _LINE_START.finditer(self.text):
            letters, end = self._list_at(m.end(), first_strict=True)
            if not self._denied(end):
                found |= letters
        return found

    def marked(self) -> set[str]:
        """'(B)', '[B]', 'B)', '(A and B)' or 'option B' / 'вариант В' anywhere, unless negated
        ('not (A)', '(A) is wrong')."""
        found: set[str] = set()
        lists: list[tuple[int, int]] = []  # a bracketed list is read whole, not as its last 'B)'
        for m in re.finditer(r"[(\[]", self.text):
            letters, end = self._list_at(m.end(), first_strict=True)
            if len(letters) > 1 and self.text[end - 1] in ")]":
                lists.append((m.start(), end))
                if not self._negated(m.start()) and not self._denied(end):
                    found |= letters
        chars = re.escape(self.upper + self.lower)
        for m in re.finditer(rf"[(\[]\s*([{chars}])\s*[)\]]|(?<![\w'’(\[])([{re.escape(self.upper)}])\)", self.text):
            if any(start <= m.start() < end for start, end in lists):
                continue
            if not self._negated(m.start()) and not self._denied(m.end()):
                found.add((m.group(1) or m.group(2)).upper())
        for m in _OPTION_WORD.finditer(self.text):
            if not self._negated(m.start()):
                letters, end = self._list_at(m.end(), first_strict=False)
                if not self._denied(end):
                    found |= letters
        return found

    def bare(self) -> set[str]:
        """Capital letters standing alone (or listed: 'A and C'), unless they read as words or are
        negated ('not A', 'False: B, D', 'B and D are wrong')."""
        found: set[str] = set()
        done = 0
        for t in self.token.finditer(self.text):
            letter = t.group(1)
            if t.start() < done or letter.islower() or self._is_word(t.start(), t.end()):
                continue
            letters, done = self._list_at(t.start(), first_strict=False)
            if not self._negated(t.start()) and not self._denied(done):
                found |= letters
        return found


_RETRACTED = re.compile(r"\w\s*(?:[?!.,]+|…)\s*(?:no|nope|нет)\s*(?:[,.!;:…]+|\s[—–-])", re.IGNORECASE)
"""A choice taken back in the same breath: "A? No,", "B... no.", "A! No, C", "A. No — C", "В? Нет,".
The "no" stands alone, closed by punctuation: "A? No doubt." keeps its A."""


def parse_choice(text: str, letters: Sequence[str], multiple: bool) -> frozenset[str] | None:
    """The option letters a reply chooses, upper-case Latin, or None when it chooses none.

    Reads, in order, and stops at the first kind found: declared choices ('Answer: B', 'I'd pick
    B', 'ответ: В'), lines that start with the letters ('B.', '(B)', 'B and D', 'Option B'),
    marked letters anywhere ('(B)', 'B)', 'вариант В'), then bare capital letters that do not
    read as words. Cyrillic look-alikes (А, В, С, Е, Н) count as Latin. Only `letters` count.
    With multiple=False the reply must name exactly one letter: several is a conflict -> None.
    A choice taken back ("A? No. C.") gives way to the one after it.
    """
    if not letters:
        raise ValueError("parse_choice needs the option letters")
    retracted = list(_RETRACTED.finditer(text))
    if retracted:  # "A? No. C.": what follows the last change of mind is the answer, when it names one
        after = parse_choice(text[retracted[-1].end():], letters, multiple)
        if after is not None:
            return after
    reader = _Reader(text, letters)
    for tier in (reader.declared, reader.leading, reader.marked, reader.bare):
        found = tier()
        if found:
            if not multiple and len(found) > 1:
                return None
            return frozenset(found)
    return None


def score_single(chosen: Collection[str] | None, correct: Collection[str]) -> float:
    """Acc_single for one question: 1.0 when the chosen letter is the correct one, else 0.0."""
    if not correct:
        raise ValueError("a question needs a correct answer")
    if chosen is None:
        return 0.0
    return 1.0 if set(chosen) == set(correct) else 0.0


def score_multiple(chosen: Collection[str] | None, correct: Collection[str]) -> float:
    """Acc_multiple for one question: 0 if any chosen option is wrong, else |chosen ∩ correct| / |correct|."""
    right = set(correct)
    if not right:
        raise ValueError("a question needs at least one correct answer")
    if chosen is None:
        return 0.0
    picked = set(chosen)
    if picked - right:
        return 0.0
    return len(picked & right) / len(right)


def score_question(question: ChoiceQuestion, reply: str) -> float:
    """Parse a reply to question and score it by the rule of its dimension."""
    chosen = parse_choice(reply, question.letters, question.multiple)
    if question.multiple:
        return score_multiple(chosen, question.answer)
    return score_single(chosen, question.answer)


def _fold(text: str) -> str:
    """Case-insensitive form for matching: NFC, casefold, ё as е, runs of whitespace as one space."""
    text = unicodedata.normalize("NFC", text).casefold().replace("ё", "е")
    return re.sub(r"\s+", " ", text)


def keyword_coverage(reply: str, keywords: Collection[str]) -> float:
    """|expected keywords found in the reply| / |expected keywords|: case-insensitive substrings."""
    if not keywords:
        raise ValueError("keyword coverage needs at least one keyword")
    folded = _fold(reply)
    return sum(1 for k in keywords if _fold(k).strip() in folded) / len(keywords)


def accuracy(values: Sequence[float]) -> float | None:
    """The mean of per-question scores (Acc_single, Acc_multiple, coverage); None when there are none."""
    if not values:
        return None
    return sum(values) / len(values)
