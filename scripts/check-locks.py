#!/usr/bin/env python3
"""Checks that no lock is held across a call that can block or call back (issue 29, item 3).

A callback, a logger write, a thread or task start, a continuation resumed, a D-Bus or socket
call made while a `Mutex` is held can deadlock (the callee takes the same lock, or another in
the reverse order) or stall every thread that wants the lock. The project's rule: under a lock,
only change state and queue what must be told (``CallbackQueue``); tell it after the lock is
released (docs/ARCHITECTURE.md, "Locks").

This reads every `withLock { … }` body in Sources/ (the closure, brace-matched, strings and
comments skipped) and reports the calls in it that the rule forbids:

  logger.<level>(…)   print(…)        Task { … }          Thread / OwnerThread(…).start
  <x>.resume(…)       <x>.yield(…)    <x>.finish(…)        callback(…), on<Name>(…), sink(…)
  <x>.execute { … }   sd_bus_*(…)     write(…) / send(…)   <x>.drain()

What a body hands to `<queue>.enqueue { … }` is not counted: a ``CallbackQueue`` runs it after
the lock is released. A line that must do one of these under the lock says why with `// lock-ok: <reason>` on the
line (or in the comment lines right above it). Prints `file:line: <call> under a lock` per problem and exits 1 if
there is any; 0 otherwise.

Usage: scripts/check-locks.py [repository root]
       scripts/check-locks.py --self-test   (a bad body is caught, a good one is not)
"""
import os, re, sys

FORBIDDEN = [
    (re.compile(r"\blogger\.(trace|debug|info|notice|warning|error|critical|log)\s*\("), "a logger write"),
    (re.compile(r"(?<![\w.])print\s*\("), "print"),
    (re.compile(r"(?<![\w.])Task(\.detached)?\s*(\(|\{)"), "a task start"),
    (re.compile(r"\.start\s*\(\s*\)"), "a thread start"),
    (re.compile(r"\.resume\s*\("), "a continuation resumed"),
    (re.compile(r"\.yield\s*\("), "a stream yield"),
    (re.compile(r"\.finish\s*\("), "a stream finished"),
    (re.compile(r"(?<![\w.])(callback|sink|onChange|onValue|onFailure|onClaimChange|onStateChange|ready)\s*\("), "a callback"),
    (re.compile(r"(?<![\w.])on[A-Z]\w*\s*\("), "a callback"),
    (re.compile(r"\.execute\s*\{"), "an event loop hop"),
    (re.compile(r"\bsd_bus_\w+\s*\("), "a D-Bus call"),
    (re.compile(r"(?<![\w.])(write|send|sendmsg)\s*\("), "a write"),
    (re.compile(r"\.drain\s*\(\s*\)"), "a callback queue drained"),
]
EXEMPT = re.compile(r"//\s*lock-ok:\s*\S")


def strip(text):
    """The text with string literals and comments blanked (same length, newlines kept), and the
    `lock-ok` markers by line."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j])); i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append("".join(c if c == "\n" else " " for c in text[i:j])); i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i)); i = j
        else:
            out.append(text[i]); i += 1
    return "".join(out)


def bodies(code):
    """(start, end) offsets of every `withLock` closure body in stripped code."""
    for match in re.finditer(r"\bwithLock\s*(\([^)]*\))?\s*\{", code):
        depth, j = 1, match.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        yield match.end(), j - 1


def without_queued(code):
    """`code` with the closures handed to `enqueue` blanked: they run after the lock is released
    (``CallbackQueue``), so what they call is not called under it."""
    chars = list(code)
    for match in re.finditer(r"\.enqueue\s*\{", code):
        depth, j = 1, match.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        for k in range(match.end(), j - 1):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)


def exempt(lines, line):
    """Whether `lock-ok` is on the line or in the comment lines right above it."""
    if EXEMPT.search(lines[line]):
        return True
    above = line - 1
    while above >= 0 and lines[above].lstrip().startswith("//"):
        if EXEMPT.search(lines[above]):
            return True
        above -= 1
    return False


def check_file(path, text):
    code = without_queued(strip(text))
    lines = text.split("\n")
    problems = []
    for start, end in bodies(code):
        body = code[start:end]
        for pattern, what in FORBIDDEN:
            for hit in pattern.finditer(body):
                offset = start + hit.start()
                line = code.count("\n", 0, offset)
                if exempt(lines, line):
                    continue
                problems.append((line + 1, f"{what} ({hit.group(0).strip()}) under a lock"))
    return sorted(set(problems))


def check(root):
    problems = []
    for directory, _, files in os.walk(os.path.join(root, "Sources")):
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    for line, message in check_file(path, f.read()):
                        problems.append(f"{os.path.relpath(path, root)}:{line}: {message}")
    return problems


def self_test():
    bad = 'state.withLock { s in\n    s.count += 1\n    logger.info("x")\n    onChange(s)\n    Task { await go() }\n}\n'
    good = ('state.withLock { s in\n    s.count += 1  // logger.info("a comment is no call")\n'
            '    let text = "print(nothing)"\n    callbacks.enqueue { [sink] in sink(.x) }\n'
            '    continuation.yield(1)  // lock-ok: the result decides what the lock guards\n}\n'
            'logger.info("after the lock")\n')
    found = check_file("bad.swift", bad)
    assert [line for line, _ in found] == [3, 4, 5], found
    assert check_file("good.swift", good) == [], check_file("good.swift", good)
    print("check-locks self-test: a logger write, a callback and a task start under a lock are caught; comments, strings, queued closures and lock-ok lines are not")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-locks: {len(problems)} call{'s' if len(problems) != 1 else ''} under a lock (docs/ARCHITECTURE.md, \"Locks\")")
        return 1
    print("check-locks: no lock is held across a callback, a log write, a thread or task start, a resume or a D-Bus call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
