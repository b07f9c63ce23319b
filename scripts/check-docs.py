#!/usr/bin/env python3
"""Checks that the documentation agrees with the code (issue 22, item 10).

1. Every DocC symbol link in a `///` comment under Sources/ (``Type``, ``Type/member``,
   ``member(label:)``, ``Module/Type/member``) names a symbol declared in Sources/: types,
   functions (with the same argument labels when the link gives them), properties, enum cases,
   initialisers. A relative link resolves against the types enclosing the comment (and the type
   it documents), as DocC does; names the project does not declare (the standard library's, a
   package's) are reported too, since DocC cannot resolve them either.
2. Every repository path named in README.md, docs/*.md and `///` comments exists: words that
   start with one of the repository's top-level entries (`Sources/…`, `docs/…`, `Makefile`,
   `scripts/…`), and relative Markdown link targets. Absolute paths (`/usr/lib/…`, paths on the
   target system), URLs, and words with placeholders (`…`, `*`, `<name>`, `$VAR`) are not paths
   of this repository.

Prints one line per problem (file:line: what) and exits 1 if there is any; 0 otherwise.
Usage: scripts/check-docs.py [repository root]
       scripts/check-docs.py --self-test   (the checker against a small repository of its own:
                                             every kind of break is caught, nothing else is)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# MARK: - Swift declarations

TYPE_KEYWORDS = ("class", "struct", "enum", "protocol", "actor", "extension", "typealias")
DECL = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|final|static|class|override|mutating|nonmutating|"
    r"nonisolated|indirect|convenience|required|lazy|weak|unowned|dynamic|consuming|borrowing|isolated|"
    r"(?:private|fileprivate|public|package|internal)\(set\))\s+)*"
    r"(?P<kind>class|struct|enum|protocol|actor|extension|typealias|func|init|subscript|var|let|case|associatedtype|macro)\b"
    r"(?P<rest>.*)$"
)
IDENT = r"[A-Za-z_][A-Za-z0-9_]*|`[^`]+`"


class Type:
    def __init__(self, name):
        self.name = name
        self.members = {}   # base name -> set of label signatures (None: no parameter list)
        self.nested = {}    # name -> Type

    def add(self, name, labels):
        self.members.setdefault(name, set()).add(labels)


TYPES = {}          # every type name (last component) -> list of Type (merged by name)
TOPLEVEL = Type("<top>")


def type_named(name):
    if name not in TYPES:
        TYPES[name] = Type(name)
    return TYPES[name]


def split_top_level(text):
    """Splits a parameter list's text at commas outside brackets and strings."""
    parts, depth, current, quote = [], 0, "", False
    text = text.replace("->", "\u2192")  # a function type's arrow is no closing bracket
    for ch in text:
        if ch == '"':
            quote = not quote
        if not quote:
            if ch in "([{<":
                depth += 1
            elif ch in ")]}>":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(current)
                current = ""
                continue
        current += ch
    if current.strip():
        parts.append(current)
    return parts


def labels_of(parameters, is_case=False):
    """External argument labels of a parameter list: `a b: T` -> a, `a: T` -> a, `T` (case) -> _."""
    labels = []
    for part in split_top_level(parameters):
        head = part.split(":", 1)
        if len(head) == 1:
            labels.append("_")  # an unlabelled associated value
            continue
        words = head[0].split()
        words = [w for w in words if w not in ("inout", "borrowing", "consuming", "isolated", "sending") and not w.startswith("@")]
        labels.append(words[0].strip("`") if words else "_")
    return tuple(labels)


def balanced(text, start):
    """Index just past the bracket matching text[start] ('(' or '<')."""
    opening = text[start]
    closing = {"(": ")", "<": ">", "[": "]"}[opening]
    depth = 0
    for index in range(start, len(text)):
        ch = text[index]
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def strip_strings_and_comments(line, in_block):
    """The line without string contents and comments (for brace counting); and whether a /* */
    comment is still open."""
    out, i, quote = "", 0, False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return out, True
            i, in_block = end + 2, False
            continue
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                quote = False
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        if ch == '"':
            quote = True
        else:
            out += ch
        i += 1
    return out, in_block


