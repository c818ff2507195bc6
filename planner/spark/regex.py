"""Java regular expressions (Spark's dialect) checked against RE2 (DuckDB's).

Spark compiles ``rlike``/``regexp_replace``/``regexp_extract`` patterns with
``java.util.regex``; DuckDB with RE2. The common core (classes, anchors, groups, greedy
and lazy quantifiers, ``\\d \\w \\s \\b``, ``(?i)``/``(?m)``/``(?s)`` flags, ``\\Q...\\E``)
means the same in both. What RE2 lacks or reads differently is refused before a plan is
built, with a message naming the construct:

- lookahead and lookbehind ``(?=`` ``(?!`` ``(?<=`` ``(?<!``, atomic groups ``(?>``,
  possessive quantifiers ``*+`` ``++`` ``?+`` ``}+`` (RE2 has none of them);
- backreferences ``\\1``..``\\9`` and ``\\k<name>`` (RE2 has none);
- named groups ``(?<name>`` and flags other than ``i``, ``m``, ``s`` (``(?U)`` is Unicode
  classes in Java but ungreedy in RE2; ``(?x)``, ``(?d)``, ``(?u)`` do not exist in RE2);
- escapes Java gives another meaning or RE2 does not know: ``\\G \\Z \\h \\H \\v \\V \\R
  \\X \\e`` and property classes ``\\p{...}``/``\\P{...}`` (Java's ``\\p{Lower}`` is POSIX
  ASCII, RE2's names are Unicode scripts);
- ``[:`` inside a class (RE2 reads ``[[:alpha:]]`` as a POSIX class, Java as the
  characters ``:alph``) and ``&&`` (a class intersection in Java, two ampersands in RE2).

One difference stays, written down here: Java's ``$`` without ``(?m)`` also matches before
a final line terminator, RE2's only at the very end. Patterns are user data: they travel as
literals and are never formatted into SQL; a pattern RE2 cannot compile fails the query
with DuckDB's message.

Replacement strings follow Java's ``Matcher.replaceAll``: ``$n`` is group ``n`` and a
backslash quotes the next character; ``java_replacement`` rewrites them in RE2's syntax
(``\\n`` for group ``n``, ``\\\\`` for a backslash).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError

_REFUSED_ESCAPES = {
    "G": "\\G (end of previous match)", "Z": "\\Z (end before a final line terminator)",
    "h": "\\h (horizontal space)", "H": "\\H", "v": "\\v (vertical space)", "V": "\\V",
    "R": "\\R (line break)", "X": "\\X (grapheme cluster)", "e": "\\e (escape)",
    "p": "\\p{...} (property class)", "P": "\\P{...} (property class)",
    "k": "\\k<name> (named backreference)",
}
_REFUSED_GROUPS = {
    "=": "lookahead (?=", "!": "negative lookahead (?!", "<=": "lookbehind (?<=",
    "<!": "negative lookbehind (?<!", ">": "atomic group (?>", "<": "named group (?<name>",
}
_FLAGS = frozenset("ims-")


def check_java_regex(pattern: str) -> str:
    """``pattern`` if RE2 reads it as Java does, else an ``AnalysisError`` naming why."""
    i, depth, in_class, after_quantifier = 0, 0, False, False
    while i < len(pattern):
        ch = pattern[i]
        quantifier = False
        if ch == "\\":
            nxt = pattern[i + 1] if i + 1 < len(pattern) else ""
            if nxt == "":
                _refuse(pattern, "a trailing backslash")
            if nxt in _REFUSED_ESCAPES:
                _refuse(pattern, _REFUSED_ESCAPES[nxt])
            if nxt.isdigit() and nxt != "0" and not in_class:
                _refuse(pattern, f"backreference \\{nxt}")
            if nxt == "Q":
                end = pattern.find("\\E", i + 2)
                i = len(pattern) if end < 0 else end + 2
                after_quantifier = False
                continue
            i += 2
            after_quantifier = False
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif pattern.startswith("[:", i) or pattern.startswith("&&", i):
                _refuse(pattern, f"{pattern[i:i + 2]!r} inside a character class")
            elif ch == "[":
                _refuse(pattern, "a nested character class")
        elif ch == "[":
            in_class, after_quantifier = True, False
            i += 1
            i += pattern.startswith("^", i)
            i += pattern.startswith("]", i)  # a leading ']' is a member, not the end
            continue
        elif ch == "(":
            depth += 1
            if pattern.startswith("(?", i):
                _check_group(pattern, pattern[i + 2:])
        elif ch == ")":
            depth -= 1
            if depth < 0:
                _refuse(pattern, "an unbalanced ')'")
        elif ch in "*+?}":
            if ch == "+" and after_quantifier:
                _refuse(pattern, "a possessive quantifier")
            quantifier = ch != "?" or not after_quantifier
        after_quantifier = quantifier
        i += 1
    if in_class:
        _refuse(pattern, "an unclosed '['")
    if depth:
        _refuse(pattern, "an unclosed '('")
    return pattern


def _check_group(pattern: str, rest: str) -> None:
    if rest.startswith(":"):
        return
    for opener in ("<=", "<!", "=", "!", ">", "<"):
        if rest.startswith(opener):
            _refuse(pattern, _REFUSED_GROUPS[opener])
    flags = rest[: min((rest.find(c) for c in ":)" if c in rest), default=len(rest))]
    if not flags or any(f not in _FLAGS for f in flags):
        _refuse(pattern, f"the inline flags (?{flags}")


def java_replacement(replacement: str) -> str:
    """Java's replacement syntax in RE2's: ``$n`` -> ``\\n``, ``\\c`` -> ``c`` (quoted)."""
    out: list[str] = []
    i = 0
    while i < len(replacement):
        ch = replacement[i]
        if ch == "\\":
            if i + 1 >= len(replacement):
                _refuse_replacement(replacement, "a trailing backslash")
            quoted = replacement[i + 1]
            out.append("\\\\" if quoted == "\\" else quoted)
            i += 2
            continue
        if ch == "$":
            digit = replacement[i + 1: i + 2]
            if not digit.isdigit():
                _refuse_replacement(replacement, "'$' not followed by a group number")
            if replacement[i + 2: i + 3].isdigit():
                _refuse_replacement(replacement, "a group number of two digits")
            out.append("\\" + digit)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def check_java_replacement(replacement: str) -> str:
    java_replacement(replacement)
    return replacement


def _refuse(pattern: str, what: str) -> None:
    raise AnalysisError(
        f"regular expression {pattern!r}: {what} is not supported by sparkwire (DuckDB's RE2 "
        "reads Java regular expressions differently or not at all)"
    )


def _refuse_replacement(replacement: str, what: str) -> None:
    raise AnalysisError(f"replacement {replacement!r}: {what} is not supported by sparkwire")
