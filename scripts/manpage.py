#!/usr/bin/python3
"""Writes orientationd(8) or orientationctl(1) from the program's own description of its options
(`--experimental-dump-help`, ArgumentParser's JSON: every option, argument, subcommand, abstract
and discussion, exactly as `--help` prints them) and a hand-written file of the sections no
option table can give (FILES, SIGNALS, EXIT STATUS, ENVIRONMENT, EXAMPLES, SEE ALSO).

Replaces the generate-manual plugin, which dropped every non-ASCII character (0–3 became 03,
τ and ° vanished) and listed a `subcommand` and a `help` entry orientationd does not have
(issue 21). Every non-ASCII character is written as groff's \\[uXXXX], so the page is plain ASCII
and renders the same whatever encoding man assumes.

Usage: scripts/manpage.py DUMP.json SECTION DATE EXTRA.roff > PAGE
"""
import json, re, sys

dump_path, section, date, extra_path = sys.argv[1:5]
command = json.load(open(dump_path, encoding="utf-8"))["command"]
name = command["commandName"]


def roff(text):
    """Text for a roff line: backslashes and non-ASCII escaped, a leading . or ' protected."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    return re.sub(r"^([.'])", r"\\&\1", text)


def paragraphs(text):
    """ArgumentParser's discussion: lines indented by two spaces are a verbatim block (follow's
    variables), the rest flowing text."""
    out, verbatim = [], False
    for line in text.split("\n"):
        if line.startswith("  "):
            if not verbatim:
                out += [".PP", ".nf", ".RS 2"]
                verbatim = True
            out.append(roff(line.strip()))
            continue
        if verbatim:
            out += [".RE", ".fi"]
            verbatim = False
        out += [".PP", roff(line)] if line.strip() else []
    if verbatim:
        out += [".RE", ".fi"]
    return out


def flag_names(argument):
    names = []
    for n in argument.get("names", []):
        names.append(("\\-" if n["kind"] == "short" else "\\-\\-") + roff(n["name"]))
    return names


def options(arguments):
    out = []
    for argument in arguments:
        if not argument.get("shouldDisplay", True):
            continue
        if {n["name"] for n in argument.get("names", [])} & {"help", "h", "version"}:
            continue  # every command has them; SYNOPSIS and OPTIONS of the main command say so
        value = argument.get("valueName", "")
        if argument["kind"] == "positional":
            head = f"\\fI{roff(value)}\\fR" + (" ..." if argument.get("isRepeating") else "")
        else:
            head = ", ".join(f"\\fB{n}\\fR" for n in flag_names(argument))
            if argument["kind"] == "option":
                head += f" \\fI{roff(value)}\\fR"
        out += [".TP", head, roff(argument.get("abstract", ""))]
        if argument.get("discussion"):
            out += [roff(argument["discussion"]) if isinstance(argument["discussion"], str) else ""]
        # The values an enumerated option takes, which --help prints and the page dropped
        # (issue 27: import's --preset, --time-unit and --accel-unit read without them).
        if argument.get("allValues"):
            out.append("Values: " + ", ".join(f"\\fB{roff(v)}\\fR" for v in argument["allValues"]) + ".")
        default = argument.get("defaultValue")
        if default not in (None, "", "false", "[]"):
            out.append(f"Default: {roff(default)}.")
    return out


def synopsis_of(arguments, prefix):
    parts = [f"\\fB{roff(prefix)}\\fR"]
    for argument in arguments:
        if not argument.get("shouldDisplay", True):
            continue
        if {n["name"] for n in argument.get("names", [])} & {"help", "h", "version"}:
            continue
        value = roff(argument.get("valueName", ""))
        if argument["kind"] == "positional":
            part = f"\\fI{value}\\fR"
        else:
            first = (argument.get("preferredName") or argument["names"][0])
            flag = ("\\-" if first["kind"] == "short" else "\\-\\-") + roff(first["name"])
            part = f"\\fB{flag}\\fR" + (f" \\fI{value}\\fR" if argument["kind"] == "option" else "")
        if argument.get("isOptional", True):
            part = f"[{part}]"
        parts.append(part)
    return " ".join(parts)


extra = open(extra_path, encoding="utf-8").read().rstrip("\n").split("\n")
extra_synopsis, extra_sections, current = [], [], None
for line in extra:
    # The extra file's own SYNOPSIS lines (the main modes) go first in SYNOPSIS; the rest are
    # sections appended after OPTIONS or COMMANDS.
    if line.startswith(".SH SYNOPSIS"):
        current = extra_synopsis
        continue
    if line.startswith(".SH ") and current is extra_synopsis:
        current = extra_sections
    (current if current is not None else extra_sections).append(line)

def escaped(lines):
    return ["".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in line) for line in lines]

title = "System Manager's Manual" if section == "8" else "User Commands"
out = [
    f'.\\" Generated by scripts/manpage.py from {name} --experimental-dump-help and man/{name}.{section}.extra',
    f'.TH {name.upper()} {section} "{date}" "{name}" "{title}"',
    ".nh",  # no hyphenation: paths and option names stay whole
    ".SH NAME",
    f"{name} \\- {roff(command.get('abstract', ''))}",
    ".SH SYNOPSIS",
]
subcommands = [s for s in command.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
out += escaped(extra_synopsis)
if not subcommands and not extra_synopsis:
    out += [".PP", synopsis_of(command.get("arguments", []), name)]
out += [".SH DESCRIPTION"]
out += paragraphs(command.get("abstract", "") + ("\n" + command["discussion"] if command.get("discussion") else ""))
if subcommands:
    out += [".SH COMMANDS"]
    for sub in subcommands:
        full = f"{name} {sub['commandName']}"
        out += [f'.SS "{roff(full)}"', ".PP", synopsis_of(sub.get("arguments", []), full)]
        out += paragraphs(sub.get("abstract", "") + ("\n" + sub["discussion"] if sub.get("discussion") else ""))
        out += options(sub.get("arguments", []))
    out += [".SH OPTIONS", ".PP", "Every command takes:", ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show the command's help.",
            ".PP", f"\\fB{name}\\fR itself also takes:", ".TP", "\\fB\\-\\-version\\fR", "Print the version and exit."]
else:
    out += [".SH OPTIONS"]
    out += options(command.get("arguments", []))
    out += [".TP", "\\fB\\-\\-version\\fR", "Print the version and exit.", ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show the help and exit."]
out += escaped(extra_sections)
print("\n".join(out))