class SwiftFile:
    """A Swift file's declarations, and its `///` comment lines with the types around them."""

    def __init__(self, path):
        self.path = path
        self.doc_lines = []  # (line number, text, [enclosing Type...], documented Type or None)
        with open(path, encoding="utf-8") as handle:
            self.lines = handle.read().split("\n")

    def parse(self):
        stack = []          # (Type or None, depth at which it opened)
        depth = 0
        in_block = False
        pending_docs = []
        text = "\n".join(self.lines)
        offsets = [0]
        for line in self.lines:
            offsets.append(offsets[-1] + len(line) + 1)
        for number, line in enumerate(self.lines, start=1):
            stripped = line.strip()
            if stripped.startswith("///"):
                pending_docs.append((number, stripped[3:]))
                continue
            enclosing = [entry[0] for entry in stack if entry[0] is not None]
            match = None if in_block else DECL.match(line)
            documented = None
            if match:
                documented = self.declare(match, enclosing, text, offsets[number - 1] + match.start("rest"), stack, depth)
                if documented is not None and match.group("kind") != "typealias":
                    self.declare_inline(line, documented, enclosing)
            if pending_docs and stripped and not stripped.startswith("@") and not stripped.startswith("//"):
                for doc_number, doc_text in pending_docs:
                    self.doc_lines.append((doc_number, doc_text, enclosing, documented))
                pending_docs = []
            code, in_block = strip_strings_and_comments(line, in_block)
            for ch in code:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    while stack and stack[-1][1] > depth:
                        stack.pop()
            # A type whose body did not open on its line opens with the next `{`.
        for doc_number, doc_text in pending_docs:
            self.doc_lines.append((doc_number, doc_text, [entry[0] for entry in stack if entry[0]], None))

    def declare_inline(self, line, declared, enclosing):
        """Members declared on the type's own line: `enum Size { case small, large }`."""
        code, _ = strip_strings_and_comments(line, False)
        opening = code.find("{")
        if opening < 0:
            return
        body = code[opening + 1:]
        closing = body.rfind("}")
        body = body[:closing] if closing >= 0 else body
        for part in body.split(";"):
            match = DECL.match(part)
            if match and match.group("kind") not in TYPE_KEYWORDS:
                self.declare(match, enclosing + [declared], part, match.start("rest"), [], 0)

    def declare(self, match, enclosing, text, rest_offset, stack, depth):
        kind, rest = match.group("kind"), match.group("rest")
        owner = enclosing[-1] if enclosing else TOPLEVEL
        if kind in TYPE_KEYWORDS:
            name_match = re.match(r"\s+((?:" + IDENT + r")(?:\.(?:" + IDENT + r"))*)", rest)
            if not name_match:
                return None
            full = name_match.group(1).replace("`", "")
            name = full.split(".")[-1]
            declared = type_named(name)
            if kind == "enum" and re.match(r"\s*[^:{]*:\s*(?:String|Int|UInt8|Int32|UInt32|Double|Character)\b", rest[name_match.end(1):]):
                declared.add("rawValue", None)  # RawRepresentable's, synthesised
                declared.add("init", ("rawValue",))
            if kind != "extension":
                owner.nested[name] = declared
                owner.add(name, None)
                if owner is not TOPLEVEL:
                    TOPLEVEL.nested.setdefault(name, declared)
            else:
                TOPLEVEL.nested.setdefault(name, declared)
            if kind != "typealias" and "{" in rest:
                # Opens at the current depth + 1 (the `{` is counted after this).
                stack.append((declared, depth + 1))
            elif kind != "typealias":
                stack.append((declared, depth + 1))  # body opens on a later line
            return declared
        if kind == "associatedtype":
            name_match = re.match(r"\s+(" + IDENT + ")", rest)
            if name_match:
                owner.add(name_match.group(1), None)
            return None
        if kind in ("func", "macro"):
            name_match = re.match(r"\s+(" + IDENT + r"|[^\s(<]+)\s*(<)?", rest)
            if not name_match:
                return None
            name = name_match.group(1).strip("`")
            position = rest_offset + name_match.end(1)
            position = skip_generics(text, position)
            if position < len(text) and text[position] == "(":
                owner.add(name, labels_of(text[position + 1:balanced(text, position) - 1]))
            else:
                owner.add(name, None)
            return None
        if kind in ("init", "subscript"):
            position = rest_offset
            while position < len(text) and text[position] in "?! \t":
                position += 1
            position = skip_generics(text, position)
            if position < len(text) and text[position] == "(":
                owner.add(kind, labels_of(text[position + 1:balanced(text, position) - 1]))
            return None
        if kind in ("var", "let"):
            for name_match in re.finditer(r"(?:^|,)\s*\(?\s*(" + IDENT + r")\s*[:=,)]?", rest.split("{")[0].split("=")[0]):
                owner.add(name_match.group(1).strip("`"), None)
            return None
        if kind == "case":
            if not enclosing:
                return None
            for part in split_top_level(rest.split("//")[0]):
                name_match = re.match(r"\s*(" + IDENT + r")\s*(\()?", part)
                if not name_match or name_match.group(1) in ("let", "var", "is", "_"):
                    continue
                name = name_match.group(1).strip("`")
                if name_match.group(2):
                    start = part.index("(", name_match.start(2))
                    owner.add(name, labels_of(part[start + 1:balanced(part, start) - 1], is_case=True))
                    owner.add(name, None)
                else:
                    owner.add(name, None)
            return None
        return None


