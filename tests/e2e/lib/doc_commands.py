#!/usr/bin/env python3
"""Every `gpuctl ...` command in the fenced code blocks of README.md and docs/**/*.md, and in the
"Example: gpuctl ..." lines of a saved `gpuctl --help` (second argument, optional), one per line
as FILE:LINE<TAB>ARG<US>ARG..., for tests/e2e/docs_commands.sh. Shell syntax is read, never run:
comments, continuation lines, `&&`/`||`/`;`/`|` and redirections end a command; `$(...)`,
`$VAR` and `${VAR}` become placeholder words; `sudo`, `env` and VAR=value prefixes are skipped.
A line that only mentions gpuctl in prose or output (`gpuctl: error ...`) is not a command."""
import pathlib
import re
import shlex
import sys

root = pathlib.Path(sys.argv[1])
files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
OPERATORS = {"&&", "||", ";", "|", "&", ">", ">>", "<", "2>", "2>&1", "&>", "(", ")", ";;"}


def placeholders(line):
    line = re.sub(r"\$\([^()]*\)", "SUBSTITUTED", line)
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", r"\1", line)


def commands(words):
    """The argument lists of the gpuctl commands among the words of one shell line."""
    found, current = [], None
    at_start = True
    for word in words:
        if word in OPERATORS or re.fullmatch(r"[0-9]*[<>]&?[0-9]*", word):
            if current is not None:
                found.append(current)
            current, at_start = None, word in {"&&", "||", ";", "|", "&", "(", ";;"}
            continue
        if current is not None:
            current.append(word)
        elif at_start:
            if word in {"sudo", "env", "time", "exec"} or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
                continue
            if word == "gpuctl" or word.endswith("/gpuctl"):
                current = []
            else:
                at_start = False
    if current is not None:
        found.append(current)
    return found


def code_lines(path):
    """(line number, text) of the lines a reader would type: code blocks, or --help's examples."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix != ".md":
        for number, line in enumerate(lines, 1):
            if "Example: " in line:
                yield number, line.split("Example: ", 1)[1]
        return
    in_block = output = False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            # ```text marks output (a log whose header starts with "# gpuctl"), not commands
            output = in_block and line.strip() == "```text"
            yield number, None  # a block's edge ends any continued line
        elif in_block and not output:
            yield number, line


if len(sys.argv) > 2:
    files.append(pathlib.Path(sys.argv[2]))

for path in files:
    pending, start = "", 0
    for number, line in code_lines(path):
        if line is None:
            pending = ""
            continue
        if not pending:
            start = number
        text = pending + line.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        text = re.sub(r"^[$#] ", "", text)
        if "gpuctl" not in text:
            continue
        try:
            lexer = shlex.shlex(placeholders(text), posix=True, punctuation_chars=";&|<>()")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            words = list(lexer)
        except ValueError:
            continue  # not shell (an output sample with an odd quote)
        for args in commands(words):
            if any(arg.startswith("[") for arg in args):
                continue  # a synopsis ("gpuctl show RUN [--json]"), not a command
            where = path.relative_to(root) if path.is_relative_to(root) else "gpuctl --help"
            print(f"{where}:{start}\t" + "\x1f".join(args))
