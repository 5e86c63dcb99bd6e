#!/usr/bin/env python3
"""Replaces one named section of a Markdown file with standard input.

    some-benchmark | tools/bench/put-section.py docs/BENCHMARKS.md cpu-direct

The section lies between '<!-- NAME:begin -->' and '<!-- NAME:end -->'; it is
appended at the end when absent. Each benchmark script owns one section, so
rerunning one never disturbs the figures of another.
"""
import pathlib
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: put-section.py FILE NAME < content")
    path, name = pathlib.Path(sys.argv[1]), sys.argv[2]
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    body = sys.stdin.read().rstrip("\n")
    block = f"{begin}\n{body}\n{end}"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


if __name__ == "__main__":
    main()