def skip_generics(text, position):
    while position < len(text) and text[position] in " \t":
        position += 1
    if position < len(text) and text[position] == "<":
        position = balanced(text, position)
    return position


# MARK: - Symbol links

LINK = re.compile(r"``([^`\s][^`]*?)``")


def parse_component(component):
    """`name(a:b:)` -> ("name", ("a", "b")); `name` -> ("name", None). A DocC disambiguation
    suffix (`-swift.method`, `-1a2b3`) is dropped."""
    component = re.sub(r"-(?:swift\.[a-z.]+|[0-9a-f]{4,6})$", "", component)
    match = re.fullmatch(r"([^(]+)(?:\((.*)\))?", component)
    if not match:
        return component, None
    name, labels = match.group(1), match.group(2)
    if labels is None:
        return name, None
    return name, tuple(label for label in labels.split(":") if label != "") if labels else ()


def member_matches(owner, name, labels):
    if name not in owner.members and name not in owner.nested:
        return False
    if labels is None:
        return True
    return labels in owner.members.get(name, set())


def resolve(link, enclosing, documented, modules):
    components = link.split("/")
    # `OrientationClient/…` may be the module or the type of that name.
    if components[0] in modules and len(components) > 1 and resolve_path(components[1:], enclosing, documented):
        return True
    return resolve_path(components, enclosing, documented)


def resolve_path(components, enclosing, documented):
    first, first_labels = parse_component(components[0])
    candidates = []
    scopes = ([documented] if documented else []) + list(reversed(enclosing))
    if len(components) == 1:
        for scope in scopes:
            if member_matches(scope, first, first_labels):
                return True
        if first_labels is None and first in TYPES:
            return True
        return member_matches(TOPLEVEL, first, first_labels)
    # A path: the first component is a type (possibly nested in an enclosing scope).
    if first_labels is not None:
        return False
    for scope in scopes:
        if first in scope.nested:
            candidates.append(scope.nested[first])
    if first in TYPES:
        candidates.append(TYPES[first])
    for current in candidates:
        ok = True
        for index, component in enumerate(components[1:], start=1):
            name, labels = parse_component(component)
            last = index == len(components) - 1
            if not last:
                if name in current.nested:
                    current = current.nested[name]
                    continue
                ok = False
                break
            if not member_matches(current, name, labels):
                ok = False
        if ok:
            return True
    return False


# MARK: - Paths

def top_level_entries():
    listed = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True).stdout.split("\n")
    entries = {line.split("/")[0] for line in listed if line}
    # Files not yet committed count too (a new file named in the same change), but not what git
    # ignores: build outputs such as `dist/` (make deb) exist in one checkout and not in a fresh
    # clone, so `dist/orientationd_VERSION_ARCH.deb` in a document is not a repository path in
    # either (issue 40: check-docs failed after `make deb`).
    untracked = {name for name in os.listdir(ROOT) if (not name.startswith(".") or name == ".ci") and name not in entries}
    entries |= untracked - ignored(untracked)
    return {entry for entry in entries if entry != ".build" and not entry.startswith(".build")}


def ignored(names):
    """Those of the top-level `names` that git ignores (none outside a git work tree)."""
    paths = [name + "/" if os.path.isdir(os.path.join(ROOT, name)) else name for name in names]
    result = subprocess.run(["git", "-C", ROOT, "check-ignore", "--stdin"], input="\n".join(paths),
                            capture_output=True, text=True)
    return {line.rstrip("/") for line in result.stdout.split("\n") if line}


PLACEHOLDER = re.compile(r"…|\.\.\.|[*<>$%{}]|\bN\b|XXX")


def path_words(text, entries):
    """Words of `text` that name a path in this repository (a top-level entry, then more)."""
    names = sorted((re.escape(entry) for entry in entries), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w/.~:@$-])((?:" + "|".join(names) + r")(?:/[^\s`'\"()\[\],;|]*)?)")
    for match in pattern.finditer(text):
        word = match.group(1)
        end = match.end(1)
        # `Makefile`'s `RELEASE`, `Package.swift`: a bare top-level name counts only when it has
        # a slash, or is a file (the directory names are also ordinary words: data, config).
        if "/" not in word and not os.path.isfile(os.path.join(ROOT, word)):
            continue
        if "/" not in word and not re.search(r"[.A-Z]", word):
            continue
        word = word.rstrip(".:")
        if PLACEHOLDER.search(word) or text[end:end + 1] in ("*", "<", "…"):
            continue
        if text[end:end + 3] == "...":
            continue
        yield word


def check_path(word):
    target = os.path.join(ROOT, word.split("#")[0])
    return os.path.exists(target)


MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def check(root):
    """The problems found in the repository at `root`, one line each."""
    global ROOT, TOPLEVEL
    ROOT = root
    TYPES.clear()
    TOPLEVEL = Type("<top>")
    problems = []
    os.chdir(ROOT)
    entries = top_level_entries() - {".gitignore", ".gitattributes"}
    sources = []
    for directory in ("Sources", "Benchmarks"):
        for base, _, files in os.walk(os.path.join(ROOT, directory)):
            sources += [os.path.join(base, name) for name in sorted(files) if name.endswith(".swift")]
    modules = set(os.listdir(os.path.join(ROOT, "Sources")))
    parsed = []
    for path in sources:
        swift = SwiftFile(path)
        swift.parse()
        parsed.append(swift)
    # Symbol links, and paths in the same comments.
    for swift in parsed:
        relative = os.path.relpath(swift.path, ROOT)
        if not relative.startswith("Sources/"):
            continue
        for number, text, enclosing, documented in swift.doc_lines:
            code_spans = re.sub(r"``[^`]*``", "", text)
            for match in LINK.finditer(text):
                link = match.group(1)
                if not resolve(link, enclosing, documented, modules):
                    problems.append(f"{relative}:{number}: symbol link ``{link}`` names nothing declared in Sources/")
            for word in path_words(code_spans, entries):
                if not check_path(word):
                    problems.append(f"{relative}:{number}: `{word}` does not exist in the repository")
    # Paths in the Markdown documents.
    documents = ["README.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
    for document in documents:
        with open(os.path.join(ROOT, document), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        fenced = False
        for number, line in enumerate(lines, start=1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            # A Markdown link's target is checked as a link, below.
            for word in path_words(re.sub(r"\]\([^)]*\)", "]", line), entries):
                if not check_path(word):
                    problems.append(f"{document}:{number}: `{word}` does not exist in the repository")
            if fenced:
                continue
            for match in MARKDOWN_LINK.finditer(line):
                target = match.group(1)
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(document), target.split("#")[0]))
                if not os.path.exists(os.path.join(ROOT, resolved)):
                    problems.append(f"{document}:{number}: link target `{target}` does not exist")
    symbol_count = sum(len(LINK.findall(text)) for swift in parsed for _, text, _, _ in swift.doc_lines)
    return problems, symbol_count


SELF_TEST_FILES = {
    "Sources/Widgets/Widget.swift": """
/// A widget: see ``Widget/spin(times:)``, ``spin(times:)``, ``Gear``, ``Gear/Size/large``,
/// ``Widgets/Widget``, ``count``, ``init(name:)``, ``Kind/rawValue``, ``Kind/named(_:)``,
/// ``Gear/turn(by:then:)``, and `Sources/Widgets/Gear.swift` (tests: Tests/WidgetTests/).
/// Broken: ``spin(count:)``, ``Gear/Size/huge``, ``Missing``, ``Widget/stop()``,
/// ``Gear/turn(by:)``, and `Sources/Widgets/Gone.swift`.
/// Not paths of this repository: /usr/lib/systemd/system/x.service, https://e.org/Sources/x,
/// Sources/*/Gear.swift, Sources/<module>/File.swift, Tests/...Tests, docs/$NAME.md.
public struct Widget {
    public var count = 0
    public init(name: String) {}
    public func spin(times: Int) {}
    public enum Kind: String { case plain; case named(String) }
}
""",
    "Sources/Widgets/Gear.swift": """
/// Turns: ``turn(by:then:)``; a stale one: ``turn(by:)``.
public final class Gear {
    public enum Size { case small, large }
    public func turn(by angle: Double, then next: @escaping (Int) -> Void = { _ in }) {}
}
""",
    "Tests/WidgetTests/WidgetTests.swift": "",
    "README.md": "See [the guide](docs/GUIDE.md), [gone](docs/GONE.md), `Sources/Widgets/Widget.swift`, "
                 "`scripts/nothing.sh`, [a site](https://example.org/docs/x.md), /usr/share/doc/x.\n"
                 "```\nscripts/run.sh [not](a-link.md) Sources/Nope.swift\n```\n"
                 "`make deb` writes `dist/widget_VERSION.deb`; `make demo` writes `out/demo.log`.\n",
    "docs/GUIDE.md": "Back to [README](../README.md); the [anchor](#top); `Tests/WidgetTests/WidgetTests.swift`.\n",
}

SELF_TEST_EXPECTED = {
    "Sources/Widgets/Widget.swift:5: symbol link ``spin(count:)`` names nothing declared in Sources/",
    "Sources/Widgets/Widget.swift:5: symbol link ``Gear/Size/huge`` names nothing declared in Sources/",
    "Sources/Widgets/Widget.swift:5: symbol link ``Missing`` names nothing declared in Sources/",
    "Sources/Widgets/Widget.swift:5: symbol link ``Widget/stop()`` names nothing declared in Sources/",
    "Sources/Widgets/Widget.swift:6: symbol link ``Gear/turn(by:)`` names nothing declared in Sources/",
    "Sources/Widgets/Widget.swift:6: `Sources/Widgets/Gone.swift` does not exist in the repository",
    "Sources/Widgets/Gear.swift:2: symbol link ``turn(by:)`` names nothing declared in Sources/",
    "README.md:1: link target `docs/GONE.md` does not exist",
    "README.md:1: `scripts/nothing.sh` does not exist in the repository",
    "README.md:3: `Sources/Nope.swift` does not exist in the repository",
    "README.md:3: `scripts/run.sh` does not exist in the repository",
    "README.md:5: `out/demo.log` does not exist in the repository",
}


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST_FILES.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                handle.write(text)
        os.makedirs(os.path.join(root, "scripts"))
        # A git work tree whose build output, dist/ (ignored), exists, as after `make deb`: its
        # paths are no repository's; out/ is not ignored, so out/demo.log is a missing path.
        subprocess.run(["git", "init", "-q", root], check=True)
        with open(os.path.join(root, ".gitignore"), "w", encoding="utf-8") as handle:
            handle.write("/dist/\n")
        for directory in ("dist", "out"):
            os.makedirs(os.path.join(root, directory))
            with open(os.path.join(root, directory, "other.txt"), "w", encoding="utf-8") as handle:
                handle.write("")
        problems, _ = check(root)
    found = set(problems)
    missed, extra = SELF_TEST_EXPECTED - found, found - SELF_TEST_EXPECTED
    for line in sorted(missed):
        print(f"check-docs self-test: not caught: {line}")
    for line in sorted(extra):
        print(f"check-docs self-test: false alarm: {line}")
    return 1 if missed or extra else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    problems, symbol_count = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-docs: {len(problems)} problem(s): the docs disagree with the code")
        return 1
    print(f"check-docs: {symbol_count} symbol links and every repository path in the docs resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
